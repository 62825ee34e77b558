"""Faults that stop the table (docs/FAULTS.md), each end to end: the real daemon over a
real pseudo-terminal to `jantaku sim serve --fault SPEC`.  For each: detected with the
right kind and track, the player's message, the table stopped in its fault state, and the
fault in the journal.  And line noise: the same decks as without it."""
import json
import sqlite3
import subprocess

import pytest

from tests.conftest import ROOT, tool
from tests.e2e.test_faults_e2e import faulty, still  # noqa: F401  (fixture)
from tests.e2e.conftest import counts
from tests.e2e.test_session_e2e import built
from tests.e2e.conftest import quiet

pytestmark = pytest.mark.e2e

# (fault spec, step that meets it, kind, track ("any": the one the mixer left short), words)
STOPS = [
    ("jam:track=2,count=0,after=30", "build", "jam", 2, "track 2 is jammed"),
    ("missing-tile:build=2", "hand", "short", "any", "deck B: counted 135 of 136"),
    ("extra-tile:build=2", "hand", "surplus", None, "tiles were left in the mixer"),
    ("gate-slow:build=1,track=3", "build", "overfill", 3, "track 3 took one tile too many"),
    ("lift-stall:build=1", "hand", "lift-stall", None, "the lift stalled"),
    ("limit-stuck:build=1,switch=top,state=open", "hand", "limit", None, "limit switch is stuck"),
]


@pytest.mark.parametrize("spec,step,kind,track,words", STOPS, ids=[s[0].split(":")[0] for s in STOPS])
def test_fault_stops_the_table_and_is_named(faulty, spec, step, kind, track, words):  # noqa: F811
    d = faulty(spec)
    d.cli("session", "start", "--ruleset", "riichi", "--mixed-deck")
    if step == "hand":
        d.wait(built(1), timeout=120, what="deck A")
        d.cli("hand-over")
    st = d.wait(lambda s: s["session"]["faults"] and quiet(s), timeout=120,
                what="the %s fault" % kind)
    fault = st["session"]["faults"][-1]
    assert fault["kind"] == kind
    assert fault["track"] == track or (track == "any" and 1 <= fault["track"] <= 4)
    track = fault["track"]
    assert words in fault["message"] and fault["recovered"] is False
    table = st["table"]
    assert table["state"] in ("fault", "paused")  # stopped: nothing moves on
    assert table["fault"] is None or table["fault"]["kind"] == kind
    still(d)  # the pins: no motor or solenoid driven
    con = sqlite3.connect(d.db)
    rows = con.execute("SELECT kind, track, message FROM faults").fetchall()
    con.close()
    assert (kind, track, fault["message"]) in rows
    assert "fault: " + fault["message"] in d.cli("status").stdout  # what a player reads


def test_line_noise_gives_the_same_decks_and_builds(faulty):  # noqa: F811
    d = faulty("noise:rate=0.001", seed=7)
    d.cli("session", "start", "--ruleset", "riichi", "--mixed-deck", "--seed", "7")
    d.wait(built(1), timeout=120, what="deck A")
    d.cli("hand-over")
    st = d.wait(built(2), timeout=120, what="deck B")
    ref = json.loads(subprocess.run(
        [tool("jantaku"), "demo", "--json", "--ruleset", "riichi", "--mixed-deck", "--hands", "1",
         "--seed", "7"], capture_output=True, text=True, timeout=120, cwd=str(ROOT)).stdout)
    s = st["session"]
    assert counts(s["decks"]) == ref["decks"]
    assert [(b["deck"], b["per_track"], b["backs"]) for b in s["builds"]] == \
        [(b["deck"], b["per_track"], b["backs"]) for b in ref["builds"][:2]]


def test_misread_backs_below_the_limit_are_reported_and_the_session_goes_on(faulty):  # noqa: F811
    d = faulty("misread:build=1,count=3", seed=7)
    d.cli("session", "start", "--ruleset", "riichi", "--mixed-deck", "--seed", "7")
    st = d.wait(built(1), timeout=120, what="deck A")
    s = st["session"]
    first = s["builds"][0]
    assert first["ok"] and first["backs"]["unknown"] == 3  # reported, never guessed
    assert first["backs"]["blue"] + first["backs"]["green"] == 133
    assert s["faults"] == []  # 3 is under the limit (6 for 136 tiles)
    assert s["decks"]["A"]["tiles"] == 136 and s["decks"]["A"]["backs"]["unknown"] == 3
    assert "unknown 3" in d.cli("status").stdout  # what a player reads: the uncertain backs
    d.cli("hand-over")
    st = d.wait(built(2), timeout=120, what="deck B")
    s = st["session"]
    assert s["builds"][1]["ok"] and "unknown" not in s["builds"][1]["backs"]
    # deck B read in full: with the two sets known, deck A's count is exact again
    assert "unknown" not in s["decks"]["A"]["backs"]
    assert s["decks"]["A"]["backs"]["blue"] + s["decks"]["B"]["backs"]["blue"] == 136


def test_misread_backs_over_the_limit_flag_the_build(faulty):  # noqa: F811
    d = faulty("misread:build=1,count=9", seed=7)
    d.cli("session", "start", "--ruleset", "riichi", "--mixed-deck", "--seed", "7")
    st = d.wait(lambda s: s["session"]["faults"] and quiet(s), timeout=120,
                what="the untrusted build")
    fault = st["session"]["faults"][-1]
    assert fault["kind"] == "composition" and fault["build"] == 1
    assert "9 back colours could not be read (at most 6 accepted)" in fault["message"]
    assert st["session"]["builds"][0]["ok"] is False  # flagged, not used
    with pytest.raises(AssertionError):
        d.cli("hand-over")  # the untrusted walls are not raised for a hand
    still(d)
    con = sqlite3.connect(d.db)
    rows = con.execute("SELECT kind, message FROM faults").fetchall()
    con.close()
    assert rows == [("composition", fault["message"])]


def test_a_jam_that_clears_is_backed_off_and_the_build_is_exact(faulty):  # noqa: F811
    d = faulty("jam:track=2,after=30,count=1", seed=7)  # cleared by one back-off
    d.cli("session", "start", "--ruleset", "riichi", "--mixed-deck", "--seed", "7")
    st = d.wait(built(1), timeout=120, what="deck A")
    sim = d.sim_state()
    (jam,) = sim["faults"]
    assert jam["kind"] == "jam" and len(jam["fired_s"]) == 1  # it did jam
    s = st["session"]
    assert s["faults"] == [] and s["builds"][0]["ok"] is True
    assert s["builds"][0]["per_track"] == [34, 34, 34, 34]
    ref = json.loads(subprocess.run(
        [tool("jantaku"), "demo", "--json", "--ruleset", "riichi", "--mixed-deck", "--hands", "1",
         "--seed", "7"], capture_output=True, text=True, timeout=120, cwd=str(ROOT)).stdout)
    assert s["builds"][0]["backs"] == ref["builds"][0]["backs"]  # the same tiles as unjammed
    still(d)
