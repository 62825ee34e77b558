"""protocol.link: exactly-once in-order delivery over a lossy line, handshake, resets,
link loss, version refusal, bad input, retransmission timing.  All in virtual time."""
import time

import pytest

from protocol import codec as c
from protocol import link as L
from protocol import messages as m
from protocol_samples import raw_frame, raw_payload
from protocol_sim import IDENTITY, Pair, VClock

NONCE = 0x5EED1234


class Manual:
    """One Link driven by hand: feed it frames, read back what it wrote."""

    def __init__(self, role="device", handler=None, **kw):
        self.clock = VClock(kw.pop("start_ms", 0))
        self.written = []
        self.calls = []
        self.events = []
        self.bad = []
        self.handler = handler
        if role == "device":
            kw.setdefault("identity", IDENTITY)
            kw.setdefault("boot_nonce", 0xB007)
        else:
            kw.setdefault("nonce", lambda: NONCE)
        self.link = L.Link(
            self.clock,
            self._write,
            self._msg,
            role=role,
            on_link=self.events.append,
            on_bad=lambda *a: self.bad.append(a),
            **kw
        )

    def _write(self, buf, n):
        assert len(buf) == n  # exactly one frame, ready for port.write(buf)
        self.written.append(bytes(buf))

    def _msg(self, msgid, values):
        self.calls.append((msgid, values))
        if self.handler:
            return self.handler(msgid, values)
        return None

    def out(self):
        """(seq, name, values) of every frame written since the last call."""
        got = []
        for f in self.written:
            seq, msgid, values = c.decode_message(f)
            got.append((seq, m.name_of(msgid), values))
        self.written = []
        return got

    def feed(self, seq, msgid, values=()):
        self.link.feed(c.encode_frame(seq, msgid, values))

    def connect(self, nonce=NONCE, version=1):
        self.feed(0, m.CONNECT, (version, nonce))


def names(frames):
    return [f[1] for f in frames]


# ------------------------------------------------------------------ the big one
def test_ten_thousand_commands_exactly_once_in_order_over_a_lossy_line():
    t0 = time.perf_counter()
    # start just before the 2**30 tick wrap so the run crosses it
    p = Pair(seed=2024, start_ms=(1 << 30) - 20_000, ber=1e-3, drop=0.02, dup=0.02, garbage=0.005)
    p.connect()
    N = 10_000
    sent = 0
    queued_events = []
    tile = [1, 1, 1, 1, 100, 200, 300, 400]
    k = 0
    next_evt = p.clock.us
    while True:
        while sent < N and p.host.send(m.BUILD, (sent + 1,)):
            sent += 1
        if p.clock.us >= next_evt:
            next_evt += 4000  # a tile event every 4 ms, both directions busy at once
            if k < 5000:
                k += 1
                tile[0] = k
                tile[2] = k % 200 + 1
                if p.dev.send(m.TILE, tile):
                    queued_events.append(k)
        if sent == N and p.host.in_flight == 0 and p.dev.in_flight == 0 and k == 5000:
            break
        p.step(next_evt)
    executed = [v[0] for mid, v in p.commands]
    assert [mid for mid, v in p.commands] == [m.BUILD] * len(executed)
    assert executed == list(range(1, N + 1))  # each once, in order
    results = p.results()
    assert len(results) == N
    assert [r[0] for r in results] == [i & 0xFF for i in range(N)]  # RESULT names the seq
    assert all(r[1:] == (m.BUILD, m.OK, m.NO_FIELD) for r in results)
    tiles = [v[0] for mid, v in p.host_msgs if mid == m.TILE]
    assert tiles == queued_events  # events too: each once, in order
    assert p.host_events.count(L.NEW) == 1 and L.PEER_RESET not in p.host_events
    assert p.dev_events.count(L.NEW) == 1
    hs, ds = p.host.stats(), p.dev.stats()
    assert hs["crc_errors"] + ds["crc_errors"] > 100  # the line really was noisy
    assert p.down.dropped > 100 and p.up.duplicated > 100
    print(
        "\n%d commands + %d events in %.1f s of virtual time (%.1f s real); flipped bits %d, "
        "dropped %d, duplicated %d; host %s; device %s"
        % (
            N,
            len(queued_events),
            p.clock.us / 1e6 - ((1 << 30) - 20_000) / 1e3,
            time.perf_counter() - t0,
            p.down.flipped_bits + p.up.flipped_bits,
            p.down.dropped + p.up.dropped,
            p.down.duplicated + p.up.duplicated,
            hs,
            ds,
        )
    )


# ------------------------------------------------------------------ handshake
def test_handshake_reports_identity_and_boot_nonce():
    p = Pair(seed=1)
    assert p.host.send(m.LIFT, ()) is False  # nothing is sent before the handshake
    p.connect()
    assert p.host_events == [L.NEW] and p.dev_events == [L.NEW]
    mid, ident = p.host_msgs[0]
    assert mid == m.IDENTITY
    assert ident == (1, m.PROTOCOL_MINOR, "0.1.0", "reference-18", p.dev.boot_nonce, p.host.session, 4, 18, 2)
    assert p.host.identity == ident and p.host.peer_boot_nonce == p.dev.boot_nonce
    assert p.host.session == p.dev.session != 0
    assert p.host.peer_rebooted is False


def test_device_handshake_frames_byte_by_byte():
    d = Manual()
    d.link.poll()
    (seq, name, hb), = d.out()
    assert name == "heartbeat" and hb[0] == 0xB007 and hb[1] == 0  # no session yet
    d.connect()
    out = d.out()
    assert names(out) == ["identity"] and out[0][0] == 0  # IDENTITY is seq 0
    assert out[0][2][5] == NONCE
    assert d.events == [L.NEW]
    d.feed(1, m.ACK)
    assert d.link.in_flight == 0


def test_repeated_connect_is_idempotent():
    d = Manual()
    d.connect()
    d.feed(1, m.ACK)
    d.feed(0, m.LIFT)
    d.out()
    d.connect()  # a delayed duplicate of the CONNECT
    assert names(d.out()) == ["heartbeat"]  # no reset, no second IDENTITY
    assert d.events == [L.NEW]
    d.feed(0, m.LIFT)  # still a duplicate: acked, not executed again
    assert d.calls == [(m.LIFT, ())]
    assert d.out() == [(1, "ack", ())]


def test_a_new_host_nonce_starts_a_new_session():
    d = Manual()
    d.connect()
    d.feed(1, m.ACK)
    d.feed(0, m.LIFT)
    d.out()
    d.connect(nonce=NONCE + 1)
    out = d.out()
    assert names(out) == ["identity"] and out[0][0] == 0 and out[0][2][5] == NONCE + 1
    assert d.events == [L.NEW, L.NEW]
    d.feed(0, m.LIFT)  # seq 0 of the new session is new
    assert d.calls == [(m.LIFT, ()), (m.LIFT, ())]


def test_device_without_a_session_answers_with_its_heartbeat():
    d = Manual()
    d.feed(0, m.LIFT)
    (seq, name, hb), = d.out()
    assert name == "heartbeat" and hb[:2] == (0xB007, 0)
    assert d.calls == []  # nothing executed without a session
    d.connect()
    d.out()
    d.feed(0, m.PING, (NONCE + 9,))  # a host we have no session with
    assert names(d.out()) == ["heartbeat"]
    d.feed(0, m.PING, (NONCE,))  # ours: nothing to say
    assert d.out() == []


def test_host_notices_a_table_reboot_and_reconnects():
    p = Pair(seed=3)
    p.connect()
    old = p.dev.boot_nonce
    p.boot_device()  # power cycle: state gone, new boot nonce
    p.host.send(m.LIFT, ())  # in flight across the reset
    p.run_until(lambda: p.host_events.count(L.NEW) == 2)
    assert p.host_events == [L.NEW, L.PEER_RESET, L.NEW]
    assert p.host.peer_rebooted and p.host.peer_boot_nonce != old
    assert p.commands == []  # the command sent into the reset was not executed by the new boot
    assert p.host.send(m.LIFT, ())
    p.run_until(lambda: len(p.commands) == 1)


