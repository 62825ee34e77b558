# The protocol core under the MicroPython unix port (run by tests/unit/test_micropython.py
# with MICROPYPATH=repo root and a bounded heap).  Plain script: prints OK <name> per
# check, exits 1 on the first failure.
import sys

import micropython
import random

from protocol import codec as c
from protocol import link as L
from protocol import messages as m


def check(name, cond):
    if not cond:
        print("FAIL", name)
        sys.exit(1)
    print("OK", name)


def sample(entry, which, rng):
    out = []
    for f in entry[3]:
        t = f[1]
        if t <= m.I32:
            lo, hi = f[2], f[3]
            out.append(lo if which == 0 else hi if which == 1 else lo + rng.getrandbits(32) % (hi - lo + 1))
        else:
            n = f[4] if which == 0 else f[5] if which == 1 else f[4] + rng.getrandbits(8) % (f[5] - f[4] + 1)
            if t == m.STR:
                out.append("x" * n if which != 2 else ("é" * n)[: n // 2] + "a" * (n - 2 * (n // 2)))
            else:
                out.append(tuple(f[2] if which == 0 else f[3] for _ in range(n)))
    return tuple(out)


class Clock:
    def __init__(self, ms=0):
        self.ms = ms

    def ticks_ms(self):
        return self.ms & ((1 << 30) - 1)


IDENT = {"firmware": "0.1.0", "board": "reference-18", "tracks": 4, "max_stacks": 18, "colours": 2}

# ------------------------------------------------------------------ round trip
random.seed(5)
rng = random  # MicroPython's random has no Random class: the module is the generator
ok = True
frames = []
for e in m.MESSAGES:
    for which in (0, 1, 2):
        vals = sample(e, which, rng)
        f = c.encode_frame(which, e[0], vals)
        seq, msgid, back = c.decode_message(f)
        if (seq, msgid, back) != (which, e[0], vals) or f[1] != len(f) or len(f) > c.MAX_FRAME:
            print("round trip", e[1], vals, back)
            ok = False
        frames.append(f)
check("every message round-trips (%d frames)" % len(frames), ok)

err = None
try:
    m.decode("door", b"\x02")
except m.ProtocolError as x:
    err = (x.code, x.field)
check("out of range names the field", err == (m.E_RANGE, 0))
try:
    m.decode("mix", b"\x01")
except m.ProtocolError as x:
    err = (x.code, x.field)
check("short payload names the field", err == (m.E_BAD_LENGTH, 0))
try:
    m.decode("log", b"\x01\x02\xc3\x28")
except m.ProtocolError as x:
    err = (x.code, x.field)
check("bad UTF-8 refused", err == (m.E_RANGE, 1))

# ------------------------------------------------------------------ the CRC's two paths
# codec.CRC_HALVES: the 16-bit halves on a 32-bit board (small ints stop at 2**30), C
# binascii.crc32 where small ints hold 32 bits.  Both give zlib's CRC-32, on any runtime.
from binascii import crc32  # noqa: E402

buf = bytearray(64)
same = True
for n in range(8, 65):
    for k in range(1, n - 4):
        buf[k] = rng.getrandbits(8)
    c.seal_halves(buf, n)
    want = crc32(memoryview(buf)[1 : n - 4])
    got_crc = buf[n - 4] | (buf[n - 3] << 8) | (buf[n - 2] << 16) | (buf[n - 1] << 24)
    if got_crc != want or not c.check_halves(buf, n):
        same = False
    buf[n - 1] ^= 0x80
    if c.check_halves(buf, n):
        same = False
check("CRC in halves equals binascii.crc32, LEN 8..64 (this runtime: %s)" % ("halves" if c.CRC_HALVES else "C"), same)

# ------------------------------------------------------------------ decoder
got = []
dec = c.Decoder(lambda buf, n: got.append(bytes(buf[:n])))
stream = b"".join(frames)
for i in range(0, len(stream), 7):
    dec.feed(stream[i : i + 7])
check("decoder in 7-byte chunks", got == frames)
got[:] = []
dec.reset()
dec.feed(b"\x00\x7e\x7e\x40\x01" + frames[3] + b"\x7e\x09" + frames[4] + bytes(64))
check("decoder resynchronises after garbage", got == [frames[3], frames[4]])

marker = c.encode_frame(0, m.ACK, ())
bad = [0]
seen = [0]


def on_frame(buf, n):
    if bytes(buf[:n]) == marker:
        seen[0] += 1
    else:
        bad[0] += 1


dec = c.Decoder(on_frame)
N = 20000
done = 0
while done < N:
    orig = frames[rng.getrandbits(16) % len(frames)]
    f = bytearray(orig)
    nb = len(f) * 8
    for _ in range(1 + rng.getrandbits(3)):
        i = rng.getrandbits(16) % nb
        f[i >> 3] ^= 1 << (i & 7)
    if bytes(f) == orig:
        continue  # the same bit flipped twice
    x = bytes(f) + marker
    dec.reset()
    dec.feed(x)
    done += 1
check("%d bit-flipped frames: none accepted (%d resyncs)" % (N, seen[0]), bad[0] == 0 and seen[0] > N // 2)

# ------------------------------------------------------------------ link pair, lossy
class Line:
    def __init__(self, rng):
        self.rng = rng
        self.q = []
        self.cut = False

    def write(self, buf, n):
        if self.cut or self.rng.getrandbits(6) == 0:  # ~1.6% dropped
            return
        d = bytearray(buf[:n])
        if self.rng.getrandbits(4) == 0:  # ~6% with a bit error
            i = self.rng.getrandbits(16) % (n * 8)
            d[i >> 3] ^= 1 << (i & 7)
        self.q.append(bytes(d))
        if self.rng.getrandbits(6) == 0:
            self.q.append(bytes(d))  # duplicated

    def take(self):
        if not self.q:
            return None
        x = b"".join(self.q)
        self.q = []
        return x


clk = Clock((1 << 30) - 3000)  # crosses the tick wrap
down = Line(rng)
up = Line(rng)
# Checked as they come, in lists made before the loop: this late in the script the
# heap is fragmented, and a list that grows might find no block big enough.
executed = [0] * 301  # [0]: how many; then the BUILD ids in the order executed
queued = [0] * 301    # [0]: how many; then the TILE indices the device queued
tiles_seen = [0, 0]  # events delivered, events out of order or repeated


def dev_cmd(mid, v):
    executed[0] += 1
    if executed[0] <= 300:
        executed[executed[0]] = v[0]


def host_msg(mid, v):
    if mid == m.TILE:
        tiles_seen[0] += 1
        if tiles_seen[0] > queued[0] or queued[tiles_seen[0]] != v[0]:
            tiles_seen[1] += 1


host = L.Link(clk, down.write, host_msg, role="host", nonce=lambda: 0x1234567)
dev = L.Link(clk, up.write, dev_cmd, role="device", identity=IDENT, boot_nonce=0xB007)
sent = 0
tile = [1, 1, 1, 1, 0, 0, 0, 0]
k = 0
for step in range(200000):
    while host.connected and sent < 300 and host.send(m.BUILD, (sent + 1,)):
        sent += 1
    if dev.connected and k < 300 and step % 3 == 0:
        k += 1
        tile[0] = k
        if dev.send(m.TILE, tile):
            queued[0] += 1
            queued[queued[0]] = k
    x = down.take()
    if x:
        dev.feed(x)
    x = up.take()
    if x:
        host.feed(x)
    host.poll()
    dev.poll()
    if sent == 300 and k == 300 and host.in_flight == 0 and dev.in_flight == 0 and not down.q and not up.q:
        break
    clk.ms += 1
check("300 commands exactly once in order over a lossy line",
      executed[0] == 300 and executed[1:] == list(range(1, 301)))
check("%d events exactly once in order" % queued[0], tiles_seen[0] == queued[0] and tiles_seen[1] == 0 and queued[0] > 100)

# ------------------------------------------------------------------ no allocation
# A connected device link: send a tile event, feed the host's ack, poll.  After a
# warm-up none of it may allocate.
import gc

host = dev = down = up = executed = tiles_seen = queued = dec = frames = stream = got = None
# every global assigned under the lock exists first: a new one could grow the module's
# dict, an allocation of the test's own
caught = fails = i = j = x = waiting = due = None
gc.collect()
micropython.heap_lock()
try:
    x = bytearray(8)
    caught = False
except MemoryError:
    caught = True
micropython.heap_unlock()
check("heap_lock catches an allocation (the checks below mean something)", caught)
out = [0]


def count_write(buf, n):
    out[0] += len(buf)  # the link hands over exactly one frame


clk = Clock(1000)
# nonces of 2**30 and more: long integers on a 32-bit board, which every heartbeat carries
d = L.Link(clk, count_write, dev_cmd, role="device", identity=IDENT, boot_nonce=0xB007B007)
d.feed(c.encode_frame(0, m.CONNECT, (1, 0xC1234567)))
acks = [c.encode_frame(s & 0xFF, m.ACK, ()) for s in range(1, 120)]
d.feed(acks[0])  # IDENTITY acked
pair_acks = [acks[i] + acks[i + 1] for i in range(len(acks) - 1)]
check("device connected", d.connected and d.in_flight == 0)
tile = [7, 2, 1, 1, 100, 200, 300, 400]
dec_got = [0]


def dec_frame(buf, n):
    dec_got[0] += 1


dec = c.Decoder(dec_frame)
ack_frame = acks[5]
two = acks[5] + acks[6]
half1 = ack_frame[:3]
half2 = ack_frame[3:]


def steady(i):
    tile[2] = (i & 63) + 1
    d.send(m.TILE, tile)
    d.feed(acks[i + 1])


for i in range(5):  # warm-up
    steady(i)
    dec.feed(ack_frame)
    dec.feed(two)
    d.poll()

micropython.heap_lock()
try:
    i = 5
    while i < 105:
        steady(i)
        i += 1
    fails = None
except MemoryError:
    fails = "send/feed"
micropython.heap_unlock()
check("send(TILE) + feed(ACK) allocate nothing (100 rounds)", fails is None and d.in_flight == 0)

micropython.heap_lock()
try:
    dec.feed(ack_frame)
    dec.feed(two)  # second frame at an offset: the copy path
    dec.feed(half1)
    dec.feed(half2)
    fails = None
except MemoryError:
    fails = "decoder"
micropython.heap_unlock()
check("decoder.feed allocates nothing (%s, %d)" % (fails, dec_got[0]), fails is None and dec_got[0] == 5 * 3 + 4)

sent_before = out[0]
micropython.heap_lock()
try:
    j = 0
    while j < 10:
        clk.ms += 500
        d.poll()  # sends a heartbeat each time
        j += 1
    fails = None
except MemoryError:
    fails = "poll"
micropython.heap_unlock()
check("poll() with heartbeats allocates nothing", fails is None and out[0] > sent_before)

# uptime past 2**30 ms (12.4 days): a poll that sends no heartbeat still allocates nothing
# (on a 32-bit board the count stays in small ints; only a heartbeat's field is long)
d._up_lo = (1 << 30) - 50
micropython.heap_lock()
try:
    clk.ms += 100  # the next heartbeat is 500 ms after the last
    d.poll()
    fails = None
except MemoryError:
    fails = "poll past 2**30 ms"
micropython.heap_unlock()
check("poll() past 12.4 days of uptime allocates nothing", fails is None and d._up_hi == 1)
d._up_lo = d._up_hi = 0  # (a heartbeat past it does make one: SPEC §15; back to day 0)

# a burst of 4 tiles, then one cumulative ack (the usual case on a busy line)
base = 105
micropython.heap_lock()
try:
    d.send(m.TILE, tile)
    d.send(m.TILE, tile)
    d.send(m.TILE, tile)
    d.send(m.TILE, tile)
    d.feed(acks[base + 4])
    fails = None
except MemoryError:
    fails = "burst"
micropython.heap_unlock()
check("a burst of tiles and a cumulative ack allocate nothing", fails is None and d.in_flight == 0)

# a retransmission (go-back-N from the window's slots) after the timer expires
retx = d.retransmits
written = out[0]
micropython.heap_lock()
try:
    d.send(m.TILE, tile)
    d.send(m.TILE, tile)
    clk.ms += 1000  # past the retransmission timeout
    d.poll()
    d.feed(acks[111])
    fails = None
except MemoryError:
    fails = "retransmit"
micropython.heap_unlock()
check(
    "retransmission from the window allocates nothing",
    fails is None and d.retransmits == retx + 2 and d.in_flight == 0 and out[0] - written >= 4 * 21,
)

# the gap rule (SPEC §3): a false sync with LEN=64 before an ack; the line goes quiet;
# poll() drops the false sync and the ack behind it is taken, allocating nothing
false_then_ack = b"\x7e\x40" + acks[112]
d.send(m.TILE, tile)
waiting = due = None
micropython.heap_lock()
try:
    fails = "feed"
    d.feed(false_then_ack)
    waiting = d.in_flight
    fails = "next_due_ms"
    due = d.next_due_ms()
    clk.ms += c.GAP_MS
    fails = "poll"
    d.poll()
    fails = None
except MemoryError:
    pass
micropython.heap_unlock()
check(
    "a false sync costs one gap, allocating nothing (%s, due %s)" % (fails, due),
    fails is None and waiting == 1 and 0 < due <= c.GAP_MS and d.in_flight == 0 and d.decoder.gap_drops == 1,
)
