"""Faults end to end: the real daemon over a real pseudo-terminal to `jantaku sim serve
--fault ...`, driven through the CLI like a person would (docs/FAULTS.md).  Simulated
tables only: faults are injected by the simulator."""
import json
import sqlite3
import time

import pytest

from tests.e2e.conftest import start_daemon, start_sim
from tests.e2e.test_session_e2e import built
from tests.e2e.conftest import quiet

pytestmark = pytest.mark.e2e


@pytest.fixture
def faulty(tmp_path, hil_port, request):
    """(daemon, sim) with the simulator started with the test's fault spec."""
    if hil_port:
        pytest.skip("faults are injected by the simulator")
    procs = []

    def start(*faults, seed=7, speed=20, mixed=True):
        state = tmp_path / "sim-state.json"
        args = ["--ruleset", "riichi", "--seed", str(seed), "--state", str(state)]
        if mixed:
            args.append("--mixed-deck")
        for f in faults:
            args += ["--fault", f]
        sim, port = start_sim(tmp_path, *args, speed=speed)
        procs.append(sim)
        d = start_daemon(tmp_path, port)
        procs.append(d.proc)
        d.sim_state = lambda: json.loads(state.read_text())
        d.wait(lambda s: s["table"]["connected"], what="the table to connect")
        return d

    yield start
    for p in reversed(procs):
        p.kill()


MOTORS = ("mixer_pwm", "lift_pwm", "door_pwm", "stacker", "pusher")


def still(d, seconds=0.5):
    """The simulated table's pins, read twice `seconds` of wall apart (at the e2e speed
    that is 10 simulated seconds): no motor or solenoid driven either time.  Returns
    the later state.  The state file is rewritten every 50 ms of wall: the first read
    waits for one written after the call."""
    stale = d.sim_state()["now_s"]
    end = time.monotonic() + 10
    while True:
        first = d.sim_state()
        if first["now_s"] > stale:
            break
        assert time.monotonic() < end, "the simulator's state file is not updated"
        time.sleep(0.02)
    time.sleep(seconds)
    last = d.sim_state()
    for st in (first, last):
        moving = [n for n in st["driven"] if n.startswith(MOTORS)]
        assert moving == [], "still driven while stopped: %s" % moving
    assert last["now_s"] > first["now_s"]
    return last