def test_host_restart_is_a_new_session_for_the_device():
    p = Pair(seed=4)
    p.connect()
    p.host.send(m.STOP, ())
    p.run_until(lambda: len(p.results()) == 1)
    p.host.connect()  # a new host process would do exactly this
    p.run_until(lambda: p.host.connected and p.dev_events.count(L.NEW) == 2)
    p.host.send(m.STOP, ())
    p.run_until(lambda: len(p.commands) == 2)
    assert p.results()[-1][0] == 0  # sequence numbers restarted


# ------------------------------------------------------------------ versions
def test_newer_host_gets_a_version_reject():
    d = Manual()
    d.connect(version=2)
    assert d.out() == [(0, "reject", (m.E_VERSION, m.CONNECT, 1, 1))]
    assert d.events == []


def test_host_refuses_a_table_that_speaks_another_version():
    p = Pair(seed=5, host_kw={"version": 2})
    p.run_ms(1000)
    assert p.host_events == [L.INCOMPATIBLE]
    assert "speaks protocol versions 1..1" in p.host.error and "update the firmware" in p.host.error
    assert not p.host.connected and p.dev_events == []


def test_host_refuses_identity_of_a_newer_major():
    h = Manual(role="host")
    h.link.poll()
    (seq, name, (ver, nonce)), = h.out()
    assert name == "connect" and ver == 1 and nonce == NONCE
    ident = (2, 0, "9.0", "future", 7, NONCE, 4, 18, 2)
    h.feed(0, m.IDENTITY, ident)
    assert h.events == [L.INCOMPATIBLE] and "version 2" in h.link.error and "update the host" in h.link.error
    assert h.calls == [] and not h.link.connected
    # a v2 IDENTITY whose layout v1 cannot even parse is refused the same way
    h2 = Manual(role="host")
    h2.link.poll()
    h2.link.feed(raw_frame(0, m.IDENTITY, bytes([2, 0, 0xFF, 1, 2, 3])))
    assert h2.events == [L.INCOMPATIBLE]


# ------------------------------------------------------------------ bad input
def test_bad_commands_get_a_result_naming_the_field_and_never_reach_the_handler():
    d = Manual()
    d.connect()
    d.feed(1, m.ACK)
    d.out()
    door = m.lookup("door")
    cfg = m.lookup("configure_build")
    cases = [
        (raw_frame(0, 0x30, b""), 0x30, m.E_UNKNOWN_MSG, m.NO_FIELD),  # no such id
        (raw_frame(1, m.TILE, bytes(13)), m.TILE, m.E_UNKNOWN_MSG, m.NO_FIELD),  # an event
        (raw_frame(2, m.MIX, b"\x01"), m.MIX, m.E_BAD_LENGTH, 0),
        (raw_frame(3, m.LIFT, b"\x00"), m.LIFT, m.E_BAD_LENGTH, m.NO_FIELD),
        (raw_frame(4, m.DOOR, raw_payload(door, (2,))), m.DOOR, m.E_RANGE, 0),
        (raw_frame(5, m.CONFIGURE_BUILD, raw_payload(cfg, (1, (34, 34, 34, 34), 33, (1, 2), 0))), m.CONFIGURE_BUILD, m.E_RANGE, 2),
        (raw_frame(6, m.CONFIGURE_BUILD, raw_payload(cfg, (1, (34, 34, 34, 34), 17, (0,), 0))), m.CONFIGURE_BUILD, m.E_RANGE, 3),
        (raw_frame(7, m.EXIT_REPL, (0x12345678).to_bytes(4, "little")), m.EXIT_REPL, m.E_RANGE, 0),
        (raw_frame(8, m.SELF_TEST, bytes([0, 1])), m.SELF_TEST, m.E_RANGE, 0),
    ]
    for i, (frame, mid, code, field) in enumerate(cases):
        d.link.feed(frame)
        out = d.out()
        # the table's own seq: IDENTITY was its 0
        assert out == [(i + 1, "result", (i, mid, code, field)), (i + 1, "ack", ())], (i, out)
        d.feed(i + 2, m.ACK)
    assert d.calls == []
    assert len(d.bad) == len(cases)
    d.feed(len(cases), m.LIFT)  # nothing stalled: the next good command runs
    assert d.calls == [(m.LIFT, ())]


def test_bad_link_frames_get_a_reject():
    d = Manual()
    d.link.feed(raw_frame(0, 0x0A, b""))
    assert d.out() == [(0, "reject", (m.E_UNKNOWN_MSG, 0x0A, 1, 1))]
    d.link.feed(raw_frame(0, m.CONNECT, b"\x01\x02"))
    assert d.out() == [(0, "reject", (m.E_BAD_LENGTH, m.CONNECT, 1, 1))]
    d.link.feed(raw_frame(0, m.CONNECT, b"\x01\x00\x00\x00\x00"))  # nonce 0 is out of range
    assert d.out() == [(0, "reject", (m.E_RANGE, m.CONNECT, 1, 1))]
    d.feed(0, m.REJECT, (m.E_RANGE, 0x44, 1, 1))  # never answer a reject
    assert d.out() == []
    assert d.events == []


def test_host_reports_unknown_events_and_acks_them():
    h = Manual(role="host")
    h.link.poll()
    h.out()
    h.feed(0, m.IDENTITY, (1, 0, "0.1", "b", 7, NONCE, 4, 18, 2))
    assert h.events == [L.NEW]
    h.link.feed(raw_frame(1, 0x7A, b"\x01\x02"))  # an event of a newer minor
    assert h.bad == [(0x7A, m.E_UNKNOWN_MSG, m.NO_FIELD)]
    assert h.out()[-1] == (2, "ack", ())  # consumed: the table does not stall on it
    h.feed(2, m.LIFT_DONE, (m.LIFT_TOP,))
    assert h.calls[-1] == (m.LIFT_DONE, (1,))


# ------------------------------------------------------------------ duplicates and gaps
def test_duplicate_is_acked_again_and_never_executed_twice():
    d = Manual()
    d.connect()
    d.feed(1, m.ACK)
    d.out()
    f = c.encode_frame(0, m.BUILD, (7,))
    d.link.feed(f)
    assert names(d.out()) == ["result", "ack"]
    for _ in range(3):
        d.link.feed(f)
        assert d.out() == [(1, "ack", ())]
    assert d.calls == [(m.BUILD, (7,))]
    assert d.link.dups == 3


def test_a_gap_is_nakked_and_not_delivered():
    d = Manual()
    d.connect()
    d.feed(1, m.ACK)
    d.out()
    d.feed(1, m.BUILD, (2,))  # seq 0 was lost
    assert d.out() == [(0, "ack", ())]  # repeats "expecting 0"
    assert d.calls == []
    d.feed(0, m.BUILD, (1,))
    d.feed(1, m.BUILD, (2,))
    assert [v for _, v in d.calls] == [(1,), (2,)]


def test_a_repeated_ack_triggers_one_fast_retransmit():
    h = Manual(role="host")
    h.link.poll()
    h.feed(0, m.IDENTITY, (1, 0, "0.1", "b", 7, NONCE, 4, 18, 2))
    h.out()
    for i in range(4):
        h.link.send(m.BUILD, (i + 1,))
    assert len(h.out()) == 4
    h.feed(1, m.ACK)  # frame 1 acked...
    h.feed(1, m.ACK)  # ...then "still expecting 1": 2 and 3 were lost
    out = h.out()
    assert [(s, n) for s, n, v in out] == [(1, "build"), (2, "build"), (3, "build")]
    h.feed(1, m.ACK)  # an echo of the same gap: no second burst
    assert h.out() == []
    assert h.link.naks == 1


