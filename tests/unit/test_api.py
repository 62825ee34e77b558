"""hostd.api against a fake daemon: endpoints, bodies, tokens, origins, events, OpenAPI."""
import asyncio
import socket
import threading
import time

import httpx
import pytest
import uvicorn

from hostd import api
from hostd.api import create_app, load_or_create_token, parse_events
from hostd.errors import BadRequest, ConfigError, NotReady, Refused

TOKEN = "s3cret-token-for-tests-0123456789"
BASE = "http://127.0.0.1:8737"


class FakeDaemon:
    def __init__(self, events=()):
        self.calls = []
        self.raise_next = None
        self.events = list(events)
        self.subscribed = threading.Event()
        self.unsubscribed = threading.Event()
        self.open_streams = 0

    def status(self):
        return {"state": "idle", "table": {"connected": True}, "session": None}

    def rulesets(self):
        return [{"name": "riichi", "tiles": 136}, {"name": "wsom", "tiles": 136}]

    async def _cmd(self, name, *args):
        self.calls.append((name,) + args)
        if self.raise_next is not None:
            exc, self.raise_next = self.raise_next, None
            raise exc
        return {"ok": True, "command": name}

    async def start_session(self, ruleset, mixed_deck, seed, *, replace=False, loaded=False):
        if replace or loaded:
            return await self._cmd("start_session", ruleset, mixed_deck, seed, replace, loaded)
        return await self._cmd("start_session", ruleset, mixed_deck, seed)

    async def end_session(self, *, empty=False):
        return await self._cmd("end_session", empty)

    async def continue_(self):
        return await self._cmd("continue")

    async def clear_fault(self):
        return await self._cmd("clear_fault")

    async def hand_over(self):
        return await self._cmd("hand_over")

    async def abort(self):
        return await self._cmd("abort")

    async def subscribe(self):
        self.open_streams += 1
        self.subscribed.set()
        try:
            for ev in self.events:
                yield ev
            await asyncio.Event().wait()  # then nothing more, until the client leaves
        finally:
            self.open_streams -= 1
            self.unsubscribed.set()


def client(app, base=BASE, raise_app_exceptions=True):
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=raise_app_exceptions)
    return httpx.AsyncClient(transport=transport, base_url=base)


def run(coro):
    return asyncio.run(coro)


def no_cors(resp):
    assert not [h for h in resp.headers if h.lower().startswith("access-control-")], resp.headers


# -- plain endpoints ------------------------------------------------------------------------

def test_read_endpoints():
    d = FakeDaemon()

    async def go():
        async with client(create_app(d)) as c:
            h = await c.get("/health")
            s = await c.get("/status")
            r = await c.get("/rulesets")
            return h, s, r

    h, s, r = run(go())
    assert h.status_code == 200 and h.json()["ok"] is True and h.json()["api"] == 1
    assert s.json()["state"] == "idle"
    assert [x["name"] for x in r.json()] == ["riichi", "wsom"]
    for resp in (h, s, r):
        no_cors(resp)


def test_commands_on_loopback_without_token():
    d = FakeDaemon()

    async def go():
        async with client(create_app(d)) as c:
            a = await c.post("/session", json={"ruleset": "riichi", "mixed_deck": True, "seed": 42})
            b = await c.post("/session", json={"ruleset": "wsom"})
            h = await c.post("/hand-over")
            x = await c.post("/abort")
            return a, b, h, x

    a, b, h, x = run(go())
    assert [r.status_code for r in (a, b, h, x)] == [200] * 4
    assert a.json() == {"ok": True, "command": "start_session"}
    assert d.calls == [("start_session", "riichi", True, 42), ("start_session", "wsom", False, None),
                       ("hand_over",), ("abort",)]


