# The centre door: opens so played tiles fall into the mixer
# (docs/ARCHITECTURE.md §4: door_pwm/door_dir, dir 1 = open; door_closed and
# door_open pressed = 0).  door_open may be null in a profile: the door then
# opens for timings_ms.door_move and counts as open.
from firmware.drivers.motor import DCMotor
from firmware.drivers.motion import EndMotion, FAR, NEAR, AT_FAR, AT_NEAR
from firmware import codes
from protocol import messages as _m


class Door:
    def __init__(self, profile, hal, sched, clock, ctl, *, motor=None, far="door_open", near="door_closed"):
        # motor, far, near: another family's (the four-port centre panel, docs/FIRMWARE.md §11)
        t = profile["timings_ms"]
        o = profile["timeouts_ms"]
        self._ctl = ctl
        if motor is None:
            motor = DCMotor(hal.pwm("door_pwm"), hal.output("door_dir"), duty=profile["duty"]["door"])
        self._arrive_cb = self._arrive
        self._fault_cb = self._fault
        release = o["limit_release"]
        if release >= o["door"]:
            release = o["door"] - 1
        self.axis = EndMotion(
            motor, hal.input(far), hal.input(near), sched, clock,
            timeout_ms=o["door"], release_ms=release, poll_ms=t["poll"],
            travel_ms=t["door_move"], on_arrive=self._arrive_cb, on_fault=self._fault_cb)
        # pending(): an arrival or a halt for service() to finish (the axis's own,
        # bound once: the controller asks after every IRQ)
        self.pending = self.axis.pending
        # without an open switch: open after a timed move, until told to close
        self.timed_open = False
        self._seen = -1  # the motion and timed_open as state_changed() last saw them

    def state(self):
        a = self.axis
        if a.moving:
            return _m.DOOR_MOVING
        closed = a.near_pressed()
        if a.far is None:
            if self.timed_open and not closed:
                return _m.DOOR_OPEN
            return _m.DOOR_CLOSED if closed else _m.DOOR_UNKNOWN
        opened = a.far.pressed()
        if closed != opened:
            return _m.DOOR_CLOSED if closed else _m.DOOR_OPEN
        return _m.DOOR_UNKNOWN

    def state_changed(self):
        """True when state() may differ from when this was last called: an edge
        of a door switch (their IRQs set `changed`; lowered here, before state()
        reads them), or a motion that started or ended, or the timed-open flag.
        Nothing else changes state(): the controller looks only then (it asks
        after every IRQ)."""
        a = self.axis
        seen = a.moving | (4 if self.timed_open else 0)
        ch = seen != self._seen
        self._seen = seen
        sw = a.far
        if sw is not None and sw.changed:
            sw.changed = False
            ch = True
        sw = a.near
        if sw is not None and sw.changed:
            sw.changed = False
            ch = True
        return ch

    def closed(self):
        return self.axis.moving == 0 and self.axis.near_pressed()

    def moving(self):
        return self.axis.moving != 0

    def open(self):
        self.timed_open = False
        return self.axis.move(FAR)

    def close(self):
        self.timed_open = False
        return self.axis.move(NEAR)

    def halt(self):
        self.axis.halt()

    def stop(self):
        self.axis.stop()

    def service(self):
        return self.axis.service()

    def _arrive(self, direction):
        if direction == FAR and self.axis.far is None:
            self.timed_open = True
        self._ctl.on_door_arrived(direction == FAR)

    def _fault(self, code):
        # the door has no current sense; a switch problem on the door is DOOR
        self._ctl.on_mech_fault(codes.FAULT_DOOR, 0, self.axis.fail_ms)

    def get_status(self):
        d = self.axis.get_status()
        d["state"] = ("closed", "open", "moving", "unknown")[self.state()]
        return d
