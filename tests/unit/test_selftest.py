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
    assert r.ctl._refs[0] == pytest.approx([0.18, 0.30, 0.52], abs=0.01)
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
