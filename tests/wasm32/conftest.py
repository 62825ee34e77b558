"""Tier 7 (docs/DESIGN.md §6): the firmware on a 32-bit MicroPython in every run: the
WebAssembly port from npm under Node (tests/wasm32/wasm32.py).  Without Node or the
package (`make test` installs it with npm ci) every test here is skipped, saying which.
The board's files are made once per process (what `jantaku flash` stages and the test
files beside them) and removed at the end."""
import shutil
import tempfile

import pytest

from tests.wasm32 import wasm32


@pytest.fixture(scope="session")
def wasm():
    """build_tree's dict: "staged", "extras", "tree"."""
    why = wasm32.missing()
    if why:
        pytest.skip(why)
    folder = tempfile.mkdtemp(prefix="jantaku-wasm32-tree-")
    try:
        yield wasm32.build_tree(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def wasm_pico(wasm):
    """The same with the Raspberry Pi Pico's profile staged (pico-18)."""
    folder = tempfile.mkdtemp(prefix="jantaku-wasm32-tree-")
    try:
        yield wasm32.build_tree(folder, profile="pico-18")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
