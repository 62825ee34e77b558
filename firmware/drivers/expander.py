# An MCP23017: 16 GPIO behind I2C, for the table's slow signals (solenoid strokes,
# directions, the door's switches, buttons, the light, the mixer's empty sensor) on a
# board with few pins (docs/FIRMWARE.md §3.7).  It shares the colour sensors' bus.
#
# Registers with IOCON.BANK = 0 (its power-on state): each port A register is followed
# by its port B one, so one two-byte transfer covers all 16 pins (A0..A7 are pins 0..7,
# B0..B7 pins 8..15).  Outputs are written to OLAT when one changes (one write); inputs
# are read from GPIO by poll(), which the binding runs on a scheduler timer
# (timings_ms.poll): an input's edges reach its handler from there, in task context,
# within one poll period.  Nothing allocates after construction (the buffer is made once);
# a transfer the chip does not answer counts in `errors` and leaves the last state.
# `Expanders` is a profile's chips and the signals it puts on them, for either binding
# (bindings/machine_hal.py on a MicroPython board, bindings/gpiozero_hal.py on a Pi).
from firmware import hal as _hal
from firmware.compat import const

_IODIR = const(0x00)  # 1 = input
_GPPU = const(0x0C)  # 1 = 100 kOhm pull-up
_GPIO = const(0x12)
_OLAT = const(0x14)


class ExpanderPin:
    """One of the expander's pins, with the few methods of machine.Pin the drivers use."""

    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, exp, bit, output):
        self._exp = exp
        self.mask = 1 << bit
        self.output = output
        self.handler = None
        self.trigger = 0

    def value(self, v=None):
        e = self._exp
        if v is None:
            return 1 if ((e.out if self.output else e.level) & self.mask) else 0
        e.write_bit(self.mask, v)
        return None

    def irq(self, handler=None, trigger=12):
        self.handler = handler
        self.trigger = trigger
        return self


class Mcp23017:
    def __init__(self, i2c, addr):
        self._i2c = i2c
        self.addr = addr
        self._buf = bytearray(2)
        self.inputs = 0  # mask of the pins that are inputs
        self.outputs = 0  # mask of the pins that are outputs (the rest stay inputs: power-on)
        self.pullups = 0
        self.out = 0  # the output latch
        self.level = 0  # the inputs as last read
        self.pins = []
        self.errors = 0
        self.polls = 0

    def pin(self, bit, *, output, pull_up=False, value=0):
        """Pin ``bit`` (0..15), defined but not yet written: configure() writes every pin
        defined, at once."""
        m = 1 << bit
        p = ExpanderPin(self, bit, output)
        self.pins.append(p)
        if output:
            self.out = (self.out | m) if value else (self.out & ~m)
            self.outputs |= m
        else:
            self.inputs |= m
            if pull_up:
                self.pullups |= m
        return p

    def configure(self):
        """Write the pins defined: the latch first (an output comes up at its level), the
        pull-ups, the directions (the rest stay inputs, as at power-on); then read."""
        self._write(_OLAT, self.out)
        self._write(_GPPU, self.pullups)
        self._write(_IODIR, 0xFFFF & ~self.outputs)
        self.read()

    def _write(self, reg, v):
        b = self._buf
        b[0] = v & 0xFF
        b[1] = (v >> 8) & 0xFF
        try:
            self._i2c.writeto_mem(self.addr, reg, b)
        except OSError:
            self.errors += 1

    def write_bit(self, mask, v):
        out = (self.out | mask) if v else (self.out & ~mask)
        if out != self.out:
            self.out = out
            self._write(_OLAT, out)

    def read(self):
        b = self._buf
        try:
            self._i2c.readfrom_mem_into(self.addr, _GPIO, b)
        except OSError:
            self.errors += 1
            return self.level
        self.level = (b[0] | (b[1] << 8)) & self.inputs
        return self.level

    def poll(self):
        """Read the inputs; each that changed calls its handler (edge by its trigger)."""
        old = self.level
        new = self.read()
        self.polls += 1
        changed = old ^ new
        if not changed:
            return
        pins = self.pins
        i = 0
        n = len(pins)
        while i < n:
            p = pins[i]
            i += 1
            if p.handler is not None and (changed & p.mask):
                if (new & p.mask and p.trigger & 8) or (not (new & p.mask) and p.trigger & 4):
                    p.handler(p)

    def get_status(self):
        return {"addr": self.addr, "inputs": self.inputs, "out": self.out, "level": self.level,
                "errors": self.errors, "polls": self.polls}


class Expanders:
    """The profile's expanders (``expanders``: MCP23017s on the I2C bus) and every signal
    the profile puts on one, for either binding.  Made on first use: pin(name, i2c) the
    first time defines every expander pin of the profile (wrapped by ``invert(pin)`` where
    the profile inverts it) and writes the chips at once (configure); start(sched) polls
    their inputs every timings_ms.poll from a scheduler timer, once they exist (the
    firmware calls the binding's start once its scheduler exists)."""

    def __init__(self, profile, invert):
        self._p = profile
        self._invert = invert
        self.chips = []
        self.pins = None
        self._sched = None
        self._timer = None

    def pin(self, name, i2c):
        """Signal `name`'s pin; `i2c()` gives the bus (asked for the first time only)."""
        if self.pins is None:
            self._make(i2c())
        return self.pins[name]

    def _make(self, bus):
        p = self._p
        for e in p["expanders"] or ():
            self.chips.append(Mcp23017(bus, e["addr"]))
        self.pins = {}
        names = p["pins"]
        for name in _hal.profile_signals(p):
            n = names.get(name)
            if n is None or n < _hal.EXPANDER_PINS:
                continue
            k = n - _hal.EXPANDER_PINS
            exp = self.chips[k >> 4]
            inv, pull = _hal.options(p, name)
            if _hal.signal(name)[0] == _hal.OUT:
                pin = exp.pin(k & 15, output=True, value=1 if inv else 0)
            else:
                pin = exp.pin(k & 15, output=False, pull_up=pull == _hal.PULL_UP)
            self.pins[name] = self._invert(pin) if inv else pin
        for e in self.chips:
            e.configure()
        if self._sched is not None:
            self.start(self._sched)

    def start(self, sched):
        self._sched = sched
        if self.chips and self._timer is None:
            self._poll_ms = self._p["timings_ms"]["poll"]
            self._poll_cb = self._poll  # bound once: no allocation per poll
            self._timer = sched.timer(self._poll_cb)
            self._timer.start(self._poll_ms)

    def _poll(self):
        for e in self.chips:
            e.poll()
        self._timer.start(self._poll_ms)
