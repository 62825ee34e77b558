# Timer scheduler over an injected clock (docs/ARCHITECTURE.md §3).
#
# Every Timer is created once, at construction of the mechanism that owns it;
# starting, cancelling and firing a timer allocates nothing.  Callbacks take no
# argument and run in task context (from Scheduler.run), never inside an IRQ.
#
# The scheduler keeps its earliest active timer (`_first`, valid while `_known`):
# start() updates it in O(1), cancelling or firing it marks it unknown, and the
# list is scanned again only then.  So run() with nothing due and next_due_us()
# cost one comparison, not a walk over every timer.
from firmware.compat import TICKS_PERIOD, ticks_add, ticks_diff

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

    def start(self, delay_ms):
        s = self._sched
        now = s.clock.ticks_us()
        self.due = ticks_add(now, delay_ms * 1000)
        self.active = True
        s._started(self, now)

    def start_us(self, delay_us):
        s = self._sched
        now = s.clock.ticks_us()
        self.due = ticks_add(now, delay_us)
        self.active = True
        s._started(self, now)

    def start_at_us(self, t_us, delay_us):
        """Fire delay_us after the instant t_us (a ticks_us value), e.g. an edge time."""
        s = self._sched
        self.due = ticks_add(t_us, delay_us)
        self.active = True
        s._started(self, s.clock.ticks_us())

    def cancel(self):
        if self.active:
            self.active = False
            s = self._sched
            if s._first is self:
                s._known = False

    def remaining_us(self):
        """Microseconds until the deadline (<= 0 when due); 0 when not active."""
        if not self.active:
            return 0
        return ticks_diff(self.due, self._sched.clock.ticks_us())


class Scheduler:
    def __init__(self, clock):
        self.clock = clock
        self._timers = []
        self._first = None   # the earliest active timer (None: no timer active) ...
        self._known = True   # ... when this is True; else the list must be scanned
        self.wake = Wake()   # the task loop's wake flag, shared by everything built on this

    def timer(self, callback):
        """A new Timer (call at construction time only: this allocates)."""
        t = Timer(self, callback, len(self._timers))
        self._timers.append(t)
        return t

    def _started(self, t, now):
        # t was (re)started: keep _first the earliest, ties to the first created
        if not self._known:
            return
        f = self._first
        if f is None:
            self._first = t
        elif f is t:
            self._known = False  # the earliest moved (perhaps later): scan again
        else:
            d = ticks_diff(t.due, now) - ticks_diff(f.due, now)
            if d < 0 or (d == 0 and t._index < f._index):
                self._first = t

    def _scan(self):
        now = self.clock.ticks_us()
        best = None
        bd = TICKS_PERIOD  # beyond any ticks_diff
        for t in self._timers:
            if t.active:
                d = ticks_diff(t.due, now)
                if d < bd:
                    best = t
                    bd = d
        self._first = best
        self._known = True
        return best

    def run(self):
        """Fire every due timer, earliest deadline first (equal deadlines in
        creation order); returns how many fired.

        The time is read once: a timer started by a callback with a zero delay
        fires in this same call, one with a positive delay in a later one."""
        now = self.clock.ticks_us()
        fired = 0
        while fired < MAX_FIRES:
            t = self._first if self._known else self._scan()
            if t is None or ticks_diff(t.due, now) > 0:
                break
            t.active = False
            self._known = False
            t.callback()
            fired += 1
        return fired

    def next_due_us(self):
        """ticks_us of the earliest active deadline (wrapping, compare with
        compat.ticks_diff), or None when no timer is active."""
        t = self._first if self._known else self._scan()
        if t is None:
            return None
        return t.due

    def active_count(self):
        n = 0
        for t in self._timers:
            if t.active:
                n += 1
        return n
