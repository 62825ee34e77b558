# Sans-IO reliable link of the jantaku wire protocol (protocol/SPEC.md "Reliability",
# "Handshake", "Heartbeats").  The same class serves both ends: role="host" (hostd) and
# role="device" (firmware).  It never reads a port, sleeps or spawns: the owner feeds it
# received bytes, calls poll() when next_due_ms() says so, and gives it:
#
#   clock             object with ticks_ms() (wrapping ticks, MicroPython style)
#   write(buf, n)     sends buf, a memoryview of exactly n bytes (one frame); it must
#                     send or copy them before returning: the link reuses the memory
#   on_message(msgid, values)
#                     a sequenced message delivered exactly once, in order.  On the
#                     device it is a command and its return value is the command's
#                     result: None or 0 = ok, an error code (messages.E_*), or a
#                     (code, field_index) pair; the link sends the RESULT event.
#   on_link(event)    LOST, UP, NEW, PEER_RESET, INCOMPATIBLE or RESYNC (below); optional
#   on_bad(msgid, code, field)
#                     a frame with a good CRC that did not match the table; optional
#
# Runs unchanged on MicroPython 1.2x and CPython 3.11.  In steady state send() of an
# event whose values the caller keeps in a preallocated list, feed() of ACK frames and
# poll() allocate nothing on MicroPython (tests/mpy/test_protocol.py proves it).
from protocol import messages as _m
from protocol.codec import GAP_MS, MAX_FRAME, Decoder, Encoder

# link events given to on_link
LOST = 0  # nothing heard for silence_ms: the peer or the line is gone (session kept)
UP = 1  # heard again after LOST, same session: queued frames go out now, nothing lost
NEW = 2  # a new session: sequence numbers restarted (host: IDENTITY received;
#          device: a host connected with a new nonce).  Unacked frames were discarded.
PEER_RESET = 3  # host only: the table rebooted or forgot our session; reconnecting
INCOMPATIBLE = 4  # host only: the table speaks no protocol version we speak (see .error)
RESYNC = 5  # host only: the table acked behind what it had acked (it lacks frames the host
#             took as delivered: a forged or corrupt ack); a new session is being made,
#             the table's state untouched (SPEC §6 "Out of step")
LINK_EVENTS = ("lost", "up", "new", "peer_reset", "incompatible", "resync")

# MicroPython ticks arithmetic (period 2**30); valid for any clock whose period is a
# multiple of 2**30 as long as compared instants are less than 2**29 ms apart.
_TMASK = (1 << 30) - 1
_THALF = 1 << 29


def ticks_diff(a, b):
    return ((a - b + _THALF) & _TMASK) - _THALF


def ticks_add(t, delta):
    return (t + delta) & _TMASK


def random_nonce():
    """A random u32 other than 0 (host session nonce, device boot nonce).

    From os.urandom where the runtime has it (CPython, the unix port, RP2040/RP2350
    and most boards); else from random, reseeded with timing (_timing_entropy): a port
    without a random source (MicroPython's QEMU board) starts random in the same state
    at every reset, and its nonce would repeat (SPEC §7: the boot nonce is how a host
    tells a reset; §15)."""
    try:
        import os

        b = os.urandom(4)
        v = b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)
    except (ImportError, AttributeError, NotImplementedError, OSError):
        import random

        random.seed(random.getrandbits(32) ^ _timing_entropy())
        v = random.getrandbits(32)
    return v if v else 1


def _timing_entropy():
    """32 bits from timing, for a runtime without a random source: the microseconds
    since reset when it runs (after imports and checks whose length varies from boot
    to boot) and the jitter of 32 short waits, folded together.  Weak next to a
    hardware source, enough to tell one boot from the next."""
    try:
        from time import ticks_us
    except ImportError:  # CPython (which has os.urandom: only tests come here)
        from time import monotonic_ns

        def ticks_us():
            return monotonic_ns() // 1000

    h = ticks_us() & 0x3FFFFFFF
    j = 0
    while j < 32:
        t = ticks_us()
        k = 0
        while k < 40:
            k += 1
        h = (h * 31 + ticks_us() - t) & 0xFFFFFFFF
        j += 1
    return h


