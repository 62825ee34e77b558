"""The simulated table's buttons pressed from outside (hw_sim/control.py `press`, `jantaku
sim press`), and the host's side of the status light and the buttons (TableClient)."""
import asyncio
import json
import os
import socket
import tempfile
import threading

import pytest

from hostd.cli import main as cli
from hostd.table.sim import board_profile
from hostd.cli.demo import sim_sets
from hostd.errors import BadRequest
from hostd.table.link import LinkClient
from hostd.rules.rulesets import get_ruleset
from hostd.table.client import TableClient
from hostd.table.transport import InProcessTransport
from hw_sim.control import Control, request
from hw_sim.guard import PRESS_MS
from hw_sim.inprocess import InProcessTable


def table(seed=3):
    return InProcessTable(board_profile(), sim_sets(get_ruleset("riichi"), ("blue", "green")), seed=seed)


def advance(sim, ms):
    """Table time moves on by ms (whatever the firmware writes: nobody reads it)."""
    sim.run_until(sim.now_us() + int(ms * 1000))


def fw_status(sim):
    return sim.get_status()["firmware"]["controller"]


@pytest.fixture
def served():
    """A Control channel on a simulated table, served by a thread, at a short path (a
    Unix socket's path is limited to about 100 bytes)."""
    d = tempfile.mkdtemp(prefix="jt16-")
    link = os.path.join(d, "tty")
    sim = table()
    ctl = Control(link, sim)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            ctl.poll()
            stop.wait(0.005)

    t = threading.Thread(target=serve)
    t.start()
    try:
        yield link, sim
    finally:
        stop.set()
        t.join()
        ctl.close()
        os.rmdir(d)


def test_press_over_the_control_channel_reaches_the_firmware(served):
    link, sim = served
    assert request(link, "press", button="dice") == {"ok": True, "pressed": "dice", "ms": PRESS_MS}
    advance(sim, 300)
    assert sim.fw.ctl.buttons.get_status() == {"start": 0, "dice": 1}
    assert sim.get_status()["guard"]["presses"] == 1
    assert request(link, "press", button="start")["ok"]
    advance(sim, 300)
    assert sim.fw.ctl.buttons.get_status() == {"start": 1, "dice": 1}


def test_a_press_lasts_past_the_debounce_and_is_released(served):
    link, sim = served
    request(link, "press", button="start")
    advance(sim, PRESS_MS // 2)
    assert sim.get_status()["guard"]["start_button"] == 0  # held down
    advance(sim, PRESS_MS)
    assert sim.get_status()["guard"]["start_button"] == 1  # released: one press, not two
    assert sim.fw.ctl.buttons.get_status()["start"] == 1


def test_a_bad_button_or_request_is_refused_with_what_is_accepted(served):
    link, sim = served
    r = request(link, "press", button="lift")
    assert r == {"ok": False, "error": "no button 'lift'; accepted: start, dice"}
    assert request(link, "press")["error"] == "no button None; accepted: start, dice"
    assert "accepted: push, press" in request(link, "dance")["error"]
    advance(sim, 300)
    assert sim.get_status()["guard"]["presses"] == 0


def test_no_simulator_behind_the_link_says_so(tmp_path):
    with pytest.raises(OSError, match="no simulated table at .*sim serve --link"):
        request(str(tmp_path / "tty"), "press", button="start")
    # a socket left behind by a simulator that is gone: refused, the same words
    path = tempfile.mktemp(prefix="jt16-", dir="/tmp")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path + ".ctl")
    s.close()
    try:
        with pytest.raises(OSError, match="no simulated table at"):
            request(path, "press", button="start")
    finally:
        os.unlink(path + ".ctl")


def test_cli_sim_press(served, capsys):
    link, sim = served
    assert cli.main(["sim", "press", "dice", "--link", link]) == 0
    assert capsys.readouterr().out == "pressed dice\n"
    advance(sim, 300)
    assert sim.fw.ctl.buttons.get_status()["dice"] == 1


