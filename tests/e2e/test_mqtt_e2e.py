"""End to end on a real Mosquitto (tests/mqtt_broker.py, with the per-table ACL of
docs/FLEET.md): `jantaku run --sim --mqtt URL --table-id t1` publishes, `jantaku fleet
status` sees it, a command over MQTT performs a hand over, the broker refuses a client the
ACL does not allow, a killed daemon turns `offline`, and a broker restarted mid-build
loses no event the bridge accepted."""
import json
import os
import signal
import subprocess
import threading
import time

import httpx
import pytest

from hostd.web.api import parse_events
from tests.conftest import ROOT, tool
from tests.e2e.conftest import start_daemon
from tests.mqtt_broker import USERS, mqtt_broker  # noqa: F401 (fixture)
from tests.e2e.conftest import quiet

pytestmark = pytest.mark.e2e


class Listener:
    """A paho client in its own thread (it reconnects by itself) keeping every message."""

    def __init__(self, broker, user="viewer", topics=("jantaku/#",), client_id="", clean=True,
                 v5=False):
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.got = []
        self.acks = {}
        self.lock = threading.Lock()
        self.connected = threading.Event()
        kw = {"protocol": mqtt.MQTTv5} if v5 else {"clean_session": clean,
                                                     "protocol": mqtt.MQTTv311}
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, **kw)
        self.c.username_pw_set(user, USERS[user])
        self.c.reconnect_delay_set(0.05, 0.5)

        def on_connect(c, userdata, flags, rc, props=None):
            for t in topics:
                c.subscribe(t, qos=1)
            self.connected.set()

        def on_message(c, userdata, m):
            with self.lock:
                self.got.append((m.topic, bytes(m.payload), bool(m.retain)))

        def on_publish(c, userdata, mid, rc, props=None):
            self.acks[mid] = rc

        self.c.on_connect = on_connect
        self.c.on_message = on_message
        self.c.on_publish = on_publish
        self.c.connect("127.0.0.1", broker.port, keepalive=10)
        self.c.loop_start()
        if not self.connected.wait(10):
            self.close()
            raise AssertionError("the test's MQTT client did not connect")

    def close(self):
        self.c.loop_stop()
        self.c.disconnect()

    def on(self, suffix):
        with self.lock:
            return [p for t, p, _ in self.got if t.endswith(suffix)]

    def events(self):
        """The events topic, each seq once, in seq order (QoS 1 may deliver one twice)."""
        seen = {}
        for p in self.on("/events"):
            ev = json.loads(p)
            seen.setdefault(ev.get("seq"), ev)
        return [seen[k] for k in sorted(k for k in seen if k is not None)]

    def wait(self, pred, what, timeout=30.0, log=None):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if pred(self):
                return
            time.sleep(0.05)
        raise AssertionError("timed out waiting for %s; last messages %r%s" % (
            what, self.got[-8:], "\n--- daemon log\n" + log() if log else ""))

    def publish(self, topic, payload):
        info = self.c.publish(topic, payload, qos=1)
        end = time.monotonic() + 10
        while info.mid not in self.acks and time.monotonic() < end:
            time.sleep(0.02)
        return self.acks.get(info.mid)


def start_table(tmp_path, broker, monkeypatch, *extra):
    monkeypatch.setenv("JANTAKU_MQTT_PASSWORD", USERS["table-t1"])
    return start_daemon(tmp_path, None, extra=["--mqtt", broker.url("table-t1"),
                                               "--table-id", "t1"] + list(extra))


def fleet_status(broker):
    r = subprocess.run([tool("jantaku"), "fleet", "status", "--mqtt", broker.url("viewer"),
                        "--json"], capture_output=True, text=True, timeout=60, cwd=str(ROOT),
                       env=dict(os.environ, JANTAKU_MQTT_PASSWORD=USERS["viewer"]))
    assert r.returncode == 0, r.stderr
    return {t["id"]: t for t in json.loads(r.stdout)["tables"]}


