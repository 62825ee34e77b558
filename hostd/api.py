"""The local HTTP API of the daemon (CPython only): FastAPI + server-sent events.

Layer: beside the session; it calls a *daemon* object and never touches the table.

    GET  /health      liveness: {"ok": true, "version": ...}
    GET  /status      the daemon's status (table, session, decks, builds, hands, faults)
    GET  /rulesets    the rulesets this daemon knows
    POST /session     start a session  {"ruleset": "riichi", "mixed_deck": true, "seed": 42}
    POST /hand-over   end the hand being played / begin the first   (moves motors)
    POST /session/end end the session {"empty": false}               (moves motors if empty)
    POST /continue    people did what was asked: carry on           (moves motors)
    POST /clear-fault the fault is fixed: clear it and carry on     (moves motors)
    POST /abort       stop the table and end the session             (moves motors)
    POST /hand/check  analyse a hand {"hand": "123m...", "mixed_deck": true} (hostd.hand.api)
    GET  /events      text/event-stream: each event's data is one JSON object with a
                      "type"; clients must ignore types they don't know.  The first is
                      {"type": "hello", "api": 1, "status": {...}}.
    GET  /openapi.json  the OpenAPI document (and /docs)

Errors are ``{"error": {"code": ..., "message": ...}}`` with the status of the
:class:`~hostd.errors.JantakuError` the daemon raised (400 bad request, 401/403 refused,
409 not ready, 422 refused by the table or an invalid body, 500 otherwise).

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
* DNS rebinding: on a loopback or specific-address bind the ``Host`` header must be one
  of this API's names (loopback names, the bind address, ``allowed_hosts``), else 403 —
  otherwise a page at a hostile name resolving to 127.0.0.1 would count as "same origin".
"""
import hmac
import inspect
import ipaddress
import json
import os
import secrets
from typing import Any, AsyncIterator, Optional
from urllib.parse import urlsplit

import structlog
from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.sse import EventSourceResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from hostd.errors import ConfigError, Forbidden, JantakuError, Unauthorized
from hostd.hand import api as hand_api

API_VERSION = 1
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
log = structlog.get_logger("jantaku.api")

try:  # the installed distribution's version, for /health
    from importlib.metadata import version as _dist_version

    VERSION = _dist_version("jantaku")
except Exception:  # pragma: no cover - not installed
    VERSION = "0+unknown"


# -- models ---------------------------------------------------------------------------------

class SessionRequest(BaseModel):
    """Start a session."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "examples": [{"ruleset": "riichi", "mixed_deck": True, "seed": 42}]})

    ruleset: str = Field(min_length=1, max_length=64,
                         description="a ruleset name from GET /rulesets")
    mixed_deck: bool = Field(False, description="mix both tile sets and split them into two decks")
    seed: Optional[int] = Field(None, ge=0, lt=2 ** 64,
                                description="seed for dice (and the simulator); omit for "
                                            "cryptographic dice in real play")
    replace: bool = Field(False, description="end the open session (motions stopped) and "
                                             "start this one; without it a second start is 409")
    loaded: bool = Field(False, description="normal rotation: the sets are loaded as "
                                            "documented, whatever the last session did")


class SessionEndRequest(BaseModel):
    """End the session."""

    model_config = ConfigDict(extra="forbid", strict=True)

    empty: bool = Field(False, description="also bring the walls inside up to the table top")


SESSION_ACCEPTED = ('{"ruleset": "<name from GET /rulesets>", "mixed_deck": true|false '
                    '(default false), "seed": integer 0..2^64-1 or null (optional), '
                    '"replace": true|false, "loaded": true|false}')


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
    400: {"model": ErrorResponse, "description": "bad request"},
    409: {"model": ErrorResponse, "description": "not now (e.g. a build is under way, a "
                                                 "session is open); the message says what to do"},
    503: {"model": ErrorResponse, "description": "the table is not connected (nothing moves), "
                                                 "or an abort waits for it"},
    422: {"model": ErrorResponse, "description": "invalid body, or refused by the table"},
}
AUTH_ERRORS = {
    401: {"model": ErrorResponse, "description": "token required"},
    403: {"model": ErrorResponse, "description": "token or origin refused"},
}


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
    worth logging with the path (never the token itself)."""
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as f:
            token = f.read().strip()
        if not token:
            raise ConfigError("API token file %s is empty: put a token in it or delete it "
                              "to have one generated" % path)
        return token, False
    except FileNotFoundError:
        pass
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(token + "\n")
    return token, True