_CMD_SLOTS = 2  # free tx slots a device needs before taking a command (reply + RESULT)


class Link:
    def __init__(
        self,
        clock,
        write,
        on_message,
        *,
        role="host",
        on_link=None,
        on_bad=None,
        window=8,
        heartbeat_ms=500,
        silence_ms=2000,
        connect_ms=250,
        rto_init_ms=200,
        rto_min_ms=25,
        rto_max_ms=5000,
        gap_ms=GAP_MS,
        nonce=None,
        boot_nonce=None,
        identity=None,
        version=_m.PROTOCOL_VERSION
    ):
        if role != "host" and role != "device":
            raise ValueError("role must be 'host' or 'device'")
        if window < 1 or window > 127:
            raise ValueError("window must be 1..127")
        self.role = role
        self._dev = role == "device"
        self._clock = clock
        self._write = write
        self._on_message = on_message
        self._on_link = on_link
        self._on_bad = on_bad
        self._hb_ms = heartbeat_ms
        self._silence_ms = silence_ms
        self._connect_ms = connect_ms
        self._gap_ms = gap_ms
        self._rto_min = rto_min_ms
        self._rto_max = rto_max_ms
        self._enc = Encoder()
        self._dec = Decoder(self._on_frame)
        # transmit window: preallocated frame slots, a ring from _head
        self._win = window
        self._slots = [bytearray(MAX_FRAME) for _ in range(window)]
        self._slen = [0] * window
        self._stime = [0] * window  # tick of the last transmission
        self._sretx = [0] * window  # 1 once retransmitted (no RTT sample: Karn)
        self._head = 0
        self._count = 0
        self._base = 0  # seq of the oldest unacked frame
        self._next = 0  # seq of the next new frame
        self._nak_at = -1  # ack value we last fast-retransmitted on
        self._rx_next = 0  # next sequenced frame we will deliver
        self._ack_pending = False
        self._want_nak = False
        # retransmission timer (RFC 6298): srtt*8 and rttvar*4 in ms, -1 = no sample yet
        self._srtt8 = -1
        self._rttvar4 = 0
        self._rto_base = self._clamp(rto_init_ms)
        self.rto_ms = self._rto_base  # current timeout (doubled on each expiry)
        self._rt_on = False
        self._rt_due = 0
        now = clock.ticks_ms()
        self._now = now
        self._last_rx = now
        self._rx_at = now  # when bytes last arrived (the gap rule, SPEC §3)
        self._hb_due = now  # first heartbeat at the first poll()
        self._hb_dropped = 0  # (device) `dropped` as the last heartbeat told it
        self._conn_due = now
        self._t_up = now
        # uptime in two small ints, so that no poll makes a long integer on a board: the
        # ms below 2**30, and how many times 2**30 passed (mod 4: the field wraps at 2**32)
        self._up_lo = 0
        self._up_hi = 0
        # session
        self.session = 0  # host nonce of the current session, 0 = none
        self._established = False
        self._connecting = False
        self.connected = False  # a session is up and the peer was heard recently
        self.lost = False  # a session exists but the peer went silent
        self.error = None  # text, after INCOMPATIBLE
        self.version = version
        self.rx_seq = -1  # seq of the message being delivered to on_message
        self.sent_seq = -1  # seq given to the last message send() queued
        # counters
        self.dropped = 0  # device: events send() refused (window full or no session)
        self.retransmits = 0
        self.timeouts = 0
        self.naks = 0  # fast retransmits on a repeated ack
        self.dups = 0  # duplicate sequenced frames received (re-acked)
        self.gaps = 0  # frames ahead of the expected seq (dropped, re-acked as NAK)
        self.resyncs = 0  # host: sessions made again because the table acked behind
        self.deferred = 0  # device: commands left unacked until the tx window had room
        self.bad = 0  # frames that did not match the table
        if self._dev:
            if identity is None:
                raise ValueError("a device link needs identity=")
            self.boot_nonce = boot_nonce if boot_nonce else random_nonce()
            self.table_state = _m.S_BOOT  # the firmware keeps this current for heartbeats
            self._hbv = [self.boot_nonce, 0, 0, 0, 0]
            self._idv = [
                version,
                _m.PROTOCOL_MINOR,
                identity["firmware"],
                identity["board"],
                self.boot_nonce,
                1,
                identity["tracks"],
                identity["max_stacks"],
                identity["colours"],
            ]
            self._enc.frame(0, _m.IDENTITY, self._idv)  # validates identity now
            # ABOUT (seq 1) completes the handshake: runtime and colour class names
            self._aboutv = None
            if identity.get("implementation"):
                self._aboutv = [identity["implementation"], identity["version"],
                                identity["colour_names"]]
                self._enc.frame(1, _m.ABOUT, self._aboutv)
            self._resv = [0, 0, 0, 0]
        else:
            self._new_nonce = nonce if nonce is not None else random_nonce
            self._pingv = [0]
            self._connv = [version, 1]
            self.identity = None  # values of the last IDENTITY
            self.peer_boot_nonce = 0
            self.peer_rebooted = False  # set at NEW: the table's boot nonce changed
            self.peer_heartbeat = None  # values of the last table heartbeat
            self._connect(False)

    # ------------------------------------------------------------ public
    @property
    def decoder(self):
        return self._dec

    @property
    def in_flight(self):
        """Sequenced frames sent and not yet acknowledged."""
        return self._count

    @property
    def free(self):
        """How many more sequenced messages send() would take now."""
        return self._win - self._count if self._established else 0

    def connect(self):
        """Host: start a new session now (new nonce).  Called at construction; call it
        again only to force a fresh session (e.g. after INCOMPATIBLE was fixed)."""
        if self._dev:
            raise ValueError("only the host connects")
        self._connect(True)

    def send(self, msgid, values):
        """Queue a sequenced message (host: a command; device: an event).  Returns False
        without queueing when there is no session or the window is full (device: the
        event is counted in .dropped; the host recovers with a status query).  values is
        any indexable; the link copies it into a frame at once, so one list per message
        kind can be refilled and reused."""
        if not self._established or self._count >= self._win:
            if self._dev:
                self.dropped += 1
            return False
        e = _m.BY_ID[msgid]
        if e is None or e[2] != (_m.EVT if self._dev else _m.CMD):
            raise ValueError("a %s cannot send %s" % (self.role, _m.name_of(msgid)))
        self._now = self._clock.ticks_ms()
        self._queue(msgid, values)
        return True

    def feed(self, data):
        """Bytes received from the peer (any chunking)."""
        now = self._clock.ticks_ms()
        self._now = now
        if len(data):
            self._rx_at = now
        try:
            self._dec.feed(data)
        finally:
            self._rx_done()

    def _rx_done(self):
        # after frames were handed up: one ack for all of them, and UP after LOST
        if self._ack_pending:
            self._ack_pending = False
            self._send_unseq(self._rx_next, _m.ACK, ())
        if self.lost and self._established and ticks_diff(self._now, self._last_rx) < self._silence_ms:
            self._up()

    def poll(self):
        """Run timers: retransmission, heartbeats, connect attempts, silence."""
        now = self._clock.ticks_ms()
        self._now = now
        self._tick_uptime(now)
        dec = self._dec
        if dec.pending() and ticks_diff(now, self._rx_at) >= self._gap_ms:
            # the gap rule (SPEC §3): a partial frame the line stopped sending is a
            # false sync; a frame after it is delivered now, not when LEN bytes came
            try:
                dec.drop_partial()
            finally:
                self._rx_done()
        if self._rt_on and ticks_diff(now, self._rt_due) >= 0:
            self.timeouts += 1
            rto = self.rto_ms * 2
            self.rto_ms = rto if rto < self._rto_max else self._rto_max
            self._retransmit()
        if self._established and not self.lost and ticks_diff(now, self._last_rx) >= self._silence_ms:
            self.lost = True
            self.connected = False
            self._event(LOST)
        if ticks_diff(now, self._hb_due) >= 0:
            self._hb_due = ticks_add(now, self._hb_ms)
            if self._dev:
                self._send_heartbeat()
            elif self._established:
                self._pingv[0] = self.session
                self._send_unseq(0, _m.PING, self._pingv)
        if self._connecting and ticks_diff(now, self._conn_due) >= 0:
            self._conn_due = ticks_add(now, self._connect_ms)
            self._send_unseq(0, _m.CONNECT, self._connv)

    def next_due_ms(self):
        """Milliseconds until poll() has something to do (0 = now)."""
        # (ticks_diff inlined: both ends ask this after every frame)
        now = self._clock.ticks_ms()
        d = ((self._hb_due - now + _THALF) & _TMASK) - _THALF
        if self._rt_on:
            x = ((self._rt_due - now + _THALF) & _TMASK) - _THALF
            if x < d:
                d = x
        if self._established and not self.lost:
            x = self._silence_ms - (((now - self._last_rx + _THALF) & _TMASK) - _THALF)
            if x < d:
                d = x
        if self._connecting:
            x = ((self._conn_due - now + _THALF) & _TMASK) - _THALF
            if x < d:
                d = x
        dec = self._dec
        if dec.pending():
            x = self._gap_ms - (((now - self._rx_at + _THALF) & _TMASK) - _THALF)
            if x < d:
                d = x
        return d if d > 0 else 0

    def stats(self):
        d = self._dec
        return {
            "role": self.role,
            "connected": self.connected,
            "lost": self.lost,
            "session": self.session,
            "in_flight": self._count,
            "rto_ms": self.rto_ms,
            "srtt_ms": (self._srtt8 >> 3) if self._srtt8 >= 0 else None,
            "dropped": self.dropped,
            "retransmits": self.retransmits,
            "timeouts": self.timeouts,
            "naks": self.naks,
            "dups": self.dups,
            "gaps": self.gaps,
            "resyncs": self.resyncs,
            "deferred": self.deferred,
            "bad": self.bad,
            "frames": d.frames,
            "crc_errors": d.crc_errors,
            "len_errors": d.len_errors,
            "skipped": d.skipped,
            "gap_drops": d.gap_drops,
        }

    # ------------------------------------------------------------ transmit
    def _queue(self, msgid, values):
        enc = self._enc
        n = enc.frame(self._next, msgid, values)
        i = self._head + self._count
        if i >= self._win:
            i -= self._win
        s = self._slots[i]
        s[0:n] = enc.view(n)
        self._slen[i] = n
        self._stime[i] = self._now
        self._sretx[i] = 0
        self.sent_seq = self._next
        self._next = (self._next + 1) & 0xFF
        self._count += 1
        if not self._rt_on:
            self._rt_on = True
            self._rt_due = ticks_add(self._now, self.rto_ms)
        if not self._dev or self.dropped == self._hb_dropped:
            self._hb_due = ticks_add(self._now, self._hb_ms)  # (see _send_unseq)
        self._write(enc.view(n), n)

    def _send_unseq(self, seq, msgid, values):
        enc = self._enc
        n = enc.frame(seq, msgid, values)
        if not self._dev or self.dropped == self._hb_dropped:
            # a side's heartbeat (the host's ping) goes out only after a heartbeat
            # period of its own silence: any frame it sends feeds the peer's
            # silence timer as well.  The table's comes on time all the same once
            # it dropped an event since its last one: it carries the count (SPEC §8)
            self._hb_due = ticks_add(self._now, self._hb_ms)
        self._write(enc.view(n), n)

    def _retransmit(self):
        """Go-back-N: every unacked frame again, oldest first; restart the timer."""
        i = self._head
        k = 0
        now = self._now
        buf = self._enc.buf
        while k < self._count:
            self._sretx[i] = 1
            self._stime[i] = now
            buf[0:MAX_FRAME] = self._slots[i]  # same length: an in-place copy
            n = self._slen[i]
            self._write(self._enc.view(n), n)
            i += 1
            if i == self._win:
                i = 0
            k += 1
        self.retransmits += self._count
        if self._count:
            self._rt_on = True
            self._rt_due = ticks_add(now, self.rto_ms)

    def _on_ack(self, a):
        n = self._count
        d = (a - self._base) & 0xFF
        if d > n:
            if not self._dev and (self._base - a) & 0xFF <= self._win:
                # behind what it acked: the table lacks frames we took as delivered, and
                # would drop every later one as a gap for good (SPEC §6 "Out of step")
                self.resyncs += 1
                self._connect(True)
                self._event(RESYNC)
            return  # stale or from another session
        if d == 0:
            if n and a != self._nak_at:
                self._nak_at = a  # once per base: later repeats are echoes of one gap
                self.naks += 1
                self._retransmit()
            return
        i = self._head + d - 1
        if i >= self._win:
            i -= self._win
        if not self._sretx[i]:
            self._rtt_sample(ticks_diff(self._now, self._stime[i]))
        else:
            self.rto_ms = self._rto_base  # progress: the peer is there, forget the backoff
        i += 1
        if i == self._win:
            i = 0
        self._head = i
        self._count = n - d
        self._base = a
        self._nak_at = -1
        if self._count:
            self._rt_due = ticks_add(self._now, self.rto_ms)
        else:
            self._rt_on = False
        if self._want_nak and self._win - self._count >= _CMD_SLOTS:
            self._want_nak = False
            self._ack_pending = True  # a repeated ack: the host resends the deferred command

    def _rtt_sample(self, r):
        if r < 0:
            r = 0
        if self._srtt8 < 0:
            self._srtt8 = r << 3
            self._rttvar4 = r << 1
        else:
            err = r - (self._srtt8 >> 3)
            self._srtt8 += err
            if err < 0:
                err = -err
            self._rttvar4 += err - (self._rttvar4 >> 2)
        v = self._rttvar4 if self._rttvar4 > 1 else 1
        self._rto_base = self._clamp((self._srtt8 >> 3) + v)
        self.rto_ms = self._rto_base

    def _clamp(self, ms):
        if ms < self._rto_min:
            return self._rto_min
        if ms > self._rto_max:
            return self._rto_max
        return ms

    def _reset_seq(self):
        self._head = 0
        self._count = 0
        self._base = 0
        self._next = 0
        self._nak_at = -1
        self._rx_next = 0
        self._rt_on = False
        self._ack_pending = False
        self._want_nak = False
        self.rto_ms = self._rto_base

    # ------------------------------------------------------------ receive
    def _on_frame(self, fb, n):
        self._last_rx = self._now
        seq = fb[2]
        mid = fb[3]
        if mid < _m.FIRST_SEQUENCED:
            self._on_link_frame(fb, n, seq, mid)
            return
        if not self._established:
            if self._dev:
                self._send_heartbeat()  # "no session here": the host reconnects
            elif self._connecting and seq == 0 and mid == _m.IDENTITY:
                self._on_first_identity(fb, n)
            return
        d = (seq - self._rx_next) & 0xFF
        if d:
            if d < 128:
                self.gaps += 1
            else:
                self.dups += 1
            self._ack_pending = True
            return
        if self._dev and self._win - self._count < _CMD_SLOTS:
            self.deferred += 1  # no room for the reply: not acked, the host sends it again
            self._want_nak = True  # ... at once, when our window opens (see _on_ack)
            return
        self._rx_next = (seq + 1) & 0xFF
        self._ack_pending = True
        self.rx_seq = seq
        e = _m.BY_ID[mid]
        if e is None or e[2] != (_m.CMD if self._dev else _m.EVT):
            self._bad_seq(seq, mid, _m.E_UNKNOWN_MSG, _m.NO_FIELD)
            return
        try:
            values = _m.decode_payload(e, fb, 4, n - 4)
        except _m.ProtocolError as err:
            self._bad_seq(seq, mid, err.code, err.field)
            return
        if self._dev:
            self._command(seq, mid, values)
        else:
            if mid == _m.IDENTITY:
                self._note_identity(values)
            self._on_message(mid, values)

    def _bad_seq(self, seq, mid, code, field):
        self.bad += 1
        if self._dev:
            self._result(seq, mid, code, field)
        if self._on_bad is not None:
            self._on_bad(mid, code, field)

    def _on_link_frame(self, fb, n, seq, mid):
        if mid == _m.ACK and n == 8:
            if self._established:
                self._on_ack(seq)
            return
        e = _m.BY_ID[mid]
        if e is None:
            self._bad_link(mid, _m.E_UNKNOWN_MSG, _m.NO_FIELD)
            return
        try:
            values = _m.decode_payload(e, fb, 4, n - 4)
        except _m.ProtocolError as err:
            self._bad_link(mid, err.code, err.field)
            return
        if self._dev:
            if mid == _m.CONNECT:
                self._on_connect(values[0], values[1])
            elif mid == _m.PING:
                if values[0] != self.session:
                    self._send_heartbeat()  # a host we have no session with
            else:
                self._bad_link(mid, _m.E_UNKNOWN_MSG, _m.NO_FIELD)
        else:
            if mid == _m.HEARTBEAT:
                self._on_heartbeat(values)
            elif mid == _m.REJECT:
                self._on_reject(values)
            else:
                self._bad_link(mid, _m.E_UNKNOWN_MSG, _m.NO_FIELD)

    def _bad_link(self, mid, code, field):
        self.bad += 1
        if self._dev and mid != _m.REJECT:
            self._send_unseq(0, _m.REJECT, (code, mid, _m.VERSION_MIN, _m.VERSION_MAX))
        if self._on_bad is not None:
            self._on_bad(mid, code, field)

    def _event(self, ev):
        if self._on_link is not None:
            self._on_link(ev)

    def _up(self):
        self.lost = False
        self.connected = True
        self.rto_ms = self._rto_base  # forget the backoff of the outage
        if self._count:
            self._retransmit()
        self._event(UP)

    # ------------------------------------------------------------ device side
    def _on_connect(self, version, nonce):
        if version < _m.VERSION_MIN or version > _m.VERSION_MAX:
            self._send_unseq(0, _m.REJECT, (_m.E_VERSION, _m.CONNECT, _m.VERSION_MIN, _m.VERSION_MAX))
            return
        if nonce == self.session:
            self._send_heartbeat()  # a repeated CONNECT: idempotent, no reset
            return
        self._reset_seq()
        self.session = nonce
        self._established = True
        self.connected = True
        self.lost = False
        self._last_rx = self._now
        self._idv[0] = version
        self._idv[5] = nonce
        self._queue(_m.IDENTITY, self._idv)  # seq 0
        if self._aboutv is not None:
            self._queue(_m.ABOUT, self._aboutv)  # seq 1
        self._event(NEW)

    def _tick_uptime(self, now):
        d = ((now - self._t_up + _THALF) & _TMASK) - _THALF
        self._t_up = now
        room = _TMASK - self._up_lo  # (lo + d itself may pass 2**30: a long on a board)
        if d > room:
            self._up_lo = d - room - 1
            self._up_hi = (self._up_hi + 1) & 3
        else:
            self._up_lo += d

    def _send_heartbeat(self):
        self._tick_uptime(self._now)  # feed() may answer a frame long after poll()
        v = self._hbv
        v[1] = self.session
        v[2] = self.table_state
        # past 2**30 ms (12.4 days) the field's value is a long integer on a 32-bit
        # board: a heartbeat then makes one (the count itself stays in small ints)
        v[3] = self._up_lo | (self._up_hi << 30) if self._up_hi else self._up_lo
        v[4] = self.dropped if self.dropped < 0xFFFF else 0xFFFF
        self._hb_dropped = self.dropped
        self._send_unseq(0, _m.HEARTBEAT, v)

    def _command(self, seq, mid, values):
        if mid == _m.IDENTIFY:
            self._queue(_m.IDENTITY, self._idv)
            code = _m.OK
            field = _m.NO_FIELD
        else:
            try:
                r = self._on_message(mid, values)
            except Exception:
                self._result(seq, mid, _m.E_INTERNAL, _m.NO_FIELD)
                raise
            if r is None:
                code = _m.OK
                field = _m.NO_FIELD
            elif isinstance(r, int):
                code = r
                field = _m.NO_FIELD
            else:
                code = r[0]
                field = r[1]
        self._result(seq, mid, code, field)

    def _result(self, seq, mid, code, field):
        v = self._resv
        v[0] = seq
        v[1] = mid
        v[2] = code
        v[3] = field
        if self._count < self._win:
            self._queue(_m.RESULT, v)
        else:
            self.dropped += 1

    # ------------------------------------------------------------ host side
    def _connect(self, send_now):
        old = self.session
        n = self._new_nonce()
        while n == old or n == 0:
            n = self._new_nonce()
        self._reset_seq()
        self.session = n
        self._established = False
        self.connected = False
        self.lost = False
        self._connecting = True
        self.error = None
        self._connv[1] = n
        self._conn_due = ticks_add(self._now, self._connect_ms)
        if send_now:
            self._send_unseq(0, _m.CONNECT, self._connv)
        else:
            self._conn_due = self._now

    def set_colour_names(self, names):
        """Device: the colour class names the next handshake's ABOUT carries (the table
        took SET_COLOUR_NAMES: a host that connects later learns them)."""
        if self._aboutv is not None:
            self._aboutv[2] = names

    def _on_first_identity(self, fb, n):
        try:
            values = _m.decode_payload(_m.BY_ID[_m.IDENTITY], fb, 4, n - 4)
        except _m.ProtocolError as err:
            if n > 8 and fb[4] != self.version:  # a layout we cannot read: its version byte
                self._incompatible(fb[4])
            else:
                self._bad_link(_m.IDENTITY, err.code, err.field)
            return
        if values[5] != self.session:
            return  # answers an older CONNECT of ours
        if values[0] != self.version:
            self._incompatible(values[0])
            return
        self._connecting = False
        self._established = True
        self.connected = True
        self.lost = False
        self._rx_next = 1
        self._ack_pending = True
        self.rx_seq = 0
        self.peer_rebooted = self.peer_boot_nonce != 0 and self.peer_boot_nonce != values[4]
        self._note_identity(values)
        self._event(NEW)
        self._on_message(_m.IDENTITY, values)

    def _note_identity(self, values):
        self.identity = values
        self.peer_boot_nonce = values[4]

    def _incompatible(self, theirs):
        self._connecting = False
        self._established = False
        self.connected = False
        self.error = "the table speaks protocol version %d; this host speaks %d..%d: update %s" % (
            theirs,
            _m.VERSION_MIN,
            _m.VERSION_MAX,
            "the host" if theirs > _m.VERSION_MAX else "the firmware",
        )
        self._event(INCOMPATIBLE)

    def _on_heartbeat(self, values):
        self.peer_heartbeat = values
        if self._established and (values[1] != self.session or values[0] != self.peer_boot_nonce):
            self._connect(True)  # the table rebooted (new boot nonce) or lost our session
            self._event(PEER_RESET)

    def _on_reject(self, values):
        code = values[0]
        if code == _m.E_VERSION and values[1] == _m.CONNECT:
            if self._connecting:
                self._connecting = False
                self.error = (
                    "the table speaks protocol versions %d..%d; this host speaks %d..%d: update %s"
                    % (
                        values[2],
                        values[3],
                        _m.VERSION_MIN,
                        _m.VERSION_MAX,
                        "the host" if values[2] > _m.VERSION_MAX else "the firmware",
                    )
                )
                self._event(INCOMPATIBLE)
            return
        self.bad += 1
        if self._on_bad is not None:
            self._on_bad(values[1], code, _m.NO_FIELD)
