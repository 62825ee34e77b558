"""hw_sim.door: the centre door; opening drops the table top into the mixer."""
from sim_helpers import bare_table


def test_open_drops_the_table_top_and_close():
    tab = bare_table()
    green = len(tab.top_tiles())
    assert green == 136 and tab.mixer.count() == 136
    assert tab.lines["door_closed"].level == 0 and tab.lines["door_open"].level == 1
    tab.lines["door_dir"].drive(1)
    tab.lines["door_pwm"].drive(45875)
    tab.advance_to(589_000)
    assert tab.mixer.count() == 136
    tab.advance_to(590_000)
    assert tab.lines["door_open"].level == 0
    assert tab.mixer.count() == 272 and tab.top_tiles() == [] and tab.hand_overs == 1
    tab.lines["door_pwm"].drive(0)
    tab.lines["door_dir"].drive(0)
    tab.lines["door_pwm"].drive(45875)
    tab.advance_to(2_000_000)
    assert tab.lines["door_closed"].level == 0 and tab.lines["door_open"].level == 1
    st = tab.door.get_status()
    assert st["closed"] and st["opens"] == 1


def test_guard_during_door_fault_schedules_a_break():
    tab = bare_table(faults=("guard:during=door,at=100,ms=50",))
    tab.lines["door_dir"].drive(1)
    tab.lines["door_pwm"].drive(45875)  # before build 1 starts: not this one
    tab.lines["door_pwm"].drive(0)
    assert tab.lines["guard_curtain"].level == 1 and tab.panel.next_us > 10**15
    tab.lines["mixer_pwm"].drive(52428)  # build 1 starts
    tab.lines["mixer_pwm"].drive(0)
    tab.lines["door_pwm"].drive(45875)
    tab.advance_to(99_000)
    assert tab.lines["guard_curtain"].level == 1
    tab.advance_to(100_000)
    assert tab.lines["guard_curtain"].level == 0
    tab.advance_to(151_000)
    assert tab.lines["guard_curtain"].level == 1