def test_a_table_on_the_broker_seen_by_the_fleet_and_commanded_over_mqtt(
        tmp_path, mqtt_broker, monkeypatch):
    d = start_table(tmp_path, mqtt_broker, monkeypatch, "--mqtt-commands")
    watch = Listener(mqtt_broker, "watcher")  # (`viewer` is the newcomer's, the fleet's)
    op = Listener(mqtt_broker, "operator", topics=("jantaku/t1/reply",))
    try:
        # retained: availability online and a JSON status, there for any newcomer
        watch.wait(lambda w: w.on("/t1/availability")[-1:] == [b"online"], "online",
                   log=d.proc.log)
        watch.wait(lambda w: w.on("/t1/status"), "a status")
        late = Listener(mqtt_broker, topics=("jantaku/+/availability", "jantaku/+/status"))
        try:
            late.wait(lambda w: len(w.got) >= 2, "the retained messages for a newcomer")
            assert all(r for _, _, r in late.got[:2]) and late.on("/availability") == [b"online"]
        finally:
            late.close()
        st = json.loads(watch.on("/t1/status")[-1])
        assert st["id"] == "t1" and st["connected"] is True and st["session"] is None
        assert st["next"] == d.get("/status").json()["next"]

        m = d.get("/status").json()["mqtt"]  # the daemon's own view of the broker
        assert (m["connected"], m["table_id"], m["commands"], m["dropped"]) == (True, "t1", True, 0)
        assert ("mqtt: %s as t1, connected" % mqtt_broker.url("table-t1")) in d.cli("status").stdout

        t1 = fleet_status(mqtt_broker)["t1"]
        assert (t1["online"], t1["session"], t1["state"]) == (True, None, st["state"])

        d.post("/session", {"ruleset": "riichi", "seed": 5})
        d.wait(lambda s: s["session"] and s["state"]["name"] == "built" and quiet(s),
               what="deck A built inside")
        watch.wait(lambda w: json.loads(w.on("/t1/status")[-1])["session"]["decks"]["A"]
                   ["where"] == "inside", "the status to say deck A is inside")

        # a command the table cannot take now: the same answer over MQTT as from the API
        api = d.post("/continue")
        assert op.publish("jantaku/t1/command/continue", b"{}") == 0
        op.wait(lambda o: o.on("/reply"), "the reply to continue")
        reply = json.loads(op.on("/reply")[-1])
        assert reply == {"verb": "continue", "id": None, "status": api.status_code,
                         "error": api.json()["error"]}
        assert api.status_code == 409

        # `{}` on command/hand_over performs the hand over
        assert op.publish("jantaku/t1/command/hand_over", b"{}") == 0
        op.wait(lambda o: len(o.on("/reply")) == 2, "the reply to hand_over")
        reply = json.loads(op.on("/reply")[-1])
        assert reply["status"] == 200 and reply["result"]["hand"] == 1, reply
        d.wait(lambda s: s["session"]["hand"] == 1 and s["state"]["name"] == "built"
               and quiet(s), what="hand 1 begun, deck B built")
        watch.wait(lambda w: any(e["type"] == "hand" and e.get("hand") == 1
                                 for e in w.events()), "the hand event over MQTT")
        assert fleet_status(mqtt_broker)["t1"]["hand"] == 1

        # a client the ACL does not let command: the broker refuses it, nothing moves
        viewer = Listener(mqtt_broker, "viewer", topics=(), v5=True)
        try:
            rc = viewer.publish("jantaku/t1/command/hand_over", b"{}")
        finally:
            viewer.close()
        assert rc is not None and rc.value == 135 and str(rc) == "Not authorized"
        time.sleep(1.0)
        assert len(op.on("/reply")) == 2  # never reached the daemon: no answer
        assert d.get("/status").json()["session"]["hand"] == 1

        # a daemon killed outright: the broker's last will says offline
        d.proc.kill(signal.SIGKILL)
        watch.wait(lambda w: w.on("/t1/availability")[-1:] == [b"offline"], "offline",
                   timeout=10)
        assert fleet_status(mqtt_broker)["t1"]["online"] is False
    finally:
        watch.close()
        op.close()
        d.proc.kill()


