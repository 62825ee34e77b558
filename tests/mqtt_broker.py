"""A real Mosquitto broker for the tests (Debian package `mosquitto`; .ci/run installs it).

Each broker gets a generated configuration in the test's own folder: users with
passwords (mosquitto_passwd), the per-table ACL of docs/FLEET.md, each client id tied to
its user and packets limited as there, persistence (so a
restart keeps retained and queued messages, as a venue's broker should), a free loopback
port and, with ``tls=True``, a second TLS listener with a CA and certificate made by
openssl.  ``stop()`` ends the process (the fixture does it at teardown, whatever
happened): no broker outlives its test.

    def test_x(mqtt_broker):          # from tests.mqtt_broker import mqtt_broker
        url = mqtt_broker.url("viewer")
        mqtt_broker.env("viewer")      # {"JANTAKU_MQTT_PASSWORD": ...}
"""
import os
import shutil
import signal
import socket
import subprocess
import time

import pytest

TABLES = ("t1", "t2")
# user -> password; "table-<id>" is each table's daemon, operator commands, viewer and
# watcher read (two readers: client ids are tied to users, so two clients connected at
# once need two users, as on a venue's broker: docs/FLEET.md)
USERS = {"table-t1": "pw-table-t1-0123456789", "table-t2": "pw-table-t2-0123456789",
         "operator": "pw-operator-0123456789", "viewer": "pw-viewer-0123456789",
         "watcher": "pw-watcher-0123456789"}
TAKEN_OVER = "already connected, closing old connection"  # Mosquitto's words
DEFAULT_USERS = tuple(USERS)
MAX_PACKET_BYTES = 128 * 1024  # docs/FLEET.md's max_packet_size


def _find(name):
    return shutil.which(name) or next(
        (p for p in ("/usr/sbin/" + name, "/usr/bin/" + name) if os.path.exists(p)), None)


MOSQUITTO = _find("mosquitto")
MOSQUITTO_PASSWD = _find("mosquitto_passwd")
OPENSSL = _find("openssl")
MISSING = None if MOSQUITTO and MOSQUITTO_PASSWD else (
    "mosquitto is not installed (Debian package `mosquitto`, which .ci/run installs): the "
    "MQTT tests need a real broker")


def table_user(table_id):
    """A table's user and password (added to USERS for the tables beyond TABLES)."""
    user = "table-%s" % table_id
    USERS.setdefault(user, "pw-%s-0123456789" % user)
    return user


