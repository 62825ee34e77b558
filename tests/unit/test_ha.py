"""hostd.fleet.ha: Home Assistant MQTT discovery, each config checked against the discovery
schema as Home Assistant documents it, read back retained from a real Mosquitto
(tests/mqtt_broker.py; skipped without it), a button pressed end to end, and `jantaku
fleet retire` removing it all."""
import asyncio
import json
import re

import pytest

from hostd.fleet import ha
from hostd.fleet.broker import parse
from hostd.cli.main import main
from hostd.fleet.mqtt import compact_status, parse_command
from tests.mqtt_broker import USERS, mqtt_broker  # noqa: F401 (fixture)
from tests.unit.test_mqtt import STATUS, FakeDaemon, Watcher, bridge_for

# -- the schema: Home Assistant's MQTT documentation (www.home-assistant.io/integrations/
# mqtt/ "MQTT Discovery", sensor.mqtt/, binary_sensor.mqtt/, button.mqtt/), the same
# keys as the voluptuous schemas in its source (homeassistant/components/mqtt/schemas.py
# MQTT_ENTITY_COMMON_SCHEMA, MQTT_ENTITY_DEVICE_INFO_SCHEMA, MQTT_ORIGIN_INFO_SCHEMA;
# sensor.py, binary_sensor.py, button.py).  Its discovery schemas drop unknown keys
# silently (vol.REMOVE_EXTRA): a misspelt key would do nothing, so none is allowed here.
# discovery.py's TOPIC_MATCHER, on what follows "<prefix>/"
TOPIC = re.compile(r"(?P<component>\w+)/(?:(?P<node>[a-zA-Z0-9_-]+)/)?"
                   r"(?P<object>[a-zA-Z0-9_-]+)/config\Z")
COMMON = {"availability", "availability_mode", "availability_template", "availability_topic",
          "payload_available", "payload_not_available", "device", "origin",
          "enabled_by_default", "entity_category", "entity_picture", "icon",
          "json_attributes_topic", "json_attributes_template", "object_id",
          "default_entity_id", "unique_id", "name", "qos", "encoding"}
SCHEMA = {  # component: (required, allowed)
    "sensor": ({"state_topic"}, COMMON | {
        "state_topic", "value_template", "device_class", "expire_after", "force_update",
        "last_reset_value_template", "options", "state_class", "suggested_display_precision",
        "unit_of_measurement"}),
    "binary_sensor": ({"state_topic"}, COMMON | {
        "state_topic", "value_template", "device_class", "expire_after", "force_update",
        "off_delay", "payload_on", "payload_off"}),
    "button": ({"command_topic"}, COMMON | {
        "command_topic", "command_template", "device_class", "payload_press", "retain"}),
}
DEVICE = {"configuration_url", "connections", "hw_version", "identifiers", "manufacturer",
          "model", "model_id", "name", "serial_number", "suggested_area", "sw_version",
          "via_device"}
ORIGIN = {"name", "sw_version", "support_url"}
NO_WILDCARD = re.compile(r"[^#+\s]+\Z")


def check_config(topic_, cfg, prefix="homeassistant"):
    """Every rule of the schema this test checks; returns the component."""
    assert topic_.startswith(prefix + "/"), topic_
    m = TOPIC.match(topic_[len(prefix) + 1:])
    assert m, "not a discovery topic: %s" % topic_
    component = m["component"]
    required, allowed = SCHEMA[component]
    assert required <= set(cfg), (topic_, required - set(cfg))
    assert set(cfg) <= allowed, (topic_, set(cfg) - allowed)
    assert isinstance(cfg["unique_id"], str) and cfg["unique_id"]
    assert isinstance(cfg["name"], str) and cfg["name"]
    dev = cfg["device"]
    assert set(dev) <= DEVICE, set(dev) - DEVICE
    assert isinstance(dev["identifiers"], list) and dev["identifiers"] \
        and all(isinstance(i, str) for i in dev["identifiers"])  # at least one identifier
    assert set(cfg["origin"]) <= ORIGIN and cfg["origin"]["name"]
    for k in ("state_topic", "availability_topic", "json_attributes_topic", "command_topic"):
        if k in cfg:
            assert NO_WILDCARD.match(cfg[k]), (k, cfg[k])
    assert cfg.get("qos", 0) in (0, 1, 2)
    assert cfg.get("entity_category") in (None, "config", "diagnostic")
    for k in ("value_template", "json_attributes_template"):
        if k in cfg:
            t = cfg[k]
            assert t.count("{{") == t.count("}}") == 1 and t.startswith("{{"), t
    return component


