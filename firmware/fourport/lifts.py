# The four lifts: each side's wall rises on its own lift (motor, top and bottom switches,
# optional current sense), the four at once.  The reference lift's interface (cycle,
# down, stop, halt, moving, at_bottom, pending, service, position, axis), so the state
# machine is the same: up to the top switches (all four), report, back down (all four),
# report.  A lift that stalls, misses a switch or times out stops all four and is reported
# with its side (FAULT track = the side).
from firmware.drivers.motor import make_motor
from firmware.drivers.motion import EndMotion, FAR, NEAR, AT_FAR, AT_NEAR


class _Peak:
    """The four lifts' current sense seen as one: the highest."""

    def __init__(self, axes):
        self.peak = 0
        self._senses = [a.current for a in axes if a.current is not None]
        self.threshold = self._senses[0].threshold if self._senses else 0

    def read(self):
        v = 0
        for c in self._senses:
            r = c.read()
            if r > v:
                v = r
        return v


class _Axes:
    """The four axes seen as one by the controller (halted, both_pressed, stroke_us,
    current.peak)."""

    def __init__(self, axes):
        self.axes = axes
        self._peak = _Peak(axes)
        have = [a for a in axes if a.current is not None]
        self.current = self._peak if have else None
        self.stroke_us = 0

    @property
    def halted(self):
        for a in self.axes:
            if a.halted:
                return True
        return False

    @halted.setter
    def halted(self, v):
        for a in self.axes:
            a.halted = v

    @property
    def start_us(self):
        """ticks_us of the four's current (or last) motion's start (they start together)."""
        return self.axes[0].start_us

    def both_pressed(self):
        for a in self.axes:
            if a.both_pressed():
                return True
        return False

    def halt(self):
        for a in self.axes:
            a.halt()

    def far_pressed(self):
        for a in self.axes:
            if not a.far_pressed():
                return False
        return True

    def near_pressed(self):
        for a in self.axes:
            if not a.near_pressed():
                return False
        return True

    @property
    def position(self):
        p = self.axes[0].position
        for a in self.axes:
            if a.position != p:
                return 2  # BETWEEN
        return p

    def get_status(self):
        return [a.get_status() for a in self.axes]


class Lifts:
    def __init__(self, profile, hal, sched, clock, ctl):
        t = profile["timings_ms"]
        o = profile["timeouts_ms"]
        self._ctl = ctl
        drive = profile["motors"]["lift"]["drive"]
        self.lifts = []
        self._arrive_cbs = []
        self._fault_cbs = []
        for n in range(1, profile["tracks"] + 1):
            s = "lift%d" % n
            motor = make_motor(hal, s, drive, sched, duty=profile["duty"]["lift"])
            arrive = self._arriver(n)
            fail = self._failer(n)
            self._arrive_cbs.append(arrive)
            self._fault_cbs.append(fail)
            self.lifts.append(EndMotion(
                motor, hal.input(s + "_top"), hal.input(s + "_bottom"), sched, clock,
                timeout_ms=o["lift"], release_ms=o["limit_release"], poll_ms=t["poll"],
                travel_ms=t["lift_stroke"], adc=hal.adc(s + "_current"),
                stall_threshold=profile["thresholds"]["lift_stall_current_u16"],
                stall_ms=o["stall_current"], stall_code=_stall_code(),
                on_arrive=arrive, on_fault=fail))
        self.axis = _Axes(self.lifts)
        self.cycling = False
        self.reached_top = False
        self._going = 0  # FAR or NEAR: the direction of the four's motion
        self._arrived = 0  # lifts arrived in this motion

    def _arriver(self, n):
        def arrive(direction):
            self._arrive(n, direction)
        return arrive

    def _failer(self, n):
        def fail(code):
            self._fault(n, code)
        return fail

    def pending(self):
        for a in self.lifts:
            if a.pending():
                return True
        return False

    def service(self):
        done = False
        for a in self.lifts:
            if a.pending():
                done = a.service() or done
        return done

    def at_bottom(self):
        for a in self.lifts:
            if not (a.moving == 0 and a.near_pressed() and not a.far_pressed()):
                return False
        return True

    def moving(self):
        for a in self.lifts:
            if a.moving != 0:
                return True
        return False

    def _move(self, direction):
        self._going = direction
        self._arrived = 0
        for a in self.lifts:
            if a.both_pressed():
                return _limit_code()
        for a in self.lifts:
            code = a.move(direction)
            if code:
                self.stop()
                return code
        return 0

    def cycle(self):
        self.cycling = True
        self.reached_top = False
        code = self._move(FAR)
        if code:
            self.cycling = False
        return code

    def down(self):
        self.cycling = False
        return self._move(NEAR)

    def halt(self):
        for a in self.lifts:
            a.halt()

    def stop(self):
        self.cycling = False
        for a in self.lifts:
            a.stop()

    def _arrive(self, n, direction):
        if direction != self._going:
            return
        self._arrived += 1
        if self._arrived < len(self.lifts):
            return
        peak = 0
        stroke = 0
        for a in self.lifts:
            if a.current is not None and a.current.peak > peak:
                peak = a.current.peak
            if a.stroke_us > stroke:
                stroke = a.stroke_us
        self.axis._peak.peak = peak
        self.axis.stroke_us = stroke
        if direction == FAR:
            self.reached_top = True
            self._ctl.on_lift_arrived(True)
            if self.cycling:
                code = self._move(NEAR)
                if code:
                    self.cycling = False
                    self._ctl.on_mech_fault(code, 0, 0)
        else:
            self.cycling = False
            self._ctl.on_lift_arrived(False)

    def _fault(self, n, code):
        self.cycling = False
        ms = self.lifts[n - 1].fail_ms
        for a in self.lifts:
            a.stop()
        self._ctl.on_mech_fault(code, n, ms)

    def position(self):
        top = True
        bottom = True
        for a in self.lifts:
            if a.position != AT_FAR:
                top = False
            if a.position != AT_NEAR:
                bottom = False
        if top:
            return "top"
        if bottom:
            return "bottom"
        return "between"

    def get_status(self):
        d = self.lifts[0].get_status()
        d["lifts"] = [a.get_status() for a in self.lifts]
        d["cycling"] = self.cycling
        d["where"] = self.position()
        return d


def _stall_code():
    from firmware import codes
    return codes.FAULT_LIFT_STALL


def _limit_code():
    from firmware import codes
    return codes.FAULT_LIMIT
