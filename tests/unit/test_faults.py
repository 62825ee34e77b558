"""hw_sim.faults: the SPEC grammar, defaults, and each kind's signature at the pins
(with the scripted controller; the firmware's reactions are in test_sim_firmware_faults.py)."""
import pytest

from hw_sim import faults
from hw_sim.faults import KIND_ORDER, parse
from sim_helpers import run_until, scripted, scripted_build, scripted_lift


# -- grammar --------------------------------------------------------------------
def test_every_kind_parses_bare_with_defaults():
    for k in KIND_ORDER:
        f = parse(k)
        assert f.kind == k and f.spec == k
    assert parse("guard").p == {"build": 1, "during": "lift", "at": None, "ms": 200, "input": "curtain"}
    assert parse("limit-stuck").p["state"] == "open"
    assert parse("limit-stuck:switch=bottom").p["state"] == "pressed"
    assert parse("misread:rate=0.1").p["count"] == 0  # a rate means no count limit
    assert parse("noise").p["rate"] == 0.0001


def test_keys_convert():
    f = parse(" jam : track=2 , after=40, count=3 ")
    assert f.p == {"track": 2, "build": 1, "after": 40, "count": 3}
    f = parse("noise:rate=1e-3,ms=500")
    assert f.p["rate"] == 0.001 and f.p["ms"] == 500
    f = parse("guard:during=door,input=lid,at=100,ms=20,build=2")
    assert (f.p["during"], f.p["input"], f.p["at"], f.p["ms"], f.p["build"]) == ("door", "lid", 100, 20, 2)
    f = parse("reset:build=2,during=lift,at=1500")
    assert (f.p["build"], f.p["during"], f.p["at"]) == (2, "lift", 1500)
    f = parse("extra-tile:face=5z,set=green,count=2", colours=["blue", "green"])
    assert f.p["face"] == "5z" and f.p["set"] == "green"


@pytest.mark.parametrize(
    "spec,part,accepted",
    [
        ("jamm", "'jamm'", "jam, missing-tile, extra-tile"),
        ("", "empty", "KIND"),
        ("jam:", "after ':'", "track"),
        ("jam:track", "'track'", "key=value"),
        ("jam:colour=3", "'colour'", "track (a track number"),
        ("jam:track=9", "'track=9'", "1..4"),
        ("jam:track=x", "'track=x'", "a track number"),
        ("jam:track=1,track=2", "'track'", "each key once"),
        ("noise:rate=2", "'rate=2'", "0..1"),
        ("limit-stuck:switch=middle", "'switch=middle'", "top or bottom"),
        ("guard:during=hand", "'during=hand'", "lift or door"),
        ("guard:ms=0", "'ms=0'", "at least 1 ms"),
        ("reset:build=0", "'build=0'", "a build number"),
        ("reset:during=roof", "'during=roof'", "lift or door"),
        ("extra-tile:set=red", "'set=red'", "blue, green"),
        ("unplug:after=-3", "'after=-3'", "tiles into that build"),
        ("dead-gate:track=5", "'track=5'", "1..4"),
        ("dead-gate:after=3", "'after'", "track (a track number"),
        ("jam:build=0", "'build=0'", "a build number"),
    ],
)
def test_bad_specs_name_the_part_and_what_is_accepted(spec, part, accepted):
    with pytest.raises(ValueError) as e:
        parse(spec, tracks=4, colours=["blue", "green"])
    msg = str(e.value)
    assert part in msg and accepted in msg and "accepted" in msg


def test_lift_faults_may_come_at_the_first_stroke_without_a_build():
    assert parse("limit-stuck:build=0,switch=bottom").p["build"] == 0
    assert parse("lift-stall:build=0").p["build"] == 0
    assert parse("dead-gate:track=3").p == {"track": 3}


def test_grammar_text_lists_every_kind():
    g = faults.grammar()
    for k in KIND_ORDER:
        assert k in g


def _colour_classes(t):
    return [c for k in range(4) for c in t.fw.colours[k]]