def check_all(items):
    """The whole set of one table: unique ids unique, one device block."""
    comps = [check_config(t, c) for t, c in items]
    ids = [c["unique_id"] for _, c in items]
    assert len(set(ids)) == len(ids), ids
    devices = {json.dumps(c["device"], sort_keys=True) for _, c in items}
    assert len(devices) == 1, devices
    return comps


def test_every_config_fits_home_assistants_discovery_schema():
    for commands in (False, True):
        items = ha.configs("t1", commands=commands, sw_version="0.1.0")
        live = [(t, c) for t, c in items if c is not None]
        comps = check_all(live)
        assert comps.count("sensor") == 11 and comps.count("binary_sensor") == 2  # 4: the scores
        assert comps.count("button") == (3 if commands else 0)
        removed = [t for t, c in items if c is None]
        assert removed == ([] if commands else ["homeassistant/button/jantaku_t1/%s/config" % v
                                                for v in ("hand_over", "dice", "continue")])
        dev = live[0][1]["device"]
        assert dev == {"identifiers": ["jantaku_t1"], "name": "Jantaku table t1",
                       "manufacturer": "jantaku", "model": "automatic mahjong table",
                       "sw_version": "0.1.0"}
    by_id = {c["unique_id"]: c for _, c in ha.configs("t1", commands=True)}
    assert by_id["jantaku_t1_state"]["state_topic"] == "jantaku/t1/status"
    assert by_id["jantaku_t1_state"]["availability_topic"] == "jantaku/t1/availability"
    assert by_id["jantaku_t1_online"]["state_topic"] == "jantaku/t1/availability"
    assert "availability_topic" not in by_id["jantaku_t1_online"]  # it says offline itself
    # a button's press is a command the bridge takes
    for verb in ("hand_over", "dice", "continue"):
        b = by_id["jantaku_t1_%s" % verb]
        assert b["command_topic"] == "jantaku/t1/command/%s" % verb
        assert parse_command(verb, b["payload_press"].encode()) == ({}, None)


def render(template, status):
    """A template as Home Assistant renders it (Jinja2's immutable sandbox; `value` the
    payload, `value_json` its JSON), strict: any key the template touches without
    checking it is there fails (Home Assistant would log a warning for each)."""
    from jinja2 import StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    payload = json.dumps(status)
    env = ImmutableSandboxedEnvironment(undefined=StrictUndefined)
    return env.from_string(template).render(value=payload, value_json=json.loads(payload))


def shown(status):
    """What each sensor shows for a status: {unique id suffix: (state, attributes)}."""
    out = {}
    for _, c in ha.configs("t1", commands=True):
        if c and "value_template" in c:
            attrs = c.get("json_attributes_template")
            out[c["unique_id"][len("jantaku_t1_"):]] = (
                render(c["value_template"], status),
                json.loads(render(attrs, status)) if attrs else None)
    return out


def test_the_templates_show_what_a_person_expects():
    st = compact_status(STATUS)  # building, hand 2, deck B split, an old recovered jam
    s = shown(st)
    assert s["state"] == ("building", None)
    assert s["hand"] == ("2", None) and s["game"] == ("1", None)
    # what happens next as its code (an enum of the documented codes), words as attributes
    assert s["next"] == ("playing_building", STATUS["next"])
    assert s["deck_a"] == ("136", {"where": "top", "tiles": 136,
                                   "backs": {"blue": 68, "green": 68}})
    assert s["deck_b"] == ("None", {"where": "split"})
    assert s["last_fault"] == ("old jam", {"kind": "jam", "message": "old jam",
                                           "recovered": True})
    assert s["table_connected"] == ("ON", None)

    nxt = {"code": "table_disconnected", "params": {"error": "no such port"},
           "text": "The table is not connected (no such port): check its cable and power; "
                   "the daemon reconnects by itself.", "action": None}
    free = compact_status({"table": {"connected": False, "state": "disconnected",
                                     "error": "no such port"},
                           "state": {"name": "idle", "seq": 3}, "session": None, "next": nxt,
                           "can": ["abort"], "fault": None})
    s = shown(free)
    assert s["state"][0] == "idle" and s["table_connected"][0] == "OFF"
    assert s["game"][0] == s["hand"][0] == s["deck_a"][0] == s["deck_b"][0] == "None"
    assert s["deck_a"][1] == {} and s["last_fault"] == ("none", {})
    assert s["next"] == ("table_disconnected", nxt)
    free.pop("last_fault")  # a status retained by a daemon before last_fault
    assert shown(free)["last_fault"] == ("none", {})
    free["session"] = {"game": 1, "hand": 0, "decks": {}}
    assert shown(free)["game"][0] == "1" and shown(free)["hand"][0] == "0"


