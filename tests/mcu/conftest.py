"""Tier 7 (docs/DESIGN.md §5): the firmware on an emulated microcontroller.

MicroPython's QEMU port for the MPS2-AN385 board (Cortex-M3) under Debian's
qemu-system-arm, the test image (what `jantaku flash` stages, plus the test files) in its
ROMFS, code run over the UART's raw REPL (tests/mcu/qemu.py).  The firmware ELF is given
with `--mcu-firmware PATH` or JANTAKU_MCU_FIRMWARE; without it, or without
qemu-system-arm, every test here is skipped saying which (failed instead with
`--mcu-required`, as `make test-mcu` runs it).  One image per run, one boot per module;
nothing outlives the run (QEMU is killed, the image's folder removed).
"""
import os
import shutil
import tempfile

import pytest

from tests.mcu import qemu


@pytest.fixture(scope="session")
def mcu(request):
    """{"firmware": ELF path, "image": ROMFS image path, "info": build_image's dict,
    "board": check_board's dict (filled by the first boot)}."""
    firmware = request.config.getoption("--mcu-firmware")
    why = None
    if qemu.qemu_binary() is None:
        why = ("qemu-system-arm is not installed (Debian package qemu-system-arm; .ci/run "
               "installs it when run as root)")
    elif not firmware:
        why = ("no firmware for the emulated board: give --mcu-firmware PATH or set "
               "JANTAKU_MCU_FIRMWARE to MicroPython's QEMU port for the MPS2-AN385 "
               "(docs/FIRMWARE.md §10.2)")
    elif not os.path.isfile(firmware):
        why = "the emulated board's firmware %s does not exist" % firmware
    if why:
        if request.config.getoption("--mcu-required"):
            pytest.fail(why)
        pytest.skip(why)
    folder = tempfile.mkdtemp(prefix="jantaku-mcu-")
    try:
        image = os.path.join(folder, "test.romfs")
        info = qemu.build_image(image)
        yield {"firmware": firmware, "image": image, "info": info, "board": None}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def boot(mcu):
    """A new boot of the emulated board (close it when done); checked once per run."""
    b = qemu.Board(mcu["firmware"], mcu["image"])
    if mcu["board"] is None:
        try:
            mcu["board"] = qemu.check_board(b)
        except BaseException:
            b.close()
            raise
    return b


@pytest.fixture(scope="module")
def board(mcu):
    """One boot of the emulated board for a whole test module."""
    b = boot(mcu)
    yield b
    b.close()
