"""Pairing a browser (hostd/pairing.py, POST /pair ...): a one-time code for an HttpOnly
cookie; motor commands from a browser need it (or the token); docs/API.md §Security."""
import asyncio
import collections
import itertools

import httpx

from hostd.api import create_app
from hostd.pairing import (CODE_SPACE, CODE_TTL_S, MAX_CLIENTS, MAX_TRIES, MAX_TRIES_ALL,
                           TRY_WINDOW_S, Pairing, guess_chance, max_guesses, normalise)
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


def refused(fn, *args, **kw):
    """The error ``fn`` raises (it must raise one)."""
    try:
        fn(*args, **kw)
    except Exception as e:
        return e
    raise AssertionError("%s%r was not refused" % (fn.__name__, args))


def test_wrong_codes_are_rate_limited_per_client_even_the_right_one_then():
    clock = Clock()
    p = Pairing(clock)
    code = p.new_code()
    for _ in range(MAX_TRIES):
        assert refused(p.exchange, "ZZZZ-0000", client="10.0.0.9").status == 403
    e = refused(p.exchange, code, client="10.0.0.9")
    assert e.status == 429 and e.code == "pair_rate_limited"
    assert e.message.startswith("this browser typed 5 wrong pairing codes: wait a minute")
    clock.t += 61
    assert p.check(p.exchange(code, client="10.0.0.9"))


def test_one_client_typing_wrong_codes_keeps_no_other_from_pairing():
    p = Pairing(Clock())
    code = p.new_code()
    for _ in range(MAX_TRIES + 3):  # the LAN's prankster
        refused(p.exchange, "ZZZZ-0000", client="10.0.0.66")
    assert refused(p.exchange, "ZZZZ-0000", client="10.0.0.66").status == 429
    assert p.check(p.exchange(code, client="10.0.0.7"))  # the owner's phone


def test_wrong_codes_from_many_addresses_meet_the_ceiling_for_all():
    clock = Clock()
    p = Pairing(clock)
    code = p.new_code()
    addresses = ("10.0.%d.%d" % divmod(i, 250) for i in range(10 ** 4))
    statuses = collections.Counter()
    for address in itertools.islice(addresses, MAX_TRIES_ALL + 20):
        statuses[refused(p.exchange, "ZZZZ-0000", client=address).status] += 1
    assert statuses == {403: MAX_TRIES_ALL, 429: 20}  # one wrong code each: the ceiling
    e = refused(p.exchange, code, client="10.9.9.9")  # even the right one, from anyone
    assert e.status == 429 and e.message.startswith(
        "too many wrong pairing codes on the network") and "jantaku pair --new" in e.message
    clock.t += TRY_WINDOW_S
    assert refused(p.exchange, "ZZZZ-0000", client="10.9.9.9").status == 403  # a new minute
    code = p.new_code()  # a fresh code: the count for all starts again; each browser's not
    for _ in range(MAX_TRIES_ALL - 1):
        refused(p.exchange, "ZZZZ-0000", client=next(addresses))
    assert p.check(p.exchange(code, client=next(addresses)))


def test_a_code_life_allows_300_guesses_one_in_11_million():
    clock = Clock()
    p = Pairing(clock)
    p.new_code()
    guesses = 0
    for second in range(CODE_TTL_S):  # as many addresses as it takes, each second of its life
        for i in range(20):
            e = refused(p.exchange, "ZZZZ-0000", client="10.%d.%d.%d" % (second // 250,
                                                                          second % 250, i))
            guesses += e.status == 403
        clock.t += 1
    assert guesses == max_guesses() == 300
    assert "too old" in refused(p.exchange, "ZZZZ-0000", client="10.8.8.8").message
    assert CODE_SPACE == 24 ** 4 * 10 ** 4 == 3317760000
    assert round(1 / guess_chance()) == 11059200


def test_a_flood_of_addresses_does_not_grow_the_table(monkeypatch):
    from hostd import pairing

    clock = Clock()
    p = Pairing(clock)
    p.new_code()
    for i in range(5000):  # over many minutes: the stale ones go
        refused(p.exchange, "ZZZZ-0000", client="10.%d.%d.1" % divmod(i, 250))
        clock.t += 1.5
    assert len(p._tries.clients) <= MAX_TRIES_ALL
    monkeypatch.setattr(pairing, "MAX_TRIES_ALL", 10 ** 6)  # and if the ceiling were higher
    for i in range(5000):  # within one minute
        refused(p.exchange, "ZZZZ-0000", client="10.%d.%d.2" % divmod(i, 250))
    assert len(p._tries.clients) == MAX_CLIENTS


def test_the_api_limits_each_peer_address_on_its_own():
    app = create_app(FakeDaemon())

    def from_(address):
        return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=(address, 5000)),
                                 base_url=BASE)

    async def go():
        async with from_("127.0.0.1") as host, from_("192.168.1.66") as prank, \
                from_("192.168.1.7") as phone:
            code = (await host.post("/pair/new")).json()["code"]
            wrong = [await prank.post("/pair", json={"code": "ZZZZ-0000"}, headers=ORIGIN)
                     for _ in range(MAX_TRIES + 1)]
            return wrong, await phone.post("/pair", json={"code": code}, headers=ORIGIN)

    wrong, phone = run(go())
    assert [r.status_code for r in wrong] == [403] * MAX_TRIES + [429]
    err = wrong[-1].json()["error"]
    assert err["code"] == "pair_rate_limited" and "this browser typed 5" in err["message"]
    assert phone.status_code == 200


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


