"""Where the MQTT broker is and how to log in to it (CPython only).

Shared by the daemon's bridge (hostd/fleet/mqtt.py, `jantaku run --mqtt URL`) and the fleet view
(hostd/cli/fleet.py, `jantaku fleet status --mqtt URL`); docs/FLEET.md.

    mqtt://HOST[:PORT]          plain TCP (port 1883)
    mqtts://HOST[:PORT]         TLS (port 8883), the server's certificate checked against
                                the system's CAs or ``--mqtt-ca FILE``, and its name
    mqtt://USER@HOST:PORT       log in as USER

The password never goes on the command line (every user of the machine sees a process's
arguments): it comes from a file (``--mqtt-password-file PATH``, readable by its owner
only) or from the environment (``$JANTAKU_MQTT_PASSWORD``).  A URL holding a password is
refused, saying where to put it.
"""
import os
import re
from urllib.parse import unquote, urlsplit

from hostd.errors import ConfigError

PASSWORD_ENV = "JANTAKU_MQTT_PASSWORD"
ROOT = "jantaku"  # every topic is jantaku/<table id>/...
SCHEMES = {"mqtt": (1883, False), "mqtts": (8883, True)}
TABLE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")
TABLE_ID_ACCEPTED = ("1 to 64 letters, digits, '_', '-' or '.', starting with a letter or "
                     "digit (no '/', '+', '#' or spaces: it is a part of MQTT topics)")


class BrokerConfigError(ConfigError):
    """A broker setting is wrong: the message names it and what is accepted."""

    code = "mqtt_config"


def check_table_id(text):
    """``text`` if it can name a table in topics, else BrokerConfigError."""
    if not isinstance(text, str) or not TABLE_ID.match(text):
        raise BrokerConfigError("table id %r cannot be used: give %s, e.g. t1 or table-07"
                                % (text, TABLE_ID_ACCEPTED))
    return text


def topic(table_id, *parts):
    return "/".join((ROOT, table_id) + parts)


def read_password(path):
    """The first line of ``path``; refused if others may read the file or it is empty."""
    try:
        with open(path, encoding="utf-8") as f:
            mode = os.fstat(f.fileno()).st_mode & 0o777
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise BrokerConfigError("cannot read the MQTT password file %s: %s"
                                % (path, getattr(e, "strerror", None) or e)) from None
    if mode & 0o077:
        raise BrokerConfigError("the MQTT password file %s may be read by others (mode %04o): "
                                "`chmod 600 %s`" % (path, mode, path))
    password = text.split("\n", 1)[0].rstrip("\r")
    if not password:
        raise BrokerConfigError("the MQTT password file %s is empty: its first line is the "
                                "password" % path)
    return password


class Broker:
    """One broker's address and credentials: ``client_kwargs()`` for aiomqtt.Client."""

    __slots__ = ("host", "port", "tls", "username", "password", "ca_file", "_tls_context")

    def __init__(self, host, port, *, tls=False, username=None, password=None, ca_file=None):
        self.host = host
        self.port = port
        self.tls = tls
        self.username = username
        self.password = password
        self.ca_file = ca_file
        self._tls_context = None
        if tls:
            import ssl

            try:
                self._tls_context = ssl.create_default_context(cafile=ca_file)
            except (OSError, ssl.SSLError) as e:
                raise BrokerConfigError("cannot use the CA file %s: %s (give a PEM file of the "
                                        "CA that signed the broker's certificate)"
                                        % (ca_file, getattr(e, "strerror", None) or e)) from None

    def url(self):
        """The URL without any secret (for logs and output)."""
        host = "[%s]" % self.host if ":" in self.host else self.host
        return "%s://%s%s:%d" % ("mqtts" if self.tls else "mqtt",
                                 self.username + "@" if self.username else "", host, self.port)

    def client_kwargs(self):
        kw = {"hostname": self.host, "port": self.port}
        if self.username is not None:
            kw["username"] = self.username
            kw["password"] = self.password
        if self._tls_context is not None:
            kw["tls_context"] = self._tls_context
        return kw

    def __repr__(self):  # never the password
        return "Broker(%s)" % self.url()


