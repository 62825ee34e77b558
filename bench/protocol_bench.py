#!/usr/bin/env python3
"""Protocol benchmark (a script that prints figures, not a test).

    .venv/bin/python bench/protocol_bench.py [--quick]

Prints: overhead bytes per frame (ours and MAVLink v2's); encode+decode frames/s on
CPython and on the MicroPython unix port, beside pymavlink's (MAVLink v2, HEARTBEAT) in
the same run; the command round trip over a real pseudo-terminal pair with the real Link
on both ends (a CPython table peer in a subprocess), median and p99.

Needs the `bench` extra for pymavlink (`make bench` installs it); without it the
pymavlink lines say so.
"""
import argparse
import os
import pathlib
import select
import shutil
import statistics
import subprocess
import sys
import time
import tty

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from protocol import codec  # noqa: E402
from protocol import link as L  # noqa: E402
from protocol import messages as m  # noqa: E402

TILE_VALUES = [7, 2, 12, 1, 1830, 402, 551, 877]
IDENTITY = {"firmware": "bench", "board": "reference-18", "tracks": 4, "max_stacks": 18, "colours": 2}


class WallClock:
    def ticks_ms(self):
        return (time.monotonic_ns() // 1_000_000) & ((1 << 30) - 1)


# ------------------------------------------------------------------ overhead
def overhead():
    print("== overhead")
    print("  jantaku: %d bytes per frame (sync 1, len 1, seq 1, crc32 4); msgid is content" % codec.OVERHEAD)
    for name, vals in (
        ("ack", ()),
        ("tile", TILE_VALUES),
        ("result", (3, m.BUILD, 0, 255)),
        ("heartbeat", (0xC0FFEE01, 0x1A2B3C4D, 3, 93500, 0)),
    ):
        f = codec.encode_frame(0, m.lookup(name)[0], vals)
        print("    %-10s payload %2d + msgid 1 -> frame %2d bytes" % (name, len(f) - 8, len(f)))
    try:
        from pymavlink.dialects.v20 import common as mav

        mv = mav.MAVLink(None, srcSystem=1, srcComponent=1)
        b = mv.heartbeat_encode(6, 8, 0, 0, 4).pack(mv)
        print("  MAVLink v2: %d bytes per frame (HEARTBEAT: payload 9 -> frame %d)" % (len(b) - 9, len(b)))
    except ImportError:
        print("  MAVLink v2: pymavlink not installed (make bench installs it)")


# ------------------------------------------------------------------ CPython encode+decode
def ours_cpython(n):
    enc = codec.Encoder()
    entry = m.BY_ID[m.TILE]
    got = [0]
    decode = m.decode_payload

    def on_frame(buf, k):
        decode(entry, buf, 4, k - 4)
        got[0] += 1

    dec = codec.Decoder(on_frame)
    vals = TILE_VALUES
    frame = enc.frame
    view = enc.view
    feed = dec.feed
    t0 = time.perf_counter()
    for i in range(n):
        feed(view(frame(i & 0xFF, 0x44, vals)))
    dt = time.perf_counter() - t0
    assert got[0] == n
    return n / dt


def pymavlink_cpython(n):
    from pymavlink.dialects.v20 import common as mav

    tx = mav.MAVLink(None, srcSystem=1, srcComponent=1)
    rx = mav.MAVLink(None, srcSystem=2, srcComponent=1)
    got = 0
    t0 = time.perf_counter()
    for i in range(n):
        b = tx.heartbeat_encode(6, 8, 0, 0, 4).pack(tx)
        msgs = rx.parse_buffer(b)
        got += len(msgs)
    dt = time.perf_counter() - t0
    assert got == n
    return n / dt


def best_of(fn, n, runs):
    fn(n // 10)  # warm-up
    return max(fn(n) for _ in range(runs))


# ------------------------------------------------------------------ MicroPython unix port
MPY_SCRIPT = r"""
import time
from protocol import codec, messages as m
enc = codec.Encoder()
entry = m.BY_ID[m.TILE]
got = [0]
def on_frame(buf, k):
    m.decode_payload(entry, buf, 4, k - 4)
    got[0] += 1
dec = codec.Decoder(on_frame)
vals = [7, 2, 12, 1, 1830, 402, 551, 877]
N = %d
best = 0
for run in range(3):
    t0 = time.ticks_us()
    for i in range(N):
        k = enc.frame(i & 0xFF, 0x44, vals)
        dec.feed(enc.view(k))
    dt = time.ticks_diff(time.ticks_us(), t0)
    fps = N * 1000000 // dt
    if fps > best:
        best = fps
print("FPS", best, got[0])
"""


def micropython_bin():
    p = pathlib.Path(sys.executable).parent / "micropython"
    return str(p) if p.exists() else shutil.which("micropython")


def ours_micropython(n):
    mp = micropython_bin()
    if not mp:
        return None
    env = dict(os.environ, MICROPYPATH=str(ROOT))
    r = subprocess.run(
        [mp, "-X", "heapsize=256k", "-c", MPY_SCRIPT % n], capture_output=True, text=True, env=env, timeout=300
    )
    for line in r.stdout.splitlines():
        if line.startswith("FPS"):
            return int(line.split()[1])
    raise RuntimeError("micropython bench failed:\n%s%s" % (r.stdout, r.stderr))


# ------------------------------------------------------------------ pty round trip
MPY_PEER = r"""
import select, time
from protocol import link as L
class Clock:
    def ticks_ms(self):
        return time.ticks_ms()
f = open(%r, "r+b")
def write(buf, n):
    f.write(buf)
lk = L.Link(Clock(), write, lambda mid, v: None, role="device",
            identity={"firmware": "bench", "board": "reference-18", "tracks": 4, "max_stacks": 18, "colours": 2})
po = select.poll()
po.register(f, select.POLLIN)
one = bytearray(1)
rx = bytearray(64)
mv = memoryview(rx)
views = [mv[0:n] for n in range(65)]
while True:
    if po.poll(lk.next_due_ms()):
        n = 0
        while n < 64 and po.poll(0):
            if f.readinto(one) != 1:
                raise SystemExit
            rx[n] = one[0]
            n += 1
        lk.feed(views[n])
    lk.poll()
"""


def peer(path):
    """The table end: a device Link on the pty slave that accepts every command."""
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    tty.setraw(fd)

    def write(buf, n):
        os.write(fd, buf)

    lk = L.Link(WallClock(), write, lambda mid, v: None, role="device", identity=IDENTITY)
    po = select.poll()
    po.register(fd, select.POLLIN)
    while True:
        for _ in po.poll(lk.next_due_ms()):
            try:
                data = os.read(fd, 4096)
            except OSError:
                return
            if not data:
                return
            lk.feed(data)
        lk.poll()


def pty_round_trip(n, runtime="cpython"):
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    if runtime == "cpython":
        proc = subprocess.Popen([sys.executable, __file__, "--peer", path])
    else:
        env = dict(os.environ, MICROPYPATH=str(ROOT))
        proc = subprocess.Popen([micropython_bin(), "-X", "heapsize=256k", "-c", MPY_PEER % path], env=env)
    try:
        state = {"result": None}

        def on_msg(mid, v):
            if mid == m.RESULT:
                state["result"] = time.perf_counter_ns()

        def write(buf, k):
            os.write(master, buf)

        host = L.Link(WallClock(), write, on_msg, role="host")
        po = select.poll()
        po.register(master, select.POLLIN)

        def pump(until):
            while not until():
                for _ in po.poll(max(1, min(host.next_due_ms(), 50))):
                    host.feed(os.read(master, 4096))
                host.poll()

        deadline = time.monotonic() + 10
        pump(lambda: host.connected or time.monotonic() > deadline)
        if not host.connected:
            raise RuntimeError("the pty peer never answered")
        rtts = []
        acks = []
        for i in range(n + 50):
            state["result"] = None
            t0 = time.perf_counter_ns()
            host.send(m.BUILD, ((i % 65535) + 1,))
            t_ack = None
            while state["result"] is None or host.in_flight:
                for _ in po.poll(50):
                    host.feed(os.read(master, 4096))
                    if t_ack is None and host.in_flight == 0:
                        t_ack = time.perf_counter_ns()
                host.poll()
            if i >= 50:  # warm-up excluded
                rtts.append((state["result"] - t0) / 1e6)
                acks.append(((t_ack or state["result"]) - t0) / 1e6)
        return rtts, acks, host.stats()
    finally:
        proc.terminate()
        proc.wait(5)
        os.close(master)
        os.close(slave)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer iterations")
    ap.add_argument("--peer", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.peer:
        peer(a.peer)
        return 0
    n = 20_000 if a.quick else 100_000
    overhead()

    print("== encode + decode, frames/s (TILE event for jantaku, payload decoded to values)")
    ours = best_of(ours_cpython, n, 3)
    print("  jantaku   CPython %s      : %9.0f" % (sys.version.split()[0], ours))
    try:
        pm = best_of(pymavlink_cpython, n, 3)
        print("  pymavlink CPython (HEARTBEAT): %9.0f   (jantaku / pymavlink = %.2fx)" % (pm, ours / pm))
    except ImportError:
        print("  pymavlink: not installed (make bench installs it)")
    mp = ours_micropython(n)
    if mp is None:
        print("  jantaku   MicroPython unix  : micropython not found")
    else:
        print("  jantaku   MicroPython unix  : %9.0f" % mp)

    k = 500 if a.quick else 2000
    print("== round trip over a pseudo-terminal pair, the real Link on both ends (%d commands)" % k)
    print("   host: CPython; command -> its RESULT event, and -> its ACK (sent after the RESULT)")
    for runtime in ("cpython", "micropython"):
        if runtime == "micropython" and not micropython_bin():
            continue
        rtts, acks, st = pty_round_trip(k, runtime)
        print(
            "  table %-11s: result median %.3f ms, p99 %.3f ms; ack median %.3f ms, p99 %.3f ms"
            " (retransmits %d, crc errors %d)"
            % (runtime, statistics.median(rtts), pct(rtts, 99), statistics.median(acks), pct(acks, 99),
               st["retransmits"], st["crc_errors"])
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