# ------------------------------------------------------------------ results
def test_handler_result_becomes_the_result_event():
    answers = {m.LIFT: None, m.STOP: m.E_BUSY, m.CONFIGURE_BUILD: (m.E_UNSUPPORTED, 2), m.MIX: 0}

    def handler(mid, values):
        if mid == m.ABORT:
            raise RuntimeError("boom")
        return answers[mid]

    d = Manual(handler=handler)
    d.connect()
    d.feed(1, m.ACK)
    d.out()
    d.feed(0, m.LIFT)
    d.feed(1, m.STOP)
    d.feed(2, m.CONFIGURE_BUILD, (1, (44, 44, 44, 44), 22, (1, 2), 1))
    d.feed(3, m.MIX, (0,))
    res = [v for s, n, v in d.out() if n == "result"]
    assert res == [
        (0, m.LIFT, m.OK, m.NO_FIELD),
        (1, m.STOP, m.E_BUSY, m.NO_FIELD),
        (2, m.CONFIGURE_BUILD, m.E_UNSUPPORTED, 2),
        (3, m.MIX, m.OK, m.NO_FIELD),
    ]
    d.feed(5, m.ACK)
    with pytest.raises(RuntimeError):
        d.feed(4, m.ABORT)
    out = d.out()
    assert out == [(5, "result", (4, m.ABORT, m.E_INTERNAL, m.NO_FIELD)), (5, "ack", ())]
    d.feed(4, m.ABORT)  # the host's retransmission is a duplicate: not run again
    assert d.calls.count((m.ABORT, ())) == 1


def test_identify_is_answered_by_the_link():
    p = Pair(seed=6)
    p.connect()
    p.host.send(m.IDENTIFY, ())
    p.run_until(lambda: len(p.results()) == 1)
    assert [mid for mid, v in p.host_msgs] == [m.IDENTITY, m.IDENTITY, m.RESULT]
    assert p.commands == []


# ------------------------------------------------------------------ window, loss
def test_full_window_refuses_and_counts_dropped_events():
    p = Pair(seed=7)
    p.connect()
    p.run_until(lambda: p.dev.in_flight == 0)  # IDENTITY acked
    p.up.cut = True  # acks from the host... are fine; the table's frames never arrive
    tile = [1, 1, 1, 1, 0, 0, 0, 0]
    ok = [p.dev.send(m.TILE, tile) for _ in range(10)]
    assert ok == [True] * 8 + [False, False]
    assert p.dev.dropped == 2 and p.dev.free == 0
    p.up.cut = False
    p.run_until(lambda: p.dev.in_flight == 0)
    assert [mid for mid, v in p.host_msgs].count(m.TILE) == 8
    p.run_ms(600)
    assert p.host.peer_heartbeat[4] == 2  # the heartbeat carries the dropped count


def test_command_waits_when_the_table_has_no_room_to_answer():
    p = Pair(seed=8)
    p.connect()
    p.run_until(lambda: p.dev.in_flight == 0)
    p.up.cut = True
    tile = [1, 1, 1, 1, 0, 0, 0, 0]
    for _ in range(8):
        assert p.dev.send(m.TILE, tile)
    p.host.send(m.STOP, ())
    p.run_ms(300)
    assert p.commands == [] and p.dev.deferred >= 1  # not acked: no room for its RESULT
    p.up.cut = False
    p.run_until(lambda: len(p.results()) == 1)
    assert p.commands == [(m.STOP, ())]


def test_link_loss_pauses_and_recovery_loses_nothing():
    p = Pair(seed=9, dev_kw={"silence_ms": 2000})
    p.connect()
    p.down.cut = p.up.cut = True
    sent = [p.host.send(m.BUILD, (i,)) for i in (1, 2, 3)]
    assert sent == [True] * 3
    p.run_ms(2100)
    assert L.LOST in p.dev_events and L.LOST in p.host_events
    assert not p.dev.connected and p.dev.lost and not p.host.connected
    assert p.host.rto_ms > 200  # backing off
    p.run_ms(8000)
    assert p.host.rto_ms == 5000  # clamped
    p.down.cut = p.up.cut = False
    t = p.clock.ms()
    p.run_until(lambda: len(p.commands) == 3)
    assert p.clock.ms() - t < 600  # the next heartbeat brings it UP, frames go at once
    assert p.dev_events[-1] == L.UP and p.host_events[-1] == L.UP
    assert [v for _, v in p.commands] == [(1,), (2,), (3,)]
    assert p.host_events.count(L.NEW) == 1  # same session throughout


def test_retransmission_timer_backs_off_and_clamps():
    h = Manual(role="host", rto_init_ms=200)
    h.link.poll()
    h.feed(0, m.IDENTITY, (1, 0, "0.1", "b", 7, NONCE, 4, 18, 2))
    h.out()
    h.link.send(m.LIFT, ())
    h.out()
    sends = []
    for ms in range(1, 30_000):
        h.clock.us = ms * 1000
        h.link.poll()
        if any(n == "lift" for s, n, v in h.out()):
            sends.append(ms)
    gaps = [b - a for a, b in zip([0] + sends, sends)]
    assert gaps[:6] == [200, 400, 800, 1600, 3200, 5000]
    assert set(gaps[6:]) == {5000}
    assert h.link.timeouts == len(sends)


def test_rtt_estimate_sets_the_timeout():
    h = Manual(role="host")
    h.link.poll()
    h.feed(0, m.IDENTITY, (1, 0, "0.1", "b", 7, NONCE, 4, 18, 2))
    for i in range(20):
        h.link.send(m.BUILD, (i + 1,))
        h.clock.us += 40_000  # 40 ms round trip
        h.feed((i + 1) & 0xFF, m.ACK)
    assert 40 <= h.link.rto_ms <= 60
    h2 = Manual(role="host")
    h2.link.poll()
    h2.feed(0, m.IDENTITY, (1, 0, "0.1", "b", 7, NONCE, 4, 18, 2))
    for i in range(20):
        h2.link.send(m.BUILD, (i + 1,))
        h2.clock.us += 1000
        h2.feed((i + 1) & 0xFF, m.ACK)
    assert h2.link.rto_ms == 25  # clamped at the floor


@pytest.mark.parametrize("lo, hi, want", [
    ((1 << 30) - 100, 0, (1 << 30) + 400),  # past 12.4 days
    ((1 << 30) - 100, 3, 400),  # past 2**32 ms (49.7 days): the field wraps
])
def test_the_heartbeats_uptime_goes_past_2_30_and_wraps_at_2_32(lo, hi, want):
    d = Manual(heartbeat_ms=500)
    d.link.poll()
    d.out()
    d.link._up_lo, d.link._up_hi = lo, hi  # (days of polls, in a line)
    d.clock.us = 500_000
    d.link.poll()
    (s, n, hb), = d.out()
    assert n == "heartbeat" and hb[3] == want


def test_heartbeats_and_next_due():
    d = Manual(heartbeat_ms=500)
    d.link.poll()
    d.out()
    assert d.link.next_due_ms() == 500
    d.clock.us = 499_000
    d.link.poll()
    assert d.out() == []
    d.clock.us = 500_000
    d.link.poll()
    (s, n, hb), = d.out()
    assert n == "heartbeat" and hb[3] == 500  # uptime_ms
    d.link.table_state = m.S_BUILDING
    d.clock.us = 1_000_000
    d.link.poll()
    assert d.out()[0][2][2] == m.S_BUILDING