def test_cli_sim_press_bad_input(tmp_path, capsys):
    assert cli.main(["sim", "press", "lift", "--link", str(tmp_path / "tty")]) == 2
    err = capsys.readouterr().err
    assert "no button 'lift'; accepted: start, dice" in err and "Traceback" not in err
    assert cli.main(["sim", "press", "start", "--link", str(tmp_path / "tty")]) == 1
    err = capsys.readouterr().err
    assert "no simulated table at" in err and "Traceback" not in err


# ------------------------------------------------------------------ the host's side
async def _connected(sim):
    holder = {}
    presses = []
    client = LinkClient(InProcessTransport(sim), on_event=lambda i, v: holder["t"].on_event(i, v),
                        on_change=lambda w, d: holder["t"].link_changed(w, d))
    tc = holder["t"] = TableClient(client, on_button=presses.append)
    task = asyncio.create_task(client.run())
    await client.wait_connected(timeout=5)
    return client, tc, task, presses


async def _until(sim, pred, ms=3000):
    t0 = sim.now_ms()
    while not pred():
        assert sim.now_ms() - t0 < ms, "timed out"
        await asyncio.sleep(0)


def test_set_light_shows_the_hosts_pattern_and_checks_the_name():
    async def go():
        sim = table()
        client, tc, task, _ = await _connected(sim)
        try:
            assert fw_status(sim)["light"]["shown"] == "ready"
            assert await tc.set_light("people") is True
            assert fw_status(sim)["light"]["shown"] == "people"
            assert await tc.set_light("refused") is True
            st = fw_status(sim)["light"]
            assert st["shown"] == "refused" and st["host"] == "people" and tc.light == "people"
            with pytest.raises(BadRequest) as e:
                await tc.set_light("blink")
            assert str(e.value) == ("unknown light pattern 'blink'; accepted: auto, ready, "
                                    "people, dice, refused")
            assert await tc.set_light("auto") is True
            await _until(sim, lambda: fw_status(sim)["light"]["shown"] == "ready")
        finally:
            client.stop()
            task.cancel()

    asyncio.run(go())


def test_set_light_is_sent_again_after_the_table_restarted():
    async def go():
        sim = table()
        client, tc, task, _ = await _connected(sim)
        try:
            await tc.set_light("dice")
            sim.reset()  # the firmware forgets it (a new boot shows its own pattern)
            await _until(sim, lambda: client.resets == 1 and client.connected, ms=10000)
            await _until(sim, lambda: fw_status(sim)["light"]["shown"] == "dice", ms=10000)
        finally:
            client.stop()
            task.cancel()

    asyncio.run(go())


def test_set_light_on_a_firmware_without_the_command_sends_nothing():
    async def go():
        sim = table()
        client, tc, task, _ = await _connected(sim)
        try:
            client.identity = dict(client.identity, minor=0)
            sent = client.link.sent_seq
            assert await tc.set_light("people") is False
            assert client.link.sent_seq == sent and fw_status(sim)["light"]["host"] == "auto"
        finally:
            client.stop()
            task.cancel()

    asyncio.run(go())


def test_a_pressed_button_reaches_the_table_client():
    async def go():
        sim = table()
        client, tc, task, presses = await _connected(sim)
        try:
            sim.press("start")
            await _until(sim, lambda: presses == ["start"])
            sim.press("dice")
            await _until(sim, lambda: presses == ["start", "dice"])
            with pytest.raises(ValueError, match="accepted: start, dice"):
                sim.press("lift")
        finally:
            client.stop()
            task.cancel()

    asyncio.run(go())


def test_the_simulated_light_is_in_the_state():
    sim = table()
    st = sim.get_status()
    assert st["guard"]["light"] == 0 and st["firmware"]["controller"]["light"]["shown"] == "off"
    json.dumps(st)
