"""hostd.fleet.mqtt: commands answered as the API answers, the compact status, the outbox, and
the bridge against a real Mosquitto (tests/mqtt_broker.py; skipped without it)."""
import asyncio
import json
import time

import httpx
import pytest

from hostd.fleet import mqtt
from hostd.web.api import create_app
from hostd.fleet.broker import parse
from hostd.errors import BadRequest, NotReady
from hostd.table.client import TableFault
from protocol.messages import F_JAM
from hostd.table.link import TableGone
from hostd.fleet.mqtt import Bridge, Outbox, compact_status, parse_command, run_command
from hostd.core.state import State  # noqa: F401
from tests.mqtt_broker import USERS, mqtt_broker, mqtt_broker_tls  # noqa: F401 (fixtures)

STATUS = {  # docs/API.md's example, as Daemon.status() gives it: hand 2 in play, deck B built
    "api": 2,
    "state": {"name": "building", "seq": 41, "since": 1.8e9,
              "params": {"deck": "B", "top": "A", "hand": 2, "game": 1, "thrown": True,
                         "stage": "build", "until": None}},
    "next": {"code": "playing_building", "params": {"hand": 2, "game": 1, "game_hand": 2,
                                                     "deck": "B"},
             "text": "Hand 2 of game 1 is being played; deck B is being built inside.",
             "action": None},
    "can": ["end", "abort"], "fault": None,
    "table": {"connected": True, "error": None, "state": "building", "fault": None,
              "lift": "bottom", "door": "closed", "guard": {"curtain": True, "lid": True},
              "build": {"id": 3, "targets": [34, 34, 34, 34], "per_track": [34, 34, 34, 12]},
              "identity": {"tracks": 4}, "resets": 0},
    "session": {"id": 7, "ruleset": "riichi", "mixed_deck": True, "hand": 2, "game": 1,
                "game_hand": 2,
                "decks": {"A": {"tiles": 136, "backs": {"blue": 68, "green": 68}, "where": "top"},
                          "B": {"where": "split"}},
                "builds": [{"n": 1}] * 50, "hands": [{"n": 1}] * 50,
                "faults": [{"kind": "jam", "message": "old jam", "recovered": True}]},
    "last_end": None,
}

class FakeDaemon:
    """What the bridge needs of hostd.core.daemon.Daemon: subscribe(), status() and the verbs."""

    def __init__(self):
        self.calls = []
        self.raise_next = None
        self.st = json.loads(json.dumps(STATUS))
        self.subscribers = []

    def status(self):
        return self.st

    def publish(self, event):
        for q in self.subscribers:
            q.put_nowait(event)

    async def subscribe(self):
        q = asyncio.Queue()
        self.subscribers.append(q)
        try:
            while True:
                yield await q.get()
        finally:
            self.subscribers.remove(q)

    async def _cmd(self, name, **kw):
        self.calls.append((name, kw))
        await asyncio.sleep(0.05)
        if self.raise_next is not None:
            exc, self.raise_next = self.raise_next, None
            raise exc
        return {"ok": True, "command": name, "seq": 41, "next": self.st["next"]}

    async def hand_over(self):
        return await self._cmd("hand_over")

    async def continue_(self):
        return await self._cmd("continue")

    async def clear_fault(self):
        return await self._cmd("clear_fault")

    async def abort(self):
        return await self._cmd("abort")


class FullDaemon(FakeDaemon):
    """With the throw and the new game too."""

    async def throw_dice(self, dice=None):
        return await self._cmd("throw_dice", dice=dice)

    async def new_game(self):
        return await self._cmd("new_game")


# -- commands -------------------------------------------------------------------------------

@pytest.mark.parametrize("verb, payload, status, code, words", [
    ("launch", b"{}", 404, "not_found", "the verbs are abort, clear_fault, continue, dice, "
                                        "game_new, hand_over"),
    ("hand_over", b"{", 400, "bad_json", "not valid JSON"),
    ("hand_over", b"\xff{}", 400, "bad_json", "invalid UTF-8 at byte 0"),
    ("hand_over", b'{"id": 1, "id": 2}', 400, "bad_json", "given twice"),
    ("dice", b'{"dice": [NaN, 3]}', 400, "bad_json", "NaN is not JSON"),
    ("hand_over", b"[]", 422, "bad_request", "payload: Input should be a valid dictionary (a JSON object), not an array"),
    ("dice", b"null", 422, "bad_request", "payload: Input should be a valid dictionary"),
    ("dice", b'{"dice": [3, 1e999]}', 400, "bad_json", "the number 1e999 is out of range"),
    ("hand_over", b'{"force": true}', 422, "bad_request", "force: unknown field; accepted: no body, or {}"),
    ("dice", b'{"dice": "3,4"}', 422, "bad_request", "dice: Input should be a valid list"),
    ("hand_over", b'{"dice": [3, 4]}', 422, "bad_request", "dice: unknown field"),
    ("hand_over", b'{"id": ""}', 422, "bad_request", "id: must be a string of 1 to 128"),
    ("hand_over", b'{"id": true}', 422, "bad_request", "id: must be"),
    ("hand_over", b'{"id": [1]}', 422, "bad_request", "id: must be"),
    ("abort", b" " * (64 * 1024 + 1), 413, "too_large", "at most 65536 bytes"),
])
def test_a_bad_command_is_answered_with_what_is_wrong_and_accepted(verb, payload, status, code,
                                                                    words):
    body, refusal = parse_command(verb, payload)
    assert body is None
    assert refusal[0] == status
    assert refusal[1]["error"]["code"] == code
    assert words in refusal[1]["error"]["message"]


