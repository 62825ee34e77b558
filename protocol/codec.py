# Frame layer of the jantaku wire protocol (protocol/SPEC.md "Framing"):
#
#   0x7E | LEN | SEQ | MSGID | payload (0..56) | CRC32 little-endian (4)
#
# LEN is the whole frame (8..64); CRC32 (the zlib/IEEE one: reflected, polynomial
# 0xEDB88320) covers LEN..end of payload.  A receiver hunts for 0x7E; a LEN outside 8..64
# or a CRC mismatch drops that one sync byte and hunts again from the next byte, keeping
# what it buffered; so does drop_partial(), which the link calls when the line stayed
# quiet for GAP_MS with a partial frame buffered (a false sync whose LEN waits for bytes
# that never come).
#
# Runs unchanged on MicroPython 1.2x and CPython 3.11.  Nothing here allocates per byte or
# per frame once constructed: buffers are preallocated, and every memoryview the CRC needs
# is cut once (slicing a memoryview allocates on MicroPython; crc32 over a view does not).
#
# The CRC has two implementations with the same result (tests compare them):
# - binascii.crc32 (C) where a small int holds any 32-bit value (CPython, 64-bit
#   MicroPython such as the unix port): its result allocates nothing there;
# - on a 32-bit board small ints stop at 2**30 (31-bit), so binascii.crc32 returns a
#   heap-allocated long integer for three frames in four.  There the CRC runs here, one
#   byte at a time over a 256-entry table kept as two 16-bit halves, so every value is a
#   small int and neither sealing nor checking a frame allocates (proved under
#   micropython.heap_lock() on an emulated Cortex-M: tests/mcu).
import sys
from array import array
from binascii import crc32

from protocol import messages as _m

SYNC = 0x7E
MIN_FRAME = 8
MAX_FRAME = 64
OVERHEAD = 7  # sync, len, seq, crc32 (the msgid is content)
MAX_PAYLOAD = MAX_FRAME - 8
GAP_MS = 50  # a partial frame with no byte for this long is a false sync (SPEC §3)
_SYNC_BYTES = b"\x7e"


def _crc_views(buf):
    """views[L] = buf[1:L-4] (the CRC-covered part of an L-byte frame at buf[0]), for
    binascii's crc32; None where the CRC is computed in halves (a 32-bit board: some
    3.5 KB of views and tuples its heap keeps)."""
    if CRC_HALVES:
        return None
    mv = memoryview(buf)
    return tuple(mv[1 : n - 4] if n >= MIN_FRAME else None for n in range(MAX_FRAME + 1))


def _prefix_views(buf):
    mv = memoryview(buf)
    return tuple(mv[0:n] for n in range(MAX_FRAME + 1))


def _halves_table():
    """The CRC-32 table (reflected 0xEDB88320) as two array('H'): low and high 16
    bits of each entry, computed in halves (no value above 0xFFFF)."""
    lo_t = array("H", bytes(512))
    hi_t = array("H", bytes(512))
    for i in range(256):
        lo = i
        hi = 0
        for _ in range(8):
            carry = lo & 1
            lo = (lo >> 1) | ((hi & 1) << 15)
            hi >>= 1
            if carry:
                lo ^= 0x8320
                hi ^= 0xEDB8
        lo_t[i] = lo
        hi_t[i] = hi
    return lo_t, hi_t


_TLO, _THI = _halves_table()


def _crc_halves_into(buf, n, out, off):
    """CRC-32 of buf[1:n-4], computed in 16-bit halves, written little-endian to
    out[off:off+4].  Only small ints: allocates nothing on a 31-bit small-int port."""
    tlo = _TLO
    thi = _THI
    lo = 0xFFFF
    hi = 0xFFFF
    i = 1
    end = n - 4
    while i < end:
        x = (lo ^ buf[i]) & 0xFF
        lo = ((lo >> 8) | ((hi & 0xFF) << 8)) ^ tlo[x]
        hi = (hi >> 8) ^ thi[x]
        i += 1
    lo ^= 0xFFFF
    hi ^= 0xFFFF
    out[off] = lo & 0xFF
    out[off + 1] = lo >> 8
    out[off + 2] = hi & 0xFF
    out[off + 3] = hi >> 8