def test_table_heartbeats_only_when_silent_unless_it_dropped_events():
    d = Manual(heartbeat_ms=500, window=4)
    d.connect()
    d.feed(1, m.ACK)  # IDENTITY acked
    d.out()
    tile = [1, 1, 1, 1, 0, 0, 0, 0]
    sent = []
    # an event every 200 ms, each acked: the events feed the host's silence timer,
    # so no heartbeat goes out between them
    for k in range(1, 11):
        d.clock.us = k * 200_000
        d.link.poll()
        assert d.link.send(m.TILE, tile)
        d.feed(d.link.sent_seq + 1, m.ACK)
        sent += names(d.out())
    assert sent == ["tile"] * 10
    # quiet for 500 ms: a heartbeat
    d.clock.us = 2_500_000
    d.link.poll()
    assert names(d.out()) == ["heartbeat"]
    # the host stops acking for a while: the window (4) fills, three events are
    # dropped; then it acks again and events flow every 100 ms.  The heartbeat with
    # the count comes on time all the same (the host learns of the loss), then none
    # while events flow again
    hb_at = []
    for k in range(1, 21):
        d.clock.us = 2_500_000 + k * 100_000
        d.link.poll()
        d.link.send(m.TILE, tile)
        if k > 6:
            d.feed(d.link.sent_seq + 1, m.ACK)
        for f in d.out():
            if f[1] == "heartbeat":
                hb_at.append((k, f[2][4]))
    assert d.link.dropped == 3  # at k = 5, 6 and 7 (acked after its send)
    # 500 ms after the last send that still fed the host's silence timer (k=4)
    assert hb_at == [(9, 3)]


def test_silence_declares_the_link_lost_after_silence_ms():
    d = Manual(silence_ms=2000)
    d.connect()
    d.feed(1, m.ACK)
    for ms in (1000, 1999):
        d.clock.us = ms * 1000
        d.link.poll()
    assert d.events == [L.NEW] and d.link.connected
    d.clock.us = 2_000_000
    d.link.poll()
    assert d.events == [L.NEW, L.LOST] and d.link.lost and not d.link.connected
    d.feed(0, m.PING, (NONCE,))
    assert d.events == [L.NEW, L.LOST, L.UP] and d.link.connected


def test_clock_wrap_does_not_confuse_timers():
    p = Pair(seed=10, start_ms=(1 << 30) - 300)
    p.connect()
    for i in range(50):
        p.host.send(m.BUILD, (i + 1,))
        p.run_ms(20)
    p.run_until(lambda: len(p.commands) == 50)
    assert p.clock.ticks_ms() < 100_000  # wrapped
    assert p.host_events == [L.NEW]
    assert L.ticks_diff(5, (1 << 30) - 5) == 10 and L.ticks_add((1 << 30) - 1, 2) == 1


def test_send_checks_direction():
    p = Pair(seed=11)
    p.connect()
    with pytest.raises(ValueError):
        p.host.send(m.TILE, (1, 1, 1, 1, 0, 0, 0, 0))
    with pytest.raises(ValueError):
        p.dev.send(m.LIFT, ())
    with pytest.raises(m.ProtocolError):
        p.host.send(m.DOOR, (5,))
    with pytest.raises(ValueError):
        L.Link(VClock(), print, print, role="device")  # identity= is required


# ------------------------------------------------------------------ fuzz
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

good_crc_frames = st.builds(
    raw_frame, st.integers(0, 255), st.integers(0, 255), st.binary(max_size=56)
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(good_crc_frames, st.binary(max_size=70)), max_size=12), st.sampled_from(["host", "device"]))
def test_any_input_leaves_the_link_working(chunks, role):
    """Random bytes and well-framed nonsense (any msgid, any payload, good CRC) never
    crash either end, and a real exchange still works afterwards.  (A forged frame with
    a good CRC can take a sequence number the host will use — noise cannot make one, a
    forger can — so the check is made in a fresh session.)"""
    p = Pair(seed=12)
    p.connect()
    target = p.host if role == "host" else p.dev
    for ch in chunks:
        target.feed(ch)
        p.step()
    p.run_ms(100)
    p.host.connect()
    p.run_until(lambda: p.host.connected and p.dev.connected, max_ms=20_000)
    before = len(p.commands)
    p.run_until(lambda: p.host.send(m.LIFT, ()), max_ms=20_000)
    p.run_until(lambda: len(p.commands) > before, max_ms=20_000)
    assert p.commands[-1] == (m.LIFT, ())


# ------------------------------------------------------------------ issue 13
def test_a_heartbeat_answering_a_frame_carries_the_uptime_of_now():
    d = Manual()
    d.link.poll()
    d.out()
    d.clock.us = 5_000_000  # no poll() for 5 s: the frame arrives first
    d.feed(0, m.STATUS)
    (seq, name, hb), = d.out()
    assert name == "heartbeat" and hb[3] == 5000
    d.connect()
    d.out()
    d.clock.us = 6_250_000
    d.feed(0, m.PING, (NONCE + 1,))
    (seq, name, hb), = d.out()
    assert name == "heartbeat" and hb[3] == 6250


@pytest.mark.parametrize("role", ["device", "host"])
def test_a_false_sync_before_a_frame_costs_one_gap_not_a_frame_length(role):
    # SPEC §3: 0x7E then LEN=64 makes the receiver wait for 64 bytes; when the line stays
    # quiet for GAP_MS it drops that sync byte and finds the frame behind it
    d = Manual(role=role)
    d.link.poll()
    if role == "device":
        d.connect()
        frm = c.encode_frame(0, m.STATUS)
    else:
        d.link.feed(c.encode_frame(0, m.IDENTITY, (1, 0, "fw", "b", 0xB007, NONCE, 4, 18, 2)))
        assert d.link.connected
        frm = c.encode_frame(1, m.STATE, (1, 0))
    d.out()
    d.calls.clear()
    d.link.feed(b"\x7e\x40" + frm)
    assert d.calls == [] and d.link.decoder.pending() == 2 + len(frm)
    assert d.link.next_due_ms() == c.GAP_MS  # the gap deadline is the next one
    d.clock.us += (c.GAP_MS - 1) * 1000
    d.link.poll()
    assert d.calls == []
    d.clock.us += 1000
    d.link.poll()
    assert [mid for (mid, v) in d.calls] == [m.STATUS if role == "device" else m.STATE]
    assert d.link.decoder.pending() == 0 and d.link.decoder.gap_drops == 1
    assert "ack" in names(d.out())  # acknowledged at once, as after a feed


def test_a_partial_frame_the_line_keeps_sending_is_not_dropped():
    d = Manual()
    d.connect()
    d.out()
    frm = c.encode_frame(0, m.DOOR, (1,))
    for i in range(len(frm)):  # one byte every GAP_MS - 1 ms: never a gap
        d.link.feed(frm[i:i + 1])
        d.clock.us += (c.GAP_MS - 1) * 1000
        d.link.poll()
    assert [mid for (mid, v) in d.calls] == [m.DOOR]
    assert d.link.decoder.gap_drops == 0


def test_stale_bytes_after_a_gap_are_all_dropped_and_the_link_goes_on():
    d = Manual()
    d.connect()
    d.out()
    d.link.feed(b"\x7e\x40\x00\x7e\x30\x01\x02")  # two false syncs, nothing real
    d.clock.us += c.GAP_MS * 1000
    d.link.poll()
    assert d.link.decoder.pending() == 0
    d.feed(0, m.STATUS)
    assert [mid for (mid, v) in d.calls] == [m.STATUS]


