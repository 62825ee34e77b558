# What the two pin bindings share (firmware/hal.py is the interface they offer).
from firmware import hal as _hal
from firmware.profile import ProfileError


class Binding:
    """What both bindings share (machine_hal.py, gpiozero_hal.py): one
    object per signal, made at its first use and the same ever after; the I2C bus made
    once; every output off.  A binding makes each kind's object in _output, _pwm, _input,
    _adc and the bus in _make_i2c (None where the profile maps the signal to null)."""

    def __init__(self, profile):
        self._p = profile
        self._pins = profile["pins"]
        self._cache = {}
        self._i2c = None
        self._i2c_made = False

    def _num(self, name, kind):
        """The pin of signal `name`, a signal of this `kind`."""
        if name not in self._pins:
            raise ProfileError("pins." + name, "no such signal", "a signal of docs/ARCHITECTURE.md §4")
        sig = _hal.signal(name)
        if sig[0] != kind:
            raise ValueError("%s is a %s signal, not %s" % (name, sig[0], kind))
        return self._pins[name]

    def _once(self, name, make):
        if name in self._cache:
            return self._cache[name]
        obj = make(name)
        self._cache[name] = obj
        return obj

    def output(self, name):
        return self._once(name, self._output)

    def pwm(self, name):
        return self._once(name, self._pwm)

    def input(self, name):
        return self._once(name, self._input)

    def adc(self, name):
        return self._once(name, self._adc)

    def i2c(self):
        if not self._i2c_made:
            self._i2c_made = True
            self._i2c = self._make_i2c()
        return self._i2c

    def all_off(self):
        """Create every output of the profile with its level 0 (duty 0)."""
        for name in _hal.profile_signals(self._p):
            kind = _hal.signal(name)[0]
            if kind == _hal.OUT:
                o = self.output(name)
                if o is not None:
                    o.value(0)
            elif kind == _hal.PWM:
                self.pwm(name).duty_u16(0)
