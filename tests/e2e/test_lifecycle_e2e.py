"""The table in a person's hands (docs/FAULTS.md "People and the lifecycle"): the CLI
against the real daemon over a pseudo-terminal to `jantaku sim serve` loaded as a real
table is by default (one set in the mixer, the other on the table top)."""
import time

import pytest

from tests.e2e.conftest import sim_and_daemon, start_daemon

pytestmark = pytest.mark.e2e


@pytest.fixture
def loaded_table(tmp_path, hil_port):
    """The daemon (with its `sim_state()`) on a simulated table with the default loading."""
    yield from sim_and_daemon(tmp_path, hil_port, seed=11)


def test_start_abort_start_from_any_state(loaded_table):
    d = loaded_table
    assert d.sim_state()["table_top_tiles"] == 136  # the second set waits on the top
    r = d.cli("session", "start", "--ruleset", "riichi", "--mixed-deck", "--wait")
    assert "the table asks: Push every tile on the table top into the centre" in r.stderr
    s = d.status()["session"]
    a = s["decks"]["A"]
    assert a["tiles"] == 136 and a["backs"]["blue"] > 0 and a["backs"]["green"] > 0
    assert a["where"] == "inside" and s["decks"]["B"]["where"] == "mixer"
    assert d.status()["next"]["code"] == "press_start"
    first_split = s["builds"][-1]["walls"]  # each wall's backs: the split as players see it

    again = d.cli("session", "start", "--ruleset", "riichi", "--mixed-deck", check=False)
    assert again.returncode == 1
    assert "a session is open: end it, abort it, or replace it" in again.stderr

    d.cli("hand-over", "--no-wait")
    d.wait(lambda st: st["session"]["hand"] == 1 and st["session"]["decks"]["B"]["where"] == "split"
           and 20 <= sum((st["table"]["build"] or {}).get("per_track") or [0]) <= 100,
           what="deck B half built")
    r = d.cli("abort")
    assert "aborted" in r.stdout
    time.sleep(0.3)
    assert d.sim_state()["driven"] == []  # nothing moves after the abort
    st = d.status()
    assert st["session"] is None and st["last_end"]["how"] == "aborted"

    r = d.cli("session", "start", "--ruleset", "riichi", "--mixed-deck", "--wait")
    s = d.status()["session"]
    a, b = s["decks"]["A"], s["decks"]["B"]
    assert a["tiles"] == b["tiles"] == 136 and s["builds"][-1]["walls"] != first_split
    assert a["backs"]["blue"] + b["backs"]["blue"] == 136
    assert [x["ok"] for x in s["builds"]] == [True] and s["faults"] == []
    assert d.sim_state()["table_top_tiles"] == 0  # every tile went into the mixer
    d.cli("hand-over", "--wait")
    s = d.status()["session"]
    assert s["hand"] == 1 and [x["deck"] for x in s["builds"]] == ["A", "B"]
    assert all(x["ok"] for x in s["builds"])


def test_continue_and_clear_fault_answer_with_what_to_do(loaded_table):
    d = loaded_table
    for verb in ("continue", "clear-fault"):
        r = d.cli(verb, "--json", check=False)
        assert r.returncode == 1 and "start a session" in r.stderr.lower(), r.stderr
    r = d.cli("session", "end", check=False)
    assert r.returncode == 1 and "no session is open" in r.stderr


def test_a_normal_session_after_mixed_deck_is_refused_with_the_people_steps(loaded_table):
    d = loaded_table
    d.cli("session", "start", "--ruleset", "riichi", "--mixed-deck", "--wait")
    r = d.cli("session", "end")
    assert "session" in r.stdout and "ended" in r.stdout
    r = d.cli("session", "start", "--ruleset", "riichi", check=False)
    assert r.returncode == 1
    assert "cannot sort them" in r.stderr and "--loaded" in r.stderr
    assert d.status()["session"] is None


def test_motor_commands_are_refused_at_once_while_the_table_is_away(tmp_path, hil_port):
    if hil_port:
        pytest.skip("needs a port with no table behind it")
    d = start_daemon(tmp_path, str(tmp_path / "no-such-port"))
    try:
        t0 = time.monotonic()
        r = d.cli("session", "start", "--ruleset", "riichi", check=False)
        assert r.returncode == 1 and "not connected" in r.stderr
        r = d.cli("abort", check=False)
        assert r.returncode == 1 and "not confirmed" in r.stdout
        assert time.monotonic() - t0 < 10
        st = d.status()
        assert st["state"]["name"] == "aborting" and st["next"]["code"] == "abort_pending"
        assert st["can"] == ["abort"]
    finally:
        d.proc.kill()
