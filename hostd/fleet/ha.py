"""Home Assistant MQTT discovery for one table (CPython only; docs/FLEET.md "Home Assistant").

Each table is one Home Assistant device; its entities read the bridge's retained topics
(hostd/fleet/mqtt.py), so Home Assistant needs no integration of ours, only its MQTT one:

    <prefix>/sensor/jantaku_<node>/<key>/config          sensors (state, game, hand, next,
                                                         deck A/B tiles, last fault)
    <prefix>/binary_sensor/jantaku_<node>/<key>/config   online (the daemon on the broker),
                                                         table connected (the daemon's link)
    <prefix>/button/jantaku_<node>/<verb>/config         hand over, dice, continue: only
                                                         with --mqtt-commands

``<prefix>`` is ``homeassistant`` unless ``--mqtt-discovery-prefix`` says otherwise;
``<node>`` is the table id, its ``.`` (not allowed in a discovery topic) replaced and a
short hash added so two ids never share a node.  Every config is retained; an empty
retained payload removes the entity (the bridge clears the buttons that way when commands
are off, and ``jantaku fleet retire ID`` clears them all).

The payload keys are those of Home Assistant's MQTT documentation (the sensor, binary
sensor and button pages, and the discovery section of the MQTT integration's page),
checked against the voluptuous schemas of its source (homeassistant/components/mqtt/
schemas.py, sensor.py, binary_sensor.py, button.py); tests/unit/test_ha.py holds them.
"""
import hashlib
import json
import re

from hostd.core.commands import COMMANDS
from hostd.core.vocabulary import worded
from hostd.fleet.broker import ROOT, topic
from hostd.game.seats import WINDS