def test_the_rtt_estimate_outlives_a_session_only_the_backoff_is_reset():
    # SPEC §6: SRTT/RTTVAR belong to the line (per boot on the table), not to a session
    d = Manual()
    d.connect()
    d.out()
    d.clock.us += 40_000
    d.feed(1, m.ACK)  # identity acked after 40 ms: RTO = 40 + 4 * 20
    assert d.link.rto_ms == 120
    d.link.send(m.LOG, (1, "x"))
    d.clock.us += 120_000
    d.link.poll()  # a timeout: the backoff doubles
    assert d.link.rto_ms == 240
    d.connect(nonce=NONCE + 1)  # a new session
    assert d.link.rto_ms == 120 and d.link.stats()["srtt_ms"] == 40


def test_a_runtime_without_a_random_source_still_gets_a_new_nonce_each_boot(monkeypatch):
    """No os.urandom (MicroPython's QEMU board): random starts in the same state at every
    reset, so the nonce comes from it reseeded with timing; two 'boots' (random's state
    reset between them) give two nonces, neither 0.  tests/mcu checks it across real
    resets of the emulated board."""
    import os
    import random

    def no_urandom(n):
        raise NotImplementedError("no random source")

    monkeypatch.setattr(os, "urandom", no_urandom)
    state = random.getstate()
    try:
        got = []
        for _ in range(3):
            random.seed(12345)  # what every reset of such a board starts from
            got.append(L.random_nonce())
    finally:
        random.setstate(state)
    assert len(set(got)) == 3 and 0 not in got and all(0 < v <= 0xFFFFFFFF for v in got)


def test_a_forged_ack_puts_the_host_out_of_step_and_it_connects_again():
    """Issue 53 point 5: one forged ack (a good CRC) acknowledging commands the table never
    got: the table drops every later command as a gap and acks behind; the host sees an ack
    behind its oldest unacked frame, says RESYNC and makes a new session, after which
    commands are delivered again (the table's state untouched: no reboot)."""
    p = Pair(seed=53)
    p.connect()
    p.host.send(m.STOP, ())
    p.run_until(lambda: len(p.commands) == 1)
    p.run_until(lambda: p.host.in_flight == 0)
    # the next command is lost on the line and a forger acks it
    real_write = p.host._write
    p.host._write = lambda buf, n: None
    assert p.host.send(m.STOP, ())
    p.host._write = real_write
    p.host.feed(c.encode_frame((p.host.sent_seq + 1) & 0xFF, m.ACK, ()))
    assert p.host.in_flight == 0  # taken as delivered
    p.host.send(m.LIFT, ())  # a gap for the table: dropped, acked behind
    p.run_until(lambda: L.RESYNC in p.host_events)
    assert p.host.resyncs == 1 and p.host_events.count(L.NEW) == 1
    p.run_until(lambda: p.host_events.count(L.NEW) == 2)
    assert not p.host.peer_rebooted  # the same boot: a new session, not a reset
    assert p.host.send(m.LIFT, ())
    p.run_until(lambda: len(p.commands) == 2)
    assert [mid for mid, _ in p.commands] == [m.STOP, m.LIFT]


def test_the_table_ignores_an_ack_behind_and_a_host_ack_ahead_is_stale():
    """Only the host resynchronises: a device fed an ack behind its window ignores it, and
    an ack ahead of the host's frames in flight (stale) changes nothing."""
    d = Manual()
    d.connect()
    d.out()
    d.link.send(m.STATE, (1, 0))
    d.feed(0, m.ACK)  # (a NAK: 0 is its oldest unacked) ...
    d.feed(200, m.ACK)  # ... and one far behind: ignored
    assert L.RESYNC not in d.events and d.link.session == NONCE
    h = Manual(role="host")
    h.link.poll()
    h.feed(0, m.IDENTITY, (1, 0, "0.1", "b", 7, NONCE, 4, 18, 2))
    h.link.send(m.BUILD, (1,))
    h.feed(100, m.ACK)  # far ahead of the one in flight: stale
    assert h.events == [L.NEW] and h.link.in_flight == 1


# -- what the link reports and refuses, exactly (bench/mutation.py's survivors) --------------
ABOUT_IDENTITY = dict(IDENTITY, implementation="micropython", version="1.24.1",
                      colour_names="ivory,jade")
HOST_IDENT = (1, 0, "0.1", "b", 7, NONCE, 4, 18, 2)


def host_up(**kw):
    """A host link with its session made (IDENTITY of seq 0 taken and acked)."""
    nonces = iter(range(NONCE, NONCE + 100))
    h = Manual(role="host", nonce=lambda: next(nonces), **kw)
    h.link.poll()
    h.feed(0, m.IDENTITY, HOST_IDENT)
    h.out()
    return h


def test_a_fresh_link_reports_every_counter_at_zero_and_no_session():
    zero = {"dropped": 0, "retransmits": 0, "timeouts": 0, "naks": 0, "dups": 0, "gaps": 0,
            "resyncs": 0, "deferred": 0, "bad": 0, "frames": 0, "crc_errors": 0,
            "len_errors": 0, "skipped": 0, "gap_drops": 0}
    d = Manual()
    assert d.link.stats() == dict(zero, role="device", connected=False, lost=False, session=0,
                                  in_flight=0, rto_ms=200, srtt_ms=None)
    h = Manual(role="host")
    assert h.link.stats() == dict(zero, role="host", connected=False, lost=False,
                                  session=NONCE, in_flight=0, rto_ms=200, srtt_ms=None)
    for link in (d.link, h.link):
        assert (link.rx_seq, link.sent_seq, link.error) == (-1, -1, None)
        assert link.connected is False and link.lost is False
    assert (h.link.identity, h.link.peer_heartbeat, h.link.peer_rebooted) == (None, None, False)
    assert h.written == [] and d.written == []  # nothing sent before the first poll()


def test_a_link_made_with_the_defaults_keeps_the_specs_timings():
    """A host made with no options: CONNECT at the first poll and every 250 ms, 8 commands
    in flight, a first retransmission after 200 ms, its ping after 500 ms of its own
    silence and the link lost after 2000 ms of the table's; a fresh random session."""
    clock = VClock()
    out = []
    events = []
    link = L.Link(clock, lambda buf, n: out.append(c.decode_message(bytes(buf))),
                  lambda mid, v: None, on_link=events.append)
    assert link.role == "host" and link.session != 0
    assert L.Link(clock, lambda b, n: None, lambda mid, v: None).session != link.session

    def at(ms):
        clock.us = ms * 1000
        link.poll()
        got = [(s, m.name_of(mid)) for s, mid, v in out]
        del out[:]
        return got

    assert at(0) == [(0, "connect")] and at(249) == [] and at(250) == [(0, "connect")]
    link.feed(c.encode_frame(0, m.IDENTITY, (1, 0, "0.1", "b", 7, link.session, 4, 18, 2)))
    assert [(s, m.name_of(mid)) for s, mid, v in out] == [(1, "ack")]
    del out[:]
    assert [link.send(m.BUILD, (i + 1,)) for i in range(9)] == [True] * 8 + [False]
    del out[:]
    assert at(449) == [] and at(450) == [(i, "build") for i in range(8)]  # 250 + 200
    assert at(749) == [] and at(750) == [(0, "ping")]  # 500 after its last new frame
    assert at(849) == [] and at(850) == [(i, "build") for i in range(8)]  # backed off: 400
    at(2249)  # (its retransmissions go on meanwhile)
    assert events == [L.NEW]
    at(2250)
    assert events == [L.NEW, L.LOST]


def test_bad_options_are_refused_in_words():
    clock = VClock()
    w = lambda b, n: None  # noqa: E731
    with pytest.raises(ValueError, match="^role must be 'host' or 'device'$"):
        L.Link(clock, w, w, role="table")
    for bad in (0, 128):
        with pytest.raises(ValueError, match=r"^window must be 1\.\.127$"):
            L.Link(clock, w, w, window=bad)
    for good in (1, 127):
        assert L.Link(clock, w, w, window=good).free == 0  # (no session yet)
    with pytest.raises(ValueError, match="^a device link needs identity=$"):
        L.Link(clock, w, w, role="device")
    with pytest.raises(ValueError, match="^only the host connects$"):
        Manual().link.connect()
    with pytest.raises(ValueError, match="^a host cannot send tile$"):
        host_up().link.send(m.TILE, (1, 1, 1, 1, 0, 0, 0, 0))


