"""hw_sim.serve: the simulated table behind a real pseudo-terminal, paced against the
wall at --speed X, with a symlink that survives a simulated unplug."""
import io
import json
import os
import select
import threading
import time

import pytest

from firmware.compat import RealClock
from hw_sim.serve import Server, serve
from protocol import messages as m
from protocol.link import Link
from sim_helpers import SET


class PtyHost:
    """protocol.link as host over a pty path, in wall time."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        self.events = []
        self.link = Link(RealClock(), self._write, self._on, role="host")

    def _write(self, buf, n):
        try:
            os.write(self.fd, bytes(buf[:n]))
        except OSError:
            pass

    def _on(self, msgid, values):
        self.events.append((m.name_of(msgid), list(values)))

    def pump(self, s=0.01):
        r, _, _ = select.select([self.fd], [], [], s)
        if r:
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                data = b""
            if data:
                self.link.feed(data)
        self.link.poll()

    def wait(self, pred, timeout):
        end = time.monotonic() + timeout
        while not pred():
            if time.monotonic() > end:
                return False
            self.pump()
        return True

    def seen(self, name):
        return [v for n, v in self.events if n == name]

    def command(self, name, *values):
        self.link.send(m.lookup(name)[0], values)

    def close(self):
        os.close(self.fd)


@pytest.fixture
def served(tmp_path):
    threads = []

    def start(**kw):
        out = io.StringIO()
        stop = threading.Event()
        reports = []
        kw.setdefault("port_link_path", str(tmp_path / "ttyJANTAKU"))
        th = threading.Thread(target=serve, args=("reference-18", [SET, SET]),
                              kwargs=dict(kw, out=out, stop=stop, report_to=reports.append), daemon=True)
        th.start()
        end = time.monotonic() + 20
        while "PORT" not in out.getvalue():
            assert time.monotonic() < end, "serve printed no PORT line"
            time.sleep(0.01)
        line = out.getvalue().splitlines()[0]
        assert line.startswith("PORT ")
        threads.append((th, stop))
        return line[5:], stop, th, reports

    yield start
    for th, stop in threads:
        stop.set()
        th.join(20)


def test_port_line_symlink_and_a_build_at_speed(served):
    path, stop, th, reports = served(seed=3, speed=40.0)
    assert os.path.islink(path) and os.readlink(path).startswith("/dev/pts/")
    h = PtyHost(path)
    assert h.wait(lambda: h.link.connected, 10)
    assert h.link.identity[3] == "reference-18"
    h.command("configure_build", 1, [34] * 4, 17, [1, 2], 1)
    h.command("build", 1)
    t0 = time.monotonic()
    assert h.wait(lambda: h.seen("build_done"), 30)
    wall = time.monotonic() - t0
    done = h.seen("build_done")[0]
    assert list(done[1]) == [0, 34, 0] * 4
    assert wall < 22.0 / 40 * 3  # paced at ~40x the wall
    # every tile event reached this host, or the table counted it as dropped (its
    # window full while a busy machine kept this wall-time host from acking: the
    # protocol's promise, SPEC §10; the counts above are exact either way)
    hb0 = h.link.peer_heartbeat
    assert h.wait(lambda: h.link.peer_heartbeat is not hb0, 5)
    dropped = h.link.peer_heartbeat[4]  # every event the table could not send
    assert 136 - dropped <= len(h.seen("tile")) <= 136 and dropped < 136 // 2
    h.close()
    stop.set()
    th.join(20)
    r = reports[0]
    assert r["speed"] == 40.0 and r["builds"][0]["build_s"] > 15  # nominal seconds
    assert not os.path.exists(path)


def test_unplug_removes_and_replug_restores_the_symlink(served):
    path, stop, th, reports = served(seed=3, speed=10.0, faults=["unplug:after=5,ms=30000"])  # 3 s of wall: longer than the 2 s link timeout
    first = os.readlink(path)
    h = PtyHost(path)
    assert h.wait(lambda: h.link.connected, 10)
    h.command("configure_build", 1, [34] * 4, 17, [1, 2], 1)
    h.command("build", 1)
    end = time.monotonic() + 20
    while os.path.lexists(path):
        assert time.monotonic() < end, "the symlink never went away"
        h.pump()
    h.close()
    end = time.monotonic() + 20
    while not os.path.lexists(path):
        assert time.monotonic() < end, "the symlink never came back"
        time.sleep(0.01)
    h2 = PtyHost(path)
    assert h2.wait(lambda: h2.link.connected, 10)  # a new session on the new pty
    h2.command("status")
    assert h2.wait(lambda: h2.seen("status_reply"), 10)
    st = h2.seen("status_reply")[0]
    assert st[0] == m.S_PAUSED and st[2] == 1  # the build paused when the link went
    h2.close()
    stop.set()
    th.join(20)
    ev = [e for _, e in reports[0]["pty"]["plug_events"]]
    assert ev == ["unplug", "replug"]
    assert first != "" and reports[0]["wire"]["unplugs"] == 1


def test_server_arguments(tmp_path):
    with pytest.raises(ValueError):
        Server("reference-18", [SET, SET], speed=0, port_link_path=str(tmp_path / "p"))
    with pytest.raises(ValueError):
        Server("reference-18", [SET, SET], firmware_runtime="jython", port_link_path=str(tmp_path / "p"))


def test_micropython_runtime_over_the_pty(served, micropython_bin):
    path, stop, th, reports = served(seed=4, speed=20.0, firmware_runtime="micropython")
    h = PtyHost(path)
    assert h.wait(lambda: h.link.connected, 15)
    h.command("configure_build", 1, [34] * 4, 17, [1, 2], 1)
    h.command("build", 1)
    assert h.wait(lambda: h.seen("build_done"), 40)
    assert len(h.seen("tile")) == 136
    h.close()
    stop.set()
    th.join(20)
    assert reports[0]["firmware_runtime"] == "micropython"


def test_state_file_shows_the_motors_while_building(served, tmp_path):
    state = str(tmp_path / "state.json")
    path, stop, th, reports = served(seed=3, speed=40.0, state_path=state, state_every_s=0.01)
    h = PtyHost(path)
    assert h.wait(lambda: h.link.connected, 10)

    def read():
        with open(state) as f:
            return json.load(f)

    assert read()["driven"] == [] and read()["plugged"] is True
    h.command("configure_build", 1, [34] * 4, 17, [1, 2], 1)
    h.command("build", 1)
    assert h.wait(lambda: "mixer_pwm" in read()["driven"], 10)  # the mixer runs
    assert h.wait(lambda: h.seen("build_done"), 30)
    assert h.wait(lambda: read()["driven"] == [] and read()["mixer"]["tiles"] == 0, 10)  # built, all still
    h.close()
    stop.set()
    th.join(20)
    assert not os.path.exists(state + ".tmp")