@pytest.mark.parametrize("payload, body", [
    (b"", {}), (b"{}", {}), (b'  {"id": "a-1"} ', {"id": "a-1"}), (b'{"id": 7}', {"id": 7})])
def test_empty_and_id_payloads_are_accepted(payload, body):
    assert parse_command("hand_over", payload) == (body, None)
    assert parse_command("dice", b'{"dice": [3, 4]}') == ({"dice": [3, 4]}, None)


API_ROUTES = {"hand_over": "/hand-over", "continue": "/continue", "clear_fault": "/clear-fault",
              "abort": "/abort"}


@pytest.mark.parametrize("exc", [
    None,
    NotReady("the table is busy (hand_over): wait", code="busy"),
    NotReady("nothing waits for people: start a session", code="nothing_to_continue"),
    TableGone("the table is not connected (no such port): check its cable"),
    TableFault(F_JAM, 2),
    BadRequest("bad values"),
])
@pytest.mark.parametrize("verb", sorted(API_ROUTES))
def test_a_command_is_answered_exactly_as_the_api_answers(verb, exc):
    async def go():
        d_api, d_mqtt = FakeDaemon(), FakeDaemon()
        d_api.raise_next = d_mqtt.raise_next = exc
        transport = httpx.ASGITransport(app=create_app(d_api), raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8737") as c:
            r = await c.post(API_ROUTES[verb])
        return r, await run_command(d_mqtt, verb, {}), d_api.calls, d_mqtt.calls

    r, (status, answer), api_calls, mqtt_calls = asyncio.run(go())
    assert (status, answer) == (r.status_code, r.json())
    assert mqtt_calls == api_calls and len(mqtt_calls) == 1
    assert "kaboom" not in json.dumps(answer)


def test_an_unexpected_error_is_a_500_without_its_insides_as_in_the_api():
    test_a_command_is_answered_exactly_as_the_api_answers(
        "hand_over", RuntimeError("kaboom: a secret internal detail"))


def test_dice_and_game_new_call_the_daemon_as_the_api_does():
    d = FullDaemon()
    assert asyncio.run(run_command(d, "dice", {"dice": [3, 4], "id": "x"}))[0] == 200
    assert asyncio.run(run_command(d, "dice", {}))[0] == 200
    assert asyncio.run(run_command(d, "game_new", {}))[0] == 200
    assert d.calls == [("throw_dice", {"dice": [3, 4]}), ("throw_dice", {"dice": None}),
                       ("new_game", {})]


# -- status ---------------------------------------------------------------------------------

def test_compact_status_has_what_a_fleet_needs_and_not_the_history():
    c = compact_status(STATUS)
    assert c["state"] == "building" and c["seq"] == 41 and c["table_state"] == "building"
    assert c["connected"] is True and c["fault"] is None
    assert c["next"] == STATUS["next"] and c["can"] == ["end", "abort"]
    assert c["build"] == {"id": 3, "tiles": 114, "of": 136}
    s = c["session"]
    assert (s["id"], s["ruleset"], s["mixed_deck"], s["game"], s["hand"]) == (
        7, "riichi", True, 1, 2)
    assert s["decks"] == {"A": {"where": "top", "tiles": 136, "backs": {"blue": 68, "green": 68}},
                          "B": {"where": "split"}}
    assert "builds" not in s and "hands" not in s and "faults" not in s
    assert len(json.dumps(c)) < len(json.dumps(STATUS)) / 2


def test_compact_status_names_the_open_fault():
    st = json.loads(json.dumps(STATUS))
    st["fault"] = {"kind": "jam", "track": 2, "deck": "B", "step": "hand_over",
                   "message": "deck B: counted 48 of 136: track 2 is jammed",
                   "todo": "take the stuck tile out of track 2 by hand, then clear the fault",
                   "action": "clear_fault"}
    c = compact_status(st)
    assert c["fault"] == {k: st["fault"][k] for k in ("kind", "track", "message", "todo", "action")}
    assert c["last_fault"] == {"kind": "jam", "message": st["fault"]["message"],
                               "recovered": False}
    st = {"table": {"connected": False, "state": "disconnected", "error": "no such port"},
          "session": None, "next": {"code": "table_disconnected"}, "fault": None}
    assert compact_status(st)["error"] == "no such port"


# -- the outbox -----------------------------------------------------------------------------

def test_a_message_over_the_limit_is_dropped_counted_and_reported():
    ob = Outbox(10)
    ob.put("jantaku/t1/events", b"{}", 1)
    ob.put("jantaku/t1/events", b"x" * (mqtt.MAX_MESSAGE_BYTES + 1), 2)
    ob.put("jantaku/t1/events", b"{}", 3)
    assert len(ob) == 2 and ob.dropped == 1
    assert ob.take_gap() == {"count": 1, "first_seq": 2, "last_seq": 2, "replies": 0}


def test_a_full_outbox_drops_the_oldest_counts_and_keeps_the_range():
    async def go():
        ob = Outbox(3)
        for seq in range(1, 4):
            ob.put("e", b"%d" % seq, seq)
        first = await ob.head()  # being sent: never the one dropped
        ob.put("e", b"4", 4)
        ob.put("r", b"reply")
        ob.put("e", b"6", 6)
        assert [p for _, p, _ in ob._q] == [b"1", b"reply", b"6"]
        assert ob.dropped == 3
        assert ob.take_gap() == {"count": 3, "first_seq": 2, "last_seq": 4, "replies": 0}
        assert ob.take_gap() is None
        ob.restore_gap({"count": 2, "first_seq": 2, "last_seq": 3, "replies": 0})
        ob.put("e", b"7", 7)  # drops the reply
        assert ob.take_gap() == {"count": 2, "first_seq": 2, "last_seq": 3, "replies": 1}
        ob.done(first)
        assert [p for _, p, _ in ob._q] == [b"6", b"7"]
        with pytest.raises(ValueError):
            Outbox(0)

    asyncio.run(go())


# -- the bridge on a real broker -------------------------------------------------------------

class Watcher:
    """A test client (aiomqtt) that keeps every message on jantaku/# it is allowed to read."""

    def __init__(self, broker, user="viewer", topics="jantaku/#", tls=False, persistent=False):
        self.url = broker.url(user, tls=tls)
        self.user = user
        self.ca = broker.ca if tls else None
        self.topics = topics
        self.persistent = persistent  # a session the broker keeps (and queues for) between two
        self.got = []

    async def __aenter__(self):
        import aiomqtt

        b = parse(self.url, ca_file=self.ca, env={"JANTAKU_MQTT_PASSWORD": USERS[self.user]})
        kept = {"identifier": self.user, "clean_session": False} if self.persistent else {}
        self.client = aiomqtt.Client(**b.client_kwargs(), **kept)  # (the broker's id: the user)
        await self.client.__aenter__()
        await self.client.subscribe(self.topics, qos=1)
        self.task = asyncio.create_task(self._read())
        return self

    async def _read(self):
        async for m in self.client.messages:
            self.got.append((str(m.topic), bytes(m.payload), m.retain))

    async def __aexit__(self, *exc):
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)
        await self.client.__aexit__(None, None, None)

    def on(self, suffix):
        return [p for t, p, _ in self.got if t.endswith(suffix)]

    def events(self):
        return [json.loads(p) for p in self.on("/events")]

    async def wait(self, pred, what, timeout=10.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if pred(self):
                return
            await asyncio.sleep(0.02)
        raise AssertionError("timed out waiting for %s; got %r" % (what, self.got[-10:]))


def bridge_for(broker, daemon, user="table-t1", table_id="t1", tls=False, **kw):
    b = parse(broker.url(user, tls=tls), ca_file=broker.ca if tls else None,
              env={"JANTAKU_MQTT_PASSWORD": USERS[user]})
    kw.setdefault("retry", (0.05, 0.5))
    return Bridge(daemon, b, table_id, **kw)


async def ready(broker):
    """Once t1's status is on the broker, its bridge has subscribed to its commands."""
    async with Watcher(broker, topics="jantaku/t1/status") as w:
        await w.wait(lambda w: w.got, "the bridge to be up")


async def command(broker, verb, payload, user="operator", table_id="t1"):
    """Publish one command as `user` and return the reply (or None after 3 s)."""
    async with Watcher(broker, user, "jantaku/%s/reply" % table_id) as w:
        await w.client.publish("jantaku/%s/command/%s" % (table_id, verb), payload, qos=1)
        try:
            await w.wait(lambda w: w.got, "a reply", timeout=3)
        except AssertionError:
            return None
        return json.loads(w.got[0][1])


def test_the_bridge_publishes_availability_status_and_every_event_in_order(mqtt_broker):
    async def go():
        d = FakeDaemon()
        bridge = bridge_for(mqtt_broker, d)
        async with Watcher(mqtt_broker) as w:
            await bridge.start()
            await w.wait(lambda w: w.on("/availability") == [b"online"], "online")
            await w.wait(lambda w: w.on("/status"), "a status")
            for i in range(200):
                d.publish({"type": "tile", "build": 3, "track": i % 4, "index": i})
            d.st["table"]["state"] = "built"
            d.st["state"] = dict(d.st["state"], name="built")
            d.publish({"type": "build_done", "build": 3, "deck": "B", "ok": True})
            await w.wait(lambda w: len(w.events()) == 201, "201 events")
            await w.wait(lambda w: json.loads(w.on("/status")[-1])["state"] == "built",
                         "the status after the build")
            await bridge.close()
            await w.wait(lambda w: w.on("/availability")[-1:] == [b"offline"], "offline")
        evs = w.events()
        assert [e["seq"] for e in evs] == list(range(1, 202))
        assert [e.get("index") for e in evs[:200]] == list(range(200))
        assert evs[-1] == {"type": "build_done", "build": 3, "deck": "B", "ok": True, "seq": 201}
        st = json.loads(w.on("/status")[-1])
        assert st["id"] == "t1" and st["session"]["id"] == 7 and st["events_dropped"] == 0
        # at most a few status messages a second, however many events
        assert len(w.on("/status")) <= 6
        # retained: a newcomer gets the last availability and status at once
        async with Watcher(mqtt_broker) as late:
            await late.wait(lambda w: len(w.got) >= 2, "the retained messages")
            assert all(r for _, _, r in late.got)
            assert late.on("/availability") == [b"offline"]
            assert json.loads(late.on("/status")[0])["state"] == "built"

    asyncio.run(go())


def test_remote_commands_are_off_unless_turned_on(mqtt_broker):
    async def go():
        d = FakeDaemon()
        bridge = bridge_for(mqtt_broker, d)
        await bridge.start()
        await ready(mqtt_broker)
        reply = await command(mqtt_broker, "hand_over", b"{}")
        await bridge.close()
        return d, reply

    d, reply = asyncio.run(go())
    assert d.calls == []
    assert reply["status"] == 403 and reply["error"]["code"] == "commands_off"
    assert "--mqtt-commands" in reply["error"]["message"]


def test_a_command_with_an_id_runs_once_and_bad_ones_are_answered(mqtt_broker):
    async def go():
        d = FakeDaemon()
        bridge = bridge_for(mqtt_broker, d, commands=True)
        await bridge.start()
        await ready(mqtt_broker)
        async with Watcher(mqtt_broker, "operator", "jantaku/t1/reply") as w:
            for _ in range(3):  # sent again and again, e.g. by a retrying tool
                await w.client.publish("jantaku/t1/command/hand_over", b'{"id": "h-1"}', qos=1)
            await w.client.publish("jantaku/t1/command/continue", b"{}", qos=1)
            await w.client.publish("jantaku/t1/command/abort", b'{"now": 1}', qos=1)
            await w.wait(lambda w: len(w.got) == 5, "five replies")
        await bridge.close()
        return d, [json.loads(p) for _, p, _ in w.got]

    d, replies = asyncio.run(go())
    assert d.calls == [("hand_over", {}), ("continue", {})]
    by_verb = {}
    for r in replies:
        by_verb.setdefault(r["verb"], []).append(r)
    assert [r["result"]["command"] for r in by_verb["hand_over"]] == ["hand_over"] * 3
    assert all(r["result"]["seq"] == 41 and r["result"]["next"]["code"] == "playing_building"
               for r in by_verb["hand_over"])
    assert sorted(bool(r.get("repeat")) for r in by_verb["hand_over"]) == [False, True, True]
    assert all(r["id"] == "h-1" and r["status"] == 200 for r in by_verb["hand_over"])
    assert by_verb["continue"][0]["id"] is None
    assert by_verb["abort"][0]["status"] == 422
    assert by_verb["abort"][0]["error"]["message"].startswith("now: unknown field")


def test_a_retained_command_never_runs_however_often_the_bridge_connects(mqtt_broker):
    """Issue 53 point 2: `mosquitto_pub -r -q 1 -t jantaku/t1/command/hand_over -m '{}'`
    once, then the daemon's bridge connects three times: the broker hands the stored copy
    out at each subscription (retain flag set); it is never run, and each reply says why
    and how to clear it.  A command published afresh (no retain) still runs."""
    async def go():
        d = FakeDaemon()
        async with Watcher(mqtt_broker, "operator", "jantaku/t1/reply") as w:
            await w.client.publish("jantaku/t1/command/hand_over", b"{}", qos=1, retain=True)
            for _ in range(3):  # three connections of the daemon (a restart, a broker blip)
                bridge = bridge_for(mqtt_broker, d, commands=True)
                await bridge.start()
                await ready(mqtt_broker)
                n = len(w.got)
                await w.wait(lambda w: len(w.got) > n - 1 and any(
                    json.loads(p)["status"] == 400 for _, p, _ in w.got[n - 1:] if p), "a reply")
                await bridge.close()
            replies = [json.loads(p) for _, p, _ in w.got]
            bridge = bridge_for(mqtt_broker, d, commands=True)
            await bridge.start()
            await ready(mqtt_broker)
            await w.client.publish("jantaku/t1/command/hand_over", b"", qos=1, retain=True)
            await w.client.publish("jantaku/t1/command/hand_over", b'{"id": 1}', qos=1)
            await w.wait(lambda w: any(json.loads(p).get("status") == 200 for _, p, _ in w.got),
                         "the fresh command's reply")
            await bridge.close()
            cleared = [json.loads(p) for _, p, _ in w.got[len(replies):]
                       if json.loads(p).get("error", {}).get("code") == "empty_payload"]
        return d, replies, cleared

    d, replies, cleared = asyncio.run(go())
    assert d.calls == [("hand_over", {})]  # the fresh one alone: not the clearing's message
    assert len(cleared) == 1 and cleared[0]["status"] == 400
    refused = [r for r in replies if r["status"] == 400]
    assert len(refused) >= 3 and all(r["error"]["code"] == "retained" for r in refused)
    assert "mosquitto_pub -r -n -t jantaku/t1/command/hand_over" in refused[0]["error"]["message"]


def test_commands_over_an_anonymous_plain_broker_are_warned_at_start_and_in_health(log_buffer):
    """Issue 53 point 7: --mqtt-commands over mqtt:// without a user: two warnings, logged
    at start and in GET /health; none with commands off or a user over mqtts://."""
    quiet = Bridge(FakeDaemon(), parse("mqtt://127.0.0.1:1"), "t1")
    assert quiet.warnings() == []
    safe = Bridge(FakeDaemon(), parse("mqtts://table-t1@127.0.0.1:1",
                                      env={"JANTAKU_MQTT_PASSWORD": "x"}), "t1", commands=True)
    assert safe.warnings() == []
    d = FakeDaemon()
    loud = Bridge(d, parse("mqtt://127.0.0.1:1"), "t1", commands=True, retry=(5, 5))
    said = loud.warnings()
    assert len(said) == 2 and "without a user" in said[0] and "plain mqtt://" in said[1]
    assert loud.get_status()["warnings"] == said

    async def go():
        await loud.start()
        await loud.close()
        d.warnings = said
        transport = httpx.ASGITransport(app=create_app(d))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            return (await c.get("/health")).json()

    health = asyncio.run(go())
    assert health["warnings"] == said
    logged = [json.loads(line) for line in log_buffer.getvalue().splitlines()]
    assert any(e.get("level") == "warning" and "without a user" in e["event"]
               for e in logged), logged


def test_events_wait_for_a_broker_that_is_away_and_overflow_is_reported(mqtt_broker):
    """The table never waits: events go into the outbox at once while the broker is down;
    when it is back they come in order; what did not fit is counted and said."""
    async def go():
        d = FakeDaemon()
        bridge = bridge_for(mqtt_broker, d, outbox_limit=50)
        await bridge.start()
        # the watcher's session is kept by the broker (saved across its restart): what the
        # bridge sends back before the watcher is connected again waits for it
        async with Watcher(mqtt_broker, persistent=True) as w:
            await w.wait(lambda w: w.on("/availability") == [b"online"], "online")
        mqtt_broker.stop()
        await asyncio.sleep(0.2)
        t0 = time.perf_counter()
        for i in range(1000):
            d.publish({"type": "tile", "index": i})
            await asyncio.sleep(0)
        took = time.perf_counter() - t0
        assert not bridge.connected
        assert len(bridge.outbox) == 50 and bridge.outbox.dropped == 950
        mqtt_broker.start()
        async with Watcher(mqtt_broker, persistent=True) as w:
            await w.wait(lambda w: w.events() and w.events()[-1].get("index") == 999,
                         "the events after the broker came back", timeout=15)
            await w.wait(lambda w: w.on("/status") and json.loads(w.on("/status")[-1])
                         ["events_dropped"] == 950, "the status to count the drops")
        st = bridge.get_status()
        await bridge.close()
        return w.events(), took, st

    evs, took, st = asyncio.run(go())
    assert took < 1.0  # 1000 events with the broker away: the daemon never waited on it
    assert evs[0] == {"type": "events_dropped", "count": 950, "first_seq": 1, "last_seq": 950,
                      "replies": 0}
    assert [e["seq"] for e in evs[1:]] == list(range(951, 1001))
    assert st["dropped"] == 950 and st["connects"] == 2


@pytest.mark.parametrize("tied", [True, False])
def test_a_viewer_with_a_tables_client_id_cannot_take_its_connection(tmp_path, tied):
    """docs/FLEET.md's broker ties each client id to its user (use_username_as_clientid):
    a viewer connecting as `jantaku-t1` again and again gets its own id, and the table
    stays connected.  Without it (tied=False) each such connection knocks the table off."""
    from hostd.fleet.broker import client_class
    from tests.mqtt_broker import MISSING, TestBroker

    if MISSING:
        pytest.skip(MISSING)
    broker = TestBroker(tmp_path / "broker", tie_client_ids=tied)
    broker.start()

    async def go():
        d = FakeDaemon()
        bridge = bridge_for(broker, d, retry=(0.05, 0.2))
        async with Watcher(broker, "operator", "jantaku/t1/availability") as w:
            await bridge.start()
            await w.wait(lambda w: w.on("/availability")[-1:] == [b"online"], "online")
            viewer = parse(broker.url("viewer"), env={"JANTAKU_MQTT_PASSWORD": USERS["viewer"]})
            for _ in range(4):  # (the bridge's kind of client: it says nothing when kicked)
                async with client_class()(**viewer.client_kwargs(), identifier="jantaku-t1"):
                    await asyncio.sleep(0.25)
            await asyncio.sleep(0.3)
            connects = bridge.connects
            await bridge.close()
        return connects, w.on("/availability")

    try:
        connects, said = asyncio.run(go())
    finally:
        broker.stop()
    if tied:
        assert connects == 1 and said == [b"online", b"offline"], broker.log()  # offline: its own close
        log = broker.log()
        assert "already connected" not in log and "as viewer" in log, log
        assert "port 1883" not in log  # the listener option placed after its listener
    else:  # the attack the option stops
        assert connects >= 3 and said.count(b"offline") >= 3


PUBLISH = """
import sys, paho.mqtt.publish as p
p.single(sys.argv[1], b"{" + b" " * int(sys.argv[2]) + b"}", qos=1, hostname="127.0.0.1",
         port=int(sys.argv[3]), auth={"username": "operator", "password": sys.argv[4]})
"""


def test_a_command_too_large_is_never_read_whole(tmp_path):
    """On a broker with no packet limit (unlike docs/FLEET.md's), a command of megabytes
    reaches the bridge: it is read in 64 KiB pieces and dropped, answered 413 (403 with
    commands off), its QoS 1 acknowledged; the bridge's memory does not hold it."""
    import subprocess
    import sys
    import tracemalloc

    from tests.mqtt_broker import MISSING, TestBroker

    if MISSING:
        pytest.skip(MISSING)
    broker = TestBroker(tmp_path / "broker", max_packet=None)
    broker.start()

    async def publish(size):
        p = await asyncio.create_subprocess_exec(
            sys.executable, "-c", PUBLISH, "jantaku/t1/command/dice", str(size),
            str(broker.port), USERS["operator"])
        assert await p.wait() == 0  # acknowledged (QoS 1): published whole

    async def go(commands):
        d = FullDaemon()
        bridge = bridge_for(broker, d, commands=commands)
        # the replies read as viewer: the publisher is operator (one connection a user)
        async with Watcher(broker, "viewer", "jantaku/t1/reply") as w:
            await bridge.start()
            while not bridge.connected:
                await asyncio.sleep(0.02)
            await asyncio.sleep(0.2)
            tracemalloc.start()
            base = tracemalloc.get_traced_memory()[0]
            for size in (100 * 1024, 5 * 1024 * 1024):
                await publish(size)
            await w.wait(lambda w: len(w.got) == 2, "two replies", timeout=20)
            peak = tracemalloc.get_traced_memory()[1] - base
            tracemalloc.stop()
            await publish(10)  # and the connection goes on
            await w.wait(lambda w: len(w.got) == 3, "a third reply", timeout=10)
            connects = bridge.connects
            await bridge.close()
        return [json.loads(p) for _, p, _ in w.got], peak, connects, d.calls

    try:
        on, peak, connects, calls = asyncio.run(go(True))
        off, _, _, _ = asyncio.run(go(False))
    finally:
        broker.stop()
    assert [(r["status"], r["error"]["code"]) for r in on[:2]] == [(413, "too_large")] * 2
    assert "at most %d bytes" % mqtt.MAX_COMMAND_BYTES in on[1]["error"]["message"]
    assert on[2]["status"] == 200 and calls == [("throw_dice", {"dice": None})]
    assert connects == 1 and peak < 1024 * 1024, peak  # never 5 MB at once
    assert [r["status"] for r in off] == [403] * 3


def test_tls_with_a_ca_file(mqtt_broker_tls):
    async def go():
        d = FakeDaemon()
        bridge = bridge_for(mqtt_broker_tls, d, tls=True)
        async with Watcher(mqtt_broker_tls, tls=True) as w:
            await bridge.start()
            await w.wait(lambda w: w.on("/availability") == [b"online"], "online over TLS")
            await bridge.close()
        assert bridge.connects == 1

    asyncio.run(go())


def test_an_untrusted_certificate_is_refused_and_said(mqtt_broker_tls):
    async def go():
        b = parse(mqtt_broker_tls.url("table-t1", tls=True),
                  env={"JANTAKU_MQTT_PASSWORD": USERS["table-t1"]})  # the system's CAs only
        bridge = Bridge(FakeDaemon(), b, "t1", retry=(5, 5))
        await bridge.start()
        end = time.monotonic() + 5
        while bridge.error is None and time.monotonic() < end:
            await asyncio.sleep(0.05)
        await bridge.close()
        return bridge

    bridge = asyncio.run(go())
    assert not bridge.connected and bridge.connects == 0
    assert "certificate" in bridge.error and "--mqtt-ca" in bridge.error


def test_a_bridge_that_cannot_log_in_says_so(mqtt_broker):
    async def go():
        b = parse(mqtt_broker.url("table-t1"), env={"JANTAKU_MQTT_PASSWORD": "wrong"})
        bridge = Bridge(FakeDaemon(), b, "t1", retry=(5, 5))
        await bridge.start()
        end = time.monotonic() + 5
        while bridge.error is None and time.monotonic() < end:
            await asyncio.sleep(0.05)
        await bridge.close()
        return bridge

    bridge = asyncio.run(go())
    assert "refused the user or password" in bridge.error


def test_module_constants_stay_sane():
    assert 1 / mqtt.STATUS_INTERVAL_S <= 5  # "at most a few times a second"
    assert set(mqtt.VERBS) == {"hand_over", "dice", "continue", "game_new", "clear_fault", "abort"}


@pytest.mark.parametrize("argv, words", [
    (["--mqtt", "mqtt://h"], "--mqtt needs --table-id ID"),
    (["--table-id", "t1"], "--table-id without --mqtt URL"),
    (["--mqtt-commands"], "--mqtt-commands without --mqtt URL"),
    (["--mqtt", "mqtt://h", "--table-id", "t/1"], "table id 't/1' cannot be used"),
    (["--mqtt", "mqtt://u:secret@h", "--table-id", "t1"], "the broker URL holds a password"),
    (["--mqtt", "mqtt://h", "--table-id", "t1", "--mqtt-outbox", "0"],
     "--mqtt-outbox takes 1 to 1000000 messages"),
    (["--mqtt", "mqtt://h", "--table-id", "t1", "--mqtt-ca", "ca.pem"], "--mqtt-ca is for TLS"),
])
def test_run_refuses_bad_mqtt_options_before_anything_starts(argv, words, capsys, tmp_path):
    from hostd.cli.main import main

    assert main(["run", "--sim", "--db", str(tmp_path / "j.sqlite")] + argv) == 2
    err = capsys.readouterr().err
    assert words in err and "secret" not in err
    assert not (tmp_path / "j.sqlite").exists()


def test_the_backoff_is_capped_short_and_spread_at_random():
    b = parse("mqtt://127.0.0.1:1", env={})
    bridge = Bridge(FakeDaemon(), b, "t1")
    assert bridge.retry == (0.5, 3.0) == (mqtt.RETRY_MIN_S, mqtt.RETRY_MAX_S)
    for failures, full in ((0, 0.5), (1, 1.0), (2, 2.0), (3, 3.0), (10, 3.0), (10 ** 6, 3.0)):
        waits = [bridge.retry_delay(failures) for _ in range(2000)]
        assert full / 2 <= min(waits) < full / 2 + 0.05 * full, (failures, min(waits))
        assert full - 0.05 * full < max(waits) <= full, (failures, max(waits))
    # after a long outage, 50 tables' next tries: never more than 3 s away, spread over
    # 1.5 s or more (a few a tenth of a second, not 50 at once)
    room = sorted(bridge.retry_delay(100) for _ in range(50))
    assert room[-1] <= 3.0 and room[-1] - room[0] > 1.0
    assert max(sum(1 for w in room if t <= w < t + 0.1) for t in room) <= 12


def test_reconnects_back_off_from_the_shortest_to_the_longest_wait(log_buffer):
    tries = []

    class Refused:
        def __init__(self, **kw):
            self.kw = kw

        async def __aenter__(self):
            tries.append(time.monotonic())
            raise OSError("[Errno 111] Connection refused")

        async def __aexit__(self, *exc):
            return False

    async def go():
        b = parse("mqtt://127.0.0.1:1", env={})
        bridge = Bridge(FakeDaemon(), b, "t1", retry=(0.02, 0.16), client_factory=Refused)
        await bridge.start()
        await asyncio.sleep(1.5)
        st = bridge.get_status()
        t0 = time.monotonic()
        await bridge.close()
        return st, time.monotonic() - t0

    st, closing = asyncio.run(go())
    gaps = [b - a for a, b in zip(tries, tries[1:])]
    assert 0.01 <= gaps[0] <= 0.05  # 0.01 .. 0.02 s, the loop's own delay aside
    assert all(g <= 0.16 + 0.05 for g in gaps)  # never beyond the longest wait
    assert sum(gaps[4:]) / len(gaps[4:]) >= 0.16 * 0.6  # at the longest: 0.08 .. 0.16 s
    assert st["connected"] is False and st["error"] == "[Errno 111] Connection refused"
    assert st["connects"] == 0 and closing < 0.5  # closing does not wait for a broker
    # the first failure is a warning; the tries after it, a few a second, are not
    lines = [json.loads(x) for x in log_buffer.getvalue().splitlines() if x.startswith("{")]
    said = [(x["level"], x["tries"]) for x in lines if x["event"] == "mqtt broker not reachable"]
    assert said[0] == ("warning", 1) and len(tries) > 8
    assert [lv for lv, _ in said[1:]] == ["debug"] * (len(said) - 1)


@pytest.mark.parametrize("cls", ["aiomqtt", "ours"])
def test_a_socket_closed_before_the_loop_watches_it_is_no_asyncio_error(cls):
    """A broker killed mid-publish: paho asks for the socket to be watched for writing,
    then closes it before the loop gets to it.  aiomqtt's own client then has asyncio log
    "Exception in callback ... [Errno 9] Bad file descriptor"; the bridge's does not."""
    import socket

    import aiomqtt

    from hostd.fleet.broker import client_class

    errors = []

    async def go():
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda loop, ctx: errors.append(ctx))
        client = (aiomqtt.Client if cls == "aiomqtt" else client_class())(hostname="127.0.0.1")
        a, b = socket.socketpair()
        client._on_socket_register_write(client._client, None, a)
        client._on_socket_open(client._client, None, b)
        a.close()
        b.close()
        for _ in range(3):
            await asyncio.sleep(0)
        if client._misc_task is not None:
            client._misc_task.cancel()

    asyncio.run(go())
    if cls == "aiomqtt":  # the bug this guards against is still there upstream
        assert errors and "Bad file descriptor" in str(errors[0].get("exception"))
    else:
        assert errors == []


@pytest.mark.parametrize("cls", ["aiomqtt", "ours"])
def test_paho_s_own_error_lines_are_not_errors_the_bridge_says_what_matters(log_buffer, cls):
    """A broker that dies resets every table's connection: paho logs "failed to receive on
    socket" at error level for each through aiomqtt's client; the bridge's client takes
    them to debug (below aiomqtt's logger's warning: not shown), and the bridge's warning
    ("mqtt broker lost") says it."""
    import aiomqtt
    import paho.mqtt.client as paho

    from hostd.fleet.broker import client_class

    async def go():
        c = (aiomqtt.Client if cls == "aiomqtt" else client_class())(hostname="127.0.0.1")
        c._client._easy_log(paho.MQTT_LOG_ERR, "failed to receive on socket: %s", "[Errno 104]")

    asyncio.run(go())
    lines = [json.loads(x) for x in log_buffer.getvalue().splitlines() if x.startswith("{")]
    said = [x["level"] for x in lines if "failed to receive" in x["event"]]
    assert said == (["error"] if cls == "aiomqtt" else [])
