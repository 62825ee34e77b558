"""Errors the host daemon reports to people (CLI, API) — CPython only.

Every error a person may see is a :class:`JantakuError`: a message that says what went
wrong and what to do (or what is accepted), a short machine ``code`` and the HTTP
``status`` the API answers with.  The API turns one into::

    {"error": {"code": "<code>", "message": "<message>"}}

with that status; the CLI prints the message.  Raise the most specific subclass; give
``code=`` to tell apart cases of one class (for example ``NotReady("...",
code="building")``).
"""


class JantakuError(Exception):
    """Base of every error shown to a person.  ``status`` is the HTTP status."""

    code = "error"
    status = 409

    def __init__(self, message, *, code=None, status=None):
        super().__init__(message)
        self.message = str(message)
        if code is not None:
            self.code = code
        if status is not None:
            self.status = int(status)
        self.details = {}  # more for the answer's error object (the daemon adds seq, next)

    def to_dict(self):
        return dict(self.details, code=self.code, message=self.message)

    def __str__(self):
        return self.message


class NotNow(JantakuError):
    """A command the table does not take in its present state (not in ``can``): 409, the
    code naming the state; the answer carries the state's ``seq`` and ``next``."""

    status = 409

    def __init__(self, message, *, state):
        super().__init__(message, code=state)


class BadRequest(JantakuError):
    """The request itself is wrong (unknown ruleset, bad value): fix it and retry."""

    code = "bad_request"
    status = 400


class Unauthorized(JantakuError):
    """No credentials were given for a command that needs them."""

    code = "unauthorized"
    status = 401


class Forbidden(JantakuError):
    """Credentials or origin refused."""

    code = "forbidden"
    status = 403


class NotFound(JantakuError):
    code = "not_found"
    status = 404


class NotReady(JantakuError):
    """Valid, but not now: the table or session is in a state that cannot take it."""

    code = "not_ready"
    status = 409


class Refused(JantakuError):
    """Valid, but this table cannot do it (e.g. a ruleset whose walls don't fit)."""

    code = "refused"
    status = 422


class ConfigError(JantakuError):
    """The daemon's own configuration is wrong (refuses to start)."""

    code = "config"
    status = 500


class JournalError(JantakuError):
    """The journal file cannot be used (see hostd.core.journal)."""

    code = "journal"
    status = 500


def describe_validation(errors):
    """pydantic's errors as one line: "dice: Input should be a valid list; track: ..."."""
    parts = []
    for e in errors:
        loc = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "body"
        msg = e.get("msg", "invalid")
        if e.get("type") == "extra_forbidden":
            msg = "unknown field"
        parts.append("%s: %s" % (loc, msg))
    return "; ".join(parts)
