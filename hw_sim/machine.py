# A `machine`-compatible stand-in wired to the simulated table
# (docs/ARCHITECTURE.md §8: MachineHal(machine, profile) takes any object with
# Pin, PWM, ADC, I2C).  Machine(table) is used like the module:
#
#     m = Machine(table)
#     p = m.Pin(4, m.Pin.IN, m.Pin.PULL_UP); p.irq(handler, m.Pin.IRQ_FALLING)
#     pwm = m.PWM(m.Pin(0), freq=20000); pwm.duty_u16(52428)
#     m.ADC(m.Pin(40)).read_u16(); m.I2C(0, scl=m.Pin(33), sda=m.Pin(32))
#
# or installed as the module: sys.modules["machine"] = Machine(table).
# Pins are the profile's numbers (a signal name is accepted too).  IRQ
# handlers run synchronously at the virtual instant the level changes.  With
# lock_irq=True every handler runs under micropython.heap_lock(), so a handler
# that allocates raises MemoryError (tests of "nothing allocated in IRQs"); and
# the models behind the I2C bus and the ADC (colour sensors, current sense) run
# with the heap unlocked even when the firmware calling them holds it locked:
# they stand for silicon, and their noise draws are 32-bit values, long
# integers on a 32-bit board (the firmware's side of the call stays locked).
# Configuration that contradicts the table's wiring (an output set on an
# input, an IRQ on an output, a missing pull-up the circuit relies on...) is
# recorded in table.wiring, never silently fixed.  A signal the profile inverts
# ({"pin": n, "invert": true}) is wired the other way round on this table: its
# pin reads and drives the opposite of the line's level (table.wire_invert).
from firmware.compat import heap_lock, heap_unlock
from hw_sim.lines import IN as K_IN, OUT as K_OUT, PWM as K_PWM, ADC as K_ADC

PWRON_RESET = 1
HARD_RESET = 2
WDT_RESET = 3
DEEPSLEEP_RESET = 4
SOFT_RESET = 5

# The table's pull resistors as the controller should configure them
# (docs/ARCHITECTURE.md §4): name prefix -> expected pull.
_PULL_UP_NAMES = ("entry", "lift_top", "lift_bottom", "door_closed", "door_open", "start_button", "dice_button")
_PULL_DOWN_NAMES = ("guard_curtain", "lid")


class _PinConsts:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    ALT = 3
    PULL_UP = 1
    PULL_DOWN = 2
    PULL_HOLD = 4
    IRQ_FALLING = 4
    IRQ_RISING = 8
    IRQ_LOW_LEVEL = 1
    IRQ_HIGH_LEVEL = 2


class Pin(_PinConsts):
    def __init__(self, machine, id, mode=-1, pull=-1, value=None):
        self._m = machine
        self.id = id
        if isinstance(id, str):
            line = machine.table.lines.get(id)
        else:
            line = machine.table.line_for_pin(id)
        self._line = line  # None: a pin nothing on the table is wired to
        # 1: the wire carries the opposite of the line's level (an inverted signal)
        self._inv = machine.table.wire_invert(line.name) if line is not None else 0
        self._level = 0
        self._mode = -1
        self._pull = -1
        self._handler = None
        self._trigger = 0
        self._flags = 0
        self.edges = 0
        machine._pins.append(self)
        self.init(mode, pull, value)

    def __repr__(self):
        return "Pin(%r%s)" % (self.id, (" " + self._line.name) if self._line is not None else "")

    def name(self):
        return self._line.name if self._line is not None else None

    def init(self, mode=-1, pull=-1, value=None, **kw):
        if mode != -1:
            self._mode = mode
        if pull != -1:
            self._pull = pull
        ln = self._line
        if ln is not None and (mode != -1 or pull != -1):
            self._m._check(self, ln)
        if value is not None:
            self.value(value)

    def mode(self, m=None):
        if m is None:
            return self._mode
        self.init(m)

    def pull(self, p=None):
        if p is None:
            return self._pull
        self.init(-1, p)

    def value(self, v=None):
        ln = self._line
        if v is None:
            if ln is None:
                return self._level
            if ln.kind == K_PWM:
                return (1 if ln.level else 0) ^ self._inv
            return ln.level ^ self._inv
        v = 1 if v else 0
        if ln is None:
            self._level = v
            return None
        k = ln.kind
        v ^= self._inv
        if k == K_OUT:
            ln.drive(v)
        elif k == K_PWM:
            ln.drive(65535 if v else 0)
        else:
            self._m._wrong(self, "value(%d) written to input %s" % (v, ln.name))
        return None

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    def high(self):
        self.value(1)

    def low(self):
        self.value(0)

    def toggle(self):
        self.value(0 if self.value() else 1)

    def irq(self, handler=None, trigger=12, hard=False, priority=1, wake=None):
        ln = self._line
        self._handler = handler
        self._trigger = trigger
        if ln is not None:
            if ln.kind != K_IN:
                self._m._wrong(self, "irq on %s, which is not an input" % ln.name)
            elif handler is None:
                if ln.listener is self:
                    ln.listener = None
            else:
                ln.listener = self
        return self

    # the irq object's methods (irq() returns the pin itself)
    def flags(self):
        return self._flags

    def trigger(self, t=None):
        if t is None:
            return self._trigger
        self._trigger = t
        return None

    def sim_edge(self, level):
        """The table: this pin's level changed (now)."""
        h = self._handler
        if h is None:
            return
        if level ^ self._inv:
            if not (self._trigger & 8):
                return
            self._flags = 8
        else:
            if not (self._trigger & 4):
                return
            self._flags = 4
        self.edges += 1
        m = self._m
        if m.lock_irq:
            heap_lock()
            try:
                h(self)
            except MemoryError:
                m.irq_alloc_errors += 1
                heap_unlock()
                raise
            heap_unlock()
        else:
            h(self)


