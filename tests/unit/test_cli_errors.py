"""Bad input to the CLI: one line on stderr naming the problem and what is accepted, exit
status 2, nothing started; every option has help."""
import argparse
import os
import socket
import subprocess
import sys

import pytest

from hostd.cli import main as cli
from tests.conftest import ROOT, tool


def jantaku(*args, env=None, timeout=60):
    return subprocess.run([tool("jantaku")] + list(args), capture_output=True, text=True,
                          timeout=timeout, cwd=str(ROOT), env=dict(os.environ, **(env or {})))


@pytest.mark.parametrize("args, words", [
    (["demo", "--ruleset", "riichi", "--fault", "bogus"], "kind 'bogus' is unknown; accepted"),
    (["run", "--sim", "--sim-fault", "bogus"], "kind 'bogus' is unknown; accepted"),
    (["run", "--sim", "--sim-ruleset", "nosuch"], "--sim-ruleset: unknown ruleset 'nosuch'; accepted"),
    (["run", "--sim", "--sim-speed", "0"], "--sim-speed must be above 0"),
    (["run", "--sim", "--log-level", "nonsense"], "choose from 'debug', 'info'"),
    (["run", "--sim", "--api-port", "99999"], "99999 is not a port number: 1-65535"),
    (["sim", "serve", "--ruleset", "riichi", "--fault", "jam:track=9"], "track"),
    (["run", "--sim", "--colours", "red,blue"], "does not know back colour red"),
    (["run", "--port", "/dev/null", "--colours", "blue"], "give exactly two back colours"),
    (["sim", "serve", "--ruleset", "riichi", "--colours", "pink,blue"], "colour classes are blue, green"),
    (["demo", "--ruleset", "riichi", "--games", "0"], "--games must be 1 or more"),
])
def test_bad_input_is_one_line_and_exit_2(args, words):
    r = jantaku(*args)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert words in lines[0] and "Traceback" not in r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize("kind", ["read-only", "a file"])
def test_unwritable_home_names_db(tmp_path, kind):
    home = tmp_path / "home"
    if kind == "a file":  # unwritable even for root
        home.write_text("")
    else:
        if os.geteuid() == 0:
            pytest.skip("root writes in a read-only folder")
        home.mkdir()
        home.chmod(0o500)
    try:
        r = jantaku("run", "--sim", env={"HOME": str(home), "XDG_STATE_HOME": ""})
    finally:
        if home.is_dir():
            home.chmod(0o700)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "--db PATH" in r.stderr


def test_port_clash_is_an_error_before_daemon_up(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        r = jantaku("run", "--port", str(tmp_path / "none"), "--db", str(tmp_path / "j.sqlite"),
                    "--api-port", str(port))
    assert r.returncode == 1
    assert "cannot listen on 127.0.0.1:%d" % port in r.stderr and "--api-port" in r.stderr
    assert "daemon up" not in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("content, mode, words", [
    ("", 0o600, "is empty"),
    ("short", 0o600, "5 characters"),
    ("a-long-enough-token-0123456789", 0o644, "readable by others"),
])
def test_token_file_problems_are_one_line(tmp_path, content, mode, words):
    tok = tmp_path / "api-token"
    tok.write_text(content + "\n")
    tok.chmod(mode)
    r = jantaku("run", "--port", str(tmp_path / "none"), "--db", str(tmp_path / "j.sqlite"),
                "--token-file", str(tok), "--api-port", str(free_port()))
    assert r.returncode == 1
    assert len(r.stderr.strip().splitlines()) == 1 and words in r.stderr, r.stderr


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def walk(parser, prefix=()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from walk(sub, prefix + (name,))
        else:
            yield prefix, action


def test_every_option_has_help():
    import importlib

    parser = cli.build_parser()
    missing = ["%s %s" % (" ".join(p), "/".join(a.option_strings) or a.dest)
               for p, a in walk(parser)
               if a.help in (None, "") and not isinstance(a, argparse._HelpAction)]
    assert missing == [], missing
    importlib.import_module("hostd.cli.run")


def test_demo_help_says_text_by_default():
    r = jantaku("--help")
    assert "reported as text (--json: JSON)" in " ".join(r.stdout.split())


def test_session_step_failure_is_one_line_on_the_console():
    import asyncio
    import io

    import structlog

    from hostd import logging as jlog

    class Tty(io.StringIO):
        def isatty(self):
            return True

    buf = Tty()
    jlog.configure("info", stream=buf)
    try:
        try:
            raise RuntimeError("the journal is locked")
        except RuntimeError:
            structlog.get_logger("jantaku.daemon").exception("session step failed", step="build")
    finally:
        jlog.unconfigure()
    out = buf.getvalue()
    assert len(out.strip().splitlines()) == 1, out
    assert "the journal is locked" in out and "Traceback" not in out
    asyncio  # (the daemon logs this from a task)


def test_help_stays_light():
    code = ("import sys; from hostd.cli import main as cli; cli.build_parser(); "
            "print(sorted(m for m in ('structlog', 'pydantic', 'fastapi', 'uvicorn') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(ROOT))
    assert r.stdout.strip() == "[]", r.stdout + r.stderr
    from hostd.cli import run as cli_run
    from hostd import logging as jlog

    assert cli_run.LOG_LEVELS == jlog.LEVEL_CHOICES
