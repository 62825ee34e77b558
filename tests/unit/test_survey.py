"""The wiring survey (issue 47 point 4; hostd/bringup/survey.py, the daemon's POST /survey,
hw_sim/rewire.py): on a simulated table wired another way than its profile says (motor
drivers, coils and switches shuffled, DIR senses and normally-closed switches flipped),
a person who presses each switch and says what moved finds the true map; and each answer
the survey must refuse is refused, saying what to do."""
import json
import pathlib

import pytest

from firmware import profile as fprofile
from hostd.bringup import survey as S
from hw_sim.rewire import shuffled

from tests.unit.daemon_harness import Harness

BOARD = pathlib.Path(__file__).resolve().parents[2] / "firmware" / "boards"


@pytest.fixture(autouse=True)
def own_config(tmp_path, monkeypatch):
    """The survey writes the club's profile: into this test's own folder, never the suite's
    (another test reads the shipped profile through the one lookup)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))


def raw(board="reference-18"):
    return json.loads((BOARD / ("%s.json" % board)).read_text())


def words(moved):
    """What the simulated person says they saw: one device, in the survey's words."""
    if not moved:
        return S.NOTHING
    assert len(moved) == 1, moved
    m = moved[0]
    return S.spoken(m["device"]) + (" " + m["motion"] if m["motion"] else "")


class Person:
    """At the simulated table: presses each switch when the survey watches, says what moved."""

    def __init__(self, h):
        self.h = h
        self.d = h.daemon
        self.table = h.sim.table

    def post(self, **body):
        answer, err = self.h.call(self.d.survey(**body), max_s=120)
        if err is not None:
            raise err
        return answer

    def watch_while(self, signal, ms=3000):
        if signal is not None:
            self.table.hold(signal, ms=300, after_ms=200)
        return self.post(action="watch", ms=ms)

    def pulse_and_say(self, pin, hold):
        self.table.look()
        self.post(action="pulse", pin=pin, hold=hold)
        return words(self.table.look())

    def inputs(self, sv, truth):
        """Each input pressed while the survey watches, the motors' supply off (the
        firmware reads the draft's names: a press it takes for a tile on a track would
        have it stroke a stacker)."""
        self.table.set_supply(False)
        self.h.wait_s(0.5)
        for signal, _, _ in sv.cat["inputs"]:
            if truth["pins"].get(signal) is None:
                sv.skip(signal)
                continue
            sv.input_found(signal, self.watch_while(signal))

    def outputs(self, sv, plan):
        if not self.table.supply:
            self.table.set_supply(True)  # (the motors' supply on for the outputs)
            self.h.wait_s(0.5)
        for ch in plan["channels"]:
            sv.output(ch, [self.pulse_and_say(p, hd) for p, hd in S.pulses(ch)])

    def flash(self, path):
        """The profile the survey wrote installed on the (simulated) board: it restarts
        with it, the daemon connects again."""
        sim = self.h.sim
        boots = sim.boots
        sim._fw_profile = fprofile.validate(json.loads(pathlib.Path(path).read_text()))
        sim.reset()
        self.h.settle(until=lambda: self.d.link.connected and sim.boots > boots
                      and self.d.table.identity is not None, max_s=30)
        self.h.wait_s(1.0)

    def survey(self, truth):
        """The whole survey as docs/RETROFIT.md has it: the inputs (written and flashed
        when they were not where the draft said), then the outputs; the map written."""
        plan = self.post(action="plan")
        sv = S.Survey(plan["draft"])
        self.inputs(sv, truth)
        if sv.inputs_moved():
            sv.keep_draft("outputs")
            w = self.post(action="write", pins=sv.pins_map(plan["raw_pins"]))
            self.flash(w["profile"]["path"])
            plan = self.post(action="plan")
            sv = S.Survey(plan["draft"])
            sv.keep_draft("inputs")
            sv.inputs_at_rest(self.post(action="watch", ms=100))
        self.outputs(sv, plan)
        return plan, sv


def rig(tmp_path, seed, board="reference-18"):
    draft = raw(board)
    truth = fprofile.validate(shuffled(draft, seed))
    h = Harness(tmp_path, seed=seed, board=truth, firmware_profile=fprofile.validate(raw(board)),
                ruleset="riichi")
    return h, draft, truth


