"""The HTTP server under the API (CPython only): uvicorn, with limits for a small host.

A table's host may be a Raspberry Pi on a club's LAN, so the server does not wait for
anyone for ever, and an abort always gets through (docs/API.md "Limits"):

* a connection must finish sending a request's headers within HEADER_TIMEOUT_S of being
  opened (or of its previous response): a client sending one byte a second is cut off;
  a request's body must arrive whole within BODY_TIMEOUT_S of its headers
  (hostd/web/guards.py: 408 ``body_timeout``, the connection closed);
* the header deadline shrinks under pressure: with more than half of MAX_CONNECTIONS
  taken it falls linearly to MIN_HEADER_TIMEOUT_S with the last one, for the connections
  already waiting as well (each new connection closes those waiting longer than it);
* one client address holds at most PER_ADDRESS of the serving connections (a proxy the
  owner names, ``uncapped``, aside): its next takes the place of its own oldest connection
  that waits for a request's headers (an idle keep-alive, a slow client), else it is a
  reserve connection (below), so one address's slow or silent clients never take the
  others' slots, its abort still gets through, and browsers behind one address are never
  refused for their idle connections;
* at most MAX_CONNECTIONS connections serve requests at once, of which at most
  MAX_EVENT_STREAMS are event streams (hostd/web/guards.py: one more is 503
  ``too_many_streams`` with ``Retry-After``);
* beyond them, ABORT_RESERVE more connections are kept for ``POST /abort`` alone: a
  connection opened while MAX_CONNECTIONS are open is served only if it is an abort (its
  whole request within RESERVE_TIMEOUT_S), any other request on it is answered 503
  ``abort_only`` with ``Retry-After`` and closed; when the reserve is full too, a new
  connection takes the place of the oldest one whose request is not complete of the
  address that holds the most of the reserve (a flood from a few addresses replaces its
  own, not an abort's from elsewhere).
  Nothing but an abort can hold a reserve connection: not an event stream, not a command
  body that stalls after its headers (an abort's own included: its body must be there
  within RESERVE_TIMEOUT_S);
* request headers larger than MAX_HEADER_BYTES are refused, however they arrive: in
  several reads (h11's incomplete-event limit: 400) or in one (431
  ``headers_too_large``);
* a request with both Content-Length and Transfer-Encoding is refused (400
  ``conflicting_length``, the connection closed) before its body is read;
* idle keep-alive connections close after KEEP_ALIVE_S;
* request bodies are limited by the API itself (hostd.strictjson.MAX_BODY_BYTES);
* JSON answers to GET carry a weak ETag and are answered 304 while it holds (``validated``);
* answers over COMPRESS_MIN_BYTES are gzipped for a client that accepts it (the status a
  page asks for after each event is a few kilobytes of JSON); event streams never are
  (each event must reach the page as it happens), nor what is already encoded (the page's
  own files, hostd/web/webpage.py);
* when the daemon is stopped (SIGTERM, SIGHUP, Ctrl-C: ``Server.capture_signals``, which
  only flag the stop, wherever they arrive), ``on_shutdown`` runs first (the API ends
  its event streams: a page left open on a phone never ends one by itself, and uvicorn
  would wait for it for ever, so systemd would kill the daemon before it stopped the
  table's step and closed the journal); requests still running after SHUTDOWN_S are
  cancelled, each answered 503 ``stopping`` (or its stream ended), with one info line
  saying how many: no traceback.

Behind a TLS proxy (caddy, nginx: docs/DEPLOY.md): ``X-Forwarded-Proto`` and
``X-Forwarded-For`` are honoured only from the proxies the owner names
(``trusted_proxies``, ``jantaku run --trusted-proxy 127.0.0.1``; none by default), so the
API sees the browser's scheme (``https``: its Origin matches, the pairing cookie is
``Secure``) and address (each browser's own limit on wrong pairing codes).  From any
other address, loopback included, they are ignored (a program on the host cannot pass
for a dozen browsers); ``$FORWARDED_ALLOW_IPS`` (uvicorn's) cannot widen that.  A named
proxy's address has no per-address cap (its browsers all come from it).

``make_server(app, host, port, on_shutdown=None)`` returns a ``uvicorn.Server``;
``await server.serve()``.
"""
import asyncio
import collections
import contextlib
import hashlib
import itertools
import json
import signal
import threading

