"""Pairing a browser (hostd/web/pairing.py, POST /pair ...): a one-time code for an HttpOnly
cookie; motor commands from a browser need it (or the token); docs/API.md §Security."""
import asyncio
import collections
import hashlib
import itertools
import json

import httpx
import pytest

from hostd.web.api import create_app
from hostd.web.pairing import (CODE_SPACE, CODE_TTL_S, MAX_CLIENTS, MAX_TRIES, MAX_WRONG_PER_CODE,
                           SESSION_TTL_S, TRY_WINDOW_S, Pairing, describe_agent,
                           guess_chance, max_guesses, normalise)
from tests.unit.test_api import BASE, TOKEN, FakeDaemon
from tests.unit.fake_daemon import command_methods

ORIGIN = {"Origin": BASE}


def client(app, base=BASE):
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=base)


def run(coro):
    return asyncio.run(coro)


class Clock:
    """A clock a test moves by hand (``clock.t += 60``)."""

    def __init__(self, t=1000.0):
        self.t = t

    def __call__(self):
        return self.t


def test_a_code_is_good_once_and_not_after_its_time():
    clock = Clock()
    p = Pairing(clock)
    code = p.new_code()
    assert len(code) == 9 and code[4] == "-" and code[5:].isdigit()
    cookie = p.exchange(code.lower().replace("-", " ")).cookie  # as typed on a phone
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
    assert p.check(p.exchange(code, client="10.0.0.9").cookie)


def test_one_client_typing_wrong_codes_keeps_no_other_from_pairing():
    p = Pairing(Clock())
    code = p.new_code()
    for _ in range(MAX_TRIES + 3):  # the LAN's prankster
        refused(p.exchange, "ZZZZ-0000", client="10.0.0.66")
    assert refused(p.exchange, "ZZZZ-0000", client="10.0.0.66").status == 429
    assert p.check(p.exchange(code, client="10.0.0.7").cookie)  # the owner's phone


def test_wrong_codes_from_other_addresses_never_lock_the_right_one_out():
    """Issue 53 point 4: 12 addresses typing 5 wrong codes a minute each (60 a minute, for
    four minutes) keep no fresh address from pairing with the right code."""
    clock = Clock()
    p = Pairing(clock)
    code = p.new_code()
    for minute in range(4):
        for a in range(12):
            for _ in range(MAX_TRIES):
                assert refused(p.exchange, "ZZZZ-0000", client="10.0.1.%d" % a).status == 403
            assert refused(p.exchange, "ZZZZ-0000", client="10.0.1.%d" % a).status == 429
        clock.t += TRY_WINDOW_S
    assert p.check(p.exchange(code, client="10.9.9.9").cookie)


def test_a_code_with_300_wrong_guesses_is_spent_and_a_fresh_one_starts_again():
    clock = Clock()
    p = Pairing(clock)
    code = p.new_code()
    addresses = ("10.0.%d.%d" % divmod(i, 250) for i in range(10 ** 4))
    statuses = collections.Counter()
    for address in itertools.islice(addresses, MAX_WRONG_PER_CODE + 20):
        statuses[refused(p.exchange, "ZZZZ-0000", client=address).status] += 1
    assert statuses == {403: MAX_WRONG_PER_CODE, 429: 20}  # one wrong code each: the ceiling
    e = refused(p.exchange, code, client="10.9.9.9")  # the code is spent
    assert e.status == 429 and "is spent" in e.message and "jantaku pair --new" in e.message
    code = p.new_code()  # a fresh code: its count starts again; each browser's not
    for _ in range(MAX_WRONG_PER_CODE - 1):
        refused(p.exchange, "ZZZZ-0000", client=next(addresses))
    assert p.check(p.exchange(code, client=next(addresses)).cookie)


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
    assert "is spent" in refused(p.exchange, "ZZZZ-0000", client="10.8.8.8").message
    assert CODE_SPACE == 24 ** 4 * 10 ** 4 == 3317760000
    assert round(1 / guess_chance()) == 11059200


def test_a_flood_of_addresses_does_not_grow_the_table(monkeypatch):
    from hostd.web import pairing

    clock = Clock()
    p = Pairing(clock)
    p.new_code()
    for i in range(5000):  # over many minutes: the stale ones go
        refused(p.exchange, "ZZZZ-0000", client="10.%d.%d.1" % divmod(i, 250))
        clock.t += 1.5
    assert len(p._tries.clients) <= TRY_WINDOW_S / 1.5  # the last minute's
    monkeypatch.setattr(pairing, "MAX_WRONG_PER_CODE", 10 ** 6)  # and if the ceiling were higher
    for i in range(5000):  # within one minute
        refused(p.exchange, "ZZZZ-0000", client="10.%d.%d.2" % divmod(i, 250))
    assert len(p._tries.clients) == MAX_CLIENTS


