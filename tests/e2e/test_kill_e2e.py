"""The daemon killed with SIGKILL at 20 different moments of one Mixed Deck session (split,
builds, lifts, hand overs) and restarted each time with the same journal: the session
ends with the same decks as an uninterrupted one and every hand journalled once."""
import json
import signal
import sqlite3
import subprocess
import time

import httpx
import pytest

from tests.conftest import ROOT, tool
from tests.e2e.conftest import counts, start_daemon, start_sim
from tests.e2e.conftest import quiet

pytestmark = pytest.mark.e2e

HANDS = 3
SEED = 11
# wall seconds after each (re)start before the kill: the e2e table runs 20x, so a build
# lasts about 1.1 s and a lift stroke 0.2 s; these land in every phase
DELAYS = [0.3, 0.9, 0.5, 1.4, 0.2, 0.7, 1.1, 0.4, 1.6, 0.6,
          0.25, 1.0, 0.45, 1.3, 0.35, 0.8, 1.2, 0.55, 0.15, 0.95]


def reference():
    r = subprocess.run([tool("jantaku"), "demo", "--json", "--ruleset", "riichi", "--mixed-deck",
                        "--hands", str(HANDS), "--seed", str(SEED)],
                       capture_output=True, text=True, timeout=300, cwd=str(ROOT))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def status(d):
    try:
        return d.get("/status").json()
    except (httpx.HTTPError, ValueError):
        return None


def drive(d):
    """Like the players: start the session once, and press hand over whenever walls are
    ready inside and fewer than HANDS hands were played.  Returns what it pressed."""
    st = status(d)
    if not st or not st["table"]["connected"]:
        return None
    s = st["session"]
    if s is None:
        d.post("/session", {"ruleset": "riichi", "mixed_deck": True, "seed": SEED})
        return "start"
    if "hand_over" in st["can"] and s["hand"] < HANDS and s["builds"] and s["builds"][-1]["ok"]:
        if d.post("/hand-over").status_code == 200:
            return "hand_over"
    return None


def done(st):
    s = st and st["session"]
    return bool(s) and s["hand"] == HANDS and len(s["builds"]) >= HANDS + 1 and quiet(st) \
        and s["builds"][-1]["ok"]


def test_sigkill_at_20_moments_loses_nothing(tmp_path, hil_port):
    if hil_port:
        pytest.skip("runs the simulated table")
    ref = reference()
    sim, port = start_sim(tmp_path, "--ruleset", "riichi", "--mixed-deck", "--seed", str(SEED))
    db = str(tmp_path / "journal.sqlite")
    try:
        for i, delay in enumerate(DELAYS):
            d = start_daemon(tmp_path, port, db=db, name="daemon%d" % i)
            end = time.monotonic() + delay
            if i % 3 == 2:  # every third kill lands just after a hand over was pressed
                end = time.monotonic() + 5
            while time.monotonic() < end:
                if drive(d) == "hand_over" and i % 3 == 2:
                    end = time.monotonic() + delay / 8  # mid-lift or just after the top
                time.sleep(0.02)
            d.proc.kill(signal.SIGKILL)
        d = start_daemon(tmp_path, port, db=db, name="daemon-final")
        end = time.monotonic() + 180
        st = None
        while time.monotonic() < end:
            st = status(d)
            if done(st):
                break
            drive(d)
            time.sleep(0.1)
        assert done(st), "session did not finish: %s\n%s" % (json.dumps(st), d.proc.log())
        s = st["session"]
        assert s["id"] == 1  # the same session throughout
        assert counts(s["decks"]) == ref["decks"]
        assert [b for b in s["builds"] if b["ok"]][-1]["backs"] == s["decks"][s["builds"][-1]["deck"]]["backs"]
        d.proc.kill()
    finally:
        sim.kill()
    con = sqlite3.connect(db)
    hands = [r[0] for r in con.execute("SELECT hand FROM hands WHERE session_id = 1 ORDER BY hand")]
    sessions = con.execute("SELECT count(*) FROM sessions").fetchone()[0]
    resumed = [json.loads(r[0])["state"] for r in con.execute(
        "SELECT data FROM events WHERE kind = 'session_resumed'")]
    con.close()
    # the kills really fell in the middle of things: resumed from builds and hand overs
    assert len(resumed) >= 10, resumed
    assert {"building", "hand_over"} <= set(resumed), resumed
    assert hands == list(range(1, HANDS + 1))  # every hand journalled exactly once
    assert sessions == 1