import structlog
import uvicorn
from starlette.middleware.gzip import GZipMiddleware
from uvicorn.protocols.http.h11_impl import H11Protocol


HEADER_TIMEOUT_S = 10.0
MIN_HEADER_TIMEOUT_S = 1.0  # the header deadline with every serving connection taken
MAX_CONNECTIONS = 64
PER_ADDRESS = 16  # serving connections one client address may hold (a named proxy's aside)
ABORT_RESERVE = 8  # connections beyond MAX_CONNECTIONS, for POST /abort only
#: connections the kernel holds before the daemon takes them: under a connection flood a
#: full queue drops an abort's SYN (its client retries after 1 s, then 3 s); a long one
#: keeps it in line behind the flood (Linux caps it at net.core.somaxconn, 4096)
LISTEN_BACKLOG = 2048
RESERVE_TIMEOUT_S = 2.0  # a reserve connection's whole request (an abort is a few bytes)
RETRY_AFTER_S = 5  # what a 503 of the reserve or of the shutdown says
MAX_HEADER_BYTES = 16 * 1024
KEEP_ALIVE_S = 5
SHUTDOWN_S = 2  # then requests still running as the daemon stops are cancelled
COMPRESS_MIN_BYTES = 500
COMPRESS_LEVEL = 6  # a status of 5 KB in well under a millisecond on a Raspberry Pi
ABORT = ("POST", "/abort")
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # each stops the server
log = structlog.get_logger("jantaku.api")
_opened = itertools.count()


def _error(status, code, message, retry_after=None):
    """An ASGI answer of the API's error shape, closing the connection."""
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body)),
               (b"connection", b"close")]
    if retry_after is not None:
        headers.append((b"retry-after", b"%d" % retry_after))

    async def answer(send):
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})

    return answer


def header_bytes(scope):
    """The size of a request's line and headers as they came (give or take the spaces)."""
    n = len(scope["method"]) + len(scope.get("raw_path") or b"") + \
        len(scope.get("query_string") or b"") + 12
    return n + sum(len(k) + len(v) + 4 for k, v in scope.get("headers", ()))


