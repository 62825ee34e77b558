import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware.app import Firmware
from firmware.bindings.gpiozero_hal import IRQ_FALLING, IRQ_RISING, GpiozeroHal
from firmware import codes
from firmware.fakes import FakeClock, FakeI2C, FakePort
from firmware.profile import ProfileError, load


@pytest.fixture
def factory():
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.reset()


def test_first_line_says_cpython_only():
    import firmware.bindings.gpiozero_hal as g

    with open(g.__file__) as fh:
        assert fh.readline().strip() == "# CPython only"


def test_outputs_pwm_inputs(factory):
    p = load("pi-reference")
    hal = GpiozeroHal(factory, p, i2c=FakeI2C(4))
    g = hal.output("gate1")
    pin = factory.pin(5)
    assert pin.state == 0
    g.value(1)
    assert pin.state == 1 and g.value() == 1
    pw = hal.pwm("mixer_pwm")
    pw.duty_u16(32768)
    assert factory.pin(12).state == pytest.approx(0.5, abs=0.01)
    assert factory.pin(12).frequency == 1000
    pw.duty_u16(0)
    assert factory.pin(12).state == 0
    e = hal.input("entry1")  # pull-up: electrical level 1 when idle
    assert e.value() == 1
    factory.pin(6).drive_low()
    assert e.value() == 0
    c = hal.input("guard_curtain")  # pull-down: 0 when nothing drives it
    assert c.value() == 0
    factory.pin(15).drive_high()
    assert c.value() == 1
    assert hal.input("lid") is None and hal.output("status_light") is None


def test_irq_edges_map_to_activated_deactivated(factory):
    p = load("pi-reference")
    hal = GpiozeroHal(factory, p, i2c=FakeI2C(4))
    seen = []
    e = hal.input("entry2")  # pull-up
    e.irq(lambda pin: seen.append(("e", pin.value())), IRQ_FALLING | IRQ_RISING)
    factory.pin(21).drive_low()
    factory.pin(21).drive_high()
    assert seen == [("e", 0), ("e", 1)]
    seen.clear()
    g = hal.input("guard_curtain")  # pull-down
    g.irq(lambda pin: seen.append(("g", pin.value())), IRQ_FALLING)
    factory.pin(15).drive_high()
    factory.pin(15).drive_low()
    assert seen == [("g", 0)]
    m = hal.input("mixer_empty")  # no pull
    m.irq(lambda pin: seen.append(("m", pin.value())), IRQ_RISING)
    factory.pin(4).drive_high()
    assert seen[-1] == ("m", 1)


def test_pi_has_no_adc_pin(factory):
    p = load(None)  # reference-18 maps lift_current to a pin
    with pytest.raises(ProfileError) as e:
        GpiozeroHal(factory, p)
    assert e.value.key == "pins.lift_current"


def test_current_adc_over_injected_i2c(factory):
    class Bus(FakeI2C):
        def writeto_mem(self, addr, reg, buf):
            if addr == 0x48:
                self.adc_cfg = bytes(buf)
                return
            FakeI2C.writeto_mem(self, addr, reg, buf)

        def readfrom_mem_into(self, addr, reg, buf):
            if addr == 0x48:
                buf[0], buf[1] = 0x7F, 0xFF
                return
            FakeI2C.readfrom_mem_into(self, addr, reg, buf)

    p = load("pi-reference")
    hal = GpiozeroHal(factory, p, i2c=Bus(4))
    assert hal.adc("lift_current").read_u16() == 0xFFFE


def test_whole_firmware_on_mock_pins_builds(factory):
    """The controller over gpiozero's MockFactory: a short build, the gates
    closing at the count, tiles read through the injected I2C."""
    p = load("pi-reference")
    i2c = FakeI2C(4)
    i2c.ads[0x48] = 2000
    hal = GpiozeroHal(factory, p, i2c=i2c)
    clock = FakeClock(1000000)
    fw = Firmware(p, hal, clock=clock, link_clock=clock, port=FakePort())
    ctl = fw.ctl
    # the table at rest (gpiozero's mock pins start at their pulls): lift at the
    # bottom, door closed, curtain clear, tiles in the mixer
    for n in (0, 1):  # lift_bottom, door_closed pressed (0)
        factory.pin(n).drive_low()
    factory.pin(15).drive_high()
    factory.pin(17).drive_high()  # the safety chain closed (interlock)
    factory.pin(23).drive_high()  # and its relay's feedback on
    factory.pin(4).drive_low()
    fw.step()
    assert ctl.state == codes.IDLE
    assert ctl.cmd_configure(1, [2, 2, 2, 2], 1, [], 0)[0] == 0
    assert ctl.cmd_build(1)[0] == 0
    assert factory.pin(12).state > 0  # mixer runs
    entries = {1: 6, 2: 21, 3: 25, 4: 8}
    gates = {1: 5, 2: 20, 3: 24, 4: 7}
    for k in range(2):
        for t in range(1, 5):
            i2c.set_colour(t - 1, 0.2, 0.3, 0.5)
            factory.pin(entries[t]).drive_low()
            for _ in range(30):
                fw.step()
                clock.advance(1)
            factory.pin(entries[t]).drive_high()
        for _ in range(250):
            fw.step()
            clock.advance(1)
    for _ in range(1000):
        fw.step()
        clock.advance(1)
    assert ctl.state == codes.BUILT
    assert all(factory.pin(g).state == 0 for g in gates.values())
    assert ctl.counts_flat == [0, 2, 0] * 4
    # the guard stops the lift inside gpiozero's callback
    assert ctl.cmd_lift()[0] == 0
    assert factory.pin(13).state > 0
    factory.pin(15).drive_low()
    assert factory.pin(13).state == 0
    fw.step()
    assert ctl.fault == codes.FAULT_GUARD
    assert ctl.lift.axis.current.read() == 2000
    hal.close()


def test_ads1115_absent_reads_as_a_stall():
    from firmware.drivers.colour import Ads1115

    a = Ads1115(FakeI2C(4), addr=0x49)
    assert not a.present and a.read_u16() == 65535 and a.errors == 3


def test_smbus_adapter_needs_smbus2(factory, monkeypatch):
    import builtins

    real = builtins.__import__

    def fake(name, *a, **k):
        if name == "smbus2":
            raise ImportError("no")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake)
    p = load("pi-reference")
    hal = GpiozeroHal(factory, p)
    with pytest.raises(ProfileError) as e:
        hal.i2c()
    assert "smbus2" in str(e.value)
