from firmware import codes
from firmware.endpoint import FIRMWARE_NAME
from protocol import messages as m

from fw_host import System

OK = (m.OK, m.NO_FIELD)


def test_handshake_identity():
    s = System()
    ident = s.named("identity")
    assert len(ident) == 1
    v = ident[0]
    assert v[0] == m.PROTOCOL_VERSION and v[2] == FIRMWARE_NAME and v[3] == "reference-18"
    assert v[4] == 0x1234 and v[5] == 0x77
    assert v[6:] == (4, 18, 2)
    assert s.host.connected
    import platform

    assert s.named("about") == [("cpython", platform.python_version(), "blue,green")]
    s.send("identify")
    assert len(s.named("identity")) == 2 and s.result("identify") == OK


def test_status_reply_comes_before_its_result():
    s = System()
    s.send("status")
    names = [n for (n, v) in s.got if n in ("status_reply", "result")]
    assert names[-2:] == ["status_reply", "result"]
    st = s.named("status_reply")[-1]
    assert st[0] == codes.IDLE and st[1] == 0 and st[2] == 0 and st[3] == 0
    assert st[5] == (0, 0, 0, 0) and st[6] == (0,) * 12


def test_commands_are_checked_and_answered():
    s = System()
    s.send("configure_build", 3, (34, 34, 34, 34), 19, (1,), 1)
    assert s.result("configure_build") == (m.E_UNSUPPORTED, 2)
    s.send("build", 3)
    assert s.result("build") == (m.E_NOT_ALLOWED, 0)
    s.send("configure_build", 3, (4, 4, 4, 4), 2, (1, 2), 0)
    assert s.result("configure_build") == OK
    s.send("clear_fault", 0)
    assert s.result("clear_fault") == (m.E_NOT_ALLOWED, m.NO_FIELD)
    s.send("self_test", m.D_ENTRY, 0)
    assert s.result("self_test") == (m.E_RANGE, 1)
    s.send("calibrate", 1, 1)
    assert s.result("calibrate") == (m.E_FAILED, m.NO_FIELD)


def test_build_over_the_link_reports_tiles_with_raw_readings():
    s = System()
    s.send("configure_build", 9, (2, 2, 2, 2), 1, (1,), 0)
    s.send("build", 9)
    assert s.result("build") == OK
    assert s.named("state")[-1] == (codes.BUILDING, codes.IDLE)
    for k in range(1, 5):
        s.tile(k)
        s.tile(k)
    s.pump(1500)
    tiles = s.named("tile")
    assert len(tiles) == 8
    t = tiles[0]
    assert t[0] == 9 and t[1] == 1 and t[2] == 1 and t[3] == 1
    assert t[4] == 900 and t[5] == 180 and t[6] == 270 and t[7] == 450
    assert len(s.named("track_full")) == 4
    done = s.named("build_done")
    assert done == [(9, (0, 2, 0) * 4, 0)]
    assert s.named("state")[-1] == (codes.BUILT, codes.BUILDING)
    s.send("status")
    st = s.named("status_reply")[-1]
    assert st[0] == codes.BUILT and st[2] == 9 and st[5] == (2, 2, 2, 2) and st[6] == (0, 2, 0) * 4


def test_heartbeat_carries_the_state():
    s = System()
    s.send("configure_build", 1, (2, 2, 2, 2), 1, (), 0)
    s.send("build", 1)
    s.pump(600)
    assert s.host.peer_heartbeat[2] == codes.BUILDING
    assert s.host.peer_heartbeat[0] == 0x1234


def test_link_loss_pauses_and_build_resumes():
    s = System()
    s.send("configure_build", 4, (4, 4, 4, 4), 2, (), 0)
    s.send("build", 4)
    s.tile(1)
    s.hearing = False
    s.pump(2600)
    assert s.fw.ctl.state == codes.PAUSED
    assert s.hal.level("mixer_pwm") == 0 and s.hal.level("gate1") == 0
    s.hearing = True
    s.pump(600)
    assert s.host.connected
    s.send("status")
    st = s.named("status_reply")[-1]
    assert st[0] == codes.PAUSED and st[3] == 1 and st[2] == 4 and st[6][1] == 1
    s.send("build", 4)
    assert s.result("build") == OK and s.fw.ctl.state == codes.BUILDING
    assert s.hal.level("gate1") == 1


def test_exit_repl_without_a_repl_is_unsupported_and_changes_nothing():
    # a CPython table (a Pi, the simulator) has no REPL to give the port to (SPEC §9)
    s = System()
    s.send("configure_build", 1, (2, 2, 2, 2), 1, (), 0)
    s.send("build", 1)
    s.send("exit_repl", m.REPL_MAGIC)
    assert s.host.connected
    assert s.result("exit_repl") == (m.E_UNSUPPORTED, m.NO_FIELD)
    assert not s.fw.exit_requested and s.hal.level("mixer_pwm") == 1 and s.fw.ctl.state == codes.BUILDING


def test_exit_repl_stops_everything():
    s = System()
    s.fw.endpoint.repl = True  # as firmware/main.py sets it on a board
    s.send("configure_build", 1, (2, 2, 2, 2), 1, (), 0)
    s.send("build", 1)
    assert s.hal.level("mixer_pwm") == 1
    s.send("exit_repl", m.REPL_MAGIC)
    assert s.result("exit_repl") == OK
    assert s.fw.exit_requested and s.hal.level("mixer_pwm") == 0 and s.hal.level("gate1") == 0


def test_a_handler_that_raises_is_internal_and_stops():
    s = System()
    s.send("configure_build", 1, (2, 2, 2, 2), 1, (), 0)
    s.send("build", 1)

    def boom():
        raise RuntimeError("bug")

    s.fw.ctl.cmd_stop = boom
    s.send("stop")
    assert s.result("stop") == (m.E_INTERNAL, m.NO_FIELD)
    assert s.fw.ctl.state == codes.FAULT and s.fw.ctl.fault == codes.FAULT_INTERNAL
    assert s.named("fault")[-1][0] == codes.FAULT_INTERNAL
    assert any("internal" in v[1] for v in s.named("log"))
    assert s.hal.level("mixer_pwm") == 0


def test_events_before_a_session_are_not_sent_nor_counted():
    s = System(connect=False)
    s.fw.step()
    assert s.fw.endpoint.link.dropped == 0  # the boot STATE had nobody to go to
    s.pump(300)
    assert s.host.connected and s.host.peer_heartbeat[4] == 0


def test_a_full_window_during_an_outage_is_counted():
    s = System()
    s.send("configure_build", 1, (30, 30, 30, 30), 15, (), 0)
    s.send("build", 1)
    s.hearing = False
    for _ in range(3):
        for k in range(1, 5):
            s.tile(k)
    assert s.fw.endpoint.link.dropped > 0
    s.hearing = True
    s.pump(3000)
    s.send("status")
    assert s.named("status_reply")[-1][4] == s.fw.endpoint.link.dropped


def test_long_log_text_is_cut_to_54_bytes():
    s = System()
    s.fw.endpoint.on_log(1, "é" * 40)
    s.pump(20)
    assert len(s.named("log")[-1][1].encode()) <= 54
