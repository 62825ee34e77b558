# Runtime shims so the same firmware, protocol core and simulator run on
# MicroPython boards, the MicroPython unix port and CPython.
#
# Only this module knows which runtime it is on.  Everything else imports
# ticks_ms/ticks_us/ticks_diff/ticks_add/const/heap_lock from here.
import sys

MICROPYTHON = sys.implementation.name == "micropython"

try:
    from micropython import const  # noqa: F401  (bare name, so mpy-cross folds it)
except ImportError:  # CPython

    def const(x):
        return x


try:
    import micropython as _mp

    heap_lock = _mp.heap_lock
    heap_unlock = _mp.heap_unlock
except (ImportError, AttributeError):  # CPython: nothing to lock

    def heap_lock():
        return None

    def heap_unlock():
        return 0


try:
    from time import ticks_add, ticks_diff, ticks_ms, ticks_us  # noqa: F401
except ImportError:  # CPython: same wrapping arithmetic as MicroPython
    import time as _time

    # MicroPython's ticks wrap at a power of two; 2**30 is the common period.
    TICKS_PERIOD = 1 << 30
    _HALF = TICKS_PERIOD >> 1
    _MASK = TICKS_PERIOD - 1

    def ticks_ms():
        return int(_time.monotonic_ns() // 1000000) & _MASK

    def ticks_us():
        return int(_time.monotonic_ns() // 1000) & _MASK

    def ticks_add(t, delta):
        return (t + delta) & _MASK

    def ticks_diff(a, b):
        # ((a - b + _HALF) & _MASK) - _HALF for ticks a, b in 0.._MASK, in one
        # subtraction where no wrap is involved (the scheduler's hottest call)
        d = a - b
        if d >= _HALF:
            return d - TICKS_PERIOD
        if d < -_HALF:
            return d + TICKS_PERIOD
        return d

else:
    # the port's own period: 2**30 on boards, 2**62 on the 64-bit unix port
    TICKS_PERIOD = ticks_add(0, -1) + 1

TICKS_MASK = TICKS_PERIOD - 1


def implementation():
    """(name, 'x.y.z') of the running interpreter, for the handshake."""
    v = sys.implementation.version
    return sys.implementation.name, "%d.%d.%d" % (v[0], v[1], v[2])


def sleep_ms(ms):
    try:
        from time import sleep_ms as _s
    except ImportError:
        import time

        time.sleep(ms / 1000)
        return
    _s(ms)


class RealClock:
    """The board's (or the host's) own monotonic clock, in wrapping ticks."""

    def ticks_ms(self):
        return ticks_ms()

    def ticks_us(self):
        return ticks_us()
