"""hostd.fleet.broker: the broker URL, the password (never on the command line), TLS, table ids."""
import os

import pytest

from hostd.fleet.broker import Broker, BrokerConfigError, check_table_id, parse, read_password, topic


def test_urls_give_host_port_tls_and_user():
    b = parse("mqtt://table-t1@broker.local", env={})
    assert (b.host, b.port, b.tls, b.username, b.password) == (
        "broker.local", 1883, False, "table-t1", None)
    b = parse("mqtts://10.0.0.2:9883", env={})
    assert (b.port, b.tls) == (9883, True) and b.client_kwargs()["tls_context"] is not None
    b = parse("MQTT://[::1]:1884/", env={})
    assert (b.host, b.port) == ("::1", 1884) and b.url() == "mqtt://[::1]:1884"


def test_the_password_comes_from_the_environment_or_a_private_file(tmp_path):
    env = {"JANTAKU_MQTT_PASSWORD": "s3cret"}
    b = parse("mqtt://table-t1@h", env=env)
    assert b.password == "s3cret" and b.client_kwargs()["password"] == "s3cret"
    assert "s3cret" not in b.url() + repr(b)
    f = tmp_path / "pw"
    f.write_text("from-file\nignored\n")
    os.chmod(f, 0o600)
    assert parse("mqtt://u@h", password_file=str(f), env=env).password == "from-file"
    assert parse("mqtt://h", env={}).client_kwargs() == {"hostname": "h", "port": 1883}


@pytest.mark.parametrize("url, words", [
    ("mqtt://u:hunter2@h", "the broker URL holds a password"),
    ("http://h", "the scheme must be mqtt or mqtts"),
    ("h:1883", "the scheme must be mqtt or mqtts"),
    ("mqtt://", "has no host"),
    ("mqtt://h:99999", "the port must be a number 1-65535"),
    ("mqtt://h:0", "the port must be a number 1-65535"),
    ("mqtt://h:x", "the port must be a number 1-65535"),
    ("mqtt://h/topic", "nothing may follow the host and port"),
    ("mqtt://[::1", "accepted: mqtt://"),
])
def test_bad_urls_say_what_is_wrong_and_accepted(url, words):
    with pytest.raises(BrokerConfigError) as e:
        parse(url, env={})
    assert words in str(e.value)
    assert "hunter2" not in str(e.value)


def test_password_rules(tmp_path):
    with pytest.raises(BrokerConfigError, match="no user"):
        parse("mqtt://h", env={"JANTAKU_MQTT_PASSWORD": "x"})
    f = tmp_path / "pw"
    f.write_text("x\n")
    os.chmod(f, 0o644)
    with pytest.raises(BrokerConfigError, match=r"may be read by others \(mode 0644\).*chmod 600"):
        read_password(str(f))
    os.chmod(f, 0o600)
    f.write_text("\n")
    with pytest.raises(BrokerConfigError, match="is empty"):
        read_password(str(f))
    with pytest.raises(BrokerConfigError, match="cannot read the MQTT password file"):
        read_password(str(tmp_path / "missing"))


def test_tls_options(tmp_path):
    with pytest.raises(BrokerConfigError, match="--mqtt-ca is for TLS"):
        parse("mqtt://h", ca_file="/x", env={})
    with pytest.raises(BrokerConfigError, match="cannot use the CA file"):
        parse("mqtts://h", ca_file=str(tmp_path / "none.pem"), env={})
    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate")
    with pytest.raises(BrokerConfigError, match="cannot use the CA file"):
        Broker("h", 8883, tls=True, ca_file=str(bad))


@pytest.mark.parametrize("good", ["t1", "table-07", "T_1.a", "9" * 64])
def test_table_ids(good):
    assert check_table_id(good) == good
    assert topic(good, "command", "hand_over") == "jantaku/%s/command/hand_over" % good


@pytest.mark.parametrize("bad", ["", "a/b", "t+", "t#", "t 1", "-t", "9" * 65, "tä", None])
def test_bad_table_ids_are_refused_saying_what_is_accepted(bad):
    with pytest.raises(BrokerConfigError, match="letters, digits"):
        check_table_id(bad)
