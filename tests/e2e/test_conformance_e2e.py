"""Conformance of the simulated table to protocol/SPEC.md, checked by a second host written
from the spec alone (tests/spec_host.py: raw bytes, none of protocol/) over `jantaku sim
serve`'s pseudo-terminal (issue 13).  Link timing is wall time (§1), so the bounds here
are the spec's figures with a margin for a loaded machine.

Each test starts its own simulated table: several look at what a table does from boot,
and one restarts it.  With --hil-port they are skipped (they restart the table).
"""
import json
import struct
import time

import pytest

from tests.e2e.conftest import start_sim
from tests.spec_host import (ABOUT, BUILD, CALIBRATE, CONFIGURE_BUILD, DOOR, E_BAD_LENGTH, E_OK, E_RANGE,
                             E_UNKNOWN_MSG, E_UNSUPPORTED, EXIT_REPL, HEARTBEAT, IDENTITY, LIGHT, REJECT, RESULT,
                             S_BUILDING, S_IDLE, S_PAUSED, SELF_TEST, STATUS, STATUS_REPLY, SpecHost, frame)

pytestmark = pytest.mark.e2e

HB = 0.5  # §8: heartbeat after 500 ms of the table's silence
SILENCE = 2.0  # §8: link lost after 2000 ms without a good frame
SLACK = 0.25  # scheduling slack of a loaded test machine (the table polls its link every 2 ms)


@pytest.fixture
def sim(tmp_path, hil_port):
    if hil_port:
        pytest.skip("restarts the simulated table")
    procs = []

    def start(*args, seed=7, speed=2, name="sim"):
        state = tmp_path / (name + "-state.json")
        proc, path = start_sim(tmp_path, "--ruleset", "riichi", "--seed", str(seed), "--state", str(state),
                               *args, speed=speed, name=name)
        procs.append(proc)
        host = SpecHost(path)
        procs.append(host)
        return host, state

    yield start
    for p in reversed(procs):
        if isinstance(p, SpecHost):
            p.close()
        else:
            p.kill()


def link_state(path):
    """The simulated firmware's link status from sim serve's --state file."""
    for _ in range(50):
        try:
            with open(path) as f:
                return json.load(f)["firmware"]["link"]
        except (OSError, ValueError, KeyError):
            time.sleep(0.02)
    raise AssertionError("no state file at %s" % path)


def periods(frames):
    return [round(b.t - a.t, 3) for a, b in zip(frames, frames[1:])]


def assert_every_500ms(hbs, what):
    ps = periods(hbs)
    assert ps and all(HB - 0.1 <= p <= HB + SLACK for p in ps), "%s: heartbeat periods %s" % (what, ps)


# -- 1. the table's link timers run on its own clock -------------------------------------------
@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_heartbeat_every_500ms_without_a_session(sim, runtime):
    if runtime == "micropython":
        from hw_sim.stdio_client import StdioError, micropython_binary

        try:
            micropython_binary()
        except StdioError:
            pytest.skip("no micropython binary")
    host, _ = sim("--firmware-runtime", runtime)
    host.pump(0.3)  # whatever was written before we opened the port
    k = host.mark()
    host.pump(2.6)
    hbs = host.heartbeats(k)
    assert len(hbs) >= 4, "no session, silent host: heartbeats %r" % hbs
    assert all(f.heartbeat()[1] == 0 for f in hbs)  # host nonce 0: no session
    assert_every_500ms(hbs, "no session")


def test_identity_resent_on_the_backoff_with_a_silent_host(sim):
    # §6: RTO 200 ms, doubled at each expiry: identity again at 200, 600, 1400, 3000 ms
    host, _ = sim()
    host.pump(0.2)
    k = host.mark()
    host.connect(0x1234ABCD, ack=False)
    host.pump(3.4)
    ids = [f for f in host.since(k, IDENTITY) if f.seq == 0]
    t0 = ids[0].t
    got = [round(f.t - t0, 2) for f in ids[1:]]
    assert len(got) >= 4, "identity resent at %s s after the first" % got
    for want, t in zip((0.2, 0.6, 1.4, 3.0), got):
        assert want - 0.05 <= t <= want + SLACK, "identity resent at %s s, want 0.2, 0.6, 1.4, 3.0" % got


def test_silent_host_idle_heartbeats_then_link_lost(sim):
    host, state = sim()
    host.connect(0x5151)
    last = host.sent_at
    host.pump(0.2)  # (the state file is rewritten every 50 ms)
    assert link_state(state)["connected"]
    k = host.mark()
    lost_at = None
    while host.now() - last < 3.2:
        host.pump(0.05)
        if lost_at is None and link_state(state)["lost"]:
            lost_at = host.now() - last
    hbs = host.heartbeats(k)
    assert all(f.heartbeat()[1] == 0x5151 and f.heartbeat()[2] == S_IDLE for f in hbs)
    assert len(hbs) >= 5, "session, idle, silent host: heartbeats %r" % hbs
    assert_every_500ms(hbs, "idle in a session")
    assert lost_at is not None, "the table never marked the link lost in 3.2 s of silence"
    assert SILENCE - 0.05 <= lost_at <= SILENCE + SLACK + 0.1, "link lost after %.3f s" % lost_at


