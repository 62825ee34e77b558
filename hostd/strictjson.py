"""The one strict JSON reader of request bodies, for the HTTP API (hostd/web/guards.py) and
the MQTT bridge (hostd/fleet/mqtt.py): the same bytes get the same answer from both
(docs/API.md "Bodies", docs/FLEET.md "Commands").

``read_object(data, accepted, noun="body")`` returns the JSON object ``data`` holds, ``{}``
for an empty one (no body), or raises :class:`BodyRefused` with the status, code and words
both front ends answer:

* over MAX_BODY_BYTES: ``413 too_large``, checked before a byte is decoded;
* invalid UTF-8, not JSON (spaces alone are not), a key given twice, ``NaN``/``Infinity``, a number too large for
  a float, an integer of more than 4300 digits, nesting deeper than the parser takes:
  ``400 bad_json``, saying which;
* JSON that is not an object (``[]``, ``null``, ``"x"``, ``3``): ``422 bad_request``.

Linear in the input: each object's keys are checked against a set as they are read (a
64 KiB object of 10,000 keys with one repeated at its end is refused in a few
milliseconds; tests/unit/test_strictjson.py).
"""
import json
import math

from hostd.errors import JantakuError

MAX_BODY_BYTES = 64 * 1024  # a command's body is a few bytes; a table's host may be a Pi
CUT_CHARS = 40  # a key or a number quoted in a message is cut there


class BodyRefused(JantakuError):
    """A body the reader refuses: ``status`` 413, 400 or 422 and its ``code``."""

    def __init__(self, status, code, message):
        super().__init__(message, code=code, status=status)


def cut(value, n=CUT_CHARS):
    """``value`` as text, cut at ``n`` characters saying how long it was."""
    value = str(value)
    return value if len(value) <= n else value[:n] + "...(%d chars)" % len(value)


def _no_duplicates(pairs):
    seen = set()
    for k, _ in pairs:
        if k in seen:
            raise ValueError("the key %r is given twice" % cut(k))
        seen.add(k)
    return dict(pairs)


def _finite(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("the number %s is out of range" % cut(text))
    return value


def _constant(name):
    raise ValueError("%s is not JSON" % name)


def problem(data):
    """``(value, None)`` for strict UTF-8 JSON, else ``(None, what is wrong)``."""
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError as e:
        return None, "invalid UTF-8 at byte %d" % e.start
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_float=_finite,
                          parse_constant=_constant), None
    except RecursionError:
        return None, "nested too deep"
    except json.JSONDecodeError as e:
        return None, "%s at line %d column %d" % (e.msg, e.lineno, e.colno)
    except ValueError as e:  # ours, or int's "Exceeds the limit (4300 digits) ..."
        return None, cut(str(e).split("; use sys.set_int_max_str_digits")[0], 120)


def too_large(noun, size, accepted, limit=MAX_BODY_BYTES):
    return BodyRefused(413, "too_large", "the %s is %s; at most %d bytes are taken (a JSON "
                       "object such as %s)" % (noun, size, limit, accepted))


def read_object(data, accepted, noun="body"):
    """The JSON object in ``data`` (bytes), ``{}`` when empty; else :class:`BodyRefused`."""
    if len(data) > MAX_BODY_BYTES:
        raise too_large(noun, "%d bytes" % len(data), accepted)
    if not data:
        return {}
    value, wrong = problem(data)
    if wrong is not None:
        raise BodyRefused(400, "bad_json", "the %s is not valid JSON (%s); accepted: %s"
                          % (noun, wrong, accepted))
    if not isinstance(value, dict):
        raise BodyRefused(422, "bad_request", "%s: Input should be a valid dictionary (a JSON "
                          "object), not %s; accepted: %s" % (noun, _json_type(value), accepted))
    return value


def _json_type(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array"
