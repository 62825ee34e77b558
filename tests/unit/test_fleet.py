"""hostd.cli.fleet: every table a broker knows, from the retained messages (a real Mosquitto,
tests/mqtt_broker.py; skipped without it), and how they are shown."""
import asyncio
import json

import pytest

from hostd.cli import fleet
from hostd.fleet.broker import parse
from hostd.cli.main import main
from tests.mqtt_broker import USERS, mqtt_broker  # noqa: F401 (fixture)


def status(state="idle", session=None, hand=None, fault=None, nxt="start a session", at=1000.0):
    return {"id": "x", "state": state, "fault": fault, "next": nxt, "at": at,
            "events_dropped": 0,
            "session": None if session is None else {"id": session, "ruleset": "riichi",
                                                     "hand": hand, "game": None}}


def test_tables_come_in_natural_order():
    ids = ["t10", "t2", "t1", "t11", "T3", "table-8", "table-07", "t9", "t02"]
    empty = {"availability": None, "status": None, "problem": None}
    got = [r["id"] for r in fleet.rows({t: empty for t in ids})]
    assert got == ["t1", "t02", "t2", "T3", "t9", "t10", "t11", "table-07", "table-8"]


def test_rows_and_text():
    tables = {
        "t2": {"availability": "offline", "status": status("built", 4, 2, at=1000.0),
               "problem": None},
        "t1": {"availability": "online", "status": status(
            "fault", 3, 1, fault={"kind": "jam", "message": "a jam on track 2"},
            nxt={"code": "stopped", "params": {}, "action": "clear_fault",
                 "text": "Track 2 is jammed: take the stuck tile out of track 2 by hand, then "
                         "clear the fault."}), "problem": None},
        "t3": {"availability": None, "status": None, "problem": "its status is not a JSON object"},
    }
    rows = fleet.rows(tables)
    assert [r["id"] for r in rows] == ["t1", "t2", "t3"]
    assert rows[0] == {"id": "t1", "online": True, "state": "fault", "session": 3,
                       "ruleset": "riichi", "game": None, "hand": 1, "next_code": "stopped",
                       "next": "Track 2 is jammed: take the stuck tile out of track 2 by hand, "
                               "then clear the fault.",
                       "fault": "a jam on track 2", "events_dropped": 0, "updated": 1000.0,
                       "problem": None}
    assert rows[1]["online"] is False and rows[2]["online"] is None
    out = fleet.text(rows, "mqtt://h:1883", now=1000.0 + 600).splitlines()
    assert out[0] == "3 tables on mqtt://h:1883, 1 online"
    assert out[1].split() == ["TABLE", "ONLINE", "STATE", "SESSION", "HAND", "FAULT", "NEXT"]
    assert out[2].split()[:5] == ["t1", "online", "fault", "3", "1"]
    assert "a jam on track 2" in out[2]
    assert out[3].split()[:5] == ["t2", "OFFLINE", "(built)", "4", "2"]
    assert out[3].endswith("offline; its last status came 10 min ago")
    assert out[4].split()[:2] == ["t3", "?"] and out[4].endswith("its status is not a JSON object")
    assert "no table on mqtt://h:1883" in fleet.text([], "mqtt://h:1883")


def publish_retained(broker, user, items):
    import aiomqtt

    async def go():
        b = parse(broker.url(user), env=broker.env(user))
        async with aiomqtt.Client(**b.client_kwargs()) as c:
            for t, payload in items:
                await c.publish(t, payload, qos=1, retain=True)

    asyncio.run(go())


def test_collect_reads_every_table_from_the_retained_messages(mqtt_broker):
    publish_retained(mqtt_broker, "table-t1", [
        ("jantaku/t1/availability", b"online"),
        ("jantaku/t1/status", json.dumps(status("building", 5, 3)).encode())])
    publish_retained(mqtt_broker, "table-t2", [
        ("jantaku/t2/availability", b"offline"), ("jantaku/t2/status", b"{not json")])
    b = parse(mqtt_broker.url("viewer"), env=mqtt_broker.env("viewer"))
    tables = asyncio.run(fleet.collect(b, wait=5))
    assert set(tables) == {"t1", "t2"}
    assert tables["t1"]["availability"] == "online"
    assert tables["t1"]["status"]["session"]["id"] == 5
    assert tables["t2"] == {"availability": "offline", "status": None,
                            "problem": "its status is not a JSON object"}