def peer(app, address):
    """An API client for `app` as seen from `address` (a phone, the host, a stranger)."""
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=(address, 5000)),
                             base_url=BASE)


def test_the_api_limits_each_peer_address_on_its_own():
    app = create_app(FakeDaemon())

    def from_(address):
        return peer(app, address)

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
    a = p.exchange(p.new_code()).cookie
    b = p.exchange(p.new_code()).cookie
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
    assert r.status_code == 200 and r.json() == {"paired": True, "id": state["id"],
                                                 "expires_in": 86400}
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie
    assert state["paired"] is True and state["browsers"] == 1
    assert len(state["id"]) == 6 and state["id"] not in r.headers["set-cookie"]
    # the routes take the code, the cookie and ids in a body or a header: no route has a
    # query or path parameter
    doc = app.openapi()
    assert {p for p in doc["paths"] if p.startswith("/pair")} == {
        "/pair", "/pair/new", "/pair/browsers", "/pair/revoke", "/pair/forget",
        "/pair/revoke-all", "/pair/invite"}
    for path in ("/pair", "/pair/new", "/pair/browsers", "/pair/revoke", "/pair/forget",
                 "/pair/revoke-all", "/pair/invite"):
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

    from hostd.cli.reads import pair_text

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
    """Through the daemon's own server (hostd/web/server.py): a proxy on loopback (caddy,
    nginx) that says X-Forwarded-Proto: https and passes the browser's Host on."""
    from api_fuzz import ServerThread

    app = create_app(FakeDaemon(), allowed_hosts=["table.local"])
    with ServerThread(app, trusted_proxies=["127.0.0.1"]) as base:
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


def test_forwarded_headers_count_from_the_named_proxies_only(monkeypatch):
    """The server's app as uvicorn wraps it: X-Forwarded-Proto counts from a proxy the
    owner names (--trusted-proxy) only: not from the LAN, not from loopback by default (a
    program on the host cannot pass for another address), and $FORWARDED_ALLOW_IPS does
    not widen the trust."""
    from hostd.web.server import make_config

    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "*")
    behind = {"Host": "table.local", "X-Forwarded-Proto": "https"}
    config = make_config(create_app(FakeDaemon(), allowed_hosts=["table.local"]))
    config.load()
    assert not config.proxy_headers
    local = pair_through(config.loaded_app, "http://table.local", "https://table.local",
                         client=("127.0.0.1", 5000), headers=behind)
    assert local.status_code == 403 and local.json()["error"]["code"] == "cross_origin"
    config = make_config(create_app(FakeDaemon(), allowed_hosts=["table.local"]),
                         trusted_proxies=["127.0.0.1", "::1"])
    config.load()
    assert config.forwarded_allow_ips == "127.0.0.1,::1"
    lan = pair_through(config.loaded_app, "http://table.local", "https://table.local",
                       client=("192.168.1.66", 5000), headers=behind)
    assert lan.status_code == 403 and lan.json()["error"]["code"] == "cross_origin"
    lan = pair_through(config.loaded_app, "http://table.local", "http://table.local",
                       client=("192.168.1.66", 5000), headers=behind)
    assert lan.status_code == 200 and "secure" not in lan.headers["set-cookie"].lower()
    local = pair_through(config.loaded_app, "http://table.local", "https://table.local",
                         client=("127.0.0.1", 5000), headers=behind)
    assert local.status_code == 200 and "secure" in local.headers["set-cookie"].lower()
    with pytest.raises(ValueError, match="not an IP address"):
        make_config(create_app(FakeDaemon()), trusted_proxies=["localhost"])


def test_a_forged_x_forwarded_for_from_loopback_is_one_address_for_the_pairing_limit():
    """Issue 53 point 4: from loopback with a different X-Forwarded-For each time (no proxy
    named), wrong codes count against loopback's own limit: the sixth is 429."""
    from api_fuzz import ServerThread

    with ServerThread(create_app(FakeDaemon())) as base:
        with httpx.Client(base_url=base, timeout=10) as c:
            c.post("/pair/new")
            got = [c.post("/pair", json={"code": "ZZZZ-0000"},
                          headers={"Origin": base, "X-Forwarded-For": "10.1.2.%d" % i}).status_code
                   for i in range(MAX_TRIES + 1)]
    assert got == [403] * MAX_TRIES + [429]


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


# -- each browser: an id, listed, revoked, forgotten ------------------------------------------

PHONE = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
         "Chrome/124.0.0.0 Mobile Safari/537.36")
IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, "
          "like Gecko) Version/17.4 Mobile/15E148 Safari/604.1")


