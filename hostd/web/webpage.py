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
  (docs/API.md §Security) hold for it and for the requests it makes.

docs/API.md §The page lists the events and fields the page uses.
"""
import os

from fastapi.responses import FileResponse, HTMLResponse

from hostd.errors import NotFound

PAGE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "page")
ASSETS = "/page"

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "font-src 'self'; connect-src 'self'; manifest-src 'self'; object-src 'none'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",  # a daemon upgraded in place serves its new page at once
}
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}


def page_files():
    """The page's files (names in PAGE_DIR) that are served, sorted."""
    try:
        names = os.listdir(PAGE_DIR)
    except FileNotFoundError:  # pragma: no cover - a broken install
        return []
    return sorted(n for n in names
                  if os.path.splitext(n)[1] in TYPES and not n.startswith("."))


def add_page(app):
    """``GET /`` (the page) and ``GET /page/{name}`` (its assets) on ``app``."""
    files = set(page_files())

    @app.get("/", include_in_schema=False, response_class=HTMLResponse)
    async def index():
        return FileResponse(os.path.join(PAGE_DIR, "index.html"), headers=HEADERS,
                            media_type=TYPES[".html"])

    @app.get(ASSETS + "/{name}", include_in_schema=False)
    async def asset(name: str):
        if name not in files:  # a fixed list: no path is ever built from the request
            raise NotFound("no page asset %r; the page's files are: %s"
                           % (name[:60], ", ".join(sorted(files))))
        return FileResponse(os.path.join(PAGE_DIR, name), headers=HEADERS,
                            media_type=TYPES[os.path.splitext(name)[1]])
