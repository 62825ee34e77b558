"""The local HTTP API of the daemon (CPython only): FastAPI + server-sent events.

Layer: beside the session; it calls a *daemon* object and never touches the table.

    GET  /health      liveness: {"ok": true, "version": ...}  (HEAD too)
    GET  /status      the daemon's status (table, session, decks, builds, hands, faults)
    GET  /rulesets    the rulesets this daemon knows
    GET  /history     past sessions (?limit=20&before=ID), newest first
    POST /session     start a session  {"ruleset": "riichi", "mixed_deck": true, "seed": 42}
    POST /hand-over   end the hand being played / begin the first   (moves motors)
    POST /dice        the hand's throw {"dice": [3, 4]} (physical dice) or {} (no motors)
    POST /game        end the game, begin the next (Mixed Deck: split afresh) (moves motors)
    POST /session/end end the session {"empty": false}               (moves motors if empty)
    POST /continue    people did what was asked: carry on           (moves motors)
    POST /clear-fault the fault is fixed: clear it and carry on     (moves motors)
    POST /abort       stop the table and end the session             (moves motors)
    GET  /pair        is this browser paired (its id)?  POST /pair {"code": "ABCD-1234"}:
                      pair it
    POST /pair/new    a one-time pairing code (programs on the host only)
    GET  /pair/browsers  the paired browsers (programs on the host only)
    POST /pair/revoke {"id": "3f9a2c"}: unpair one browser (programs on the host only)
    POST /pair/forget this browser unpairs itself (its cookie cleared)
    POST /pair/revoke-all  every browser must pair again
    POST /hand/check  analyse a hand {"hand": "123m...", "mixed_deck": true} (hostd.hand.api)
    GET  /events      text/event-stream: each event's data is one JSON object with a
                      "type"; clients must ignore types they don't know.  The first is
                      {"type": "hello", "api": 1, "status": {...}}.
    GET  /openapi.json  the OpenAPI document (docs/API.md describes every route and event)
    GET  /            the table's page (hostd/web/webpage.py; its files under /page/)
    GET  /docs, /redoc  the document in Swagger UI and ReDoc, their scripts served from the
                        package (fastapi-offline's copies, under /docs-assets/): nothing
                        from a CDN, so they work on an offline table

Errors are ``{"error": {"code": ..., "message": ...}}`` with the status of the
:class:`~hostd.errors.JantakuError` the daemon raised (400 bad request, 401/403 refused,
409 not ready, 413 body over 1 MiB, 415 a body that is not JSON, 422 refused by the table
or an invalid body, 500 otherwise).

Bodies: JSON (``Content-Type: application/json``), UTF-8, at most MAX_BODY_BYTES (a body
declared larger is answered 413 without being read, and the connection closed; a chunked
body is cut there).  Duplicate keys, invalid UTF-8, integers of more than 4300 digits and
nesting deeper than the parser takes are ``400 bad_json``.  Fields are strict: a boolean
is ``true``/``false`` (not ``"yes"``, ``1``), an integer is a JSON integer (not ``"42"``,
``42.0``, ``true``).

Security (DESIGN §4: "on anything but loopback, or from a browser, motor commands need a
token"):

* bound to loopback (127.0.0.1, ::1, localhost) by default;
* a non-loopback bind needs a token: :func:`create_app` **refuses to start** without one
  (:class:`~hostd.errors.ConfigError`).  :func:`load_or_create_token` makes one in a
  0600 file for the CLI's ``--token-file`` (it says where, so the operator can read it);
* when a token is configured (on any bind), the motor commands need
  ``Authorization: Bearer <token>``: missing -> 401, wrong -> 403;
* browsers: a request with an ``Origin`` header that is not this API's own origin gets
  403, ``/events`` included, and no CORS header is ever sent, so another web page can
  neither command the table nor read its answers;
* browsers are paired (hostd/web/pairing.py): a motor command carrying an ``Origin`` needs the
  browser-session cookie that ``POST /pair`` gives for a one-time code, or the token,
  loopback included; requests without ``Origin`` (the CLI) are unchanged; the cookie is
  ``Secure`` when the request came over HTTPS (through a TLS proxy on this host, whose
  X-Forwarded-Proto hostd/web/server.py trusts from loopback only), never over plain HTTP;
* without a token, commands and pairing codes are for programs on this host only: a
  client that such a proxy names in X-Forwarded-For is refused (401);
* each paired browser has a short random id: programs on the host list the browsers
  (``GET /pair/browsers``) and unpair one (``POST /pair/revoke``) as they make codes
  (no ``Origin``; the token when one is configured); a browser unpairs itself
  (``POST /pair/forget``); the log names a browser by its id only;
* DNS rebinding: on a loopback or specific-address bind the ``Host`` header must be one
  of this API's names (loopback names, the bind address, ``allowed_hosts``), else 403 —
  otherwise a page at a hostile name resolving to 127.0.0.1 would count as "same origin".
  On a wildcard bind (0.0.0.0, ::) a Host that is an IP address is accepted (rebinding
  needs a name), and so are the loopback names and ``allowed_hosts`` (``run
  --allow-host NAME``); any other name needs the token, reads included;
* no redirects (``/status/`` is 404, not a redirect built from the request's Host).
"""
import hmac
import inspect
import math
import ipaddress
import json
import os
import secrets
from typing import Annotated, Any, AsyncIterator, Optional
from urllib.parse import urlsplit