@pytest.mark.parametrize("agent, said", [
    (PHONE, "Chrome on Android"),
    (IPHONE, "Safari on iPhone"),
    ("Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0", "Firefox on Linux"),
    ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like "
     "Gecko) CriOS/124.0.6367.88 Mobile/15E148 Safari/604.1", "Chrome on iPhone"),
    ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
     "Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.67", "Edge on Windows"),
    ("Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) "
     "SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36", "Samsung Internet on Android"),
    ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
     "Version/17.4 Safari/605.1.15", "Safari on macOS"),
    ("curl/8.5.0", "curl/8.5.0"),
    ("x" * 100, "x" * 60),
    ("evil\x1b[2J\x07agent", "evil?[2J?agent"),  # shown on a terminal: no escape gets through
    ("", "unknown (no User-Agent)"),
    (None, "unknown (no User-Agent)"),
])
def test_a_browser_is_described_by_its_user_agent(agent, said):
    assert describe_agent(agent) == said


WALL = 1_746_123_000.0  # a wall-clock time: 2025-05-01T18:10:00+00:00


def test_each_browser_has_its_own_id_and_the_host_sees_which_is_which():
    clock, wall = Clock(), Clock(WALL)
    p = Pairing(clock, wall)
    phone = p.exchange(p.new_code(), client="192.168.1.7", agent=PHONE)
    wall.t += 60
    iphone = p.exchange(p.new_code(), client="192.168.1.8", agent=IPHONE)
    assert phone.id != iphone.id and len(phone.id) == 6
    assert phone.id not in phone.cookie and phone.id not in hashlib.sha256(
        phone.cookie.encode()).hexdigest()  # random, not derived from the cookie
    assert p.browsers() == [
        {"id": phone.id, "paired_at": "2025-05-01T18:10:00+00:00",
         "last_seen": "2025-05-01T18:10:00+00:00", "address": "192.168.1.7",
         "browser": "Chrome on Android", "expires_in": SESSION_TTL_S},
        {"id": iphone.id, "paired_at": "2025-05-01T18:11:00+00:00",
         "last_seen": "2025-05-01T18:11:00+00:00", "address": "192.168.1.8",
         "browser": "Safari on iPhone", "expires_in": SESSION_TTL_S}]
    wall.t += 600
    clock.t += 600
    assert p.touch(phone.cookie, client="192.168.1.17") == phone.id  # seen (a new address)
    assert p.touch("not-a-cookie") is None and p.touch(None) is None
    listed = {b["id"]: b for b in p.browsers()}
    assert listed[phone.id]["last_seen"] == "2025-05-01T18:21:00+00:00"
    assert listed[phone.id]["address"] == "192.168.1.17"
    assert listed[phone.id]["expires_in"] == SESSION_TTL_S - 600
    assert listed[iphone.id]["last_seen"] == "2025-05-01T18:11:00+00:00"
    # one revoked: the other stays
    assert p.revoke(" %s " % iphone.id.upper()) == iphone.id  # as typed
    assert not p.check(iphone.cookie) and p.check(phone.cookie)
    e = refused(p.revoke, iphone.id)
    assert e.status == 404 and e.code == "unknown_browser"
    assert "the paired ones: %s" % phone.id in e.message and "jantaku pair --list" in e.message
    # a browser forgets itself; then none is paired
    assert p.forget(phone.cookie) == phone.id and p.forget(phone.cookie) is None
    assert p.browsers() == [] and p.summary()["browsers"] == 0
    assert "no browser is paired" in refused(p.revoke, phone.id).message


def test_pairing_again_replaces_the_browser_session_and_old_ones_are_not_listed():
    clock = Clock()
    p = Pairing(clock)
    first = p.exchange(p.new_code(), client="192.168.1.7", agent=PHONE)
    again = p.exchange(p.new_code(), client="192.168.1.7", agent=PHONE, previous=first.cookie)
    assert again.replaced == first.id and not p.check(first.cookie)
    assert [b["id"] for b in p.browsers()] == [again.id]
    clock.t += SESSION_TTL_S + 1
    assert p.browsers() == [] and p.touch(again.cookie) is None


def log_events(buf):
    return [json.loads(line) for line in buf.getvalue().splitlines() if line.startswith("{")]