PREFIX = "homeassistant"
PREFIX_RE = re.compile(r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*\Z")
PREFIX_ACCEPTED = ("letters, digits, '_' and '-', in levels separated by '/' (no '+', "
                   "'#', spaces, or '/' at either end), e.g. homeassistant")
NODE_RE = re.compile(r"[A-Za-z0-9_-]+\Z")  # Home Assistant's node_id and object_id
STATE_MAX = 255  # Home Assistant refuses a longer state: texts are cut to this
MANUFACTURER = "jantaku"
MODEL = "automatic mahjong table"

#: each entity's English name by its key (hostd/core/vocabulary.py ENTITIES), as an
#: integration's strings word its entities' translation_key (MQTT discovery takes a name,
#: not a key: docs/FLEET.md "Home Assistant")
NAMES = {"state": "State", "game": "Game", "hand": "Hand", "next": "Next step",
         "deck_a": "Deck A", "deck_b": "Deck B", "last_fault": "Last fault",
         **{"score_" + w: "Score " + w.capitalize() for w in WINDS},
         "online": "Online", "table_connected": "Table connected"}

#: the buttons, by the verb they publish (bridge VERBS), made from the one list of
#: commands (each with a button: its name and icon); only with commands on
BUTTONS = tuple((c.mqtt, c.ha[0], c.ha[1]) for c in COMMANDS if c.ha)


def check_prefix(text):
    """``text`` if it can be a discovery prefix, else ValueError naming what is accepted."""
    if not isinstance(text, str) or not PREFIX_RE.match(text):
        raise ValueError("discovery prefix %r cannot be used: give %s" % (text, PREFIX_ACCEPTED))
    if text.split("/")[0] == ROOT:
        raise ValueError("discovery prefix %r is under the tables' own %s/ topics: give "
                         "another, e.g. homeassistant" % (text, ROOT))
    return text


def node_id(table_id):
    """The table's node in discovery topics: ``jantaku_<id>``; an id with a '.' (which a
    node id may not hold) gets '_' for it and 6 hex digits of its hash."""
    safe = table_id.replace(".", "_")
    node = "jantaku_" + safe
    if safe != table_id:
        node += "_" + hashlib.sha1(table_id.encode()).hexdigest()[:6]
    return node


def _cut(expr):
    """A template of ``expr`` (a text or null) for a state: cut to STATE_MAX; null is
    "None", which a Home Assistant MQTT sensor takes as no value (unknown)."""
    return "{{ ((%s) or 'None')[:%d] }}" % (expr, STATE_MAX)


def _session_field(field):
    return ("{{ value_json.session.%s if value_json.session and value_json.session.%s "
            "is not none else 'None' }}" % (field, field))


# The templates never touch a key that may be missing (an `in` test first): Home
# Assistant would log a warning for each, and tests/unit/test_ha.py renders them with
# Jinja2's strict undefined.
def _deck(name):
    d = "value_json.session.decks.%s" % name
    ok = "value_json.session and '%s' in value_json.session.decks" % name
    return {
        "value_template": "{{ %s.tiles if %s and 'tiles' in %s else 'None' }}" % (d, ok, d),
        "json_attributes_template": "{{ (%s if %s else {}) | tojson }}" % (d, ok),
        "unit_of_measurement": "tiles",
        "icon": "mdi:view-grid",
    }


PLAYERS = WINDS  # keyed by their first-hand wind (docs/SCORING.md)


def _score(player):
    """A player's points in the game's ledger; name, wind, side and chips as attributes."""
    ok = ("value_json.session and 'score' in value_json.session and value_json.session.score")
    p = "value_json.session.score.players.%s" % player
    return {
        "value_template": "{{ %s.points if %s else 'None' }}" % (p, ok),
        "json_attributes_template": "{{ (%s if %s else {}) | tojson }}" % (p, ok),
        "unit_of_measurement": "points", "state_class": "measurement",
        "icon": "mdi:scoreboard-outline",
    }


def _sensors():
    """(key, config without the common part), the status topic read by each."""
    return [
        # the table's one state, an enum of the state vocabulary
        ("state", {"value_template": "{{ value_json.state }}",
                   "device_class": "enum", "options": list(worded("state", "ha")),
                   "icon": "mdi:table-furniture"}),
        # numbers Home Assistant may graph (and keep statistics of)
        ("game", {"value_template": _session_field("game"), "icon": "mdi:counter",
                  "state_class": "measurement"}),
        ("hand", {"value_template": _session_field("hand"), "icon": "mdi:cards",
                  "state_class": "measurement"}),
        # what happens next as its code (docs/API.md "What happens next" lists them; a
        # dashboard words them), its text, parameters and action as attributes
        ("next", {"value_template": "{{ value_json.next.code if value_json.next else 'None' }}",
                  "device_class": "enum", "options": list(worded("next", "ha")),
                  "json_attributes_template": "{{ (value_json.next if value_json.next "
                                              "else {}) | tojson }}",
                  "icon": "mdi:arrow-right-bold-circle-outline"}),
        ("deck_a", _deck("A")),
        ("deck_b", _deck("B")),
        ("last_fault", {
            "value_template": _cut("value_json.last_fault.message if 'last_fault' in "
                                   "value_json and value_json.last_fault else 'none'"),
            "json_attributes_template": "{{ (value_json.last_fault if 'last_fault' in "
                                        "value_json and value_json.last_fault else {}) "
                                        "| tojson }}",
            "icon": "mdi:alert-circle-outline"}),
    ] + [("score_%s" % p, _score(p)) for p in PLAYERS]


def configs(table_id, *, prefix=PREFIX, commands=False, sw_version=None):
    """``[(topic, payload dict or None)]``: every discovery config of the table, None for
    one to be removed (the buttons when commands are off)."""
    node = node_id(table_id)
    status_t = topic(table_id, "status")
    avail_t = topic(table_id, "availability")
    device = {"identifiers": ["jantaku_" + table_id], "name": "Jantaku table %s" % table_id,
              "manufacturer": MANUFACTURER, "model": MODEL}
    origin = {"name": "jantaku"}
    if sw_version:
        device["sw_version"] = origin["sw_version"] = sw_version
    available = {"availability_topic": avail_t, "payload_available": "online",
                 "payload_not_available": "offline"}

    def common(key, name=None):
        return {"name": name or NAMES[key], "unique_id": "jantaku_%s_%s" % (table_id, key),
                "device": device, "origin": origin, "qos": 1}

    out = []
    for key, extra in _sensors():
        # Home Assistant records a state whenever a sensor's value or attributes change:
        # each sensor's attributes are a part of the status that changes only with it (not
        # the whole status, whose `at` changes at every publish)
        cfg = dict(common(key), state_topic=status_t, **available)
        if "json_attributes_template" in extra:
            cfg["json_attributes_topic"] = status_t
        cfg.update(extra)
        out.append(("%s/sensor/%s/%s/config" % (prefix, node, key), cfg))
    # online: the daemon on the broker (its will says offline), so no availability of its own
    out.append(("%s/binary_sensor/%s/online/config" % (prefix, node), dict(
        common("online"), state_topic=avail_t, payload_on="online",
        payload_off="offline", device_class="connectivity", entity_category="diagnostic")))
    out.append(("%s/binary_sensor/%s/table_connected/config" % (prefix, node), dict(
        common("table_connected"), state_topic=status_t,
        value_template="{{ 'ON' if value_json.connected else 'OFF' }}",
        device_class="connectivity", entity_category="diagnostic", **available)))
    for verb, name, icon in BUTTONS:
        t = "%s/button/%s/%s/config" % (prefix, node, verb)
        out.append((t, dict(common(verb, name), command_topic=topic(table_id, "command", verb),
                            payload_press="{}", retain=False, icon=icon, **available)
                    if commands else None))
    return out


def payload(cfg):
    """The bytes to publish: JSON, or empty (retained) to remove the entity."""
    return b"" if cfg is None else json.dumps(cfg, separators=(",", ":"),
                                              ensure_ascii=False).encode()


def subscription(table_id, prefix=PREFIX):
    """Every discovery config topic of the table (for ``fleet retire``)."""
    return "%s/+/%s/+/config" % (prefix, node_id(table_id))
