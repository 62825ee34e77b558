"""End-to-end fixtures: the real daemon (`jantaku run`) over a real pseudo-terminal to the
simulated table (`jantaku sim serve`), or with `--hil-port PATH` to a real table.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time

import httpx
import pytest

from tests.conftest import ROOT, tool

pytestmark = pytest.mark.e2e


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Proc:
    """A child process whose output is kept in a file (read it on failure)."""

    def __init__(self, args, log_path, env=None):
        self.args = args
        self.log_path = log_path
        self._log = open(log_path, "wb")
        self.p = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=self._log, cwd=str(ROOT),
            env=dict(os.environ, **(env or {})), start_new_session=True)

    def log(self):
        self._log.flush()
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")[-4000:]

    def kill(self, sig=signal.SIGTERM):
        if self.p.poll() is None:
            try:
                os.killpg(self.p.pid, sig)
            except ProcessLookupError:
                pass
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.p.pid, signal.SIGKILL)
                self.p.wait(10)
        self._log.close()


def start_sim(tmp_path, *args, speed=20, name="sim"):
    """`jantaku sim serve` → (Proc, port path) once it printed PORT <path>."""
    cmd = [tool("jantaku"), "sim", "serve", "--speed", str(speed)] + list(args)
    proc = Proc(cmd, tmp_path / (name + ".log"))
    line = proc.p.stdout.readline().decode().strip()
    if not line.startswith("PORT "):
        proc.kill()
        pytest.fail("sim serve did not print PORT first: %r\n%s" % (line, proc.log()))
    return proc, line.split(" ", 1)[1]


class Daemon:
    def __init__(self, proc, url, db):
        self.proc = proc
        self.url = url
        self.db = db

    def get(self, path):
        return httpx.get(self.url + path, timeout=10)

    def post(self, path, body=None):
        return httpx.post(self.url + path, json=body or {}, timeout=60)

    def cli(self, *args, check=True, timeout=120):
        r = subprocess.run([tool("jantaku")] + list(args) + ["--api", self.url],
                           capture_output=True, text=True, timeout=timeout, cwd=str(ROOT))
        if check and r.returncode != 0:
            raise AssertionError("jantaku %s failed (%d):\n%s\n%s\n--- daemon log\n%s" % (
                " ".join(args), r.returncode, r.stdout, r.stderr, self.proc.log()))
        return r

    def status(self):
        return json.loads(self.cli("status", "--json").stdout)

    def wait(self, pred, timeout=60, what="condition"):
        end = time.monotonic() + timeout
        last = None
        while time.monotonic() < end:
            try:
                last = self.get("/status").json()
                if pred(last):
                    return last
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise AssertionError("timed out waiting for %s; last status %s\n--- daemon log\n%s"
                             % (what, json.dumps(last), self.proc.log()))


def wait_table_connected(d, timeout=30):
    """Until daemon ``d`` (a :class:`Daemon`) says its table is connected; the test fails
    with the daemon's log if it exits or never does."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if d.proc.p.poll() is not None:
            pytest.fail("daemon exited:\n%s" % d.proc.log())
        try:
            if d.get("/status").json()["table"]["connected"]:
                return
        except (httpx.HTTPError, ValueError, KeyError):
            pass
        time.sleep(0.1)
    pytest.fail("the daemon did not connect to the table:\n%s" % d.proc.log())


def counts(decks):
    """A status's decks without where each is and whether its colours can be checked:
    what a demo's decks can be compared with."""
    return {k: {f: v for f, v in d.items() if f not in ("where", "colours_checked")}
            for k, d in decks.items()}


def simulated(port_path):
    """A pseudo-terminal is the simulator's port (`sim serve`); a real table's is a serial
    device (USB CDC, a UART)."""
    return port_path is None or os.path.realpath(port_path).startswith("/dev/pts/")


