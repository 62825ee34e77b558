# The lift and the centre door: one-axis motions driven by a DC motor, with an
# end switch at each end (docs/SIMULATOR.md "Lift", "Door").
#
# Position is in microseconds of travel at nominal speed (0 = bottom/closed,
# stroke = top/open); any duty of at least MIN_DUTY moves at nominal speed.
# A switch is pressed (pin 0) within `zone` of its end.  Driving into an end
# stop slips a clutch: the current stays at its running level (a switch that
# never closes shows as a stroke that never ends, not as a stall).  An
# obstruction (lift-stall) stops the motion and raises the current.
from hw_sim import rng as _rng
from hw_sim.lines import NEVER, IN, OUT, PWM, ADC, EventSource

PWM_W = 0
DIR_W = 1

MIN_DUTY = 6554


class Axis(EventSource):
    """Shared motion model.  Subclasses name the pins and react to ends."""

    kind = "axis"

    def __init__(self, table, prefix, low_name, high_name, *, stroke_us, zone_us, coast_us=0, drive=None):
        self.table = table
        # inertia: once its power goes (the driver's PWM to 0, or the rail dead) a
        # moving axis runs on, slowing evenly to rest in coast_us (covering coast_us / 2
        # of travel) unless an end or an obstruction stops it first
        self.coast_us = coast_us
        self.coast_c = 0  # the coast under way: its duration (0: none)
        self.coast_t0 = 0
        self.coast_p0 = 0
        self.coast_dir = 0
        self.stopped_us = -1  # the last instant it moved (the end of a motion or a coast)
        self.clock = table.clock
        self.S = stroke_us
        self.Z = zone_us
        self.pos = 0
        self.t0 = table.clock.us
        self.v = 0
        self.duty = 0
        self.direction = 0
        self.motor_on = False
        self.block_hi = NEVER  # cannot pass this position going up/open
        self.block_lo = -1  # cannot pass this going down/closed
        self.force_lo = -1  # stuck switch: forced level (0/1), -1 = none
        self.force_hi = -1
        self.next_us = NEVER
        self.moves = 0  # motions started towards the high end
        if drive is None:  # an H-bridge's lines here; else hw_sim/fourport/motor.py's
            self.pwm = table.add_line(prefix + "_pwm", PWM, 0, self, PWM_W)
            self.dir_line = table.add_line(prefix + "_dir", OUT, 0, self, DIR_W)
        self.low = table.add_line(low_name, IN, 0)  # starts at the low end: pressed
        self.high = table.add_line(high_name, IN, 1)

    # -- position ------------------------------------------------------------
    def _update(self, now):
        c = self.coast_c
        if c:
            dt = now - self.coast_t0
            if dt >= c:
                d = c // 2
            else:
                d = dt - (dt * dt) // (2 * c)
            p = self.coast_p0 + d * self.coast_dir
            end = dt >= c
            if self.coast_dir > 0:
                lim = self.S if self.block_hi > self.S else self.block_hi
                if p >= lim:
                    p = lim
                    end = True
            else:
                lim = 0 if self.block_lo < 0 else self.block_lo
                if p <= lim:
                    p = lim
                    end = True
            self.pos = p
            self.t0 = now
            if end:
                self.coast_c = 0
                self.v = 0
                self._stopped(now)
            return
        if self.v:
            p = self.pos + self.v * (now - self.t0)
            if p < 0:
                p = 0
            if p > self.S:
                p = self.S
            self.pos = p
        self.t0 = now

    def _stopped(self, now):
        self.stopped_us = now
        self.table.on_axis_stopped(self, now)

    def _set_v(self, v, now):
        if self.v and not v:
            self._stopped(now)
        self.v = v

    def _powered(self):
        """This axis's rail is live (the motion rail: hw_sim/power.py)."""
        return self.table.power.motion

    def _velocity(self):
        if not self.motor_on:
            return 0
        if self.direction:
            if self.pos >= self.S or self.pos >= self.block_hi:
                return 0
            return 1
        if self.pos <= 0 or self.pos <= self.block_lo:
            return 0
        return -1

    def blocked(self):
        """The motor pushes against an obstruction (not an end stop)."""
        if not self.motor_on:
            return False
        if self.direction:
            return self.pos >= self.block_hi and self.pos < self.S
        return self.pos <= self.block_lo and self.pos > 0

    def _coast_time(self, target):
        """When the coast under way reaches position `target` (the coast's end if it
        does not)."""
        c = self.coast_c
        d = (target - self.coast_p0) * self.coast_dir
        if d * 2 >= c:
            return self.coast_t0 + c
        import math

        return self.coast_t0 + int(c - math.sqrt(c * c - 2 * c * d)) + 1

    def _next(self):
        v = self.v
        if v == 0:
            self.next_us = NEVER
            self._times[self._slot] = self.next_us
            self._mark.dirty = True
            return
        p = self.pos
        S = self.S
        Z = self.Z
        if v > 0:
            # the nearest of: low switch releases, high switch presses, end, obstruction
            best = S
            if Z + 1 > p and Z + 1 < best:
                best = Z + 1
            if S - Z > p and S - Z < best:
                best = S - Z
            if self.block_hi > p and self.block_hi < best:
                best = self.block_hi
            self.next_us = self._coast_time(best) if self.coast_c else self.t0 + (best - p)
            self._times[self._slot] = self.next_us
            self._mark.dirty = True
        else:
            best = 0
            if S - Z - 1 < p and S - Z - 1 > best:
                best = S - Z - 1
            if Z < p and Z > best:
                best = Z
            if self.block_lo < p and self.block_lo > best:
                best = self.block_lo
            self.next_us = self._coast_time(best) if self.coast_c else self.t0 + (p - best)
            self._times[self._slot] = self.next_us
            self._mark.dirty = True

    def _switches(self):
        lo = 0 if self.pos <= self.Z else 1
        hi = 0 if self.pos >= self.S - self.Z else 1
        if self.force_lo >= 0:
            lo = self.force_lo
        if self.force_hi >= 0:
            hi = self.force_hi
        self.low.set(lo)
        self.high.set(hi)

    def force_switch(self, high, level):
        """A stuck end switch: the high one (high) or the low one reads `level` (0 or
        1) wherever the axis is; -1 frees it."""
        if high:
            self.force_hi = level
        else:
            self.force_lo = level
        self._switches()

    def free_switches(self):
        """Both end switches read the position again."""
        self.force_lo = -1
        self.force_hi = -1
        self._switches()

    # -- controller outputs ------------------------------------------------
    def on_output(self, what, v):
        now = self.clock.us
        self._update(now)
        was_on = self.motor_on
        was_dir = self.direction
        if what == PWM_W:
            self.duty = v
        else:
            self.direction = v
        self.motor_on = self.duty >= MIN_DUTY and self._powered()  # (no supply: no motion)
        if self.motor_on:
            self.coast_c = 0  # driven again: any coast ends
            self._set_v(self._velocity(), now)
        elif self.coast_c == 0:
            if self.v and self.coast_us:
                # power gone while moving: it coasts to rest
                self.coast_c = self.coast_us
                self.coast_t0 = now
                self.coast_p0 = self.pos
                self.coast_dir = self.v
            else:
                self._set_v(0, now)
        self._next()
        if self.motor_on and (not was_on or was_dir != self.direction) and self.direction:
            self.moves += 1
        if self.motor_on != was_on:
            self.table.on_motor(self, self.motor_on, now)
        if self.motor_on and (not was_on or was_dir != self.direction):
            self.on_start(now)

    def fire(self, now):
        self._update(now)
        if not self.coast_c:
            self._set_v(self._velocity(), now)
        self._next()
        self.at_position(now)
        self._switches()

    def at_position(self, now):
        pass

    def on_start(self, now):
        pass

    def position_ms(self):
        self._update(self.clock.us)
        return self.pos / 1000


