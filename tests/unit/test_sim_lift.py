"""hw_sim.lift: the lift's motion, limit switches, current sense and walls."""
from sim_helpers import bare_table

FULL = 65535


class Edges:
    def __init__(self, tab, name):
        self.tab = tab
        self.got = []
        tab.lines[name].listener = self

    def sim_edge(self, level):
        self.got.append((self.tab.clock.now_us(), level))


def up(tab):
    tab.lines["lift_dir"].drive(1)
    tab.lines["lift_pwm"].drive(FULL)


def test_stroke_and_switches():
    tab = bare_table()
    top = Edges(tab, "lift_top")
    bottom = Edges(tab, "lift_bottom")
    assert tab.lines["lift_bottom"].level == 0 and tab.lines["lift_top"].level == 1
    up(tab)
    tab.advance_to(10_000_000)
    # the bottom switch releases at once, the top one closes 20 ms before the end
    assert bottom.got == [(20_001, 1)]
    assert top.got == [(3_980_000, 0)]
    assert tab.lift.pos == 4_000_000  # driven on into the end stop: the clutch slips
    assert tab.lift.current_u16() < tab.profile["thresholds"]["lift_stall_current_u16"]
    tab.lines["lift_pwm"].drive(0)
    tab.lines["lift_dir"].drive(0)
    tab.lines["lift_pwm"].drive(FULL)
    tab.advance_to(20_000_000)
    assert top.got[-1] == (10_000_000 + 20_001, 1)
    assert bottom.got[-1] == (10_000_000 + 3_980_000, 0)


def test_stopping_mid_stroke_holds_position():
    tab = bare_table()
    up(tab)
    tab.advance_to(1_000_000)
    tab.lines["lift_pwm"].drive(0)
    # its inertia: it coasts to rest in safety.lift_coast_ms, covering half that of travel
    coast = tab.profile["safety"]["lift_coast_ms"]
    tab.advance_to(1_000_000 + coast * 500)
    assert 1000 < tab.lift.position_ms() < 1000 + coast / 2
    tab.advance_to(5_000_000)
    assert tab.lift.position_ms() == 1000 + coast / 2
    assert tab.lift.stopped_us == 1_000_000 + coast * 1000
    assert tab.lift.next_us > 10**15


def test_current_sense_levels():
    tab = bare_table()
    thr = tab.profile["thresholds"]["lift_stall_current_u16"]
    idle = tab.lift.current_u16()
    up(tab)
    tab.advance_to(500_000)
    run = tab.lift.current_u16()
    assert idle < 5000 and 15000 < run < thr
    tab.lift.block_hi = 1_000_000  # an obstruction
    tab.lift.on_output(0, tab.lift.duty)
    tab.advance_to(2_000_000)
    assert tab.lift.pos == 1_000_000 and tab.lift.current_u16() > thr
    assert tab.lines["lift_top"].level == 1


def test_walls_go_up_and_back():
    tab = bare_table()
    tab.tracks[0].wall = [[1, 2]]
    up(tab)
    tab.advance_to(100_000)
    assert tab.lift.load == [[[1, 2]], [], [], []] and not tab.tracks[0].has_tiles()
    tab.lines["lift_dir"].drive(0)  # turns back before the top
    tab.advance_to(1_000_000)
    assert tab.tracks[0].wall == [[1, 2]] and tab.lift.load is None
    tab.lines["lift_dir"].drive(1)
    tab.advance_to(6_000_000)
    assert tab.top_tiles()[-2:] == [1, 2] and tab.lift.raises == 1


def test_low_duty_does_not_move():
    tab = bare_table()
    tab.lines["lift_dir"].drive(1)
    tab.lines["lift_pwm"].drive(3000)
    tab.advance_to(1_000_000)
    assert tab.lift.pos == 0


def test_a_stuck_switch_reads_its_level_until_freed():
    tab = bare_table()
    top = tab.lines["lift_top"]
    tab.lift.force_switch(True, 0)  # the top switch reads pressed with the lift down
    assert top.level == 0 and tab.lines["lift_bottom"].level == 0
    tab.lift.free_switches()
    assert top.level == 1