def test_the_host_lists_and_revokes_browsers_and_a_browser_forgets_itself(log_buffer):
    d = FakeDaemon()
    app = create_app(d)

    def browser(address, agent):
        transport = httpx.ASGITransport(app=app, client=(address, 5000))
        return httpx.AsyncClient(transport=transport, base_url=BASE,
                                 headers={"Origin": BASE, "User-Agent": agent})

    async def pair(host, b):
        code = (await host.post("/pair/new")).json()["code"]
        return (await b.post("/pair", json={"code": code})).json()["id"]

    async def go():
        async with client(app) as host, browser("192.168.1.7", PHONE) as phone, \
                browser("192.168.1.8", IPHONE) as iphone, browser("192.168.1.9", PHONE) as other:
            ids = {"phone": await pair(host, phone), "iphone": await pair(host, iphone)}
            got = {"listed": await host.get("/pair/browsers"),
                   "state": await phone.get("/pair"),
                   "revoked": await host.post("/pair/revoke", json={"id": ids["iphone"]}),
                   "iphone_press": await iphone.post("/hand-over"),
                   "phone_press": await phone.post("/hand-over"),
                   # a paired browser unpairs itself, never the others
                   "phone_revokes_all": await phone.post("/pair/revoke-all"),
                   "phone_lists": await phone.get("/pair/browsers"),
                   "unknown": await host.post("/pair/revoke", json={"id": ids["iphone"]}),
                   "other_state": await other.get("/pair"),
                   "forgot": await phone.post("/pair/forget"),
                   "forgot_again": await other.post("/pair/forget"),
                   "phone_after": await phone.post("/hand-over"),
                   "empty": await host.get("/pair/browsers")}
            return ids, got

    ids, got = run(go())
    listed = got["listed"].json()["browsers"]
    assert got["listed"].status_code == 200
    assert [(b["id"], b["address"], b["browser"]) for b in listed] == [
        (ids["phone"], "192.168.1.7", "Chrome on Android"),
        (ids["iphone"], "192.168.1.8", "Safari on iPhone")]
    assert set(listed[0]) == {"id", "paired_at", "last_seen", "address", "browser", "expires_in"}
    assert got["state"].json()["paired"] is True and got["state"].json()["id"] == ids["phone"]
    assert got["revoked"].json() == {"revoked": ids["iphone"]}
    assert got["iphone_press"].status_code == 401 and got["phone_press"].status_code == 200
    for refused in ("phone_revokes_all", "phone_lists"):
        assert got[refused].status_code == 403
        assert got[refused].json()["error"]["code"] == "not_from_browser"
    assert got["unknown"].status_code == 404
    err = got["unknown"].json()["error"]
    assert err["code"] == "unknown_browser" and ids["phone"] in err["message"]
    assert got["other_state"].json() == {"paired": False, "id": None, "browsers": 1,
                                         "code_open": False}
    assert got["forgot"].status_code == 200 and got["forgot"].json() == {"forgotten": True}
    cleared = got["forgot"].headers["set-cookie"].lower()
    assert cleared.startswith("jantaku_session=") and "max-age=0" in cleared
    assert "httponly" in cleared and "samesite=strict" in cleared and "path=/" in cleared
    assert got["forgot_again"].json() == {"forgotten": False}
    assert got["phone_after"].status_code == 401
    assert got["empty"].json() == {"browsers": []}
    assert [c for c in d.calls if c[0] == "hand_over"] == [("hand_over", {})]
    # the log names each browser by its id, never by its cookie
    events = [(e["event"], e.get("id"), e.get("how")) for e in log_events(log_buffer)
              if e["event"].startswith("browser_")]
    assert events == [("browser_paired", ids["phone"], None),
                      ("browser_paired", ids["iphone"], None),
                      ("browser_unpaired", ids["iphone"], "revoked"),
                      ("browser_unpaired", ids["phone"], "forgotten")]
    assert "jantaku_session=" not in log_buffer.getvalue()


def test_last_seen_moves_with_each_command_and_get_pair():
    d = FakeDaemon()
    app = create_app(d)
    wall = Clock(WALL)
    app.state.pairing.wall = wall

    async def go():
        async with client(app) as c:
            code = (await c.post("/pair/new")).json()["code"]
            await c.post("/pair", json={"code": code}, headers=ORIGIN)
            seen = [(await c.get("/pair/browsers")).json()["browsers"][0]["last_seen"]]
            wall.t += 120
            await c.post("/hand-over", headers=ORIGIN)
            seen.append((await c.get("/pair/browsers")).json()["browsers"][0]["last_seen"])
            wall.t += 60
            await c.get("/status", headers=ORIGIN)  # a read needs no pairing: not "seen"
            seen.append((await c.get("/pair/browsers")).json()["browsers"][0]["last_seen"])
            await c.get("/pair", headers=ORIGIN)
            seen.append((await c.get("/pair/browsers")).json()["browsers"][0]["last_seen"])
            return seen

    assert run(go()) == ["2025-05-01T18:10:00+00:00", "2025-05-01T18:12:00+00:00",
                         "2025-05-01T18:12:00+00:00", "2025-05-01T18:13:00+00:00"]