def start_daemon(tmp_path, port_path, db=None, name="daemon", extra=()):
    """`jantaku run --port port_path` (port_path None: `--sim`, as `make run`), once it
    answers /health.  On a simulated table (20 times the wall) the centre stays open 1 s
    for the simulated people, who push at once; ``extra`` comes last, so it may say
    otherwise (`--push-window 600`: open until people say they are done)."""
    api_port = free_port()
    db = db or str(tmp_path / "journal.sqlite")
    table = ["--sim", "--sim-speed", "20"] if port_path is None else ["--port", port_path]
    if simulated(port_path):
        table += ["--push-window", "1"]
    cmd = [tool("jantaku"), "run"] + table + ["--db", db, "--api-port", str(api_port)] + list(extra)
    proc = Proc(cmd, tmp_path / (name + ".log"))
    d = Daemon(proc, "http://127.0.0.1:%d" % api_port, db)
    end = time.monotonic() + 30
    while time.monotonic() < end:
        if proc.p.poll() is not None:
            pytest.fail("daemon exited (%s):\n%s" % (proc.p.returncode, proc.log()))
        try:
            if d.get("/health").status_code == 200:
                return d
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    pytest.fail("daemon did not answer /health:\n%s" % proc.log())


def sim_and_daemon(tmp_path, hil_port, *, seed, speed=None):
    """`jantaku sim serve` (riichi, the default loading, `seed`) and `jantaku run --port`
    on it, connected; the daemon's `sim_state()` reads the simulated table's physical
    state (its `--state` file).  A generator for a fixture: yields the daemon, then stops
    both."""
    if hil_port:
        pytest.skip("reads the simulated table's physical state")
    state = tmp_path / "sim-state.json"
    kw = {} if speed is None else {"speed": speed}
    sim, port = start_sim(tmp_path, "--ruleset", "riichi", "--seed", str(seed), "--state",
                          str(state), **kw)
    d = start_daemon(tmp_path, port)
    d.sim_state = lambda: json.loads(state.read_text())
    d.wait(lambda s: s["table"]["connected"], what="the table to connect")
    yield d
    d.proc.kill()
    sim.kill()


@pytest.fixture
def table_port(tmp_path, hil_port):
    """A serial port with a table behind it: the real one, or `jantaku sim serve`."""
    if hil_port:
        yield hil_port
        return
    proc, path = start_sim(tmp_path, "--ruleset", "riichi", "--mixed-deck", "--seed", "7")
    yield path
    proc.kill()


def quiet(st):
    """A status predicate: nothing moves, the table waits for a person or a command (the
    one state: idle, built, stopped, a fault the table reports, a recovery waiting for its
    hand over, people asked at an open centre)."""
    name, p = st["state"]["name"], st["state"]["params"]
    if name in ("idle", "built", "stopped", "table_fault"):
        return True
    if name == "recovering":
        return p.get("stage") == "waiting"
    return name in ("preparing", "building", "emptying") and p.get("stage") in ("push", "clear_top")


def leave_ready(d, port_path):
    """Leave the table at the suite's starting position (docs/DEPLOY.md, hardware-in-loop):
    no session, no motion, the walls inside brought up to the table top.  On a real table
    an operator then pushes every tile into the centre (asked on the terminal); the
    simulated players need no asking, and the next Mixed Deck start collects the tiles."""
    try:
        d.post("/abort")
        d.post("/session/end", {"empty": True})
        d.wait(lambda s: s["session"] is None and quiet(s), timeout=120,
               what="the walls inside to come up")
    except (AssertionError, httpx.HTTPError) as e:
        return "the table was not left ready: %s" % e
    if not simulated(port_path):
        try:
            with open("/dev/tty", "r+") as tty:
                tty.write("\njantaku HIL: push every tile on the table top into the centre, "
                          "then press Enter ")
                tty.flush()
                tty.readline()
        except OSError:
            return None
    return None


@pytest.fixture
def daemon(tmp_path, table_port):
    d = start_daemon(tmp_path, table_port)
    yield d
    problem = leave_ready(d, table_port) if d.proc.p.poll() is None else None
    d.proc.kill()
    assert problem is None, problem