class Lift(Axis):
    kind = "lift"

    def __init__(self, table, *, seed, stroke_us, zone_us, current, coast_us=0, prefix="lift", drive=None,
                 stream=1):
        Axis.__init__(self, table, prefix, prefix + "_bottom", prefix + "_top", stroke_us=stroke_us,
                      zone_us=zone_us, coast_us=coast_us, drive=drive)
        self.rng = _rng.Rng(seed, _rng.NOISE + stream)
        self.cur_idle = current["idle"]
        self.cur_run = current["run"]
        self.cur_stall = current["stall"]
        self.cur_noise = current["noise"]
        self._noise_bits = 0  # a draw's second 16 bits, kept for the next read
        self._noise_left = 0
        self.load = None  # walls on the platform (per track lists of stacks)
        self.at_bottom = True
        self.current_line = table.add_line(prefix + "_current", ADC, 0)
        self.raises = 0

    def current_u16(self):
        """What the current-sense ADC reads now (read_u16)."""
        self._update(self.clock.us)
        if not self.motor_on:
            base = self.cur_idle
        else:
            # blocked() inlined
            p = self.pos
            if self.direction:
                blocked = p >= self.block_hi and p < self.S
            else:
                blocked = p <= self.block_lo and p > 0
            base = self.cur_stall if blocked else self.cur_run
        n = self.cur_noise
        # -n..+n from 16 bits of a draw by multiply-shift: one draw serves two
        # reads (this is read every poll of a motion; a PRNG draw is the dearest
        # part of a read on CPython, and noise needs no exact uniformity)
        if self._noise_left:
            self._noise_left = 0
            bits = self._noise_bits
        else:
            bits = self.rng.next_u32()
            self._noise_bits = bits >> 16
            self._noise_left = 1
        v = base - n + (((bits & 0xFFFF) * (2 * n + 1)) >> 16)
        if v < 0:
            return 0
        if v > 65535:
            return 65535
        return v

    def on_start(self, now):
        # both ways: a lift-stall with dir=down is armed as the stroke down starts
        # (the other lift faults look at the upward start only)
        self.table.on_lift_start(now)

    def at_position(self, now):
        if self.pos <= self.Z:
            if self.load is not None:
                load = self.load
                self.load = None
                self.walls_back_inside(load, now)
            self.at_bottom = True
        elif self.at_bottom:
            self.at_bottom = False
            if self.v > 0:
                self.load = self.walls_onto_lift(now)
        if self.pos >= self.S - self.Z and self.load is not None:
            load = self.load
            self.load = None
            self.raises += 1
            self.walls_to_top(load, now)

    # where the walls go, at the lift's ends only (a family's lift says its own)
    def walls_back_inside(self, load, now):
        self.table.walls_back_inside(load, now)

    def walls_onto_lift(self, now):
        return self.table.walls_onto_lift(now)

    def walls_to_top(self, load, now):
        self.table.walls_to_top(load, now)

    def get_status(self):
        return {
            "position_ms": self.position_ms(),
            "motor": self.motor_on,
            "up": bool(self.direction),
            "top": self.high.level == 0,
            "bottom": self.low.level == 0,
            "blocked": self.blocked(),
            "raises": self.raises,
            "loaded": self.load is not None,
        }
