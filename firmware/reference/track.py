# One feed track: gate, entry count, back colour, stacker and pusher
# (docs/ARCHITECTURE.md §4, docs/FIRMWARE.md "Exact counting").
#
# The per-tile path, none of which allocates:
#   entry IRQ (photo driver, debounced) -> _on_edge: count >= target closes the
#   gate at once, count > target flags OVERFILL -> service() (task context, next
#   step) starts the colour timer at edge + colour_delay and the jam timer at
#   edge + jam -> _colour_due: mux + sensor read, integer classification,
#   per-colour count, ctl.on_tile(...) (the endpoint encodes and sends the tile
#   event) -> once the beam is clear again (the tile has left the entry; a
#   jammed tile is still in it) a stacker pulse is queued; every second tile a
#   pusher pulse.
from firmware.compat import const, ticks_diff
from firmware.drivers.photo import PhotoInterrupter
from firmware.reference.gate import Gate
from firmware.reference.stacker import Stacker, BACKOFF
from firmware import codes

_RING = const(8)  # edge times kept for tiles counted but not yet read
_RING_MASK = const(7)
# After a jam back-off stroke ends, the tile it freed has this long to leave the
# beam before the next back-off (or the JAM fault).  A beam that clears earlier
# reopens the gate once it has been clear for the entry sensor's debounce time
# (service(), on the rising edge, then the jam timer): a tile let in sooner would
# fall on a beam the photo driver still takes for bouncing, and enter uncounted.
JAM_SETTLE_MS = const(50)


