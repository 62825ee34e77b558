"""hostd.web.api against a fake daemon: endpoints, bodies, tokens, origins, events, OpenAPI."""
import asyncio
import socket
import time

import httpx
import pytest

from api_fuzz import ServerThread as Server  # the daemon's server settings, on a free port
from hostd.web import api
from hostd.web.api import create_app, load_or_create_token, parse_events
from hostd.errors import BadRequest, ConfigError, NotReady, Refused
from fake_daemon import FakeDaemon
from raw_http import exchange

TOKEN = "s3cret-token-for-tests-0123456789"
BASE = "http://127.0.0.1:8737"


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
    assert h.status_code == 200 and h.json()["ok"] is True and h.json()["api"] == 2
    assert s.json()["state"]["name"] == "idle" and s.json()["next"]["code"] == "start_session"
    assert s.json()["can"] == ["start", "abort", "selftest", "calibrate", "survey"]
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
    assert a.json()["command"] == "start_session" and a.json()["seq"] == 7
    assert a.json()["next"]["code"] == "start_session"
    start = dict(replace=False, loaded=False, colours=None)
    assert d.calls == [("start_session", dict(start, ruleset="riichi", mixed_deck=True, seed=42)),
                       ("start_session", dict(start, ruleset="wsom", mixed_deck=False, seed=None)),
                       ("hand_over", {}), ("abort", {})]


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
    assert d.calls == [("start_session", dict(ruleset="riichi", mixed_deck=False, seed=None,
                                              replace=True, loaded=True, colours=None)),
                       ("end_session", {"empty": True}), ("end_session", {"empty": False}),
                       ("continue", {}), ("clear_fault", {})]


def test_a_refusal_reaches_the_caller_with_its_status_and_words():
    from hostd.table.link import TableGone

    d = FakeDaemon()
    d.raise_next = TableGone("the table is not connected (no such port): check its cable")

    async def go():
        async with client(create_app(d)) as c:
            return await c.post("/continue")

    r = run(go())
    assert r.status_code == 503
    assert r.json()["error"] == {"code": "not_connected", "message":
                                 "the table is not connected (no such port): check its cable"}


def test_a_409_carries_the_seq_it_was_judged_in_and_what_happens_next():
    from hostd.errors import NotNow

    d = FakeDaemon()
    e = NotNow("hand over is not possible now (building)", state="building")
    e.details.update(seq=12, next=d.st["next"])
    d.raise_next = e

    async def go():
        async with client(create_app(d)) as c:
            return await c.post("/hand-over")

    r = run(go())
    err = r.json()["error"]
    assert r.status_code == 409 and err["code"] == "building" and err["seq"] == 12
    assert err["next"]["code"] == "start_session"


def test_an_unknown_field_is_refused_by_every_command_even_one_without_a_body():
    d = FakeDaemon()

    async def go():
        async with client(create_app(d)) as c:
            return [await c.post(path, json={"a": 1}) for path in
                    ("/continue", "/hand-over", "/abort", "/game", "/clear-fault", "/dice")]

    for r in run(go()):
        assert r.status_code == 422 and "a: unknown field" in r.json()["error"]["message"]
    assert d.calls == []


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


def test_same_origin_browser_needs_pairing_then_may_press():
    d = FakeDaemon()
    app = create_app(d)

    async def go():
        async with client(app) as c:
            before = await c.post("/hand-over", headers={"Origin": BASE})
            code = (await c.post("/pair/new")).json()["code"]
            paired = await c.post("/pair", json={"code": code}, headers={"Origin": BASE})
            after = await c.post("/hand-over", headers={"Origin": BASE})
            return before, paired, after

    before, paired, after = run(go())
    assert before.status_code == 401 and before.json()["error"]["code"] == "not_paired"
    assert "jantaku pair --new" in before.json()["error"]["message"]
    assert paired.status_code == 200
    assert after.status_code == 200
    no_cors(after)


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
    assert run(go(app, "http://192.168.1.20:8737")).status_code == 200  # an address: no rebinding
    assert run(go(app, "http://localhost:8737")).status_code == 200
    app = create_app(FakeDaemon(), token=TOKEN, bind_host="0.0.0.0", allowed_hosts=["table.lan"])
    assert run(go(app, "http://table.lan:8737")).status_code == 200
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
                ("post", "/game"), ("post", "/dice"), ("get", "/events")}
    got = {(m, p) for p, ops in doc["paths"].items() for m in ops}
    assert expected <= got
    assert "text/event-stream" in doc["paths"]["/events"]["get"]["responses"]["200"]["content"]
    for p in ("/session", "/hand-over", "/abort", "/session/end", "/continue", "/clear-fault",
              "/game", "/dice"):
        assert "security" not in doc["paths"][p]["post"]  # this daemon has no token
    assert "securitySchemes" not in doc.get("components", {})
    schema = doc["components"]["schemas"]["StartRequest"]
    assert set(schema["properties"]) == {"ruleset", "mixed_deck", "seed", "replace", "loaded",
                                         "colours"}
    assert schema["required"] == ["ruleset"]


