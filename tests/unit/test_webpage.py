"""hostd.web.webpage: the table's page and its assets, served by the API with a 'self'-only
Content-Security-Policy, every file in the package, nothing from another origin.
(The page itself, in a real browser: tests/e2e/test_page_e2e.py.)"""
import asyncio
import fnmatch
import html.parser
import os
import re
import tomllib

import httpx

from hostd.web import webpage
from hostd.web.api import create_app
from tests.conftest import ROOT
from tests.unit.fake_daemon import command_methods

BASE = "http://127.0.0.1:8737"


class Daemon:
    """The page's routes never call the daemon (its commands are routes of the API)."""


def _never(name):
    async def command(self, **kw):
        raise AssertionError("the page's routes called the daemon's %s" % name)
    return command


for _name in command_methods():
    setattr(Daemon, _name, _never(_name))


def get(path, **headers):
    async def go():
        transport = httpx.ASGITransport(app=create_app(Daemon()))
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as c:
            return await c.get(path, headers=headers)

    return asyncio.run(go())


class Refs(html.parser.HTMLParser):
    """Every src/href of a page, and whether it has inline scripts or style attributes."""

    def __init__(self):
        super().__init__()
        self.refs, self.inline = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k in ("src", "href"):
            if a.get(k):
                self.refs.append(a[k])
        if "style" in a or any(k.startswith("on") for k in a):
            self.inline.append((tag, attrs))
        if tag == "script" and not a.get("src"):
            self.inline.append((tag, attrs))
        if tag == "style":
            self.inline.append((tag, attrs))


def test_the_page_and_every_asset_it_names_come_from_the_daemon():
    r = get("/")
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/html; charset=utf-8"
    assert r.headers["content-security-policy"] == webpage.CSP
    assert r.headers["x-content-type-options"] == "nosniff"
    refs = Refs()
    refs.feed(r.text)
    assert refs.inline == []  # the CSP would block them: none may be there
    assets = [u for u in refs.refs if u.startswith("/page/")]
    assert sorted(set(assets)) == ["/page/app.js", "/page/commands.js", "/page/icon.svg",
                                   "/page/style.css", "/page/words.js"]
    # a link to the API's own pages, and to the page's table view
    assert set(refs.refs) - set(assets) == {"/docs", "/?view=table"}
    for path in assets:
        a = get(path)
        assert a.status_code == 200, path
        assert a.headers["content-security-policy"] == webpage.CSP
        ext = os.path.splitext(path)[1]
        assert a.headers["content-type"] == webpage.TYPES[ext]
        if path[6:] == webpage.GENERATED:  # made from the one list of commands
            assert a.content == webpage.commands_js()
        else:
            assert a.content == open(os.path.join(webpage.PAGE_DIR, path[6:]), "rb").read()


def test_the_policy_allows_this_origin_only():
    policy = dict(d.strip().split(" ", 1) for d in webpage.CSP.split(";"))
    assert policy["default-src"] == "'self'"
    for directive in ("script-src", "style-src", "img-src", "connect-src", "font-src"):
        assert policy[directive] == "'self'", directive  # no 'unsafe-inline', no hosts
    assert policy["object-src"] == "'none'" and policy["frame-ancestors"] == "'none'"


def test_no_file_of_the_page_names_another_origin():
    for name in webpage.page_files():
        text = open(os.path.join(webpage.PAGE_DIR, name), encoding="utf-8").read()
        # the SVG namespace is a name, not a request
        text = text.replace("http://www.w3.org/2000/svg", "")
        found = re.findall(r"(?:https?:|wss?:)?//[\w.-]+\.[a-z]{2,}[^\s\"')]*", text)
        assert found == [], (name, found)
        assert "@import" not in text and "fonts.googleapis" not in text, name


def test_an_unknown_asset_is_a_404_that_lists_the_files():
    for path in ("/page/nope.js", "/page/..%2Fapi.py", "/page/%2e%2e%2fwebpage.py",
                 "/page/index.html.bak"):
        r = get(path)
        assert r.status_code == 404, path
        err = r.json()["error"]
        assert err["code"] == "not_found"
        if path.startswith("/page/no"):
            assert "app.js" in err["message"] and "style.css" in err["message"]
    assert get("/page/").status_code == 404
    assert get("/page").status_code == 404


def test_the_page_answers_only_its_own_origin():
    r = get("/", origin="http://evil.example")
    assert r.status_code == 403 and r.json()["error"]["code"] == "cross_origin"
    assert get("/", origin=BASE).status_code == 200
    r = get("/", host="attacker.example:8737")  # DNS rebinding
    assert r.status_code == 403 and r.json()["error"]["code"] == "bad_host"