# -- signatures at the pins -------------------------------------------------------
def test_jam_keeps_the_entry_dark():
    t = scripted(seed=2, faults=("jam:track=2,after=10",))
    t.fw.build(17)
    run_until(t, lambda: False, 25000)
    tr = t.table.tracks[1]
    assert tr.jammed and t.table.lines["entry2"].level == 0
    assert t.fw.building  # the scripted controller does not back off: never done
    f = t.table.faults.faults[0]
    assert len(f.fired) == 1


def test_missing_tile_makes_the_mixer_run_empty_early():
    t = scripted(seed=2, faults=("missing-tile",))
    t.fw.build(17)
    run_until(t, lambda: False, 30000)
    b = t.table.builds[0]
    assert b.supply == 135 and b.count == 135 and t.table.lines["mixer_empty"].level == 1
    assert len(t.table.lost) == 1
    assert "took" in t.table.faults.faults[0].notes[0]


def test_missing_tile_by_face():
    t = scripted(seed=2, faults=("missing-tile:face=5z,count=2",))
    t.fw.build(17)
    run_until(t, lambda: False, 1000)
    assert [t.table.tiles.faces[i] for i in t.table.lost] == ["5z", "5z"]


def test_extra_tile_leaves_the_mixer_not_empty():
    t = scripted(seed=2, faults=("extra-tile",))
    b = scripted_build(t)
    assert b["tiles_per_track"] == [34] * 4 and b["supply"] == 137
    assert t.table.lines["mixer_empty"].level == 0 and t.table.mixer.count() == 1


def test_gate_slow_lets_one_more_tile_in():
    t = scripted(seed=2, faults=("gate-slow:track=3",))
    t.fw.build(17)
    run_until(t, lambda: False, 30000)
    assert t.table.builds[0].tiles[2].__len__() == 35
    assert t.table.faults.slow_used == 1


def test_gate_slow_any_track_takes_the_first_close():
    t = scripted(seed=2, faults=("gate-slow",))
    t.fw.build(17)
    run_until(t, lambda: False, 30000)
    counts = sorted(len(x) for x in t.table.builds[0].tiles)
    assert counts[-1] == 35 and counts[0] == 33


def test_misread_reads_unknown():
    t = scripted(seed=2, faults=("misread:track=1,after=0,count=3",))
    scripted_build(t)
    assert t.fw.colours[0][:3] == [0, 0, 0]
    assert _colour_classes(t).count(0) == 3


def test_misread_rate():
    t = scripted(seed=2, faults=("misread:rate=0.1",))
    scripted_build(t)
    n = _colour_classes(t).count(0)
    assert 3 <= n <= 30
    t2 = scripted(seed=2, faults=("misread:rate=0.1",))
    scripted_build(t2)
    assert _colour_classes(t2) == _colour_classes(t)  # deterministic for a seed


def test_lift_stall_high_current_no_top():
    t = scripted(seed=2, faults=("lift-stall",))
    scripted_build(t)
    t.fw.raise_walls()
    t.run(3000)
    lift = t.table.lift
    assert lift.position_ms() == 2000 - 20 + 20  # stopped at the obstruction (2000 ms of travel)
    assert lift.current_u16() > t.profile["thresholds"]["lift_stall_current_u16"]
    assert t.table.lines["lift_top"].level == 1


def test_limit_stuck_top_never_closes():
    t = scripted(seed=2, faults=("limit-stuck",))
    scripted_build(t)
    t.fw.raise_walls()
    t.run(8000)
    assert t.table.lift.pos == t.table.lift.S and t.table.lines["lift_top"].level == 1


def test_limit_stuck_bottom_stays_pressed():
    t = scripted(seed=2, faults=("limit-stuck:switch=bottom",))
    scripted_build(t)
    t.fw.raise_walls()
    t.run(1000)
    assert t.table.lines["lift_bottom"].level == 0 and t.table.lift.position_ms() > 900


