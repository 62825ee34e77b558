"""The local HTTP API of the daemon (CPython only): FastAPI + server-sent events.

Layer: beside the session; it calls a *daemon* object and never touches the table.

    GET  /health      liveness: {"ok": true, "version": ...}  (HEAD too)
    GET  /status      the one status: state (name, params, seq), next (code, params, text,
                      action), can (the commands accepted now), fault, table, session
    GET  /rulesets    the rulesets this daemon knows
    GET  /history     past sessions (?limit=20&before=ID), newest first
    POST /session, /hand-over, /dice, /continue, /clear-fault, /game, /session/end,
         /abort, /selftest, /calibrate
                      the commands, one route each, made from the one list
                      (hostd/core/commands.py; hostd/web/routes/commands.py): a command not
                      in `can` is 409 with the state's name as its code; every answer
                      carries the `seq` it was judged in and `next`
    GET  /pair        is this browser paired (its id)?  POST /pair {"code": "ABCD-1234"}:
                      pair it
    POST /pair/new    a one-time pairing code (programs on the host only)
    POST /pair/invite a paired browser makes one for another phone (with its QR code)
    GET  /pair/browsers  the paired browsers (programs on the host only)
    POST /pair/revoke {"id": "3f9a2c"}: unpair one browser (programs on the host only)
    POST /pair/forget this browser unpairs itself (its cookie cleared)
    POST /pair/revoke-all  every browser must pair again
    POST /hand/check  analyse a hand {"hand": "123m...", "mixed_deck": true} (hostd.hand.api)
    POST /hand/score  score a won hand {"hand": "123m...", "win": "1m", ...} (hostd.hand.score_api)
    GET  /events      text/event-stream: each event's data is one JSON object with a
                      "type"; clients must ignore types they don't know.  The first is
                      {"type": "hello", "api": 1, "status": {...}}.
    GET  /openapi.json  the OpenAPI document (docs/API.md describes every route and event)
    GET  /            the table's page (hostd/web/webpage.py; its files under /page/)
    GET  /docs, /redoc  the document in Swagger UI and ReDoc, their scripts served from the
                        package (fastapi-offline's copies, under /docs-assets/): nothing
                        from a CDN, so they work on an offline table

Errors are ``{"error": {"code": ..., "message": ..., "seq": ..., "next": {...}}}`` with the
status of the :class:`~hostd.errors.JantakuError` the daemon raised (400 bad request,
401/403 refused, 409 not now (the code names the state), 413 body over 64 KiB, 415 a body
that is not JSON, 422 refused by the table or an invalid body, 503 the table is not
connected, 500 otherwise), or of the guards and the server (hostd/web/guards.py,
hostd/web/server.py: 408 a body too slow, 431 headers too large, 503 an event stream too
many, a connection kept for an abort, the daemon stopping).  hostd/web/openapi.py
documents them all for every route, and the links start -> status -> commands.

Bodies: JSON (``Content-Type: application/json``), UTF-8, at most MAX_BODY_BYTES (64 KiB:
a body declared larger is answered 413 without being read, and the connection closed; a
chunked body is cut there), read by the one strict reader the MQTT bridge uses too
(hostd/strictjson.py): duplicate keys, invalid UTF-8, NaN, 1e999, integers of more than
4300 digits and nesting deeper than the parser takes are ``400 bad_json``, JSON that is
not an object 422.  Fields are strict: a boolean is ``true``/``false`` (not ``"yes"``,
``1``), an integer is a JSON integer (not ``"42"``, ``42.0``, ``true``).

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
  X-Forwarded-Proto hostd/web/server.py trusts from named proxies only), never over plain HTTP;
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

import json

import structlog
from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from hostd.core.daemon import API_VERSION  # noqa: F401 - the API's version, for importers
from hostd.errors import ConfigError, JantakuError
from hostd.hand import api as hand_api, score_api as hand_score_api
from hostd.web.auth import MIN_TOKEN_CHARS, Security, load_or_create_token  # noqa: F401
from hostd.web import openapi
from hostd.web.docs import add_offline_docs
from hostd.core.commands import COMMANDS
from hostd.web.guards import (MAX_BODY_BYTES, BodyGuard, OriginGuard, StreamCap,  # noqa: F401
                              describe_validation, error_response, is_loopback, is_wildcard,
                              jantaku_response)
from hostd.web.pairing import Pairing
from hostd.web.routes import commands, daemon as daemon_routes, pairing as pairing_routes
from hostd.web.routes import score as score_routes
from hostd.web.webpage import add_page

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
log = structlog.get_logger("jantaku.api")

try:  # the installed distribution's version, for /health
    from importlib.metadata import version as _dist_version

    VERSION = _dist_version("jantaku")
except Exception:  # pragma: no cover - not installed
    VERSION = "0+unknown"

_ACCEPTED = dict(commands.accepted(), **pairing_routes.ACCEPTED, **daemon_routes.ACCEPTED,
                 **{hand_api.PATH: hand_api.ACCEPTED,
                    hand_score_api.PATH: hand_score_api.ACCEPTED,
                    score_routes.PATH: score_routes.ACCEPTED})


def accepted_for(path):
    """What a route's body may be, in words (for error messages)."""
    return _ACCEPTED.get(path, "a JSON object as docs/API.md gives for %s" % path[:60])