def test_a_wheel_ships_every_file_of_the_page():
    with open(ROOT / "pyproject.toml", "rb") as f:
        globs = tomllib.load(f)["tool"]["setuptools"]["package-data"]["hostd"]
    files = webpage.page_files()
    assert {"index.html", "app.js", "words.js", "style.css", "icon.svg"} <= set(files)
    for name in files:
        assert any(fnmatch.fnmatch("web/page/" + name, g) for g in globs), name
    # and nothing in the folder that would not be served (or shipped) unnoticed
    assert sorted(os.listdir(webpage.PAGE_DIR)) == files


def test_every_word_the_page_uses_is_in_words_js():
    app = open(os.path.join(webpage.PAGE_DIR, "app.js"), encoding="utf-8").read()
    words = open(os.path.join(webpage.PAGE_DIR, "words.js"), encoding="utf-8").read()
    used = set(re.findall(r"\bW\.([A-Za-z]+)", app))
    assert len(used) > 40
    defined = set(re.findall(r"^  ([A-Za-z]+):", words, re.M))
    assert used - defined == set()
    # a sentence for every event type docs/API.md says the page tells
    doc = open(ROOT / "docs" / "API.md", encoding="utf-8").read()
    section = doc.split("## The page", 1)[1]
    logged = set(re.findall(r"^    ([a-z_]+):", words.split("log: {", 1)[1].split("\n  },", 1)[0], re.M))
    for kind in ("build_started", "build_done", "hand_over", "hand", "dice", "fault",
                 "stopped", "step_failed", "session_ended"):
        assert kind in logged, kind
        assert "`%s`" % kind in section, kind


def test_the_pages_commands_are_the_lists():
    """The page offers exactly the commands hostd/core/commands.py gives it (`page`), each
    by its own route (the daemon makes /page/commands.js from the list: app.js names no
    route of a command), and a button for each in index.html."""
    import json

    from hostd.core.commands import BY_NAME, offered_by

    app = open(os.path.join(webpage.PAGE_DIR, "app.js"), encoding="utf-8").read()
    index = open(os.path.join(webpage.PAGE_DIR, "index.html"), encoding="utf-8").read()
    js = webpage.commands_js().decode()
    routes = json.loads(js.split("window.JANTAKU_COMMANDS = ", 1)[1].rstrip(";\n"))
    assert sorted(routes) == sorted(offered_by("page"))
    assert not any('"%s"' % BY_NAME[n].path in app for n in routes)
    assert routes == {name: BY_NAME[name].path for name in routes}
    buttons = set(re.findall(r'data-cmd="([a-z_]+)"', index))
    # start: the primary button submits the start form; dice_entered: the dice, with faces
    assert buttons | {"start"} == set(routes) | {"dice_entered"}


def test_the_page_is_not_in_the_openapi_document():
    paths = create_app(Daemon()).openapi()["paths"]
    assert "/" not in paths and not [p for p in paths if p.startswith("/page")]


def test_the_page_files_are_gzipped_with_etags_and_a_reload_gets_304s():
    """Every file of the page over 500 bytes goes gzipped to a browser that takes it, with
    an ETag; asked again with it, the answer is 304 with no body (a reload transfers
    almost nothing); a client that takes no gzip gets the file as it is."""
    sizes = {}
    for path in ["/"] + ["/page/" + n for n in webpage.page_files() if n != "index.html"]:
        name = "index.html" if path == "/" else path[6:]
        raw = open(os.path.join(webpage.PAGE_DIR, name), "rb").read()
        r = get(path, **{"accept-encoding": "gzip, deflate, br"})
        assert r.status_code == 200 and r.content == raw, path  # (httpx inflates it)
        etag = r.headers["etag"]
        assert r.headers["cache-control"] == "no-cache"
        if len(raw) >= 500 and not name.endswith(".png"):
            assert r.headers["content-encoding"] == "gzip", path
            assert r.headers["vary"] == "Accept-Encoding"
            sizes[name] = (len(raw), int(r.headers["content-length"]))
            assert sizes[name][1] < len(raw) / 2, (path, sizes[name])
        again = get(path, **{"accept-encoding": "gzip", "if-none-match": etag})
        assert again.status_code == 304 and again.content == b"", path
        assert again.headers["etag"] == etag
        assert again.headers["content-security-policy"] == webpage.CSP
        plain = get(path, **{"accept-encoding": "identity"})
        assert "content-encoding" not in plain.headers and plain.content == raw
        assert plain.headers["etag"] != etag or "vary" not in r.headers
        assert get(path, **{"accept-encoding": "gzip;q=0"}).headers.get("content-encoding") is None
    assert {"app.js", "words.js", "style.css", "index.html"} <= set(sizes)
    biggest = max(sizes, key=lambda n: sizes[n][0])
    assert biggest in ("app.js", "words.js")  # the page's largest script: compressed


