"""The real daemon over a real pseudo-terminal to `jantaku sim serve` (or, with
--hil-port, to a real table): a Mixed Deck session through the CLI."""
import json

import pytest
from tests.e2e.conftest import quiet

pytestmark = pytest.mark.e2e


def built(n):
    """A status predicate: n builds finished and nothing running."""
    def pred(st):
        s = st.get("session") or {}
        return len(s.get("builds", [])) >= n and quiet(st)
    return pred


def test_status_shows_the_connected_table(daemon):
    st = daemon.wait(lambda s: s["table"]["connected"], what="the table to connect")
    assert st["table"]["state"] in ("idle", "built", "boot")
    assert st["table"]["fault"] is None
    assert st["session"] is None
    out = daemon.cli("status").stdout
    assert "table:" in out and "session: none" in out


def test_mixed_deck_session_split_and_hand_over(daemon):
    daemon.wait(lambda s: s["table"]["connected"], what="the table to connect")
    r = daemon.cli("session", "start", "--ruleset", "riichi", "--mixed-deck", "--json")
    started = json.loads(r.stdout)
    assert started["ruleset"] == "riichi" and started["mixed_deck"] is True
    daemon.wait(built(1), timeout=120, what="the split's first build")
    daemon.cli("hand-over")  # hand 1: deck A up, deck B built inside
    st = daemon.wait(built(2), timeout=120, what="deck B")
    s = st["session"]
    assert s["hand"] == 1
    a, b = s["decks"]["A"], s["decks"]["B"]
    assert a["tiles"] == 136 and b["tiles"] == 136
    first = s["sets"][0]  # the table's own first colour class (on a real table: its sets')
    assert a["backs"][first] + b["backs"][first] == 136
    assert [x["deck"] for x in s["builds"]] == ["A", "B"]
    assert all(x["per_track"] == [34, 34, 34, 34] and x["ok"] for x in s["builds"])
    status = daemon.status()  # through the CLI, --json
    assert status["session"]["id"] == started["id"]
    assert status["table"]["connected"] is True and status["table"]["fault"] is None


def test_bad_ruleset_is_refused_with_what_is_accepted(daemon):
    daemon.wait(lambda s: s["table"]["connected"], what="the table to connect")
    r = daemon.cli("session", "start", "--ruleset", "mahjong-deluxe", check=False)
    assert r.returncode != 0
    assert "mahjong-deluxe" in r.stderr and "riichi" in r.stderr
    assert daemon.get("/status").json()["session"] is None


def test_daemon_killed_mid_build_resumes_the_same_session(tmp_path, table_port):
    import signal

    from tests.e2e.conftest import start_daemon

    d1 = start_daemon(tmp_path, table_port, name="daemon1")
    try:
        d1.wait(lambda s: s["table"]["connected"], what="the table to connect")
        sid = json.loads(d1.cli("session", "start", "--ruleset", "riichi", "--mixed-deck",
                                "--json").stdout)["id"]
        d1.wait(lambda s: (s["table"].get("build") or {}).get("per_track")
                and sum(s["table"]["build"]["per_track"]) >= 20, what="tiles to be counted")
    finally:
        d1.proc.kill(signal.SIGKILL)
    d2 = start_daemon(tmp_path, table_port, db=d1.db, name="daemon2")
    try:
        st = d2.wait(built(1), timeout=120, what="the resumed build")
        s = st["session"]
        assert s["id"] == sid
        assert s["builds"][0]["per_track"] == [34, 34, 34, 34] and s["builds"][0]["ok"]
        assert sum(s["decks"]["A"]["backs"].values()) == 136
    finally:
        d2.proc.kill()
