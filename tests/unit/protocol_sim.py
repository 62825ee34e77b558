"""A virtual-time serial line and a host/device Link pair for protocol tests and the
bench: bit errors, dropped and duplicated frames, inserted garbage, cuts, all seeded."""
import collections
import math
import random

from protocol import link as L
from protocol import messages as m

IDENTITY = {"firmware": "0.1.0", "board": "reference-18", "tracks": 4, "max_stacks": 18, "colours": 2}


class VClock:
    """Virtual clock in microseconds; ticks_ms wraps like MicroPython's (2**30)."""

    def __init__(self, start_ms=0):
        self.us = start_ms * 1000

    def ticks_ms(self):
        return (self.us // 1000) & ((1 << 30) - 1)

    def ms(self):
        return self.us // 1000


class Line:
    """One direction of a serial line at `baud`, 10 bits per byte."""

    def __init__(self, clock, rng, *, ber=0.0, drop=0.0, dup=0.0, garbage=0.0, baud=115200, latency_us=300):
        self.clock = clock
        self.rng = rng
        self.ber = ber
        self.drop = drop
        self.dup = dup
        self.garbage = garbage
        self.byte_us = 10_000_000 // baud
        self.latency_us = latency_us
        self.q = collections.deque()  # (arrival_us, bytes)
        self.free_us = 0
        self.cut = False
        self._gap = self._next_gap()
        self.frames = self.dropped = self.duplicated = self.flipped_bits = 0

    def _next_gap(self):
        if self.ber <= 0:
            return 1 << 62
        u = self.rng.random()
        return int(math.log(1.0 - u) / math.log(1.0 - self.ber))

    def write(self, buf, n):
        assert len(buf) == n
        data = bytes(buf)
        self.frames += 1
        if self.cut:
            return
        if self.rng.random() < self.drop:
            self.dropped += 1
            return
        copies = 1
        if self.rng.random() < self.dup:
            copies = 2
            self.duplicated += 1
        for _ in range(copies):
            d = bytearray(data)
            if self.garbage and self.rng.random() < self.garbage:
                d[0:0] = self.rng.randbytes(self.rng.randint(1, 6))
            bits = len(d) * 8
            pos = 0
            while self._gap < bits - pos:
                pos += self._gap
                d[pos >> 3] ^= 1 << (pos & 7)
                self.flipped_bits += 1
                pos += 1
                self._gap = self._next_gap()
            self._gap -= bits - pos
            start = max(self.clock.us, self.free_us)
            self.free_us = start + len(d) * self.byte_us
            self.q.append((self.free_us + self.latency_us, bytes(d)))

    def next_us(self):
        return self.q[0][0] if self.q else None

    def take(self):
        """Everything that has arrived by now, as one chunk (None if nothing)."""
        out = []
        now = self.clock.us
        while self.q and self.q[0][0] <= now:
            out.append(self.q.popleft()[1])
        return b"".join(out) if out else None


class Pair:
    """A host Link and a device Link joined by two Lines, driven in virtual time."""

    def __init__(self, seed=1, *, start_ms=0, on_command=None, host_kw=None, dev_kw=None, **line_kw):
        self.rng = random.Random(seed)
        self.clock = VClock(start_ms)
        self.down = Line(self.clock, random.Random(self.rng.random()), **line_kw)  # host -> device
        self.up = Line(self.clock, random.Random(self.rng.random()), **line_kw)  # device -> host
        self.host_events = []
        self.dev_events = []
        self.host_msgs = []
        self.commands = []
        self.host_bad = []
        self.dev_bad = []
        self.on_command = on_command
        nonces = random.Random(seed + 1000)
        hk = dict(on_link=self.host_events.append, on_bad=lambda *a: self.host_bad.append(a))
        hk["nonce"] = lambda: nonces.getrandbits(32) or 1
        hk.update(host_kw or {})
        self.host = L.Link(self.clock, self.down.write, self._host_msg, role="host", **hk)
        self.dev_kw = dict(dev_kw or {})
        self.dev_boots = 0
        self.dev = None
        self.boot_device()

    def boot_device(self, **kw):
        self.dev_boots += 1
        dk = dict(
            on_link=self.dev_events.append,
            on_bad=lambda *a: self.dev_bad.append(a),
            identity=IDENTITY,
            boot_nonce=0x1000 + self.dev_boots,
        )
        dk.update(self.dev_kw)
        dk.update(kw)
        self.dev = L.Link(self.clock, self.up.write, self._dev_msg, role="device", **dk)
        return self.dev

    def _host_msg(self, msgid, values):
        self.host_msgs.append((msgid, values))

    def _dev_msg(self, msgid, values):
        self.commands.append((msgid, values))
        if self.on_command is not None:
            return self.on_command(msgid, values)
        return None

    def step(self, until_us=None):
        """Advance to the next thing that happens (a due timer or an arrival), not past
        until_us; deliver and poll.  Returns the new time."""
        c = self.clock
        cands = [
            (c.ms() + self.host.next_due_ms()) * 1000,
            (c.ms() + self.dev.next_due_ms()) * 1000,
        ]
        for line in (self.down, self.up):
            t = line.next_us()
            if t is not None:
                cands.append(t)
        t = min(cands)
        if until_us is not None and t > until_us:
            t = until_us
        if t > c.us:
            c.us = t
        x = self.down.take()
        if x:
            self.dev.feed(x)
        x = self.up.take()
        if x:
            self.host.feed(x)
        self.host.poll()
        self.dev.poll()
        return c.us

    def run_ms(self, ms):
        end = self.clock.us + ms * 1000
        while self.clock.us < end:
            self.step(end)

    def run_until(self, cond, max_ms=60_000):
        end = self.clock.us + max_ms * 1000
        while not cond():
            if self.clock.us >= end:
                raise AssertionError("condition not met within %d ms of virtual time" % max_ms)
            self.step(end)

    def connect(self):
        self.run_until(lambda: self.host.connected and self.dev.connected)

    def results(self):
        return [v for mid, v in self.host_msgs if mid == m.RESULT]
