"""`jantaku run --sim`, what `make run` starts: a new simulated table each time, so a
session that an earlier run left open in its journal is closed as aborted, and the daemon
serves (a new session starts)."""
import signal
import sqlite3

import pytest

from tests.e2e.conftest import start_daemon

pytestmark = pytest.mark.e2e


def sessions(db):
    with sqlite3.connect(db) as c:
        return c.execute("SELECT id, state FROM sessions ORDER BY id").fetchall()


def test_run_sim_closes_the_session_an_earlier_run_left_open(tmp_path):
    db = str(tmp_path / "sim-journal.sqlite")
    d = start_daemon(tmp_path, None, db=db, name="run1")
    try:
        d.cli("session", "start", "--ruleset", "riichi", "--seed", "5")
        assert [s for _, s in sessions(db)] == ["open"]
    finally:
        d.proc.kill(signal.SIGKILL)  # as a closed terminal or a crash leaves it
    d = start_daemon(tmp_path, None, db=db, name="run2")
    try:
        assert [s for _, s in sessions(db)] == ["aborted"]
        assert d.status()["session"] is None  # nothing restored from the old table
        d.cli("session", "start", "--ruleset", "wsom", "--seed", "6")
        assert [s for _, s in sessions(db)] == ["aborted", "open"]
    finally:
        d.proc.kill()