import anyio
import structlog
from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.sse import EventSourceResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.exceptions import HTTPException as StarletteHTTPException

from hostd.errors import ConfigError, Forbidden, JantakuError, Unauthorized
from hostd.hand import api as hand_api
from hostd.web.pairing import COOKIE, SESSION_TTL_S, Pairing
from hostd.web.webpage import add_page

API_VERSION = 1
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
MAX_BODY_BYTES = 1024 * 1024  # a table's host may be a Raspberry Pi
MIN_TOKEN_CHARS = 16
MAX_SEED = 2 ** 53 - 1  # the largest integer every JSON client reads exactly
LOG_VALUE_CHARS = 200  # a header value quoted in a log line or an answer is cut there
log = structlog.get_logger("jantaku.api")

try:  # the installed distribution's version, for /health
    from importlib.metadata import version as _dist_version

    VERSION = _dist_version("jantaku")
except Exception:  # pragma: no cover - not installed
    VERSION = "0+unknown"


# -- models ---------------------------------------------------------------------------------

def _ruleset_names():
    from hostd.core.rulesets import list_rulesets

    return [p.name for p in list_rulesets()]


def _selftest_devices():
    from hostd.bringup.selftest import ORDER

    return ORDER


class SessionRequest(BaseModel):
    """Start a session."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"ruleset": "riichi", "mixed_deck": True, "seed": 42}]})

    ruleset: str = Field(min_length=1, max_length=64,
                         description="a ruleset name from GET /rulesets (Ùzje's options may "
                                     "come in any order; an unknown name is 400)",
                         json_schema_extra={"enum": _ruleset_names()})
    mixed_deck: bool = Field(False, description="mix both tile sets and split them into two decks")
    seed: Optional[int] = Field(None, ge=0, le=MAX_SEED,
                                description="seed for dice (and the simulator); omit for "
                                            "cryptographic dice in real play")
    replace: bool = Field(False, description="end the open session (motions stopped) and "
                                             "start this one; without it a second start is 409")
    loaded: bool = Field(False, description="normal rotation: the sets are loaded as "
                                            "documented, whatever the last session did")
    colours: Optional[list[Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9-]{0,15}$")]]] = Field(
        None, min_length=2, max_length=2,
        description="the two sets' back colours, each a colour class the table knows "
                    "(`GET /status`: table.identity.colours); the same name twice for sets whose "
                    "backs look alike; default: the daemon's (`run --colours`)")


class DiceRequest(BaseModel):
    """The hand's throw: the faces of physical dice, or none (the table throws)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    dice: Optional[list[Annotated[int, Field(ge=1, le=20)]]] = Field(
        None, min_length=1, max_length=3,
        description="the faces people threw (e.g. [3, 4]; checked against the ruleset's "
                    "dice); omit for a throw from the daemon's random source")


class PairRequest(BaseModel):
    """The one-time pairing code shown on the table's host."""

    model_config = ConfigDict(extra="forbid", strict=True)

    code: str = Field(min_length=4, max_length=32, description="e.g. ABCD-1234 (case, "
                                                                "spaces and dashes ignored)")


class RevokeRequest(BaseModel):
    """The browser to unpair, by the id GET /pair/browsers lists."""

    model_config = ConfigDict(extra="forbid", strict=True,
                              json_schema_extra={"examples": [{"id": "3f9a2c"}]})

    id: str = Field(min_length=1, max_length=32, description="a paired browser's id, as "
                                                             "`GET /pair/browsers` lists it")


class PairedBrowser(BaseModel):
    """A paired browser, as the host sees it."""

    id: str = Field(description="a short random id (not derived from the cookie)")
    paired_at: str = Field(description="when it paired (ISO 8601, UTC)")
    last_seen: str = Field(description="its latest motor command or GET /pair (ISO 8601, "
                                        "UTC)")
    address: str = Field(description="the address it was last seen from")
    browser: str = Field(description="what its User-Agent says, e.g. 'Chrome on Android'")
    expires_in: int = Field(description="seconds until its session ends")


class BrowsersResponse(BaseModel):
    browsers: list[PairedBrowser] = Field(description="oldest first")


class RevokeResponse(BaseModel):
    revoked: str = Field(description="the id of the browser unpaired")


class ForgetResponse(BaseModel):
    forgotten: bool = Field(description="false when this browser was not paired")


class SessionEndRequest(BaseModel):
    """End the session."""

    model_config = ConfigDict(extra="forbid", strict=True)

    empty: bool = Field(False, description="also bring the walls inside up to the table top")