def test_a_broker_restarted_mid_build_loses_no_event(tmp_path, mqtt_broker, monkeypatch):
    d = start_table(tmp_path, mqtt_broker, monkeypatch, "--sim-speed", "3")
    # a fleet client with a persistent session: the broker keeps its messages while it is
    # restarted (Mosquitto's persistence, as a venue's broker should have)
    watch = Listener(mqtt_broker, topics=("jantaku/t1/events",), client_id="watch-t1",
                     clean=False)
    sse, stop = [], threading.Event()

    def follow():  # the same events from the API's stream, to compare with
        with httpx.stream("GET", d.url + "/events", timeout=None) as r:
            for ev in parse_events(r.iter_lines()):
                sse.append(ev)
                if ev["type"] == "build_done" or stop.is_set():
                    return

    reader = threading.Thread(target=follow, daemon=True)
    reader.start()
    try:
        time.sleep(0.5)
        d.post("/session", {"ruleset": "riichi", "seed": 5})
        watch.wait(lambda w: sum(e["type"] == "tile" for e in w.events()) >= 20,
                   "the build under way", log=d.proc.log)
        mqtt_broker.restart()
        watch.wait(lambda w: any(e["type"] == "build_done" for e in w.events()),
                   "the build's end after the restart", timeout=90, log=d.proc.log)
        reader.join(30)
        evs = watch.events()
        seqs = [e["seq"] for e in evs]
        assert seqs == list(range(seqs[0], seqs[-1] + 1)), "a gap in the events"
        assert not [e for e in evs if e["type"] == "events_dropped"]
        mqtt_side = [{k: v for k, v in e.items() if k != "seq"} for e in evs]
        types = [e["type"] for e in mqtt_side]
        mqtt_side = mqtt_side[types.index("session_started"):types.index("build_done") + 1]
        api_side = sse[[e["type"] for e in sse].index("session_started"):]
        assert api_side[-1]["type"] == "build_done"
        assert mqtt_side == api_side
        assert len(api_side) > 100  # a whole build, tile by tile
        log = d.proc.log()
        assert "mqtt broker lost" in log and log.count("mqtt connected") >= 2
        tiles_before = sum(e["type"] == "tile" for e in api_side)
        assert tiles_before >= 100
    finally:
        stop.set()
        watch.close()
        d.proc.kill()


def test_a_fault_seen_by_the_fleet_cleared_and_the_session_aborted_over_mqtt(
        tmp_path, mqtt_broker, monkeypatch):
    d = start_table(tmp_path, mqtt_broker, monkeypatch, "--mqtt-commands",
                    "--sim-fault", "lift-stall:build=1")
    op = Listener(mqtt_broker, "operator", topics=("jantaku/t1/reply",))

    def command(verb, payload=b"{}"):
        n = len(op.on("/reply"))
        assert op.publish("jantaku/t1/command/" + verb, payload) == 0
        op.wait(lambda o: len(o.on("/reply")) > n, "the reply to " + verb, log=d.proc.log)
        return json.loads(op.on("/reply")[-1])

    try:
        d.post("/session", {"ruleset": "riichi", "seed": 5})
        d.wait(lambda s: s["session"] and s["state"]["name"] == "built" and quiet(s),
               what="deck A built inside")
        assert command("hand_over", b'{"id": 1}')["status"] == 200
        st = d.wait(lambda s: s["table"]["state"] == "fault" and quiet(s),
                    what="the lift to stall")
        # the owner's view: which table has a fault (its retained status follows the
        # table within STATUS_INTERVAL_S, or STATUS_CHECK_S without an event)
        end = time.monotonic() + 10
        while True:
            t1 = fleet_status(mqtt_broker)["t1"]
            if t1["state"] == "stopped" or time.monotonic() > end:
                break
            time.sleep(0.2)
        assert t1["state"] == "stopped" and "the lift stalled" in t1["fault"]
        assert t1["next"] == st["next"]["text"] and t1["next_code"] == "stopped"

        reply = command("clear_fault")
        assert reply["status"] == 200 and reply["result"]["continued"] == "hand_over", reply

        reply = command("abort", b'{"id": "stop-1"}')
        assert reply["status"] == 200 and reply["result"]["aborted"] == st["session"]["id"]
        assert command("abort", b'{"id": "stop-1"}') == dict(reply, repeat=True)  # once only
        d.wait(lambda s: s["session"] is None and s["last_end"]["how"] == "aborted",
               what="the session aborted")
        deadline = time.monotonic() + 10
        while fleet_status(mqtt_broker)["t1"]["session"] is not None:
            assert time.monotonic() < deadline, "the fleet still shows the session"
            time.sleep(0.2)
    finally:
        op.close()
        d.proc.kill()