def create_app(daemon, *, token=None, bind_host="127.0.0.1", allowed_hosts=(), invites=True,
               lan_reads="paired"):
    """The API for ``daemon`` (see the module doc for what it must provide).

    ``token``: the bearer token motor commands need (required unless ``bind_host`` is
    loopback; when given it is enforced on every bind).  ``bind_host``: the address the
    server will listen on.  ``allowed_hosts``: extra names the API may be reached by
    (Host header), e.g. the table's hostname on a LAN bind.  ``invites``: a paired
    browser may make a pairing code for another (`POST /pair/invite`).  ``lan_reads``:
    who on another machine may read history and scores, which name the players
    ("paired": paired browsers and the token; "open": anyone who reaches the API).
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
    app = _app(token)
    app.state.daemon = daemon
    app.state.token = token
    app.state.invites = bool(invites)
    wildcard = is_wildcard(bind_host)
    hosts = {h.lower().strip("[]") for h in LOOPBACK_NAMES}
    if not wildcard:
        hosts.add(bind_host.lower().strip("[]"))
    hosts.update(h.lower().strip("[]").rstrip(".") for h in allowed_hosts)
    pairing = Pairing(store=getattr(daemon, "journal", None))  # kept across restarts
    app.state.pairing = pairing
    security = Security(token, pairing, lan_reads)
    app.add_middleware(BodyGuard, accepted=accepted_for,
                       before_body=security.before_body(
                           [c.path for c in COMMANDS] + [score_routes.PATH]))
    app.add_middleware(StreamCap)
    app.add_middleware(OriginGuard, allowed_hosts=hosts, wildcard=wildcard, token=token)
    _add_error_handlers(app)
    add_offline_docs(app)
    add_page(app)  # GET /: the table's page (hostd/web/webpage.py), assets under /page/
    app.state.end_streams = daemon_routes.add(app, daemon, version=VERSION, security=security)
    commands.add(app, daemon, security)
    pairing_routes.add(app, pairing, security)
    score_routes.add(app, daemon, security)  # the game's ledger: entering needs pairing
    app.include_router(hand_api.router)  # POST /hand/check: no motors, no token
    app.include_router(hand_score_api.router)  # POST /hand/score: the same
    openapi.install(app)  # what every route may answer, and the links between them
    return app


def _app(token):
    app = FastAPI(
        title="jantaku",
        version=VERSION,
        description="Local API of the jantaku automatic mahjong table daemon. "
                    + ("Commands that move motors need `Authorization: Bearer <token>`. "
                       if token else "This daemon has no token (loopback only). ")
                    + "Cross-origin browser requests are refused. `GET /status` says what "
                    "the table would accept now (`can`) and what happens next (`next`). "
                    "Events: GET /events (server-sent events; each `data:` is a JSON object "
                    "with a `type`; ignore unknown types). docs/API.md describes every route, "
                    "state, code and event.",
        docs_url=None, redoc_url=None,  # FastAPI's own pages load a CDN's assets: ours instead
        redirect_slashes=False,
    )
    app.router.redirect_slashes = False
    return app


def _add_error_handlers(app):
    @app.exception_handler(JantakuError)
    async def _jantaku_error(request, exc: JantakuError):
        return jantaku_response(exc)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request, exc: StarletteHTTPException):
        codes = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}
        message = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        headers = getattr(exc, "headers", None)
        if exc.status_code == 404:
            message = "no endpoint %s; see /openapi.json" % request.url.path
        if exc.status_code == 405:  # every method of the path, not only its first route's
            allowed = _methods(app, request.scope)
            headers = dict(headers or {}, Allow=", ".join(allowed))
            message = "%s is not a method of %s; it takes %s" % (
                request.method[:10], request.url.path[:60], ", ".join(allowed))
        return error_response(exc.status_code, codes.get(exc.status_code, "http_error"), message,
                              headers)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request, exc: RequestValidationError):
        errors = exc.errors()
        accepted = accepted_for(request.url.path)
        if any(e.get("type") == "json_invalid" for e in errors):
            return error_response(400, "bad_json", "the body is not valid JSON; accepted: %s"
                                  % accepted)
        if any(e.get("type") == "missing" and tuple(e.get("loc", ())) == ("body",)
               for e in errors):
            return error_response(422, "bad_request", "a JSON body is needed; accepted: %s"
                                  % accepted)
        return error_response(422, "bad_request", "%s; accepted: %s"
                              % (describe_validation(errors), accepted))

    @app.exception_handler(Exception)
    async def _unexpected(request, exc: Exception):
        # Starlette re-raises after this answer, so the server logs the traceback
        return error_response(500, "internal", "internal error (%s); see the daemon's log"
                              % type(exc).__name__)


def _methods(app, scope):
    """The methods some route of ``scope``'s path takes, sorted."""
    from starlette.routing import Match

    out = set()
    for route in app.router.routes:
        match, _ = route.matches(dict(scope, method="GET"))
        if match != Match.NONE:
            out.update(getattr(route, "methods", None) or ())
    return sorted(out)


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