def test_only_programs_on_the_host_list_or_revoke_browsers():
    app = create_app(FakeDaemon(), token=TOKEN)
    auth = {"Authorization": "Bearer " + TOKEN}

    async def go():
        async with client(app) as c:
            return {"list_browser": await c.get("/pair/browsers", headers={**ORIGIN, **auth}),
                    "revoke_browser": await c.post("/pair/revoke", json={"id": "abcdef"},
                                                   headers=ORIGIN),
                    "list_no_token": await c.get("/pair/browsers"),
                    "revoke_no_token": await c.post("/pair/revoke", json={"id": "abcdef"}),
                    "list": await c.get("/pair/browsers", headers=auth),
                    "revoke": await c.post("/pair/revoke", json={"id": "abcdef"}, headers=auth)}

    got = run(go())
    for name in ("list_browser", "revoke_browser"):
        err = got[name].json()["error"]
        assert got[name].status_code == 403 and err["code"] == "not_from_browser", name
        assert "not by a browser" in err["message"] and "jantaku pair --" in err["message"]
    for name in ("list_no_token", "revoke_no_token"):
        assert got[name].status_code == 401 and "API token" in got[name].json()["error"]["message"]
    assert got["list"].json() == {"browsers": []}
    assert got["revoke"].status_code == 404
    assert "no browser is paired" in got["revoke"].json()["error"]["message"]


@pytest.mark.parametrize("body, words", [
    ({}, "id: Field required"),
    ({"id": 123}, "id: Input should be a valid string"),
    ({"id": ""}, "id: String should have at least 1 character"),
    ({"id": "abcdef", "all": True}, "all: unknown field"),
    ([], "Input should be a valid dictionary"),
])
def test_a_malformed_revoke_is_422_saying_what_is_accepted(body, words):
    async def go():
        async with client(create_app(FakeDaemon())) as c:
            return await c.post("/pair/revoke", json=body)

    r = run(go())
    assert r.status_code == 422, r.text
    err = r.json()["error"]
    assert err["code"] == "bad_request" and words in err["message"]
    assert 'accepted: {"id": "<a browser\'s id from GET /pair/browsers>"}' in err["message"]


def test_forget_from_another_origin_is_refused_and_ends_nothing():
    app = create_app(FakeDaemon())

    async def go():
        async with client(app) as c:
            code = (await c.post("/pair/new")).json()["code"]
            await c.post("/pair", json={"code": code}, headers=ORIGIN)
            evil = await c.post("/pair/forget", headers={"Origin": "http://evil.example"})
            return evil, await c.get("/pair")

    evil, state = run(go())
    assert evil.status_code == 403 and evil.json()["error"]["code"] == "cross_origin"
    assert state.json()["paired"] is True


# -- the CLI: jantaku pair --list / --revoke ID ---------------------------------------------

def test_the_cli_lists_and_revokes_browsers(capsys, log_buffer):  # (the log: not stdout)
    from api_fuzz import ServerThread

    from hostd.cli import main as cli

    app = create_app(FakeDaemon())
    with ServerThread(app) as base:
        def jantaku(*words):
            rc = cli.main(["pair", *words, "--api", base])
            out, err = capsys.readouterr()
            return rc, out, err

        assert jantaku("--list") == (0, "no browser is paired (`jantaku pair --new` makes a "
                                        "code for one)\n", "")
        with httpx.Client(base_url=base, timeout=10) as c:
            code = c.post("/pair/new").json()["code"]
            paired = c.post("/pair", json={"code": code},
                            headers={"Origin": base, "User-Agent": PHONE}).json()
        rc, out, err = jantaku("--list")
        assert rc == 0 and err == ""
        head, row, hint = out.splitlines()
        assert head.split() == ["ID", "BROWSER", "ADDRESS", "PAIRED", "LAST", "SEEN"]
        assert row.startswith(paired["id"] + "  Chrome on Android  127.0.0.1  ")
        assert head.index("ADDRESS") == row.index("127.0.0.1")  # the columns line up
        assert "jantaku pair --revoke ID" in hint
        rc, out, _ = jantaku("--list", "--json")
        assert rc == 0 and [b["id"] for b in json.loads(out)["browsers"]] == [paired["id"]]
        rc, out, err = jantaku("--revoke", "zzzzzz")
        assert rc == 1 and out == ""
        assert err == ("jantaku: no paired browser has the id 'zzzzzz'; the paired ones: %s "
                       "(`jantaku pair --list`)\n" % paired["id"])
        assert jantaku("--revoke", paired["id"]) == (
            0, "browser %s unpaired: it must pair again to press (`jantaku pair --new`)\n"
            % paired["id"], "")
        rc, out, _ = jantaku("--revoke", paired["id"], "--json")
        assert rc == 1
        rc, _, err = jantaku("--revoke", "")
        assert rc == 2 and "String should have at least 1 character" in err
    assert cli.main(["pair", "--list", "--revoke", "x"]) == 2  # one at a time
    assert "not allowed with argument" in capsys.readouterr().err