def test_a_device_with_a_runtime_sends_about_after_identity_and_new_colour_names_next_time():
    d = Manual(identity=ABOUT_IDENTITY)
    d.connect()
    out = d.out()
    assert [(s, n) for s, n, v in out] == [(0, "identity"), (1, "about")]
    assert out[1][2] == ("micropython", "1.24.1", "ivory,jade")
    d.link.set_colour_names("ivory,jade,red")
    d.connect(nonce=NONCE + 1)
    assert d.out()[1] == (1, "about", ("micropython", "1.24.1", "ivory,jade,red"))
    plain = Manual()  # no runtime named: IDENTITY alone; set_colour_names has nothing to change
    plain.link.set_colour_names("x")
    plain.connect()
    assert names(plain.out()) == ["identity"]
    nonce = L.Link(VClock(), lambda b, n: None, lambda mid, v: None, role="device",
                   identity=IDENTITY)
    assert 0 < nonce.boot_nonce < 1 << 32  # none given: a random one


def test_random_nonces_are_the_four_bytes_little_endian_and_never_zero(monkeypatch):
    import os

    asked = []

    def urandom(n):
        asked.append(n)
        return draws.pop(0)

    draws = [b"\x01\x02\x03\x84", b"\x00\x00\x00\x00", b"\xff\x00\x00\x00"]
    monkeypatch.setattr(os, "urandom", urandom)
    assert [L.random_nonce() for _ in range(3)] == [0x84030201, 1, 0xFF]
    assert asked == [4, 4, 4]


def test_a_reject_of_another_kind_is_counted_and_named_and_a_version_reject_says_who_updates():
    h = Manual(role="host")
    h.link.poll()
    h.feed(0, m.REJECT, (m.E_UNKNOWN_MSG, m.PING, 1, 1))
    h.feed(0, m.REJECT, (m.E_RANGE, m.CONNECT, 1, 1))
    assert h.link.bad == 2 and h.bad == [(m.PING, m.E_UNKNOWN_MSG, m.NO_FIELD),
                                         (m.CONNECT, m.E_RANGE, m.NO_FIELD)]
    assert h.events == [] and h.link.error is None
    h.feed(0, m.REJECT, (m.E_VERSION, m.CONNECT, 2, 3))
    assert h.events == [L.INCOMPATIBLE]
    assert h.link.error == ("the table speaks protocol versions 2..3; this host speaks 1..1: "
                            "update the host")
    h.out()
    h.clock.us = 1_000_000
    h.link.poll()
    assert h.out() == []  # no more CONNECTs until connect() again
    old = Manual(role="host")
    old.link.poll()
    old.feed(0, m.REJECT, (m.E_VERSION, m.CONNECT, 0, 1))
    assert old.link.error.endswith("versions 0..1; this host speaks 1..1: update the firmware")
    quiet = Manual(role="host")
    quiet.link._on_bad = None  # (made without on_bad=)
    quiet.feed(0, m.REJECT, (m.E_UNKNOWN_MSG, m.PING, 1, 1))
    assert quiet.link.bad == 1


def test_an_identity_the_host_cannot_read_says_which_version_or_what_was_wrong():
    h = Manual(role="host")
    h.link.poll()
    h.link.feed(raw_frame(0, m.IDENTITY, bytes([2])))  # a v2 IDENTITY of one byte
    assert h.events == [L.INCOMPATIBLE] and h.link.error == (
        "the table speaks protocol version 2; this host speaks 1..1: update the host")
    assert h.link.connected is False and h.link.lost is False
    h2 = Manual(role="host")
    h2.link.poll()
    h2.link.feed(raw_frame(0, m.IDENTITY, bytes([1, 0, 0xFF])))  # v1, cut short
    assert h2.events == [] and h2.link.bad == 1 and h2.bad[0][0] == m.IDENTITY
    assert h2.bad[0][1:] != (None, None) and None not in h2.bad[0]
    empty = raw_frame(0, m.IDENTITY, b"")  # no payload: byte 4 is its CRC's first
    assert empty[4] != 1  # (not a version: read as a bad IDENTITY, not as version 1's)
    h3 = Manual(role="host")
    h3.link.poll()
    h3.link.feed(empty)
    assert h3.events == [] and h3.link.bad == 1
    old = Manual(role="host")
    old.link.poll()
    old.link.feed(raw_frame(0, m.IDENTITY, bytes([0, 0, 0xFF])))  # a version 0 layout
    assert old.link.error == ("the table speaks protocol version 0; this host speaks 1..1: "
                              "update the firmware")


def test_the_host_acks_the_identity_at_once_and_stops_connecting():
    h = Manual(role="host")
    h.link.poll()
    h.out()
    h.feed(0, m.IDENTITY, HOST_IDENT)
    assert h.out() == [(1, "ack", ())] and h.link.rx_seq == 0
    assert h.link.connected is True and h.link.lost is False
    h.clock.us = 1_000_000
    h.link.poll()
    assert h.out() == [(0, "ping", (NONCE,))]  # no CONNECT any more
    h.feed(1, m.IDENTITY, HOST_IDENT)  # an IDENTITY of seq 1 in the session: an event
    assert h.link.rx_seq == 1


def test_a_sequenced_frame_before_the_session_is_not_taken_for_the_handshake():
    h = Manual(role="host")
    h.link.poll()
    h.feed(1, m.IDENTITY, HOST_IDENT)  # seq 1: not the handshake's
    assert h.events == [] and not h.link.connected
    h.feed(0, m.TILE, (1, 1, 1, 1, 0, 0, 0, 0))
    assert h.events == [] and not h.link.connected


def test_every_bad_link_frame_is_counted_and_named():
    d = Manual()
    d.link.feed(raw_frame(0, 0x0F, b""))  # no such link message
    d.link.feed(raw_frame(0, m.CONNECT, b"\x01"))  # cut short
    d.feed(0, m.HEARTBEAT, (1, 2, 0, 0, 0))  # a host's message to a device
    assert d.link.bad == 3
    assert [b[0] for b in d.bad] == [0x0F, m.CONNECT, m.HEARTBEAT]
    assert d.bad[0][1:] == (m.E_UNKNOWN_MSG, m.NO_FIELD)
    assert d.bad[2][1:] == (m.E_UNKNOWN_MSG, m.NO_FIELD)
    assert None not in d.bad[1]
    h = Manual(role="host")
    h.feed(0, m.CONNECT, (1, 5))  # a device's message to a host
    h.link.feed(raw_frame(0, 0x0F, b""))
    assert h.link.bad == 2 and h.bad == [(m.CONNECT, m.E_UNKNOWN_MSG, m.NO_FIELD),
                                         (0x0F, m.E_UNKNOWN_MSG, m.NO_FIELD)]


def test_unsequenced_frames_carry_seq_0():
    d = Manual()
    d.link.poll()
    d.feed(0, m.LIFT)  # no session: its heartbeat
    assert [s for s, n, v in d.out()] == [0, 0]
    h = host_up()
    h.clock.us = 500_000
    h.link.poll()
    h.link.connect()
    assert h.out() == [(0, "ping", (NONCE,)), (0, "connect", (1, NONCE + 1))]


