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
"""
import logging as _stdlib_logging
import sys

import structlog

LEVELS = {"debug": 10, "info": 20, "warning": 30, "warn": 30, "error": 40, "critical": 50}


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
    if json:
        renderer = [structlog.processors.dict_tracebacks, structlog.processors.JSONRenderer()]
    else:
        renderer = [structlog.dev.ConsoleRenderer()]
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
    root = _stdlib_logging.getLogger()
    for h in list(root.handlers):
        if getattr(h, "_jantaku", False):
            root.removeHandler(h)
    handler._jantaku = True
    root.addHandler(handler)
    root.setLevel(lvl)
    return json


def get_logger(name="jantaku", **initial):
    return structlog.get_logger(name, **initial)