def test_guard_breaks_half_way_through_the_first_lift():
    t = scripted(seed=2, faults=("guard",))
    scripted_build(t)
    t0 = t.now_us()
    t.fw.raise_walls()
    t.run(5000)
    rep = t.report()["safety"]
    assert len(rep) == 1 and rep[0]["latency_ms"] == 0.0
    assert abs(rep[0]["at_s"] * 1e6 - (t0 + 2_000_000)) < 1000
    assert t.fw.halted


def test_reset_reboots_the_controller():
    t = scripted(seed=2, faults=("reset:after=20",))
    t.fw.build(17)
    run_until(t, lambda: t.boots == 2, 20000)
    assert t.boots == 2 and t.resets[0][1] == 2
    assert t.table.builds[0].count == 20
    # all outputs fell to 0 at the reset: the mixer stopped, gates closing
    assert not t.table.mixer.running
    assert all(t.table.lines["gate%d" % k].level == 0 for k in range(1, 5))


@pytest.mark.parametrize("during,at", [("lift", 1500), ("lift", None), ("door", 200)])
def test_reset_during_a_motion_reboots_the_controller_at_that_moment(during, at):
    spec = "reset:during=%s" % during + (",at=%d" % at if at is not None else "")
    t = scripted(seed=2, faults=(spec,))
    scripted_build(t)
    t0 = t.now_us()
    if during == "lift":
        t.fw.raise_walls()
    else:
        t.fw.hand_over()  # the door opens as the lift goes up
    run_until(t, lambda: t.boots == 2, 10000, step_ms=1)
    expect = at if at is not None else (2000 if during == "lift" else 300)  # half the stroke
    assert abs(t.resets[0][0] - (t0 + expect * 1000)) <= 1000
    moving = t.table.lift if during == "lift" else t.table.door
    assert not moving.motor_on  # the reset left the motor off, part way
    assert 0 < moving.position_ms() < (4000 if during == "lift" else 600)
    assert not t.table.lift.motor_on and t.table.lines["lift_top"].level == 1  # not at the top


def test_unplug_and_replug_times():
    t = scripted(seed=2, faults=("unplug:after=5,ms=1500",))
    t.fw.build(17)
    run_until(t, lambda: not t.wire.plugged, 20000)
    t_unplug = t.table.faults.faults[0].fired[0]
    assert t.table.builds[0].count == 5
    run_until(t, lambda: t.wire.plugged, 5000, step_ms=1)
    assert 1_500_000 <= t.now_us() - t_unplug <= 1_501_000
    t.wire.host_write(b"x")
    assert t.wire.down.n == 1


def test_noise_sets_the_line_ber():
    t = scripted(seed=2, faults=("noise:rate=0.01",))
    assert t.wire.ber == 0.01
    t.wire.host_write(bytes(1000))
    data = bytearray(1000)
    t.wire.device.readinto(data)
    assert 40 < sum(bin(b).count("1") for b in data) < 130


def test_faults_without_a_wire_are_noted():
    from sim_helpers import bare_table

    tab = bare_table(faults=("noise",))
    assert "no serial line" in tab.faults.faults[0].notes[0]


def test_supply_off_moves_nothing_the_controller_drives_until_it_is_back():
    """supply-off: the motors' and solenoids' 24 V is cut: the mixer does not turn (no
    tile offered), no gate opens, the lift stays at the bottom and draws its idle current;
    what reads still reads.  With `ms`, everything driven then moves again."""
    t = scripted(seed=2, faults=("supply-off",))
    t.fw.build(17)
    t.run(5000)
    tab = t.table
    assert not tab.mixer.running and all(not tr.gate_open for tr in tab.tracks)
    assert sum(tr.entered for tr in tab.tracks) == 0
    t.fw.raise_walls()
    t.run(3000)
    assert tab.lift.position_ms() == 0 and tab.lines["lift_bottom"].level == 0
    assert tab.lift.current_u16() < tab.lift.cur_run
    assert tab.lines["guard_curtain"].level == 1  # the curtain reads as ever
    back = scripted(seed=2, faults=("supply-off:ms=1000",))
    back.fw.build(17)
    back.run(6000)
    assert back.table.mixer.running and sum(tr.entered for tr in back.table.tracks) > 0
    assert back.table.faults.faults[0].fired == [0]
