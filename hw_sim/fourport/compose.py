# The four-port machine's parts of the table (docs/SIMULATOR.md §9), composed for
# hw_sim/table.py: the disc (the mixer model on its motor's lines), one lift per side
# carrying its own side's wall, the centre panel (the door model) and the dice; and what
# the table asks of them (walls per side, the people's fix-count, the lifts' status).
from hw_sim import mixer as _mixer
from hw_sim.door import Door
from hw_sim.lift import PWM_W, DIR_W
from hw_sim.mixer import Mixer
from hw_sim.fourport.motor import MotorLines
from hw_sim.fourport.lifts import SideLift
from hw_sim.fourport.dice import Dice


class FourPort:
    def __init__(self, table, profile, *, seed, sim, lift_coast, door_coast):
        self.table = table
        t = table
        timings = profile["timings_ms"]
        m = profile["motors"]
        t.mixer = Mixer(t, seed=seed, tracks=t.ntracks, offer_min_us=t.offer_min_us,
                        offer_max_us=t.offer_max_us, prefix="disc")
        self.disc_lines = MotorLines(t, "disc", m["disc"]["drive"], t.mixer, _mixer.PWM_W, _mixer.DIR_W)
        for k in range(t.ntracks):
            t.lifts.append(SideLift(t, k, seed=seed, stroke_us=timings["lift_stroke"] * 1000,
                                    zone_us=sim["limit_zone_ms"] * 1000, current=sim["current"],
                                    drive=m["lift"]["drive"], coast_us=lift_coast))
        t.lift = t.lifts[0]  # (what speaks of "the lift": the first side's)
        t.door = Door(t, move_us=timings["door_move"] * 1000, zone_us=sim["door_zone_ms"] * 1000,
                      prefix="centre", drive=m["centre"]["drive"], coast_us=door_coast)
        self.centre_lines = MotorLines(t, "centre", m["centre"]["drive"], t.door, PWM_W, DIR_W)
        t.dice = Dice(t, m["dice"]["drive"])
        self.loads = [None] * t.ntracks  # walls up already, waiting for the other sides'

    # each side's lift takes its own wall (hw_sim/fourport/lifts.py)
    def wall_onto_lift(self, k, now):
        tr = self.table.tracks[k]
        if not tr.has_tiles():
            return None
        return [tr.take_wall()]

    def wall_to_top(self, k, load, now):
        self.loads[k] = load[0]
        for lf in self.table.lifts:
            if lf.load is not None:
                return  # another side's wall is still on its way up
        walls = [w if w is not None else [] for w in self.loads]
        self.loads = [None] * len(self.loads)
        self.table.walls_to_top(walls, now)

    def wall_back_inside(self, k, load, now):
        self.table.tracks[k].put_wall(load[0])

    def lift_start(self, lift, now):
        t = self.table
        t.faults.on_lift_start(now, lift.direction, t.nbuilds, lift)

    def waiting_tiles(self):
        out = []
        for w in self.loads:
            for st in w or ():
                out.extend(st)
        return out

    def fix_count(self, track):
        """A person turns the counting sensor's potentiometer back (side `track`, 0 = any)."""
        fixed = [tr.n for tr in self.table.tracks if (track in (0, tr.n)) and tr.fix_count()]
        if not fixed:
            raise ValueError("no counting sensor is off its threshold" + (
                " on side %d" % track if track else ""))
        return {"sides": fixed}

    def lift_status(self):
        lifts = self.table.lifts
        d = lifts[0].get_status()
        d["lifts"] = [lf.get_status() for lf in lifts]
        d["raises"] = sum(lf.raises for lf in lifts)
        d["loaded"] = any(lf.load is not None for lf in lifts)
        d["top"] = all(lf.high.level == 0 for lf in lifts)
        d["bottom"] = all(lf.low.level == 0 for lf in lifts)
        return d