def test_lifecycle_commands_reach_the_daemon():
    d = FakeDaemon()

    async def go():
        async with client(create_app(d)) as c:
            return [await c.post("/session", json={"ruleset": "riichi", "replace": True,
                                                    "loaded": True}),
                    await c.post("/session/end", json={"empty": True}),
                    await c.post("/session/end"),
                    await c.post("/continue"),
                    await c.post("/clear-fault"),
                    await c.post("/session/end", json={"empty": "yes"})]

    rs = run(go())
    assert [r.status_code for r in rs] == [200] * 5 + [422]
    assert d.calls == [("start_session", "riichi", False, None, True, True),
                       ("end_session", True), ("end_session", False), ("continue",),
                       ("clear_fault",)]


def test_a_refusal_reaches_the_caller_with_its_status_and_words():
    from hostd.link import TableGone

    d = FakeDaemon()
    d.raise_next = TableGone("the table is not connected (no such port): check its cable")

    async def go():
        async with client(create_app(d)) as c:
            return await c.post("/continue")

    r = run(go())
    assert r.status_code == 503
    assert r.json()["error"] == {"code": "not_connected", "message":
                                 "the table is not connected (no such port): check its cable"}


@pytest.mark.parametrize("body, status, words", [
    ({}, 422, ["ruleset", "Field required"]),
    ({"ruleset": "riichi", "seed": "abc"}, 422, ["seed", "integer"]),
    ({"ruleset": "riichi", "seed": -1}, 422, ["seed", "greater than or equal to 0"]),
    ({"ruleset": "riichi", "seed": 2 ** 64}, 422, ["seed"]),
    ({"ruleset": "riichi", "mixed_deck": "perhaps"}, 422, ["mixed_deck", "boolean"]),
    ({"ruleset": "riichi", "colour": "red"}, 422, ["colour", "unknown field"]),
    ({"ruleset": ""}, 422, ["ruleset"]),
])
def test_bad_bodies_say_what_is_wrong_and_accepted(body, status, words):
    d = FakeDaemon()

    async def go():
        async with client(create_app(d)) as c:
            return await c.post("/session", json=body)

    r = run(go())
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert err["code"] == "bad_request"
    for w in words:
        assert w in err["message"], err["message"]
    assert "accepted:" in err["message"] and '"mixed_deck"' in err["message"]
    assert d.calls == []


def test_invalid_json_is_400():
    async def go():
        async with client(create_app(FakeDaemon())) as c:
            return await c.post("/session", content=b"{ruleset: riichi",
                                headers={"content-type": "application/json"})

    r = run(go())
    assert r.status_code == 400
    assert r.json()["error"]["code"] == "bad_json" and "accepted" in r.json()["error"]["message"]


@pytest.mark.parametrize("exc, status, code", [
    (NotReady("a build is under way: wait for it"), 409, "not_ready"),
    (Refused("wall of 22 stacks; this table holds 18"), 422, "refused"),
    (BadRequest("unknown ruleset 'xx'; accepted: riichi, wsom"), 400, "bad_request"),
    (NotReady("busy", code="building"), 409, "building"),
    (RuntimeError("kaboom"), 500, "internal"),
])
def test_daemon_errors_become_json(exc, status, code):
    d = FakeDaemon()
    d.raise_next = exc

    async def go():
        async with client(create_app(d), raise_app_exceptions=False) as c:
            return await c.post("/hand-over")

    r = run(go())
    assert r.status_code == status
    assert r.json()["error"]["code"] == code
    if status != 500:
        assert r.json()["error"]["message"] == str(exc)
    else:
        assert "kaboom" not in r.text  # no internals leaked


def test_unknown_path_and_method_use_the_error_shape():
    async def go():
        async with client(create_app(FakeDaemon())) as c:
            return await c.get("/nope"), await c.get("/hand-over")

    nope, method = run(go())
    assert nope.status_code == 404 and nope.json()["error"]["code"] == "not_found"
    assert "openapi.json" in nope.json()["error"]["message"]
    assert method.status_code == 405 and method.json()["error"]["code"] == "method_not_allowed"


# -- tokens ---------------------------------------------------------------------------------