FOURPORT = pytest.param("fourport-24v", 7, marks=pytest.mark.skipif(
    not (BOARD / "fourport-24v.json").exists(), reason="the four-port family is not here"))


@pytest.mark.parametrize("board,seed", [("reference-18", 3), ("pico-18", 5), FOURPORT])
def test_the_survey_finds_a_shuffled_tables_true_map_and_writes_it(tmp_path, board, seed):
    h, draft, truth = rig(tmp_path, seed, board)
    try:
        if h.status()["state"]["name"] == "table_fault":  # the draft's switches disagree at boot
            h.call(h.daemon.clear_fault())
        p = Person(h)
        plan, sv = p.survey(truth)
        assert plan["board"] == draft["id"] and plan["channels"]
        pins = sv.pins_map(plan["raw_pins"])
        found = fprofile.validate(dict(draft, pins=pins))
        unknown_rest = [n for n, _, rest in sv.cat["inputs"] if rest is None]
        # every motor, coil and switch on its true pin, each the right way round
        for name, n in truth["pins"].items():
            if name == "mixer_dir":  # (nobody can tell a turntable's forward)
                assert found["pins"][name] == n
                continue
            assert found["pins"][name] == n, name
            want = fprofile_invert(truth, name)
            if name not in unknown_rest:  # (a sensor whose level at rest depends on the tiles)
                assert fprofile_invert(found, name) == want, name
        assert truth["pins"] != fprofile.validate(draft)["pins"]  # (it was shuffled)
        # written into the club's copy, with a backup of nothing and a diff
        w = p.post(action="write", pins=pins)
        assert w["written"] and "flash" in w["profile"]["note"] and w["profile"]["backup"]
        assert w["profile"]["path"].startswith(str(tmp_path / "cfg"))
        written = json.loads(pathlib.Path(w["profile"]["path"]).read_text())
        assert fprofile.validate(written)["pins"] == truth["pins"]
        assert "survey" in h.status()["can"]
    finally:
        h.close()


def fprofile_invert(profile, name):
    return bool(((profile.get("pin_options") or {}).get(name) or {}).get("invert"))


def test_refused_an_output_that_moves_nothing_a_switch_that_never_changes_two_answers_for_one_pin(tmp_path):
    h, draft, truth = rig(tmp_path, 3)
    try:
        if h.status()["state"]["name"] == "table_fault":
            h.call(h.daemon.clear_fault())
        p = Person(h)
        plan = p.post(action="plan")
        sv = S.Survey(plan["draft"])
        # a switch nobody touches: nothing changed, nothing recorded
        with pytest.raises(S.SurveyError, match="no input changed"):
            sv.input_found("lift_top", p.watch_while(None, ms=500))
        assert "lift_top" not in sv.found
        got = sv.input_found("lift_top", p.watch_while("lift_top"))
        assert got["pin"] == truth["pins"]["lift_top"]
        # the same switch pressed again for another device: one pin, one device
        with pytest.raises(S.SurveyError, match="already found to be the lift top"):
            sv.input_found("door_open", p.watch_while("lift_top"))
        # the motors' supply off: every channel moves nothing, and is refused
        gate = next(c for c in plan["channels"] if c["kind"] == "plain")
        h.sim.table.set_supply(False)
        with pytest.raises(S.SurveyError, match="moved nothing"):
            sv.output(gate, [p.pulse_and_say(gate["pins"][0], None)])
        h.sim.table.set_supply(True)
        said = p.pulse_and_say(gate["pins"][0], None)
        assert said.startswith(("gate", "stacker", "pusher"))
        sv.output(gate, [said])
        # another coil answered as the same device: two answers for one device
        other = next(c for c in plan["channels"] if c["kind"] == "plain" and c is not gate)
        with pytest.raises(S.SurveyError, match="already found on"):
            sv.output(other, [said])
        # nothing is written while devices are missing
        with pytest.raises(S.SurveyError, match="not found yet"):
            sv.pins_map(plan["raw_pins"])
    finally:
        h.close()