def pair_through(app, base, origin, *, client=("127.0.0.1", 5000), headers=None):
    """POST /pair with a fresh code (made on the host), as a browser at ``origin``
    reaching ``base`` from ``client``."""
    async def go():
        host = httpx.ASGITransport(app=app)
        browser = httpx.ASGITransport(app=app, client=client)
        async with httpx.AsyncClient(transport=host, base_url=base) as c:
            code = (await c.post("/pair/new")).json()["code"]
        async with httpx.AsyncClient(transport=browser, base_url=base) as c:
            return await c.post("/pair", json={"code": code},
                                headers={"Origin": origin, **(headers or {})})

    return run(go())


def test_the_cookie_is_secure_over_https_only():
    app = create_app(FakeDaemon())
    plain = pair_through(app, BASE, BASE)
    assert plain.status_code == 200 and "secure" not in plain.headers["set-cookie"].lower()
    https = "https://127.0.0.1:8737"
    tls = pair_through(app, https, https)
    assert tls.status_code == 200
    assert "secure" in [a.strip().lower() for a in tls.headers["set-cookie"].split(";")]


def test_behind_a_tls_proxy_on_the_host_the_cookie_is_secure_and_the_origin_matches():
    """Through the daemon's own server (hostd/server.py): a proxy on loopback (caddy,
    nginx) that says X-Forwarded-Proto: https and passes the browser's Host on."""
    from api_fuzz import ServerThread

    app = create_app(FakeDaemon(), allowed_hosts=["table.local"])
    with ServerThread(app) as base:
        with httpx.Client(base_url=base, timeout=10) as c:
            code = c.post("/pair/new").json()["code"]
            behind = {"Host": "table.local", "X-Forwarded-Proto": "https",
                      "X-Forwarded-For": "192.168.1.7"}
            r = c.post("/pair", json={"code": code},
                       headers={**behind, "Origin": "https://table.local"})
            assert r.status_code == 200, r.text
            assert "secure" in r.headers["set-cookie"].lower()
            cookie = r.cookies["jantaku_session"]
            c.cookies.clear()
            press = c.post("/hand-over", headers={**behind, "Origin": "https://table.local",
                                                  "Cookie": "jantaku_session=" + cookie})
            assert press.status_code == 200, press.text
            # plain HTTP, straight to the daemon: as before, no Secure
            code = c.post("/pair/new").json()["code"]
            r = c.post("/pair", json={"code": code}, headers={"Origin": base})
            assert r.status_code == 200 and "secure" not in r.headers["set-cookie"].lower()


def test_forwarded_headers_count_from_loopback_only(monkeypatch):
    """The server's app as uvicorn wraps it: X-Forwarded-Proto from a LAN address changes
    nothing (and $FORWARDED_ALLOW_IPS does not widen the trust)."""
    from hostd.server import make_config

    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "*")
    config = make_config(create_app(FakeDaemon(), allowed_hosts=["table.local"]))
    config.load()
    assert config.forwarded_allow_ips == "127.0.0.1,::1"
    behind = {"Host": "table.local", "X-Forwarded-Proto": "https"}
    lan = pair_through(config.loaded_app, "http://table.local", "https://table.local",
                       client=("192.168.1.66", 5000), headers=behind)
    assert lan.status_code == 403 and lan.json()["error"]["code"] == "cross_origin"
    lan = pair_through(config.loaded_app, "http://table.local", "http://table.local",
                       client=("192.168.1.66", 5000), headers=behind)
    assert lan.status_code == 200 and "secure" not in lan.headers["set-cookie"].lower()
    local = pair_through(config.loaded_app, "http://table.local", "https://table.local",
                         client=("127.0.0.1", 5000), headers=behind)
    assert local.status_code == 200 and "secure" in local.headers["set-cookie"].lower()


def test_without_a_token_a_client_forwarded_by_a_proxy_is_not_local():
    """A TLS proxy on the host brings the LAN to a loopback daemon: a client it names in
    X-Forwarded-For gets no command and no code without the token; the host's own
    programs (no X-Forwarded-For) are as before."""
    from api_fuzz import ServerThread

    d = FakeDaemon()
    with ServerThread(create_app(d, allowed_hosts=["table.local"])) as base:
        with httpx.Client(base_url=base, timeout=10) as c:
            lan = {"Host": "table.local", "X-Forwarded-Proto": "https",
                   "X-Forwarded-For": "192.168.1.66"}
            press, code = c.post("/hand-over", headers=lan), c.post("/pair/new", headers=lan)
            assert d.calls == []
            assert c.post("/hand-over").status_code == 200
            assert c.post("/pair/new").status_code == 200
    for r in (press, code):
        assert r.status_code == 401, r.text
        assert "192.168.1.66" in r.json()["error"]["message"]
        assert "--token-file" in r.json()["error"]["message"]