# -- paired browsers survive a restart (the journal keeps them: schema 5) ---------------------

def test_a_restarted_daemon_keeps_its_paired_browsers_and_their_times(tmp_path):
    """Pairing, then a new Pairing on the same journal (the daemon restarted, its monotonic
    clock started afresh): the cookie still presses, the host lists the same browser with
    the same id, address and times, and it expires when it would have."""
    from hostd.core.journal import Journal

    path = tmp_path / "journal.sqlite"
    wall = Clock(WALL)
    with Journal(path) as j:
        p = Pairing(Clock(5000.0), wall, store=j)
        phone = p.exchange(p.new_code(), client="192.168.1.7", agent=PHONE)
        before = p.browsers()
        stored = j.browsers()
        assert [b["digest"] for b in stored] == [hashlib.sha256(phone.cookie.encode()).hexdigest()]
        assert phone.cookie not in json.dumps(stored)  # its hash only, never the cookie
    wall.t += 3600  # an hour later, the daemon starts again
    with Journal(path) as j:
        p = Pairing(Clock(10.0), wall, store=j)
        assert p.check(phone.cookie) and p.touch(phone.cookie) == phone.id
        after = p.browsers()
        assert [(b["id"], b["address"], b["browser"], b["paired_at"]) for b in after] == [
            (b["id"], b["address"], b["browser"], b["paired_at"]) for b in before]
        assert after[0]["expires_in"] == SESSION_TTL_S - 3600
        assert after[0]["last_seen"] == "2025-05-01T19:10:00+00:00"  # the touch: kept
    wall.t += SESSION_TTL_S  # past its day: not paired, and the journal lets it go
    with Journal(path) as j:
        p = Pairing(Clock(10.0), wall, store=j)
        assert not p.check(phone.cookie) and p.browsers() == []
        assert j.browsers() == []


def test_revoke_forget_and_revoke_all_reach_the_journal(tmp_path):
    from hostd.core.journal import Journal

    path = tmp_path / "journal.sqlite"
    with Journal(path) as j:
        p = Pairing(Clock(), Clock(WALL), store=j)
        a, b, c, d = (p.exchange(p.new_code(), agent=PHONE) for _ in range(4))
        again = p.exchange(p.new_code(), agent=PHONE, previous=d.cookie)  # replaces d
        assert p.revoke(a.id) == a.id
        assert p.forget(b.cookie) == b.id
        assert {r["id"] for r in j.browsers()} == {c.id, again.id}
    with Journal(path) as j:
        p = Pairing(Clock(), Clock(WALL), store=j)
        assert [p.check(x.cookie) for x in (a, b, c, d, again)] == [False, False, True, False,
                                                                    True]
        assert p.revoke_all() == 2
    with Journal(path) as j:
        assert j.browsers() == []
        assert Pairing(Clock(), Clock(WALL), store=j).browsers() == []


def test_last_seen_reaches_the_journal_at_most_once_a_minute(tmp_path):
    """A page load touches the pairing (GET /pair): the SD card is not written at every one."""
    from hostd.core.journal import Journal
    from hostd.web.pairing import SEEN_WRITE_S

    wall = Clock(WALL)
    with Journal(tmp_path / "journal.sqlite") as j:
        writes = []
        seen = j.browser_seen
        j.browser_seen = lambda *a, **kw: (writes.append(kw["last_seen"]), seen(*a, **kw))
        p = Pairing(Clock(), wall, store=j)
        cookie = p.exchange(p.new_code()).cookie
        for _ in range(10):
            wall.t += 10
            p.touch(cookie, client="192.168.1.9")
        assert writes == [WALL + SEEN_WRITE_S]
        assert j.browsers()[0]["address"] == "192.168.1.9"


def test_a_journal_that_cannot_be_written_leaves_pairing_in_memory(tmp_path, log_buffer):
    from hostd.core.journal import Journal

    j = Journal(tmp_path / "journal.sqlite")
    j.close()  # every write now fails (JournalError)
    p = Pairing(Clock(), Clock(WALL), store=j)
    cookie = p.exchange(p.new_code()).cookie
    assert p.check(cookie)
    assert "paired_browsers_not_kept" in log_buffer.getvalue()


