# Virtual time for the simulator (docs/ARCHITECTURE.md §3).
#
# A clock is an object with ticks_ms() and ticks_us() returning wrapping ticks
# exactly like MicroPython's (compare only with firmware.compat.ticks_diff).
# VirtualClock keeps an unwrapped microsecond count, `us`, that only advance_to()/
# advance()/catch_up() move: the simulator's mechanisms read the attribute in their
# hot paths (never set it); now_us() gives it too, for reports.
#
# The wrap period is the running runtime's, taken from ticks_add itself: 2**30
# on CPython (firmware.compat) and on 32-bit boards, but 2**62 on the 64-bit
# MicroPython unix port, whose native ticks_diff would misread a 2**30 wrap.
from firmware.compat import ticks_add

PERIOD = ticks_add(0, -1) + 1
TICKS_MASK = PERIOD - 1
_HALF = PERIOD >> 1


class VirtualClock:
    PERIOD = PERIOD
    MASK = TICKS_MASK

    def __init__(self, start_us=0):
        if start_us < 0:
            raise ValueError("start_us must be >= 0")
        self.us = start_us
        self.origin_us = start_us

    def ticks_us(self):
        return self.us & TICKS_MASK

    def ticks_ms(self):
        return (self.us // 1000) & TICKS_MASK

    def now_us(self):
        """Unwrapped virtual microseconds (never wraps)."""
        return self.us

    def now_ms(self):
        return self.us / 1000

    def elapsed_us(self):
        """Microseconds since the clock was created."""
        return self.us - self.origin_us

    def advance_to(self, us):
        if us < self.us:
            raise ValueError("virtual time cannot go back (%d < %d)" % (us, self.us))
        self.us = us

    def catch_up(self, us):
        """Move to us if it is later (an event due at or before now leaves the clock)."""
        if us > self.us:
            self.us = us

    def advance(self, dus):
        if dus < 0:
            raise ValueError("virtual time cannot go back")
        self.us += dus

    def abs_us(self, ticks):
        """The unwrapped time of a ticks_us value near now (within half a period)."""
        d = ((ticks - (self.us & TICKS_MASK) + _HALF) & TICKS_MASK) - _HALF
        return self.us + d

    def ticks_of(self, us):
        """The ticks_us value of the unwrapped virtual time us."""
        return us & TICKS_MASK
