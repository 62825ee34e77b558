# Timer scheduler over an injected clock (docs/ARCHITECTURE.md §3).
#
# Every Timer is created once, at construction of the mechanism that owns it;
# starting, cancelling and firing a timer allocates nothing.  Callbacks take no
# argument and run in task context (from Scheduler.run), never inside an IRQ.
#
# The active timers form a list linked through the timers themselves, sorted by
# deadline (equal deadlines in creation order).  start() links a timer in at its
# place (a walk over the active timers due before it: a handful), cancel() and
# firing unlink it in O(1), and the earliest deadline is the head.  So run()
# with nothing due and next_due_us() cost one comparison, and firing a timer
# never rescans the others.  Deadlines are wrapping ticks: the order holds while
# every active deadline is within half a ticks period of the others (the longest
# timer, the build timeout, is capped below that: firmware/profile_check.py).
from firmware.compat import TICKS_PERIOD, ticks_add, ticks_diff

# Half the ticks period (2**29 on boards, 2**61 on the 64-bit unix port): two
# deadlines whose plain difference lies within +-_HALF are ordered by it;
# ticks_diff() is called only across the wrap.  (The difference of two ticks is
# a small int on every port: nothing allocates.  This spares the scheduler's
# hottest comparisons a call on CPython, where ticks_diff is Python.)
_HALF = TICKS_PERIOD >> 1
_NHALF = -_HALF

# Most timers fired by one run() call: a callback that restarts itself with a
# zero delay cannot spin the loop forever.
MAX_FIRES = 64


class Wake:
    """"The task loop has work": raised by IRQ handlers (and by task-context code
    that leaves follow-up work, e.g. a command), lowered by the task loop before
    it looks (firmware.controller.Controller.service).  Raising it is one
    attribute store: allocation-free and IRQ-safe."""

    def __init__(self):
        self.up = True


class Timer:
    """One preallocated timer: start(delay_ms) / start_us / start_at_us / cancel."""

    def __init__(self, sched, callback, index):
        self._sched = sched
        self.callback = callback
        self.active = False
        self.due = 0  # ticks_us of the deadline (valid while active)
        self._index = index  # creation order: breaks ties between equal deadlines
        self._prev = None  # neighbours in the scheduler's sorted list (while active)
        self._next = None

    def start(self, delay_ms):
        s = self._sched
        s._link(self, ticks_add(s.clock.ticks_us(), delay_ms * 1000))

    def start_us(self, delay_us):
        s = self._sched
        s._link(self, ticks_add(s.clock.ticks_us(), delay_us))

    def start_at_us(self, t_us, delay_us):
        """Fire delay_us after the instant t_us (a ticks_us value), e.g. an edge time."""
        self._sched._link(self, ticks_add(t_us, delay_us))

    def cancel(self):
        if self.active:
            self._sched._unlink(self)

    def remaining_us(self):
        """Microseconds until the deadline (<= 0 when due); 0 when not active."""
        if not self.active:
            return 0
        return ticks_diff(self.due, self._sched.clock.ticks_us())


class Scheduler:
    def __init__(self, clock):
        self.clock = clock
        self._timers = []
        self._head = None  # the earliest active timer (None: no timer active)
        self.wake = Wake()  # the task loop's wake flag, shared by everything built on this

    def timer(self, callback):
        """A new Timer (call at construction time only: this allocates)."""
        t = Timer(self, callback, len(self._timers))
        self._timers.append(t)
        return t

    def _unlink(self, t):
        p = t._prev
        n = t._next
        if p is None:
            self._head = n
        else:
            p._next = n
        if n is not None:
            n._prev = p
        t._prev = None
        t._next = None
        t.active = False

    def _link(self, t, due):
        # (re)start t at due: out of the list if it was in, then in after every
        # timer due before it (or at the same instant and created before it)
        if t.active:
            self._unlink(t)
        t.due = due
        t.active = True
        x = self._head
        if x is None:  # the only active timer (often: a motion's poll)
            self._head = t
            return
        idx = t._index
        p = None
        while x is not None:
            d = due - x.due
            if d >= _HALF or d < _NHALF:
                d = ticks_diff(due, x.due)
            if d < 0 or (d == 0 and idx < x._index):
                break
            p = x
            x = x._next
        t._prev = p
        t._next = x
        if p is None:
            self._head = t
        else:
            p._next = t
        if x is not None:
            x._prev = t

    def run(self):
        """Fire every due timer, earliest deadline first (equal deadlines in
        creation order); returns how many fired.

        The time is read once: a timer started by a callback with a zero delay
        fires in this same call, one with a positive delay in a later one."""
        t = self._head
        if t is None:
            return 0
        now = self.clock.ticks_us()
        fired = 0
        while fired < MAX_FIRES:
            if t is None:
                break
            d = t.due - now
            if d >= _HALF or d < _NHALF:
                d = ticks_diff(t.due, now)
            if d > 0:
                break
            self._unlink(t)
            t.callback()
            fired += 1
            t = self._head
        return fired

    def next_due_us(self):
        """ticks_us of the earliest active deadline (wrapping, compare with
        compat.ticks_diff), or None when no timer is active."""
        t = self._head
        if t is None:
            return None
        return t.due

    def active_count(self):
        n = 0
        t = self._head
        while t is not None:
            n += 1
            t = t._next
        return n