def test_a_status_published_again_feeds_home_assistant_no_new_state():
    """Home Assistant records a sensor's state when its value or attributes change: a
    status published again (only its `at` differs) must change neither, for any entity."""
    def seen(status):
        out = {}
        for _, c in ha.configs("t1", commands=True):
            if c and "value_template" in c:
                attrs = None
                if "json_attributes_topic" in c:  # without a template: the whole payload
                    attrs = (json.loads(render(c["json_attributes_template"], status))
                             if "json_attributes_template" in c else status)
                out[c["unique_id"]] = (render(c["value_template"], status), attrs)
        return out

    first = dict(compact_status(STATUS), id="t1", events_dropped=0, at=1795504276.255)
    again = dict(first, at=1795504276.505)
    assert seen(first) == seen(again)
    cfgs = {c["unique_id"]: c for _, c in ha.configs("t1") if c}
    assert cfgs["jantaku_t1_game"]["state_class"] == "measurement"
    assert cfgs["jantaku_t1_hand"]["state_class"] == "measurement"
    assert "json_attributes_topic" not in cfgs["jantaku_t1_state"]


def test_node_ids_fit_discovery_topics_and_never_collide():
    assert ha.node_id("t1") == "jantaku_t1"
    a, b = ha.node_id("t.1"), ha.node_id("t_1")
    assert a != b and re.fullmatch(r"[A-Za-z0-9_-]+", a) and a.startswith("jantaku_t_1_")
    for t, c in ha.configs("table.07", prefix="ha/venue"):
        if c:
            check_config(t, c, prefix="ha/venue")
    ids = [c["unique_id"] for t in ("t.1", "t_1") for _, c in ha.configs(t) if c]
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("prefix, words", [
    ("", "cannot be used"), ("home/", "cannot be used"), ("home/+", "cannot be used"),
    ("a b", "cannot be used"), ("jantaku", "under the tables' own jantaku/ topics")])
def test_a_bad_discovery_prefix_is_refused_saying_what_is_accepted(prefix, words):
    with pytest.raises(ValueError) as e:
        ha.check_prefix(prefix)
    assert words in str(e.value) and "homeassistant" in str(e.value)


def test_the_status_names_the_last_fault_recovered_or_not():
    st = json.loads(json.dumps(STATUS))
    assert compact_status(st)["last_fault"] == {"kind": "jam", "message": "old jam",
                                                "recovered": True}
    st["session"]["faults"] = []
    assert compact_status(st)["last_fault"] is None
    st["fault"] = {"kind": "guard", "track": None, "deck": None, "step": None,
                   "message": "the guard was broken: motion stopped",
                   "todo": "clear the light curtain and close the lid, then continue",
                   "action": "continue"}
    assert compact_status(st)["last_fault"] == {
        "kind": "guard", "message": "the guard was broken: motion stopped", "recovered": False}


def test_the_next_step_is_an_enum_of_the_documented_codes_and_the_buttons_come_from_the_list():
    from hostd.core.codes import NEXT
    from hostd.core.commands import offered_by

    cfgs = dict(ha.configs("t1", commands=True))
    nxt = cfgs["homeassistant/sensor/jantaku_t1/next/config"]
    assert nxt["device_class"] == "enum" and nxt["options"] == list(NEXT)
    buttons = sorted(t.rsplit("/", 2)[1] for t, c in cfgs.items() if "/button/" in t and c)
    assert buttons == sorted(offered_by("ha"))


# -- on a real broker ------------------------------------------------------------------------

async def aretained(broker, user="viewer", topics="homeassistant/#"):
    """Every retained message a newcomer gets on `topics`: {topic: payload}."""
    async with Watcher(broker, user, topics) as w:
        await asyncio.sleep(0.5)
    return {t: p for t, p, r in w.got if r and p}


def retained(broker, user="viewer", topics="homeassistant/#"):
    return asyncio.run(aretained(broker, user, topics))


def run_bridge(broker, commands, then=None, **kw):
    async def go():
        d = FakeDaemon()
        bridge = bridge_for(broker, d, commands=commands, discovery_prefix="homeassistant",
                            sw_version="0.1.0", **kw)
        await bridge.start()
        async with Watcher(broker, topics="jantaku/t1/status") as w:
            await w.wait(lambda w: w.got, "the bridge to be up")
        out = await then(d) if then else None
        await bridge.close()
        return out

    return asyncio.run(go())


