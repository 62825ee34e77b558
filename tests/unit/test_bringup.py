"""hostd.core.bench + hostd.bringup.selftest: `jantaku selftest` and `jantaku calibrate` as the daemon
runs them, against the in-process simulated table in virtual time (so measured strokes are
the simulated table's, to the millisecond)."""
import json

import pytest

from daemon_harness import Harness
from hostd.bringup.selftest import SelfTest
from hostd.core import bench as bringup

PINK = [0.45, 0.25, 0.30]
YELLOW = [0.40, 0.42, 0.18]
CLUB = {"set_colours": [["pink", PINK], ["yellow", YELLOW]], "sensor_bias_pm": 20}


@pytest.fixture(autouse=True)
def cfg(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    return tmp_path / "cfg" / "jantaku" / "boards"


@pytest.fixture
def harness(tmp_path):
    made = []

    def make(**kw):
        h = Harness(tmp_path, seed=kw.pop("seed", 3), **kw)
        made.append(h)
        return h

    yield make
    for h in made:
        h.close()


def selftest(h, **kw):
    rep, err = h.call(h.daemon.bench_step("selftest", bringup.selftest(**kw)), max_s=120)
    assert err is None, err
    return rep


def by(rep, device, track=None):
    return [d for d in rep["devices"] if d["device"] == device and d["track"] == track]


def results(rep):
    """{result: {devices}}: what each device read."""
    out = {}
    for d in rep["devices"]:
        out.setdefault(d["result"], set()).add(d["device"])
    return out


# what nothing senses: pulsed, never confirmed (a person watches or listens)
UNSENSED = {"pusher", "status_light"}


def test_a_healthy_table_passes_every_device_with_its_readings_and_profile_values(harness):
    h = harness()
    rep = selftest(h)
    assert rep["ok"] and rep["failed"] == 0 and rep["skipped"] == []
    # the mixer and the stackers confirmed by the gate test's tiles; the rest: pulsed
    assert results(rep) == {"ok": results(rep)["ok"], "pulsed": UNSENSED}
    assert {"mixer", "stacker"} <= results(rep)["ok"] and rep["pulsed"] == 4 + 1  # pushers, light
    assert "tiles reached the entries" in by(rep, "mixer")[0]["message"]
    assert "4 tiles entered track 2" in by(rep, "stacker", 2)[0]["message"]
    assert by(rep, "pusher", 1)[0]["message"].startswith("pulsed (not confirmed)")
    names = {d["device"] for d in rep["devices"]}
    assert {"curtain", "lid", "lift_bottom", "lift_top", "door_closed", "entry", "colour",
            "lift_current", "mixer", "stacker", "pusher", "gate", "lift", "door"} <= names
    assert len(by(rep, "gate", 3)) == 1 and by(rep, "gate", 3)[0]["reading"]["tiles"] == 4
    lift = by(rep, "lift")[0]
    # the simulated lift travels the profile's 4000 ms (plus the end switch's zone and a poll)
    assert 3900 <= lift["reading"]["up_ms"] <= 4100 and lift["profile"]["lift_stroke_ms"] == 4000
    # the table's own report: the running current, against the stall threshold
    assert 0 < lift["reading"]["peak_current_up"] < 0.8 * lift["profile"]["stall_current"]
    door = by(rep, "door")[0]
    assert 550 <= door["reading"]["open_ms"] <= 700 and door["profile"]["door_move_ms"] == 600
    colour = by(rep, "colour", 1)[0]
    assert colour["reading"] < colour["profile"]["min_clear"]
    # the gate test's sixteen tiles went up with the lift stroke, and back into the centre
    # while the door test held it open: the table is as it was
    assert "16 tile(s)" in rep["tiles"] and "pushed them back into the centre" in rep["tiles"]
    assert h.daemon.table.state == "idle" and not h.daemon.table.walls_inside()
    assert len(h.sim.table.top_tiles()) == 0
    assert h.driven() == []


def test_a_dead_gate_is_failed_on_its_track_and_only_there(harness):
    h = harness(faults=("dead-gate:track=3",))
    rep = selftest(h)
    assert not rep["ok"] and rep["failed"] == 1
    g3 = by(rep, "gate", 3)[0]
    assert g3["result"] == "failed" and "does not open" in g3["message"]
    assert all(by(rep, "gate", k)[0]["result"] == "ok" for k in (1, 2, 4))
    assert by(rep, "lift")[0]["result"] == "ok"  # the test goes on and raises the other tiles
    # one device alone
    rep = selftest(h, device="gate", track=3)
    assert [(d["device"], d["track"], d["result"]) for d in rep["devices"]] == [("gate", 3, "failed")]


def test_a_stuck_switch_and_a_weak_lift_fail_the_lift_and_leave_the_door_untested(harness):
    for seed, fault, kind in ((3, "limit-stuck:build=0,switch=bottom", "limit"),
                              (4, "lift-stall:build=0", "lift-stall")):
        h = harness(faults=(fault,), seed=seed)
        rep = selftest(h, device=None)
        lift = by(rep, "lift")[0]
        assert lift["result"] == "failed" and lift["fault"] == kind, fault
        assert [s["device"] for s in rep["skipped"]] == ["door"]
        assert "clear-fault" in rep["skipped"][0]["why"]
        assert not rep["ok"]


@pytest.mark.parametrize("switch, level, said", [
    ("top", 0, "top switch reads pressed with the lift at rest: a stuck switch"),
    ("bottom", 1, "bottom switch is not pressed with the lift at rest"),
])
def test_a_lift_switch_wrong_at_rest_is_failed_with_what_it_means(harness, switch, level, said):
    h = harness()
    lift = h.sim.table.lift
    lift.force_switch(switch == "top", level)
    rep = selftest(h, device=None)
    entry = by(rep, "lift_" + switch)[0]
    assert entry["result"] == "failed" and said in entry["message"]
    assert entry["reading"] == 1 - level and entry["profile"] == level  # pin 0 = pressed = 1
    assert not rep["ok"]


def test_an_open_guard_moves_nothing(harness):
    h = harness()
    h.sim.table.panel.break_guard(h.sim.now_us() + 1000, 600_000)  # a person leans in
    h.wait_s(0.1)
    rep = selftest(h)
    assert by(rep, "curtain")[0]["result"] == "failed"
    assert {s["device"] for s in rep["skipped"]} >= {"mixer", "gate", "lift", "door"}
    assert not any(d["device"] in ("gate", "lift", "door", "mixer") for d in rep["devices"])
    assert h.sim.table.lift.raises == 0 and h.driven() == []


def test_refused_while_a_session_is_open_and_bad_input_before_anything_moves(harness):
    h = harness()
    h.call(h.daemon.start_session("riichi", True))
    h.settle()
    _, err = h.call(h.daemon.bench_step("selftest", bringup.selftest()))
    # refused with the state's name, saying what to do
    assert err.status == 409 and err.code == "built" and "a session is open: end it" in str(err)
    h.call(h.daemon.end_session(empty=True))
    h.settle()
    _, err = h.call(h.daemon.bench_step("selftest", bringup.selftest(device="wheel")))
    assert err.status == 400 and "accepted: curtain" in str(err)
    _, err = h.call(h.daemon.bench_step("selftest", bringup.selftest(device="gate", track=7)))
    assert err.status == 400 and "1..4" in str(err)


def test_measured_strokes_are_written_with_margins(harness, cfg):
    h = harness()
    rep = selftest(h, write_timings=True)
    t = rep["timings"]
    assert t["written"] and t["path"] == str(cfg / "reference-18.json")
    ch = t["changes"]
    stroke = ch["timings_ms.lift_stroke"]["now"]
    assert 3900 <= stroke <= 4100 and ch["timings_ms.lift_stroke"]["was"] == 4000
    assert ch["timeouts_ms.lift"]["now"] == max(int(stroke * 1.5), stroke + 500)
    prof = json.load(open(t["path"]))
    assert prof["timings_ms"]["lift_stroke"] == stroke
    assert "+  " in t["diff"] and "flash" in t["note"]


def test_calibration_then_a_mixed_deck_session_counts_every_colour(harness, cfg):
    h = harness(sim=CLUB, colours=("pink", "yellow"))
    _, err = h.call(h.daemon.start_session("riichi", True))
    assert err is not None and "pink" in str(err)  # the table knows blue and green only
    rep, err = h.call(h.daemon.bench_step("calibrate", bringup.calibration(["pink", "yellow"])),
                      max_s=300)
    assert err is None, err
    assert rep["ok"] and len(rep["tracks"]) == 4
    assert all(t["separation"] >= 2.0 and t["readings"] == {"pink": 34, "yellow": 34}
               for t in rep["tracks"])
    assert rep["profile"]["path"] == str(cfg / "reference-18.json")
    assert '+    "pink"' in rep["profile"]["diff"]
    assert h.daemon.table.identity["colours"] == ["pink", "yellow"]
    # the sets are back where they were: yellow on the table top, pink in the mixer
    top = h.sim.table.top_tiles()
    assert len(top) == 136 and {h.sim.table.tiles.colour(t) for t in top} == {"yellow"}
    answer, err = h.call(h.daemon.start_session("riichi", True))
    assert err is None, err
    h.settle()
    decks = h.status()["session"]["decks"]
    backs = [decks[d]["backs"] for d in ("A", "B")]
    assert sum(b.get("pink", 0) for b in backs) == 136
    assert sum(b.get("yellow", 0) for b in backs) == 136
    assert all("unknown" not in b for b in backs)


def test_both_sets_mixed_are_read_first_and_named_after(harness, cfg):
    """Both sets in the mixer: one pass, two classes shown (tiles, mean colour, a swatch),
    nothing written until people say which is which; a wrong answer is put right from the
    same reading, and the names can be swapped from the profile alone."""
    h = harness(sim=CLUB, colours=("pink", "yellow"), mixed_loading=True)
    builds = len(h.sim.table.builds)
    rep, err = h.call(h.daemon.calibrate(["pink", "yellow"]), max_s=300)
    assert err is None, err
    assert rep["ok"] and not rep["named"] and rep["mode"] == "mixed"
    assert len(h.sim.table.builds) == builds + 1  # one pass
    assert not (cfg / "reference-18.json").exists()  # nothing written before the names
    c1, c2 = rep["classes"]
    assert c1["tiles"] + c2["tiles"] == 136 and c1["swatch"].startswith("#")
    st = h.status()
    assert st["next"]["code"] == "name_sets" and st["next"]["action"] == "name_sets"
    assert "name_sets" in st["can"] and st["next"]["params"]["classes"] == rep["classes"]
    assert len(h.sim.table.top_tiles()) == 0  # the walls went back into the centre
    pink_first = abs(c1["mean"][1] - PINK[1]) < 0.05
    truth = ["pink", "yellow"] if pink_first else ["yellow", "pink"]
    wrong, err = h.call(h.daemon.name_sets(truth[::-1]))
    assert err is None and wrong["ok"] and wrong["named"]
    assert abs(wrong["refs"]["pink"][1] - YELLOW[1]) < 0.05  # named the wrong way round...
    right, err = h.call(h.daemon.name_sets(truth))  # ...put right: nothing read again
    assert err is None and right["ok"] and len(h.sim.table.builds) == builds + 1
    assert abs(right["refs"]["pink"][1] - PINK[1]) < 0.05
    assert abs(right["refs"]["yellow"][1] - YELLOW[1]) < 0.05
    assert right["profile"]["backup"]  # the wrong file kept, as every write does
    assert h.status()["next"]["code"] == "start_session" and h.daemon.colours == tuple(truth)
    swapped, err = h.call(h.daemon.name_sets(swap=True))  # from the profile alone
    assert err is None and swapped["ok"] and swapped["swapped"]
    prof = json.load(open(cfg / "reference-18.json"))
    assert abs(prof["calibration"]["refs"]["pink"][1] - YELLOW[1]) < 0.05
    h.call(h.daemon.name_sets(swap=True))  # and back
    answer, err = h.call(h.daemon.start_session("riichi", True))
    assert err is None, err
    h.settle()
    decks = h.status()["session"]["decks"]
    backs = [decks[d]["backs"] for d in ("A", "B")]
    assert sum(b.get("pink", 0) for b in backs) == 136 and all("unknown" not in b for b in backs)


def test_sets_too_close_are_refused_and_nothing_is_written(harness, cfg):
    h = harness(sim={"set_colours": [["pink", PINK], ["salmon", [0.44, 0.27, 0.29]]]},
                colours=("pink", "salmon"))
    rep, err = h.call(h.daemon.bench_step("calibrate", bringup.calibration(["pink", "salmon"])),
                      max_s=300)
    assert err is None and not rep["ok"]
    assert "separation" in rep["refused"] and all(t["separation"] < 2 for t in rep["tracks"])
    assert not (cfg / "reference-18.json").exists()
    assert h.daemon.table.identity["colours"] == ["blue", "green"]


def test_a_lift_drawing_near_its_stall_current_fails_with_the_reading(harness):
    h = harness(sim={"current": {"idle": 2000, "run": 46000, "stall": 60000, "noise": 800}})
    rep = selftest(h, device="lift")
    lift = by(rep, "lift")[0]
    assert lift["result"] == "failed" and "stall" in lift["message"]
    assert lift["reading"]["peak_current_up"] >= 0.8 * 52000 and not rep["ok"]


def test_the_sets_calibrated_are_the_sessions_sets_from_then_on(harness, cfg):
    h = harness(sim=CLUB, colours=("pink", "yellow"))
    h.daemon.colours = ("blue", "green")  # `run --colours`' default, before the calibration
    st = h.status()
    assert st["next"]["params"]["colours"] == ["blue", "green"]
    rep, err = h.call(h.daemon.calibrate(["pink", "yellow"]), max_s=300)
    assert err is None and rep["ok"], err
    st = h.status()
    # what to do next names the calibrated sets, and a start without --colours uses them
    assert st["next"]["code"] == "start_session"
    assert st["next"]["params"]["colours"] == ["pink", "yellow"]
    assert "pink and yellow" in st["next"]["text"]
    answer, err = h.call(h.daemon.start_session("riichi", True))
    assert err is None and answer["sets"] == ["pink", "yellow"]
    h.settle()
    assert h.status()["state"]["name"] == "built"


def test_a_table_with_normally_closed_switches_passes_as_its_profile_says(harness, cfg):
    """The club's profile gives the lift's and the door's switches as normally closed
    ({"invert": true}): the self-test's at-rest readings are the switches' meaning (the
    lift's bottom switch pressed), not the wire's level, and every device passes."""
    with open(bringup.boardfile.builtin_path("reference-18")) as f:
        raw = json.load(f)
    for name in ("lift_top", "lift_bottom", "door_closed", "door_open"):
        raw["pins"][name] = {"pin": raw["pins"][name], "invert": True, "pull": "up"}
    cfg.mkdir(parents=True, exist_ok=True)
    (cfg / "reference-18.json").write_text(json.dumps(raw))
    h = harness(board=raw)
    rep = selftest(h)
    assert rep["ok"] and set(results(rep)) == {"ok", "pulsed"}, rep["devices"]
    assert results(rep)["pulsed"] == UNSENSED
    assert by(rep, "lift_bottom")[0]["reading"] == 1 and by(rep, "lift_top")[0]["reading"] == 0
    assert h.sim.machine.Pin(raw["pins"]["lift_bottom"]["pin"]).value() == 1  # the wire: NC open, high
    assert h.sim.table.wiring == []


def test_the_pico_boards_self_test_passes_through_its_expander(harness):
    """pico-18: the solenoids, the door's switches, the buttons and the mixer's empty
    sensor are on an I2C expander; the self-test reads and pulses them there and every
    device passes, the door's stroke measured through the expander's polls."""
    h = harness(board="pico-18")
    rep = selftest(h)
    assert rep["ok"] and results(rep)["pulsed"] == UNSENSED, rep["devices"]
    assert {"stacker", "mixer"} <= results(rep)["ok"]  # (the stackers on the expander)
    assert {"stacker", "pusher", "door_closed", "door"} <= {d["device"] for d in rep["devices"]}
    door = by(rep, "door")[0]
    assert 550 <= door["reading"]["open_ms"] <= 720, door  # a poll (10 ms) later at most
    assert h.sim.table.wiring == [] and h.sim.fw.hal.expanders[0].errors == 0


def test_a_daemon_restarted_without_colours_takes_the_calibrated_sets_from_the_table(harness, cfg):
    """`jantaku calibrate --sets pink,yellow`, then the daemon restarted as the service runs
    it (no --colours): it takes the sets from the table's handshake, which names the
    calibrated classes, and opens sessions with pink and yellow."""
    h = harness(sim=CLUB, colours=("pink", "yellow"))
    h.daemon_colours = None
    h.restart()
    assert h.daemon.colours == ("blue", "green")  # the reference profile's, from the table
    rep, err = h.call(h.daemon.calibrate(["pink", "yellow"]), max_s=300)
    assert err is None and rep["ok"], err
    h.restart()  # the service restarted: no --colours
    h.settle(until=lambda: h.daemon.link.connected and h.daemon.table.identity is not None)
    assert h.daemon.colours == ("pink", "yellow")
    assert h.status()["next"]["params"]["colours"] == ["pink", "yellow"]
    answer, err = h.call(h.daemon.start_session("riichi", True))
    assert err is None and answer["sets"] == ["pink", "yellow"]
    h.settle()
    assert h.status()["state"]["name"] == "built"


def test_the_stop_is_measured_with_a_test_rod_and_passes_only_under_the_profiles_limits(harness):
    """`jantaku selftest --device guard_stop` (issue 48): the table asks for the test rod
    and waits; the person says ready with the start button; the lift rises and the rod
    breaks the curtain 1.5 s into the stroke.  The firmware times the stop: its motor off at
    the break, the safety relay's cut its release time later; the last movement is the
    profile's coast after the motor off, the overrun in mm the stroke's speed over that.
    Passed under the profile's limits; a tighter limit fails it, naming the figure; nobody
    confirming leaves the lift where it was; nobody breaking the curtain fails."""
    h = harness()
    tab = h.sim.table
    sf = tab.profile["safety"]
    now = h.sim.now_us()
    tab.panel.press("start", now + 500_000, 150)  # ready: the rod is held by the opening
    tab.panel.break_guard(now + 2_000_000, 300)  # the rod into the curtain as the lift rises
    rep = selftest(h, device="guard_stop")
    d = by(rep, "guard_stop")[0]
    assert d["result"] == "ok" and rep["ok"], rep
    r = d["reading"]
    assert 1350 <= r["stopped_after_ms"] <= 1550, d
    assert r["break_to_off_ms"] < 1 and r["break_to_cut_ms"] == sf["relay_ms"]
    assert r["break_to_last_movement_ms"] == r["break_to_off_ms"] + sf["lift_coast_ms"]
    speed = sf["lift_travel_mm"] / tab.profile["timings_ms"]["lift_stroke"]
    assert r["overrun_mm"] == round(speed * (r["break_to_off_ms"] + sf["lift_coast_ms"] / 2), 2)
    assert "stopped the lift" in d["message"] and "safety relay cut the supply" in d["message"]
    # the simulated table's own record agrees: the lift's motor off at the break, at rest
    # after the coast, having run on what the reading says
    rec = h.sim.report()["safety"][-1]
    assert rec["latency_ms"] == 0 and rec["stop_ms"] == r["break_to_last_movement_ms"]
    stroke_mm = sf["lift_travel_mm"] / tab.profile["timings_ms"]["lift_stroke"]
    assert abs(rec["run_on_ms"] * stroke_mm - r["overrun_mm"]) < 0.05
    assert h.daemon.table.state == "idle" and tab.lift.get_status()["bottom"]
    # a tighter limit than this table's stop fails it, naming the figure
    prof = dict(tab.profile, safety=dict(sf, overrun_limit_mm=0.5))
    e = SelfTest._stop_entry({"at_ms": 1500, "off_ms": 0.0, "cut_ms": 20.0}, 1500,
                                     {}, prof["safety"], tab.profile["timings_ms"]["lift_stroke"])
    assert e["result"] == "failed" and "over the 0.5 mm limit (safety.overrun_limit_mm)" in e["message"]
    e = SelfTest._stop_entry({"at_ms": 1500, "off_ms": 0.0, "cut_ms": None}, 1500,
                                     {}, sf, tab.profile["timings_ms"]["lift_stroke"])
    assert e["result"] == "failed" and "relay's feedback never went off" in e["message"]
    # nobody says ready: the lift does not move
    rep = selftest(h, device="guard_stop")
    d = by(rep, "guard_stop")[0]
    assert d["result"] == "failed" and "nobody confirmed the test rod" in d["message"]
    assert tab.lift.raises == 1 or tab.lift.get_status()["bottom"]
    # ready, but nobody breaks the curtain: failed, saying what that means
    tab.panel.press("start", h.sim.now_us() + 500_000, 150)
    rep = selftest(h, device="guard_stop")
    d = by(rep, "guard_stop")[0]
    assert d["result"] == "failed" and "nobody broke the light curtain" in d["message"]
    assert tab.lift.get_status()["bottom"] and h.daemon.table.state == "idle"


def _no_contradiction(h):
    """What the state asks is accepted: the fault's action and next's action are in can,
    and next's words name no command its action is not."""
    st = h.status()
    f, nxt = st["fault"], st["next"]
    if f and f.get("action"):
        assert f["action"] in st["can"], (f, st["can"])
    if nxt["action"]:
        assert nxt["action"] in st["can"], (nxt, st["can"])
    if "then continue" in nxt["text"] or "then continue" in ((f or {}).get("todo") or ""):
        assert "continue" in st["can"], (nxt, f, st["can"])
    return st


def test_selftest_then_calibrate_on_a_loaded_table_is_no_dead_end(harness, cfg):
    """Issue 49's first finding: a self-test on a table loaded one set at a time (pink in
    the mixer, yellow on top; its door test opens the centre, and the simulated people
    push in whatever is on the table top), then `calibrate --sets pink,yellow`: the
    calibration takes the table as the self-test left it (both sets in the mixer: one pass,
    then people say which is which), and a Mixed Deck session follows."""
    h = harness(sim=CLUB, colours=("pink", "yellow"))
    rep, err = h.call(h.daemon.selftest(), max_s=300)
    assert err is None and rep["ok"], err
    _no_contradiction(h)
    assert len(h.sim.table.mixer.order) - h.sim.table.mixer.head == 272  # both sets in it now
    rep, err = h.call(h.daemon.calibrate(["pink", "yellow"]), max_s=600)
    assert err is None, err
    assert rep["ok"] and rep["mode"] == "mixed" and not rep["named"]
    st = _no_contradiction(h)
    assert st["state"] == dict(st["state"], name="idle") and st["next"]["code"] == "name_sets"
    c1 = rep["classes"][0]
    names = ["pink", "yellow"] if abs(c1["mean"][1] - PINK[1]) < 0.05 else ["yellow", "pink"]
    rep, err = h.call(h.daemon.name_sets(names))
    assert err is None and rep["ok"] and rep["profile"]["path"] == str(cfg / "reference-18.json")
    _no_contradiction(h)
    answer, err = h.call(h.daemon.start_session("riichi", True))
    assert err is None, err
    h.settle()
    assert h.status()["state"]["name"] == "built"


def test_a_fault_that_stops_a_calibration_is_the_tables_fault_with_its_own_words(harness):
    """A track that jams during a calibration's pass: the answer names the jam and what to
    do (take the tile out, clear the fault, calibrate again), never another device; the
    state is the table's fault, its action clear_fault in `can`; continue is refused with
    words that name what is accepted."""
    h = harness(faults=("jam:build=1,track=2,after=20,count=0",))
    _, err = h.call(h.daemon.calibrate(["blue", "green"]), max_s=300)
    assert err is not None and err.code == "fault_jam", err
    text = str(err)
    assert "track 2" in text and "nothing was written" in text
    assert "take the stuck tile out of track 2 by hand, then clear the fault, then calibrate " \
           "again" in text and "selftest" not in text
    assert err.details["next"]["action"] == "clear_fault"
    st = _no_contradiction(h)
    assert st["state"]["name"] == "table_fault" and st["fault"]["action"] == "clear_fault"
    assert "selftest" in st["can"]  # the table's devices can be read meanwhile
    rep, err = h.call(h.daemon.selftest(), max_s=300)
    assert err is None and {"curtain", "entry", "colour"} <= {d["device"] for d in rep["devices"]}
    assert {s["device"] for s in rep["skipped"]} == {"gate", "lift", "door"}  # nothing moves
    assert all("clear-fault" in s["why"] for s in rep["skipped"])
    assert _no_contradiction(h)["state"]["name"] == "table_fault"
    _, err = h.call(h.daemon.continue_())
    assert err.status == 409 and "then continue" not in str(err)
    assert "clear the fault" in str(err)
    h.sim.table.hand("clear-jam", track=2)
    h.wait_s(1.0)
    _, err = h.call(h.daemon.clear_fault())
    assert err is None, err
    st = _no_contradiction(h)
    assert st["state"]["name"] == "idle" and "calibrate" in st["can"]


def test_a_surplus_left_by_an_aborted_session_is_cleared_as_its_words_say(harness):
    """Issue 49: after `abort` over a surplus stop, the table still reports its fault:
    the state is table_fault, which takes clear_fault and not continue, and neither the
    fault nor next nor the refusal of continue says "then continue"."""
    h = harness(faults=("extra-tile:build=1,count=2",))
    h.call(h.daemon.start_session("riichi", False))
    h.settle()
    st = h.status()
    assert st["state"]["name"] == "stopped" and st["fault"]["kind"] == "surplus", st["next"]
    h.call(h.daemon.abort())
    st = _no_contradiction(h)
    assert st["state"]["name"] == "table_fault" and st["can"][:2] == ["clear_fault", "abort"]
    assert "then clear the fault" in st["next"]["text"] and "then continue" not in st["next"]["text"]
    _, err = h.call(h.daemon.continue_())
    assert err.status == 409 and "then continue" not in str(err), str(err)


def test_with_the_motors_supply_off_nothing_reads_ok_that_did_not_move(harness):
    """The 24 V for the motors and solenoids off (the simulator's supply-off): every
    reading is ok, but no motion is: the gates and the mixer fail (no tile came), the lift
    fails (it never left its switch), the stackers and pushers stay pulsed, not confirmed."""
    h = harness(faults=("supply-off",))
    rep = selftest(h)
    res = results(rep)
    assert not res.get("ok", set()) & {"mixer", "stacker", "pusher", "gate", "lift", "door",
                                       "status_light"}, rep["devices"]
    assert {"gate", "mixer", "lift"} <= res["failed"] and {"stacker", "pusher"} <= res["pulsed"]
    assert "motors' supply" in by(rep, "mixer")[0]["message"]
    assert {"curtain", "lid", "lift_bottom", "entry", "colour", "lift_current"} <= res["ok"]
    assert not rep["ok"] and h.sim.table.lift.raises == 0
    # and the state asks for what it takes: the table's fault, cleared once people fix it
    st = _no_contradiction(h)
    assert st["state"]["name"] in ("idle", "table_fault")


def test_the_lifts_current_sense_is_confirmed_by_its_stroke(harness):
    """Where there is a current sense, the lift's stroke confirms it: the motor drew more
    than at rest.  A sense that reads the same running as at rest (not on the motor's
    supply) fails the lift, though its switches say it moved."""
    h = harness()
    lift = by(selftest(h, device=None), "lift")[0]
    assert lift["result"] == "ok" and "its motor drew" in lift["message"]
    h = harness(sim={"current": {"idle": 2000, "run": 2200, "stall": 60000, "noise": 100}}, seed=5)
    rep = selftest(h)
    lift = by(rep, "lift")[0]
    assert lift["result"] == "failed" and "no more than at rest" in lift["message"], lift


def test_where_a_calibration_left_the_sets_is_where_the_next_start_finds_them(harness):
    """Read one set at a time, the sets end as the normal rotation starts (the set read
    first in the mixer): a normal start builds it at once.  Read mixed, a normal start is
    refused saying the calibration mixed them (a Mixed Deck start takes them as they are)."""
    h = harness(sim=CLUB, colours=("pink", "yellow"))
    rep, err = h.call(h.daemon.calibrate(["pink", "yellow"]), max_s=600)
    assert err is None and rep["named"] and rep["mode"] == "one set at a time"
    answer, err = h.call(h.daemon.start_session("riichi", False))
    assert err is None, err
    h.settle()
    assert h.status()["session"]["decks"]["A"]["backs"] == {"pink": 136, "yellow": 0}
    m = harness(sim=CLUB, colours=("pink", "yellow"), mixed_loading=True, seed=4)
    rep, err = m.call(m.daemon.calibrate(["pink", "yellow"]), max_s=600)
    assert err is None and rep["mode"] == "mixed"
    _, err = m.call(m.daemon.start_session("riichi", False, colours=["pink", "yellow"]))
    assert err is not None and "the calibration, which read them in one pass, mixed the two " \
                               "sets" in str(err)


def test_walls_raised_before_a_self_test_stopped_by_the_guard_say_so(harness):
    """The walls a session left inside come up before the self-test; a hand in the light
    curtain stops that lift: the self-test answers (nothing tested, why), the state is
    the table's fault with its own words, and clear-fault then a self-test go on."""
    h = harness()
    h.call(h.daemon.start_session("riichi", True))
    h.settle()
    h.call(h.daemon.end_session())
    h.sim.table.panel.break_guard(h.sim.now_us() + 1_000_000, 400)
    rep, err = h.call(h.daemon.selftest(), max_s=120)
    assert err is None and rep["devices"] == [] and not rep["ok"], err
    assert "raising them first stopped" in rep["skipped"][0]["why"]
    st = _no_contradiction(h)
    assert st["state"]["name"] == "table_fault" and st["fault"]["kind"] == "guard"
    h.wait_s(1.0)
    _, err = h.call(h.daemon.clear_fault())
    assert err is None, err
    rep, err = h.call(h.daemon.selftest("lift"), max_s=120)
    assert err is None and rep["ok"] and rep["raised_first"] == 136, (err, rep)


def test_the_four_port_machines_self_test_passes_on_every_device(harness):
    """fourport-24v (issue 47): the self-test goes through the same commands on the
    four-port machine: the disc, each side's feed, counting sensor, colour sensor, cam
    (one stroke home to home) and home switch, the four lifts as one, the centre panel;
    every device passes or is pulsed, the pusher (the cam pushes) absent."""
    from hostd.table.sim import board_profile

    h = harness(board=board_profile(board="fourport-24v"))
    rep = selftest(h)
    assert rep["ok"], rep["devices"]
    devices = {d["device"] for d in rep["devices"]}
    assert {"mixer", "stacker", "lift", "door", "entry", "colour", "home"} <= devices
    assert [d["reading"] for d in by(rep, "home", 1)] == [1]  # the cam at rest is home
    assert {d["result"] for d in rep["devices"] if d["device"] == "pusher"} == {"absent"}
    lift = by(rep, "lift")[0]["reading"]
    assert 2900 <= lift["up_ms"] <= 3100, lift  # the four lifts' stroke, as one
    assert h.sim.table.wiring == []
