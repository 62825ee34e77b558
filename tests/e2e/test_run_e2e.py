"""`jantaku run` says why the table is not connected in its log, not only in `status`."""
import os
import subprocess

import pytest

from tests.conftest import ROOT, tool
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


def test_session_wait_off_a_terminal_prints_no_progress_bar(daemon):
    daemon.wait(lambda s: s["table"]["connected"], what="the table to connect")
    r = daemon.cli("session", "start", "--ruleset", "riichi", "--mixed-deck", "--seed", "3", "--wait")
    assert "building [" not in r.stderr and "\r" not in r.stderr, r.stderr
    assert r.stderr.strip().splitlines()[-1] == ("ready: Deck A is built inside: press start to "
                                                 "raise it and begin hand 1 of game 1.")


def test_log_lines_and_the_live_status_line_never_share_a_line(tmp_path, hil_port):
    import pty
    import select
    import subprocess
    import time

    import httpx

    from tests.conftest import ROOT, tool
    from tests.e2e.conftest import free_port

    if hil_port:
        pytest.skip("--sim only")
    port = free_port()
    master, slave = pty.openpty()
    p = subprocess.Popen([tool("jantaku"), "run", "--sim", "--sim-speed", "20", "--db",
                          str(tmp_path / "j.sqlite"), "--api-port", str(port)],
                         stdin=slave, stdout=slave, stderr=slave, cwd=str(ROOT),
                         start_new_session=True)
    os.close(slave)
    out = b""

    def read_for(seconds):
        nonlocal out
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if select.select([master], [], [], 0.1)[0]:
                try:
                    out += os.read(master, 65536)
                except OSError:
                    return

    try:
        end = time.monotonic() + 30
        while b"daemon up" not in out and time.monotonic() < end:
            read_for(0.2)
        read_for(1.5)  # the status line is drawn
        assert b"table idle" in out or b"table " in out.split(b"daemon up", 1)[1]
        # on a terminal: a browser's pairing code (and its QR code), good for a browser
        import re

        m = re.search(rb"type the code ([A-Z]{4}-[0-9]{4})", out)
        assert m and "\u2588".encode() in out, out[-3000:]
        r = httpx.post("http://127.0.0.1:%d/pair" % port, json={"code": m.group(1).decode()},
                       headers={"Origin": "http://127.0.0.1:%d" % port}, timeout=5)
        assert r.status_code == 200 and "jantaku_session" in r.headers["set-cookie"]
        for _ in range(3):  # info lines while the status line is up
            with httpx.stream("GET", "http://127.0.0.1:%d/events" % port, timeout=5) as r:
                next(r.iter_lines())
            read_for(0.7)
    finally:
        import signal

        os.killpg(p.pid, signal.SIGTERM)
        p.wait(10)
        read_for(0.5)
        os.close(master)
    text = out.decode("utf-8", "replace")
    # what is on screen: each \r\x1b[K clears the line; a log line must start on a clear one
    for chunk in text.split("\n"):
        visible = chunk.split("\r\x1b[K")[-1]
        if "events_subscribed" in visible or "events_unsubscribed" in visible:
            assert "table " not in visible.split("events_")[0], repr(chunk)
    assert text.count("events_subscribed") >= 3


def test_a_board_that_cannot_start_shows_why_in_status(tmp_path, hil_port):
    """`jantaku sim serve --board` a profile the firmware refuses: the simulated board boots
    it as given and says why on its port (firmware/bootfail.py); the daemon shows it as
    the table's reason, naming the profile key, within 10 s, in `jantaku status` and its
    JSON."""
    import json
    import time

    from tests.e2e.conftest import start_sim

    if hil_port:
        pytest.skip("boots the simulator with a broken profile")
    with open(os.path.join(os.path.dirname(__file__), "..", "..", "firmware", "boards", "reference-18.json")) as f:
        raw = json.load(f)
    raw["id"] = "club-broken"
    raw["pins"]["gate2"] = raw["pins"]["gate1"]
    bad = tmp_path / "club-broken.json"
    bad.write_text(json.dumps(raw))
    sim, port = start_sim(tmp_path, "--ruleset", "riichi", "--board", str(bad))
    d = start_daemon(tmp_path, port)
    try:
        t0 = time.monotonic()
        st = d.wait(lambda s: s["next"]["code"] == "table_cannot_start", timeout=10,
                    what="the board's boot error")
        took = time.monotonic() - t0
        assert "pins.gate2" in st["next"]["text"] and "already used by gate1" in st["next"]["text"]
        assert "pins.gate2" in st["table"]["boot_error"] and not st["table"]["connected"]
        out = d.cli("status").stdout
        assert "firmware cannot start" in out and "pins.gate2" in out, out
        print("\nthe boot error reached `jantaku status` %.1f s after the daemon was up" % took)
        assert "the board profile is not valid" in sim.log()
    finally:
        d.proc.kill()
        sim.kill()


