# The four lifts of the four-port machine (docs/SIMULATOR.md §9): one Lift axis per side
# (hw_sim/lift.py: position, switches, current, stall and stuck switches), each carrying
# its own side's wall; the walls reach the table top together once every loaded lift is
# up.  Faults name the side whose lift stalls or misses a switch (`track`).
from hw_sim.lift import Lift, PWM_W, DIR_W
from hw_sim.fourport.motor import MotorLines


class SideLift(Lift):
    def __init__(self, table, k, *, seed, stroke_us, zone_us, current, drive, coast_us=0):
        n = k + 1
        Lift.__init__(self, table, seed=seed, stroke_us=stroke_us, zone_us=zone_us, current=current,
                      coast_us=coast_us, prefix="lift%d" % n, drive=drive, stream=n)
        self.k = k
        self.side = n
        self.kind = "lift%d" % n
        self.motor_lines = MotorLines(table, "lift%d" % n, drive, self, PWM_W, DIR_W)

    def on_start(self, now):
        self.table.fourport.lift_start(self, now)

    # its own side's wall (Lift.at_position moves it at the lift's ends)
    def walls_back_inside(self, load, now):
        self.table.fourport.wall_back_inside(self.k, load, now)

    def walls_onto_lift(self, now):
        return self.table.fourport.wall_onto_lift(self.k, now)

    def walls_to_top(self, load, now):
        self.table.fourport.wall_to_top(self.k, load, now)
