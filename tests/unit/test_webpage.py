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

BASE = "http://127.0.0.1:8737"


class Daemon:
    """The page's routes never call the daemon."""


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
    assert sorted(set(assets)) == ["/page/app.js", "/page/icon.svg", "/page/style.css",
                                   "/page/words.js"]
    assert set(refs.refs) - set(assets) == {"/docs"}  # a link to the API's own pages
    for path in assets:
        a = get(path)
        assert a.status_code == 200, path
        assert a.headers["content-security-policy"] == webpage.CSP
        ext = os.path.splitext(path)[1]
        assert a.headers["content-type"] == webpage.TYPES[ext]
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
    assert len(used) > 20
    defined = set(re.findall(r"^  ([A-Za-z]+):", words, re.M))
    assert used - defined == set()
    # a sentence for every event type docs/API.md lists that a person should read
    doc = open(ROOT / "docs" / "API.md", encoding="utf-8").read()
    section = doc.split("## The page", 1)[1]
    logged = set(re.findall(r"^    ([a-z_]+):", words, re.M))
    for kind in ("build_started", "build_done", "hand_over", "hand", "dice", "table_fault",
                 "stopped", "ask", "step_failed", "session_ended"):
        assert kind in logged, kind
        assert "`%s`" % kind in section, kind


def test_the_page_is_not_in_the_openapi_document():
    paths = create_app(Daemon()).openapi()["paths"]
    assert "/" not in paths and not [p for p in paths if p.startswith("/page")]


def test_the_japanese_words_translate_english_ones_and_cover_every_control():
    """words.js: JANTAKU_WORDS_JA overlays English; a key English lacks would never be
    shown, and every button and the pairing words must be there in both languages."""
    words = open(os.path.join(webpage.PAGE_DIR, "words.js"), encoding="utf-8").read()
    en, ja = words.split("window.JANTAKU_WORDS_JA = {", 1)
    ja = ja.split("\n};", 1)[0]
    en_keys = set(re.findall(r"^  ([A-Za-z]+):", en, re.M))
    ja_keys = set(re.findall(r"^  ([A-Za-z]+):", ja, re.M))
    assert ja_keys - en_keys == set()
    for key in ("cmd", "start", "pairNeeded", "pairButton", "activity", "facts", "done",
                "refused"):
        assert key in ja_keys, key
    app = open(os.path.join(webpage.PAGE_DIR, "app.js"), encoding="utf-8").read()
    index = open(os.path.join(webpage.PAGE_DIR, "index.html"), encoding="utf-8").read()
    cmds = set(re.findall(r'data-cmd="([a-z-]+)"', index))
    assert cmds >= {"hand-over", "dice", "dice-entered", "continue", "clear-fault", "game",
                    "end", "abort", "start"}
    for cmd in cmds - {"start"}:
        assert '"%s": "' % cmd in en and '"%s": "' % cmd in ja, cmd
        assert '"%s": { path:' % cmd in app, cmd
    assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", ja)  # Japanese, not English copied