def _start_build(host):
    host.auto_ack = True
    assert host.call(CONFIGURE_BUILD, bytes((1, 0, 4, 34, 34, 34, 34, 17, 0, 0))) == (E_OK, 255)
    assert host.call(BUILD, b"\x01\x00") == (E_OK, 255)
    assert host.wait_for(lambda f: f.msgid == HEARTBEAT and f.heartbeat()[2] == S_BUILDING or
                         f.msgid == 0x43 and f.payload[0] == S_BUILDING, 2.0) is not None


def test_paused_on_link_loss_heartbeats_and_retransmissions_go_on(sim):
    host, state = sim(speed=1)
    host.connect(0x7777)
    _start_build(host)
    host.pump(0.3)  # tiles flow
    host.auto_ack = False  # the host goes silent
    last = host.sent_at
    k = host.mark()
    paused = host.wait_for(lambda f: f.msgid == HEARTBEAT and f.heartbeat()[2] == S_PAUSED, 4.0, k)
    assert paused is not None, "no heartbeat saying paused after the host went silent"
    assert paused.t - last <= SILENCE + HB + SLACK, "paused seen %.3f s after the host went silent" % (paused.t - last)
    assert link_state(state)["lost"]
    k2 = host.mark()
    host.pump(3.0)
    after = host.since(k2)
    hbs = [f for f in after if f.msgid == HEARTBEAT]
    assert all(f.heartbeat()[2] == S_PAUSED for f in hbs)
    assert len(hbs) >= 5, "paused: heartbeats %r" % hbs
    assert_every_500ms(hbs, "paused")
    resent = [f for f in after if f.msgid >= 0x40]
    assert resent, "paused: unacknowledged events were not retransmitted"
    # the host is back: everything unacknowledged at once (§8), then resume
    k3 = host.mark()
    host.ping()
    host.pump(0.1)
    burst = [f for f in host.since(k3) if f.msgid >= 0x40]
    assert burst and burst[0].t - host.sent_at < 0.1 + SLACK
    host.auto_ack = True
    host.rx_expected = burst[0].seq  # go-back-N: the oldest unacknowledged comes first
    host.write(frame(host.rx_expected, 0x01))
    host.pump(0.3)
    assert host.call(BUILD, b"\x01\x00") == (E_OK, 255)


# -- 2. a heartbeat that answers a frame carries a fresh uptime --------------------------------
def test_heartbeat_answering_a_frame_has_a_fresh_uptime(sim):
    host, _ = sim()
    host.pump(0.5)
    ups = []
    for _ in range(3):
        k = host.mark()
        host.write(frame(0, STATUS))  # a sequenced frame without a session: answered at once
        sent = host.sent_at
        hb = host.wait_for(lambda f: f.msgid == HEARTBEAT and f.t - sent < 0.1, 0.3, k)
        assert hb is not None, "no heartbeat answering a sequenced frame without a session"
        ups.append((sent, hb.heartbeat()[3]))
        host.pump(1.2)
    for (t1, u1), (t2, u2) in zip(ups, ups[1:]):
        assert abs((u2 - u1) - (t2 - t1) * 1000) < 120, "uptime moved %d ms in %.0f ms" % (u2 - u1, (t2 - t1) * 1000)


# -- 3, 4, 6. commands as §4, §9 and §10 say ---------------------------------------------------
def _session(sim):
    host, _ = sim()
    ident = host.connect(0x4242)
    assert ident[6] == 4  # tracks
    host.auto_ack = True
    return host


def test_a_track_beyond_the_table_is_unsupported_for_self_test_and_calibrate(sim):
    host = _session(sim)
    # §4: a track in range but beyond this table is E_UNSUPPORTED, for both commands
    assert host.call(SELF_TEST, bytes((3, 5))) == (E_UNSUPPORTED, 1)  # gate of track 5
    assert host.call(CALIBRATE, bytes((1, 5))) == (E_UNSUPPORTED, 1)
    assert host.call(SELF_TEST, bytes((3, 0))) == (E_RANGE, 1)  # a per-track kind needs a track


def test_length_is_checked_before_any_range(sim):
    host = _session(sim)
    assert host.call(DOOR, b"\x02\x00") == (E_BAD_LENGTH, 255)
    assert host.call(DOOR, b"\x02") == (E_RANGE, 0)
    assert host.call(DOOR, b"") == (E_BAD_LENGTH, 0)
    assert host.call(CALIBRATE, b"\x09\x01\x00") == (E_BAD_LENGTH, 255)


