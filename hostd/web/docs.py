"""/docs (Swagger UI) and /redoc (ReDoc) with every asset served by the API itself
(fastapi-offline's copies): nothing from a CDN, so they work on an offline table."""
import os

DOCS_ASSETS = "/docs-assets"


def _docs_assets_dir():
    """The folder of Swagger UI's and ReDoc's scripts shipped in a package (PyPI
    fastapi-offline), or None if it is not installed."""
    try:
        import fastapi_offline
    except ImportError:  # pragma: no cover - a dependency; without it, no pages
        return None
    path = os.path.join(os.path.dirname(fastapi_offline.__file__), "static")
    return path if os.path.isfile(os.path.join(path, "swagger-ui-bundle.js")) else None


def add_offline_docs(app):
    """/docs (Swagger UI) and /redoc (ReDoc) with every asset served by this API."""
    from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
    from fastapi.responses import HTMLResponse
    from starlette.staticfiles import StaticFiles

    folder = _docs_assets_dir()
    if folder is None:
        return
    app.mount(DOCS_ASSETS, StaticFiles(directory=folder), name="docs-assets")

    @app.get("/docs", include_in_schema=False, response_class=HTMLResponse)
    async def docs():
        return get_swagger_ui_html(
            openapi_url=app.openapi_url, title="jantaku API",
            swagger_js_url=DOCS_ASSETS + "/swagger-ui-bundle.js",
            swagger_css_url=DOCS_ASSETS + "/swagger-ui.css",
            swagger_favicon_url=DOCS_ASSETS + "/favicon.png",
            oauth2_redirect_url=None)

    @app.get("/redoc", include_in_schema=False, response_class=HTMLResponse)
    async def redoc():
        return get_redoc_html(
            openapi_url=app.openapi_url, title="jantaku API",
            redoc_js_url=DOCS_ASSETS + "/redoc.standalone.js",
            redoc_favicon_url=DOCS_ASSETS + "/favicon.png", with_google_fonts=False)