class ConnectionApp:
    """The API as one connection serves it: headers too large refused whatever the reads;
    on a reserve connection, POST /abort only; a request the shutdown cancels answered
    (503, or its stream ended) instead of raising into uvicorn (which would log a
    traceback at error level)."""

    def __init__(self, app, protocol):
        self.app = app
        self.protocol = protocol

    async def __call__(self, scope, receive, send):
        size = header_bytes(scope)
        if size > MAX_HEADER_BYTES:
            return await _error(431, "headers_too_large", "the request's line and headers are "
                                "%d bytes; this API takes at most %d" % (size, MAX_HEADER_BYTES)
                                )(send)
        names = [k.lower() for k, _ in scope.get("headers", ())]
        if b"transfer-encoding" in names and b"content-length" in names:
            # two framings of one body: whichever this server took, a proxy in front may
            # have taken the other (request smuggling); RFC 9112 §6.1 lets a server refuse
            return await _error(400, "conflicting_length", "the request has both Content-Length "
                                "and Transfer-Encoding: send one of them (Content-Length for "
                                "this API's JSON bodies)")(send)
        if self.protocol.reserve and (scope["method"], scope["path"]) != ABORT:
            return await _error(
                503, "abort_only", "this API has %d connections open, the most it serves; "
                "this one was kept for POST /abort only: try again in %d s"
                % (MAX_CONNECTIONS, RETRY_AFTER_S), RETRY_AFTER_S)(send)
        state = {"started": False, "done": False}

        async def tracked(message):
            if message["type"] == "http.response.start":
                state["started"] = True
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                state["done"] = True
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except asyncio.CancelledError:
            if not getattr(self.protocol.server_state, "jantaku_stopping", False):
                raise
            await self._stopped(state, send)

    @staticmethod
    async def _stopped(state, send):
        """The server's shutdown cancelled this request: answer it, or end its stream."""
        try:
            if not state["started"]:
                await _error(503, "stopping", "the daemon is stopping: try again once it is "
                             "back", RETRY_AFTER_S)(send)
            elif not state["done"]:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        except Exception:  # the client is gone as well: nothing to answer
            pass


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with deadlines for a request's headers, a cap on open
    connections and a reserve of connections for POST /abort."""

    header_timeout_s = HEADER_TIMEOUT_S
    min_header_timeout_s = MIN_HEADER_TIMEOUT_S
    max_connections = MAX_CONNECTIONS
    per_address = PER_ADDRESS
    abort_reserve = ABORT_RESERVE
    reserve_timeout_s = RESERVE_TIMEOUT_S
    uncapped = frozenset()  # addresses without a per-address cap: the proxies the owner names

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.app = ConnectionApp(self.app, self)
        self.reserve = False
        self.opened = next(_opened)
        self.opened_at = 0.0
        self.address = None
        self._header_timer = None
        self._header_due = 0.0

    def _serving(self):
        return [p for p in self.connections if not getattr(p, "reserve", True)
                and p is not self and not p.transport.is_closing()]

    def header_deadline(self, serving):
        """The header deadline with ``serving`` connections taken: HEADER_TIMEOUT_S while
        half or fewer are, shrinking to MIN_HEADER_TIMEOUT_S as the last are taken (a client
        that sends its headers at once never notices; one that holds a slot with nothing
        holds it the shorter the fuller the server)."""
        full = self.max_connections
        if serving <= full // 2:
            return self.header_timeout_s
        left = max(full - serving, 0) / max(full - full // 2, 1)
        return self.min_header_timeout_s + (self.header_timeout_s - self.min_header_timeout_s) * left

    def connection_made(self, transport):
        super().connection_made(transport)
        self.opened_at = self.loop.time()
        peer = transport.get_extra_info("peername")
        self.address = peer[0] if isinstance(peer, (tuple, list)) and peer else None
        serving = self._serving()
        mine = [p for p in serving if p.address == self.address]
        capped = self.address not in self.uncapped and len(mine) >= self.per_address
        if capped:
            # an address at its cap gives up its oldest connection that waits for a
            # request's headers (a browser's idle keep-alive, or a slow client): a page's
            # connections, four phones behind one address, are never answered 503
            waiting = [p for p in mine if p._header_timer is not None]
            if waiting:
                oldest = min(waiting, key=lambda p: p.opened)
                self.logger.info("connection closed: its address holds %d connections and "
                                 "a newer one of its own needs the place", len(mine))
                oldest._cancel_header_timer()
                oldest.transport.close()
                serving.remove(oldest)
                capped = False
        if len(serving) < self.max_connections and not capped:
            deadline = self.header_deadline(len(serving) + 1)
            self._arm_header_timer(deadline)
            if deadline < self.header_timeout_s:
                self._cut_late(serving, deadline)
            return
        self.reserve = True
        if not self._room_in_reserve():
            self.logger.warning("connection refused: %d connections are open and the %d kept "
                                "for an abort are busy", len(serving), self.abort_reserve)
            transport.close()
            return
        self._arm_header_timer(self.reserve_timeout_s)

    def _cut_late(self, serving, deadline):
        """Under pressure the deadline shrinks for those already waiting too: a connection
        whose headers are not whole ``deadline`` after it opened is closed then (at once if
        that is past)."""
        now = self.loop.time()
        for p in serving:
            if p.cycle is not None or p._header_timer is None:
                continue
            due = p.opened_at + deadline
            if due < p._header_due:
                p._arm_header_timer(deadline, max(due - now, 0.0))

    def _unfinished(self):
        """Its request is not whole yet (headers or body still to come)."""
        return self.cycle is None or self.cycle.more_body

    def _room_in_reserve(self):
        others = [p for p in self.connections if p is not self and getattr(p, "reserve", False)
                  and not p.transport.is_closing()]
        if len(others) < self.abort_reserve:
            return True
        waiting = [p for p in others if p._unfinished()]
        if not waiting:
            return False
        # the oldest of the address holding the most: a flood from a few addresses replaces
        # its own connections, not the one an abort from elsewhere just opened
        held = collections.Counter(p.address for p in others + [self])
        oldest = min(waiting, key=lambda p: (-held[p.address], p.opened))
        self.logger.info("connection closed: its request was not complete and a newer "
                         "connection needs its place in the reserve kept for an abort")
        oldest.transport.close()
        return True

    def _arm_header_timer(self, seconds, after=None):
        """The connection closed ``after`` seconds from now (default: ``seconds``) unless
        its headers came; ``seconds`` is the deadline the log line says."""
        self._cancel_header_timer()
        after = seconds if after is None else after
        self._header_due = self.loop.time() + after
        self._header_timer = self.loop.call_later(after, self._header_timeout, seconds)

    def _cancel_header_timer(self):
        timer = getattr(self, "_header_timer", None)
        if timer is not None:
            timer.cancel()
            self._header_timer = None

    def _header_timeout(self, seconds):
        self._header_timer = None
        if self.transport.is_closing():
            return
        if self.reserve and not self._unfinished():
            return  # the abort is running
        self.logger.info("connection closed: request %s not complete within %g s",
                         "kept for an abort" if self.reserve else "headers", seconds)
        self.transport.close()

    def handle_events(self):
        before = self.cycle
        super().handle_events()
        if self.cycle is not before and not self.reserve:  # a request's headers arrived
            self._cancel_header_timer()  # (a reserve connection's deadline is the request's)

    def on_response_complete(self):
        super().on_response_complete()
        if self.reserve:
            self.transport.close()  # one request (an abort) per reserve connection
        elif not self.transport.is_closing():
            # the next request's headers, as a new connection's under the same pressure
            self._arm_header_timer(self.header_deadline(len(self._serving()) + 1))

    def connection_lost(self, exc):
        self._cancel_header_timer()
        super().connection_lost(exc)


def compressed(app):
    """``app`` with its answers over COMPRESS_MIN_BYTES gzipped (not event streams, not
    what is already encoded), its JSON answers to GET with validators (``validated``)."""
    return GZipMiddleware(validated(app), minimum_size=COMPRESS_MIN_BYTES,
                          compresslevel=COMPRESS_LEVEL)


def validated(app):
    """``app`` with a weak ETag on each 200 JSON answer to GET (a hash of the JSON, so the
    same for its gzipped form) and ``no-cache`` (a browser asks again every time), and 304
    with no body when the request's If-None-Match holds it: a page reloaded while nothing
    changed (the rulesets, a history page, the OpenAPI document) transfers only headers."""
    async def asgi(scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "GET":
            return await app(scope, receive, send)
        held = []  # the start and body messages of a JSON answer, until its end

        async def hold(message):
            if held or message["type"] == "http.response.start" and _is_json_200(message):
                held.append(message)
                if message["type"] == "http.response.body" and not message.get("more_body"):
                    await _send_validated(scope, held, send)
                return
            await send(message)

        await app(scope, receive, hold)
    return asgi


def _is_json_200(start):
    return start["status"] == 200 and any(
        k.lower() == b"content-type" and v.startswith(b"application/json")
        for k, v in start.get("headers", ()))


async def _send_validated(scope, held, send):
    start, body = held[0], b"".join(m.get("body", b"") for m in held[1:])
    tag = '"%s"' % hashlib.sha256(body).hexdigest()[:24]
    headers = [(k, v) for k, v in start.get("headers", ())
               if k.lower() not in (b"etag", b"cache-control")]
    headers += [(b"etag", b"W/" + tag.encode()), (b"cache-control", b"no-cache")]
    asked = etags(b", ".join(v for k, v in scope.get("headers", ())
                             if k == b"if-none-match").decode("latin-1"))
    if tag in asked or "*" in asked:
        headers = [(k, v) for k, v in headers if k.lower() != b"content-length"]
        await send(dict(start, status=304, headers=headers))
        await send({"type": "http.response.body", "body": b""})
        return
    await send(dict(start, headers=headers))
    await send({"type": "http.response.body", "body": body})


def etags(if_none_match):
    """The entity tags an If-None-Match value lists, weak ones ("W/") as strong: a GET's
    validators are compared weakly (RFC 9110 §13.1.2)."""
    return {t.strip().removeprefix("W/") for t in if_none_match.split(",") if t.strip()}


def trusted_proxy(text):
    """An address given as a proxy to trust (``--trusted-proxy``): an IP address, written
    as uvicorn compares it; ValueError saying what is accepted."""
    import ipaddress

    try:
        return str(ipaddress.ip_address(text.strip().strip("[]")))
    except ValueError:
        raise ValueError("%r is not an IP address: give the proxy's address as its requests "
                         "come in, e.g. 127.0.0.1 for a proxy on this host" % text) from None


def make_config(app, host="127.0.0.1", port=8737, trusted_proxies=(), **kw):
    trusted = tuple(trusted_proxy(a) for a in trusted_proxies)
    protocol = type("GuardedH11Protocol", (GuardedH11Protocol,), {"uncapped": frozenset(trusted)})
    opts = dict(host=host, port=port, http=protocol, log_config=None,
                log_level="warning", lifespan="off", timeout_keep_alive=KEEP_ALIVE_S,
                timeout_graceful_shutdown=SHUTDOWN_S,
                h11_max_incomplete_event_size=MAX_HEADER_BYTES, server_header=False,
                # X-Forwarded-Proto / -For from the proxies the owner names only (none: not
                # read at all); the Host is always what came in (the proxy passes the
                # browser's on: docs/DEPLOY.md)
                proxy_headers=bool(trusted), forwarded_allow_ips=",".join(trusted) or "")
    opts.update(kw)
    return uvicorn.Config(compressed(app), **opts)


class Server(uvicorn.Server):
    """uvicorn's server, which calls ``on_shutdown()`` as it begins to shut down, before it
    waits for the requests still running, and cancels what still runs after SHUTDOWN_S
    with one info line (uvicorn's own says it at error level, and each request cancelled
    logs a traceback)."""

    def __init__(self, config, on_shutdown=None):
        super().__init__(config)
        self.on_shutdown = on_shutdown

    @contextlib.contextmanager
    def capture_signals(self):
        """uvicorn's, with SIGHUP beside SIGINT and SIGTERM (a closed terminal, which
        `jantaku run` takes as a stop): while the server runs, each only sets its stop flag.
        A handler that raised instead (KeyboardInterrupt) could raise inside a request, where
        uvicorn logs and swallows it: the daemon never stopped.  Once stopped, the signals
        are raised again for the handlers from before (the CLI's clean-up)."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        before = {sig: signal.signal(sig, self.handle_exit) for sig in STOP_SIGNALS}
        try:
            yield
        finally:
            for sig, handler in before.items():
                signal.signal(sig, handler)
        for sig in reversed(self._captured_signals):
            signal.raise_signal(sig)

    async def shutdown(self, sockets=None):
        if self.on_shutdown is not None:
            self.on_shutdown()
        for server in self.servers:  # as uvicorn's: no new connection, idle ones closed
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        await asyncio.sleep(0.1)
        try:
            await asyncio.wait_for(self._wait_tasks_to_complete(),
                                   timeout=self.config.timeout_graceful_shutdown)
        except asyncio.TimeoutError:
            await self._cancel_requests()
        if not self.force_exit:
            await self.lifespan.shutdown()

    async def _cancel_requests(self):
        tasks = [t for t in self.server_state.tasks if not t.done()]
        log.info("requests_cancelled", n=len(tasks), after_s=self.config.timeout_graceful_shutdown,
                 why="still running as the daemon stopped")
        self.server_state.jantaku_stopping = True
        for t in tasks:
            t.cancel()
        if tasks:  # each answers (503) or ends its stream, then is done
            await asyncio.wait(tasks, timeout=1.0)


def make_server(app, host="127.0.0.1", port=8737, on_shutdown=None, trusted_proxies=(), **kw):
    return Server(make_config(app, host, port, trusted_proxies=trusted_proxies, **kw),
                  on_shutdown=on_shutdown)


def bind_socket(host, port):
    """A listening socket on ``host:port`` (IPv6 when ``host`` is an IPv6 address), bound
    before the daemon says it is up, so a clash is an error, not a line after "daemon
    up".  Raises OSError (e.g. address already in use)."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(LISTEN_BACKLOG)
        sock.set_inheritable(True)
    except OSError:
        sock.close()
        raise
    return sock