def test_a_version_4_journal_gains_the_browsers_table(tmp_path):
    """Schema 4 -> 5: its sessions are kept, and paired browsers can be kept from then on."""
    import sqlite3

    from hostd.core import journal as jmod

    path = str(tmp_path / "journal.sqlite")
    db = sqlite3.connect(path, isolation_level=None)
    for stmt in jmod.schema.SCHEMA:
        if "CREATE TABLE IF NOT EXISTS browsers" not in stmt:
            db.execute(stmt)
    db.execute("PRAGMA application_id=%d" % jmod.APPLICATION_ID)
    db.execute("PRAGMA user_version=4")
    db.execute("INSERT INTO sessions (ruleset, mixed_deck, sets, state, phase, created_at, "
               "ended_at) VALUES ('riichi', 1, '[\"blue\", \"green\"]', 'ended', 'built', 1.0, "
               "2.0)")
    db.close()
    with jmod.Journal(path) as j:
        assert j.schema_version == 6 == jmod.SCHEMA_VERSION
        assert j.check() == [] and j.sessions()[0]["state"] == "ended"
        p = Pairing(Clock(), Clock(WALL), store=j)
        cookie = p.exchange(p.new_code()).cookie
    with jmod.Journal(path) as j:
        assert Pairing(Clock(), Clock(WALL), store=j).check(cookie)


def test_the_api_keeps_browsers_in_the_daemons_journal(tmp_path):
    """create_app gives its pairing the daemon's journal: a browser paired with one app is
    paired with the next (the daemon restarted)."""
    from hostd.core.journal import Journal

    path = tmp_path / "journal.sqlite"

    async def pair_then_press(app, code=True):
        async with client(app) as c:
            if code:
                code = (await c.post("/pair/new")).json()["code"]
                await c.post("/pair", json={"code": code}, headers=ORIGIN)
            return c.cookies.get("jantaku_session")

    async def press(app, cookie):
        async with client(app) as c:
            c.cookies.set("jantaku_session", cookie)
            return (await c.post("/hand-over", headers=ORIGIN)).status_code

    with Journal(path) as j:
        cookie = run(pair_then_press(create_app(JournalledDaemon(j))))
    with Journal(path) as j:
        app = create_app(JournalledDaemon(j))
        assert run(press(app, cookie)) == 200
        assert run(press(app, "not-" + cookie)) == 401


class JournalledDaemon:
    """A daemon with a journal whose every command answers at once (who may press is what
    is tested)."""

    def __init__(self, journal):
        self.journal = journal


def _answer(name):
    async def command(self, **kw):
        return {"seq": 1, "next": {"code": "start_session", "params": {}, "text": "", "action": None}}
    command.__name__ = name
    return command


for _name in command_methods():
    setattr(JournalledDaemon, _name, _answer(_name))


def test_a_paired_phone_invites_another(tmp_path):
    """POST /pair/invite from a paired browser: a fresh one-time code, the page's address
    with it and its QR code; a second browser pairs with it.  Refused to a browser not
    paired (401) and when the host turned invitations off (`jantaku run --no-invite`)."""
    app = create_app(FakeDaemon())

    def client(address):
        return peer(app, address)

    async def go():
        async with client("127.0.0.1") as host, client("192.168.1.7") as first, \
                client("192.168.1.8") as second, client("192.168.1.9") as stranger:
            code = (await host.post("/pair/new")).json()["code"]
            assert (await first.post("/pair", json={"code": code}, headers=ORIGIN)).status_code == 200
            invite = await first.post("/pair/invite", headers=ORIGIN)
            refused = await stranger.post("/pair/invite", headers=ORIGIN)
            paired = await second.post("/pair", json={"code": invite.json()["code"]}, headers=ORIGIN)
            state = await second.get("/pair")
            return invite, refused, paired, state

    invite, refused, paired, state = run(go())
    assert invite.status_code == 200, invite.text
    body = invite.json()
    assert body["url"].endswith("/#pair=" + body["code"]) and body["expires_in"] > 0
    assert body["qr_svg"].startswith("<svg") and "</svg>" in body["qr_svg"]
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "not_paired"
    assert paired.status_code == 200 and state.json()["paired"] is True
    off = create_app(FakeDaemon(), invites=False)

    async def go_off():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=off, client=("127.0.0.1", 1)),
                                     base_url=BASE) as host:
            code = (await host.post("/pair/new")).json()["code"]
            await host.post("/pair", json={"code": code}, headers=ORIGIN)  # (the client keeps its cookie)
            return await host.post("/pair/invite", headers=ORIGIN)

    r = run(go_off())
    assert r.status_code == 403 and r.json()["error"]["code"] == "invites_off"


