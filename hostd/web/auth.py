"""Who may press (CPython only): the API token, pairing, programs on the host.

DESIGN §4: on anything but loopback, or from a browser, motor commands need a token.
docs/API.md "Security" says what each refusal means.
"""
import hmac
import os
import secrets

import structlog
from fastapi import Depends, Request
from fastapi.security import HTTPBearer
from starlette.requests import cookie_parser

from hostd.errors import ConfigError, Forbidden, Unauthorized
from hostd.web.guards import cut, is_loopback
from hostd.web.pairing import COOKIE

MIN_TOKEN_CHARS = 16
JUDGED = "jantaku.judged"  # a scope key: the caller was judged before the body was read
log = structlog.get_logger("jantaku.api")


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


#: who may read history and scores from another machine (``jantaku run --lan-reads``):
#: paired browsers and the token (the default), or anyone who reaches the API
LAN_READS = ("paired", "open")


def peer(request):
    """The client's address (a TLS proxy's client's, when hostd/web/server.py trusts it)."""
    return request.client.host if request.client else None


def _bearer(authorization):
    """The token of an ``Authorization: Bearer <token>`` header, or None (as HTTPBearer)."""
    scheme, _, cred = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not cred.strip():
        return None
    return cred.strip()


def _require_local(client, forwarded=None):
    """Without a token the API takes commands from this host only.  On a loopback bind
    every peer is local, except a browser's that a TLS proxy on this host names in
    X-Forwarded-For (``forwarded``: the header, trusted or not, hostd/web/server.py): that
    one is refused (401), as on a LAN bind."""
    if forwarded is not None:
        client = forwarded.rsplit(",", 1)[-1].strip() or "a client"
    if (client is not None and not is_loopback(client)) or forwarded is not None:
        raise Unauthorized("this daemon has no API token, so it takes commands only from "
                           "programs on its own host, and this request came from %s through "
                           "a proxy: start it with `jantaku run --token-file PATH` and send "
                           "the token (--token or $JANTAKU_TOKEN)" % cut(client, 60))


def https(request):
    """Whether the browser reached the API over HTTPS (directly, or through a TLS proxy on
    this host: hostd/web/server.py): its cookie may then be ``Secure``, never over plain HTTP."""
    return request.url.scheme == "https"


class Security:
    """The dependencies the routes take: ``commands`` (the token when one is configured;
    from a browser, pairing or the token) and ``host_only(...)`` (a program on the host,
    never a browser)."""

    def __init__(self, token, pairing, lan_reads="paired"):
        if lan_reads not in LAN_READS:
            raise ValueError("lan_reads: %r; accepted: %s" % (lan_reads, ", ".join(LAN_READS)))
        self.token = token
        self.pairing = pairing
        self.lan_reads = lan_reads
        self.bearer = HTTPBearer(auto_error=False, description="the daemon's API token")
        # (HTTPBearer, only where a token is configured, puts the scheme in OpenAPI)
        self.commands = [Depends(self._require)] + ([Depends(self.bearer)] if token else [])

    def bearer_ok(self, creds):
        """``creds``: the token sent, or None."""
        return (self.token is not None and creds is not None
                and hmac.compare_digest(creds.encode("utf-8", "replace"), self.token.encode()))

    async def _require(self, request: Request):
        if request.scope.get(JUDGED):
            return  # judged from its headers already, before its body (before_body)
        self.judge(request.headers.get("origin"), request.headers.get("authorization"),
                   request.cookies.get(COOKIE), peer(request),
                   request.headers.get("x-forwarded-for"))

    def before_body(self, paths):
        """For hostd/web/guards.py's BodyGuard: the callers of ``paths`` (the commands)
        judged from the request's headers before a byte of its body is read, so a client
        that may not press holds no connection with a body it never finishes."""
        paths = frozenset(paths)

        def judge_scope(scope, headers):
            if scope.get("path") not in paths:
                return
            client = scope.get("client")
            self.judge(headers.get("origin"), headers.get("authorization"),
                       cookie_parser(headers.get("cookie", "")).get(COOKIE),
                       client[0] if client else None, headers.get("x-forwarded-for"))
            scope[JUDGED] = True  # the route's dependency does not judge (touch) it again

        return judge_scope

    def judge(self, origin, authorization, cookie, client, forwarded=None):
        """Raise Unauthorized or Forbidden unless this caller may press the motor commands
        (docs/API.md "Security"): a paired browser; the token; without a token a program
        on this host."""
        if self.pairing.touch(cookie, client=client):
            return  # a paired browser (docs/API.md §Security), seen now
        creds = _bearer(authorization)
        if origin is not None and not self.bearer_ok(creds):
            # a browser (it sends Origin with every POST): pairing, or the token
            raise Unauthorized("this browser is not paired: type the pairing code shown by "
                               "`jantaku run` (or `jantaku pair --new`) on the table's host",
                               code="not_paired")
        if self.token is None:
            _require_local(client, forwarded)
            return
        if creds is None:
            if authorization:
                raise Forbidden("Authorization must be 'Bearer <token>'")
            raise Unauthorized("this command moves motors and needs the API token: give it "
                               "to the CLI with --token TOKEN or $JANTAKU_TOKEN (the daemon "
                               "keeps it in its --token-file); over HTTP send "
                               "'Authorization: Bearer <token>'")
        if not self.bearer_ok(creds):
            log.warning("token_refused")
            raise Forbidden("API token refused")

    def may_read_private(self, request):
        """Whether this caller may read what names people (history, scores): a program or
        browser on this host (loopback, not forwarded by a proxy), a paired browser, the
        token; anyone when the owner said so (``lan_reads="open"``)."""
        if self.lan_reads == "open":
            return True
        forwarded = request.headers.get("x-forwarded-for")
        client = peer(request)
        if forwarded is None and (client is None or is_loopback(client)):
            return True
        if self.pairing.check(request.cookies.get(COOKIE)):
            return True
        return self.bearer_ok(_bearer(request.headers.get("authorization")))

    def private_read(self):
        """A dependency: history and scores (players' names) for callers that
        :meth:`may_read_private`, else 401 ``not_paired`` saying what would do."""
        async def require_reader(request: Request):
            if not self.may_read_private(request):
                raise Unauthorized(
                    "history and scores name the players: from another machine they are for "
                    "paired browsers (type the pairing code shown by `jantaku run` or "
                    "`jantaku pair --new`) or the API token; the table's owner may open them "
                    "to the network with `jantaku run --lan-reads open`", code="not_paired")

        return [Depends(require_reader)]

    def host_only(self, done, what, cli):
        """A dependency: for a program on the host (the CLI) only, never for a browser,
        paired or not; the token when one is configured.  ``done``: 'a pairing code is
        made', ``what``: 'a pairing code', ``cli``: the command that does it."""
        async def require_program(request: Request):
            if request.headers.get("origin") is not None:
                raise Forbidden("%s on the table's host (`%s`), not by a browser"
                                % (done, cli), code="not_from_browser")
            if self.token is None:
                _require_local(peer(request), request.headers.get("x-forwarded-for"))
            elif not self.bearer_ok(_bearer(request.headers.get("authorization"))):
                raise Unauthorized("%s needs the API token (--token or $JANTAKU_TOKEN)"
                                   % what)

        return [Depends(require_program)]
