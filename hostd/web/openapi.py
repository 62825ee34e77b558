"""The OpenAPI document as the API answers (CPython only): what FastAPI makes of the routes,
plus what every route may answer besides its own (the guards' and the server's refusals,
hostd/web/guards.py, hostd/web/server.py) and links from a session's start to the status
and from the status to each command, as a client goes (schemathesis's stateful phase
follows them: tests/unit/test_api_fuzz.py)."""
from fastapi.openapi.utils import get_openapi

from hostd.core.commands import COMMANDS
from hostd.strictjson import MAX_BODY_BYTES
from hostd.web.guards import BODY_TIMEOUT_S, EVENTS_PATH, MAX_EVENT_STREAMS
from hostd.web.server import MAX_HEADER_BYTES

ERROR = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}}
RETRY_AFTER = {"Retry-After": {"description": "seconds to wait before trying again",
                               "required": False,
                               "schema": {"type": "string", "pattern": "^[0-9]+$"}}}
#: any route, any method: the Host and Origin checks, the headers' size, the server's
#: connections (hostd/web/server.py)
ANY = {
    "403": "refused before the route: a `Host` that is not a name of this API (`bad_host`), "
           "a request from another origin or site (`cross_origin`)",
    "431": "the request line and headers are over %d KiB (`headers_too_large`)"
           % (MAX_HEADER_BYTES // 1024),
    "503": "every connection this API serves is open and this one was kept for `POST "
           "/abort` (`abort_only`), or the daemon is stopping (`stopping`); `Retry-After` "
           "says when to try again",
}
#: any POST: its body (hostd/web/guards.py BodyGuard, hostd/strictjson.py)
BODY = {
    "400": "a body that is not valid JSON (`bad_json`): not UTF-8, a key twice, NaN, "
           "nesting too deep; a Content-Length that is not a number",
    "408": "the body did not arrive whole within %g s of the headers (`body_timeout`)"
           % BODY_TIMEOUT_S,
    "413": "a body over %d KiB (`too_large`)" % (MAX_BODY_BYTES // 1024),
    "415": "a body not sent as JSON (`not_json`)",
    "422": "JSON that is not an object, or a body the route's model refuses (`bad_request`)",
}
EVENTS = {"503": "%d event streams are open, the most this API keeps (`too_many_streams`, "
                 "with `Retry-After`); or as any route" % MAX_EVENT_STREAMS}


def _links():
    """{operation id: {link name: link}}: start -> status (and its history page), status
    -> every command, every command -> status."""
    to_status = {"status": {"operationId": "status",
                            "description": "what the table says now, and what it accepts"}}
    to_commands = {c.name: {"operationId": c.name, "description": "the command %s, when `can` "
                                                                  "holds it" % c.name}
                   for c in COMMANDS}
    out = {"status": to_commands}
    for c in COMMANDS:
        out[c.name] = dict(to_status)
    out["start"] = dict(to_status, history={
        "operationId": "history", "parameters": {"before": "$response.body#/id"},
        "description": "the sessions before this one"})
    return out


def _add(responses, status, description, content=ERROR, headers=None):
    got = responses.setdefault(status, {"description": description})
    if got.get("description") != description and description not in got["description"]:
        got["description"] = "%s; %s" % (got["description"], description)
    got.setdefault("content", content)
    if headers:
        got.setdefault("headers", {}).update(headers)


def document(app):
    """The document FastAPI makes of ``app``, completed (see the module's doc)."""
    doc = get_openapi(title=app.title, version=app.version, openapi_version=app.openapi_version,
                      description=app.description, routes=app.routes)
    links = _links()
    for path, operations in doc.get("paths", {}).items():
        for method, op in operations.items():
            responses = op.setdefault("responses", {})
            for status, text in ANY.items():
                _add(responses, status, text, headers=RETRY_AFTER if status == "503" else None)
            if method == "post":
                for status, text in BODY.items():
                    _add(responses, status, text)
            invalid = responses.get("422")
            if invalid and "HTTPValidationError" in str(invalid.get("content")):
                invalid["content"] = ERROR  # FastAPI's default: the API answers its own shape
            if path == EVENTS_PATH:
                _add(responses, "503", EVENTS["503"], headers=RETRY_AFTER)
            if op.get("operationId") in links and "200" in responses:
                responses["200"]["links"] = links[op["operationId"]]
    return doc


def install(app):
    """``app.openapi()`` answers :func:`document` (made once)."""
    def openapi():
        if app.openapi_schema is None:
            app.openapi_schema = document(app)
        return app.openapi_schema

    app.openapi = openapi
