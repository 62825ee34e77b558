"""The API's guards (CPython only): pure ASGI middleware for every HTTP request, the
event stream included, before any route runs.

* ``OriginGuard``: the Host header (DNS rebinding), the Origin (cross-site; an Origin
  with a user, a path or anything but scheme, host and port is refused) and the fetch
  metadata a browser sends (``Sec-Fetch-Site: cross-site`` or ``same-site`` is refused
  but for a plain navigation: GET or HEAD with ``Sec-Fetch-Mode: navigate``);
* ``StreamCap``: at most MAX_EVENT_STREAMS event streams at once (503 ``too_many_streams``
  with ``Retry-After`` beyond);
* ``BodyGuard``: request bodies: who may send one (the commands' callers are judged
  before a byte of their body is read), their size (413 before reading a
  declared-large one), their deadline (408 unless whole within BODY_TIMEOUT_S), their
  type (415 unless JSON) and their JSON (hostd/strictjson.py: 400 ``bad_json``, 422 for
  JSON that is not an object), and the event streams' cleanup.

What each refusal says is in docs/API.md "Security", "Bodies" and "Errors".
"""
import hmac
import inspect
import ipaddress
from urllib.parse import urlsplit

import anyio
import structlog
from fastapi.responses import JSONResponse

from hostd.errors import JantakuError, describe_validation  # noqa: F401 - for the API
from hostd import strictjson
from hostd.strictjson import MAX_BODY_BYTES, BodyRefused, read_object, too_large

BODY_TIMEOUT_S = 10.0  # a request's whole body, from its headers (as their own deadline)
DRAIN_S = 1.0  # a refused body is read (and dropped) this long at most before the answer
MAX_EVENT_STREAMS = 32  # event streams open at once: a table has a handful of screens
STREAM_RETRY_S = 10  # Retry-After of a stream refused
LOG_VALUE_CHARS = 200  # a header value quoted in a log line or an answer is cut there
EVENTS_PATH = "/events"
log = structlog.get_logger("jantaku.api")


def is_loopback(host):
    if host in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_wildcard(host):
    return host.strip("[]") in ("0.0.0.0", "::", "")


def split_host(value, default_port):
    """'[::1]:8737' -> ('::1', 8737); 'Example:80' -> ('example', 80)."""
    try:
        parts = urlsplit("//" + value)
        return (parts.hostname or "").lower(), parts.port or default_port
    except ValueError:
        return None, None


def once(closer):
    """``closer`` called at most once (the route and the middleware may both try)."""
    done = []

    async def close():
        if not done:
            done.append(True)
            await maybe_await(closer())

    return close


async def maybe_await(value):
    if inspect.isawaitable(value):
        return await value
    return value


def error_response(status, code, message, headers=None):
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status,
                        headers=headers)


def cut(value, n=LOG_VALUE_CHARS):
    return strictjson.cut(value, n)


class OriginGuard:
    """Pure ASGI middleware: Host (DNS rebinding) and Origin (cross-site) checks, for
    every HTTP request including the event stream."""

    def __init__(self, app, *, allowed_hosts, wildcard=False, token=None):
        self.app = app
        self.allowed_hosts = allowed_hosts  # set of lower-case names
        self.wildcard = wildcard  # bound to every address: IP literals are fine too
        self.token = token  # on a wildcard bind, the token lets any Host through

    def _host_ok(self, host, headers):
        if host in self.allowed_hosts:
            return True
        if not self.wildcard:
            return False
        try:
            ipaddress.ip_address(host or "")
            return True  # an address, not a name: DNS rebinding needs a name
        except ValueError:
            pass
        auth = headers.get("authorization", "")
        scheme, _, cred = auth.partition(" ")
        return bool(self.token and scheme.lower() == "bearer"
                    and hmac.compare_digest(cred.strip().encode("utf-8", "replace"),
                                            self.token.encode()))

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = _headers(scope)
        scheme = scope.get("scheme", "http")
        default_port = 443 if scheme == "https" else 80
        host_header = headers.get("host", "")
        host, port = split_host(host_header, default_port)
        if not self._host_ok(host, headers):
            resp = error_response(403, "bad_host",
                          "Host %r is not a name of this API (accepted: %s%s); to reach it "
                          "by another name, start the daemon with `jantaku run --allow-host "
                          "NAME`%s"
                          % (cut(host_header, 100), ", ".join(sorted(self.allowed_hosts)),
                             ", or an IP address" if self.wildcard else "",
                             " (or send the API token)" if self.wildcard else ""))
            return await resp(scope, receive, send)
        refusal = _cross_site(headers, scope, scheme, host, port, host_header)
        if refusal is not None:
            return await refusal(scope, receive, send)
        return await self.app(scope, receive, send)