class Track:
    def __init__(self, num, profile, hal, sched, clock, ctl, *, colour_bus=None, classifier=None,
                 gate=None, stacker=None, entry="entry"):
        # gate, stacker, entry: another family's parts with the same interface (the
        # four-port side: its feed motor, its cam, its counting sensor; docs/FIRMWARE.md §11)
        self.num = num
        self._clock = clock
        t = profile["timings_ms"]
        o = profile["timeouts_ms"]
        n = str(num)
        self._ctl = ctl
        self._colour_bus = colour_bus
        self._classifier = classifier
        self._channel = num - 1
        self._colour_delay_us = t["colour_delay"] * 1000
        self._jam_us = o["jam"] * 1000
        self._deb_us = t["debounce"] * 1000  # the entry sensor's debounce (photo driver)
        self._jam_retries = o["jam_retries"]
        self._step_cb = self._on_step
        if gate is None:
            gate = Gate(hal.output("gate" + n), close_ms=t["gate_close"])
        self.gate = gate
        if stacker is None:
            stacker = Stacker(hal.output("stacker" + n), hal.output("pusher" + n), sched,
                              stacker_ms=t["stacker"], pusher_ms=t["pusher"],
                              backoff_ms=o["jam_backoff"], on_step=self._step_cb)
        else:
            stacker.on_step = self._step_cb
        self.stacker = stacker
        self._edges = [0] * _RING
        self.colour_counts = [0] * (len(profile["colours"]) + 1)  # [unknown, colour 1, ...]
        self.target = 0
        self.armed = False
        self.handled = 0       # tiles whose colour was read and reported
        self._to_stack = 0     # read, waiting for the beam to clear before stacking
        self._queued = 0       # tiles seen by service()
        self.over = False      # count went beyond target (set in the IRQ)
        self._over_reported = False
        self.jammed = False
        self.jam_backoffs = 0  # back-offs for the current jam
        self.jams = 0          # jams seen since reset (cleared or not)
        self.wall_done = False
        self._finishing = False
        self._colour_cb = self._colour_due
        self._jam_cb = self._jam_due
        self._colour_timer = sched.timer(self._colour_cb)
        self._jam_timer = sched.timer(self._jam_cb)
        # A tile's jam check (entry edge + jam) is parked while its beam is clear:
        # it would find the beam clear and do nothing.  A beam darkened again
        # without a counted edge (a falling edge the debounce rejected) re-arms it
        # at the same deadline.
        self._jam_parked = False
        self._jam_at = 0   # ticks_us deadline of the parked check
        self._jam_rej = 0  # photo.rejected when it was parked (or last looked at)
        self._edge_cb = self._on_edge
        self.photo = PhotoInterrupter(hal.input(entry + n), clock, debounce_ms=t["debounce"],
                                      on_edge=self._edge_cb, wake=sched.wake)

    # ---- IRQ path -------------------------------------------------------
    def _on_edge(self):
        c = self.photo.count
        if c >= self.target:
            self.gate.close()
            if c > self.target:
                self.over = True
        self._edges[c & _RING_MASK] = self.photo.last_edge_us

    # ---- task context ---------------------------------------------------
    @property
    def count(self):
        return self.photo.count

    def _feed_stacker(self):
        if self.photo.blocked():
            return
        while self._to_stack:
            self._to_stack -= 1
            self.stacker.add_tile()

    def service(self):
        """The work after an edge of the entry sensor: call it when photo.changed
        is up.  Everything here follows such an edge (a count, a beam that
        cleared, a rejected bounce); timer callbacks finish their own work (a
        colour read feeds the stacker itself)."""
        self.photo.changed = False  # lowered before looking: a later edge raises it again
        c = self.photo.count
        if c != self._queued:
            self._queued = c
            self.jam_backoffs = 0
            if not self._colour_timer.active:
                self._start_colour(self.handled + 1)
            if not self.jammed:
                self._jam_timer.start_at_us(self._edges[c & _RING_MASK], self._jam_us)
                self._jam_parked = False
        if self.jammed:
            if not self.photo.blocked():
                self._jam_due()  # cleared, once the beam has been clear long enough
        elif self._jam_timer.active:
            if not self.photo.blocked():
                # the tile has left the beam: park its jam check
                self._jam_at = self._jam_timer.due
                self._jam_timer.cancel()
                self._jam_parked = True
                self._jam_rej = self.photo.rejected
        elif self._jam_parked and self.photo.rejected != self._jam_rej:
            self._jam_rej = self.photo.rejected
            if self.photo.blocked():
                # dark again without a counted edge: the check runs at its deadline
                self._jam_parked = False
                if ticks_diff(self._jam_at, self._clock.ticks_us()) >= 0:
                    self._jam_timer.start_at_us(self._jam_at, 0)
        if self._to_stack:
            self._feed_stacker()
        if self.over and not self._over_reported:
            self._over_reported = True
            self.gate.close()
            self._ctl.on_track_fault(codes.FAULT_OVERFILL, self.num)

    def _start_colour(self, idx):
        if self._queued - idx >= _RING:
            # more tiles waiting than edge times kept: read the oldest now
            self._colour_timer.start_us(0)
        else:
            self._colour_timer.start_at_us(self._edges[idx & _RING_MASK], self._colour_delay_us)

    def _read_class(self):
        bus = self._colour_bus
        if bus is None or self._classifier is None:
            return 0
        if not bus.read(self._channel):
            return 0
        return self._classifier.classify(bus.c, bus.r, bus.g, bus.b)

    def set_classifier(self, classifier):
        """The classifier this track's colour readings go through (CALIBRATE,
        SET_CALIBRATION)."""
        self._classifier = classifier

    def _colour_due(self):
        idx = self.handled + 1
        cls = self._read_class()
        self.handled = idx
        self.colour_counts[cls] += 1
        self._to_stack += 1
        self._ctl.on_tile(self.num, idx, cls)
        self._feed_stacker()
        if self.handled < self._queued:
            self._start_colour(self.handled + 1)
        self._check_done()

    def _jam_cleared(self):
        self.jammed = False
        self._jam_timer.cancel()
        self._jam_parked = False
        self._reopen()

    def _jam_due(self):
        if not self.photo.blocked():
            if self.jammed:
                # the gate reopens only once the beam has been clear for the debounce
                # time: a tile let in sooner (one waiting at the mouth drops in at once)
                # would fall on a beam the photo driver still takes for bouncing, and
                # enter uncounted
                rise = self.photo.last_rise_us
                d = ticks_diff(self._clock.ticks_us(), rise)
                if 0 <= d < self._deb_us:
                    self._jam_timer.start_at_us(rise, self._deb_us)
                    self._jam_parked = False
                    return
                self._jam_cleared()
            return
        # the beam has been blocked for longer than the jam timeout
        if not self.jammed:
            self.jams += 1
        if self.jam_backoffs >= self._jam_retries:
            self.jammed = True
            self.gate.close()
            self._ctl.on_track_fault(codes.FAULT_JAM, self.num)
            return
        self.jammed = True
        self.jam_backoffs += 1
        self.gate.close()
        self.stacker.backoff()  # when its stroke ends, _on_step starts the settle check

    def _reopen(self):
        if self.armed and not self.jammed and self.photo.count < self.target:
            self.gate.open()

    def _on_step(self):
        if self.stacker.last_done == BACKOFF and self.jammed:
            self._jam_timer.start(JAM_SETTLE_MS)
            self._jam_parked = False
        self._check_done()

    def _check_done(self):
        if self.wall_done or self.target == 0 or self.over:
            return
        if self.handled >= self.target and self._to_stack == 0:
            if not self._finishing:
                self._finishing = True
                self.stacker.finish()
            if self.stacker.idle():
                self.wall_done = True
                self._ctl.on_wall_done(self.num)

    # ---- commands (from the controller) ---------------------------------
    def arm(self, target):
        """Build to `target` tiles, keeping the counts so far (resume)."""
        self.target = target
        self.armed = True
        if target == 0 and self.photo.count == 0:
            self.wall_done = True  # no wall on this track in this build
        if self.photo.count < target and not self.jammed:
            self.gate.open()
        else:
            self.gate.close()
        if self.photo.count > target:
            self.over = True
        self._check_done()

    def disarm(self):
        """Close the gate and take no more tiles; counts are kept."""
        self.armed = False
        self.gate.close()

    def short(self):
        return self.photo.count < self.target

    def reset(self):
        """Forget the wall (it was lifted away): counts back to zero."""
        self.disarm()
        self._colour_timer.cancel()
        self._jam_timer.cancel()
        self._jam_parked = False
        self.stacker.reset()
        self.photo.reset(0)
        self.handled = 0
        self._to_stack = 0
        self._queued = 0
        self.target = 0
        for i in range(len(self.colour_counts)):
            self.colour_counts[i] = 0
        self.over = False
        self._over_reported = False
        self.jammed = False
        self.jam_backoffs = 0
        self.jams = 0
        self.wall_done = False
        self._finishing = False

    def stop(self):
        """Everything off now (fault, shutdown): gate closed, pulses released."""
        self.armed = False
        self.gate.close()
        self._jam_timer.cancel()
        self._jam_parked = False
        self.stacker.stop()

    def idle(self):
        """No tile in flight: all counted tiles read and stacked."""
        return (self.handled == self.photo.count and self._to_stack == 0
                and not self._colour_timer.active and self.stacker.idle())

    def get_status(self):
        return {
            "track": self.num,
            "target": self.target,
            "count": self.photo.count,
            "handled": self.handled,
            "colours": list(self.colour_counts),
            "gate_open": self.gate.is_open,
            "armed": self.armed,
            "jammed": self.jammed,
            "jams": self.jams,
            "overfill": self.over,
            "wall_done": self.wall_done,
            "stacked": self.stacker.stacked,
            "pushed": self.stacker.pushed,
            "rejected_edges": self.photo.rejected,
        }