def test_status_reports_the_configured_targets_before_the_build(sim):
    host = _session(sim)
    k = host.mark()
    assert host.call(STATUS) == (E_OK, 255)
    assert host.since(k, STATUS_REPLY)[0].status_reply()[5] == [0, 0, 0, 0]
    assert host.call(CONFIGURE_BUILD, bytes((9, 0, 3, 30, 32, 34, 17, 0, 1))) == (E_OK, 255)
    k = host.mark()
    assert host.call(STATUS) == (E_OK, 255)
    st = host.since(k, STATUS_REPLY)[0].status_reply()
    assert st[0] == S_IDLE and st[2] == 9 and st[5] == [30, 32, 34, 0]


def test_replies_come_right_before_their_result(sim):
    host = _session(sim)
    # §9: status_reply, and a reading's self_test_result, come right before the result
    for msgid, payload, reply in ((STATUS, b"", STATUS_REPLY), (SELF_TEST, bytes((10, 0)), 0x4B)):
        k = host.mark()
        assert host.call(msgid, payload) == (E_OK, 255)
        kinds = [f.msgid for f in host.since(k) if f.msgid >= 0x40]
        assert kinds[:2] == [reply, RESULT], kinds


def test_exit_repl_on_a_cpython_table_is_unsupported(sim):
    host = _session(sim)
    assert host.call(EXIT_REPL, struct.pack("<I", 0x4C504552)) == (E_UNSUPPORTED, 255)
    assert host.call(STATUS) == (E_OK, 255)  # still serving


def test_light_is_minor_1_checked_and_shown(sim):
    host, state = sim()
    ident = host.connect(0x4242)
    host.auto_ack = True
    assert ident[1] >= 1  # §11: minor 1 added `light`
    assert host.call(LIGHT, b"\x05") == (E_RANGE, 0)  # §12: pattern 0..4
    assert host.call(LIGHT, b"\x02\x00") == (E_BAD_LENGTH, 255)
    assert host.call(LIGHT, b"\x02") == (E_OK, 255)
    end = time.monotonic() + 5
    while time.monotonic() < end:  # the simulated firmware shows it (sim serve --state)
        try:
            with open(state) as f:
                lt = json.load(f)["firmware"]["controller"]["light"]
            if lt["shown"] == "people":
                break
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.05)
    assert lt["shown"] == "people" and lt["host"] == "people", lt
    assert host.call(LIGHT, b"\x00") == (E_OK, 255)


def test_a_table_only_link_message_from_the_host_is_rejected(sim):
    host = _session(sim)
    k = host.mark()
    host.write(frame(0, HEARTBEAT, struct.pack("<IIBIH", 1, 0x4242, 1, 0, 0)))
    rej = host.wait_for(lambda f: f.msgid == REJECT, 1.0, k)
    assert rej is not None and tuple(rej.payload[:2]) == (E_UNKNOWN_MSG, HEARTBEAT)
    k = host.mark()
    host.write(frame(0, REJECT, bytes((1, 0x40, 1, 1))))  # a reject is never answered
    host.pump(0.3)
    assert not host.since(k, REJECT)
    assert host.call(STATUS) == (E_OK, 255)


# -- 5. the boot nonce differs between runs with the same seed ---------------------------------
def test_boot_nonce_differs_between_runs_with_one_seed(sim):
    nonces = []
    for name in ("first", "second"):
        host, _ = sim(seed=7, name=name)
        ident = host.connect(0x99)
        hb = host.wait_for(lambda f: f.msgid == HEARTBEAT, 1.5)
        assert hb is not None and hb.heartbeat()[0] == ident[4]
        nonces.append(ident[4])
    assert nonces[0] != nonces[1] and 0 not in nonces


# -- §3: a false sync does not hold a command back ---------------------------------------------
@pytest.mark.parametrize("pinging", [True, False])
def test_command_after_a_false_sync_is_delivered_within_600ms(sim, pinging):
    host, _ = sim()
    host.connect(0x3131)
    host.auto_ack = True
    worst = 0.0
    for _ in range(3):
        host.pump(0.3)
        k = host.mark()
        # a false sync announcing a 64-byte frame, then an 8-byte command
        seq = host.command(STATUS, prefix=b"\x7e\x40")
        sent = host.sent_at
        r = None
        while r is None and host.now() - sent < 3.0:
            r = host.result_of(seq, 0.45 if pinging else 3.0, k)
            if r is None and pinging:
                host.ping()  # §8: the host's heartbeat keeps coming
        assert r is not None, "the command after a false sync was never answered"
        got = host.wait_for(lambda f: f.msgid == RESULT and f.result()[0] == seq, 0, k)
        worst = max(worst, got.t - sent)
    assert worst <= 0.6, "a command after a false sync answered after %.3f s" % worst