def same_origin(origin, scheme, host, port):
    """Whether an Origin header is exactly this API's own origin: scheme://host[:port],
    nothing else (no user, no path: a browser never sends them, ``http://evil@host`` is
    not ``http://host``)."""
    if origin == "null":
        return False
    try:
        o = urlsplit(origin)
        o_port = o.port or (443 if o.scheme == "https" else 80)
    except ValueError:
        return False
    if o.scheme not in ("http", "https") or not o.hostname or "@" in o.netloc \
            or o.path or o.query or o.fragment or origin.endswith(("?", "#")):
        return False
    return o.scheme == scheme and o.hostname.lower() == host and o_port == port


def _cross_site(headers, scope, scheme, host, port, host_header):
    """None, or the 403 for a request from another origin: its Origin, or what the
    browser says of it (fetch metadata) when it sends no Origin."""
    path = cut(scope.get("path", ""), 100)
    origin = headers.get("origin")
    if origin is not None and not same_origin(origin, scheme, host, port):
        log.warning("cross_origin_refused", origin=cut(origin), path=path)
        return error_response(403, "cross_origin",
                              "cross-origin request from %s refused: this API answers only "
                              "its own origin (%s://%s) and programs that send no Origin"
                              % (cut(origin, 100), scheme, cut(host_header, 100)))
    site = headers.get("sec-fetch-site")
    if site is None or site in ("same-origin", "none"):
        return None
    if scope.get("method") in ("GET", "HEAD") and headers.get("sec-fetch-mode") == "navigate":
        return None  # a link followed to the page: the browser shows it, no script reads it
    log.warning("cross_origin_refused", sec_fetch_site=cut(site, 40), path=path)
    return error_response(403, "cross_origin",
                          "a request the browser marks as coming from another site "
                          "(Sec-Fetch-Site: %s) refused: this API answers only its own "
                          "origin (%s://%s), links to its page, and programs"
                          % (cut(site, 40), scheme, cut(host_header, 100)))


class StreamCap:
    """Pure ASGI middleware: at most ``max_streams`` event streams (GET /events) at once;
    one more is answered 503 ``too_many_streams`` with ``Retry-After`` and its connection
    closed, so streams never hold every connection (hostd/web/server.py)."""

    def __init__(self, app, *, max_streams=None, path=EVENTS_PATH):
        self.app = app
        self.max_streams = MAX_EVENT_STREAMS if max_streams is None else max_streams
        self.path = path
        self.open = 0

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("path") != self.path \
                or scope.get("method") not in ("GET", "HEAD"):
            return await self.app(scope, receive, send)
        if self.open >= self.max_streams:
            log.warning("events_refused", open=self.open, most=self.max_streams)
            return await error_response(
                503, "too_many_streams", "%d event streams are open, the most this API keeps "
                "(a table has a handful of screens): try again in %d s"
                % (self.open, STREAM_RETRY_S),
                {"Retry-After": str(STREAM_RETRY_S), "Connection": "close"})(scope, receive, send)
        self.open += 1
        try:
            return await self.app(scope, receive, send)
        finally:
            self.open -= 1


def _client_left_types():
    from starlette.requests import ClientDisconnect

    types = [ClientDisconnect, ConnectionError, anyio.BrokenResourceError,
             anyio.ClosedResourceError, anyio.EndOfStream]
    try:
        from uvicorn.protocols.utils import ClientDisconnected

        types.append(ClientDisconnected)
    except ImportError:  # pragma: no cover - another server
        pass
    return tuple(types)


_CLIENT_LEFT = _client_left_types()


def client_left(exc):
    """True if ``exc`` (or every exception of a group, as a task group raises them) says
    the client went away."""
    if isinstance(exc, BaseExceptionGroup):
        return bool(exc.exceptions) and all(client_left(e) for e in exc.exceptions)
    return isinstance(exc, _CLIENT_LEFT)


def _headers(scope):
    headers = {}
    for k, v in scope.get("headers", ()):
        headers.setdefault(k.decode("latin-1").lower(), v.decode("latin-1"))
    return headers


def jantaku_response(exc, headers=None):
    """The API's answer to a :class:`~hostd.errors.JantakuError`."""
    headers = dict(headers or {})
    if exc.status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    return JSONResponse({"error": exc.to_dict()}, status_code=exc.status, headers=headers or None)