def test_a_pulse_is_refused_with_the_light_curtain_broken_and_moves_nothing(tmp_path):
    h, draft, truth = rig(tmp_path, 3)
    try:
        if h.status()["state"]["name"] == "table_fault":
            h.call(h.daemon.clear_fault())
        ch = next(c for c in S.channels(fprofile.validate(draft)) if c["id"] == "lift")
        h.sim.table.panel.break_guard(h.sim.table.clock.us, 5000)
        h.wait_s(0.1)
        h.sim.table.look()
        answer, err = h.call(h.daemon.survey("pulse", pin=ch["pins"][0], hold=ch["pins"][1]))
        assert err is not None and "light curtain" in str(err) and err.status == 422
        assert h.sim.table.look() == []
        assert h.status()["state"]["name"] == "idle"
    finally:
        h.close()


def test_answers_are_parsed_from_the_catalogue_and_a_wrong_word_names_the_accepted_ones():
    draft = fprofile.load("reference-18")
    cat = S.catalogue(draft)
    assert S.parse_answer(cat, "Lift up") == ("lift", "up")
    assert S.parse_answer(cat, "gate 3") == ("gate3", None)
    assert S.parse_answer(cat, "mixer") == ("mixer", None)
    assert S.parse_answer(cat, "nothing") is None
    with pytest.raises(S.SurveyError, match="lift up, lift down"):
        S.parse_answer(cat, "the big motor")
    # the status light is not surveyed (the firmware lights it whenever the table is idle)
    assert "status light" not in S.answer_words(cat)
    assert all("status_light" not in c["names"] for c in S.channels(draft))


def test_a_driver_whose_dir_changes_nothing_or_that_moves_a_coil_is_refused():
    draft = fprofile.load("reference-18")
    sv = S.Survey(draft)
    lift = next(c for c in S.channels(draft) if c["id"] == "lift")
    with pytest.raises(S.SurveyError, match="both ways"):
        sv.output(lift, ["lift up", "lift up"])
    with pytest.raises(S.SurveyError, match="a coil belongs on a MOSFET"):
        sv.output(lift, ["gate 1", "nothing"])
    with pytest.raises(S.SurveyError, match="one channel drives one device"):
        sv.output(lift, ["door open", "lift up"])
    got = sv.output(lift, ["nothing", "door close"])  # DIR high closes it: wired the other way
    assert got == {"device": "door", "pins": {"door_pwm": lift["pins"][0],
                                              "door_dir": lift["pins"][1]}, "invert": True}
    gate = next(c for c in S.channels(draft) if c["id"] == "gate1")
    with pytest.raises(S.SurveyError, match="one output"):
        sv.output(gate, ["mixer"])


def test_the_guard_must_be_where_the_draft_says_before_anything_moves():
    draft = fprofile.load("reference-18")
    sv = S.Survey(draft)
    lid = draft["pins"]["lid"]
    with pytest.raises(S.SurveyError, match="nothing moves until it is right"):
        sv.input_found("guard_curtain", {"changed": [{"pin": lid, "rest": 1}], "ms": 1000})
    with pytest.raises(S.SurveyError, match="not optional"):
        sv.skip("lift_top")
    sv.skip("door_open")


def test_a_survey_of_one_part_keeps_the_others_pins_and_writes_only_a_whole_map():
    draft = fprofile.load("reference-18")
    raw_pins = raw()["pins"]
    sv = S.Survey(draft)
    sv.keep_draft("inputs")
    with pytest.raises(S.SurveyError, match="not found yet: mixer pwm"):
        sv.pins_map(raw_pins)
    chans = S.channels(draft)
    # the draft's own wiring, answered as a person would see it at rest
    for ch in chans:
        if ch["kind"] == "hbridge":
            motion = {"mixer": ["mixer", "mixer"], "lift": ["nothing", "lift up"],
                      "door": ["nothing", "door open"]}[ch["id"]]
            sv.output(ch, motion)
        else:
            sv.output(ch, [S.spoken(ch["id"])])
    pins = sv.pins_map(raw_pins)
    assert fprofile.validate(dict(raw(), pins=pins))["pins"] == draft["pins"]
    assert pins["status_light"] == raw_pins["status_light"]  # (kept: not surveyed)
    assert pins["watchdog"] == raw_pins["watchdog"]
