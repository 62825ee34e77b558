"""`jantaku run` says why the table is not connected in its log, not only in `status`."""
import os

import pytest

from tests.e2e.conftest import start_daemon

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("kind, words", [
    ("missing", "no such port"),
    ("file", "not a serial port (not a tty)"),
])
def test_the_log_says_why_the_table_is_not_connected(tmp_path, kind, words):
    port = str(tmp_path / "ttyNONE")
    if kind == "file":
        open(port, "w").close()
    d = start_daemon(tmp_path, port)
    try:
        st = d.get("/status").json()
        assert not st["table"]["connected"] and words in st["table"]["error"]
        log = d.proc.log()
        up = [l for l in log.splitlines() if "daemon up" in l]
        assert up and words in up[0], log
        assert sum("table not connected" in l for l in log.splitlines()) == 1  # said once
    finally:
        d.proc.kill()
    assert d.proc.p.returncode == 0
    assert os.path.exists(d.db)


def test_rulesets_says_what_the_connected_table_cannot_build(daemon, hil_port):
    st = daemon.wait(lambda s: s["table"]["connected"], what="the table to connect")
    stacks = st["table"]["identity"]["max_stacks"]
    items = daemon.get("/rulesets").json()
    cannot = {i["name"]: i["table"]["why"] for i in items if not i["table"]["can_build"]}
    assert all(i["table"] is not None for i in items)
    r = daemon.cli("rulesets", "--table")
    assert "the connected table cannot build" in r.stdout
    for i in items:
        assert (i["stacks_per_wall"] > stacks) == (i["name"] in cannot)
    for name, why in cannot.items():
        assert "  %s: %s" % (name, why) in r.stdout
    if not hil_port:
        assert "uzje" in cannot and "riichi" not in cannot