async def _maybe_await(value):
    if inspect.isawaitable(value):
        return await value
    return value


def _error(status, code, message, headers=None):
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status,
                        headers=headers)


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

    def __init__(self, app, *, allowed_hosts):
        self.app = app
        self.allowed_hosts = allowed_hosts  # set of lower-case names, or None for any

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
        if self.allowed_hosts is not None and host not in self.allowed_hosts:
            resp = _error(403, "bad_host",
                          "Host %r is not a name of this API (accepted: %s); to reach it by "
                          "another name, start the daemon with that name allowed"
                          % (host_header, ", ".join(sorted(self.allowed_hosts))))
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
                log.warning("cross_origin_refused", origin=origin, path=scope.get("path"))
                resp = _error(403, "cross_origin",
                              "cross-origin request from %s refused: this API answers only "
                              "its own origin (%s://%s) and programs that send no Origin"
                              % (origin, scheme, host_header))
                return await resp(scope, receive, send)
        return await self.app(scope, receive, send)


# -- the app --------------------------------------------------------------------------------

def create_app(daemon, *, token=None, bind_host="127.0.0.1", allowed_hosts=()):
    """The API for ``daemon`` (see the module doc for what it must provide).

    ``token``: the bearer token motor commands need (required unless ``bind_host`` is
    loopback; when given it is enforced on every bind).  ``bind_host``: the address the
    server will listen on.  ``allowed_hosts``: extra names the API may be reached by
    (Host header), e.g. the table's hostname on a LAN bind.
    """
    loopback = is_loopback(bind_host)
    if token is not None and (not isinstance(token, str) or len(token) < 16):
        raise ConfigError("the API token must be a string of at least 16 characters")
    if not loopback and not token:
        raise ConfigError(
            "refusing to serve the API on %s without a token: anyone on the network could "
            "move the table's motors.  Give a token (e.g. --token-file PATH, generated if "
            "absent) or bind to 127.0.0.1" % bind_host)
    if _is_wildcard(bind_host) and not allowed_hosts:
        hosts = None  # reachable by any name; the token guards the motors
    else:
        hosts = {h.lower().strip("[]") for h in LOOPBACK_NAMES}
        if not _is_wildcard(bind_host):
            hosts.add(bind_host.lower().strip("[]"))
        hosts.update(h.lower().strip("[]") for h in allowed_hosts)

    app = FastAPI(
        title="jantaku",
        version=VERSION,
        description="Local API of the jantaku automatic mahjong table daemon. Commands that "
                    "move motors need `Authorization: Bearer <token>` when a token is "
                    "configured (always, off loopback). Cross-origin browser requests are "
                    "refused. Events: GET /events (server-sent events; each `data:` is a "
                    "JSON object with a `type`; ignore unknown types).",
    )
    app.state.daemon = daemon
    app.state.token = token
    app.add_middleware(_OriginGuard, allowed_hosts=hosts)
    bearer = HTTPBearer(auto_error=False, description="the daemon's API token")

    async def require_token(request: Request,
                            creds: Optional[HTTPAuthorizationCredentials] = Depends(bearer)):
        if token is None:
            return
        if creds is None:
            auth = request.headers.get("authorization")
            if auth:
                raise Forbidden("Authorization must be 'Bearer <token>'")
            raise Unauthorized("this command moves motors and needs the API token: send "
                               "'Authorization: Bearer <token>'")
        if not hmac.compare_digest(creds.credentials.encode(), token.encode()):
            log.warning("token_refused", path=request.url.path)
            raise Forbidden("API token refused")

    @app.exception_handler(JantakuError)
    async def _jantaku_error(request, exc: JantakuError):
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return _error(exc.status, exc.code, exc.message, headers)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request, exc: StarletteHTTPException):
        codes = {404: "not_found", 405: "method_not_allowed"}
        message = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        if exc.status_code == 404:
            message = "no endpoint %s; see /openapi.json" % request.url.path
        return _error(exc.status_code, codes.get(exc.status_code, "http_error"), message,
                      getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request, exc: RequestValidationError):
        errors = exc.errors()
        accepted = {hand_api.PATH: hand_api.ACCEPTED}.get(request.url.path, SESSION_ACCEPTED)
        if any(e.get("type") == "json_invalid" for e in errors):
            return _error(400, "bad_json", "the body is not valid JSON; accepted: %s"
                          % accepted)
        return _error(422, "bad_request", "%s; accepted: %s"
                      % (_describe_validation(errors), accepted))

    @app.exception_handler(Exception)
    async def _unexpected(request, exc: Exception):
        # Starlette re-raises after this answer, so the server logs the traceback
        return _error(500, "internal", "internal error (%s); see the daemon's log"
                      % type(exc).__name__)

    @app.get("/health", response_model=HealthResponse, tags=["daemon"])
    async def health():
        """Liveness: the API answers."""
        return {"ok": True, "version": VERSION, "api": API_VERSION}

    @app.get("/status", response_model=dict[str, Any], tags=["daemon"])
    async def status():
        """The daemon's status: table link, session, decks, builds, hands, faults."""
        return await _maybe_await(daemon.status())

    @app.get("/rulesets", response_model=list[dict[str, Any]], tags=["daemon"])
    async def rulesets():
        """The rulesets this daemon can play (name, tiles, walls, dice ...)."""
        return await _maybe_await(daemon.rulesets())

    @app.post("/session", response_model=Result, tags=["commands"],
              responses={**ERRORS, **AUTH_ERRORS}, dependencies=[Depends(require_token)])
    async def start_session(body: SessionRequest):
        """Start a session: check the table can build the ruleset, then build deck A."""
        return await daemon.start_session(body.ruleset, body.mixed_deck, body.seed,
                                          replace=body.replace, loaded=body.loaded)

    @app.post("/session/end", response_model=Result, tags=["commands"],
              responses={**ERRORS, **AUTH_ERRORS}, dependencies=[Depends(require_token)])
    async def end_session(body: Optional[SessionEndRequest] = None):
        """End the session normally (journalled `failed`, with the fault, if one is
        open); `empty` also brings the walls inside up to the table top."""
        return await daemon.end_session(empty=bool(body and body.empty))

    @app.post("/continue", response_model=Result, tags=["commands"],
              responses={**ERRORS, **AUTH_ERRORS}, dependencies=[Depends(require_token)])
    async def continue_():
        """People did what the table asked (tiles pushed in, a fault fixed): close the
        open centre, or carry on with the step that stopped."""
        return await daemon.continue_()

    @app.post("/clear-fault", response_model=Result, tags=["commands"],
              responses={**ERRORS, **AUTH_ERRORS}, dependencies=[Depends(require_token)])
    async def clear_fault():
        """The table's fault is fixed: clear it (refused while its cause is still there)
        and carry on with what it stopped."""
        return await daemon.clear_fault()

    @app.post("/hand-over", response_model=Result, tags=["commands"],
              responses={**ERRORS, **AUTH_ERRORS}, dependencies=[Depends(require_token)])
    async def hand_over():
        """End the hand being played (or begin the first): drop the played deck, raise
        the walls built inside, rebuild the dropped deck."""
        return await daemon.hand_over()

    @app.post("/abort", response_model=Result, tags=["commands"],
              responses={**ERRORS, **AUTH_ERRORS}, dependencies=[Depends(require_token)])
    async def abort():
        """Stop every motor and end the session."""
        return await daemon.abort()

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
            closer = getattr(stream, "aclose", None) or getattr(stream, "close", None)
            if closer is not None:
                try:
                    await _maybe_await(closer())
                except Exception:  # pragma: no cover
                    log.exception("events_close_failed")
            log.info("events_unsubscribed")

    return app


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
