# The centre door (docs/SIMULATOR.md "Door"): the Axis motion model of
# hw_sim/lift.py with door_closed / door_open end switches.  Reaching the open
# end drops every tile on the table top into the mixer.
from hw_sim.lift import Axis


class Door(Axis):
    kind = "door"

    def __init__(self, table, *, move_us, zone_us, coast_us=0, prefix="door", drive=None):
        Axis.__init__(self, table, prefix, prefix + "_closed", prefix + "_open", stroke_us=move_us,
                      zone_us=zone_us, coast_us=coast_us, drive=drive)
        self.was_open = False
        self.opens = 0

    def on_start(self, now):
        if self.direction:
            self.table.on_door_start(now)

    def at_position(self, now):
        if self.pos >= self.S - self.Z:
            if not self.was_open:
                self.was_open = True
                self.opens += 1
                self.table.door_opened(now)
        elif self.pos <= self.Z:
            self.was_open = False

    def get_status(self):
        return {
            "position_ms": self.position_ms(),
            "motor": self.motor_on,
            "opening": bool(self.direction),
            "open": self.high.level == 0,
            "closed": self.low.level == 0,
            "opens": self.opens,
        }
