"""Pairing a browser (hostd/pairing.py, POST /pair ...): a one-time code for an HttpOnly
cookie; motor commands from a browser need it (or the token); docs/API.md §Security."""
import asyncio

import httpx

from hostd.api import create_app
from hostd.pairing import CODE_TTL_S, MAX_TRIES, Pairing, normalise
from tests.unit.test_api import BASE, TOKEN, FakeDaemon

ORIGIN = {"Origin": BASE}


def client(app, base=BASE):
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=base)


def run(coro):
    return asyncio.run(coro)


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def test_a_code_is_good_once_and_not_after_its_time():
    clock = Clock()
    p = Pairing(clock)
    code = p.new_code()
    assert len(code) == 9 and code[4] == "-" and code[5:].isdigit()
    cookie = p.exchange(code.lower().replace("-", " "))  # as typed on a phone
    assert p.check(cookie) and not p.check("x" + cookie) and not p.check(None)
    try:
        p.exchange(code)
        raise AssertionError("a spent code was taken again")
    except Exception as e:
        assert e.status == 403 and "jantaku pair --new" in e.message
    late = p.new_code()
    clock.t += CODE_TTL_S + 1
    try:
        p.exchange(late)
        raise AssertionError("an old code was taken")
    except Exception as e:
        assert "too old" in e.message


def test_wrong_codes_are_rate_limited_even_the_right_one_then():
    clock = Clock()
    p = Pairing(clock)
    code = p.new_code()
    for _ in range(MAX_TRIES):
        try:
            p.exchange("ZZZZ-0000")
        except Exception as e:
            assert e.status == 403
    try:
        p.exchange(code)
        raise AssertionError("no limit on guesses")
    except Exception as e:
        assert e.status == 429 and "wait a minute" in e.message
    clock.t += 61
    assert p.check(p.exchange(code))


def test_revoke_all_ends_every_browser_session():
    p = Pairing(Clock())
    a = p.exchange(p.new_code())
    b = p.exchange(p.new_code())
    assert p.revoke_all() == 2
    assert not p.check(a) and not p.check(b)


def test_normalise():
    assert normalise(" abcd-1234 ") == "ABCD1234"


def test_the_cookie_is_httponly_strict_and_no_secret_goes_in_a_url():
    d = FakeDaemon()
    app = create_app(d)

    async def go():
        async with client(app) as c:
            code = (await c.post("/pair/new")).json()["code"]
            r = await c.post("/pair", json={"code": code}, headers=ORIGIN)
            state = (await c.get("/pair")).json()
            return r, state

    r, state = run(go())
    assert r.status_code == 200 and r.json() == {"paired": True, "expires_in": 86400}
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie
    assert state["paired"] is True and state["browsers"] == 1
    # the routes take the code in a body: no route has a query or path parameter for it
    doc = app.openapi()
    for path in ("/pair", "/pair/new", "/pair/revoke-all"):
        for op in doc["paths"][path].values():
            assert not op.get("parameters"), (path, op.get("parameters"))


def test_a_browser_cannot_make_a_code_and_an_unpaired_one_cannot_press():
    d = FakeDaemon()
    app = create_app(d)

    async def go():
        async with client(app) as c:
            return [await c.post("/pair/new", headers=ORIGIN),
                    await c.post("/session", json={"ruleset": "riichi"}, headers=ORIGIN),
                    await c.post("/abort", headers=ORIGIN),
                    await c.get("/status", headers=ORIGIN)]

    made, start, abort, status = run(go())
    assert made.status_code == 403 and made.json()["error"]["code"] == "not_from_browser"
    assert start.status_code == 401 and abort.status_code == 401
    assert status.status_code == 200  # an unpaired browser sees the table
    assert d.calls == []


def test_the_cli_without_origin_is_unchanged_and_revoke_all_unpairs():
    d = FakeDaemon()
    app = create_app(d)

    async def go():
        async with client(app) as c:
            code = (await c.post("/pair/new")).json()["code"]
            await c.post("/pair", json={"code": code}, headers=ORIGIN)
            ok = await c.post("/hand-over", headers=ORIGIN)
            revoked = await c.post("/pair/revoke-all")
            c.cookies.clear()  # the CLI sends no cookie
            cli = await c.post("/hand-over")
            return ok, revoked, cli

    async def after(cookie):
        async with client(app) as c:
            c.cookies.set("jantaku_session", cookie)
            return await c.post("/hand-over", headers=ORIGIN)

    ok, revoked, cli = run(go())
    assert ok.status_code == 200 and revoked.json() == {"revoked": 1}
    assert cli.status_code == 200
    cookie = ok.request.headers["cookie"].split("=", 1)[1]
    assert run(after(cookie)).status_code == 401


def test_with_a_token_a_code_needs_the_token_and_a_browser_may_use_either():
    d = FakeDaemon()
    app = create_app(d, token=TOKEN)
    auth = {"Authorization": "Bearer " + TOKEN}

    async def go():
        async with client(app) as c:
            no_token = await c.post("/pair/new")
            code = (await c.post("/pair/new", headers=auth)).json()["code"]
            bearer = await c.post("/hand-over", headers={**ORIGIN, **auth})
            await c.post("/pair", json={"code": code}, headers=ORIGIN)
            cookie = await c.post("/hand-over", headers=ORIGIN)
            return no_token, bearer, cookie

    no_token, bearer, cookie = run(go())
    assert no_token.status_code == 401
    assert bearer.status_code == 200 and cookie.status_code == 200


def test_the_terminal_shows_the_code_and_a_qr_code_of_the_page_with_it():
    import segno

    from hostd.cli_daemon import pair_text

    text = pair_text("ABCD-1234", "http://table.local:8737/", 300)
    first, rest = text.split("\n", 1)
    assert first == ("pair a browser: open http://table.local:8737/ and type the code "
                     "ABCD-1234 (good once, for 5 minutes)")
    qr = rest.split("\n", 1)[1].split("\n")
    # the same matrix segno makes for the page's address with the code in its fragment
    want = segno.make("http://table.local:8737/#pair=ABCD-1234", error="m")
    assert len(qr) == (want.symbol_size(scale=1)[1] + 1) // 2  # two modules a line
    assert pair_text("ABCD-1234", "http://x/", 300, qr=False) == (
        "pair a browser: open http://x/ and type the code ABCD-1234 (good once, for 5 minutes)")