_CHECKED = bytearray(4)  # check_halves' CRC, made once (a frame is checked at a time)


def seal_halves(buf, n):
    """seal()'s CRC in 16-bit halves: CRC-32 of buf[1:n-4] written to buf[n-4:n]
    (little-endian); allocates nothing."""
    _crc_halves_into(buf, n, buf, n - 4)


def check_halves(buf, n):
    """True if the CRC in buf[n-4:n] is the CRC-32 of buf[1:n-4] (halves, as
    seal_halves: compares bytes, allocates nothing)."""
    c = _CHECKED
    _crc_halves_into(buf, n, c, 0)
    return (buf[n - 4] == c[0] and buf[n - 3] == c[1] and buf[n - 2] == c[2]
            and buf[n - 1] == c[3])


# Which one runs: binascii's C crc32 where its result is a small int (sys.maxsize above
# 32 bits: CPython, 64-bit MicroPython), the halves on a 32-bit board.
CRC_HALVES = sys.maxsize <= 0xFFFFFFFF


def seal(buf, n, crcv):
    """Write LEN and CRC of the n-byte frame whose header and payload are in buf[0:n-4];
    crcv are buf's cached CRC views."""
    buf[0] = SYNC
    buf[1] = n
    if CRC_HALVES:
        seal_halves(buf, n)
        return
    c = crc32(crcv[n])
    buf[n - 4] = c & 0xFF
    buf[n - 3] = (c >> 8) & 0xFF
    buf[n - 2] = (c >> 16) & 0xFF
    buf[n - 1] = (c >> 24) & 0xFF


def crc_ok(buf, n, crcv):
    """True if the n-byte frame at buf[0] carries the CRC of buf[1:n-4]."""
    if CRC_HALVES:
        return check_halves(buf, n)
    return crc32(crcv[n]) == (buf[n - 4] | (buf[n - 3] << 8) | (buf[n - 2] << 16) | (buf[n - 1] << 24))


class Encoder:
    """Builds one frame at a time in its own buffer `buf` (MAX_FRAME bytes).

    `n = enc.frame(seq, msgid, values)` validates values against the table, writes the
    frame to buf[0:n] and returns n; `enc.view(n)` is the cached memoryview buf[0:n]
    (copy it with `dest[0:n] = enc.view(n)`, no allocation)."""

    def __init__(self):
        self.buf = bytearray(MAX_FRAME)
        self._crcv = _crc_views(self.buf)
        self._pre = _prefix_views(self.buf)

    def frame(self, seq, msgid, values):
        e = _m.BY_ID[msgid]
        if e is None:
            raise _m.ProtocolError(_m.E_UNKNOWN_MSG, _m.NO_FIELD, msgid, "no message 0x%02x" % msgid)
        b = self.buf
        b[2] = seq
        b[3] = msgid
        n = _m.encode_payload(e, values, b, 4) + 4
        seal(b, n, self._crcv)
        return n

    def seal_frame(self, n):
        """Write LEN and CRC of an n-byte frame put in buf[0:n-4] by hand (seq at
        buf[2], msgid at buf[3], the payload after: unchecked, as a test's raw bytes)."""
        seal(self.buf, n, self._crcv)

    def view(self, n):
        return self._pre[n]