def parse(url, *, password_file=None, ca_file=None, env=None):
    """A :class:`Broker` from the command line's pieces, or BrokerConfigError saying what
    is wrong and what is accepted."""
    env = os.environ if env is None else env
    accepted = "mqtt://[USER@]HOST[:PORT] or mqtts://[USER@]HOST[:PORT]"
    try:
        parts = urlsplit(url)
    except ValueError as e:
        raise BrokerConfigError("broker URL %r: %s; accepted: %s" % (url, e, accepted)) from None
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0:
        raise BrokerConfigError("broker URL %r: the port must be a number 1-65535; accepted: %s"
                                % (url, accepted))
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise BrokerConfigError("broker URL %r: the scheme must be mqtt or mqtts; accepted: %s"
                                % (url, accepted))
    if not parts.hostname:
        raise BrokerConfigError("broker URL %r has no host; accepted: %s" % (url, accepted))
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise BrokerConfigError("broker URL %r: nothing may follow the host and port; "
                                "accepted: %s" % (url, accepted))
    if parts.password is not None:
        raise BrokerConfigError(
            "the broker URL holds a password: every user of this machine can read a "
            "command line; put the password in a file only you can read "
            "(--mqtt-password-file PATH) or in $%s, and keep only the user in the URL "
            "(mqtt://USER@HOST)" % PASSWORD_ENV)
    default_port, tls = SCHEMES[scheme]
    if ca_file and not tls:
        raise BrokerConfigError("--mqtt-ca is for TLS: use an mqtts:// URL")
    username = unquote(parts.username) if parts.username else None
    password = None
    if password_file:
        password = read_password(password_file)
    elif env.get(PASSWORD_ENV):
        password = env[PASSWORD_ENV]
    if password is not None and username is None:
        raise BrokerConfigError("an MQTT password was given but no user: put the user in the "
                                "URL (mqtt://USER@HOST)")
    return Broker(parts.hostname, port or default_port, tls=tls, username=username,
                  password=password, ca_file=ca_file)


def describe_error(exc):
    """One line for an error of aiomqtt or the socket under it."""
    text = str(exc) or type(exc).__name__
    low = text.lower()
    if "not authori" in low or "[code:135]" in low or "[code:5]" in low:
        return "%s (the broker refused the user or password)" % text
    if "certificate" in low:
        return "%s (the broker's certificate is not trusted: --mqtt-ca FILE)" % text
    return text


_CLIENT_CLASS = []
PUBLISH = 0x30  # an MQTT PUBLISH packet's type, in its first byte's high bits


class SizeGuard:
    """paho reads a PUBLISH whole into memory before anyone sees it (a 20 MB command: 20 MB,
    more than once).  With this guard on a paho client, a PUBLISH whose packet is over
    ``limit`` bytes (its size is in its fixed header, read first) is read in pieces of
    PIECE bytes and dropped as they come: only its topic is kept, its QoS 1 is
    acknowledged (the broker would otherwise hold it as in flight), and
    ``on_drop(topic, size)`` is told.  The broker's own limit (docs/FLEET.md:
    max_packet_size) keeps such packets away; this is for a broker without one."""

    PIECE = 64 * 1024
    HEAD = 2 + 65535 + 2  # a topic's length, the longest topic, a packet id

    def __init__(self, paho_client, limit, on_drop):
        self.pc = paho_client
        self.limit = limit
        self.on_drop = on_drop
        self.recv = paho_client._sock_recv
        self.skip = None  # {"left", "size", "qos", "head"} while one is dropped
        paho_client._sock_recv = self._recv

    def _recv(self, n):
        ip = self.pc._in_packet
        if self.skip is None:
            if not (ip["have_remaining"] and not ip["packet"] and ip["command"] & 0xF0 == PUBLISH
                    and ip["remaining_length"] > self.limit):
                return self.recv(n)
            self.skip = {"left": ip["remaining_length"], "size": ip["remaining_length"],
                         "qos": (ip["command"] & 0x06) >> 1, "head": bytearray()}
        skip = self.skip
        data = self.recv(min(skip["left"], self.PIECE))
        if not data:  # the connection closed: paho says so
            self.skip = None
            return data
        if len(skip["head"]) < self.HEAD:
            skip["head"] += data[:self.HEAD - len(skip["head"])]
        skip["left"] -= len(data)
        if skip["left"] <= 0:
            self._dropped(skip)
        raise BlockingIOError()  # paho keeps nothing of it, and reads on when it can

    def _dropped(self, skip):
        self.skip = None
        self.pc._in_packet = {"command": 0, "have_remaining": 0, "remaining_count": [],
                              "remaining_mult": 1, "remaining_length": 0,
                              "packet": bytearray(b""), "to_process": 0, "pos": 0}
        head = bytes(skip["head"])
        n = int.from_bytes(head[:2], "big")
        topic = head[2:2 + n].decode("utf-8", "replace")
        if skip["qos"] == 1 and len(head) >= 4 + n:
            self.pc._send_puback(int.from_bytes(head[2 + n:4 + n], "big"))
        self.on_drop(topic, skip["size"])