def test_openapi_describes_the_one_status():
    async def go():
        async with client(create_app(FakeDaemon())) as c:
            return (await c.get("/openapi.json")).json()

    doc = run(go())
    schemas = doc["components"]["schemas"]
    ref = doc["paths"]["/status"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    status = schemas[ref["$ref"].rsplit("/", 1)[1]]
    assert {"state", "next", "can", "fault", "table", "session"} <= set(status["properties"])
    from hostd.core.codes import NEXT
    from hostd.core.commands import NAMES
    from hostd.core.state import STATES

    assert schemas["NextOut"]["properties"]["code"]["enum"] == list(NEXT)
    assert schemas["StateOut"]["properties"]["name"]["enum"] == list(STATES)
    assert status["properties"]["can"]["items"]["enum"] == list(NAMES)
    # every command's answer is the Answer (seq, next), and a 409 is documented
    for path in ("/session", "/hand-over", "/dice", "/continue", "/clear-fault", "/game",
                 "/session/end", "/abort", "/selftest", "/calibrate", "/name-sets"):
        op = doc["paths"][path]["post"]
        ok = op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
        assert ok.endswith("/Answer") and "409" in op["responses"], path


def test_openapi_links_start_to_status_to_commands_and_documents_every_refusal():
    async def go():
        async with client(create_app(FakeDaemon())) as c:
            return (await c.get("/openapi.json")).json()

    doc = run(go())
    from hostd.core.commands import COMMANDS

    ops = {op["operationId"]: (path, method, op) for path, item in doc["paths"].items()
           for method, op in item.items()}
    links = {k: ops[k][2]["responses"]["200"].get("links", {}) for k in ops}
    assert links["start"]["status"]["operationId"] == "status"
    assert links["start"]["history"] == {"operationId": "history", "description": links[
        "start"]["history"]["description"], "parameters": {"before": "$response.body#/id"}}
    assert {v["operationId"] for v in links["status"].values()} == {c.name for c in COMMANDS}
    for c in COMMANDS:
        assert links[c.name]["status"]["operationId"] == "status"
    for target in {v["operationId"] for ls in links.values() for v in ls.values()}:
        assert target in ops  # every link names an operation of the document
    for name, (path, method, op) in ops.items():
        documented = set(op["responses"])
        assert {"200", "403", "431", "503"} <= documented, (path, method)
        assert "Retry-After" in op["responses"]["503"]["headers"]
        if method == "post":
            assert {"400", "408", "413", "415", "422"} <= documented, path
        if path in ("/session", "/abort", "/dice"):
            assert {"401", "409"} <= documented, path
    assert "too_many_streams" in doc["paths"]["/events"]["get"]["responses"]["503"]["description"]
    assert "422" in doc["paths"]["/history"]["get"]["responses"]
    for name, (path, method, op) in ops.items():  # a 422 is the API's error shape everywhere
        if "422" in op["responses"]:
            assert op["responses"]["422"]["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/ErrorResponse"}, (path, method)


# -- server-sent events over a real server --------------------------------------------------

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
    assert got[0]["status"]["state"]["name"] == "idle" and got[0]["api"] == 2


def test_parse_events_skips_comments():
    lines = [": ping", "", "data: {\"type\": \"a\"}", "", "data: {\"type\":", "data: \"b\"}", ""]
    assert list(parse_events(lines)) == [{"type": "a"}, {"type": "b"}]


def test_is_loopback():
    assert api.is_loopback("127.0.0.1") and api.is_loopback("::1") and api.is_loopback("localhost")
    assert not api.is_loopback("0.0.0.0") and not api.is_loopback("192.168.1.2")
    assert not api.is_loopback("table.local")


# -- issue 14: strict bodies, limits, hosts, OpenAPI, streams, logs -------------------------

def post_raw(app, path, content, headers=None):
    async def go():
        async with client(app) as c:
            return await c.post(path, content=content, headers=headers or {})

    return run(go())


@pytest.mark.parametrize("body, field", [
    ({"ruleset": "riichi", "mixed_deck": "yes"}, "mixed_deck"),
    ({"ruleset": "riichi", "mixed_deck": "on"}, "mixed_deck"),
    ({"ruleset": "riichi", "mixed_deck": 1}, "mixed_deck"),
    ({"ruleset": "riichi", "seed": "42"}, "seed"),
    ({"ruleset": "riichi", "seed": True}, "seed"),
    ({"ruleset": "riichi", "seed": 42.0}, "seed"),
    ({"ruleset": 5}, "ruleset"),
])
def test_loose_values_are_refused(body, field):
    d = FakeDaemon()

    async def go():
        async with client(create_app(d)) as c:
            return await c.post("/session", json=body)

    r = run(go())
    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"] == "bad_request" and field in r.json()["error"]["message"]
    assert d.calls == []


@pytest.mark.parametrize("content, words", [
    (b'{"ruleset": "riichi", "ruleset": "wsom"}', "'ruleset' is given twice"),
    (b"[" * 30000 + b"]" * 30000, "nested too deep"),
    (b'{"ruleset": "riichi", "seed": ' + b"9" * 5000 + b"}", "digits"),
    (b'{"ruleset": "ri\xffchi"}', "invalid UTF-8"),
    (b'{"ruleset": "riichi", "seed": NaN}', "NaN"),
    (b'{ruleset: riichi', "line 1"),
])
def test_bad_json_is_400_bad_json(content, words):
    d = FakeDaemon()
    r = post_raw(create_app(d), "/session", content, {"content-type": "application/json"})
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert err["code"] == "bad_json" and words in err["message"], err
    assert d.calls == []


def test_a_body_not_sent_as_json_gets_a_hint():
    for headers in ({}, {"content-type": "application/x-www-form-urlencoded"}):
        r = post_raw(create_app(FakeDaemon()), "/session", b'{"ruleset": "riichi"}', headers)
        assert r.status_code == 415, r.text
        err = r.json()["error"]
        assert err["code"] == "not_json"
        assert "Content-Type: application/json" in err["message"] and "accepted" in err["message"]
    r = post_raw(create_app(FakeDaemon()), "/session", b"", {})
    assert r.status_code == 422 and "JSON body is needed" in r.json()["error"]["message"]


def test_head_health_and_no_slash_redirect():
    async def go():
        async with client(create_app(FakeDaemon())) as c:
            return await c.head("/health"), await c.get("/status/", headers={"Host": "evil.example"}), \
                await c.get("/status/")

    head, evil, slash = run(go())
    assert head.status_code == 200 and head.content == b""
    assert evil.status_code == 403  # the Host check first
    assert slash.status_code == 404 and "location" not in slash.headers


def test_docs_pages_load_nothing_from_outside():
    import re

    async def go():
        async with client(create_app(FakeDaemon())) as c:
            pages = [await c.get(p) for p in ("/docs", "/redoc")]
            urls = set()
            for page in pages:
                urls |= set(re.findall(r'(?:src|href)=["\']([^"\']+)["\']', page.text))
                urls |= set(re.findall(r"url: ?['\"]([^'\"]+)['\"]", page.text))
            assets = {u: await c.get(u) for u in urls if u.startswith("/")}
            return pages, urls, assets

    pages, urls, assets = run(go())
    for page in pages:
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        assert "http://" not in page.text and "https://" not in page.text, page.text
    assert all(u.startswith("/") for u in urls), urls  # nothing from a CDN
    assert {"/docs-assets/swagger-ui-bundle.js", "/docs-assets/redoc.standalone.js",
            "/docs-assets/swagger-ui.css", "/openapi.json"} <= set(assets)
    for u, r in assets.items():
        assert r.status_code == 200 and len(r.content) > 100, u


def test_openapi_declares_the_token_only_when_configured_and_the_400():
    async def go(app):
        async with client(app) as c:
            return (await c.get("/openapi.json")).json()

    doc = run(go(create_app(FakeDaemon(), token=TOKEN)))
    assert doc["paths"]["/session"]["post"]["security"] == [{"HTTPBearer": []}]
    assert {"400", "401", "403", "413", "415", "422"} <= set(doc["paths"]["/session"]["post"]["responses"])
    assert "unknown ruleset" in doc["paths"]["/session"]["post"]["responses"]["400"]["description"]
    assert "head" in doc["paths"]["/health"]


def test_wildcard_bind_reads_need_an_allowed_host_or_the_token():
    d = FakeDaemon()
    app = create_app(d, token=TOKEN, bind_host="0.0.0.0", allowed_hosts=["table.lan"])

    async def go():
        async with client(app, base="http://evil.example:8737") as c:
            h = {"Origin": "http://evil.example:8737"}
            return [await c.get("/status", headers=h), await c.get("/events", headers=h),
                    await c.get("/status", headers={"Authorization": "Bearer " + TOKEN})]

    status, events, with_token = run(go())
    for r in (status, events):
        assert r.status_code == 403 and r.json()["error"]["code"] == "bad_host"
        assert "--allow-host NAME" in r.json()["error"]["message"]
    assert with_token.status_code == 200
    assert not d.subscribed.is_set()


def test_refused_origin_is_logged_cut(capsys):
    from hostd import logging as jlog

    jlog.configure("info", json=True)
    try:
        async def go():
            async with client(create_app(FakeDaemon())) as c:
                return await c.get("/status", headers={"Origin": "http://x" + "a" * 60000})

        r = run(go())
    finally:
        structlog_reset()
    assert r.status_code == 403 and len(r.text) < 1000
    err = capsys.readouterr().err
    assert "cross_origin_refused" in err and len(err) < 2000


def structlog_reset():
    from hostd import logging as jlog

    jlog.unconfigure()


def test_token_file_checks(tmp_path):
    p = tmp_path / "api-token"
    p.write_text(TOKEN + "\n")
    p.chmod(0o644)
    with pytest.raises(ConfigError, match="readable by others.*chmod 600"):
        load_or_create_token(p)
    p.chmod(0o600)
    assert load_or_create_token(p) == (TOKEN, False)
    p.write_text("short\n")
    with pytest.raises(ConfigError, match="5 characters: a token is one line of at least 16"):
        load_or_create_token(p)


# -- over a real server: size limits, slow clients, resets ----------------------------------

def test_a_body_declared_over_1_mib_is_413_unread_and_the_connection_closed():
    d = FakeDaemon()
    with Server(create_app(d)) as base:
        port = int(base.rsplit(":", 1)[1])
        head = (b"POST /session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: 300000000\r\n\r\n")
        t0 = time.monotonic()
        got = exchange(port, head + b"{" * 1000)
        assert time.monotonic() - t0 < 3  # answered and closed, not waiting for 300 MB
        assert got.startswith(b"HTTP/1.1 413") and b"too_large" in got
        assert b"connection: close" in got.lower()
        chunked = (b"POST /session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                   b"Transfer-Encoding: chunked\r\n\r\n")
        chunk = b"%x\r\n%s\r\n" % (65536, b" " * 65536)
        got = exchange(port, chunked + chunk * 17 + b"0\r\n\r\n")
        assert got.startswith(b"HTTP/1.1 413"), got[:200]
    assert d.calls == []


def test_slow_headers_time_out(monkeypatch):
    from hostd.web import server

    monkeypatch.setattr(server.GuardedH11Protocol, "header_timeout_s", 0.5)
    with Server(create_app(FakeDaemon())) as base:
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(b"GET /health HTTP/1.1\r\nHo")
            t0 = time.monotonic()
            assert s.recv(100) == b""  # closed by the server
            assert time.monotonic() - t0 < 3
        assert httpx.get(base + "/health").status_code == 200  # a whole request is fine
    assert server.HEADER_TIMEOUT_S == 10.0


def test_connections_are_capped_and_the_rest_kept_for_an_abort(monkeypatch):
    from hostd.web import server

    monkeypatch.setattr(server.GuardedH11Protocol, "max_connections", 5)
    monkeypatch.setattr(server.GuardedH11Protocol, "abort_reserve", 1)
    with Server(create_app(FakeDaemon())) as base:
        port = int(base.rsplit(":", 1)[1])
        held = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(5)]
        try:
            time.sleep(0.2)
            with socket.create_connection(("127.0.0.1", port), timeout=5) as extra:
                extra.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                got = extra.recv(1000)  # kept for an abort: anything else is 503, closed
                assert got.startswith(b"HTTP/1.1 503") and b"retry-after: 5" in got
            with socket.create_connection(("127.0.0.1", port), timeout=5) as a, \
                    socket.create_connection(("127.0.0.1", port), timeout=5) as b:
                time.sleep(0.1)  # the reserve (1) full with `a`: `b` takes its place
                b.sendall(b"POST /abort HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n")
                assert b.recv(1000).startswith(b"HTTP/1.1 200")
                assert a.recv(100) == b""  # closed
        finally:
            for s in held:
                s.close()
        time.sleep(0.2)
        assert httpx.get(base + "/health").status_code == 200


def test_reset_event_clients_leave_no_subscriber_and_no_secret_in_the_log(capfd):
    import struct

    from hostd import logging as jlog

    class Daemon(FakeDaemon):
        def __init__(self):
            super().__init__()
            self.queues = set()

        async def subscribe(self):
            q = asyncio.Queue()
            self.queues.add(q)
            try:
                while True:
                    yield await q.get()
            finally:
                self.queues.discard(q)

        def status(self):
            return {"table": {"connected": True}, "blob": "x" * 20000}

    d = Daemon()
    jlog.configure("debug", json=True)
    jlog.add_secret(TOKEN)
    app = create_app(d, token=TOKEN, bind_host="0.0.0.0")
    try:
        with Server(app) as base:
            port = int(base.rsplit(":", 1)[1])
            for i in range(30):
                s = socket.create_connection(("127.0.0.1", port), timeout=5)
                s.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                          + TOKEN.encode() + b"\r\n\r\n")
                if i % 2:
                    s.recv(10)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                s.close()  # a reset, not a goodbye
            for _ in range(5):  # more abuse: bad tokens, bad bodies, a bad Origin
                httpx.post(base + "/session", content=b'{"ruleset": 1}',
                           headers={"Authorization": "Bearer " + TOKEN, "content-type": "application/json"})
                httpx.get(base + "/status", headers={"Origin": "http://evil", "Authorization": "Bearer " + TOKEN})
            deadline = time.time() + 10
            while d.queues and time.time() < deadline:
                time.sleep(0.05)
            assert not d.queues, "%d subscribers left after their clients reset" % len(d.queues)
    finally:
        structlog_reset()
    out, err = capfd.readouterr()
    assert TOKEN not in out + err
    assert "Exception in ASGI application" not in err
    assert '"level": "error"' not in err


