"""A second host written from protocol/SPEC.md alone: raw bytes over a serial port (a
pseudo-terminal of `jantaku sim serve`, or a real table), with none of protocol/.

It frames and parses by §3 (zlib's CRC-32), and speaks the link by hand: the caller
decides when to connect, ack, ping or stay silent, so a test can look at exactly what
the table does on its own clock.  Every frame received is kept with the wall time it
arrived.  Used by tests/e2e/test_conformance_e2e.py and bench/link_timing.py.
"""
import os
import select
import struct
import time
import tty
import zlib

SYNC = 0x7E
# message ids (§12)
ACK, CONNECT, HEARTBEAT, PING, REJECT = 0x01, 0x02, 0x03, 0x04, 0x05
IDENTIFY, STATUS, CONFIGURE_BUILD, BUILD, DOOR, STOP, ABORT = 0x10, 0x11, 0x12, 0x14, 0x16, 0x17, 0x18
SELF_TEST, CALIBRATE, EXIT_REPL, LIGHT = 0x1A, 0x1B, 0x1C, 0x1D
IDENTITY, RESULT, STATUS_REPLY, STATE, ABOUT = 0x40, 0x41, 0x42, 0x43, 0x4E
# codes (§13)
E_OK, E_UNKNOWN_MSG, E_BAD_LENGTH, E_RANGE, E_UNSUPPORTED = 0, 1, 2, 3, 7
S_IDLE, S_BUILDING, S_PAUSED = 1, 3, 4


def frame(seq, msgid, payload=b""):
    """One frame (§3): sync, LEN, SEQ, MSGID, payload, CRC-32 of bytes 1..LEN-5 (LE)."""
    body = bytes((8 + len(payload), seq & 0xFF, msgid)) + bytes(payload)
    return bytes((SYNC,)) + body + struct.pack("<I", zlib.crc32(body))


class Frame:
    __slots__ = ("t", "seq", "msgid", "payload")

    def __init__(self, t, seq, msgid, payload):
        self.t, self.seq, self.msgid, self.payload = t, seq, msgid, payload

    def __repr__(self):
        return "Frame(t=%.3f seq=%d msgid=0x%02x %s)" % (self.t, self.seq, self.msgid, self.payload.hex())

    def heartbeat(self):
        """(boot_nonce, host_nonce, state, uptime_ms, dropped)"""
        return struct.unpack("<IIBIH", self.payload)

    def result(self):
        """(seq, msgid, code, field)"""
        return tuple(self.payload)

    def identity(self):
        p = self.payload
        i = 2
        out = [p[0], p[1]]
        for _ in range(2):
            n = p[i]
            out.append(p[i + 1:i + 1 + n].decode())
            i += 1 + n
        out += list(struct.unpack("<II", p[i:i + 8])) + list(p[i + 8:i + 11])
        return out  # version, minor, firmware, board, boot, host, tracks, max_stacks, colours

    def status_reply(self):
        p = self.payload
        state, fault, build_id, paused, dropped = struct.unpack("<BBHBH", p[:7])
        n = p[7]
        targets = list(p[8:8 + n])
        k = p[8 + n]
        counts = list(p[9 + n:9 + n + k])
        return state, fault, build_id, paused, dropped, targets, counts


