"""The table's page (CPython only): ``GET /`` and its assets under ``/page/``.

Layer: beside the API; the page is a client of the API like the CLI (``GET /status``,
``GET /rulesets``, ``GET /events``) and this module only serves its files.

* every file comes from the package folder ``hostd/web/page/`` (listed in pyproject.toml's
  package-data, so a wheel ships it): plain HTML, CSS and JavaScript, no build step, no
  CDN, nothing fetched from the internet (a table's host is often offline);
* every answer of the page carries a Content-Security-Policy of ``'self'`` only: the
  browser refuses any script, style, image, font or connection to another origin, and
  any inline script or style attribute, so "no request leaves the daemon's origin" is
  enforced by the browser, not only promised;
* the page is served on the API's origin, so the API's Host and Origin checks
  (docs/API.md §Security) hold for it and for the requests it makes;
* each file is read once, kept as it is and gzipped (over COMPRESS_MIN_BYTES), each with
  a strong ETag: a browser asks again at every load (``no-cache``) and gets a 304 with no
  body while the file is unchanged.  The API's own answers over 500 bytes are gzipped by
  the server, its JSON answers to GET validated by a weak ETag (hostd/web/server.py).

docs/API.md §The page lists the events and fields the page uses.
"""
import gzip
import hashlib
import json
import os

from fastapi import Request
from fastapi.responses import Response

from hostd.errors import NotFound
from hostd.web.server import COMPRESS_MIN_BYTES, etags  # (smaller files go as they are)

PAGE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "page")
ASSETS = "/page"

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "font-src 'self'; connect-src 'self'; manifest-src 'self'; object-src 'none'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    # asked again at every load, answered 304 while its ETag holds: a daemon upgraded in
    # place serves its new page at once, and a reload transfers only headers
    "Cache-Control": "no-cache",
}
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}
COMPRESSIBLE = (".html", ".js", ".css", ".svg")


def page_files():
    """The page's files (names in PAGE_DIR) that are served, sorted."""
    try:
        names = os.listdir(PAGE_DIR)
    except FileNotFoundError:  # pragma: no cover - a broken install
        return []
    return sorted(n for n in names
                  if os.path.splitext(n)[1] in TYPES and not n.startswith("."))


class PageFile:
    """One file of the page, read once (or made: `data`): its bytes as they are and
    gzipped (when that is worth it), each with its own strong ETag (the content's
    SHA-256)."""

    def __init__(self, name, data=None):
        if data is None:
            with open(os.path.join(PAGE_DIR, name), "rb") as f:
                data = f.read()
        self.name = name
        self.media_type = TYPES[os.path.splitext(name)[1]]
        tag = hashlib.sha256(data).hexdigest()[:24]
        self.bodies = {"identity": (data, '"%s"' % tag)}
        if name.endswith(COMPRESSIBLE) and len(data) >= COMPRESS_MIN_BYTES:
            packed = gzip.compress(data, compresslevel=9, mtime=0)
            if len(packed) < len(data):
                self.bodies["gzip"] = (packed, '"%s-gz"' % tag)

    def response(self, request):
        encoding = "gzip" if "gzip" in self.bodies and accepts_gzip(request) else "identity"
        body, etag = self.bodies[encoding]
        headers = dict(HEADERS, ETag=etag)
        if "gzip" in self.bodies:
            headers["Vary"] = "Accept-Encoding"
        if encoding != "identity":
            headers["Content-Encoding"] = encoding
        if etag in if_none_match(request):
            return Response(status_code=304, headers=headers)
        return Response(body, media_type=self.media_type, headers=headers)


def accepts_gzip(request):
    """Whether Accept-Encoding allows gzip (not with q=0)."""
    for part in request.headers.get("accept-encoding", "").split(","):
        name, _, params = part.strip().partition(";")
        if name.strip().lower() in ("gzip", "*"):
            q = params.strip().lower()
            try:
                return not (q.startswith("q=") and float(q[2:] or 0) == 0)
            except ValueError:
                return True  # a q we cannot read: gzip is what every browser takes
    return False


def if_none_match(request):
    """The ETags an If-None-Match header lists ("W/" ones compared as strong)."""
    return etags(request.headers.get("if-none-match", ""))


GENERATED = "commands.js"  # made from the one list of commands, not a file of the folder


def commands_js():
    """The page's commands and their routes, made from the one list (hostd/core/
    commands.py: each command the page offers), as `window.JANTAKU_COMMANDS`."""
    from hostd.core.commands import COMMANDS

    table = {c.name: c.path for c in COMMANDS if c.page}
    return ('"use strict";\n// made by the daemon from its one list of commands '
            '(hostd/core/commands.py): the page offers these, at these routes\n'
            'window.JANTAKU_COMMANDS = %s;\n' % json.dumps(table)).encode()


def add_page(app):
    """``GET /`` (the page) and ``GET /page/{name}`` (its assets) on ``app``."""
    files = {n: PageFile(n) for n in page_files()}
    files[GENERATED] = PageFile(GENERATED, commands_js())

    @app.get("/", include_in_schema=False)
    async def index(request: Request):
        return files["index.html"].response(request)

    @app.get(ASSETS + "/{name}", include_in_schema=False)
    async def asset(name: str, request: Request):
        if name not in files:  # a fixed list: no path is ever built from the request
            raise NotFound("no page asset %r; the page's files are: %s"
                           % (name[:60], ", ".join(sorted(files))))
        return files[name].response(request)