def _unlock_all():
    """Unlock the heap however deep the caller locked it; returns that depth, for
    _relock (0 on CPython and when it was not locked)."""
    heap_lock()
    n = heap_unlock()  # the depth before this function's own lock
    k = n
    while k:
        heap_unlock()
        k -= 1
    return n


def _relock(n):
    while n:
        heap_lock()
        n -= 1


class _SiliconI2C:
    """The table's bus for a Machine(lock_irq=True): each transaction runs the
    devices' models with the heap unlocked (a board's I2C is C and silicon; the
    simulated sensors draw 32-bit noise).  Everything else is the bus's."""

    def __init__(self, bus):
        self._bus = bus

    def __getattr__(self, name):
        return getattr(self._bus, name)

    def writeto(self, addr, buf, stop=True):
        n = _unlock_all()
        try:
            return self._bus.writeto(addr, buf, stop)
        finally:
            _relock(n)

    def writeto_mem(self, addr, memaddr, buf, addrsize=8):
        n = _unlock_all()
        try:
            return self._bus.writeto_mem(addr, memaddr, buf, addrsize)
        finally:
            _relock(n)

    def readfrom_mem_into(self, addr, memaddr, buf, addrsize=8):
        n = _unlock_all()
        try:
            return self._bus.readfrom_mem_into(addr, memaddr, buf, addrsize)
        finally:
            _relock(n)

    def readfrom_into(self, addr, buf, stop=True):
        n = _unlock_all()
        try:
            return self._bus.readfrom_into(addr, buf, stop)
        finally:
            _relock(n)


class _PinFactory(_PinConsts):
    """machine.Pin: callable like the class, with its constants."""

    def __init__(self, m):
        self._m = m

    def __call__(self, id, mode=-1, pull=-1, value=None, **kw):
        return Pin(self._m, id, mode, pull, value)