def test_an_etag_changes_with_the_file(tmp_path, monkeypatch):
    (tmp_path / "index.html").write_text("<!doctype html><p>" + "x" * 600)
    monkeypatch.setattr(webpage, "PAGE_DIR", str(tmp_path))
    one = webpage.PageFile("index.html")
    (tmp_path / "index.html").write_text("<!doctype html><p>" + "y" * 600)
    two = webpage.PageFile("index.html")
    assert one.bodies["gzip"][1] != two.bodies["gzip"][1]
    assert one.bodies["identity"][1] != one.bodies["gzip"][1]


def test_the_server_gzips_the_apis_answers_but_not_the_event_stream():
    """hostd/web/server.py: /status (a few KB of JSON) goes gzipped; an event stream never
    (each event must arrive as it happens)."""
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, StreamingResponse
    from starlette.routing import Route

    from hostd.web.server import compressed

    async def status(request):
        return JSONResponse({"next": {"text": "x" * 2000}})

    async def small(request):
        return JSONResponse({"ok": True})

    async def events(request):
        async def gen():
            yield "data: " + "y" * 2000 + "\n\n"
        return StreamingResponse(gen(), media_type="text/event-stream")

    app = compressed(Starlette(routes=[Route("/status", status), Route("/small", small),
                                       Route("/events", events)]))

    async def go():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as c:
            h = {"accept-encoding": "gzip"}
            return [await c.get(p, headers=h) for p in ("/status", "/small", "/events")]

    st, small_, ev = asyncio.run(go())
    assert st.headers["content-encoding"] == "gzip" and st.json()["next"]["text"] == "x" * 2000
    assert "content-encoding" not in small_.headers
    assert "content-encoding" not in ev.headers


def test_the_apis_json_answers_to_get_are_validated_and_a_304_has_no_body():
    """hostd/web/server.py: a weak ETag on a GET's JSON answer, the same gzipped or not;
    asked again with it, 304 and no body; a changed answer a new ETag; a POST's answer,
    an error and an event stream none."""
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, StreamingResponse
    from starlette.routing import Route

    from hostd.web.server import compressed

    state = {"text": "x" * 2000}

    async def rulesets(request):
        return JSONResponse(state)

    async def missing(request):
        return JSONResponse({"error": {"code": "not_found"}}, status_code=404)

    async def events(request):
        async def gen():
            yield "data: {}\n\n"
        return StreamingResponse(gen(), media_type="text/event-stream")

    app = compressed(Starlette(routes=[Route("/rulesets", rulesets, methods=["GET", "POST"]),
                                       Route("/missing", missing), Route("/events", events)]))

    async def go():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as c:
            plain = await c.get("/rulesets", headers={"accept-encoding": "identity"})
            zipped = await c.get("/rulesets", headers={"accept-encoding": "gzip"})
            tag = zipped.headers["etag"]
            again = await c.get("/rulesets", headers={"accept-encoding": "gzip",
                                                     "if-none-match": 'W/"other", ' + tag})
            state["text"] = "z" * 2000
            changed = await c.get("/rulesets", headers={"if-none-match": tag})
            posted = await c.post("/rulesets")
            others = [await c.get(p) for p in ("/missing", "/events")]
            return plain, zipped, again, changed, posted, others

    plain, zipped, again, changed, posted, others = asyncio.run(go())
    assert zipped.headers["content-encoding"] == "gzip" and zipped.json() == plain.json()
    assert plain.headers["etag"] == zipped.headers["etag"] and zipped.headers["etag"].startswith('W/"')
    assert plain.headers["cache-control"] == "no-cache"
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == zipped.headers["etag"]
    assert changed.status_code == 200 and changed.json()["text"] == "z" * 2000
    assert changed.headers["etag"] != zipped.headers["etag"]
    assert "etag" not in posted.headers
    assert all("etag" not in r.headers for r in others)


def test_every_control_has_its_words_in_both_languages():
    """words.js: JANTAKU_WORDS_JA overlays English; a key English lacks would never be
    shown; every button and the pairing words are there in both languages
    (tests/unit/test_page_words.py runs them)."""
    words = open(os.path.join(webpage.PAGE_DIR, "words.js"), encoding="utf-8").read()
    en, ja = words.split("window.JANTAKU_WORDS_JA = {", 1)
    ja = ja.split("\n};", 1)[0]
    en_keys = set(re.findall(r"^  ([A-Za-z]+):", en, re.M))
    ja_keys = set(re.findall(r"^  ([A-Za-z]+):", ja, re.M))
    assert ja_keys - en_keys == set()
    for key in ("cmd", "next", "fault", "todo", "refusal", "start", "pairNeeded", "pairButton",
                "confirm", "log", "colour"):
        assert key in ja_keys, key
    assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", ja)  # Japanese, not English copied
