"""tests/mpy on the emulated 32-bit board: the same scripts the MicroPython unix port
runs (tests/unit/test_micropython.py, test_sim_micropython.py), here where small ints
stop at 2**30 and the heap is a board's.  Among them the allocation tests under
micropython.heap_lock(): the per-tile path (test_firmware_alloc), the protocol core
with nonces >= 2**30 (test_protocol), the status light (test_firmware_light), a full
136-tile build driven by the simulator with every per-tile step locked
(sim_heap_lock), and the Mixed Deck split and rotation whose builds must be the
same tiles per track as on CPython (sim_firmware, test_sim_physics)."""
import os
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT

SCRIPTS = ["test_compat", "test_sim_rng", "test_protocol", "test_firmware_alloc",
           "test_firmware_light", "test_firmware_controller", "test_firmware_main",
           "test_sim_physics", "sim_heap_lock", "sim_firmware"]
# scripts that print a DIGEST line: the same on CPython (same seed, same builds)
DIGESTS = {"test_sim_physics", "sim_firmware"}


def test_every_mpy_script_is_run_here():
    on_disk = {p.stem for p in (ROOT / "tests" / "mpy").glob("*.py")}
    assert on_disk == set(SCRIPTS), "tests/mpy and this tier's list differ: %s" % (on_disk ^ set(SCRIPTS))


def _cpython_digest(script):
    r = subprocess.run([sys.executable, str(ROOT / "tests" / "mpy" / (script + ".py"))],
                       capture_output=True, text=True, timeout=300, cwd=str(ROOT),
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stdout + r.stderr
    return re.search(r"^DIGEST (.*)$", r.stdout, re.M).group(1)


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.replace("test_", "", 1) for s in SCRIPTS])
def test_mcu_mpy(board, script):
    out, err = board.run_script(script)
    lines = out.splitlines()
    fails = [ln for ln in lines if ln.startswith("FAIL") or ln.startswith("EXIT")]
    assert not err.strip() and not fails, "%s failed on the emulated board:\n%s\n%s" % (script, out, err)
    assert any(ln.startswith("OK ") for ln in lines), "%s ran no check:\n%s" % (script, out)
    if script == "sim_heap_lock":
        m = re.search(r"LOCKED (\d+) OPEN (\d+) EDGES (\d+)", out)
        assert m and int(m.group(1)) > 10 * int(m.group(2)) and int(m.group(3)) >= 272, out
    if script in DIGESTS:
        got = re.search(r"^DIGEST (.*?)\r?$", out, re.M)
        assert got, out
        assert got.group(1) == _cpython_digest(script), "32-bit builds differ from CPython's"
