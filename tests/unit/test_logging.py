"""hostd.logging: JSON off a terminal, console on one, contextvars merged, stdlib routed."""
import io
import json
import logging as stdlib_logging
import os
import pty

import pytest
import structlog

from hostd import logging as jlog


@pytest.fixture(autouse=True)
def reset():
    yield
    jlog.unconfigure()


def test_json_when_not_a_tty():
    buf = io.StringIO()
    assert jlog.configure("info", stream=buf) is True
    structlog.contextvars.bind_contextvars(session=3)
    log = structlog.get_logger("jantaku.test")
    log.info("build_done", build=2, seconds=20.4)
    log.debug("hidden")  # below the level
    lines = buf.getvalue().splitlines()
    assert len(lines) == 1
    rec = json.loads(lines[0])
    assert rec["event"] == "build_done" and rec["build"] == 2 and rec["session"] == 3
    assert rec["level"] == "info" and "timestamp" in rec


def test_json_tracebacks_are_dicts():
    buf = io.StringIO()
    jlog.configure("debug", stream=buf)
    try:
        1 / 0
    except ZeroDivisionError:
        structlog.get_logger().exception("boom")
    rec = json.loads(buf.getvalue().splitlines()[-1])
    assert isinstance(rec["exception"], list)
    assert rec["exception"][0]["exc_type"] == "ZeroDivisionError"


def test_console_renderer_on_a_tty():
    master, slave = pty.openpty()
    try:
        stream = os.fdopen(slave, "w", buffering=1)
        assert jlog.configure("info", stream=stream) is False
        structlog.get_logger().info("hello_tty", x=1)
        stream.flush()
        out = os.read(master, 4096).decode()
        assert "hello_tty" in out and not out.lstrip().startswith("{")
    finally:
        os.close(master)
        stream.close()


def test_stdlib_loggers_go_through_structlog():
    buf = io.StringIO()
    jlog.configure("info", stream=buf)
    stdlib_logging.getLogger("jantaku.test.stdlib").warning("port %d busy", 8737)
    rec = json.loads(buf.getvalue().splitlines()[-1])
    assert rec["event"] == "port 8737 busy" and rec["level"] == "warning"
    assert rec["logger"] == "jantaku.test.stdlib"


def test_bad_level_named():
    with pytest.raises(ValueError, match="loud"):
        jlog.configure("loud")


def test_no_locals_and_no_secret_in_json_tracebacks():
    buf = io.StringIO()
    jlog.configure("debug", stream=buf)
    jlog.add_secret("tok-0123456789abcdef-secret")
    headers = {"authorization": "Bearer tok-0123456789abcdef-secret"}  # a local of the frame
    try:
        raise RuntimeError("bad header %s" % headers["authorization"])
    except RuntimeError:
        structlog.get_logger().exception("boom")
    text = buf.getvalue()
    assert "tok-0123456789abcdef-secret" not in text and "[redacted]" in text
    rec = json.loads(text.splitlines()[-1])
    assert "locals" not in rec["exception"][0]["frames"][-1]


def test_console_shows_an_exception_as_one_line_above_debug():
    for level, traceback_shown in (("info", False), ("debug", True)):
        master, slave = pty.openpty()
        stream = os.fdopen(slave, "w", buffering=1)
        try:
            jlog.configure(level, stream=stream)
            try:
                raise ValueError("the table went away")
            except ValueError:
                structlog.get_logger().exception("session step failed", step="build")
            stream.flush()
            out = os.read(master, 65536).decode()
        finally:
            os.close(master)
            stream.close()
        assert "session step failed" in out and "the table went away" in out
        assert ("Traceback" in out) is traceback_shown, out


def test_a_log_line_clears_the_status_line_first():
    buf, view = io.StringIO(), io.StringIO()
    jlog.configure("info", stream=buf)
    view.write("table idle | session 3")
    jlog.status_line_shown(view)
    structlog.get_logger().info("hello")
    assert view.getvalue().endswith("\r\x1b[K")
    structlog.get_logger().info("again")
    assert view.getvalue().count("\r\x1b[K") == 1  # cleared once, until drawn again
