"""Pairing over HTTP (CPython only): a browser exchanges a one-time code for a session
cookie; programs on the host make codes, list and unpair browsers (hostd/web/pairing.py,
docs/API.md "Security")."""
from typing import Any

import structlog
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from hostd.core.status import ErrorResponse
from hostd.errors import Forbidden, Unauthorized
from hostd.web.auth import https, peer
from hostd.web.pairing import CODE_TTL_S, COOKIE, SESSION_TTL_S

log = structlog.get_logger("jantaku.api")
HOST_ONLY_ERRORS = {  # the routes for programs on the host (Security.host_only)
    401: {"model": ErrorResponse, "description": "token required (or, without one, a client "
                                                 "a proxy forwards)"},
    403: {"model": ErrorResponse, "description": "from a browser (`not_from_browser`), or the "
                                                 "token or origin refused"},
}
ACCEPTED = {"/pair": '{"code": "ABCD-1234"}',
            "/pair/revoke": '{"id": "<a browser\'s id from GET /pair/browsers>"}'}


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


def _qr_svg(text):
    """``text`` as a QR code, an SVG document (segno, pinned: no network, no image files)."""
    import io

    import segno

    buf = io.BytesIO()
    segno.make(text, error="m").save(buf, kind="svg", scale=4, border=2, xmldecl=False)
    return buf.getvalue().decode()


def _add_invite(app, pairing):
    """POST /pair/invite on `app` (a paired browser pairs another phone)."""
    @app.post("/pair/invite", response_model=dict[str, Any], tags=["pairing"],
              responses={401: {"model": ErrorResponse,
                               "description": "this browser is not paired (`not_paired`)"},
                         403: {"model": ErrorResponse,
                               "description": "the host turned invitations off "
                                              "(`invites_off`: `jantaku run --no-invite`)"}})
    async def pair_invite(request: Request):
        """A paired browser invites another phone: a fresh one-time pairing code (the last
        one stops working), the page's address with it (`url`, `#pair=CODE`: scanning it
        pairs) and that address as a QR code (`qr_svg`).  From a paired browser only;
        `jantaku run --no-invite` turns it off."""
        if not app.state.invites:
            raise Forbidden("the table's host turned invitations off (jantaku run --no-invite): "
                            "ask at the host for a pairing code", code="invites_off")
        if pairing.touch(request.cookies.get(COOKIE), client=peer(request)) is None:
            raise Unauthorized("only a paired browser invites another: pair this one first",
                               code="not_paired")
        code = pairing.new_code()
        url = "%s#pair=%s" % (str(request.base_url), code)
        log.info("pairing_invited")
        return {"code": code, "expires_in": CODE_TTL_S, "url": url, "qr_svg": _qr_svg(url)}


def add(app: FastAPI, pairing, security):
    """The pairing routes on `app`."""
    @app.get("/pair", response_model=dict[str, Any], tags=["pairing"])
    async def pair_state(request: Request):
        """Whether this browser is paired (may press the motor commands), and its `id`
        (null when not paired)."""
        id_ = pairing.touch(request.cookies.get(COOKIE), client=peer(request))
        return {"paired": id_ is not None, "id": id_, **pairing.summary()}

    @app.post("/pair", response_model=dict[str, Any], tags=["pairing"],
              responses={
                         403: {"model": ErrorResponse, "description": "code refused"},
                         429: {"model": ErrorResponse,
                               "description": "too many wrong codes (`pair_rate_limited`): 5 "
                                              "a minute from one address, 60 from all"}})
    async def pair(body: PairRequest, request: Request):
        """Exchange the one-time pairing code for a browser session (an HttpOnly,
        SameSite=Strict cookie, Secure over HTTPS): this browser may then press the motor
        commands.  Wrong codes: 5 a minute from one address, 60 a minute from all
        together (429).  A browser that pairs again replaces its own session."""
        paired = pairing.exchange(body.code, client=peer(request),
                                  agent=request.headers.get("user-agent"),
                                  previous=request.cookies.get(COOKIE))
        if paired.replaced:
            log.info("browser_unpaired", id=paired.replaced, how="paired_again")
        log.info("browser_paired", id=paired.id)
        resp = JSONResponse({"paired": True, "id": paired.id, "expires_in": SESSION_TTL_S})
        resp.set_cookie(COOKIE, paired.cookie, max_age=SESSION_TTL_S, path="/",
                        httponly=True, samesite="strict", secure=https(request))
        return resp

    @app.post("/pair/new", response_model=dict[str, Any], tags=["pairing"],
              responses=HOST_ONLY_ERRORS,
              dependencies=security.host_only("a pairing code is made", "a pairing code",
                                     "jantaku pair --new"))
    async def pair_new():
        """A fresh one-time pairing code (the last one stops working); from a program on
        the host only (no Origin; the token when one is configured)."""
        return {"code": pairing.new_code(), "expires_in": CODE_TTL_S}

    _add_invite(app, pairing)

    @app.get("/pair/browsers", response_model=BrowsersResponse, tags=["pairing"],
             responses=HOST_ONLY_ERRORS,
             dependencies=security.host_only("the paired browsers are listed",
                                    "the list of paired browsers", "jantaku pair --list"))
    async def pair_browsers():
        """The paired browsers, oldest first: id, when each paired and was last seen, its
        address and what its User-Agent says; from a program on the host only (no Origin;
        the token when one is configured)."""
        return {"browsers": pairing.browsers()}

    @app.post("/pair/revoke", response_model=RevokeResponse, tags=["pairing"],
              responses={**HOST_ONLY_ERRORS,
                         404: {"model": ErrorResponse,
                               "description": "no paired browser has that id "
                                              "(`unknown_browser`); the message names the "
                                              "paired ones"}},
              dependencies=security.host_only("a browser is unpaired", "unpairing a browser",
                                     "jantaku pair --revoke ID"))
    async def pair_revoke(body: RevokeRequest):
        """End one browser's session, by the id `GET /pair/browsers` lists: it must pair
        again to press; from a program on the host only (no Origin; the token when one is
        configured).  A browser ends its own with `POST /pair/forget`."""
        revoked = pairing.revoke(body.id)
        log.info("browser_unpaired", id=revoked, how="revoked")
        return {"revoked": revoked}

    @app.post("/pair/forget", response_model=ForgetResponse, tags=["pairing"],
              responses={403: {"model": ErrorResponse,
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
                           secure=https(request))
        return resp

    @app.post("/pair/revoke-all", response_model=dict[str, Any], tags=["pairing"],
              responses=HOST_ONLY_ERRORS,
              dependencies=security.host_only("every browser is unpaired", "unpairing every browser",
                                     "jantaku pair --revoke-all"))
    async def pair_revoke_all():
        """End every browser session and the open code: browsers must pair again.  From a
        program on the host only (as `/pair/revoke`): a browser unpairs itself with
        `/pair/forget`, never the others."""
        n = pairing.revoke_all()
        log.info("browsers_unpaired", n=n)
        return {"revoked": n}