def test_history_and_scores_from_another_machine_need_pairing_by_default():
    """Issue 53 point 7: on a LAN bind, GET /history, /score and /score/export from another
    address are 401 not_paired (and the status leaves the score out) until the browser
    pairs; a program on the host reads them as before; --lan-reads open opens them."""
    d = FakeDaemon()
    d.st["session"] = {"id": 7, "ruleset": "riichi", "mixed_deck": True,
                       "sets": ["blue", "green"], "colours_checked": True, "game": 1,
                       "game_hand": 1, "hand": 1, "split": 1, "decks": {}, "games": [],
                       "builds": [], "hands": [], "faults": [], "dice": None,
                       "score": {"players": {"E": {"name": "Aiko"}}}}
    d.score = lambda game=None, session=None: {"players": {"E": {"name": "Aiko"}}}
    d.history = lambda limit=20, before=None: {"sessions": [{"id": 7}]}
    lan = ("192.168.1.66", 5000)

    async def reads(app, client, cookie=None, export=False):
        transport = httpx.ASGITransport(app=app, client=client)
        paths = ("/history", "/score") + (("/score/export",) if export else ())
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8737",
                                     cookies={"jantaku_session": cookie} if cookie else None) as c:
            out = {p: await c.get(p) for p in paths}
            out["/status"] = await c.get("/status")
            return out

    app = create_app(d, token="t" * 32, bind_host="0.0.0.0")
    got = run(reads(app, lan, export=True))  # (refused before the daemon is asked)
    for path in ("/history", "/score", "/score/export"):
        assert got[path].status_code == 401 and got[path].json()["error"]["code"] == "not_paired"
        assert "--lan-reads open" in got[path].json()["error"]["message"]
    assert got["/status"].status_code == 200 and got["/status"].json()["session"]["score"] is None
    local = run(reads(app, ("127.0.0.1", 5000)))
    assert all(r.status_code == 200 for r in local.values())
    assert local["/status"].json()["session"]["score"]["players"]["E"]["name"] == "Aiko"
    cookie = app.state.pairing.exchange(app.state.pairing.new_code(), client=lan[0]).cookie
    paired = run(reads(app, lan, cookie))
    assert all(r.status_code == 200 for r in paired.values()), paired
    assert paired["/status"].json()["session"]["score"]["players"]["E"]["name"] == "Aiko"
    opened = run(reads(create_app(d, token="t" * 32, bind_host="0.0.0.0", lan_reads="open"), lan))
    assert all(r.status_code == 200 for r in opened.values())


def test_an_unpaired_stream_from_another_machine_carries_no_names():
    """Issue 53 point 7: the event stream leaves out what names people as /status does, for
    a browser on the LAN that has not paired: no `score` events, the hello's status without
    the score, the throw's players by wind only (fields and text); a paired browser, a
    program on the host and `--lan-reads open` get every name."""
    named_throw = {"type": "dice", "hand": 1, "dice": [3, 4], "total": 7,
                   "breaker": "across", "text": "7: across",
                   "thrower_player": {"player": "E", "wind": "east", "name": "Aiko"},
                   "breaker_player": {"player": "W", "wind": "west", "name": "Ben"}}
    named_throw["text"] += "; break in front of West (Ben)"

    class Finite(FakeDaemon):  # a stream that ends, so that the ASGI client can read it all
        async def subscribe(self):
            for ev in self.events:
                yield ev

    d = Finite([{"type": "score", "game": 1, "score": {"players": {"E": {"name": "Aiko"}}}},
                named_throw, {"type": "build_done", "build": 1, "ok": True}])
    d.st["session"] = {"id": 7, "dice": named_throw,
                       "score": {"players": {"E": {"name": "Aiko"}}}}
    lan = ("192.168.1.66", 5000)

    def stream(app, client, cookie=None):
        async def go():
            async with httpx.AsyncClient(
                    transport=httpx.ASGITransport(app=app, client=client), base_url=BASE,
                    cookies={"jantaku_session": cookie} if cookie else None) as c:
                return await c.get("/events")
        r = run(go())
        assert r.status_code == 200
        return [json.loads(line[5:]) for line in r.text.splitlines() if line.startswith("data:")]

    app = create_app(d, token=TOKEN, bind_host="0.0.0.0")
    unpaired = stream(app, lan)
    assert [e["type"] for e in unpaired] == ["hello", "dice", "build_done"]
    assert unpaired[0]["status"]["session"]["score"] is None
    for throw in (unpaired[0]["status"]["session"]["dice"], unpaired[1]):
        assert throw["text"] == "7: across; break in front of West"
        assert throw["thrower_player"] == {"player": "E", "wind": "east", "name": None}
        assert throw["breaker_player"]["name"] is None
    assert "Aiko" not in json.dumps(unpaired) and "Ben" not in json.dumps(unpaired)
    cookie = app.state.pairing.exchange(app.state.pairing.new_code(), client=lan[0]).cookie
    opened = create_app(d, token=TOKEN, bind_host="0.0.0.0", lan_reads="open")
    for got in (stream(app, lan, cookie), stream(app, ("127.0.0.1", 5000)), stream(opened, lan)):
        assert [e["type"] for e in got] == ["hello", "score", "dice", "build_done"]
        assert got[2] == named_throw and got[0]["status"]["session"]["dice"] == named_throw
