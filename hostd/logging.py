"""structlog set-up for the daemon and the CLI (CPython only).

``configure(level)`` once at start:

* on a terminal (stderr is a TTY): structlog's ``ConsoleRenderer`` (colours, aligned);
* otherwise (systemd's journal, a pipe, a file): one JSON object per line
  (``dict_tracebacks`` + ``JSONRenderer``), so ``journalctl -o cat | jq`` works;
* ``merge_contextvars`` first, so ``structlog.contextvars.bind_contextvars(session=3)``
  tags every line logged in that context;
* the standard library's loggers (uvicorn, asyncio) go through the same renderer.

Log with ``structlog.get_logger("jantaku.<part>")`` and an event name plus key/values:
``log.info("build_done", build=3, seconds=20.4)``.

Nothing secret reaches a log: tracebacks are rendered without local variables (a
request's locals hold its Authorization header), and every line written goes through a
filter that replaces the strings given to :func:`add_secret` (the API token) with
``[redacted]``.  On a terminal a traceback is shown only at the debug level; above it an
exception is one line (``error=...``); the JSON log always carries it.

A live status line on the terminal (``jantaku run``'s view) registers with
:func:`status_line_shown`; a log line first clears it, so the two never share a line.
"""
import logging as _stdlib_logging
import sys

import structlog

LEVELS = {"debug": 10, "info": 20, "warning": 30, "warn": 30, "error": 40, "critical": 50}
LEVEL_CHOICES = ("debug", "info", "warning", "error", "critical")
REDACTED = "[redacted]"
_secrets = set()
_status = {"stream": None}  # the stream a live status line is drawn on, while one is shown


def add_secret(value):
    """Never write ``value`` (e.g. the API token) to a log: it is replaced everywhere."""
    if value:
        _secrets.add(str(value))


def status_line_shown(stream):
    """A status line (no newline) is on ``stream`` now: clear it before the next log line."""
    _status["stream"] = stream


def clear_status_line():
    stream, _status["stream"] = _status["stream"], None
    if stream is not None:
        try:
            stream.write("\r\x1b[K")
            stream.flush()
        except (OSError, ValueError):
            pass


class _SafeStream:
    """What every log line is written through: secrets replaced, the status line cleared."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        for secret in _secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        clear_status_line()
        return self._stream.write(text)

    def flush(self):
        return self._stream.flush()

    def isatty(self):
        return self._stream.isatty()

    def fileno(self):
        return self._stream.fileno()


def _one_line_exception(logger, method, event):
    """Console, above debug: an exception as ``error="Type: message"``, no traceback."""
    exc = event.pop("exc_info", None)
    if exc:
        if exc is True:
            exc = sys.exc_info()
        elif isinstance(exc, BaseException):
            exc = (type(exc), exc, exc.__traceback__)
        if exc and exc[0] is not None:
            event.setdefault("error", "%s: %s" % (exc[0].__name__, exc[1]))
    return event


def _level(level):
    if isinstance(level, int):
        return level
    try:
        return LEVELS[str(level).lower()]
    except KeyError:
        raise ValueError("log level %r is not one of %s" % (level, ", ".join(sorted(LEVELS)))) from None


def _shared_processors():
    return [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.StackInfoRenderer(),
    ]


def configure(level="info", *, stream=None, json=None):
    """Configure structlog (and stdlib logging) for this process.

    ``level``: name (``"debug"`` ...) or number.  ``stream``: where to write (stderr by
    default).  ``json``: force JSON (True) or the console renderer (False); by default
    JSON unless the stream is a TTY.  Returns True when JSON was chosen.
    """
    lvl = _level(level)
    stream = sys.stderr if stream is None else stream
    if json is None:
        isatty = getattr(stream, "isatty", None)
        json = not (isatty is not None and isatty())
    stream = _SafeStream(stream)
    if json:
        renderer = [
            structlog.processors.ExceptionRenderer(
                structlog.tracebacks.ExceptionDictTransformer(show_locals=False)),
            structlog.processors.JSONRenderer()]
    else:
        renderer = [structlog.dev.ConsoleRenderer(
            exception_formatter=structlog.dev.plain_traceback)]
        if lvl > LEVELS["debug"]:
            renderer.insert(0, _one_line_exception)
    structlog.configure(
        processors=_shared_processors() + renderer,
        wrapper_class=structlog.make_filtering_bound_logger(lvl),
        logger_factory=structlog.PrintLoggerFactory(file=stream),
        context_class=dict,
        cache_logger_on_first_use=False,
    )
    # stdlib loggers (uvicorn, asyncio ...) rendered the same way
    handler = _stdlib_logging.StreamHandler(stream)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[
                structlog.contextvars.merge_contextvars,
                structlog.processors.add_log_level,
                structlog.stdlib.add_logger_name,
                structlog.processors.TimeStamper(fmt="iso", utc=True),
            ],
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta] + renderer,
        )
    )
    _remove_handler()
    handler.jantaku = True  # ours: replaced, never stacked, by a second setup
    root = _stdlib_logging.getLogger()
    root.addHandler(handler)
    root.setLevel(lvl)
    return json


def _remove_handler():
    root = _stdlib_logging.getLogger()
    for h in list(root.handlers):
        if getattr(h, "jantaku", False):
            root.removeHandler(h)


def unconfigure():
    """Undo configure(): structlog's defaults, no jantaku handler on the root logger
    (tests that configure logging end with it)."""
    structlog.reset_defaults()
    structlog.contextvars.clear_contextvars()
    _remove_handler()


def get_logger(name="jantaku", **initial):
    return structlog.get_logger(name, **initial)
