# CPython only
#
# The gpiozero binding: a Raspberry Pi running the controller under CPython
# (docs/ARCHITECTURE.md §8, docs/FIRMWARE.md "Raspberry Pi").  Real pins with
# the default pin factory (lgpio on a Pi 5), gpiozero's MockFactory in tests.
#
# Each signal is a gpiozero device built with pin_factory=...; a thin adapter
# gives the firmware the same few methods a machine.Pin / PWM offers:
#   outputs  DigitalOutputDevice(n, initial_value=False)        -> value(v)
#   PWM      PWMOutputDevice(n, initial_value=0, frequency=f)   -> duty_u16(v)
#   inputs   DigitalInputDevice(n, pull_up=True | False | None, active_state=...)
#            -> value() (the electrical level) and irq(handler, trigger) via
#            when_activated / when_deactivated
# A pin the profile gives as {"pin": n, "invert": true, "pull": ...}: outputs with
# active_high=False (gpiozero inverts them), inputs read the other way round
# (value() and the edges), with the profile's pull.
# A Pi has no ADC and its I2C is not a gpiozero device:
#   i2c      an object with the machine.I2C subset the firmware uses
#            (writeto, writeto_mem, readfrom_mem_into), passed as i2c=..., or
#            by default SMBusI2C(profile i2c.bus) over smbus2 (installed apart)
#   current  profile "current_adc": an ADS1115 on that I2C bus (the lift current);
#            pins.lift_current must be null on a Pi
#   expanders  the profile's MCP23017s on that bus carry slow signals as on a
#            MicroPython board (firmware/drivers/expander.py Expanders, shared with
#            the machine binding; their inputs polled by start(sched))
# gpiozero calls the handlers from its own thread on a Pi (synchronously under
# MockFactory); the handlers only update ints and write pins.
#
# Every signal's device is made when the binding is (claim_all): a pin the pin factory
# cannot drive (a number that is no GPIO of this Pi, one in use, PWM where it has none)
# or an I2C bus that is not there is a ProfileError naming the signal, before the
# firmware starts (python -m firmware.pi_main exits 2 saying so).
from gpiozero import DigitalInputDevice, DigitalOutputDevice, GPIOZeroError, PWMOutputDevice

from firmware import hal as _hal
from firmware.bindings.binding import Binding
from firmware.profile import ProfileError

# what to do when the I2C bus is not there (Raspberry Pi OS ships with it off)
I2C_HOWTO = ("enable I2C: sudo raspi-config nonint do_i2c 0 (or dtparam=i2c_arm=on in "
             "/boot/firmware/config.txt), then reboot; docs/DEPLOY.md \"One Raspberry Pi\"")

IRQ_FALLING = 1
IRQ_RISING = 2


class _Out:
    def __init__(self, dev):
        self.dev = dev

    def value(self, v=None):
        if v is None:
            return 1 if self.dev.value else 0
        if v:
            self.dev.on()
        else:
            self.dev.off()


class _Pwm:
    def __init__(self, dev):
        self.dev = dev
        self._duty = 0

    def duty_u16(self, v=None):
        if v is None:
            return self._duty
        self._duty = v
        self.dev.value = v / 65535.0

    def freq(self, f=None):
        if f is None:
            return self.dev.frequency
        self.dev.frequency = f


class _In:
    IRQ_FALLING = IRQ_FALLING
    IRQ_RISING = IRQ_RISING

    def __init__(self, dev, active_low):
        self.dev = dev
        self._active_low = active_low
        self._handler = None

    def value(self):
        a = 1 if self.dev.value else 0
        return 1 - a if self._active_low else a

    def irq(self, handler, trigger):
        self._handler = handler
        fall = bool(trigger & IRQ_FALLING)
        rise = bool(trigger & IRQ_RISING)
        # active_low: activated = falling edge; otherwise activated = rising edge
        on_act = fall if self._active_low else rise
        on_deact = rise if self._active_low else fall
        if on_act:
            self.dev.when_activated = self._fire
        elif self.dev.when_activated is not None:
            self.dev.when_activated = None
        if on_deact:
            self.dev.when_deactivated = self._fire
        elif self.dev.when_deactivated is not None:
            self.dev.when_deactivated = None

    def _fire(self):
        h = self._handler
        if h is not None:
            h(self)


class NoI2C:
    """A bus nothing answers on (gpiozero's mock pins off a Pi): every transfer NACKs,
    so the colour sensors and an ADS1115 read absent, as with their cable unplugged."""

    def _nack(self, *a, **kw):
        raise OSError(19)  # ENODEV, as a NACK

    writeto = writeto_mem = readfrom_mem_into = _nack


class SMBusI2C:
    """machine.I2C subset over an smbus2.SMBus (Linux I2C)."""

    def __init__(self, bus):
        try:
            from smbus2 import SMBus, i2c_msg
        except ImportError:
            raise ProfileError("i2c.bus", "the smbus2 package is not installed",
                               "pip install smbus2, or pass i2c= to GpiozeroHal")
        try:
            self._bus = SMBus(bus)
        except OSError as e:  # no /dev/i2c-N: I2C is off (or another bus number)
            raise ProfileError("i2c.bus", "I2C bus %d cannot be opened (/dev/i2c-%d: %s)"
                               % (bus, bus, e.strerror or e), I2C_HOWTO)
        self._msg = i2c_msg

    def writeto(self, addr, buf):
        self._bus.i2c_rdwr(self._msg.write(addr, bytes(buf)))

    def writeto_mem(self, addr, reg, buf):
        self._bus.write_i2c_block_data(addr, reg, list(buf))

    def readfrom_mem_into(self, addr, reg, buf):
        data = self._bus.read_i2c_block_data(addr, reg, len(buf))
        for i in range(len(buf)):
            buf[i] = data[i]