class BodyGuard:
    """Pure ASGI middleware: request bodies and the event streams' cleanup.

    * ``before_body(scope, headers)`` (the commands' callers: token, pairing) runs before
      the body is read; what it raises is answered once what of the body came within
      DRAIN_S is dropped, with ``Connection: close`` (so a caller who may not press holds
      no connection longer, whatever its body does);
    * a body declared (Content-Length) over ``max_bytes``: 413 without reading it, and
      ``Connection: close``; a chunked body is cut at ``max_bytes`` the same way;
    * a body not whole within ``body_timeout_s`` of the headers: 408 ``body_timeout``,
      ``Connection: close`` (a client sending a byte every few seconds holds nothing);
    * a body with a content type other than JSON: 415 saying to send JSON;
    * what hostd/strictjson.py refuses (the MQTT bridge reads commands with it too): 400
      ``bad_json`` (not UTF-8 JSON, a key twice, NaN, an integer too long, nesting too
      deep; spaces alone), 422 ``bad_request`` (JSON that is not an object);
    * streams a route registered in ``scope["jantaku.streams"]`` are closed when the
      request ends, however it ends, in a shielded scope that cancellation cannot skip.
    """

    BODY_METHODS = ("POST", "PUT", "PATCH", "DELETE")

    def __init__(self, app, *, max_bytes=MAX_BODY_BYTES, accepted=lambda path: "",
                 before_body=None, body_timeout_s=None):
        self.app = app
        self.max_bytes = max_bytes
        self.accepted = accepted  # path -> what its body may be, in words
        self.before_body = before_body
        self.body_timeout_s = BODY_TIMEOUT_S if body_timeout_s is None else body_timeout_s

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        streams = scope.setdefault("jantaku.streams", [])
        try:
            return await self._handle(scope, receive, send)
        except Exception as e:
            if not client_left(e):
                raise
            # a client that drops its connection (an event stream closed, a reset) is
            # normal: not an "Exception in ASGI application" with a traceback
            log.debug("client_left", path=cut(scope.get("path", ""), 100),
                      error=type(e).__name__)
            return None
        finally:
            if streams:
                with anyio.CancelScope(shield=True):
                    for closer in streams:
                        try:
                            await maybe_await(closer())
                        except Exception:  # pragma: no cover - a closer's own bug
                            log.exception("events_close_failed")

    def _too_large(self, how, path):
        return jantaku_response(too_large("body", how, self.accepted(path), self.max_bytes),
                                {"Connection": "close"})

    async def _handle(self, scope, receive, send):
        headers = _headers(scope)
        path = scope.get("path", "")
        declared = headers.get("content-length")
        if declared is not None:
            if not declared.strip().isdigit():
                return await error_response(400, "bad_request", "Content-Length %r is not a "
                                            "number" % cut(declared, 40))(scope, receive, send)
            if int(declared) > self.max_bytes:
                return await self._too_large("declared as %s bytes" % declared, path)(
                    scope, receive, send)
        if scope.get("method") not in self.BODY_METHODS:
            return await self.app(scope, receive, send)
        if self.before_body is not None:
            try:
                self.before_body(scope, headers)
            except JantakuError as e:
                await self._drain(receive)
                return await jantaku_response(e, {"Connection": "close"})(scope, receive, send)
        body = await self._read(receive, path)
        if not isinstance(body, bytes):
            return None if body is None else await body(scope, receive, send)
        refusal = self._check(body, headers, path)
        if refusal is not None:
            return await refusal(scope, receive, send)
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)

    async def _drain(self, receive):
        """What of a refused body comes within DRAIN_S, read and dropped, so that closing
        the connection after the answer does not reset it under a client still sending
        (its answer lost); a body that stalls holds the connection that long, no more."""
        size = 0
        with anyio.move_on_after(DRAIN_S):
            while size <= self.max_bytes:
                message = await receive()
                size += len(message.get("body", b""))
                if message["type"] != "http.request" or not message.get("more_body", False):
                    break

    async def _read(self, receive, path):
        """The body (bytes), None if the client left, or the answer (413,
        408) that ends the request."""
        chunks, size = [], 0
        with anyio.move_on_after(self.body_timeout_s) as deadline:
            while True:
                message = await receive()
                if message["type"] != "http.request":  # the client left
                    return None
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > self.max_bytes:
                    return self._too_large("over the limit", path)
                chunks.append(chunk)
                if not message.get("more_body", False):
                    break
        if deadline.cancelled_caught:
            log.info("body_timeout", path=cut(path, 100), received=size)
            return error_response(408, "body_timeout", "the body did not arrive whole within "
                                  "%g s of the request's headers (%d bytes came); send it at "
                                  "once" % (self.body_timeout_s, size), {"Connection": "close"})
        body = b"".join(chunks)
        return body

    def _check(self, body, headers, path):
        """None for an acceptable body, else the answer: 415 not sent as JSON, or what the
        strict reader refuses (hostd/strictjson.py)."""
        if not body:
            return None
        ctype = headers.get("content-type", "").split(";")[0].strip().lower()
        if not (ctype == "application/json" or ctype.endswith("+json")):
            return error_response(
                415, "not_json",
                "the body must be JSON sent with 'Content-Type: application/json' (it "
                "came as %r); accepted: %s" % (cut(ctype or "no content type", 60),
                                               self.accepted(path)))
        try:
            read_object(body, self.accepted(path))
        except BodyRefused as e:
            return jantaku_response(e)
        return None
