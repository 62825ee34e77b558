# One side of the four-port machine: its feed (motor; the ring's slot), its counting
# sensor (a reflective photo sensor, one pulse per tile), the colour sensor at the feed
# slot (back colour, and its INT: a tile under it) and its stack-and-push cam.
#
# The counting path is the reference track's (firmware/reference/track.py: count in the
# IRQ, the feed stops at the target, colour read in task context, stacking once the
# sensor is clear, jams and back-offs), with the feed as its gate and the cam as its
# stacker.  Added here: the cross-check.  The colour sensor's INT falls once per tile
# that passes under it; a counted tile the colour sensor never saw is a double count
# (the counting sensor set too sensitive), a tile the colour sensor saw that was never
# counted a missed count (set too dull).  Either is fault COUNT naming the side, and the
# count is put right from the colour sensor's (the phantom dropped unreported, the missed
# tile counted and read): the deck stays exact; a person turns the sensor's potentiometer.
from firmware.compat import const
from firmware.drivers.photo import PhotoInterrupter
from firmware.reference.track import Track
from firmware.fourport.feed import Feed
from firmware.fourport.stacker import CamStacker
from firmware import codes

COUNT_DOUBLE = const(1)  # FAULT COUNT detail, low byte: the counter counted a tile too many
COUNT_MISSED = const(2)  # ... the counter missed a tile the colour sensor saw
_RING_MASK = const(7)


class Side(Track):
    def __init__(self, num, profile, hal, sched, clock, ctl, *, colour_bus=None, classifier=None):
        self._cam_fault_cb = self._cam_fault
        feed = Feed(num, profile, hal, sched)
        cam = CamStacker(num, profile, hal, sched, on_fault=self._cam_fault_cb)
        Track.__init__(self, num, profile, hal, sched, clock, ctl, colour_bus=colour_bus,
                       classifier=classifier, gate=feed, stacker=cam, entry="count")
        self.feed = feed
        self.cam = cam
        # the colour sensor's INT: one falling edge per tile under it (debounced alike)
        self.seen = PhotoInterrupter(hal.input("colour%d_int" % num), clock,
                                     debounce_ms=profile["timings_ms"]["debounce"], wake=sched.wake)
        self.doubles = 0
        self.misses = 0

    def pending(self):
        """Work for extra_service(): a cam stroke came home, or the colour sensor's INT moved."""
        return self.cam.pending() or self.seen.changed

    def extra_service(self):
        if self.cam.pending():
            self.cam.service()
        if self.seen.changed:
            self.seen.changed = False
            p = self.photo
            if not self.armed:
                # not building (a reset's boot with a tile under way, a paused build's
                # tiles still arriving): nothing to cross-check against, keep in step
                if self.seen.count > p.count:
                    self.seen.count = p.count
                return
            if self.seen.count > p.count:
                # the colour sensor saw a tile the counting sensor did not count
                self.misses += 1
                c = p.count + 1
                p.count = c
                self._edges[c & _RING_MASK] = self.seen.last_edge_us
                p.changed = True  # Track.service() queues its read, as for a counted edge
                if c >= self.target:
                    self.gate.close()
                self._ctl.on_mech_fault(codes.FAULT_COUNT, self.num, COUNT_MISSED | (c << 8))
                self.service()

    def _colour_due(self):
        idx = self.handled + 1
        if self.seen.count < idx:
            # counted, but nothing came under the colour sensor: a double count.  The
            # phantom is dropped before anything is reported of it.
            self.doubles += 1
            self.photo.count -= 1
            self._queued -= 1
            self._ctl.on_mech_fault(codes.FAULT_COUNT, self.num, COUNT_DOUBLE | (self.photo.count << 8))
            if self.handled < self._queued:
                self._start_colour(self.handled + 1)
            return
        Track._colour_due(self)

    def _cam_fault(self):
        # a stroke that never came home: the cam is stuck or its home switch broken
        self._ctl.on_mech_fault(codes.FAULT_JAM, self.num, 0x100 | self.cam.fails)

    def arm(self, target):
        self.feed.halted = False
        self.cam.resume()  # a stroke the guard stopped goes on
        Track.arm(self, target)

    def reset(self):
        Track.reset(self)
        self.seen.reset(0)

    def get_status(self):
        d = Track.get_status(self)
        d["seen"] = self.seen.count
        d["doubles"] = self.doubles
        d["misses"] = self.misses
        d["home"] = self.cam.home.pressed()
        return d