@pytest.mark.parametrize("exc_name", ["ClientDisconnected", "ConnectionResetError", "ClientDisconnect"])
def test_a_client_leaving_mid_stream_is_not_an_error(exc_name, capsys):
    """The server's send fails once the client is gone: the request ends quietly, the
    subscription is closed, nothing is raised to the server (which would log a traceback)."""
    from starlette.requests import ClientDisconnect
    from uvicorn.protocols.utils import ClientDisconnected

    exc = {"ClientDisconnected": ClientDisconnected, "ConnectionResetError": ConnectionResetError,
           "ClientDisconnect": ClientDisconnect}[exc_name]
    d = FakeDaemon([{"type": "build_started", "build": 1}] * 3)
    app = create_app(d)
    scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"}, "http_version": "1.1",
             "method": "GET", "scheme": "http", "path": "/events", "raw_path": b"/events",
             "root_path": "", "query_string": b"", "headers": [(b"host", b"127.0.0.1:8737")],
             "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8737), "state": {}}
    sent = []

    async def receive():
        await asyncio.Event().wait()

    async def send(message):
        sent.append(message)
        if message["type"] == "http.response.body" and len(sent) > 2:
            raise exc()

    asyncio.run(asyncio.wait_for(app(scope, receive, send), 10))  # returns, raises nothing
    assert sent[0]["status"] == 200
    assert d.open_streams == 0 and d.unsubscribed.is_set()


def test_history_takes_a_limit_and_a_page_and_refuses_nonsense():
    d = FakeDaemon()

    async def go():
        async with client(create_app(d)) as c:
            ok = await c.get("/history?limit=5&before=9")
            bad = [await c.get("/history?" + q) for q in (
                "limit=0", "limit=1001", "before=%d" % 2 ** 63, "before=0", "before=1e3",
                "before=" + "9" * 5000)]
            return ok, bad

    ok, bad = run(go())
    assert ok.status_code == 200 and ok.json() == {"sessions": [], "keep_days": 90}
    assert d.calls == [("history", 5, 9)]  # nothing else reached the daemon
    for r, field in zip(bad, ("limit", "limit", "before", "before", "before", "before")):
        err = r.json()["error"]
        assert r.status_code == 422 and err["code"] == "bad_request", r.text
        assert err["message"].startswith("query.%s: " % field), err["message"]
        assert "accepted: ?limit=1..1000 (sessions, default 20) and ?before=1..%d" \
            % (2 ** 63 - 1) in err["message"]
