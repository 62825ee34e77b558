"""The firmware and the simulator under the real MicroPython unix port with a bounded
heap: complete builds (Mixed Deck split and rotation), the per-tile path under
micropython.heap_lock(), and the same tiles per track as CPython for a seed.

The scripts live in tests/mpy/. test_sim_*.py ones fit the 320k heap of
tests/unit/test_micropython.py and run there too; sim_*.py need the firmware, the
simulator and a host link in one process and run here with a 640k heap: the port
compiles every module from source into that same heap (about 220 KiB of bytecode, and
the compiler's own blocks), which 512k only just held.  The firmware's own heap is
measured apart (bench/sim_bench.py: peak 52 KiB)."""
import os
import re
import subprocess
import sys

import pytest

from sim_helpers import ROOT

HEAP = "640k"


def run_mp(micropython_bin, script, heap=HEAP, *args):
    env = dict(os.environ, MICROPYPATH="%s:.frozen" % ROOT)
    r = subprocess.run([micropython_bin, "-X", "heapsize=%s" % heap, str(ROOT / "tests" / "mpy" / script)]
                       + list(args),
                       capture_output=True, text=True, timeout=600, env=env, cwd=str(ROOT))
    assert r.returncode == 0, "%s failed under MicroPython (heap %s):\n%s\n%s" % (script, heap, r.stdout, r.stderr)
    assert "OK " in r.stdout and "FAIL" not in r.stdout
    return r.stdout


def run_cp(script, *args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, str(ROOT / "tests" / "mpy" / script)] + list(args),
                       capture_output=True, text=True,
                       timeout=600, env=env, cwd=str(ROOT))
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def digest(out):
    m = re.search(r"^DIGEST (.*)$", out, re.M)
    assert m, out
    return m.group(1)


def test_physics_same_on_both_runtimes(micropython_bin):
    assert digest(run_mp(micropython_bin, "test_sim_physics.py", heap="320k")) == digest(run_cp("test_sim_physics.py"))


BOARDS = pytest.mark.parametrize("board", ["reference-18", "fourport-24v"], ids=["reference", "fourport"])


@BOARDS
def test_firmware_builds_same_on_both_runtimes(micropython_bin, board):
    """Mixed Deck split, hand over, rotation: identical builds (tiles per track, build
    times, boot nonce) with the firmware + simulator on MicroPython and on CPython, on
    both mechanism families."""
    # (the four-port machine's firmware and simulator compile from source into that heap
    # too: 768k holds them)
    mp = run_mp(micropython_bin, "sim_firmware.py", HEAP if board == "reference-18" else "768k", board)
    assert "OK deck A's composition reproduced" in mp
    assert digest(mp) == digest(run_cp("sim_firmware.py", board))


@BOARDS
def test_per_tile_path_allocates_nothing(micropython_bin, board):
    out = run_mp(micropython_bin, "sim_heap_lock.py", HEAP if board == "reference-18" else "768k", board)
    m = re.search(r"LOCKED (\d+) OPEN (\d+) EDGES (\d+)", out)
    assert m and int(m.group(1)) > 10 * int(m.group(2)) and int(m.group(3)) >= 272


@pytest.mark.parametrize("heap", ["192k"])
def test_a_too_small_heap_fails_loudly(micropython_bin, heap):
    """The bounded heap is real: the full firmware + simulator + host does not fit 192k."""
    env = dict(os.environ, MICROPYPATH="%s:.frozen" % ROOT)
    r = subprocess.run([micropython_bin, "-X", "heapsize=%s" % heap, str(ROOT / "tests" / "mpy" / "sim_firmware.py")],
                       capture_output=True, text=True, timeout=300, env=env, cwd=str(ROOT))
    assert r.returncode != 0 and "MemoryError" in r.stderr + r.stdout