def acl_text(tables=TABLES, admins=()):
    """The ACL of docs/FLEET.md: each table writes only its own topics (and its Home
    Assistant discovery configs) and reads only its own commands; the operator reads
    everything, commands every table and retires one (clears its retained messages and
    discovery configs); a viewer (signage, the fleet view) only reads."""
    from hostd.fleet.ha import node_id

    out = []
    for t in tables:
        out += ["user table-%s" % t,
                "topic write jantaku/%s/availability" % t,
                "topic write jantaku/%s/status" % t,
                "topic write jantaku/%s/events" % t,
                "topic write jantaku/%s/reply" % t,
                "topic read jantaku/%s/command/#" % t,
                "topic write homeassistant/+/%s/#" % node_id(t), ""]
    out += ["user operator", "topic read jantaku/#", "topic write jantaku/+/command/#",
            "topic write jantaku/+/availability", "topic write jantaku/+/status",
            "topic readwrite homeassistant/#", "",
            "user viewer", "topic read jantaku/#", "topic read homeassistant/#", "",
            "user watcher", "topic read jantaku/#", "topic read homeassistant/#", ""]
    for a in admins:  # bench/mqtt_bench.py's: writes any table's topics
        out += ["user %s" % a, "topic readwrite jantaku/#", ""]
    return "\n".join(out)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TestBroker:
    __test__ = False  # not a test class

    def __init__(self, folder, *, tls=False, admins=(), tables=TABLES, extra_conf=(),
                 tie_client_ids=True, max_packet=MAX_PACKET_BYTES):
        self.folder = str(folder)
        os.makedirs(self.folder, exist_ok=True)
        self.port = free_port()
        self.tls_port = free_port() if tls else None
        self.ca = None
        self.proc = None
        self._log = None
        self.log_path = os.path.join(self.folder, "mosquitto.log")
        pw = os.path.join(self.folder, "passwd")
        wanted = set(DEFAULT_USERS) | set(admins) | {table_user(t) for t in tables}
        with open(pw + ".plain", "w") as f:  # mosquitto_passwd -U hashes them all at once
            f.write("".join("%s:%s\n" % (u, USERS[u]) for u in USERS if u in wanted))
        os.replace(pw + ".plain", pw)
        subprocess.run([MOSQUITTO_PASSWD, "-U", pw], check=True, capture_output=True,
                       timeout=120)
        acl = os.path.join(self.folder, "acl")
        with open(acl, "w") as f:
            f.write(acl_text(tables=tables, admins=admins))
        # docs/FLEET.md's broker: no packet over 128 KiB (its sender is disconnected before
        # it is read whole), and on each listener (a listener's option: before any
        # `listener` line it would open the default one, 1883) each client id tied to its
        # user (a viewer connecting with a table's client id gets its own user's instead)
        tie = "use_username_as_clientid %s" % ("true" if tie_client_ids else "false")
        lines = ["per_listener_settings false", "allow_anonymous false"] + (
            ["max_packet_size %d" % max_packet] if max_packet else []) + [
                 "password_file %s" % pw, "acl_file %s" % acl,
                 "persistence true", "persistence_location %s/" % self.folder,
                 "log_dest stderr", "log_type error", "log_type warning", "log_type notice",
                 "log_type information", "log_type subscribe",
                 "listener %d 127.0.0.1" % self.port, tie] + list(extra_conf)
        if os.geteuid() == 0:
            lines.insert(0, "user root")  # else it drops to `mosquitto`, who can't read here
        if tls:
            lines += ["listener %d 127.0.0.1" % self.tls_port, tie] + self._make_certs()
        self.conf = os.path.join(self.folder, "mosquitto.conf")
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")

    def _make_certs(self):
        if not OPENSSL:
            pytest.skip("openssl is not installed: the TLS test makes its certificates with it")
        d = self.folder
        ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

        def run(*args):
            subprocess.run([OPENSSL] + list(args), check=True, capture_output=True, timeout=60,
                           cwd=d)

        run("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
            "-subj", "/CN=jantaku test CA")
        run("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost")
        with open(os.path.join(d, "san.ext"), "w") as f:
            f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
        run("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "server.crt", "-days", "2", "-extfile", "san.ext")
        self.ca = os.path.join(d, "ca.crt")
        return ["cafile %s" % self.ca, "certfile %s" % os.path.join(d, "server.crt"),
                "keyfile %s" % os.path.join(d, "server.key")]

    def url(self, user=None, tls=False):
        who = user + "@" if user else ""
        if tls:
            return "mqtts://%s127.0.0.1:%d" % (who, self.tls_port)
        return "mqtt://%s127.0.0.1:%d" % (who, self.port)

    @staticmethod
    def env(user):
        return {"JANTAKU_MQTT_PASSWORD": USERS[user]}

    def start(self, timeout=10):
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen([MOSQUITTO, "-c", self.conf], stdout=self._log,
                                     stderr=self._log, start_new_session=True)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise AssertionError("mosquitto exited (%s):\n%s" % (self.proc.returncode,
                                                                       self.log()))
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise AssertionError("mosquitto did not listen on %d:\n%s" % (self.port, self.log()))

    def stop(self):
        """SIGTERM (it saves its persistence file), SIGKILL after 10 s."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self._log is not None:
            self._log.close()
            self._log = None

    def restart(self):
        self.stop()
        return self.start()

    def log(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode("utf-8", "replace")[-4000:]
        except OSError:
            return ""


def _broker(tmp_path, tls):
    if MISSING:
        pytest.skip(MISSING)
    b = TestBroker(tmp_path / "broker", tls=tls)
    try:
        yield b.start()
    finally:
        b.stop()
    with open(b.log_path, "rb") as f:
        if TAKEN_OVER.encode() in f.read():  # each would have knocked the other off
            pytest.fail("two clients of one user were connected at once, and the broker ties "
                        "client ids to users (docs/FLEET.md): give each its own user "
                        "(tests/mqtt_broker.py USERS)")


@pytest.fixture
def mqtt_broker(tmp_path):
    """A started Mosquitto on a free loopback port, ended at teardown."""
    yield from _broker(tmp_path, tls=False)


@pytest.fixture
def mqtt_broker_tls(tmp_path):
    """The same with a TLS listener too (``tls_port``, the CA in ``ca``)."""
    yield from _broker(tmp_path, tls=True)
