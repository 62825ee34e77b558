"""Shared fixtures and the test-tier guard.

Tiers (docs/ARCHITECTURE.md §7): tests/unit (CPython), tests/mpy (run under the real
MicroPython unix port by tests/unit/test_micropython.py), tests/e2e (the real daemon over a
real pseudo-terminal; `--hil-port PATH` points them at a real table instead).
"""
import os
import pathlib
import shutil
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent

# tests/mpy holds scripts for the `micropython` binary, run by tests/unit/test_micropython.py;
# pytest must not import them itself.
collect_ignore = ["mpy"]
BIN = pathlib.Path(sys.executable).parent


def pytest_addoption(parser):
    parser.addoption(
        "--hil-port",
        default=None,
        metavar="PATH",
        help="run the end-to-end suite against a real table's serial port (hardware-in-loop)",
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
TIERS = {"unit": "tests/unit", "e2e": "tests/e2e"}


def pytest_collection_finish(session):
    full = [str(a).rstrip("/") for a in session.config.args] in (["tests"], [str(ROOT / "tests")])
    if not full or session.config.option.keyword or session.config.option.markexpr:
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
