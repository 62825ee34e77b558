"""End to end: `jantaku run --sim --mqtt URL --table-id t1` on a real Mosquitto leaves the
table's Home Assistant discovery configs retained under homeassistant/ (each checked
against the documented schema, tests/unit/test_ha.py), its buttons only with
--mqtt-commands, and `jantaku fleet retire t1` removes them once the daemon is gone."""
import json
import os
import subprocess
import time

import pytest

from tests.conftest import ROOT, tool
from tests.e2e.test_mqtt_e2e import Listener, start_table
from tests.mqtt_broker import USERS, mqtt_broker  # noqa: F401 (fixture)
from tests.unit.test_ha import check_all

pytestmark = pytest.mark.e2e


def retained_configs(broker):
    # the bridge publishes its status once the discovery configs are all acknowledged
    up = Listener(broker, topics=("jantaku/t1/status",))
    try:
        up.wait(lambda w: w.got, "the table's status", timeout=30)
    finally:
        up.close()
    late = Listener(broker, topics=("homeassistant/#",))
    try:
        late.wait(lambda w: len(w.got) >= 13, "the retained discovery configs", timeout=10)
        time.sleep(0.5)  # any more of them
        with late.lock:
            return {t: json.loads(p) for t, p, r in late.got if r and p}
    finally:
        late.close()


def test_a_table_under_homeassistant_and_retired(tmp_path, mqtt_broker, monkeypatch):
    d = start_table(tmp_path, mqtt_broker, monkeypatch, "--mqtt-commands")
    try:
        got = retained_configs(mqtt_broker)
        assert len(got) == 16, sorted(got)  # (4 of them: the scores)
        assert sorted(set(check_all(list(got.items())))) == ["binary_sensor", "button", "sensor"]
        state = got["homeassistant/sensor/jantaku_t1/state/config"]
        assert state["state_topic"] == "jantaku/t1/status"
        assert state["device"]["identifiers"] == ["jantaku_t1"]
        assert state["device"]["sw_version"] == d.get("/health").json()["version"]
        assert d.get("/status").json()["mqtt"]["discovery"] == "homeassistant"
    finally:
        d.proc.kill()  # SIGTERM: it says offline and stops
    r = subprocess.run([tool("jantaku"), "fleet", "retire", "t1", "--mqtt",
                        mqtt_broker.url("operator")], capture_output=True, text=True, timeout=60,
                       cwd=str(ROOT), env=dict(os.environ,
                                               JANTAKU_MQTT_PASSWORD=USERS["operator"]))
    assert r.returncode == 0, r.stderr
    assert "16 Home Assistant entities" in r.stdout
    late = Listener(mqtt_broker, topics=("homeassistant/#", "jantaku/#"))
    try:
        time.sleep(1.0)
        assert [t for t, p, r in late.got if r and p] == []
    finally:
        late.close()