class SelfTestRequest(BaseModel):
    """Test the table's devices (all, or one)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    device: Optional[str] = Field(None, description="one device, or all (null)",
                                  json_schema_extra={"enum": list(_selftest_devices()) + [None]})
    track: Optional[int] = Field(None, ge=1, le=8,
                                 description="with a per-track device (gate, entry, colour, "
                                             "stacker, pusher): that track only")
    write_timings: bool = Field(False, description="write the measured strokes into the profile")


SetName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]{0,12}$",
                               json_schema_extra={"not": {"const": "unknown"}})]


class CalibrateRequest(BaseModel):
    """Calibrate the colour sensors for the two sets."""

    model_config = ConfigDict(extra="forbid", strict=True)

    sets: list[SetName] = Field(min_length=2, max_length=2,
                                description="the two sets' back colours (lower-case names); one "
                                            "at a time: the first is in the mixer, the second "
                                            "on the table top", json_schema_extra={"uniqueItems": True})
    mixed: bool = Field(False, description="both sets are mixed in the mixer (one pass)")
    first: int = Field(0, ge=0, le=1, description="mixed: which of `sets` (0 or 1) the first tile "
                                                  "read has")
    ruleset: str = Field("riichi", description="the sets' ruleset: a pass builds one deck's walls",
                         json_schema_extra={"enum": _ruleset_names()})

    @field_validator("sets")
    @classmethod
    def _two_names(cls, v):
        if "unknown" in v:
            raise ValueError("'unknown' is the name of no colour (the class of an unread back)")
        if len(set(v)) != len(v):
            raise ValueError("two different names (sets with the same back need no calibration: "
                             "identical-backs mode)")
        return v


SESSION_ACCEPTED = ('{"ruleset": "<name from GET /rulesets>", "mixed_deck": true|false '
                    '(default false), "seed": integer 0..2^53-1 or null (optional), '
                    '"replace": true|false, "loaded": true|false, "colours": ["A", "B"] '
                    '(two back colours, the same twice for identical backs; optional)}')


_ACCEPTED = {hand_api.PATH: hand_api.ACCEPTED, "/session/end": '{"empty": true|false} or no body',
             "/selftest": '{"device": "<name>" or null, "track": 1.. or null, "write_timings": '
                          'true|false} or no body',
             "/calibrate": '{"sets": ["<colour>", "<other colour>"] (lower-case names), "mixed": '
                           'true|false, "first": 0|1, "ruleset": "<name>"}',
             "/pair": '{"code": "ABCD-1234"}',
             "/pair/revoke": '{"id": "<a browser\'s id from GET /pair/browsers>"}',
             "/dice": '{"dice": [faces]} (physical dice, e.g. [3, 4]), {} or no body'}


def accepted_for(path):
    """What a route's body may be, in words (for error messages)."""
    return _ACCEPTED.get(path, SESSION_ACCEPTED)


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorResponse(BaseModel):
    error: ErrorDetail


class HealthResponse(BaseModel):
    ok: bool
    version: str
    api: int


class Result(BaseModel):
    """What a command returns: the daemon's answer (its fields depend on the command)."""

    model_config = ConfigDict(extra="allow")


ERRORS = {
    400: {"model": ErrorResponse, "description": "bad request: an unknown ruleset "
                                                 "(`bad_request`) or a body that is not valid "
                                                 "JSON (`bad_json`)"},
    409: {"model": ErrorResponse, "description": "not now (e.g. a build is under way, a "
                                                 "session is open); the message says what to do"},
    413: {"model": ErrorResponse, "description": "body over 1 MiB"},
    415: {"model": ErrorResponse, "description": "a body that is not sent as JSON"},
    503: {"model": ErrorResponse, "description": "the table is not connected (nothing moves), "
                                                 "or an abort waits for it"},
    422: {"model": ErrorResponse, "description": "invalid body, or refused by the table"},
}
AUTH_ERRORS = {
    401: {"model": ErrorResponse, "description": "token required"},
    403: {"model": ErrorResponse, "description": "token or origin refused"},
}
HOST_ONLY_ERRORS = {  # the pairing routes for programs on the host (hostd/web/api.py host_only)
    401: {"model": ErrorResponse, "description": "token required (or, without one, a client "
                                                 "a proxy forwards)"},
    403: {"model": ErrorResponse, "description": "from a browser (`not_from_browser`), or the "
                                                 "token or origin refused"},
}
BODY_ERRORS = {k: ERRORS[k] for k in (400, 413, 415, 422)}  # what any JSON body may get


# -- helpers --------------------------------------------------------------------------------

def is_loopback(host):
    if host in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _is_wildcard(host):
    return host.strip("[]") in ("0.0.0.0", "::", "")


def _split_host(value, default_port):
    """'[::1]:8737' -> ('::1', 8737); 'Example:80' -> ('example', 80)."""
    try:
        parts = urlsplit("//" + value)
        return (parts.hostname or "").lower(), parts.port or default_port
    except ValueError:
        return None, None


