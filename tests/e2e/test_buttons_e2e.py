"""The simulated table's buttons pressed from outside (`jantaku sim press`) reach the
firmware and the real daemon over a real pseudo-terminal; the status light is the
firmware's own while no host is connected, ready once one is, dark again once it is gone.
With --hil-port they are skipped: a real table's buttons are pressed by hand."""
import json
import subprocess
import threading
import time

import httpx
import pytest

from tests.conftest import ROOT, tool
from tests.e2e.conftest import start_daemon, start_sim
from tests.e2e.conftest import quiet

pytestmark = pytest.mark.e2e


def read_state(path, pred=lambda st: True, timeout=15, what="the simulated table's state"):
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        try:
            with open(path) as f:
                last = json.load(f)
            if pred(last):
                return last
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    raise AssertionError("timed out waiting for %s; last %s" % (what, last and {
        "guard": last.get("guard"), "light": last.get("firmware", {}).get("controller", {}).get("light")}))


def light(st):
    return st["firmware"]["controller"]["light"]


def press(link, button):
    return subprocess.run([tool("jantaku"), "sim", "press", button, "--link", link],
                          capture_output=True, text=True, timeout=30, cwd=str(ROOT))


class Events:
    """The daemon's /events, read by a thread into a list."""

    def __init__(self, url):
        self.items = []
        self._stop = False
        self._ready = threading.Event()
        self._t = threading.Thread(target=self._read, args=(url,), daemon=True)
        self._t.start()
        assert self._ready.wait(10), "no hello from /events"

    def _read(self, url):
        try:
            with httpx.stream("GET", url + "/events", timeout=httpx.Timeout(5, read=None)) as r:
                for line in r.iter_lines():
                    if line.startswith("data:"):
                        self.items.append(json.loads(line[5:]))
                        self._ready.set()
                    if self._stop:
                        return
        except httpx.HTTPError:
            pass

    def wait(self, pred, timeout=15, what="an event"):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            got = [e for e in self.items if pred(e)]
            if got:
                return got
            time.sleep(0.05)
        raise AssertionError("no %s in %s" % (what, [e.get("type") for e in self.items]))

    def close(self):
        self._stop = True


def test_a_button_pressed_from_outside_reaches_the_daemon(tmp_path, hil_port):
    if hil_port:
        pytest.skip("a real table's buttons are pressed by hand")
    state = str(tmp_path / "state.json")
    sim, link = start_sim(tmp_path, "--ruleset", "riichi", "--seed", "7", "--state", state)
    d = events = None
    try:
        # no host yet: the light is the firmware's own, dark
        st = read_state(state, lambda s: "firmware" in s)
        assert light(st)["shown"] == "off" and st["guard"]["light"] == 0
        d = start_daemon(tmp_path, link)
        d.wait(lambda s: s["table"]["connected"], what="the table to connect")
        st = read_state(state, lambda s: light(s)["shown"] == "ready", what="the light ready")
        assert st["guard"]["light"] == 1 and light(st)["host"] == "auto"
        events = Events(d.url)
        r = press(link, "start")
        assert r.returncode == 0 and r.stdout == "pressed start\n", r.stderr
        events.wait(lambda e: e.get("type") == "button", what="button event")
        r = press(link, "dice")
        assert r.returncode == 0, r.stderr
        got = events.wait(lambda e: e.get("type") == "button" and e["button"] == "dice",
                          what="dice button event")
        presses = [e for e in events.items if e.get("type") == "button"]
        assert [e["button"] for e in presses] == ["start", "dice"]
        # the daemon's own answer (docs/API.md): nothing to do for either on an idle table
        assert all(e["taken"] is False and e["why"] for e in presses) and got, presses
        st = read_state(state, lambda s: s["guard"]["presses"] == 2 and s["guard"]["dice_button"] == 1
                        and s["firmware"]["controller"]["buttons"]["dice"] == 1,
                        what="two presses made and released")
        assert st["guard"]["start_button"] == 1 and st["guard"]["dice_button"] == 1  # released
        assert st["firmware"]["controller"]["buttons"] == {"start": 1, "dice": 1}  # debounced
        # a bad button is refused before the simulator is asked, naming the accepted ones
        r = press(link, "lift")
        assert r.returncode == 2 and "no button 'lift'; accepted: start, dice" in r.stderr
        assert "Traceback" not in r.stderr
        # the host gone (killed, no goodbye): after the link's silence the light is dark
        events.close()
        d.proc.kill()
        st = read_state(state, lambda s: light(s)["shown"] == "off", timeout=20,
                        what="the light dark once the host is gone")
        assert st["guard"]["light"] == 0
    finally:
        if events is not None:
            events.close()
        if d is not None:
            d.proc.kill()
        sim.kill()
    # the simulator is gone: its control channel with it
    r = press(link, "start")
    assert r.returncode == 1 and "no simulated table at %s" % link in r.stderr


def test_players_run_hands_with_the_table_buttons_alone(tmp_path, hil_port):
    """Shenyang over `sim serve` + `run --port`: the start button performs the first hand
    over without any API call; the dice button throws, shown in status with the break and
    Shenyang's double; the light asks for the dice until then."""
    if hil_port:
        pytest.skip("a real table's buttons are pressed by hand")
    state = str(tmp_path / "state.json")
    sim, link = start_sim(tmp_path, "--ruleset", "shenyang", "--seed", "5", "--state", state)
    d = None
    try:
        d = start_daemon(tmp_path, link)
        d.wait(lambda s: s["table"]["connected"], what="the table to connect")
        d.cli("session", "start", "--ruleset", "shenyang", "--loaded", "--wait")
        assert d.status()["session"]["hand"] == 0
        assert press(link, "start").returncode == 0
        d.wait(lambda s: s["session"]["hand"] == 1, what="hand 1 begun by the start button")
        s = d.status()["session"]
        assert s["hands"][0]["by"] == "button" and s["dice"] is None
        read_state(state, lambda st: light(st)["host"] == "dice", what="the light asking for dice")
        assert press(link, "dice").returncode == 0
        d.wait(lambda st: st["session"]["dice"] is not None, what="the throw")
        t = d.status()["session"]["dice"]
        assert t["hand"] == 1 and t["by"] == "button" and len(t["dice"]) == 2
        assert all(1 <= v <= 6 for v in t["dice"]) and t["total"] == sum(t["dice"])
        assert {"breaker", "break_from_right", "unit", "dead_wall_tiles", "double"} <= set(t)
        assert t["dead_wall_tiles"] == 16 and t["double"] == (t["dice"][0] == t["dice"][1])
        assert "dice %d+%d = %d" % (t["dice"][0], t["dice"][1], t["total"]) in d.cli("status").stdout
        read_state(state, lambda st: light(st)["host"] == "auto", what="the light back to its own")
        d.wait(lambda st: quiet(st), what="deck B built", timeout=120)
        assert press(link, "start").returncode == 0  # the next hand, by button again
        d.wait(lambda st: st["session"]["hand"] == 2 and st["session"]["dice"] is None,
               what="hand 2 without a throw yet")
    finally:
        if d is not None:
            d.proc.kill()
        sim.kill()
