# Timer scheduler over an injected clock (docs/ARCHITECTURE.md §3).
#
# Every Timer is created once, at construction of the mechanism that owns it;
# starting, cancelling and firing a timer allocates nothing.  Callbacks take no
# argument and run in task context (from Scheduler.run), never inside an IRQ.
from firmware.compat import ticks_add, ticks_diff

# Most timers fired by one run() call: a callback that restarts itself with a
# zero delay cannot spin the loop forever.
MAX_FIRES = 64


class Timer:
    """One preallocated timer: start(delay_ms) / start_us / start_at_us / cancel."""

    def __init__(self, sched, callback):
        self._sched = sched
        self.callback = callback
        self.active = False
        self.due = 0  # ticks_us of the deadline (valid while active)

    def start(self, delay_ms):
        self.due = ticks_add(self._sched.clock.ticks_us(), delay_ms * 1000)
        self.active = True

    def start_us(self, delay_us):
        self.due = ticks_add(self._sched.clock.ticks_us(), delay_us)
        self.active = True

    def start_at_us(self, t_us, delay_us):
        """Fire delay_us after the instant t_us (a ticks_us value), e.g. an edge time."""
        self.due = ticks_add(t_us, delay_us)
        self.active = True

    def cancel(self):
        self.active = False

    def remaining_us(self):
        """Microseconds until the deadline (<= 0 when due); 0 when not active."""
        if not self.active:
            return 0
        return ticks_diff(self.due, self._sched.clock.ticks_us())


class Scheduler:
    def __init__(self, clock):
        self.clock = clock
        self._timers = []

    def timer(self, callback):
        """A new Timer (call at construction time only: this allocates)."""
        t = Timer(self, callback)
        self._timers.append(t)
        return t

    def run(self):
        """Fire every due timer, earliest deadline first; returns how many fired.

        The time is read once: a timer started by a callback with a zero delay
        fires in this same call, one with a positive delay in a later one."""
        now = self.clock.ticks_us()
        fired = 0
        while fired < MAX_FIRES:
            best = None
            bd = 1
            for t in self._timers:
                if t.active:
                    d = ticks_diff(t.due, now)
                    if d <= 0 and d < bd:
                        best = t
                        bd = d
            if best is None:
                break
            best.active = False
            best.callback()
            fired += 1
        return fired

    def next_due_us(self):
        """ticks_us of the earliest active deadline (wrapping, compare with
        compat.ticks_diff), or None when no timer is active."""
        now = self.clock.ticks_us()
        best = None
        bd = 0
        for t in self._timers:
            if t.active:
                d = ticks_diff(t.due, now)
                if best is None or d < bd:
                    best = t
                    bd = d
        if best is None:
            return None
        return best.due

    def active_count(self):
        n = 0
        for t in self._timers:
            if t.active:
                n += 1
        return n