def test_gaps_dups_and_deferred_commands_are_counted_one_by_one():
    d = Manual(window=4)
    d.connect()
    d.feed(1, m.ACK)
    d.feed(5, m.LIFT)  # ahead: a gap
    d.feed(127, m.LIFT)  # 127 ahead: a gap
    d.feed(128, m.LIFT)  # 128 ahead: behind, a duplicate
    d.feed(255, m.LIFT)
    assert (d.link.gaps, d.link.dups) == (2, 2) and d.calls == []
    tile = (1, 1, 1, 1, 0, 0, 0, 0)
    assert d.link.send(m.TILE, tile) and d.link.send(m.TILE, tile)  # 2 slots free: room
    d.out()
    d.feed(0, m.LIFT)
    assert d.calls == [(m.LIFT, ())]  # taken: its RESULT fits
    d.feed(1, m.STOP)  # 1 slot free: deferred
    d.feed(1, m.STOP)
    assert d.link.deferred == 2 and d.calls == [(m.LIFT, ())]


def test_a_deferred_command_is_nakked_once_exactly_two_slots_are_free():
    d = Manual(window=4)
    d.connect()
    d.feed(1, m.ACK)
    tile = (1, 1, 1, 1, 0, 0, 0, 0)
    for _ in range(4):
        assert d.link.send(m.TILE, tile)  # seq 1..4
    d.out()
    d.feed(0, m.STOP)  # no room: deferred
    assert d.out() == [] and d.link.deferred == 1
    d.feed(2, m.ACK)  # one slot free: still no room, nothing said
    assert d.out() == []
    d.feed(3, m.ACK)  # two free: the repeated ack asks for the command again
    assert d.out() == [(0, "ack", ())]
    d.feed(4, m.ACK)  # said once
    assert d.out() == []


def test_a_table_that_lost_our_session_or_rebooted_is_connected_again_at_once():
    for hb in ((7, NONCE + 1, 0, 0, 0), (8, NONCE, 0, 0, 0)):  # other session / boot nonce
        h = host_up()
        h.feed(0, m.HEARTBEAT, hb)
        assert h.events == [L.NEW, L.PEER_RESET], hb
        assert names(h.out()) == ["connect"]  # at once, not at the next poll
    h = host_up()
    h.feed(0, m.HEARTBEAT, (7, NONCE, 0, 0, 0))  # ours
    assert h.events == [L.NEW] and h.out() == []


def test_an_ack_behind_by_up_to_the_window_resyncs_at_once_and_further_is_stale():
    h = host_up(window=4)
    for i in range(4):
        h.link.send(m.BUILD, (i + 1,))
    h.feed(4, m.ACK)  # all acked: base 4
    h.out()
    h.feed(0, m.ACK)  # 4 behind (the window): out of step
    assert h.link.resyncs == 1 and h.events == [L.NEW, L.RESYNC]
    assert names(h.out()) == ["connect"]
    h = host_up(window=4)
    for i in range(4):
        h.link.send(m.BUILD, (i + 1,))
    h.feed(4, m.ACK)
    h.feed(255, m.ACK)  # 5 behind: stale, from another session
    assert h.link.resyncs == 0 and h.events == [L.NEW]
    h.out()
    h.feed(3, m.ACK)  # 1 behind
    assert h.link.resyncs == 1 and names(h.out()) == ["connect"]
    h.feed(0, m.IDENTITY, HOST_IDENT[:5] + (NONCE + 1,) + HOST_IDENT[6:])  # the new session
    h.link.send(m.BUILD, (1,))
    h.feed(1, m.ACK)
    h.feed(0, m.ACK)
    assert h.link.resyncs == 2 and h.events == [L.NEW, L.RESYNC, L.NEW, L.RESYNC]


def test_acks_of_any_size_walk_the_ring_and_a_timeout_resends_exactly_the_unacked():
    """Over many commands and acks of 1..window frames, the frames resent after a timeout
    (and after a repeated ack) are exactly those not yet acked, oldest first."""
    import random

    rng = random.Random(5)
    h = host_up(window=5, rto_min_ms=1, rto_max_ms=1000)
    sent = 0
    acked = 0
    naks = 0
    timeouts = 0
    for _ in range(200):
        while h.link.send(m.BUILD, (sent + 1,)):
            sent += 1
        h.out()
        if rng.random() < 0.3:
            h.feed(acked & 0xFF, m.ACK)  # a repeated ack: fast retransmit of the rest
            naks += 1
            assert [v[0] for s, n, v in h.out()] == list(range(acked + 1, sent + 1))
        acked += rng.randint(1, sent - acked)
        h.clock.us += 7000
        h.feed(acked & 0xFF, m.ACK)
        h.out()
        h.clock.us += 1_500_000  # past any timeout, short of the silence
        timeouts += acked < sent  # (nothing to time out once all are acked)
        h.link.poll()
        assert [v[0] for s, n, v in h.out() if n == "build"] == list(range(acked + 1, sent + 1))
    assert h.link.naks == naks and h.link.timeouts == timeouts > 100
    assert h.link.retransmits > 200 and h.link.stats()["retransmits"] == h.link.retransmits


def test_the_rtt_estimate_follows_rfc_6298_to_the_millisecond():
    """srtt and rttvar in eighths and quarters (RFC 6298, alpha 1/8, beta 1/4): each
    sample's timeout to the ms, a sample of 0 and a falling sample included."""
    h = host_up(rto_min_ms=1)
    seen = []
    for i, r in enumerate((0, 8, 0, 80, 40, 1, 1, 1, 1, 1, 1, 1, 1, 1)):
        h.link.send(m.BUILD, (i + 1,))
        h.clock.us += r * 1000
        h.feed((i + 1) & 0xFF, m.ACK)
        s = h.link.stats()
        seen.append((s["srtt_ms"], s["rto_ms"]))
    assert seen == [(0, 1), (1, 9), (0, 7), (10, 96), (14, 109), (13, 98), (11, 87), (10, 77),
                    (9, 69), (8, 61), (7, 54), (6, 48), (5, 42), (5, 37)]
    h2 = host_up(rto_min_ms=1)
    h2.link.send(m.BUILD, (1,))
    h2.clock.us += 1000
    h2.feed(1, m.ACK)  # srtt 1 ms, rttvar 2 quarters: 1 + 2
    assert h2.link.rto_ms == 3


def test_the_timeout_is_clamped_at_both_ends_inclusive():
    h = host_up(rto_min_ms=30, rto_max_ms=100)
    h.link.send(m.BUILD, (1,))
    h.clock.us += 10_000  # srtt 10 + 2 x 10: 30, the floor itself
    h.feed(1, m.ACK)
    assert h.link.rto_ms == 30
    h = host_up(rto_min_ms=10, rto_max_ms=100, rto_init_ms=50)
    h.link.send(m.BUILD, (1,))
    h.out()
    for ms, want in ((50, 100), (150, 100)):  # doubled to 100: the ceiling itself
        h.clock.us = ms * 1000
        h.link.poll()
        assert h.link.rto_ms == want and names(h.out()) == ["build"]


def test_next_due_is_the_soonest_timer_to_the_ms():
    h = Manual(role="host", heartbeat_ms=10_000, connect_ms=300)
    h.link.poll()
    h.clock.us = 120_000
    assert h.link.next_due_ms() == 180  # the next CONNECT
    h.feed(0, m.IDENTITY, HOST_IDENT)
    assert h.link.next_due_ms() == 2000  # silence after the table's frame
    h.clock.us = 1_120_000
    assert h.link.next_due_ms() == 1000
    h.link.send(m.BUILD, (1,))
    assert h.link.next_due_ms() == 200  # the retransmission
    h.link.feed(c.encode_frame(1, m.ACK)[:5])  # a partial frame: the gap rule
    h.clock.us += 20_000
    assert h.link.next_due_ms() == 30
    h.clock.us += 300_000
    assert h.link.next_due_ms() == 0  # overdue is now, never less
    assert Manual(role="host").link.next_due_ms() == 0


