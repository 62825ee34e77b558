"""tests/mpy on the emulated 32-bit board: the same scripts the MicroPython unix port
runs (tests/unit/test_micropython.py, test_sim_micropython.py), here where small ints
stop at 2**30 and the heap is a board's.  Among them the allocation tests under
micropython.heap_lock(): the per-tile path (test_firmware_alloc), the protocol core
with nonces >= 2**30 (test_protocol), the status light (test_firmware_light), a full
136-tile build driven by the simulator with every per-tile step locked
(sim_heap_lock), and the Mixed Deck split and rotation whose builds must be the
same tiles per track as on CPython (sim_firmware, test_sim_physics)."""
import pytest

from tests.board_image import SCRIPTS, check_script
from tests.conftest import ROOT


def test_every_mpy_script_is_run_here():
    on_disk = {p.stem for p in (ROOT / "tests" / "mpy").glob("*.py")}
    assert on_disk == set(SCRIPTS), "tests/mpy and this tier's list differ: %s" % (on_disk ^ set(SCRIPTS))


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.replace("test_", "", 1) for s in SCRIPTS])
def test_mcu_mpy(board, script):
    out, err = board.run_script(script)
    assert not err.strip(), "%s failed on the emulated board:\n%s\n%s" % (script, out, err)
    check_script(script, out, "the emulated board")
