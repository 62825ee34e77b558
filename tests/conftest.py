"""Shared fixtures and the test-tier guard.

Tiers (docs/ARCHITECTURE.md §7): tests/unit (CPython), tests/mpy (run under the real
MicroPython unix port by tests/unit/test_micropython.py), tests/e2e (the real daemon over a
real pseudo-terminal; `--hil-port PATH` points them at a real table instead), tests/wasm32
(the firmware as flashed on MicroPython's 32-bit WebAssembly port under Node, from npm;
skipped without Node), tests/mcu
(the firmware as flashed on an emulated Cortex-M, MicroPython's QEMU port: `--mcu-firmware
PATH` or JANTAKU_MCU_FIRMWARE gives its ELF; skipped without it or without qemu-system-arm,
unless `--mcu-required`, which `make test-mcu` passes).
"""
import os
import pathlib
import shutil
import signal
import sys
import tempfile
import uuid

import pytest

from tests import procs

import hostd.core.events

# every event the daemon publishes in a test must fit its declared model (docs/API.md)
hostd.core.events.STRICT = True

ROOT = pathlib.Path(__file__).resolve().parent.parent

# The person's own files stay theirs (a club's board profiles in ~/.config/jantaku, the
# journal in ~/.local/state/jantaku, the service's /var/lib/jantaku): the suite has config
# and state folders of its own, made here before anything reads them and removed at the
# end (pytest_unconfigure), and every process a test starts (the daemon, `sim serve`, the
# wasm32 and mcu runners) inherits them.  A test that wants another place sets it itself.
# Under xdist the workers take the folders the run that started them made.
OWN_DIRS = "JANTAKU_TEST_DIRS"
_MADE_DIRS = None
if not os.environ.get(OWN_DIRS):
    _MADE_DIRS = tempfile.mkdtemp(prefix="jantaku-test-dirs-")
    os.environ[OWN_DIRS] = _MADE_DIRS
for _var, _sub in (("XDG_CONFIG_HOME", "config"), ("XDG_STATE_HOME", "state")):
    os.environ[_var] = os.path.join(os.environ[OWN_DIRS], _sub)
os.environ.pop("JANTAKU_CONFIG_DIR", None)

# tests/mpy holds scripts for the `micropython` binary, run by tests/unit/test_micropython.py;
# pytest must not import them itself.
collect_ignore = ["mpy"]
BIN = pathlib.Path(sys.executable).parent

# Every process a test starts (and every process those start) inherits this marker, even
# once its parent is gone: at the end of the run none may be left (pytest_sessionfinish).
# `make test` runs the test files on several workers (pytest-xdist): a worker keeps the
# marker of the run that started it, and that run checks for every worker at its end.
MARKER = "JANTAKU_TEST_RUN"
LEFT_BEHIND_GRACE_S = 5.0


def _is_worker(config):
    return hasattr(config, "workerinput")  # an xdist worker's config carries its input


def pytest_configure(config):
    if not _is_worker(config):
        os.environ[MARKER] = uuid.uuid4().hex


def pytest_unconfigure(config):
    if _MADE_DIRS is not None and not _is_worker(config):
        shutil.rmtree(_MADE_DIRS, ignore_errors=True)


def pytest_addoption(parser):
    parser.addoption(
        "--hil-port",
        default=None,
        metavar="PATH",
        help="run the end-to-end suite against a real table's serial port (hardware-in-loop)",
    )
    parser.addoption(
        "--mcu-firmware",
        default=os.environ.get("JANTAKU_MCU_FIRMWARE") or None,
        metavar="PATH",
        help="MicroPython's QEMU port for the MPS2-AN385 board (firmware.elf) that tests/mcu "
             "boots (default: $JANTAKU_MCU_FIRMWARE; docs/FIRMWARE.md §10.2)",
    )
    parser.addoption(
        "--mcu-required",
        action="store_true",
        help="fail tests/mcu, instead of skipping it, when qemu-system-arm or the firmware "
             "is missing (make test-mcu)",
    )


def tool(name):
    """Path of a console tool installed beside this interpreter (.venv/bin), else PATH."""
    p = BIN / name
    if p.exists():
        return str(p)
    found = shutil.which(name)
    if not found:
        pytest.fail("%s is not installed: run `make test`, which sets up .venv" % name)
    return found


@pytest.fixture(scope="session")
def micropython_bin():
    return tool("micropython")


@pytest.fixture(scope="session")
def mpy_cross_bin():
    return tool("mpy-cross")


@pytest.fixture(scope="session")
def hil_port(request):
    return request.config.getoption("--hil-port")


# Each tier must collect at least one test when the whole suite runs: an empty tier is a
# failure, not a silent pass (CI's "ran no test").
TIERS = {"unit": "tests/unit", "e2e": "tests/e2e", "wasm32": "tests/wasm32", "mcu": "tests/mcu"}


@pytest.fixture
def log_buffer():
    """The daemon's structured log, as JSON lines, into a buffer the test reads."""
    import io

    from hostd import logging as jlog

    buf = io.StringIO()
    jlog.configure("debug", stream=buf, json=True)
    yield buf
    jlog.unconfigure()


def pytest_collection_finish(session):
    full = [str(a).rstrip("/") for a in session.config.args] in (["tests"], [str(ROOT / "tests")])
    # (make test's own `-m "not slow"` is the full run: the slow tests are make test-slow's)
    if not full or session.config.option.keyword or session.config.option.markexpr not in (
            "", "not slow"):
        return  # a selection was asked for: the guard applies to full runs only
    seen = {k: 0 for k in TIERS}
    for item in session.items:
        rel = os.path.relpath(str(item.fspath), str(ROOT))
        for k, d in TIERS.items():
            if rel.startswith(d + os.sep):
                seen[k] += 1
    empty = [TIERS[k] for k, n in seen.items() if n == 0]
    if empty:
        raise pytest.UsageError("test tier(s) collected no test: %s" % ", ".join(empty))


def pytest_sessionfinish(session, exitstatus):
    """Nothing left behind: a process started by a test (a `sim serve`, a daemon, a
    `micropython`) that still runs when the suite ends fails the run, and is ended.  Under
    xdist the run that started the workers checks, once they have ended: it alone sees
    every process of the run (its marker) and decides the run's exit status."""
    if _is_worker(session.config):
        return
    marker = os.environ.get(MARKER)
    pids = set(procs.descendants(os.getpid())) | set(procs.with_env(MARKER, marker))
    left = procs.wait_gone(sorted(pids), LEFT_BEHIND_GRACE_S)
    if not left:
        return
    lines = ["%d %s" % (p, procs.cmdline(p)[:200]) for p in left]
    for p in left:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    text = "processes left behind by the tests (now killed):\n  " + "\n  ".join(lines)
    if reporter is not None:
        reporter.write_line(text, red=True)
    else:
        sys.stderr.write(text + "\n")
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
