import pytest

from firmware import codes
from firmware.fakes import Rig
from protocol import messages as m

OK = (m.OK, m.NO_FIELD)


def names(rig, kind):
    return rig.rec.named(kind)


def test_self_test_readings_and_pulses():
    r = Rig()
    assert r.ctl.cmd_self_test(m.D_GATE, 0) == (m.E_RANGE, 1)
    assert r.ctl.cmd_self_test(m.D_MIXER, 2) == (m.E_RANGE, 1)
    assert r.ctl.cmd_self_test(m.D_GATE, 3) == OK
    assert r.ctl.state == codes.TESTING and r.pin("gate3").level == 1
    assert r.ctl.cmd_build(1) == (m.E_NOT_ALLOWED, m.NO_FIELD)
    r.run(150)
    assert r.pin("gate3").level == 0 and r.ctl.state == codes.IDLE
    assert names(r, "self_test")[-1] == ("self_test", m.D_GATE, 3, m.TEST_PASS, 0)
    r.hal.i2c().set_colour(1, 0.2, 0.3, 0.5, clear=777)
    r.ctl.cmd_self_test(m.D_COLOUR, 2)
    assert names(r, "self_test")[-1] == ("self_test", m.D_COLOUR, 2, m.TEST_PASS, 777)
    r.hal.i2c().absent[1] = True
    r.ctl.cmd_self_test(m.D_COLOUR, 2)
    assert names(r, "self_test")[-1][3] == m.TEST_FAIL
    r.ctl.cmd_self_test(m.D_LIFT_CURRENT, 0)
    assert names(r, "self_test")[-1][3:] == (m.TEST_PASS, 1000)
    r.ctl.cmd_self_test(m.D_LIFT_BOTTOM, 0)
    assert names(r, "self_test")[-1][3:] == (m.TEST_PASS, 1)
    for kind in range(1, len(m.DEVICES)):
        idx = 1 if kind in m.TRACK_DEVICES else 0
        assert r.ctl.cmd_self_test(kind, idx) == OK, kind
        r.run(200)  # the longest pulse: a whole pusher stroke
        assert r.ctl.state == codes.IDLE
    rp = Rig("pi-reference")
    rp.ctl.cmd_self_test(m.D_DOOR_OPEN, 0)
    assert names(rp, "self_test")[-1][3] == m.TEST_ABSENT


def test_calibrate():
    r = Rig()
    assert r.ctl.cmd_calibrate(1, 1) == (m.E_FAILED, m.NO_FIELD)  # ambient: no tile
    r.hal.i2c().set_colour(0, 0.18, 0.30, 0.52, clear=900)
    assert r.ctl.cmd_calibrate(3, 1) == (m.E_UNSUPPORTED, 0)
    assert r.ctl.cmd_calibrate(1, 1) == OK
    assert r.ctl.colour_refs()[0] == pytest.approx([0.18, 0.30, 0.52], abs=0.01)
    assert names(r, "log")[-1][2].startswith("cal blue t1")
    r.hal.i2c().set_colour(0, 0.22, 0.50, 0.28, clear=900)  # green under it, called blue
    assert r.ctl.cmd_calibrate(1, 1) == (m.E_FAILED, 0)


def test_a_track_the_table_lacks_is_unsupported_for_self_test_as_for_calibrate():
    # SPEC §4: in the field's range (1..8) but beyond this 4-track table
    r = Rig()
    for kind in m.TRACK_DEVICES:
        assert r.ctl.cmd_self_test(kind, 5) == (m.E_UNSUPPORTED, 1), kind
    assert r.ctl.cmd_calibrate(1, 5) == (m.E_UNSUPPORTED, 1)
    assert r.ctl.state == codes.IDLE and names(r, "self_test") == []