class PWM:
    def __init__(self, machine, dest, freq=None, duty_u16=None, duty_ns=None, invert=False):
        self._m = machine
        if not isinstance(dest, Pin):
            dest = Pin(machine, dest)
        self._pin = dest
        self._line = dest._line
        self._freq = 0
        self._duty = 0
        if self._line is not None and self._line.kind not in (K_PWM, K_OUT):
            machine._wrong(dest, "PWM on %s, which is not an output" % self._line.name)
        if freq is not None:
            self.freq(freq)
        if duty_u16 is not None:
            self.duty_u16(duty_u16)

    def init(self, freq=None, duty_u16=None, duty_ns=None):
        if freq is not None:
            self.freq(freq)
        if duty_u16 is not None:
            self.duty_u16(duty_u16)

    def freq(self, f=None):
        if f is None:
            return self._freq
        self._freq = f
        return None

    def duty_u16(self, v=None):
        if v is None:
            return self._duty
        if v < 0:
            v = 0
        elif v > 65535:
            v = 65535
        self._duty = v
        ln = self._line
        if ln is not None:
            if self._pin._inv:
                v = 65535 - v  # the wire's duty is the signal's the other way round
            if ln.kind == K_PWM:
                ln.drive(v)
            elif ln.kind == K_OUT:
                ln.drive(1 if v >= 32768 else 0)
        return None

    def duty_ns(self, ns=None):
        if ns is None:
            if not self._freq:
                return 0
            return self._duty * 1000000000 // (self._freq * 65535)
        if self._freq:
            self.duty_u16(ns * self._freq * 65535 // 1000000000)
        return None

    def deinit(self):
        self.duty_u16(0)


class ADC:
    CORE_TEMP = 4

    def __init__(self, machine, src, atten=None):
        self._m = machine
        if isinstance(src, Pin):
            ln = src._line
        elif isinstance(src, str):
            ln = machine.table.lines.get(src)
        else:
            ln = machine.table.line_for_pin(src)
        self._line = ln
        # what read_u16 reads: the lift's current sense, else nothing (0)
        self._src = machine.table.lift if ln is not None and ln.name == "lift_current" else None
        if ln is not None and ln.name.startswith("lift") and ln.name.endswith("_current") and machine.table.lifts:
            self._src = machine.table.lifts[int(ln.name[4:-8]) - 1]  # a four-port side's lift
        if ln is not None and ln.kind != K_ADC:
            machine._wrong(src, "ADC on %s, which is not an analogue input" % ln.name)

    def read_u16(self):
        src = self._src
        if src is not None:
            if self._m.lock_irq:  # the current sense's noise: see _SiliconI2C
                n = _unlock_all()
                try:
                    return src.current_u16()
                finally:
                    _relock(n)
            return src.current_u16()
        return 0


class WDT:
    """machine.WDT: cannot be stopped; the runner resets the controller when
    it is not fed within timeout (virtual time)."""

    def __init__(self, machine, id=0, timeout=5000):
        self._m = machine
        self.timeout_us = timeout * 1000
        self.last_feed_us = machine.table.clock.us
        self.feeds = 0
        machine.wdt = self

    def feed(self):
        self.last_feed_us = self._m.table.clock.us
        self.feeds += 1

    def expired(self, now_us):
        return now_us - self.last_feed_us > self.timeout_us


class Machine:
    """The module stand-in.  One per controller boot (a reset makes a new one)."""

    PWRON_RESET = PWRON_RESET
    HARD_RESET = HARD_RESET
    WDT_RESET = WDT_RESET
    DEEPSLEEP_RESET = DEEPSLEEP_RESET
    SOFT_RESET = SOFT_RESET

    def __init__(self, table, *, lock_irq=False, reset_cause=PWRON_RESET, uid=None):
        self.table = table
        self.lock_irq = lock_irq
        self.irq_alloc_errors = 0
        self._pins = []
        self._reset_cause = reset_cause
        if uid is None:
            s = table.seed & 0xFFFFFFFFFFFF
            uid = bytes([0xE6, 0x60, (s >> 40) & 0xFF, (s >> 32) & 0xFF, (s >> 24) & 0xFF,
                         (s >> 16) & 0xFF, (s >> 8) & 0xFF, s & 0xFF])
        self._uid = uid
        self.wdt = None
        self.resets_requested = 0
        self.Pin = _PinFactory(self)
        self.Signal = None

    # classes bound to this machine
    def PWM(self, dest, freq=None, duty_u16=None, duty_ns=None, invert=False):
        return PWM(self, dest, freq=freq, duty_u16=duty_u16, duty_ns=duty_ns, invert=invert)

    def ADC(self, src, atten=None):
        return ADC(self, src, atten)

    def I2C(self, id=0, *, scl=None, sda=None, freq=400000, timeout=50000):
        return _SiliconI2C(self.table.bus) if self.lock_irq else self.table.bus

    def SoftI2C(self, scl=None, sda=None, *, freq=400000, timeout=50000):
        return self.I2C()

    def WDT(self, id=0, timeout=5000):
        return WDT(self, id, timeout)

    def UART(self, id=0, baudrate=115200, **kw):
        """The table's serial line (hw_sim.wire), device end: what a board's UART
        would be wired to.  OSError if this table has no wire."""
        w = self.table.wire
        if w is None:
            raise OSError(19)
        return w.device

    # module functions
    def unique_id(self):
        return self._uid

    def reset_cause(self):
        return self._reset_cause

    def reset(self):
        self.resets_requested += 1
        self.table.request("reset")

    def soft_reset(self):
        self.reset()

    def freq(self, f=None):
        if f is None:
            return 150000000
        return None

    def idle(self):
        pass

    def disable_irq(self):
        return 0

    def enable_irq(self, state=0):
        pass

    def lightsleep(self, ms=None):
        pass

    def bootloader(self):
        self.reset()

    # wiring checks ----------------------------------------------------------
    def _wrong(self, pin, what):
        msg = "%r: %s" % (pin, what)
        if msg not in self.table.wiring:
            self.table.wiring.append(msg)

    def _check(self, pin, ln):
        mode = pin._mode
        if mode == -1:
            return
        if ln.kind == K_IN:
            if mode != _PinConsts.IN:
                self._wrong(pin, "%s is an input on the table, configured as mode %d" % (ln.name, mode))
                return
            name = ln.name
            want = self.table.wire_pull(name)
            if want is None:
                want = -1
                for p in _PULL_UP_NAMES:
                    if name.startswith(p):
                        want = _PinConsts.PULL_UP
                for p in _PULL_DOWN_NAMES:
                    if name == p:
                        want = _PinConsts.PULL_DOWN
            if want == _PinConsts.PULL_UP and pin._pull != want:
                self._wrong(pin, "%s needs PULL_UP (got %r)" % (name, pin._pull))
            elif want == _PinConsts.PULL_DOWN and pin._pull != want:
                self._wrong(pin, "%s needs PULL_DOWN (got %r)" % (name, pin._pull))
            elif want == 0 and pin._pull not in (None, 0, -1):
                self._wrong(pin, "%s has its own resistor: no pull (got %r)" % (name, pin._pull))
        elif ln.kind in (K_OUT, K_PWM):
            if mode == _PinConsts.IN:
                self._wrong(pin, "%s is an output on the table, configured as an input" % ln.name)

    def detach(self):
        """This boot's pins no longer hear the table (a reset)."""
        for p in self._pins:
            ln = p._line
            if ln is not None and ln.listener is p:
                ln.listener = None
            p._handler = None