def test_non_loopback_bind_without_token_refuses_to_start():
    with pytest.raises(ConfigError) as e:
        create_app(FakeDaemon(), bind_host="0.0.0.0")
    assert "without a token" in str(e.value)
    with pytest.raises(ConfigError):
        create_app(FakeDaemon(), bind_host="192.168.1.20", token="")
    with pytest.raises(ConfigError, match="16 characters"):
        create_app(FakeDaemon(), bind_host="0.0.0.0", token="short")
    for host in ("127.0.0.1", "::1", "localhost", "127.0.1.1"):
        create_app(FakeDaemon(), bind_host=host)


@pytest.mark.parametrize("bind", ["0.0.0.0", "127.0.0.1"])
def test_motor_commands_need_the_token(bind):
    d = FakeDaemon()
    app = create_app(d, token=TOKEN, bind_host=bind)

    async def go():
        out = {}
        async with client(app) as c:
            for path in ("/session", "/hand-over", "/abort"):
                body = {"ruleset": "riichi"} if path == "/session" else None
                out[path] = [
                    await c.post(path, json=body),
                    await c.post(path, json=body, headers={"Authorization": "Bearer wrong-token"}),
                    await c.post(path, json=body, headers={"Authorization": "Basic dXNlcjpwdw=="}),
                    await c.post(path, json=body, headers={"Authorization": "Bearer " + TOKEN}),
                ]
            out["status"] = await c.get("/status")
        return out

    out = run(go())
    for path in ("/session", "/hand-over", "/abort"):
        none, wrong, basic, good = out[path]
        assert none.status_code == 401, none.text
        assert none.headers["www-authenticate"] == "Bearer"
        assert "needs the API token" in none.json()["error"]["message"]
        assert wrong.status_code == 403 and wrong.json()["error"]["message"] == "API token refused"
        assert basic.status_code == 403
        assert good.status_code == 200
    assert out["status"].status_code == 200  # reading needs no token
    assert len(d.calls) == 3  # only the three with the right token reached the daemon


def test_load_or_create_token(tmp_path):
    p = tmp_path / "api-token"
    tok, created = load_or_create_token(p)
    assert created and len(tok) >= 32
    assert (p.stat().st_mode & 0o777) == 0o600
    assert load_or_create_token(p) == (tok, False)
    p.write_text("\n")
    with pytest.raises(ConfigError, match="empty"):
        load_or_create_token(p)


# -- browsers: origins and hosts ------------------------------------------------------------

@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:9999",
                                    "https://127.0.0.1:8737", "http://localhost:8737"])
def test_cross_origin_refused_everywhere(origin):
    d = FakeDaemon()
    app = create_app(d, token=TOKEN, bind_host="0.0.0.0")

    async def go():
        h = {"Origin": origin, "Authorization": "Bearer " + TOKEN}
        async with client(app) as c:
            return [
                await c.post("/session", json={"ruleset": "riichi"}, headers=h),
                await c.post("/hand-over", headers=h),
                await c.get("/status", headers=h),
                await c.get("/events", headers=h),
                await c.options("/session", headers=dict(h, **{
                    "Access-Control-Request-Method": "POST"})),
            ]

    for r in run(go()):
        assert r.status_code == 403, (r.request.url, r.text)
        assert r.json()["error"]["code"] == "cross_origin"
        no_cors(r)
    assert d.calls == [] and not d.subscribed.is_set()


def test_same_origin_allowed():
    d = FakeDaemon()

    async def go():
        async with client(create_app(d)) as c:
            return await c.post("/hand-over", headers={"Origin": BASE})

    r = run(go())
    assert r.status_code == 200
    no_cors(r)


def test_dns_rebinding_host_refused_on_loopback():
    d = FakeDaemon()

    async def go():
        async with client(create_app(d), base="http://rebind.evil.example:8737") as c:
            return [await c.get("/status"),
                    await c.post("/hand-over", headers={"Origin": "http://rebind.evil.example:8737"})]

    for r in run(go()):
        assert r.status_code == 403 and r.json()["error"]["code"] == "bad_host"
    assert d.calls == []