def test_a_reading_answers_at_once_without_a_testing_state():
    # its SELF_TEST_RESULT is the reply (before RESULT, SPEC §9): no STATE events around
    # it, so a command never needs more than the two frames the window keeps for it
    r = Rig()
    r.rec.clear()
    assert r.ctl.cmd_self_test(m.D_LIFT_BOTTOM, 0) == OK
    assert [e[0] for e in r.rec.events] == ["self_test"]
    assert r.ctl.cmd_self_test(m.D_GATE, 2) == OK  # a pulse: TESTING until it ends
    assert r.ctl.state == codes.TESTING


# -- SET_CALIBRATION / SET_COLOUR_NAMES (issue 22: calibration reaches the table) --------------
PINK = [0.45, 0.25, 0.30]
YELLOW = [0.40, 0.42, 0.18]


def _flat(*refs):
    return [int(round(v * m.REF_SCALE)) for ref in refs for v in ref]


def _classify(r, track, rgb):
    r.hal.i2c().set_colour(track - 1, rgb[0], rgb[1], rgb[2], clear=900)
    return r.ctl.tracks[track - 1]._read_class()


def test_set_calibration_changes_what_one_track_reads_and_not_the_others():
    r = Rig()
    assert _classify(r, 2, PINK) == 0  # the reference profile has no pink: unknown
    assert r.ctl.cmd_set_calibration(2, 300, _flat(PINK, YELLOW), None) == OK
    assert _classify(r, 2, PINK) == 1 and _classify(r, 2, YELLOW) == 2
    assert _classify(r, 1, PINK) == 0  # track 1 keeps its references
    assert _classify(r, 2, [0.2, 0.3, 0.5]) == 0  # blue is no class of track 2 any more
    assert r.ctl.cmd_set_calibration(0, 300, _flat(PINK, YELLOW), None) == OK  # every track
    assert [_classify(r, k, YELLOW) for k in (1, 2, 3, 4)] == [2, 2, 2, 2]


def test_set_calibration_refuses_what_could_read_one_tile_as_two_colours():
    r = Rig()
    # a radius past half the distance between the references: failed [1], nothing changes
    assert r.ctl.cmd_set_calibration(1, 1200, _flat(PINK, YELLOW), None) == (m.E_FAILED, 1)
    assert _classify(r, 1, [0.2, 0.3, 0.5]) == 1
    assert r.ctl.cmd_set_calibration(1, 300, _flat(PINK), None) == (m.E_RANGE, 2)  # one colour
    assert r.ctl.cmd_set_calibration(1, 300, _flat(PINK, [0.9, 0.9, 0.9]), None) == (m.E_RANGE, 2)
    assert r.ctl.cmd_set_calibration(5, 300, _flat(PINK, YELLOW), None) == (m.E_UNSUPPORTED, 0)
    r.ctl.cmd_mix(0)
    assert r.ctl.cmd_set_calibration(1, 300, _flat(PINK, YELLOW), None) == (m.E_NOT_ALLOWED, m.NO_FIELD)


def test_set_colour_names():
    r = Rig()
    assert r.ctl.cmd_set_calibration(None, None, None, "pink,yellow") == OK
    assert r.ctl.profile["colours"] == ["pink", "yellow"]
    for bad in ("pink", "pink,pink", "pink,unknown", "pink,", "a,b,c"):
        assert r.ctl.cmd_set_calibration(None, None, None, bad) == (m.E_RANGE, 0), bad
    assert r.ctl.profile["colours"] == ["pink", "yellow"]


def test_a_profile_with_references_per_track_classifies_per_track():
    from firmware import profile as fp

    p = fp.load(None)
    p["colours"] = ["pink", "yellow"]
    p["calibration"]["refs"] = {"pink": PINK, "yellow": YELLOW}
    p["calibration"]["max_distance"] = 0.03
    shifted = [0.49, 0.21, 0.30]  # track 3's sensor reads pink redder
    p["calibration"]["tracks"] = [{"refs": {"pink": PINK, "yellow": YELLOW}, "max_distance": 0.03}] * 4
    p["calibration"]["tracks"][2] = {"refs": {"pink": shifted, "yellow": YELLOW}, "max_distance": 0.03}
    r = Rig(fp.validate(p))
    assert _classify(r, 3, shifted) == 1 and _classify(r, 1, shifted) == 0