class GpiozeroHal(Binding):
    def __init__(self, pin_factory, profile, *, i2c=None):
        Binding.__init__(self, profile)
        self._f = pin_factory
        if i2c is not None:  # a bus given (tests): the one the binding uses
            self._i2c, self._i2c_made = i2c, True
        self.devices = []
        from firmware.bindings.machine_hal import Inverted
        from firmware.drivers.expander import Expanders

        self._x = Expanders(profile, Inverted)  # the profile's expanders, made on first use
        if self._pins.get("lift_current") is not None:
            raise ProfileError("pins.lift_current", "a Raspberry Pi has no ADC pin",
                               'null, with the current read by an I2C ADC: "current_adc"')

    def claim_all(self):
        """Make every signal's device now (outputs off), the I2C bus and the expanders
        too: a pin the pin factory cannot drive is a ProfileError naming its signal,
        raised before anything moves (python -m firmware.pi_main calls this first)."""
        for name in _hal.profile_signals(self._p):
            kind = _hal.signal(name)[0]
            n = self._pins.get(name)
            if n is None or kind in (_hal.I2C, _hal.ADC):
                continue
            try:
                if kind == _hal.OUT:
                    self.output(name).value(0)
                elif kind == _hal.PWM:
                    self.pwm(name).duty_u16(0)
                else:
                    self.input(name)
            except GPIOZeroError as e:
                raise ProfileError("pins." + name, "GPIO %s: %s (%s)" % (n, e, type(e).__name__),
                                   "a GPIO of this Pi that its pin factory drives (BCM 0..27, "
                                   "not used twice; docs/FIRMWARE.md §3.3), or a pin of an "
                                   "MCP23017 expander for a slow signal")
        self.i2c()
        self.adc("lift_current")

    def _expander_pin(self, name):
        """As the machine binding's (firmware/drivers/expander.py Expanders, its driver)."""
        return self._x.pin(name, self._expander_bus)

    def _expander_bus(self):
        bus = self.i2c()
        if bus is None:
            raise ProfileError("expanders", "an expander needs the I2C bus",
                               "pins.i2c_sda and pins.i2c_scl of the Pi (GPIO 2 and 3)")
        return bus

    @property
    def expanders(self):
        """firmware/drivers/expander.Mcp23017, one per profile entry (once made)."""
        return self._x.chips

    def start(self, sched):
        """Poll the expanders' inputs every timings_ms.poll (the firmware calls this once
        its scheduler exists)."""
        self._x.start(sched)

    def _output(self, name):
        n = self._num(name, _hal.OUT)
        obj = None
        if n is not None and n >= _hal.EXPANDER_PINS:
            obj = self._expander_pin(name)
        elif n is not None:
            dev = DigitalOutputDevice(n, active_high=not _hal.options(self._p, name)[0],
                                      initial_value=False, pin_factory=self._f)
            self.devices.append(dev)
            obj = _Out(dev)
        return obj

    def _pwm(self, name):
        n = self._num(name, _hal.PWM)
        dev = PWMOutputDevice(n, active_high=not _hal.options(self._p, name)[0], initial_value=0,
                              frequency=self._p["pwm_freq"], pin_factory=self._f)
        self.devices.append(dev)
        return _Pwm(dev)

    def _input(self, name):
        n = self._num(name, _hal.IN)
        obj = None
        if n is not None and n >= _hal.EXPANDER_PINS:
            obj = self._expander_pin(name)
        elif n is not None:
            invert, pull = _hal.options(self._p, name)
            # _In's flag: the device's "active" is the wire low (a pull-up), read back
            # as the level; an inverted pin reads the other way round
            if pull == _hal.PULL_UP:
                dev = DigitalInputDevice(n, pull_up=True, pin_factory=self._f)
                obj = _In(dev, not invert)
            elif pull == _hal.PULL_DOWN:
                dev = DigitalInputDevice(n, pull_up=False, pin_factory=self._f)
                obj = _In(dev, invert)
            else:
                dev = DigitalInputDevice(n, pull_up=None, active_state=True, pin_factory=self._f)
                obj = _In(dev, invert)
            self.devices.append(dev)
        return obj

    def _adc(self, name):
        obj = None
        cfg = self._p.get("current_adc")
        if name == "lift_current" and cfg is not None:
            from firmware.drivers.colour import Ads1115

            bus = self.i2c()
            if bus is None:
                raise ProfileError("current_adc", "needs the I2C bus", "I2C pins in the profile")
            obj = Ads1115(bus, addr=cfg["addr"], channel=cfg["channel"])
        return obj

    def _make_i2c(self):
        if self._pins["i2c_sda"] is None:
            return None
        return SMBusI2C(self._p["i2c"]["bus"])

    def close(self):
        for d in self.devices:
            d.close()
        self.devices = []
        self._cache = {}
        from firmware.bindings.machine_hal import Inverted
        from firmware.drivers.expander import Expanders

        self._x = Expanders(self._p, Inverted)