def test_the_table_is_a_retained_device_and_its_buttons_press(mqtt_broker):
    async def press(d):  # as Home Assistant does: payload_press on the command topic
        got = {t: json.loads(p) for t, p in (await aretained(mqtt_broker)).items()}
        b = got["homeassistant/button/jantaku_t1/hand_over/config"]
        async with Watcher(mqtt_broker, "operator", "jantaku/t1/reply") as w:
            await w.client.publish(b["command_topic"], b["payload_press"].encode(), qos=1,
                                   retain=b["retain"])
            await w.wait(lambda w: w.got, "the reply to the press")
        return got, json.loads(w.got[0][1]), list(d.calls)

    got, reply, calls = run_bridge(mqtt_broker, True, press)
    assert len(got) == 16  # 11 sensors (4 of them the scores), 2 binary sensors, 3 buttons
    assert set(check_all(list(got.items()))) == {"sensor", "binary_sensor", "button"}
    assert reply["status"] == 200 and calls == [("hand_over", {})]

    # the same table again with commands off: its buttons are gone, the rest stays
    run_bridge(mqtt_broker, False)
    left = retained(mqtt_broker)
    assert len(left) == 13 and not any("/button/" in t for t in left)
    check_all([(t, json.loads(p)) for t, p in left.items()])


def test_discovery_off_publishes_nothing_for_home_assistant(mqtt_broker):
    async def go():
        d = FakeDaemon()
        bridge = bridge_for(mqtt_broker, d, commands=True)  # discovery_prefix None: off
        await bridge.start()
        async with Watcher(mqtt_broker, topics="jantaku/t1/status") as w:
            await w.wait(lambda w: w.got, "the bridge to be up")
        await bridge.close()

    asyncio.run(go())
    assert retained(mqtt_broker) == {}
    assert retained(mqtt_broker, topics="jantaku/#")  # while the table's own topics are there


def test_fleet_retire_removes_the_device_and_the_retained_status(mqtt_broker, capsys,
                                                                 monkeypatch):
    run_bridge(mqtt_broker, True)
    assert len(retained(mqtt_broker)) == 16
    url = mqtt_broker.url("operator")
    # a viewer may not: the broker drops its publishes silently, the read-back says so
    monkeypatch.setenv("JANTAKU_MQTT_PASSWORD", USERS["viewer"])
    assert main(["fleet", "retire", "t1", "--mqtt", mqtt_broker.url("viewer")]) == 1
    err = capsys.readouterr().err
    assert "the ACL does not let viewer write them" in err and "Traceback" not in err
    monkeypatch.setenv("JANTAKU_MQTT_PASSWORD", USERS["operator"])
    assert main(["fleet", "retire", "t9", "--mqtt", url]) == 1
    assert "table t9 has no retained message" in capsys.readouterr().err
    assert main(["fleet", "retire", "t1", "--mqtt", url]) == 0
    out = capsys.readouterr().out
    assert out.startswith("table t1 retired on %s: 18 retained messages cleared "
                          "(16 Home Assistant entities)" % url)
    assert retained(mqtt_broker) == {} and retained(mqtt_broker, topics="jantaku/#") == {}
    b = parse(mqtt_broker.url("viewer"), env=mqtt_broker.env("viewer"))
    from hostd.cli import fleet

    assert asyncio.run(fleet.collect(b, wait=2)) == {}  # gone from `fleet status` too


def test_an_online_table_is_not_retired_without_force(mqtt_broker, capsys, monkeypatch):
    monkeypatch.setenv("JANTAKU_MQTT_PASSWORD", USERS["operator"])
    argv = ["fleet", "retire", "t1", "--mqtt", mqtt_broker.url("operator")]

    async def then(d):
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, main, argv)

    assert run_bridge(mqtt_broker, False, then) == 1
    assert "table t1 is online: stop its daemon first" in capsys.readouterr().err
    assert len(retained(mqtt_broker)) == 13


@pytest.mark.parametrize("argv, words", [
    (["--mqtt-discovery-prefix", "ha"], "--mqtt-discovery-prefix without --mqtt URL"),
    (["--no-mqtt-discovery"], "--no-mqtt-discovery without --mqtt URL"),
    (["--mqtt", "mqtt://h", "--table-id", "t1", "--mqtt-discovery-prefix", "ha/#"],
     "--mqtt-discovery-prefix: discovery prefix 'ha/#' cannot be used"),
    (["--mqtt", "mqtt://h", "--table-id", "t1", "--mqtt-discovery-prefix", "ha",
      "--no-mqtt-discovery"], "give one of them"),
])
def test_run_refuses_bad_discovery_options(argv, words, capsys, tmp_path):
    assert main(["run", "--sim", "--db", str(tmp_path / "j.sqlite")] + argv) == 2
    assert words in capsys.readouterr().err
    assert not (tmp_path / "j.sqlite").exists()
