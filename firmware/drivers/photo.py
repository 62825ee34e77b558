# Photo-interrupter on a pulled-up input: 0 while something is in the beam
# (docs/ARCHITECTURE.md §4: one falling edge per tile, about 30 ms low).
#
# The IRQ handler (both edges) records ticks and counts and allocates nothing:
# it reads the level, compares wrapping ticks (small ints) and updates ints.
# Debounce: a falling edge counts only if the line has been high for at least
# `debounce_ms` (so bounces on either edge of a tile never count twice) and the
# previous counted edge is at least `debounce_ms` old.  on_edge() (stored once
# by the owner) is called inside the IRQ right after a counted edge.  `wake`
# (optional, a sched.Wake) is raised at the end of every edge: the task loop
# then has something to look at (a count, or a beam that cleared); `changed`
# says which sensor it was (the owner lowers it before it looks).
from firmware.compat import ticks_add, ticks_diff


class PhotoInterrupter:
    def __init__(self, pin, clock, *, debounce_ms, on_edge=None, wake=None):
        self._pin = pin
        self._wake = wake
        self._clock = clock
        self._deb = debounce_ms * 1000
        self._on_edge = on_edge
        # as if the line had been high and idle for longer than the debounce
        past = ticks_add(clock.ticks_us(), -(self._deb + 1))
        self.count = 0            # counted (debounced) falling edges
        self.rejected = 0         # edges ignored as bounces
        self.last_edge_us = past  # ticks_us of the last counted falling edge
        self.last_rise_us = past  # ticks_us of the last rising edge
        self.changed = False      # an edge since the owner last looked (set by the IRQ)
        self._handler = self._irq  # bound once: passing it allocates nothing
        pin.irq(self._handler, pin.IRQ_FALLING | pin.IRQ_RISING)

    def blocked(self):
        """True while the beam is interrupted."""
        return self._pin.value() == 0

    def _irq(self, pin):
        t = self._clock.ticks_us()
        if self._pin.value():
            self.last_rise_us = t
        else:
            self._fall(t)
        self.changed = True
        # raised last (after every change above): a task loop that lowered it
        # before looking either sees this edge's changes or is woken again
        w = self._wake
        if w is not None:
            w.up = True

    def _fall(self, t):
        deb = self._deb
        # (a negative difference means the stored time is older than half the
        # ticks period: long enough ago)
        d = ticks_diff(t, self.last_rise_us)
        if 0 <= d < deb:
            self.rejected += 1
            return
        d = ticks_diff(t, self.last_edge_us)
        if 0 <= d < deb:
            self.rejected += 1
            return
        self.count += 1
        self.last_edge_us = t
        if self._on_edge is not None:
            self._on_edge()

    def reset(self, count=0):
        """Set the count (task context, with the beam idle)."""
        self.count = count