class SpecHost:
    def __init__(self, path):
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(self.fd)
        self.t0 = time.monotonic()
        self.buf = bytearray()
        self.frames = []  # every good frame received, in order
        self.nonce = 0
        self.rx_expected = 0  # the table's next event seq (we ack up to it)
        self.tx_next = 0  # our next command seq
        self.auto_ack = False  # ack in-order events as they come (§6 receiver)
        self.sent_at = 0.0  # wall time of our last frame

    def close(self):
        os.close(self.fd)

    def now(self):
        return time.monotonic() - self.t0

    # -- bytes -------------------------------------------------------------------------------
    def write(self, data):
        os.write(self.fd, data)
        self.sent_at = self.now()

    def _parse(self, t):
        b = self.buf
        while True:
            i = b.find(bytes((SYNC,)))
            if i < 0:
                del b[:]
                return
            del b[:i]
            if len(b) < 2:
                return
            n = b[1]
            if n < 8 or n > 64:
                del b[:1]
                continue
            if len(b) < n:
                return
            if zlib.crc32(bytes(b[1:n - 4])) != struct.unpack("<I", bytes(b[n - 4:n]))[0]:
                del b[:1]
                continue
            f = Frame(t, b[2], b[3], bytes(b[4:n - 4]))
            del b[:n]
            self.frames.append(f)
            if self.auto_ack and f.msgid >= 0x10:
                if f.seq == self.rx_expected:
                    self.rx_expected = (self.rx_expected + 1) & 0xFF
                self.write(frame(self.rx_expected, ACK))

    def pump(self, seconds):
        """Read (and auto-ack if asked) for `seconds` of wall time."""
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return
            r, _, _ = select.select([self.fd], [], [], min(left, 0.05))
            if r:
                try:
                    data = os.read(self.fd, 4096)
                except (BlockingIOError, OSError):
                    data = b""
                if data:
                    self.buf += data
                    self._parse(self.now())

    def wait_for(self, pred, timeout, since=0):
        """The first frame from index `since` on for which pred(frame) holds, or None."""
        end = time.monotonic() + timeout
        i = since
        while True:
            while i < len(self.frames):
                if pred(self.frames[i]):
                    return self.frames[i]
                i += 1
            if time.monotonic() >= end:
                return None
            self.pump(min(0.02, max(0.0, end - time.monotonic())))

    def mark(self):
        return len(self.frames)

    def since(self, k, msgid=None):
        return [f for f in self.frames[k:] if msgid is None or f.msgid == msgid]

    # -- link --------------------------------------------------------------------------------
    def connect(self, nonce, ack=True, timeout=3.0):
        """§7: connect (every 250 ms) until identity (seq 0, our nonce); ack it and about.
        Returns identity's values."""
        self.nonce = nonce
        k = self.mark()
        end = time.monotonic() + timeout
        ident = None
        while ident is None and time.monotonic() < end:
            self.write(frame(0, CONNECT, struct.pack("<BI", 1, nonce)))
            ident = self.wait_for(lambda f: f.msgid == IDENTITY and f.seq == 0
                                  and f.identity()[5] == nonce, 0.25, k)
        if ident is None:
            raise AssertionError("no identity within %.1f s: %r" % (timeout, self.frames[k:][-5:]))
        self.tx_next = 0
        self.rx_expected = 0
        if ack:
            self.rx_expected = 1
            self.write(frame(1, ACK))
            about = self.wait_for(lambda f: f.msgid == ABOUT and f.seq == 1, 1.0, k)
            assert about is not None, "no about after identity"
            self.rx_expected = 2
            self.write(frame(2, ACK))
        return ident.identity()

    def ping(self):
        self.write(frame(0, PING, struct.pack("<I", self.nonce)))

    def command(self, msgid, payload=b"", *, prefix=b""):
        """Send a command as our next seq; returns the seq."""
        seq = self.tx_next
        self.tx_next = (seq + 1) & 0xFF
        self.write(prefix + frame(seq, msgid, payload))
        return seq

    def result_of(self, seq, timeout=2.0, since=0):
        f = self.wait_for(lambda f: f.msgid == RESULT and f.result()[0] == seq, timeout, since)
        return None if f is None else f.result()

    def call(self, msgid, payload=b"", timeout=2.0):
        """A command and its result (auto_ack must be on): (code, field)."""
        k = self.mark()
        seq = self.command(msgid, payload)
        r = self.result_of(seq, timeout, k)
        assert r is not None, "no result for 0x%02x: %r" % (msgid, self.frames[k:])
        return r[2], r[3]

    def heartbeats(self, since=0):
        return [f for f in self.frames[since:] if f.msgid == HEARTBEAT]