def test_collect_answers_at_once_while_tables_keep_publishing(mqtt_broker):
    """Busy tables never leave the broker quiet: the retained messages come first on
    subscribing, so the first live one ends the wait (not --wait)."""
    import time

    import aiomqtt

    publish_retained(mqtt_broker, "table-t1", [
        ("jantaku/t1/availability", b"online"),
        ("jantaku/t1/status", json.dumps(status("building", 5, 3)).encode())])

    async def go():
        b = parse(mqtt_broker.url("table-t2"), env=mqtt_broker.env("table-t2"))
        async with aiomqtt.Client(**b.client_kwargs()) as c:
            async def busy():
                while True:  # a table building: a status every 50 ms
                    await c.publish("jantaku/t2/status", json.dumps(status("building", 9, 1))
                                    .encode(), qos=1, retain=True)
                    await asyncio.sleep(0.05)

            task = asyncio.create_task(busy())
            await asyncio.sleep(0.3)
            t0 = time.monotonic()
            tables = await fleet.collect(parse(mqtt_broker.url("viewer"),
                                               env=mqtt_broker.env("viewer")), wait=5)
            took = time.monotonic() - t0
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        return tables, took

    tables, took = asyncio.run(go())
    assert set(tables) == {"t1", "t2"} and tables["t2"]["status"]["session"]["id"] == 9
    assert took < 1.0, took


def test_fleet_status_on_the_command_line(mqtt_broker, capsys, monkeypatch):
    publish_retained(mqtt_broker, "table-t1", [
        ("jantaku/t1/availability", b"online"),
        ("jantaku/t1/status", json.dumps(status("idle")).encode())])
    monkeypatch.setenv("JANTAKU_MQTT_PASSWORD", USERS["viewer"])
    assert main(["fleet", "status", "--mqtt", mqtt_broker.url("viewer"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["broker"] == mqtt_broker.url("viewer")
    assert [(t["id"], t["online"], t["state"]) for t in out["tables"]] == [("t1", True, "idle")]
    # a user the ACL does not let read the fleet sees nothing, and is told why that may be;
    # a wrong password, no broker: one line, exit 1
    monkeypatch.setenv("JANTAKU_MQTT_PASSWORD", USERS["table-t1"])
    assert main(["fleet", "status", "--mqtt", mqtt_broker.url("table-t1")]) == 0
    assert "the broker's ACL does not let this user read them" in capsys.readouterr().out
    monkeypatch.setenv("JANTAKU_MQTT_PASSWORD", "wrong")
    assert main(["fleet", "status", "--mqtt", mqtt_broker.url("viewer")]) == 1
    assert "refused the user or password" in capsys.readouterr().err
    mqtt_broker.stop()
    assert main(["fleet", "status", "--mqtt", mqtt_broker.url("viewer")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("jantaku fleet: cannot read the broker") and "Traceback" not in err


@pytest.mark.parametrize("argv, words", [
    (["--mqtt", "mqtt://u:pw@h"], "holds a password"),
    (["--mqtt", "mqtt://h", "--wait", "0"], "--wait takes seconds above 0"),
    ([], "the following arguments are required: --mqtt"),
])
def test_fleet_status_bad_input_is_exit_2(argv, words, capsys):
    assert main(["fleet", "status"] + argv) == 2
    assert words in capsys.readouterr().err


def test_the_fleet_command_keeps_jantaku_help_light():
    import subprocess
    import sys

    from tests.conftest import ROOT

    code = ("import sys; from hostd.cli import main as cli; cli.build_parser(); print(sorted(m for m in "
            "('aiomqtt', 'paho', 'hostd.fleet.broker', 'hostd.fleet.mqtt') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(ROOT))
    assert r.stdout.strip() == "[]", r.stdout + r.stderr
    assert fleet.ROOT == __import__("hostd.fleet.broker").fleet.broker.ROOT
