# The lift: raises the finished walls to the table top and returns
# (docs/ARCHITECTURE.md §4: lift_pwm/lift_dir, dir 1 = up; lift_top and
# lift_bottom pressed = 0; lift_current read_u16 above the threshold = stall).
#
# cycle(): up to the top switch, report, straight back down to the bottom
# switch, report.  Timeouts, switch checks and the stall are in motion.py.
from firmware.drivers.motor import DCMotor
from firmware.drivers.motion import EndMotion, FAR, NEAR, AT_FAR, AT_NEAR
from firmware import codes


class Lift:
    def __init__(self, profile, hal, sched, clock, ctl):
        t = profile["timings_ms"]
        o = profile["timeouts_ms"]
        self._ctl = ctl
        motor = DCMotor(hal.pwm("lift_pwm"), hal.output("lift_dir"), duty=profile["duty"]["lift"])
        self._arrive_cb = self._arrive
        self._fault_cb = self._fault
        self.axis = EndMotion(
            motor, hal.input("lift_top"), hal.input("lift_bottom"), sched, clock,
            timeout_ms=o["lift"], release_ms=o["limit_release"], poll_ms=t["poll"],
            travel_ms=t["lift_stroke"], adc=hal.adc("lift_current"),
            stall_threshold=profile["thresholds"]["lift_stall_current_u16"],
            stall_ms=o["stall_current"], stall_code=codes.FAULT_LIFT_STALL,
            on_arrive=self._arrive_cb, on_fault=self._fault_cb)
        # pending(): an arrival or a halt for service() to finish (the axis's own,
        # bound once: the controller asks after every IRQ)
        self.pending = self.axis.pending
        self.cycling = False
        self.reached_top = False  # in this cycle

    def at_bottom(self):
        return self.axis.moving == 0 and self.axis.near_pressed() and not self.axis.far_pressed()

    def moving(self):
        return self.axis.moving != 0

    def cycle(self):
        """Raise the walls and come back down.  Returns 0 or a fault code."""
        self.cycling = True
        self.reached_top = False
        code = self.axis.move(FAR)
        if code:
            self.cycling = False
        return code

    def down(self):
        """Return to the bottom (homing).  Returns 0 or a fault code."""
        self.cycling = False
        return self.axis.move(NEAR)

    def halt(self):
        self.axis.halt()

    def stop(self):
        self.cycling = False
        self.axis.stop()

    def service(self):
        return self.axis.service()

    def _arrive(self, direction):
        if direction == FAR:
            self.reached_top = True
            self._ctl.on_lift_arrived(True)
            if self.cycling:
                code = self.axis.move(NEAR)
                if code:
                    self.cycling = False
                    self._ctl.on_mech_fault(code, 0, 0)
        else:
            self.cycling = False
            self._ctl.on_lift_arrived(False)

    def _fault(self, code):
        self.cycling = False
        self._ctl.on_mech_fault(code, 0, self.axis.fail_ms)

    def position(self):
        p = self.axis.position
        if p == AT_FAR:
            return "top"
        if p == AT_NEAR:
            return "bottom"
        return "between"

    def get_status(self):
        d = self.axis.get_status()
        d["cycling"] = self.cycling
        d["where"] = self.position()
        return d
