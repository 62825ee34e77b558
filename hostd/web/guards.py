"""The API's guards (CPython only): pure ASGI middleware for every HTTP request, the
event stream included, before any route runs.

* ``OriginGuard``: the Host header (DNS rebinding) and the Origin (cross-site) checks;
* ``BodyGuard``: request bodies: their size (413 before reading a declared-large one),
  their type (415 unless JSON) and their JSON (400 ``bad_json``: invalid UTF-8, a key
  twice, an integer too long, nesting too deep), and the event streams' cleanup.

What each refusal says is in docs/API.md "Security" and "Errors".
"""
import hmac
import inspect
import ipaddress
import json
import math
from urllib.parse import urlsplit

import anyio
import structlog
from fastapi.responses import JSONResponse

from hostd.errors import describe_validation  # noqa: F401 - for the API

MAX_BODY_BYTES = 1024 * 1024  # a table's host may be a Raspberry Pi
LOG_VALUE_CHARS = 200  # a header value quoted in a log line or an answer is cut there
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
    value = str(value)
    return value if len(value) <= n else value[:n] + "...(%d chars)" % len(value)


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
        headers = {}
        for k, v in scope.get("headers", ()):
            headers.setdefault(k.decode("latin-1").lower(), v.decode("latin-1"))
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
        origin = headers.get("origin")
        if origin is not None:
            o = urlsplit(origin) if origin != "null" else None
            same = False
            if o is not None and o.scheme in ("http", "https") and o.hostname:
                try:
                    o_port = o.port or (443 if o.scheme == "https" else 80)
                except ValueError:
                    o_port = None
                same = (o.scheme == scheme and o.hostname.lower() == host and o_port == port)
            if not same:
                log.warning("cross_origin_refused", origin=cut(origin),
                            path=cut(scope.get("path", ""), 100))
                resp = error_response(403, "cross_origin",
                              "cross-origin request from %s refused: this API answers only "
                              "its own origin (%s://%s) and programs that send no Origin"
                              % (cut(origin, 100), scheme, cut(host_header, 100)))
                return await resp(scope, receive, send)
        return await self.app(scope, receive, send)


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


class BodyGuard:
    """Pure ASGI middleware: request bodies (size, JSON) and the event streams' cleanup.

    * a body declared (Content-Length) over ``max_bytes``: 413 without reading it, and
      ``Connection: close``; a chunked body is cut at ``max_bytes`` the same way;
    * a body with a content type other than JSON: 415 saying to send JSON;
    * a body that is not UTF-8 JSON, has a key twice, an integer too long to convert or
      nesting too deep: 400 ``bad_json``;
    * streams a route registered in ``scope["jantaku.streams"]`` are closed when the
      request ends, however it ends, in a shielded scope that cancellation cannot skip.
    """

    BODY_METHODS = ("POST", "PUT", "PATCH", "DELETE")

    def __init__(self, app, *, max_bytes=MAX_BODY_BYTES, accepted=lambda path: ""):
        self.app = app
        self.max_bytes = max_bytes
        self.accepted = accepted  # path -> what its body may be, in words

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
        return error_response(413, "too_large", "the body is %s; this API takes at most %d bytes "
                      "(a JSON object such as %s)" % (how, self.max_bytes, self.accepted(path)),
                      {"Connection": "close"})

    async def _handle(self, scope, receive, send):
        headers = {}
        for k, v in scope.get("headers", ()):
            headers.setdefault(k.decode("latin-1").lower(), v.decode("latin-1"))
        declared = headers.get("content-length")
        if declared is not None:
            if not declared.strip().isdigit():
                return await error_response(400, "bad_request", "Content-Length %r is not a number"
                                    % cut(declared, 40))(scope, receive, send)
            if int(declared) > self.max_bytes:
                return await self._too_large("declared as %s bytes" % declared, scope.get("path", ""))(
                    scope, receive, send)
        if scope.get("method") not in self.BODY_METHODS:
            return await self.app(scope, receive, send)
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                return await self._too_large("over the limit", scope.get("path", ""))(
                    scope, receive, send)
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body.strip():
            ctype = headers.get("content-type", "").split(";")[0].strip().lower()
            if not (ctype == "application/json" or ctype.endswith("+json")):
                return await error_response(
                    415, "not_json",
                    "the body must be JSON sent with 'Content-Type: application/json' (it "
                    "came as %r); accepted: %s" % (cut(ctype or "no content type", 60),
                                                   self.accepted(scope.get("path", ""))))(
                    scope, receive, send)
            problem = _json_problem(body)
            if problem:
                return await error_response(400, "bad_json", "the body is not valid JSON (%s); "
                                    "accepted: %s" % (problem, self.accepted(scope.get("path", ""))))(
                    scope, receive, send)
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)


def _no_duplicates(pairs):
    seen = set()
    for k, _ in pairs:
        if k in seen:
            raise ValueError("the key %r is given twice" % cut(k, 40))
        seen.add(k)
    return dict(pairs)


def _finite(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("the number %s is out of range" % cut(text, 40))
    return value


def _json_problem(body):
    """None if ``body`` is UTF-8 JSON without duplicate keys, else what is wrong."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        return "invalid UTF-8 at byte %d" % e.start
    try:
        json.loads(text, object_pairs_hook=_no_duplicates, parse_float=_finite,
                   parse_constant=lambda c: (_ for _ in ()).throw(
                       ValueError("%s is not JSON" % c)))
    except RecursionError:
        return "nested too deep"
    except json.JSONDecodeError as e:
        return "%s at line %d column %d" % (e.msg, e.lineno, e.colno)
    except ValueError as e:
        return cut(str(e).split("; use sys.set_int_max_str_digits")[0], 120)
    return None