def load_or_create_token(path):
    """Read the API token from ``path``, or create one (``secrets.token_urlsafe(32)``) in a
    new file readable by its owner only.  Returns ``(token, created)``; a created token is
    worth logging with the path (never the token itself).

    A file others can read or write (mode 0644 ...) is refused: the token moves motors.
    An empty or short one is refused too (:class:`ConfigError`, one line)."""
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as f:
            mode = os.fstat(f.fileno()).st_mode & 0o777
            token = f.read().strip()
    except FileNotFoundError:
        token = None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError("cannot read the API token file %s: %s"
                          % (path, getattr(e, "strerror", None) or e)) from None
    if token is not None:
        if mode & 0o077:
            raise ConfigError("API token file %s is readable by others (mode %04o): the "
                              "token moves the table's motors; `chmod 600 %s`"
                              % (path, mode, path))
        if not token:
            raise ConfigError("API token file %s is empty: put a token in it or delete it "
                              "to have one generated" % path)
        if len(token) < MIN_TOKEN_CHARS or any(c.isspace() for c in token):
            raise ConfigError("API token file %s holds a token of %d characters: a token "
                              "is one line of at least %d characters without spaces (or "
                              "delete the file to have one generated)"
                              % (path, len(token), MIN_TOKEN_CHARS))
        return token, False
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(token + "\n")
    return token, True


def _once(closer):
    """``closer`` called at most once (the route and the middleware may both try)."""
    done = []

    async def close():
        if not done:
            done.append(True)
            await _maybe_await(closer())

    return close


async def _maybe_await(value):
    if inspect.isawaitable(value):
        return await value
    return value


def _error(status, code, message, headers=None):
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status,
                        headers=headers)


def _peer(request):
    """The client's address (a TLS proxy's client's, when hostd/web/server.py trusts it)."""
    return request.client.host if request.client else None


def _require_local(request):
    """Without a token the API takes commands from this host only.  On a loopback bind
    every peer is local, except a browser's that a TLS proxy on this host names in
    X-Forwarded-For (hostd/web/server.py): that one is refused (401), as on a LAN bind."""
    peer = _peer(request)
    if peer is not None and not is_loopback(peer):
        raise Unauthorized("this daemon has no API token, so it takes commands only from "
                           "programs on its own host, and this request came from %s through "
                           "a proxy: start it with `jantaku run --token-file PATH` and send "
                           "the token (--token or $JANTAKU_TOKEN)" % _cut(peer, 60))


def _https(request):
    """Whether the browser reached the API over HTTPS (directly, or through a TLS proxy on
    this host: hostd/web/server.py): its cookie may then be ``Secure``, never over plain HTTP."""
    return request.url.scheme == "https"


def _cut(value, n=LOG_VALUE_CHARS):
    value = str(value)
    return value if len(value) <= n else value[:n] + "...(%d chars)" % len(value)


def _describe_validation(errors):
    parts = []
    for e in errors:
        loc = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "body"
        msg = e.get("msg", "invalid")
        if e.get("type") == "extra_forbidden":
            msg = "unknown field"
        parts.append("%s: %s" % (loc, msg))
    return "; ".join(parts)


