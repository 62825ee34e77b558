"""The commands over HTTP (CPython only): one POST route per command of the one list
(hostd/core/commands.py), each with its request model, made from the list."""
from fastapi import FastAPI

from hostd.core.commands import COMMANDS
from hostd.core.status import Answer, ErrorResponse

ERRORS = {
    400: {"model": ErrorResponse, "description": "bad request: an unknown ruleset or colour "
                                                 "(`bad_request`, `unknown_colour`), a throw "
                                                 "the ruleset's dice cannot make (`bad_dice`), "
                                                 "a body that is not valid JSON (`bad_json`)"},
    409: {"model": ErrorResponse, "description": "not in `can` now: the code names the state "
                                                 "(e.g. `building`), the answer carries its "
                                                 "`seq` and `next`; or the table's fault is "
                                                 "still there (`fault_remains`)"},
    422: {"model": ErrorResponse, "description": "invalid body (a wrong type, an unknown "
                                                 "field), or refused by the table"},
    503: {"model": ErrorResponse, "description": "the table is not connected (a motor "
                                                 "command; nothing moves)"},
}
AUTH_ERRORS = {
    401: {"model": ErrorResponse, "description": "token required"},
    403: {"model": ErrorResponse, "description": "token or origin refused"},
}


def _handler(daemon, c):
    required = getattr(c.request, "BODY_REQUIRED", False)  # (a body of one of two fields)
    if required or any(f.is_required() for f in c.request.model_fields.values()):
        async def handler(body: c.request):
            return await c.run(daemon, body)
    else:  # no body, or an object (JSON null is not one: hostd/strictjson.py)
        async def handler(body: c.request = None):
            return await c.run(daemon, body or c.request())
    return handler


def add(app: FastAPI, daemon, security):
    """Every command's route on `app`."""
    responses = {**ERRORS, **AUTH_ERRORS}  # (hostd/web/openapi.py adds what any route may)
    for c in COMMANDS:
        app.add_api_route(
            c.path, _handler(daemon, c), methods=["POST"], response_model=Answer,
            tags=["commands"], responses=responses, dependencies=security.commands,
            name=c.name, operation_id=c.name, summary=c.summary,
            description="%s.\n\nCommand `%s`%s; accepted in: %s. Body: %s." % (
                c.summary[:1].upper() + c.summary[1:], c.name,
                " (moves motors)" if c.motors else " (nothing moves)", c.states, c.accepted))


def accepted():
    """{path: what its body may be, in words}, for the errors' messages."""
    return {c.path: c.accepted for c in COMMANDS}
