# The `machine` binding: MicroPython boards (the real module) and the
# simulator (hw_sim's machine-compatible stand-in).  docs/ARCHITECTURE.md §8.
#
# What it calls on `machine`, and nothing else:
#   machine.Pin(n, machine.Pin.OUT, value=0)           digital outputs, off from the start
#   machine.Pin(n, machine.Pin.IN, pull)                inputs; pull is Pin.PULL_UP,
#                                                       Pin.PULL_DOWN or None
#   machine.PWM(machine.Pin(n, Pin.OUT, value=0)); .freq(f); .duty_u16(0)
#   machine.ADC(machine.Pin(n))                         the lift current
#   machine.I2C(bus, scl=machine.Pin(scl), sda=machine.Pin(sda), freq=f)
#   and on that bus the profile's expanders (firmware/drivers/expander.py) for the
#   signals given as {"expander": e, "pin": p}, their inputs polled by start(sched)
# Every object is created once and cached by signal name, so the app can
# create all outputs first (off) and the mechanisms get the same objects.
# A pin the profile inverts ({"pin": n, "invert": true}: a normally-closed
# switch, an active-low driver) is wrapped (Inverted, InvertedPwm): the
# mechanisms read and write the signal as usual; an inverted output starts at
# its wire's high level, which is its "off".
from firmware import hal as _hal
from firmware.bindings.binding import Binding


class Inverted:
    """A pin read and written the other way round.  Its edges swap too: a driver asking
    for IRQ_FALLING (the signal falling) gets the wire's rising edge.  Handlers get the
    machine pin; the drivers read the signal through this object.  No allocation."""

    def __init__(self, pin):
        self.pin = pin
        self.IRQ_FALLING = pin.IRQ_RISING
        self.IRQ_RISING = pin.IRQ_FALLING

    def value(self, v=None):
        if v is None:
            return 1 - self.pin.value()
        self.pin.value(0 if v else 1)
        return None

    def on(self):
        self.pin.value(0)

    def off(self):
        self.pin.value(1)

    def irq(self, handler=None, trigger=None, hard=False):
        if trigger is None:
            trigger = self.pin.IRQ_FALLING | self.pin.IRQ_RISING
        if hard:  # (a port without hard IRQs raises TypeError: the caller falls back)
            return self.pin.irq(handler, trigger, hard=True)
        return self.pin.irq(handler, trigger)


class InvertedPwm:
    """A PWM output whose wire is low for "on": the duty is given the other way round."""

    def __init__(self, pwm):
        self.pwm = pwm

    def freq(self, f=None):
        return self.pwm.freq(f) if f is not None else self.pwm.freq()

    def duty_u16(self, v=None):
        if v is None:
            return 65535 - self.pwm.duty_u16()
        self.pwm.duty_u16(65535 - v)
        return None

    def deinit(self):
        self.pwm.duty_u16(65535)


class MachineHal(Binding):
    def __init__(self, machine, profile):
        Binding.__init__(self, profile)
        self._m = machine
        self._x = None  # the profile's Expanders: imported and made with the first pin on one
        self._sched = None  # (a board without an expander never loads their code)

    def _expander_pin(self, name):
        """The expander pin of signal `name`, wrapped when the profile inverts it: the
        first call defines every expander pin of the profile and writes them at once
        (firmware/drivers/expander.py Expanders, shared with the gpiozero binding)."""
        if self._x is None:
            from firmware.drivers.expander import Expanders

            self._x = Expanders(self._p, Inverted)
            if self._sched is not None:
                self._x.start(self._sched)
        return self._x.pin(name, self.i2c)

    @property
    def expanders(self):
        """firmware/drivers/expander.Mcp23017, one per profile entry (once made)."""
        return self._x.chips if self._x is not None else []

    def start(self, sched):
        """Poll the expanders' inputs every timings_ms.poll (the firmware calls this once
        its scheduler exists)."""
        self._sched = sched
        if self._x is not None:
            self._x.start(sched)

    def _output(self, name):
        n = self._num(name, _hal.OUT)
        obj = None
        if n is not None and n >= _hal.EXPANDER_PINS:
            obj = self._expander_pin(name)
        elif n is not None:
            P = self._m.Pin
            if _hal.options(self._p, name)[0]:
                obj = Inverted(P(n, P.OUT, value=1))  # off from the start
            else:
                obj = P(n, P.OUT, value=0)
        return obj

    def _pwm(self, name):
        n = self._num(name, _hal.PWM)
        P = self._m.Pin
        if _hal.options(self._p, name)[0]:
            obj = InvertedPwm(self._m.PWM(P(n, P.OUT, value=1)))
        else:
            obj = self._m.PWM(P(n, P.OUT, value=0))
        obj.freq(self._p["pwm_freq"])
        obj.duty_u16(0)
        return obj

    def _input(self, name):
        n = self._num(name, _hal.IN)
        obj = None
        if n is not None and n >= _hal.EXPANDER_PINS:
            obj = self._expander_pin(name)
        elif n is not None:
            P = self._m.Pin
            invert, pull = _hal.options(self._p, name)
            if pull == _hal.PULL_UP:
                p = P.PULL_UP
            elif pull == _hal.PULL_DOWN:
                p = P.PULL_DOWN
            else:
                p = None
            obj = P(n, P.IN, p)
            if invert:
                obj = Inverted(obj)
        return obj

    def _adc(self, name):
        obj = None
        cfg = self._p.get("current_adc")
        if name == "lift_current" and cfg is not None:
            from firmware.drivers.colour import Ads1115

            obj = Ads1115(self.i2c(), addr=cfg["addr"], channel=cfg["channel"])
        else:
            n = self._num(name, _hal.ADC)
            if n is not None:
                obj = self._m.ADC(self._m.Pin(n))
        return obj

    def _make_i2c(self):
        sda = self._pins["i2c_sda"]
        scl = self._pins["i2c_scl"]
        if sda is None or scl is None:
            return None
        c = self._p["i2c"]
        P = self._m.Pin
        return self._m.I2C(c["bus"], scl=P(scl), sda=P(sda), freq=c["freq"])
