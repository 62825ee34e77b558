# One side of the four-port machine at the pin level (docs/SIMULATOR.md §9).
#
# The reference track's model (hw_sim/reference/track.py: offers at the slot, the beam's
# pulses and bounces, the ramp, jams, the colour sensor) with this machine's parts:
#   feed<n> (a motor; on = the side takes the tiles the ring brings to its slot; switched
#     off it coasts `gate_close` ms, a tile arriving meanwhile still drops in),
#   count<n> (the counting sensor: one low pulse per tile, as the reference entry beam),
#   colour<n>_int (the colour sensor's INT: low while a tile is under it),
#   stacker<n> (the cam's motor) and home<n> (0 at home): a stroke takes `stacker` ms,
#     home releases at its start and presses at its end; each stroke lifts the oldest tile
#     of the ramp onto the stack, and the stack is pushed into the wall when it holds
#     `strokes_per_stack` tiles (a stroke with no tile on the ramp pushes what is there);
#     a stroke while the count sensor is jammed shakes the head (a back-off).
# Faults of its own: count-double (the counting sensor set too sensitive: a second pulse
# for one tile) and count-miss (set too dull: no pulse), until a person turns its
# potentiometer (hand op fix-count).
from hw_sim.lines import NEVER, IN
from hw_sim.reference.track import Track, GATE_W, STACKER_W
from hw_sim.fourport.motor import MotorLines

CAM_LEAVE_US = 15000  # the home switch releases this long into a stroke
DOUBLE_AFTER_US = 45000  # a too sensitive sensor's second pulse, after the first
DOUBLE_LOW_US = 12000


class Side(Track):
    def __init__(self, table, n, *, seed, timings, sim, colours, motors, strokes_per_stack):
        self._motors = motors
        self.per_stack = strokes_per_stack
        Track.__init__(self, table, n, seed=seed, timings=timings, sim=sim, colours=colours)
        self.cam_us = timings["stacker"] * 1000
        self.cam_on = False
        self.cam_left = 0  # µs of the stroke still to turn (0: at home)
        self.cam_t0 = 0
        self.cam_home_at = NEVER
        self.cam_leave_at = NEVER
        self.strokes = 0
        self.int_fall = NEVER
        self.int_rise = NEVER
        # count-double / count-miss: the sensor's threshold is off until fix-count
        self.count_fault = 0  # 0 none, 1 double, 2 miss
        self.count_left = 0   # tiles it still hits (0 with count_fault: every one)
        self.count_faults = 0

    def _lines(self, s):
        t = self.table
        self.feed = MotorLines(t, "feed" + s, self._motors["feed"]["drive"], self, GATE_W, 3)
        self.gate = self.feed.a
        self.entry = t.add_line("count" + s, IN, 1)
        self.colour_int = t.add_line("colour" + s + "_int", IN, 1)
        self.cam = MotorLines(t, "stacker" + s, self._motors["stacker"]["drive"], self, STACKER_W, 4)
        self.stacker = self.cam.a
        self.pusher = None
        self.home = t.add_line("home" + s, IN, 0)

    # -- the count sensor's faults -----------------------------------------
    def set_count_fault(self, kind, count):
        self.count_fault = kind
        self.count_left = count
        self.count_faults += 1

    def fix_count(self):
        """A person turns the counting sensor's potentiometer back (hand op fix-count)."""
        if not self.count_fault:
            return False
        self.count_fault = 0
        self.count_left = 0
        return True

    def enter(self, tile, now):
        cf = self.count_fault
        if cf == 2:
            # too dull: the tile passes without a pulse (the colour sensor still sees it)
            self._used_count_fault()
            self.taken(tile, now)
            self._ramp_push(tile)
            self._int_pulse(now)
            self._next()
            return
        Track.enter(self, tile, now)
        self._int_pulse(now)
        if cf == 1 and not self.jammed:
            self._used_count_fault()
            t = now + DOUBLE_AFTER_US
            self._q(t, 0)
            self._q(t + DOUBLE_LOW_US, 1)
        self._next()

    def _used_count_fault(self):
        if self.count_left:
            self.count_left -= 1
            if self.count_left == 0:
                self.count_fault = 0

    def _int_pulse(self, now):
        self.int_fall = now + self.sensor_lag
        self.int_rise = now + self.sensor_lag + self.beam_us

    # -- outputs ---------------------------------------------------------------
    def on_output(self, what, v):
        if what == 3:  # the feed's direction: one way only
            return
        if what == 4:
            return
        if what == STACKER_W:
            now = self.clock.us
            on = bool(v) and self.table.supply
            if on and not self.cam_on:
                self.cam_on = True
                if self.cam_left == 0:
                    self.cam_left = self.cam_us
                    self.cam_leave_at = now + CAM_LEAVE_US
                self.cam_t0 = now
                self.cam_home_at = now + self.cam_left
            elif not on and self.cam_on:
                self.cam_on = False
                if self.cam_left:  # stopped mid-stroke: the rest waits
                    self.cam_left -= now - self.cam_t0
                    if self.cam_left <= 0:
                        self.cam_left = 1
                self.cam_home_at = NEVER
            self._next()
            return
        Track.on_output(self, what, 1 if v else 0)

    def supply_changed(self):
        on = self.table.supply
        self.on_output(GATE_W, self.feed.level() if on else 0)
        self.on_output(STACKER_W, self.cam.level() if on else 0)

    # -- events ------------------------------------------------------------------
    def _next(self):
        Track._next(self)
        n = self.next_us  # (no tuple: this runs on the per-tile path, heap locked)
        if self.cam_home_at < n:
            n = self.cam_home_at
        if self.cam_leave_at < n:
            n = self.cam_leave_at
        if self.int_fall < n:
            n = self.int_fall
        if self.int_rise < n:
            n = self.int_rise
        self.next_us = n
        self._times[self._slot] = n
        self._mark.dirty = True

    def fire(self, now):
        if self.int_fall <= now:
            self.int_fall = NEVER
            self.colour_int.set(0)
        if self.int_rise <= now:
            self.int_rise = NEVER
            self.colour_int.set(1)
        if self.cam_leave_at <= now:
            self.cam_leave_at = NEVER
            self.home.set(1)
        if self.cam_home_at <= now:
            self.cam_home_at = NEVER
            self.cam_left = 0
            self.strokes += 1
            self._stroke(now)
            self.home.set(0)  # (the controller's IRQ stops the motor here)
            if self.cam_on:  # still driven: the next stroke begins
                self.cam_left = self.cam_us
                self.cam_t0 = now
                self.cam_leave_at = now + CAM_LEAVE_US
                self.cam_home_at = now + self.cam_us
        Track.fire(self, now)

    def _stroke(self, now):
        if self.jammed:
            self._push(now)  # against the jam: a back-off (Track._push's)
            return
        if self.ramp_n:
            self._stack(now)
            if len(self.stack) >= self.per_stack:
                self._push(now)
        elif self.stack:
            self._push(now)
        else:
            self.empty_strokes += 1

    def get_status(self):
        d = Track.get_status(self)
        d["strokes"] = self.strokes
        d["home"] = self.home.level == 0
        d["count_fault"] = ("none", "double", "miss")[self.count_fault]
        return d