def test_allowed_hosts_and_wildcard():
    async def go(app, base):
        async with client(app, base=base) as c:
            return await c.get("/status")

    app = create_app(FakeDaemon(), token=TOKEN, bind_host="192.168.1.20", allowed_hosts=["table.local"])
    assert run(go(app, "http://table.local:8737")).status_code == 200
    assert run(go(app, "http://192.168.1.20:8737")).status_code == 200
    assert run(go(app, "http://other.local:8737")).status_code == 403
    app = create_app(FakeDaemon(), token=TOKEN, bind_host="0.0.0.0")
    assert run(go(app, "http://anything.lan:8737")).status_code == 200
    app = create_app(FakeDaemon(), bind_host="::1")
    assert run(go(app, "http://[::1]:8737")).status_code == 200


# -- OpenAPI --------------------------------------------------------------------------------

def test_openapi_lists_every_endpoint():
    async def go():
        async with client(create_app(FakeDaemon())) as c:
            return await c.get("/openapi.json")

    r = run(go())
    assert r.status_code == 200
    doc = r.json()
    expected = {("get", "/health"), ("get", "/status"), ("get", "/rulesets"),
                ("post", "/session"), ("post", "/hand-over"), ("post", "/abort"),
                ("post", "/session/end"), ("post", "/continue"), ("post", "/clear-fault"),
                ("get", "/events")}
    got = {(m, p) for p, ops in doc["paths"].items() for m in ops}
    assert expected <= got
    assert "text/event-stream" in doc["paths"]["/events"]["get"]["responses"]["200"]["content"]
    for p in ("/session", "/hand-over", "/abort", "/session/end", "/continue", "/clear-fault"):
        assert doc["paths"][p]["post"]["security"] == [{"HTTPBearer": []}]
    schema = doc["components"]["schemas"]["SessionRequest"]
    assert set(schema["properties"]) == {"ruleset", "mixed_deck", "seed", "replace", "loaded"}
    assert schema["required"] == ["ruleset"]


# -- server-sent events over a real server --------------------------------------------------

class Server:
    def __init__(self, app):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", log_config=None))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)

    def __enter__(self):
        self.thread.start()
        deadline = time.time() + 10
        while not self.server.started:
            assert time.time() < deadline, "uvicorn did not start"
            time.sleep(0.02)
        return "http://127.0.0.1:%d" % self.port

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


def test_events_stream_and_cleanup_on_disconnect():
    events = [
        {"type": "build_started", "build": 1, "deck": "A"},
        {"type": "some_future_type", "x": 1},  # passed on: clients ignore unknown types
        {"no": "type"},  # dropped: not an event
        {"type": "build_done", "build": 1, "ok": True},
    ]
    d = FakeDaemon(events)
    app = create_app(d)
    with Server(app) as base:
        with httpx.Client(base_url=base, timeout=10) as c:
            with c.stream("GET", "/events") as r:
                assert r.status_code == 200
                assert r.headers["content-type"].startswith("text/event-stream")
                no_cors(r)
                got = []
                for ev in parse_events(r.iter_lines()):
                    got.append(ev)
                    if ev["type"] == "build_done":
                        break
        # the client has gone: the daemon's iterator must have been closed
        assert d.unsubscribed.wait(10), "subscription not cleaned up after disconnect"
        assert d.open_streams == 0
        # and the server still serves
        assert httpx.get(base + "/health").status_code == 200
    assert [e["type"] for e in got] == ["hello", "build_started", "some_future_type", "build_done"]
    assert got[0]["status"]["state"] == "idle" and got[0]["api"] == 1


def test_parse_events_skips_comments():
    lines = [": ping", "", "data: {\"type\": \"a\"}", "", "data: {\"type\":", "data: \"b\"}", ""]
    assert list(parse_events(lines)) == [{"type": "a"}, {"type": "b"}]


def test_is_loopback():
    assert api.is_loopback("127.0.0.1") and api.is_loopback("::1") and api.is_loopback("localhost")
    assert not api.is_loopback("0.0.0.0") and not api.is_loopback("192.168.1.2")
    assert not api.is_loopback("table.local")