def test_one_raspberry_pi_runs_the_table(tmp_path, hil_port, monkeypatch):
    """`jantaku run --pi ID`: the daemon starts the gpiozero firmware (firmware.pi_main) as
    its child on a pseudo-terminal, here on gpiozero's mock pins, with the club's own
    profile (found by its id in the club's folder) that puts the door's closed switch, the
    buttons and the status light on an MCP23017 expander; the table is connected.  When the
    firmware ends by itself the daemon ends too, with a non-zero exit status (systemd
    starts both again), and nothing is left behind."""
    import json
    import time

    from tests.e2e.conftest import Daemon, Proc, free_port

    if hil_port:
        pytest.skip("runs the firmware on mock pins")
    club = tmp_path / "club"
    (club / "boards").mkdir(parents=True)
    raw = json.loads((ROOT / "firmware" / "boards" / "pi-reference.json").read_text())
    raw["id"] = "pi-club"
    raw["expanders"] = [{"kind": "mcp23017", "addr": 32}]
    raw["pins"].update(door_closed={"expander": 0, "pin": 8, "pull": "up"},
                       start_button={"expander": 0, "pin": 9, "pull": "up"},
                       dice_button={"expander": 0, "pin": 10, "pull": "up"},
                       status_light={"expander": 0, "pin": 11})
    (club / "boards" / "pi-club.json").write_text(json.dumps(raw))
    monkeypatch.setenv("JANTAKU_CONFIG_DIR", str(club))
    api = free_port()
    db = str(tmp_path / "journal.sqlite")
    proc = Proc([tool("jantaku"), "run", "--pi", "pi-club", "--db", db, "--api-port", str(api)],
                tmp_path / "pi.log", env={"GPIOZERO_PIN_FACTORY": "mock"})
    d = Daemon(proc, "http://127.0.0.1:%d" % api, db)
    try:
        st = d.wait(lambda s: s["table"]["connected"], timeout=30, what="the Pi's firmware to connect")
        assert st["table"]["identity"]["board"] == "pi-club"
        assert st["table"]["identity"]["runtime"].startswith("cpython")
        out = d.cli("status").stdout
        assert "table: idle (pi-club" in out, out
        kids = subprocess.run(["pgrep", "-f", "firmware.pi_main --pty"], capture_output=True, text=True).stdout.split()
        assert len(kids) == 1, kids
        os.kill(int(kids[0]), 9)  # the firmware dies: the daemon ends with it
        end = time.monotonic() + 20
        while proc.p.poll() is None and time.monotonic() < end:
            time.sleep(0.1)
        assert proc.p.poll() == 1, proc.log()
        assert "the table's firmware ended by itself (exit status -9" in proc.log()
    finally:
        proc.kill()
    assert subprocess.run(["pgrep", "-f", "firmware.pi_main --pty"], capture_output=True).returncode == 1


def test_run_pi_with_a_pin_the_pi_cannot_drive_fails_cleanly(tmp_path, hil_port):
    """A pin no GPIO of the Pi (here 40) in the profile: `jantaku run --pi` says which
    signal, once, and exits non-zero; no traceback, nothing left running."""
    import json

    from tests.e2e.conftest import free_port

    if hil_port:
        pytest.skip("runs the firmware on mock pins")
    raw = json.loads((ROOT / "firmware" / "boards" / "pi-reference.json").read_text())
    raw["pins"]["status_light"] = 40
    path = tmp_path / "pi-40.json"
    path.write_text(json.dumps(raw))
    r = subprocess.run([tool("jantaku"), "run", "--pi", str(path), "--db", str(tmp_path / "j.sqlite"),
                        "--api-port", str(free_port()), "--no-view"], capture_output=True, text=True,
                       timeout=60, env=dict(os.environ, GPIOZERO_PIN_FACTORY="mock"))
    assert r.returncode == 1, r.stderr
    assert "pins.status_light: GPIO 40" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert "did not start" in r.stderr
