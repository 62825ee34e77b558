"""hw_sim.machine: the `machine`-compatible stand-in wired to the table."""
import sys

import pytest

from hw_sim.machine import PWRON_RESET, Machine
from sim_helpers import bare_table


@pytest.fixture
def tm():
    tab = bare_table(sim={"bounce": 0.0})
    return tab, Machine(tab)


def test_module_shape(tm):
    tab, m = tm
    P = m.Pin
    assert (P.IN, P.OUT, P.PULL_UP, P.PULL_DOWN) == (0, 1, 1, 2)
    assert (P.IRQ_FALLING, P.IRQ_RISING) == (4, 8)
    assert len(m.unique_id()) == 8 and m.reset_cause() == PWRON_RESET == m.PWRON_RESET
    assert m.freq() > 0 and m.disable_irq() == 0
    m.enable_irq(0)
    m.idle()
    sys.modules["machine"] = m
    try:
        import machine

        assert machine.Pin is m.Pin
    finally:
        del sys.modules["machine"]


def test_outputs_reach_the_table(tm):
    tab, m = tm
    pins = tab.profile["pins"]
    g = m.Pin(pins["gate1"], m.Pin.OUT, value=0)
    g.value(1)
    assert tab.lines["gate1"].level == 1 and tab.tracks[0].gate_open
    g(0)
    g.on()
    g.off()
    g.toggle()
    assert g.value() == 1
    pwm = m.PWM(m.Pin(pins["mixer_pwm"], m.Pin.OUT, value=0))
    pwm.freq(20000)
    pwm.duty_u16(52428)
    assert tab.mixer.running and pwm.duty_u16() == 52428 and pwm.freq() == 20000
    assert pwm.duty_ns() > 0
    pwm.deinit()
    assert not tab.mixer.running
    # a Pin on a PWM line is full on / off
    lp = m.Pin("lift_pwm", m.Pin.OUT)
    lp.value(1)
    assert tab.lines["lift_pwm"].level == 65535


def test_inputs_and_synchronous_irqs(tm):
    tab, m = tm
    pins = tab.profile["pins"]
    e = m.Pin(pins["entry1"], m.Pin.IN, m.Pin.PULL_UP)
    seen = []

    def h(pin):
        seen.append((tab.clock.now_us(), pin.value(), pin.flags()))

    e.irq(h, m.Pin.IRQ_FALLING)
    assert e.value() == 1
    tab.tracks[0].enter(0, 0)
    tab.advance_to(100_000)
    assert seen == [(0, 0, 4)]  # at the instant, falling only
    e.irq(h, m.Pin.IRQ_FALLING | m.Pin.IRQ_RISING)
    tab.tracks[0].enter(1, 200_000)
    tab.advance_to(300_000)
    assert [s[1] for s in seen[1:]] == [0, 1]
    bottom = m.Pin(pins["lift_bottom"], m.Pin.IN, m.Pin.PULL_UP)
    assert bottom.value() == 0  # pressed at rest


def test_adc_and_i2c(tm):
    tab, m = tm
    pins = tab.profile["pins"]
    adc = m.ADC(m.Pin(pins["lift_current"]))
    assert 0 < adc.read_u16() < 5000
    i2c = m.I2C(0, scl=m.Pin(pins["i2c_scl"]), sda=m.Pin(pins["i2c_sda"]), freq=400000)
    assert i2c is tab.bus and m.SoftI2C() is tab.bus
    assert 0x70 in i2c.scan()


def test_wiring_mistakes_are_recorded(tm):
    tab, m = tm
    pins = tab.profile["pins"]
    m.Pin(pins["entry2"], m.Pin.IN)  # no pull-up
    m.Pin(pins["guard_curtain"], m.Pin.IN, m.Pin.PULL_UP)  # wrong pull
    m.Pin(pins["gate2"], m.Pin.IN)
    m.Pin(pins["entry3"], m.Pin.OUT).value(1)
    m.Pin(pins["gate3"], m.Pin.OUT).irq(lambda p: None)
    m.ADC(pins["gate4"])
    w = "\n".join(tab.wiring)
    # (reference-18's curtain has its own pull-down resistor: RP2350 erratum E9)
    assert "entry2 needs PULL_UP" in w and "guard_curtain has its own resistor: no pull" in w
    assert "gate2 is an output" in w and "written to input entry3" in w
    assert "irq on gate3" in w and "ADC on gate4" in w


