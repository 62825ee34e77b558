import pytest

from firmware.bindings.machine_hal import MachineHal
from firmware.profile import ProfileError, load


class FakeMachine:
    """Records every constructor call the binding makes on `machine`."""

    def __init__(self):
        self.calls = []
        fm = self

        class Pin:
            IN, OUT = 0, 1
            PULL_UP, PULL_DOWN = 1, 2
            IRQ_FALLING, IRQ_RISING = 4, 8

            def __init__(self, n, mode=-1, pull=-1, value=None):
                self.n, self.mode, self.pull, self.v = n, mode, pull, value
                fm.calls.append(("Pin", n, mode, pull, value))

            def value(self, v=None):
                if v is None:
                    return self.v
                self.v = v

        class PWM:
            def __init__(self, pin):
                self.pin = pin
                self.f = None
                self.d = None
                fm.calls.append(("PWM", pin.n))

            def freq(self, f):
                self.f = f

            def duty_u16(self, d):
                self.d = d

        class ADC:
            def __init__(self, pin):
                fm.calls.append(("ADC", pin.n))

            def read_u16(self):
                return 123

        class I2C:
            def __init__(self, bus, scl=None, sda=None, freq=None):
                fm.calls.append(("I2C", bus, scl.n, sda.n, freq))

        self.Pin, self.PWM, self.ADC, self.I2C = Pin, PWM, ADC, I2C


def test_outputs_start_off_inputs_get_their_pulls():
    mm = FakeMachine()
    p = load(None)
    hal = MachineHal(mm, p)
    g = hal.output("gate1")
    assert ("Pin", 3, 1, -1, 0) in mm.calls and g.v == 0
    assert hal.output("gate1") is g  # cached
    e = hal.input("entry1")
    assert e.mode == 0 and e.pull == mm.Pin.PULL_UP
    # reference-18's safety inputs have external pull-downs (RP2350 erratum E9): no pull
    assert hal.input("guard_curtain").pull is None and hal.input("interlock").pull is None
    assert MachineHal(FakeMachine(), load("pico-18")).input("guard_curtain").pull == mm.Pin.PULL_DOWN
    assert hal.input("mixer_empty").pull is None
    pw = hal.pwm("lift_pwm")
    assert pw.f == 20000 and pw.d == 0 and pw.pin.v == 0
    assert hal.adc("lift_current").read_u16() == 123 and ("ADC", 40) in mm.calls
    hal.i2c()
    assert ("I2C", 0, 33, 32, 400000) in mm.calls
    assert hal.i2c() is hal.i2c()


def test_all_off_creates_every_output_at_zero():
    mm = FakeMachine()
    p = load(None)
    hal = MachineHal(mm, p)
    hal.all_off()
    outs = [c for c in mm.calls if c[0] == "Pin" and c[2] == 1]
    assert len(outs) == 4 * 3 + 1 + 1 + 1 + 1 + 3 + 1  # track outputs, dirs, light, pwm pins, watchdog
    assert all(c[4] == 0 for c in outs)


def test_null_signals_and_wrong_kinds():
    mm = FakeMachine()
    p = load("pi-reference")
    p["current_adc"] = None
    hal = MachineHal(mm, p)
    assert hal.input("door_open") is None and hal.output("status_light") is None
    assert hal.adc("lift_current") is None
    with pytest.raises(ValueError):
        hal.output("entry1")
    with pytest.raises(ProfileError):
        hal.input("gate9")


def test_current_adc_on_the_i2c_bus():
    mm = FakeMachine()
    p = load("pi-reference")
    hal = MachineHal(mm, p)

    class Bus:
        def writeto_mem(self, a, r, b):
            self.cfg = (a, r)

        def readfrom_mem_into(self, a, r, buf):
            buf[0], buf[1] = 0x10, 0x00

    hal._i2c, hal._i2c_made = Bus(), True
    a = hal.adc("lift_current")
    assert a.read_u16() == 0x2000
