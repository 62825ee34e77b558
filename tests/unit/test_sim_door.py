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


def _open_door(tab, until_us):
    tab.lines["door_dir"].drive(1)
    tab.lines["door_pwm"].drive(45875)
    tab.advance_to(until_us)


def test_manual_players_push_nothing_so_the_door_drops_nothing():
    tab = bare_table(players="manual")
    _open_door(tab, 700_000)
    assert tab.lines["door_open"].level == 0  # open
    assert tab.mixer.count() == 136 and len(tab.top_tiles()) == 136 and tab.hand_overs == 0
    assert tab.push() == 136  # a person's hands: with the door open they fall at once
    assert tab.mixer.count() == 272 and tab.top_tiles() == []


def test_tiles_pushed_onto_the_closed_door_wait_on_its_plate():
    tab = bare_table(players="manual")
    tab.push()
    assert tab.plate and len(tab.top_tiles()) == 136 and tab.mixer.count() == 136
    assert tab.get_status()["plate_tiles"] == 136
    _open_door(tab, 700_000)
    assert tab.mixer.count() == 272 and tab.plate == []


def test_auto_players_push_the_played_hand_not_walls_raised_while_the_door_is_open():
    tab = bare_table()
    played = tab.top_tiles()
    _open_door(tab, 100_000)  # opening: what is on the top now is the played hand
    arriving = [[[900001, 900002]]]  # a wall load the lift brings while the door is open
    tab.top_walls.append(arriving)
    tab.advance_to(700_000)
    assert tab.mixer.count() == 272 and tab.hand_overs == 1
    assert tab.top_tiles() == [900001, 900002]  # the next hand's walls stay on the top
    assert set(played) <= set(tab.mixer.contents())


def test_unknown_players_mode_is_refused():
    import pytest

    with pytest.raises(ValueError, match="auto or manual"):
        bare_table(players="robots")


def test_a_person_can_leave_the_hand_being_played_on_the_top():
    tab = bare_table(players="manual")
    tab.top_walls.append([[[900001, 900002]]])  # the hand in play, raised last
    assert tab.push(keep=1) == 136  # the loose set only
    assert tab.top_tiles()[:2] == [900001, 900002] and len(tab.plate) == 136