def test_uart_is_the_wire():
    from hw_sim.wire import Wire

    w = Wire()
    tab = bare_table(wire=w)
    m = Machine(tab)
    u = m.UART(0, baudrate=115200, tx=m.Pin(0), rx=m.Pin(1), timeout=0)
    assert u is w.device and u.txdone()
    u.write(b"hi")
    assert w.host_read() == b"hi"
    with pytest.raises(OSError):
        Machine(bare_table()).UART(0)


def test_unwired_pin_keeps_its_own_level(tm):
    tab, m = tm
    p = m.Pin(200, m.Pin.OUT)
    p.value(1)
    assert p.value() == 1 and p.name() is None


def test_detach_and_reset(tm):
    tab, m = tm
    e = m.Pin(tab.profile["pins"]["entry1"], m.Pin.IN, m.Pin.PULL_UP)
    seen = []
    e.irq(lambda p: seen.append(1), m.Pin.IRQ_FALLING)
    m.detach()
    tab.tracks[0].enter(0, 0)
    tab.advance_to(10)
    assert seen == []
    m.reset()
    assert tab.take_actions() == ["reset"]


def test_wdt(tm):
    tab, m = tm
    w = m.WDT(timeout=100)
    assert m.wdt is w
    tab.advance_to(50_000)
    w.feed()
    assert not w.expired(tab.clock.now_us() + 100_000)
    assert w.expired(tab.clock.now_us() + 100_001)


def test_lock_irq_catches_an_allocating_handler():
    from firmware import compat

    tab = bare_table(sim={"bounce": 0.0})
    m = Machine(tab, lock_irq=True)
    e = m.Pin(tab.profile["pins"]["entry1"], m.Pin.IN, m.Pin.PULL_UP)
    e.irq(lambda p: [1, 2, 3], m.Pin.IRQ_FALLING)
    tab.tracks[0].enter(0, 0)
    if compat.MICROPYTHON:  # pragma: no cover - CPython has no heap lock
        with pytest.raises(MemoryError):
            tab.advance_to(10)
    else:
        tab.advance_to(10)
        assert m.irq_alloc_errors == 0


def test_lock_irq_bus_is_the_tables_with_its_models_outside_the_lock():
    """Machine(lock_irq=True): the I2C object passes every transaction to the table's
    bus (the same bytes, the same NACK) and returns the heap lock as it found it; its
    models run unlocked (tests/mpy/sim_heap_lock.py proves the rest on MicroPython)."""
    from firmware import compat
    from hw_sim import machine as hm

    tab = bare_table(sim={"bounce": 0.0})
    m = Machine(tab, lock_irq=True)
    i2c = m.I2C(0)
    assert i2c is not tab.bus and i2c.mux_addr == tab.bus.mux_addr and 0x70 in i2c.scan()
    n0 = tab.bus.transactions
    i2c.writeto(0x70, b"\x01")  # mux: channel 0
    buf = bytearray(8)
    i2c.readfrom_mem_into(0x29, 0x80 | 0x12, buf)
    assert buf[0] == 0x44 and tab.bus.transactions == n0 + 3  # the TCS34725's ID
    with pytest.raises(OSError):
        i2c.writeto_mem(0x31, 0, b"\x00")  # nobody at 0x31: a NACK
    assert hm._unlock_all() == 0  # the lock as it was (none)
    compat.heap_lock()
    try:
        depth = hm._unlock_all()
        hm._relock(depth)
    finally:
        compat.heap_unlock()
    assert depth == (1 if compat.MICROPYTHON else 0)
