# The centre panel lift: it raises the control panel so the played tiles fall into the
# centre, and lowers it again (centre_open / centre_closed switches; centre_open may be
# null: it opens for timings_ms.door_move).  Usually a reversing relay pair (an AC or DC
# motor), or an H-bridge.  The reference door's motion, on this motor and these switches.
from firmware.drivers.motor import make_motor
from firmware.reference.door import Door


class Centre(Door):
    def __init__(self, profile, hal, sched, clock, ctl):
        motor = make_motor(hal, "centre", profile["motors"]["centre"]["drive"], sched,
                           duty=profile["duty"]["door"])
        Door.__init__(self, profile, hal, sched, clock, ctl, motor=motor, far="centre_open",
                      near="centre_closed")