def client_class():
    """aiomqtt's Client (the bridge's and the fleet view's), with its socket callbacks made
    safe: aiomqtt 2.5.1 schedules ``loop.add_reader``/``add_writer`` for a socket onto
    the loop, and when the socket is closed before that runs (a broker killed
    mid-publish) asyncio logs "Exception in callback ... [Errno 9] Bad file descriptor"
    at error level, or, were the number reused by the next connection's socket, watches
    the wrong one.  Here each scheduled call first checks that the socket is still the
    one it was (not closed meanwhile).  paho's own lines ("failed to receive on socket:
    [Errno 104] Connection reset by peer" at error level, once per table when a broker
    dies) go to the debug level, and the disconnection's own exception is taken (asyncio
    would log "Future exception was never retrieved"): the bridge says the broker was lost,
    as a warning."""
    if _CLIENT_CLASS:
        return _CLIENT_CLASS[0]
    import logging

    import aiomqtt

    class AtDebug(logging.LoggerAdapter):
        def log(self, level, msg, *args, **kw):
            super().log(logging.DEBUG, msg, *args, **kw)

    class Client(aiomqtt.Client):
        """``max_publish_bytes``: a message whose packet is larger is never read whole
        (:class:`SizeGuard`), ``on_too_large(topic, size)`` is told of it."""

        def __init__(self, *args, max_publish_bytes=None, on_too_large=None, **kw):
            super().__init__(*args, **kw)
            self._client.enable_logger(AtDebug(self._logger, {}))
            if max_publish_bytes is not None:
                SizeGuard(self._client, max_publish_bytes, on_too_large or (lambda t, n: None))

        async def __aexit__(self, *exc):
            lost = self._disconnected
            try:
                return await super().__aexit__(*exc)
            finally:  # why it was lost is the bridge's to say: no "never retrieved" line
                if lost.done() and not lost.cancelled():
                    lost.exception()

        def _watch(self, add, sock, callback):
            fd = sock.fileno()

            def watch():
                if fd < 0 or sock.fileno() != fd:
                    return  # closed since: nothing to watch
                try:
                    add(fd, callback)
                except (OSError, ValueError):  # closed meanwhile
                    pass

            self._loop.call_soon_threadsafe(watch)

        def _failed(self, exc):
            if not self._disconnected.done():
                self._disconnected.set_exception(exc)

        def _on_socket_open(self, client, userdata, sock):
            def readable():  # as aiomqtt's: read until SSL's buffer is empty too
                try:
                    while True:
                        client.loop_read()
                        pending = getattr(client._sock, "pending", None)
                        if pending is None or pending() <= 0:
                            break
                except Exception as exc:
                    self._failed(exc)

            def create_misc_task():
                self._misc_task = self._loop.create_task(self._misc_loop())

            self._watch(self._loop.add_reader, sock, readable)
            self._loop.call_soon_threadsafe(create_misc_task)

        def _on_socket_register_write(self, client, userdata, sock):
            def writable():
                try:
                    client.loop_write()
                except Exception as exc:
                    self._failed(exc)

            self._watch(self._loop.add_writer, sock, writable)

    _CLIENT_CLASS.append(Client)
    return Client
