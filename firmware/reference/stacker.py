# A track's stacker and pusher, sequenced (docs/ARCHITECTURE.md §4):
# one stacker pulse (`stacker` ms) per tile, one pusher pulse (`pusher` ms) per
# two-high stack, never two pulses at once on one track.  A jam back-off is a
# pusher pulse of `jam_backoff` ms that goes before any queued work.
#
# Each pulse is held PULSE_MARGIN_MS longer than the nominal stroke, so a
# stroke that completes exactly at its nominal time is never cut short.
#
# Work is counted in ints (tiles waiting, pushes waiting, back-offs waiting):
# queueing and running it allocates nothing.
from firmware.compat import const
from firmware.drivers.solenoid import Solenoid

IDLE = const(0)
STACK = const(1)
PUSH = const(2)
BACKOFF = const(3)
PULSE_MARGIN_MS = const(1)


class Stacker:
    def __init__(self, stacker_pin, pusher_pin, sched, *, stacker_ms, pusher_ms, backoff_ms, on_step=None):
        self._done_cb = self._done  # bound once
        self._stacker = Solenoid(stacker_pin, sched, self._done_cb)
        self._pusher = Solenoid(pusher_pin, sched, self._done_cb)
        self._stacker_ms = stacker_ms + PULSE_MARGIN_MS
        self._pusher_ms = pusher_ms + PULSE_MARGIN_MS
        self._backoff_ms = backoff_ms + PULSE_MARGIN_MS
        self._on_step = on_step
        self.job = IDLE
        self.tiles_waiting = 0
        self.pushes_waiting = 0
        self.backoffs_waiting = 0
        self.stacked = 0   # stacker pulses completed (tiles stacked)
        self.pushed = 0    # pusher pulses completed for stacks
        self.backoffs = 0  # back-off pulses completed
        self._odd_push = False
        self.last_done = IDLE  # the job that ended last (read by on_step)

    def add_tile(self):
        self.tiles_waiting += 1
        self._next()

    def finish(self):
        """The wall is complete: push a last single tile (odd count) too."""
        total = self.stacked + self.tiles_waiting + (1 if self.job == STACK else 0)
        if total % 2 == 1 and not self._odd_push:
            self._odd_push = True
            if self.tiles_waiting == 0 and self.job != STACK:
                self.pushes_waiting += 1
            self._next()

    def backoff(self):
        self.backoffs_waiting += 1
        self._next()

    def idle(self):
        return (self.job == IDLE and self.tiles_waiting == 0 and self.pushes_waiting == 0
                and self.backoffs_waiting == 0)

    def stop(self):
        """Release both solenoids and forget queued work (faults, shutdown)."""
        self._stacker.cancel()
        self._pusher.cancel()
        self.job = IDLE
        self.tiles_waiting = 0
        self.pushes_waiting = 0
        self.backoffs_waiting = 0

    def reset(self):
        self.stop()
        self.stacked = 0
        self.pushed = 0
        self.backoffs = 0
        self._odd_push = False

    def _next(self):
        if self.job != IDLE:
            return
        if self.backoffs_waiting:
            self.backoffs_waiting -= 1
            self.job = BACKOFF
            self._pusher.pulse(self._backoff_ms)
        elif self.pushes_waiting:
            self.pushes_waiting -= 1
            self.job = PUSH
            self._pusher.pulse(self._pusher_ms)
        elif self.tiles_waiting:
            self.tiles_waiting -= 1
            self.job = STACK
            self._stacker.pulse(self._stacker_ms)

    def _done(self):
        job = self.job
        self.job = IDLE
        self.last_done = job
        if job == STACK:
            self.stacked += 1
            if self.stacked % 2 == 0 or (self._odd_push and self.tiles_waiting == 0):
                self.pushes_waiting += 1
        elif job == PUSH:
            self.pushed += 1
        elif job == BACKOFF:
            self.backoffs += 1
        self._next()
        if self._on_step is not None:
            self._on_step()

    # SELF_TEST (firmware/selftest.py): one solenoid held on outside the queued work;
    # `job` is STACK (the stacker) or PUSH (the pusher)
    def stroke_ms(self, job):
        """A whole stroke's pulse, in ms (the margin included)."""
        return self._pusher_ms if job == PUSH else self._stacker_ms

    def energise_for_test(self, job):
        (self._pusher if job == PUSH else self._stacker).energise()

    def release_test(self, job):
        (self._pusher if job == PUSH else self._stacker).release()

    def get_status(self):
        return {"stacked": self.stacked, "pushed": self.pushed, "backoffs": self.backoffs,
                "busy": not self.idle()}