def journal_rows(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_guard_broken_mid_lift_stops_and_resumes_when_repeated(faulty):
    d = faulty("guard")  # breaks half-way through the first lift, for 200 ms
    d.cli("session", "start", "--ruleset", "riichi", "--mixed-deck")
    d.wait(built(1), timeout=120, what="deck A")
    d.cli("hand-over")  # hand 1: the lift goes up... and the curtain breaks
    st = d.wait(lambda s: s["session"]["faults"], timeout=60, what="the guard fault")
    fault = st["session"]["faults"][0]
    assert fault["kind"] == "guard" and fault["recovered"] is False
    assert "guard was broken" in fault["message"]
    assert st["session"]["hand"] == 0  # the walls are not up: hand 1 has not begun
    sim = still(d)  # the lift stopped where the curtain broke, and stays there
    assert 0 < sim["lift"]["position_ms"] < 4000 and not sim["lift"]["top"]
    assert sim["safety"] and all(0 <= s["latency_ms"] <= 10 for s in sim["safety"])
    d.wait(lambda s: s["table"]["guard"]["curtain"] and quiet(s),
           what="the curtain clear again")
    d.cli("hand-over")  # repeated with the guard clear: the lift resumes
    st = d.wait(built(2), timeout=120, what="deck B after the repeated hand over")
    assert st["session"]["hand"] == 1
    assert st["session"]["faults"][0]["recovered"] is True
    assert journal_rows(d.db, "SELECT kind, recovered FROM faults") == [("guard", 1)]
    assert d.sim_state()["guard_violations"] == 0  # nothing moved while it was broken


def test_lid_opened_mid_door_stops_door_and_lift_and_resumes_when_repeated(faulty):
    d = faulty("guard:build=2,during=door,input=lid,at=300")  # hand 2's door, half open
    d.cli("session", "start", "--ruleset", "riichi", "--mixed-deck")
    d.wait(built(1), timeout=120, what="deck A")
    d.cli("hand-over")
    d.wait(built(2), timeout=120, what="deck B")
    d.cli("hand-over")  # hand 2: the door opens as the lift goes up... and the lid opens
    st = d.wait(lambda s: s["session"]["faults"], timeout=60, what="the guard fault")
    fault = st["session"]["faults"][0]
    assert fault["kind"] == "guard" and "guard was broken" in fault["message"]
    assert st["session"]["hand"] == 1
    sim = still(d)  # door and lift stopped part way, and stay there
    assert 0 < sim["door"]["position_ms"] < 600 and not sim["door"]["open"]
    assert not sim["lift"]["top"]
    assert {s["motor"] for s in sim["safety"]} >= {"door"}
    assert all(0 <= s["latency_ms"] <= 10 for s in sim["safety"])
    d.wait(lambda s: s["table"]["guard"]["lid"] and quiet(s), what="the lid closed")
    d.cli("hand-over")  # repeated: door and lift carry on
    st = d.wait(built(3), timeout=120, what="deck A again after the repeated hand over")
    assert st["session"]["hand"] == 2 and st["session"]["faults"][0]["recovered"] is True
    assert st["session"]["builds"][-1]["ok"]  # the played deck dropped whole and was rebuilt
    assert journal_rows(d.db, "SELECT kind, recovered FROM faults") == [("guard", 1)]
    assert d.sim_state()["guard_violations"] == 0


def test_firmware_reset_mid_build_splits_the_decks_again(faulty):
    d = faulty("reset:build=1,after=40")
    d.cli("session", "start", "--ruleset", "riichi", "--mixed-deck")
    st = d.wait(lambda s: any(b["ok"] for b in s["session"]["builds"]) and quiet(s),
                timeout=180, what="the recovered split")
    s = st["session"]
    assert st["table"]["resets"] == 1  # noticed by the boot nonce
    assert [b["ok"] for b in s["builds"]] == [False, True]  # the untrusted build is listed
    assert s["faults"][0]["kind"] == "reset" and s["faults"][0]["recovered"] is True
    assert "can't be accounted for" in s["faults"][0]["message"]
    a, b = s["decks"]["A"], s["decks"]["B"]
    assert a["tiles"] == b["tiles"] == 136
    assert a["backs"]["blue"] + b["backs"]["blue"] == 136  # every tile found again
    d.cli("hand-over")
    st = d.wait(built(3), timeout=120, what="deck B")
    assert st["session"]["builds"][-1]["ok"] and st["session"]["builds"][-1]["backs"] == b["backs"]


def test_firmware_reset_during_a_hand_splits_again_at_its_hand_over(faulty):
    d = faulty("reset:build=2,after=40")  # deck B half built inside, hand 1 on deck A
    d.cli("session", "start", "--ruleset", "riichi", "--mixed-deck")
    d.wait(built(1), timeout=120, what="deck A")
    d.cli("hand-over")
    st = d.wait(lambda s: s["session"]["faults"] and quiet(s), timeout=120,
                what="the reset")
    assert "both decks will be split again" in st["session"]["faults"][0]["message"]
    assert st["session"]["faults"][0]["recovered"] is False  # waits for the hand over
    still(d)  # nothing moves while hand 1 is played
    d.cli("hand-over")  # accepted although no walls are built inside: the re-split is due
    st = d.wait(lambda s: s["session"]["hand"] == 2 and len(s["session"]["builds"]) >= 4
                and quiet(s), timeout=240, what="the re-split and hand 2")
    s = st["session"]
    assert s["faults"][0]["recovered"] is True
    assert [b["ok"] for b in s["builds"]] == [True, False, True, True]
    a, b = s["decks"]["A"], s["decks"]["B"]
    assert a["backs"]["blue"] + b["backs"]["blue"] == 136 and s["builds"][-1]["backs"] == b["backs"]
    assert journal_rows(d.db, "SELECT hand, deck FROM hands ORDER BY hand") == [(1, "A"), (2, "A")]


def test_firmware_reset_mid_lift_splits_again_and_the_hand_over_goes_on(faulty):
    d = faulty("reset:build=2,during=lift")  # hand 2's walls half-way up
    d.cli("session", "start", "--ruleset", "riichi", "--mixed-deck")
    d.wait(built(1), timeout=120, what="deck A")
    d.cli("hand-over")
    d.wait(built(2), timeout=120, what="deck B")
    d.cli("hand-over")  # the table restarts on the way up
    st = d.wait(lambda s: s["session"]["hand"] == 2 and len(s["session"]["builds"]) >= 4
                and quiet(s), timeout=240, what="the re-split and hand 2")
    s = st["session"]
    assert st["table"]["resets"] == 1
    (fault,) = s["faults"]
    assert fault["kind"] == "reset" and fault["recovered"] is True
    assert "restarted while raising the walls for hand 2" in fault["message"]
    assert all(b["ok"] for b in s["builds"])  # the walls were complete, just not trusted
    a, b = s["decks"]["A"], s["decks"]["B"]
    assert a["tiles"] == b["tiles"] == 136 and a["backs"]["blue"] + b["backs"]["blue"] == 136
    assert s["builds"][-1]["backs"] == b["backs"]  # deck B rebuilt inside, checked
    sim = still(d)
    assert sim["lift"]["bottom"] and sim["door"]["closed"]
    assert journal_rows(d.db, "SELECT kind, recovered FROM faults") == [("reset", 1)]
    assert journal_rows(d.db, "SELECT hand, deck FROM hands ORDER BY hand") == [(1, "A"), (2, "A")]


def test_normal_rotation_reset_mid_build_swaps_the_decks_at_the_hand_over(faulty):
    d = faulty("reset:build=2,after=50", mixed=False)  # deck B (green) half built, hand 1 on
    d.cli("session", "start", "--ruleset", "riichi")
    d.wait(built(1), timeout=120, what="deck A")
    d.cli("hand-over")
    st = d.wait(lambda s: s["session"]["faults"] and quiet(s), timeout=120,
                what="the reset and the drain")
    (fault,) = st["session"]["faults"]
    assert fault["kind"] == "reset" and fault["recovered"] is False
    assert "restarted during build 2" in fault["message"]
    assert "deck A (blue 136, green 0) drops in" in fault["message"]  # what happens next
    assert "fault: " + fault["message"] in d.cli("status").stdout
    sim = still(d)  # every green tile left in the mixer went onto the tracks, then stopped
    assert sim["mixer"]["tiles"] == 0 and sum(t["entered"] for t in sim["tracks"]) >= 136
    d.cli("hand-over")  # the swap: B up, A in and built, B back in; hand 2 on A
    st = d.wait(lambda s: s["session"]["hand"] == 2 and len(s["session"]["builds"]) >= 5
                and quiet(s), timeout=240, what="the swap and hand 2")
    s = st["session"]
    assert s["faults"][0]["recovered"] is True
    assert [b["ok"] for b in s["builds"]] == [True, False, False, True, True]
    assert s["builds"][3]["backs"] == {"blue": 136} and s["builds"][4]["backs"] == {"green": 136}
    assert journal_rows(d.db, "SELECT hand, deck FROM hands ORDER BY hand") == [(1, "A"), (2, "A")]
    assert journal_rows(d.db, "SELECT kind, recovered FROM faults") == [("reset", 1)]
    still(d)


def test_unplugged_mid_build_reconnects_and_the_build_completes(faulty):
    # at 5x a build takes ~4.4 s of wall: unplugged 20 tiles in for 30 simulated seconds
    # (6 s of wall, longer than the 2 s link timeout, which is wall time), the firmware
    # pauses the build part way
    d = faulty("unplug:build=1,after=20,ms=30000", speed=5)
    d.cli("session", "start", "--ruleset", "riichi", "--mixed-deck")
    d.wait(lambda s: not s["table"]["connected"], timeout=60, what="the unplug")
    end = time.monotonic() + 30  # the firmware pauses once its link timeout passes
    while d.sim_state()["driven"]:
        assert time.monotonic() < end, "still moving unplugged: %s" % d.sim_state()["driven"]
        time.sleep(0.05)
    assert d.sim_state()["plugged"] is False
    paused = sum(t["entered"] for t in still(d)["tracks"])
    assert 0 < paused < 136  # the build paused part way, its tiles kept on the tracks
    st = d.wait(built(1), timeout=180, what="the build after the replug")
    b = st["session"]["builds"][0]
    assert b["ok"] and b["per_track"] == [34, 34, 34, 34]
    assert st["table"]["connected"] and st["table"]["resets"] == 0
    assert st["session"]["faults"] == []
