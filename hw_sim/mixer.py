# The mixer: a turntable with a magnetic pickup ring (docs/SIMULATOR.md "Mixer").
#
# It holds the tiles dropped into it.  When its motor starts after tiles were
# added it mixes: the order in which its tiles will leave is drawn from the
# MIX stream as one permutation.  While it turns, each track's mouth is
# offered a tile at seeded intervals (each track its own OFFER stream); the
# tile offered is always the head of the permutation: taken if the mouth is
# open, else it rides on to the next offer.  So the tiles that make up a
# build are the first N of the permutation, whatever the controller's timing.
from hw_sim import rng as _rng
from hw_sim.lines import NEVER, IN, PWM, OUT, EventSource

PWM_W = 0
DIR_W = 1

# A duty under this turns nothing (the motor does not overcome friction).
MIN_DUTY = 6554  # 10 %


class Mixer(EventSource):

    def __init__(self, table, *, seed, tracks, offer_min_us, offer_max_us, prefix="mixer"):
        # prefix: "mixer" (its pwm/dir lines here) or another family's, whose motor
        # lines drive on_output themselves (the four-port disc: hw_sim/fourport/motor.py)
        self.table = table
        self.clock = table.clock
        self.tracks = table.tracks
        self.ntracks = tracks
        self.rng = _rng.Rng(seed, _rng.MIX)
        self.offer_rng = []
        for k in range(tracks):
            self.offer_rng.append(_rng.Rng(seed, _rng.OFFER + k + 1))
        self.offer_min = offer_min_us
        self.offer_max = offer_max_us
        self.order = []  # tile ids, pickup order; order[head] is next
        self.head = 0
        self.dirty = False  # tiles added since the last mix
        self.duty = 0
        self.direction = 0
        self.running = False
        self.next_offer = [NEVER] * tracks
        self.next_us = NEVER
        self.mixes = 0
        self.offers = 0
        self.rides = 0  # offers of a tile at a mouth that did not take it
        self.starts = 0
        self.run_us = 0
        self._started_us = 0
        if prefix == "mixer":
            self.pwm = table.add_line("mixer_pwm", PWM, 0, self, PWM_W)
            self.dir_line = table.add_line("mixer_dir", OUT, 0, self, DIR_W)
        self.empty = table.add_line(prefix + "_empty", IN, 1)

    # -- contents ---------------------------------------------------------
    def count(self):
        return len(self.order) - self.head

    def contents(self):
        return self.order[self.head:]

    def add(self, tiles):
        """Tiles fall in (door, initial state, extra-tile).  Stopped: they are
        mixed at the next start.  Turning: they are shuffled among themselves
        and join the end of the order (docs/SIMULATOR.md)."""
        if not tiles:
            return
        if self.running:
            new = list(tiles)
            self.rng.shuffle(new)
            self.order.extend(new)
        else:
            self.order = self.order[self.head:]
            self.head = 0
            self.order.extend(tiles)
            self.dirty = True
        self._update_empty()

    def remove(self, tile):
        """Take one tile out of the turntable (missing-tile); False if absent."""
        for i in range(self.head, len(self.order)):
            if self.order[i] == tile:
                self.order.pop(i)
                self._update_empty()
                return True
        return False

    def take_all(self):
        out = self.order[self.head:]
        self.order = []
        self.head = 0
        self._update_empty()
        return out

    def mix(self):
        rest = self.order[self.head:]
        self.rng.shuffle(rest)
        self.order = rest
        self.head = 0
        self.dirty = False
        self.mixes += 1

    def _update_empty(self):
        self.empty.set(1 if self.head >= len(self.order) else 0)

    # -- motor ------------------------------------------------------------
    def on_output(self, what, v):
        if what == PWM_W:
            self.duty = v
        else:
            self.direction = v
        turning = self.duty >= MIN_DUTY and self.table.supply  # (no supply: it does not turn)
        if turning and not self.running:
            self._start()
        elif self.running and not turning:
            self._stop()

    def _interval(self, k):
        return self.offer_rng[k].between(self.offer_min, self.offer_max)

    def _start(self):
        now = self.clock.us
        self.starts += 1
        self._started_us = now
        # a new build may open here (faults may add or take tiles first)
        self.table.on_mixer_start(now)
        if self.dirty:
            self.mix()
            self.table.on_mixed(now)
        self.running = True
        for k in range(self.ntracks):
            self.next_offer[k] = now + self._interval(k)
        self._next()

    def _stop(self):
        now = self.clock.us
        self.running = False
        self.run_us += now - self._started_us
        for k in range(self.ntracks):
            self.next_offer[k] = NEVER
        self.next_us = NEVER
        self._times[self._slot] = self.next_us
        self._mark.dirty = True

    def _next(self):
        n = NEVER
        for t in self.next_offer:
            if t < n:
                n = t
        self.next_us = n
        self._times[self._slot] = self.next_us
        self._mark.dirty = True

    def fire(self, now):
        no = self.next_offer
        for k in range(self.ntracks):
            if no[k] <= now:
                no[k] = now + self._interval(k)
                self._offer(k, now)
        self._next()

    def _offer(self, k, now):
        if self.head >= len(self.order):
            return
        self.offers += 1
        tile = self.order[self.head]
        tr = self.tracks[k]
        status = tr.offer_status()
        self.table.log_offer(now, k, status)
        if status:
            self.rides += 1
            return
        self.head += 1
        tr.enter(tile, now)
        if self.head >= len(self.order):
            self.empty.set(1)

    def deliver(self, k, now):
        """The tile at track k's mouth drops in whatever the offer schedule
        (gate-slow: the mouth was still open when the gate should have shut).
        False if the turntable is empty."""
        if self.head >= len(self.order):
            return False
        self.offers += 1
        tile = self.order[self.head]
        self.table.log_offer(now, k, 0)
        self.head += 1
        self.tracks[k].enter(tile, now)
        if self.head >= len(self.order):
            self.empty.set(1)
        return True

    def get_status(self):
        return {
            "tiles": self.count(),
            "running": self.running,
            "mixes": self.mixes,
            "offers": self.offers,
            "rides": self.rides,
        }