class _OriginGuard:
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
        host, port = _split_host(host_header, default_port)
        if not self._host_ok(host, headers):
            resp = _error(403, "bad_host",
                          "Host %r is not a name of this API (accepted: %s%s); to reach it "
                          "by another name, start the daemon with `jantaku run --allow-host "
                          "NAME`%s"
                          % (_cut(host_header, 100), ", ".join(sorted(self.allowed_hosts)),
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
                log.warning("cross_origin_refused", origin=_cut(origin),
                            path=_cut(scope.get("path", ""), 100))
                resp = _error(403, "cross_origin",
                              "cross-origin request from %s refused: this API answers only "
                              "its own origin (%s://%s) and programs that send no Origin"
                              % (_cut(origin, 100), scheme, _cut(host_header, 100)))
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


def _client_left(exc):
    """True if ``exc`` (or every exception of a group, as a task group raises them) says
    the client went away."""
    if isinstance(exc, BaseExceptionGroup):
        return bool(exc.exceptions) and all(_client_left(e) for e in exc.exceptions)
    return isinstance(exc, _CLIENT_LEFT)


class _BodyGuard:
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
            if not _client_left(e):
                raise
            # a client that drops its connection (an event stream closed, a reset) is
            # normal: not an "Exception in ASGI application" with a traceback
            log.debug("client_left", path=_cut(scope.get("path", ""), 100),
                      error=type(e).__name__)
            return None
        finally:
            if streams:
                with anyio.CancelScope(shield=True):
                    for closer in streams:
                        try:
                            await _maybe_await(closer())
                        except Exception:  # pragma: no cover - a closer's own bug
                            log.exception("events_close_failed")

    def _too_large(self, how, path):
        return _error(413, "too_large", "the body is %s; this API takes at most %d bytes "
                      "(a JSON object such as %s)" % (how, self.max_bytes, self.accepted(path)),
                      {"Connection": "close"})

    async def _handle(self, scope, receive, send):
        headers = {}
        for k, v in scope.get("headers", ()):
            headers.setdefault(k.decode("latin-1").lower(), v.decode("latin-1"))
        declared = headers.get("content-length")
        if declared is not None:
            if not declared.strip().isdigit():
                return await _error(400, "bad_request", "Content-Length %r is not a number"
                                    % _cut(declared, 40))(scope, receive, send)
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
                return await _error(
                    415, "not_json",
                    "the body must be JSON sent with 'Content-Type: application/json' (it "
                    "came as %r); accepted: %s" % (_cut(ctype or "no content type", 60),
                                                   self.accepted(scope.get("path", ""))))(
                    scope, receive, send)
            problem = _json_problem(body)
            if problem:
                return await _error(400, "bad_json", "the body is not valid JSON (%s); "
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
            raise ValueError("the key %r is given twice" % _cut(k, 40))
        seen.add(k)
    return dict(pairs)


def _finite(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("the number %s is out of range" % _cut(text, 40))
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
        return _cut(str(e).split("; use sys.set_int_max_str_digits")[0], 120)
    return None


# -- the app --------------------------------------------------------------------------------

def create_app(daemon, *, token=None, bind_host="127.0.0.1", allowed_hosts=()):
    """The API for ``daemon`` (see the module doc for what it must provide).

    ``token``: the bearer token motor commands need (required unless ``bind_host`` is
    loopback; when given it is enforced on every bind).  ``bind_host``: the address the
    server will listen on.  ``allowed_hosts``: extra names the API may be reached by
    (Host header), e.g. the table's hostname on a LAN bind.
    """
    loopback = is_loopback(bind_host)
    if token is not None and (not isinstance(token, str) or len(token) < MIN_TOKEN_CHARS):
        raise ConfigError("the API token must be a string of at least %d characters"
                          % MIN_TOKEN_CHARS)
    if not loopback and not token:
        raise ConfigError(
            "refusing to serve the API on %s without a token: anyone on the network could "
            "move the table's motors.  Give a token (e.g. --token-file PATH, generated if "
            "absent) or bind to 127.0.0.1" % bind_host)
    wildcard = _is_wildcard(bind_host)
    hosts = {h.lower().strip("[]") for h in LOOPBACK_NAMES}
    if not wildcard:
        hosts.add(bind_host.lower().strip("[]"))
    hosts.update(h.lower().strip("[]").rstrip(".") for h in allowed_hosts)

    app = FastAPI(
        title="jantaku",
        version=VERSION,
        description="Local API of the jantaku automatic mahjong table daemon. "
                    + ("Commands that move motors need `Authorization: Bearer <token>`. "
                       if token else "This daemon has no token (loopback only). ")
                    + "Cross-origin browser requests are refused. Events: GET /events "
                    "(server-sent events; each `data:` is a JSON object with a `type`; "
                    "ignore unknown types). docs/API.md describes every route and event.",
        docs_url=None, redoc_url=None,  # FastAPI's own pages load a CDN's assets: ours below
        redirect_slashes=False,
    )
    app.router.redirect_slashes = False
    app.state.daemon = daemon
    app.state.token = token
    app.add_middleware(_BodyGuard, accepted=accepted_for)
    app.add_middleware(_OriginGuard, allowed_hosts=hosts, wildcard=wildcard, token=token)
    bearer = HTTPBearer(auto_error=False, description="the daemon's API token")

    pairing = Pairing()
    app.state.pairing = pairing

    def _bearer_ok(creds):
        return (token is not None and creds is not None
                and hmac.compare_digest(creds.credentials.encode(), token.encode()))

    async def require_pairing(request: Request):  # no token: the OpenAPI has no security
        await require_token(request, None)

    async def require_token(request: Request,
                            creds: Optional[HTTPAuthorizationCredentials] = Depends(bearer)):
        if pairing.touch(request.cookies.get(COOKIE), client=_peer(request)):
            return  # a paired browser (docs/API.md §Security), seen now
        if request.headers.get("origin") is not None and not _bearer_ok(creds):
            # a browser (it sends Origin with every POST): pairing, or the token
            raise Unauthorized("this browser is not paired: type the pairing code shown by "
                               "`jantaku run` (or `jantaku pair --new`) on the table's host",
                               code="not_paired")
        if token is None:
            _require_local(request)
            return
        if creds is None:
            auth = request.headers.get("authorization")
            if auth:
                raise Forbidden("Authorization must be 'Bearer <token>'")
            raise Unauthorized("this command moves motors and needs the API token: give it "
                               "to the CLI with --token TOKEN or $JANTAKU_TOKEN (the daemon "
                               "keeps it in its --token-file); over HTTP send "
                               "'Authorization: Bearer <token>'")
        if not _bearer_ok(creds):
            log.warning("token_refused", path=request.url.path)
            raise Forbidden("API token refused")

    def host_only(done, what, cli):
        """A dependency: for a program on the host (the CLI) only, never for a browser,
        paired or not; the token when one is configured.  ``done``: 'a pairing code is
        made', ``what``: 'a pairing code', ``cli``: the command that does it."""
        async def require_program(request: Request):
            if request.headers.get("origin") is not None:
                raise Forbidden("%s on the table's host (`%s`), not by a browser"
                                % (done, cli), code="not_from_browser")
            if token is None:
                _require_local(request)
            elif not _bearer_ok(await bearer(request)):
                raise Unauthorized("%s needs the API token (--token or $JANTAKU_TOKEN)"
                                   % what)

        return [Depends(require_program)]

    # the motor commands: the token when one is configured; from a browser, pairing
    cmd_deps = [Depends(require_token if token else require_pairing)]
    cmd_errors = {**ERRORS, **AUTH_ERRORS}

    @app.exception_handler(JantakuError)
    async def _jantaku_error(request, exc: JantakuError):
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return _error(exc.status, exc.code, exc.message, headers)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request, exc: StarletteHTTPException):
        codes = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}
        message = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        if exc.status_code == 404:
            message = "no endpoint %s; see /openapi.json" % request.url.path
        return _error(exc.status_code, codes.get(exc.status_code, "http_error"), message,
                      getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request, exc: RequestValidationError):
        errors = exc.errors()
        accepted = accepted_for(request.url.path)
        if any(e.get("type") == "json_invalid" for e in errors):
            return _error(400, "bad_json", "the body is not valid JSON; accepted: %s"
                          % accepted)
        if any(e.get("type") == "missing" and tuple(e.get("loc", ())) == ("body",)
               for e in errors):
            return _error(422, "bad_request", "a JSON body is needed; accepted: %s"
                          % accepted)
        return _error(422, "bad_request", "%s; accepted: %s"
                      % (_describe_validation(errors), accepted))

    @app.exception_handler(Exception)
    async def _unexpected(request, exc: Exception):
        # Starlette re-raises after this answer, so the server logs the traceback
        return _error(500, "internal", "internal error (%s); see the daemon's log"
                      % type(exc).__name__)

    _add_offline_docs(app)
    add_page(app)  # GET /: the table's page (hostd/web/webpage.py), assets under /page/

    @app.head("/health", response_model=HealthResponse, tags=["daemon"],
              operation_id="health_head")
    @app.get("/health", response_model=HealthResponse, tags=["daemon"],
             operation_id="health_get")
    async def health():
        """Liveness: the API answers."""
        return {"ok": True, "version": VERSION, "api": API_VERSION}

    @app.get("/status", response_model=dict[str, Any], tags=["daemon"])
    async def status():
        """The daemon's status: table link, session, decks, builds, hands, faults."""
        return await _maybe_await(daemon.status())

    @app.get("/history", response_model=dict[str, Any], tags=["daemon"])
    async def history(limit: int = Query(20, ge=1, le=1000),
                      before: Optional[int] = Query(None, ge=1)):
        """Past sessions from the journal, newest first: ruleset, how each ended, its
        games with their decks and hands (throws), builds with their times, faults.
        `before`: sessions with a lower id (the next page)."""
        return await _maybe_await(daemon.history(limit, before))

    @app.get("/rulesets", response_model=list[dict[str, Any]], tags=["daemon"])
    async def rulesets():
        """The rulesets this daemon can play (name, tiles, walls, dice ...)."""
        return await _maybe_await(daemon.rulesets())

    @app.post("/session", response_model=Result, tags=["commands"],
              responses=cmd_errors, dependencies=cmd_deps)
    async def start_session(body: SessionRequest):
        """Start a session: check the table can build the ruleset, then build deck A."""
        return await daemon.start_session(body.ruleset, body.mixed_deck, body.seed,
                                          replace=body.replace, loaded=body.loaded,
                                          colours=body.colours)

    @app.post("/session/end", response_model=Result, tags=["commands"],
              responses=cmd_errors, dependencies=cmd_deps)
    async def end_session(body: Optional[SessionEndRequest] = None):
        """End the session normally (journalled `failed`, with the fault, if one is
        open); `empty` also brings the walls inside up to the table top."""
        return await daemon.end_session(empty=bool(body and body.empty))

    @app.post("/continue", response_model=Result, tags=["commands"],
              responses=cmd_errors, dependencies=cmd_deps)
    async def continue_():
        """People did what the table asked (tiles pushed in, a fault fixed): close the
        open centre, or carry on with the step that stopped."""
        return await daemon.continue_()

    @app.post("/clear-fault", response_model=Result, tags=["commands"],
              responses=cmd_errors, dependencies=cmd_deps)
    async def clear_fault():
        """The table's fault is fixed: clear it (refused while its cause is still there)
        and carry on with what it stopped."""
        return await daemon.clear_fault()

    @app.post("/hand-over", response_model=Result, tags=["commands"],
              responses=cmd_errors, dependencies=cmd_deps)
    async def hand_over():
        """End the hand being played (or begin the first): drop the played deck, raise
        the walls built inside, rebuild the dropped deck."""
        return await daemon.hand_over()

    @app.post("/dice", response_model=Result, tags=["commands"],
              responses=cmd_errors, dependencies=cmd_deps)
    async def dice(body: Optional[DiceRequest] = None):
        """The throw of the hand whose walls are on the table top: from the daemon's
        random source (as the dice button), or the faces of physical dice people threw
        (`dice`).  Announced with the break (`session.dice`, a `dice` event)."""
        return await daemon.throw_dice(body.dice if body else None)

    @app.post("/game", response_model=Result, tags=["commands"],
              responses=cmd_errors, dependencies=cmd_deps)
    async def new_game():
        """End the game and begin the next: Mixed Deck brings every tile into the mixer
        (the walls inside come up; people push the table top in) and splits them afresh;
        the normal rotation's decks go on."""
        return await daemon.new_game()

    @app.post("/abort", response_model=Result, tags=["commands"],
              responses=cmd_errors, dependencies=cmd_deps)
    async def abort():
        """Stop every motor and end the session."""
        return await daemon.abort()

    @app.get("/table/health", response_model=dict[str, Any], tags=["daemon"])
    async def table_health():
        """The table's health over time, from the journal: misread rate, jams and sensor
        drift per track, the lift's stroke time; `flags` says what to look at."""
        return await _maybe_await(daemon.table_health())

    @app.post("/selftest", response_model=dict[str, Any], tags=["commands"],
              responses=cmd_errors, dependencies=cmd_deps)
    async def selftest(body: Optional[SelfTestRequest] = None):
        """Exercise every device of the board in a safe order (or one), each reported ok /
        failed / absent with its reading and the profile's value; answers when done."""
        from hostd.bringup import steps as bringup

        b = body or SelfTestRequest()
        return await daemon.bench_step("selftest", bringup.selftest(
            b.device, b.track, write_timings=b.write_timings))

    @app.post("/calibrate", response_model=dict[str, Any], tags=["commands"],
              responses=cmd_errors, dependencies=cmd_deps)
    async def calibrate(body: CalibrateRequest):
        """Read both sets on every track, derive each colour's reference and each track's
        radius, send them to the table and write the board profile; refused (ok false,
        nothing written) when the backs cannot be told apart.  Answers when done."""
        from hostd.bringup import steps as bringup

        return await daemon.bench_step("calibrate", bringup.calibration(
            body.sets, body.mixed, body.sets[body.first] if body.mixed else None, body.ruleset))

    @app.get("/pair", response_model=dict[str, Any], tags=["pairing"])
    async def pair_state(request: Request):
        """Whether this browser is paired (may press the motor commands), and its `id`
        (null when not paired)."""
        id_ = pairing.touch(request.cookies.get(COOKIE), client=_peer(request))
        return {"paired": id_ is not None, "id": id_, **pairing.summary()}

    @app.post("/pair", response_model=dict[str, Any], tags=["pairing"],
              responses={**ERRORS,
                         403: {"model": ErrorResponse, "description": "code refused"},
                         429: {"model": ErrorResponse,
                               "description": "too many wrong codes (`pair_rate_limited`): 5 "
                                              "a minute from one address, 60 from all"}})
    async def pair(body: PairRequest, request: Request):
        """Exchange the one-time pairing code for a browser session (an HttpOnly,
        SameSite=Strict cookie, Secure over HTTPS): this browser may then press the motor
        commands.  Wrong codes: 5 a minute from one address, 60 a minute from all
        together (429).  A browser that pairs again replaces its own session."""
        paired = pairing.exchange(body.code, client=_peer(request),
                                  agent=request.headers.get("user-agent"),
                                  previous=request.cookies.get(COOKIE))
        if paired.replaced:
            log.info("browser_unpaired", id=paired.replaced, how="paired_again")
        log.info("browser_paired", id=paired.id)
        resp = JSONResponse({"paired": True, "id": paired.id, "expires_in": SESSION_TTL_S})
        resp.set_cookie(COOKIE, paired.cookie, max_age=SESSION_TTL_S, path="/",
                        httponly=True, samesite="strict", secure=_https(request))
        return resp

    @app.post("/pair/new", response_model=dict[str, Any], tags=["pairing"],
              responses={**ERRORS, **AUTH_ERRORS},
              dependencies=host_only("a pairing code is made", "a pairing code",
                                     "jantaku pair --new"))
    async def pair_new():
        """A fresh one-time pairing code (the last one stops working); from a program on
        the host only (no Origin; the token when one is configured)."""
        from hostd.web.pairing import CODE_TTL_S

        return {"code": pairing.new_code(), "expires_in": CODE_TTL_S}

    @app.get("/pair/browsers", response_model=BrowsersResponse, tags=["pairing"],
             responses=HOST_ONLY_ERRORS,
             dependencies=host_only("the paired browsers are listed",
                                    "the list of paired browsers", "jantaku pair --list"))
    async def pair_browsers():
        """The paired browsers, oldest first: id, when each paired and was last seen, its
        address and what its User-Agent says; from a program on the host only (no Origin;
        the token when one is configured)."""
        return {"browsers": pairing.browsers()}

    @app.post("/pair/revoke", response_model=RevokeResponse, tags=["pairing"],
              responses={**BODY_ERRORS, **HOST_ONLY_ERRORS,
                         404: {"model": ErrorResponse,
                               "description": "no paired browser has that id "
                                              "(`unknown_browser`); the message names the "
                                              "paired ones"}},
              dependencies=host_only("a browser is unpaired", "unpairing a browser",
                                     "jantaku pair --revoke ID"))
    async def pair_revoke(body: RevokeRequest):
        """End one browser's session, by the id `GET /pair/browsers` lists: it must pair
        again to press; from a program on the host only (no Origin; the token when one is
        configured).  A browser ends its own with `POST /pair/forget`."""
        revoked = pairing.revoke(body.id)
        log.info("browser_unpaired", id=revoked, how="revoked")
        return {"revoked": revoked}

    @app.post("/pair/forget", response_model=ForgetResponse, tags=["pairing"],
              responses={**{k: v for k, v in BODY_ERRORS.items() if k != 422},
                         403: {"model": ErrorResponse,
                               "description": "from another origin (`cross_origin`)"}})
    async def pair_forget(request: Request):
        """This browser forgets its pairing: the session of the cookie it carries ends,
        and the cookie is cleared (an expired Set-Cookie).  `forgotten` is false when it
        was not paired.  From the page (same origin) or any program."""
        forgotten = pairing.forget(request.cookies.get(COOKIE))
        if forgotten:
            log.info("browser_unpaired", id=forgotten, how="forgotten")
        resp = JSONResponse({"forgotten": forgotten is not None})
        resp.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict",
                           secure=_https(request))
        return resp

    @app.post("/pair/revoke-all", response_model=dict[str, Any], tags=["pairing"],
              responses=HOST_ONLY_ERRORS,
              dependencies=host_only("every browser is unpaired", "unpairing every browser",
                                     "jantaku pair --revoke-all"))
    async def pair_revoke_all():
        """End every browser session and the open code: browsers must pair again.  From a
        program on the host only (as `/pair/revoke`): a browser unpairs itself with
        `/pair/forget`, never the others."""
        n = pairing.revoke_all()
        log.info("browsers_unpaired", n=n)
        return {"revoked": n}

    app.include_router(hand_api.router)  # POST /hand/check: no motors, no token

    @app.get("/events", response_class=EventSourceResponse, tags=["daemon"])
    async def events(request: Request) -> AsyncIterator[dict[str, Any]]:
        """Server-sent events.  Each event's `data:` is one JSON object with a `type`
        (`hello` first, then the daemon's events: `build_started`, `build_done`,
        `hand_over`, `hand`, `fault`, `tile` ...).  Ignore types you don't know."""
        stream = daemon.subscribe()
        if inspect.isawaitable(stream):
            stream = await stream
        log.info("events_subscribed", client=request.client and request.client.host)
        end = getattr(stream, "end", None)  # the server's stop ends it (end_streams)
        if end is not None:
            streams.add(end)
        closer = getattr(stream, "aclose", None) or getattr(stream, "close", None)
        close_stream = _once(closer) if closer is not None else None
        if close_stream is not None:  # also closed when the request ends, however (_BodyGuard)
            request.scope.setdefault("jantaku.streams", []).append(close_stream)
        try:
            hello = {"type": "hello", "api": API_VERSION}
            try:
                hello["status"] = await _maybe_await(daemon.status())
            except Exception:  # a hello without status beats no stream
                log.exception("events_status_failed")
            yield hello
            async for ev in stream:
                if not isinstance(ev, dict) or not isinstance(ev.get("type"), str):
                    log.warning("event_without_type_dropped", item=repr(ev)[:200])
                    continue
                yield ev
        finally:
            streams.discard(end)
            if close_stream is not None:
                with anyio.CancelScope(shield=True):
                    await close_stream()
            log.info("events_unsubscribed")

    streams = set()  # the `end` of each event stream open now

    def end_streams():
        """The server stops: each event stream ends (after the events it has queued), so
        its request completes instead of holding the shutdown up (hostd/web/server.py)."""
        for end in list(streams):
            end()

    app.state.end_streams = end_streams

    return app


DOCS_ASSETS = "/docs-assets"


def _docs_assets_dir():
    """The folder of Swagger UI's and ReDoc's scripts shipped in a package (PyPI
    fastapi-offline), or None if it is not installed."""
    try:
        import fastapi_offline
    except ImportError:  # pragma: no cover - a dependency; without it, no pages
        return None
    path = os.path.join(os.path.dirname(fastapi_offline.__file__), "static")
    return path if os.path.isfile(os.path.join(path, "swagger-ui-bundle.js")) else None


def _add_offline_docs(app):
    """/docs (Swagger UI) and /redoc (ReDoc) with every asset served by this API."""
    from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
    from fastapi.responses import HTMLResponse
    from starlette.staticfiles import StaticFiles

    folder = _docs_assets_dir()
    if folder is None:
        return
    app.mount(DOCS_ASSETS, StaticFiles(directory=folder), name="docs-assets")

    @app.get("/docs", include_in_schema=False, response_class=HTMLResponse)
    async def docs():
        return get_swagger_ui_html(
            openapi_url=app.openapi_url, title="jantaku API",
            swagger_js_url=DOCS_ASSETS + "/swagger-ui-bundle.js",
            swagger_css_url=DOCS_ASSETS + "/swagger-ui.css",
            swagger_favicon_url=DOCS_ASSETS + "/favicon.png",
            oauth2_redirect_url=None)

    @app.get("/redoc", include_in_schema=False, response_class=HTMLResponse)
    async def redoc():
        return get_redoc_html(
            openapi_url=app.openapi_url, title="jantaku API",
            redoc_js_url=DOCS_ASSETS + "/redoc.standalone.js",
            redoc_favicon_url=DOCS_ASSETS + "/favicon.png", with_google_fonts=False)


def parse_events(lines):
    """Decode a ``text/event-stream`` given as an iterable of text lines (e.g. httpx's
    ``response.iter_lines()``) into event dicts; comments (keep-alives) are skipped."""
    data = []
    for line in lines:
        if line == "":
            if data:
                yield json.loads("\n".join(data))
                data = []
        elif line.startswith("data:"):
            data.append(line[5:].lstrip(" "))
    if data:
        yield json.loads("\n".join(data))