class Decoder:
    """Incremental frame decoder.  `feed(data)` takes any bytes-like chunk and calls
    `on_frame(buf, n)` for every frame whose CRC is good, in order; the frame is buf[0:n]
    (seq = buf[2], msgid = buf[3], payload = buf[4:n-4]) and is only valid during the
    call.  Garbage, truncated frames and corrupted frames are skipped; counters say how
    much.  No allocation per byte or per frame; a chunk larger than the free buffer space
    (normally 2 frames) is taken in pieces, which allocates one view per piece."""

    def __init__(self, on_frame, size=2 * MAX_FRAME):
        if size < 2 * MAX_FRAME:
            raise ValueError("decoder buffer must hold 2 frames")
        self.on_frame = on_frame
        self._size = size
        self._buf = bytearray(size)
        self._rcrc = _crc_views(self._buf)
        self._fbuf = bytearray(MAX_FRAME)
        self._fcrc = _crc_views(self._fbuf)
        self._head = 0
        self._tail = 0
        self.frames = 0  # frames delivered
        self.crc_errors = 0  # candidates (sync + plausible LEN) whose CRC failed
        self.len_errors = 0  # sync bytes followed by an impossible LEN
        self.skipped = 0  # bytes discarded while hunting for sync
        self.gap_drops = 0  # partial frames dropped by the gap rule (drop_partial)

    def reset(self):
        self._head = 0
        self._tail = 0

    def pending(self):
        """Bytes buffered but not yet a frame (a partial frame or a candidate)."""
        return self._tail - self._head

    def drop_partial(self):
        """The line went quiet with bytes buffered that are not a whole frame (SPEC
        §3, the gap rule): their first sync byte is a false one.  Drop only it and
        search again from the next byte, as after a bad CRC, so a real frame that
        followed the false sync is handed up now; repeat while what is left holds
        no whole frame (it is as stale).  Returns the sync bytes dropped."""
        k = 0
        while self._tail > self._head:
            self._head += 1
            k += 1
            self._parse()
        self.gap_drops += k
        return k

    def feed(self, data):
        n = len(data)
        if n == 0:
            return
        b = self._buf
        t = self._tail
        if t + n <= self._size:  # the usual case: the chunk fits whole
            b[t : t + n] = data
            self._tail = t + n
            self._parse()
            return
        pos = 0
        mv = memoryview(data)
        while pos < n:
            if self._tail == self._size:
                self._compact()
            t = self._tail
            k = self._size - t
            if k > n - pos:
                k = n - pos
            b[t : t + k] = mv[pos : pos + k]
            self._tail = t + k
            pos += k
            self._parse()

    def _compact(self):
        b = self._buf
        h = self._head
        t = self._tail
        i = 0
        while h < t:
            b[i] = b[h]
            i += 1
            h += 1
        self._head = 0
        self._tail = i

    def _parse(self):
        b = self._buf
        h = self._head
        t = self._tail
        while True:
            if h >= t:
                h = t = 0
                break
            if b[h] != SYNC:
                i = b.find(_SYNC_BYTES, h, t)
                if i < 0:
                    self.skipped += t - h
                    h = t = 0
                    break
                self.skipped += i - h
                h = i
            if t - h < 2:
                break
            n = b[h + 1]
            if n < MIN_FRAME or n > MAX_FRAME:
                self.len_errors += 1
                h += 1
                continue
            if t - h < n:
                break
            if h == 0:
                fb = b
                ok = crc_ok(b, n, self._rcrc)
            else:
                fb = self._fbuf
                k = 0
                while k < n:
                    fb[k] = b[h + k]
                    k += 1
                ok = crc_ok(fb, n, self._fcrc)
            if not ok:
                self.crc_errors += 1
                h += 1
                continue
            h += n
            self.frames += 1
            self._head = h
            self._tail = t
            self.on_frame(fb, n)
            # on_frame may not feed this decoder again; state is as we left it
        self._head = h
        self._tail = t


# ---------------------------------------------------------------- conveniences (allocate)
def encode_frame(seq, msgid, values=()):
    """The frame as bytes (host side, tests, SPEC examples)."""
    enc = Encoder()
    n = enc.frame(seq, msgid, values)
    return bytes(enc.buf[:n])


def decode_frames(data):
    """[(seq, msgid, payload bytes), ...] of every good frame in data."""
    out = []

    def got(buf, n):
        out.append((buf[2], buf[3], bytes(buf[4 : n - 4])))

    Decoder(got).feed(data)
    return out


def decode_message(frame_bytes):
    """(seq, msgid, values) of one whole frame; raises ProtocolError on a bad payload
    and ValueError when it is not exactly one good frame."""
    got = decode_frames(frame_bytes)
    if len(got) != 1 or len(frame_bytes) != frame_bytes[1]:
        raise ValueError("not one good frame")
    seq, msgid, payload = got[0]
    e = _m.BY_ID[msgid]
    if e is None:
        raise _m.ProtocolError(_m.E_UNKNOWN_MSG, _m.NO_FIELD, msgid)
    return seq, msgid, _m.decode_payload(e, payload, 0, len(payload))