def test_the_heartbeat_carries_dropped_events_up_to_ffff_and_seq_0():
    d = Manual()
    d.connect()
    d.out()
    for dropped, want in ((0xFFFE, 0xFFFE), (0xFFFF, 0xFFFF), (0x12345, 0xFFFF)):
        d.link.dropped = dropped  # (so many refused events, in a line)
        d.feed(0, m.PING, (NONCE + 5,))
        (s, n, hb), = d.out()
        assert (s, n, hb[4]) == (0, "heartbeat", want)


def test_a_fresh_tables_uptime_passes_2_30_ms_into_the_high_part():
    d = Manual(heartbeat_ms=500)
    d.link.poll()
    d.out()
    d.link._up_lo = (1 << 30) - 100  # (12.4 days of polls, in a line)
    d.clock.us = 500_000
    d.link.poll()
    (s, n, hb), = d.out()
    assert hb[3] == (1 << 30) + 400


def test_the_timing_entropy_folds_the_start_and_32_waits_known_answer(monkeypatch):
    """On a runtime without a random source: the microseconds since reset (30 bits) and
    the time each of 32 short waits took, folded as h = h * 31 + wait (32 bits)."""
    import time

    start = 0x7FFFFFFF  # more than 30 bits: only the low 30 count
    waits = [3, 5, 8, 13] * 8
    readings = [start]
    for k, w in enumerate(waits):  # each wait: a reading before and one after
        readings += [start + 100 * k, start + 100 * k + w]
    it = iter(readings)
    monkeypatch.setattr(time, "ticks_us", lambda: next(it), raising=False)
    h = start & 0x3FFFFFFF
    for w in waits:
        h = (h * 31 + w) & 0xFFFFFFFF
    assert L._timing_entropy() == h
    assert next(it, None) is None  # every reading used, none more


def test_without_a_random_source_the_nonce_is_random_reseeded_with_the_timing(monkeypatch):
    import os
    import random

    def no_source(n):
        raise NotImplementedError

    monkeypatch.setattr(os, "urandom", no_source)
    monkeypatch.setattr(L, "_timing_entropy", lambda: 0x0BADCAFE)
    random.seed(7)
    got = L.random_nonce()
    random.seed(7)
    random.seed(random.getrandbits(32) ^ 0x0BADCAFE)
    assert got == random.getrandbits(32)


def test_two_bad_commands_are_two_and_the_nonce_never_repeats_nor_is_0():
    d = Manual()
    d.connect()
    d.feed(1, m.ACK)
    d.link.feed(raw_frame(0, m.LIFT_DONE, b"\x01"))  # an event sent as a command
    d.link.feed(raw_frame(1, 0x7D, b""))  # no such message
    assert d.link.bad == 2 and d.link.stats()["bad"] == 2
    draws = iter([0, 1, 1, 0, 2])
    h = Manual(role="host", nonce=lambda: next(draws))
    assert h.link.session == 1  # 0 skipped, 1 taken
    h.link.connect()
    assert h.link.session == 2  # the same one again and 0 skipped


def test_after_incompatible_the_host_sends_nothing_until_connect():
    h = Manual(role="host")
    h.link.poll()
    h.link.feed(raw_frame(0, m.IDENTITY, bytes([2])))  # a version 2 table
    assert h.events == [L.INCOMPATIBLE]
    h.out()
    assert h.link.send(m.LIFT, ()) is False and h.link.free == 0
    h.clock.us = 2_000_000
    h.link.poll()
    assert h.out() == []


def test_an_ack_behind_across_the_sequence_wrap_resyncs():
    h = host_up(window=4)
    for i in range(257):  # base wraps to 1
        h.link.send(m.BUILD, (i % 1000 + 1,))
        h.feed((i + 1) & 0xFF, m.ACK)
    h.out()
    h.feed(254, m.ACK)  # 3 behind 1, across the wrap
    assert h.link.resyncs == 1 and h.events == [L.NEW, L.RESYNC]


def test_a_result_the_handler_left_no_room_for_is_counted_as_dropped():
    d = None

    def handler(mid, values):  # the command's handler sends events until the window is full
        while d.link.send(m.TILE, (1, 1, 1, 1, 0, 0, 0, 0)):
            pass
        return None

    d = Manual(window=4, handler=handler)
    d.connect()
    d.feed(1, m.ACK)
    d.out()
    d.feed(0, m.LIFT)
    assert d.link.dropped == 2 and d.link.in_flight == 4  # one event and the RESULT
    assert [n for s, n, v in d.out()] == ["tile"] * 4 + ["ack"]


def test_no_rtt_sample_from_a_retransmitted_frame():
    """Karn: an ack of a frame sent twice says nothing of the round trip; the backoff is
    forgotten on that progress."""
    h = host_up()
    h.link.send(m.BUILD, (1,))
    h.clock.us += 200_000
    h.link.poll()  # resent
    assert h.link.rto_ms == 400
    h.clock.us += 10_000
    h.feed(1, m.ACK)
    assert h.link.stats()["srtt_ms"] is None and h.link.rto_ms == 200


def test_the_variance_term_is_at_least_1_ms():
    h = host_up(rto_min_ms=0)
    h.link.send(m.BUILD, (1,))
    h.feed(1, m.ACK)  # a round trip of 0: srtt 0, variance 0, taken as 1
    assert h.link.rto_ms == 1


def test_garbage_at_the_silence_limit_does_not_bring_a_lost_link_up():
    h = host_up()
    h.clock.us += 2_000_000
    h.link.poll()
    assert h.events == [L.NEW, L.LOST] and h.link.connected is False
    assert h.link.stats()["lost"] is True
    h.link.feed(b"\x00")  # bytes, but no frame
    assert h.link.lost and h.events == [L.NEW, L.LOST]
    h.feed(0, m.HEARTBEAT, (7, NONCE, 0, 0, 0))
    assert h.events == [L.NEW, L.LOST, L.UP] and h.link.lost is False
    assert h.link.connected is True


def test_a_tables_own_frames_put_off_its_heartbeat_unless_it_dropped_events():
    d = Manual(heartbeat_ms=500, window=2)
    d.connect()
    d.feed(1, m.ACK)
    d.out()
    d.clock.us = 400_000
    d.feed(200, m.LIFT)  # a duplicate: answered with an ack alone
    assert names(d.out()) == ["ack"]
    d.clock.us = 899_000
    d.link.poll()
    assert d.out() == []  # 500 ms after the ack, not after the handshake
    d.clock.us = 900_000
    d.link.poll()
    assert names(d.out()) == ["heartbeat"]
    tile = (1, 1, 1, 1, 0, 0, 0, 0)
    while d.link.send(m.TILE, tile):
        pass
    d.out()  # (their sending put it off too)
    d.clock.us = 1_000_000
    d.feed(200, m.LIFT)  # an ack again, after an event was dropped
    assert names(d.out()) == ["ack"]
    d.clock.us = 1_400_000  # 500 ms after the sends, not after this ack
    d.link.poll()
    hbs = [v for s, n, v in d.out() if n == "heartbeat"]  # (beside the events resent)
    assert len(hbs) == 1 and hbs[0][4] == 1


def test_the_uptime_reaches_2_30_minus_1_before_it_carries():
    d = Manual(heartbeat_ms=500)
    d.link.poll()
    d.out()
    d.link._up_lo = (1 << 30) - 1 - 500
    d.clock.us = 500_000
    d.link.poll()
    (s, n, hb), = d.out()
    assert hb[3] == (1 << 30) - 1


def test_a_device_connected_again_is_not_lost():
    d = Manual(silence_ms=1000)
    d.connect()
    d.clock.us = 1_000_000
    d.link.poll()
    assert d.link.lost is True and d.link.connected is False
    d.connect(nonce=NONCE + 1)
    assert d.link.lost is False and d.link.stats()["lost"] is False
