"""The firmware on the emulated Cortex-M (prints figures; not a test).

  JANTAKU_MCU_FIRMWARE=path/to/firmware.elf .venv/bin/python bench/mcu_bench.py

MicroPython's QEMU port for the MPS2-AN385 (a Cortex-M3: 32-bit, the RP2040's core is
its smaller sibling), run as tests/mcu runs it (docs/FIRMWARE.md §10.2):

1. the firmware alone as `jantaku flash` leaves it (the staged files loaded into the heap,
   the staged main.py, the host's link on the UART): the smallest heap it starts and
   runs in (a bisection on the free heap, 256-byte steps), and the heap it keeps free
   while running in a RP2040's 215,904 bytes: the margin docs/FIRMWARE.md §8 states;
2. boot to the raw REPL, and STATUS round trips over the UART;
3. what the CRC costs per frame on the board (seal_halves over a TILE frame, check_halves
   over an ACK), beside binascii.crc32, in emulated microseconds: QEMU is no cycle model,
   so read the ratio, not the times.

Without qemu-system-arm or a firmware it says so and stops (make bench runs every
script).
"""
import os
import pathlib
import shutil
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.mcu import qemu  # noqa: E402
from tests.mcu.flashed import RP2040_HEAP, run_as_flashed  # noqa: E402

STEP = 256


def fits(b, heap):
    try:
        run_as_flashed(b, heap=heap, round_trips=3)
        return True
    except (AssertionError, qemu.McuError):
        return False


def main():
    firmware = os.environ.get("JANTAKU_MCU_FIRMWARE")
    if qemu.qemu_binary() is None or not firmware or not os.path.isfile(firmware):
        print("skipped: needs qemu-system-arm and JANTAKU_MCU_FIRMWARE (docs/FIRMWARE.md §10.2)")
        return 0
    folder = tempfile.mkdtemp(prefix="jantaku-mcu-bench-")
    try:
        image = os.path.join(folder, "test.romfs")
        info = qemu.build_image(image)
        print("image: %d bytes, %d staged files, %d test files"
              % (info["bytes"], len(info["staged"]), len(info["extras"])))
        boots = []
        for _ in range(5):
            with qemu.Board(firmware, image) as b:
                boots.append(b.boot_s)
        print("boot to the raw REPL: %s s" % " ".join("%.2f" % x for x in boots))
        with qemu.Board(firmware, image) as b:
            desc = qemu.check_board(b)
            print("board: MicroPython %s, .mpy %d.%d, heap %d bytes" % (desc["version"], desc["mpy"][0],
                                                                       desc["mpy"][1], desc["heap"]))
            r = run_as_flashed(b, heap=RP2040_HEAP, round_trips=50, sample_every=4)
            fig = r["board"]
            print("as flashed in a RP2040's %d-byte heap: %d bytes free while running (least of %d "
                  "collections), %d free after EXIT_REPL (the loaded code stays)"
                  % (RP2040_HEAP, fig["min_free_running"], fig["samples"], fig["after_free"]))
            r = run_as_flashed(b, round_trips=200)
            print("STATUS round trip over the UART: median %.2f ms, max %.2f ms (200)" % r["rtt"])
            lo, hi = 32 * 1024, RP2040_HEAP
            if not fits(b, hi):
                print("the firmware does not start in a RP2040's heap!")
                return 1
            while hi - lo > STEP:
                mid = (lo + hi) // 2 // 16 * 16
                if fits(b, mid):
                    hi = mid
                else:
                    lo = mid
            print("smallest free heap the firmware starts and runs in: %d bytes (%.1f KiB); "
                  "a RP2040's leaves %d bytes (%.0f %%) over"
                  % (hi, hi / 1024, RP2040_HEAP - hi, 100.0 * (RP2040_HEAP - hi) / RP2040_HEAP))
            b.soft_reset()
            out = b.exec('''
import time
from binascii import crc32
from protocol import codec as c, messages as m
f = bytearray(c.encode_frame(1, m.TILE, (1, 2, 3, 1, 100, 200, 300, 400)))
a = bytearray(c.encode_frame(1, m.ACK, ()))
mv = memoryview(f)[1:len(f) - 4]
def per(fn, n=2000):
    t = time.ticks_us()
    for _ in range(n):
        fn()
    return time.ticks_diff(time.ticks_us(), t) / n
print("CRC", len(f), per(lambda: c.seal_halves(f, len(f))), per(lambda: c.check_halves(a, len(a))),
      per(lambda: crc32(mv)), c.CRC_HALVES)
''', timeout=120)
            w = out.split()
            print("CRC on the board (halves: %s): seal_halves over a %s-byte TILE frame %.0f us, "
                  "check_halves over an ACK %.0f us, binascii.crc32 over the TILE's %d bytes %.0f us "
                  "(and a long integer)" % (w[5], w[1], float(w[2]), float(w[3]), int(w[1]) - 5, float(w[4])))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
