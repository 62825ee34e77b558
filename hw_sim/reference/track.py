# One feed track: gate, entry photo-interrupter, back-colour sensor, a short
# ramp, stacker and pusher (docs/SIMULATOR.md "Tracks").
#
# Pins (docs/ARCHITECTURE.md §4): gateN out (1 = open; de-energised it closes
# in gate_close ms), entryN in (0 while a tile is in the beam, ~30 ms, one
# falling edge per tile), stackerN / pusherN out (a stroke completes `stacker`
# / `pusher` ms after the rising edge if the output is still high; released
# early, the stroke is aborted).  The colour sensor is a TCS34725 register
# model behind the bus mux (hw_sim/i2c.py).
#
# Everything a controller can reach from its per-tile path (on_output, the
# sensor's I2C reads, the entry line's level) allocates nothing.
from hw_sim import rng as _rng
from hw_sim.colour import ColourSensor
from hw_sim.lines import NEVER, IN, OUT, EventSource

GATE_W = 0
STACKER_W = 1
PUSHER_W = 2

_BQ = 8  # beam edge queue size (a tile makes at most 6 edges)


class Track(EventSource):

    def __init__(self, table, n, *, seed, timings, sim, colours):
        self.table = table
        self.clock = table.clock
        self.tiles = table.tiles
        self.n = n  # 1-based, as people read it
        self.k = n - 1
        self.gate_close_us = timings["gate_close"] * 1000
        self.stacker_us = timings["stacker"] * 1000
        self.pusher_us = timings["pusher"] * 1000
        self.beam_us = sim["beam_ms"] * 1000
        self.pitch_us = sim["offer_min_ms"] * 1000
        self.beam_jitter = sim["beam_jitter_ms"] * 1000
        self.sensor_lag = sim["sensor_lag_ms"] * 1000
        self.ramp_cap = sim["ramp_tiles"]
        self.bounce_1024 = int(sim["bounce"] * 1024 + 0.5)  # per beam edge, in 1/1024
        self.bounce_us = sim["bounce_us"]
        self.max_stacks = table.max_stacks
        self.beam_rng = _rng.Rng(seed, _rng.BEAM + n)
        self._lines(str(n))
        self.sensor = ColourSensor(self, seed, n, colours,
                                   tile_per_cycle=sim["sensor_tile_per_cycle"],
                                   ambient_per_cycle=sim["sensor_ambient_per_cycle"],
                                   bias_pm=sim["sensor_bias_pm"], drift_pm=sim["sensor_drift_pm"])
        # gate
        self.gate_open = False
        self.close_at = NEVER
        self.slow_hold = False  # gate-slow: stays open until one more tile entered
        self.extra_at = NEVER  # gate-slow: when the tile at the mouth drops in
        # beam edges still to happen: (time, level) ring
        self.bq_t = [NEVER] * _BQ
        self.bq_v = [0] * _BQ
        self.bq_r = 0
        self.bq_n = 0
        # jam
        self.jammed = False
        self.jam_tile = -1
        self.jam_need = 0  # back-offs that clear it (0 = never)
        self.jam_backoffs = 0
        # ramp: entered, not yet stacked (FIFO ring)
        cap = self.ramp_cap + 1
        self.ramp = [-1] * cap
        self.ramp_r = 0
        self.ramp_n = 0
        # stacking
        self.stack = []
        self.wall = []
        self.stacker_done = NEVER
        self.pusher_done = NEVER
        # what the colour sensor sees
        self.sensor_tile = -1
        self.sensor_from = 0
        self.sensor_misread = False
        self.next_us = NEVER
        # counters
        self.entered = 0
        self.stacked = 0
        self.pushes = 0
        self.aborted = 0
        self.empty_strokes = 0
        self.anomalies = []

    def _lines(self, s):
        """The track's pins (another family's side makes its own)."""
        self.gate = self.table.add_line("gate" + s, OUT, 0, self, GATE_W)
        self.entry = self.table.add_line("entry" + s, IN, 1)
        self.stacker = self.table.add_line("stacker" + s, OUT, 0, self, STACKER_W)
        self.pusher = self.table.add_line("pusher" + s, OUT, 0, self, PUSHER_W)

    # -- what the mixer asks -----------------------------------------------
    def offer_status(self):
        """0 = the mouth takes a tile now, 1 = gate closed, 2 = blocked (a tile
        stuck in the beam, or the ramp full)."""
        if not self.gate_open:
            return 1
        if self.jammed or self.entry.level == 0 or self.ramp_n >= self.ramp_cap:
            return 2
        return 0

    def taken(self, tile, now):
        """A tile through the mouth: counted by the table, the gate-slow's one more, the
        colour sensor's read to come; (jam, need) as the table decided."""
        jam, misread, need = self.table.on_entry(self.k, tile, now)
        self.entered += 1
        if self.slow_hold:
            # gate-slow: this was the one more tile; now the spring closes it
            self.slow_hold = False
            self.close_at = now + self.gate_close_us
        self.sensor_tile = tile
        self.sensor_from = now + self.sensor_lag
        self.sensor_misread = misread
        return jam, need

    def enter(self, tile, now):
        jam, need = self.taken(tile, now)
        # one BEAM draw per tile: bits 0..9 decide a bounce on the falling edge,
        # 10..19 one on the rising edge, 20..31 the pulse width's jitter (by
        # multiply-shift: three draws per tile bought nothing a noise needs)
        v = self.beam_rng.next_u32()
        bp = self.bounce_1024
        bu = self.bounce_us
        self._q(now, 0)
        if (v & 0x3FF) < bp:
            self._q(now + bu, 1)
            self._q(now + 2 * bu, 0)
        if jam:
            self.jammed = True
            self.jam_tile = tile
            self.jam_need = need
            self.jam_backoffs = 0
        else:
            self._ramp_push(tile)
            j = self.beam_jitter
            t = now + self.beam_us - j + (((v >> 20) * (2 * j + 1)) >> 12)
            self._q(t, 1)
            if ((v >> 10) & 0x3FF) < bp:
                self._q(t + bu, 0)
                self._q(t + 2 * bu, 1)
        self._beam(now)
        self._next()

    def _q_rise(self, t):
        # (a jam cleared, a track cleared by hand: a tile leaves the beam)
        self._q(t, 1)
        if (self.beam_rng.next_u32() & 0x3FF) < self.bounce_1024:
            self._q(t + self.bounce_us, 0)
            self._q(t + 2 * self.bounce_us, 1)

    def _q(self, t, v):
        if self.bq_n >= _BQ:
            return
        i = (self.bq_r + self.bq_n) % _BQ
        self.bq_t[i] = t
        self.bq_v[i] = v
        self.bq_n += 1

    def _beam(self, now):
        while self.bq_n and self.bq_t[self.bq_r] <= now:
            v = self.bq_v[self.bq_r]
            self.bq_r = (self.bq_r + 1) % _BQ
            self.bq_n -= 1
            self.entry.set(v)

    def _ramp_push(self, tile):
        i = (self.ramp_r + self.ramp_n) % len(self.ramp)
        self.ramp[i] = tile
        self.ramp_n += 1

    def _ramp_pop(self):
        t = self.ramp[self.ramp_r]
        self.ramp[self.ramp_r] = -1
        self.ramp_r = (self.ramp_r + 1) % len(self.ramp)
        self.ramp_n -= 1
        return t

    # -- the controller's outputs ----------------------------------------------
    def on_output(self, what, v):
        now = self.clock.us
        if what == GATE_W:
            if v and (self.table.faults.dead[self.n] or not self.table.supply):
                pass  # dead-gate, or no supply: the coil never pulls the gate open
            elif v:
                self.gate_open = True
                self.close_at = NEVER
                self.slow_hold = False
                self.extra_at = NEVER
            elif self.gate_open:
                if self.table.faults.slow_close(self.k):
                    # gate-slow: the gate stays open for one more ring pitch;
                    # the next tile on the (coasting) ring drops in, then it
                    # closes behind that tile
                    self.slow_hold = True
                    if self.table.mixer.running:
                        self.extra_at = now + self.pitch_us
                else:
                    self.close_at = now + self.gate_close_us
        elif what == STACKER_W:
            if v and self.table.supply:
                self.stacker_done = now + self.stacker_us
            elif self.stacker_done != NEVER:
                self.stacker_done = NEVER
                self.aborted += 1
        else:
            if v and self.table.supply:
                self.pusher_done = now + self.pusher_us
            elif self.pusher_done != NEVER:
                self.pusher_done = NEVER
                self.aborted += 1
        self._next()

    def supply_changed(self):
        """The solenoids' supply went off (a pulled-in coil lets go: the gate closes, a
        stroke stops) or came back (what the controller drives pulls in again)."""
        on = self.table.supply
        for what, line in ((GATE_W, self.gate), (STACKER_W, self.stacker),
                           (PUSHER_W, self.pusher)):
            self.on_output(what, line.level if on else 0)

    # -- events ---------------------------------------------------------------
    def _next(self):
        n = self.close_at
        if self.extra_at < n:
            n = self.extra_at
        if self.stacker_done < n:
            n = self.stacker_done
        if self.pusher_done < n:
            n = self.pusher_done
        if self.bq_n and self.bq_t[self.bq_r] < n:
            n = self.bq_t[self.bq_r]
        self.next_us = n
        self._times[self._slot] = self.next_us
        self._mark.dirty = True

    def fire(self, now):
        if self.close_at <= now:
            self.close_at = NEVER
            self.gate_open = False
        if self.extra_at <= now:
            self.extra_at = NEVER
            if not self.table.mixer.deliver(self.k, now):
                self.slow_hold = False
                self.close_at = now
        if self.stacker_done <= now:
            self.stacker_done = NEVER
            self._stack(now)
        if self.pusher_done <= now:
            self.pusher_done = NEVER
            self._push(now)
        self._beam(now)
        self._next()

    def _stack(self, now):
        if self.ramp_n == 0:
            self.empty_strokes += 1
            return
        tile = self._ramp_pop()
        if len(self.stack) >= 2:
            self.anomalies.append("stack of three at %d ms" % (now // 1000))
        self.stack.append(tile)
        self.stacked += 1
        if tile == self.sensor_tile:
            self.sensor_tile = -1
        self.table.on_mech(now)

    def free_jam(self, now=None):
        """A person frees the stuck tile by hand: it drops onto the ramp (as a back-off
        that clears the jam would have it) and the beam is clear again.  False if the
        track is not jammed."""
        if not self.jammed:
            return False
        if now is None:
            now = self.clock.us
        self._clear_jam(now)
        self._next()  # the beam's rise is the track's next event
        return True

    def _clear_jam(self, now):
        """The stuck tile drops onto the ramp and the beam rises (a back-off or a hand)."""
        self.jammed = False
        self._ramp_push(self.jam_tile)
        self.jam_tile = -1
        self._q_rise(now)
        self.table.on_jam_cleared(self.k, now)

    def _push(self, now):
        if self.jammed:
            # a pusher stroke against a jam shakes it: the back-off
            self.jam_backoffs += 1
            if self.jam_need and self.jam_backoffs >= self.jam_need:
                self._clear_jam(now)
            return
        if not self.stack:
            self.empty_strokes += 1
            return
        self.wall.append(self.stack)
        self.stack = []
        self.pushes += 1
        if len(self.wall) > self.max_stacks:
            self.anomalies.append("wall of %d stacks (table holds %d) at %d ms" % (len(self.wall), self.max_stacks, now // 1000))
        self.table.on_mech(now)

    # -- walls leave / return ----------------------------------------------
    def has_tiles(self):
        return bool(self.wall) or bool(self.stack)

    def take_wall(self):
        """The lift takes the wall (and a stack still at the stacker)."""
        w = self.wall
        if self.stack:
            w.append(self.stack)
        self.wall = []
        self.stack = []
        return w

    def put_wall(self, w):
        self.wall = w

    def clear(self):
        """Everything on the track, by hand (tests; a person clearing a jam)."""
        out = []
        for s in self.wall:
            out.extend(s)
        out.extend(self.stack)
        while self.ramp_n:
            out.append(self._ramp_pop())
        if self.jam_tile >= 0:
            out.append(self.jam_tile)
            self.jam_tile = -1
        if self.jammed:
            self.jammed = False
            self._q_rise(self.clock.us)
            self._next()
        self.wall = []
        self.stack = []
        self.sensor_tile = -1
        return out

    def wall_tiles(self):
        out = []
        for s in self.wall:
            out.extend(s)
        out.extend(self.stack)
        return out

    def get_status(self):
        return {
            "track": self.n,
            "gate_open": self.gate_open,
            "jammed": self.jammed,
            "entered": self.entered,
            "stacked": self.stacked,
            "ramp": self.ramp_n,
            "stack": len(self.stack),
            "wall_stacks": len(self.wall),
            "aborted_strokes": self.aborted,
            "empty_strokes": self.empty_strokes,
            "anomalies": list(self.anomalies),
        }
