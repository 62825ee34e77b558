"""The safety chain in hardware (hw_sim/power.py) with the real firmware in-process: the
relays stop the lift with no software in the path, a hung firmware loses motor power
within the profile's bound, and the 24 V cut (fault supply-off) is the same model as the
relays': every reader sees one supply."""
from hw_sim.driver import Driver
from hw_sim.inprocess import InProcessTable
from protocol import messages as m
from sim_helpers import SET, bare_table, deaf_safety_factory, profile


def table(seed=1, factory=None, prof="reference-18", **kw):
    t = InProcessTable(prof, [SET, SET], seed=seed, firmware_factory=factory, **kw)
    d = Driver(t)
    d.connect()
    return t, d


def _lift_midway(t, d, ms=1500):
    assert d.command("lift") == (0, 255)
    d.run_for(ms)
    lf = t.table.lift
    assert lf.motor_on and lf.direction == 1 and 0 < lf.position_ms() < 4000
    return lf


def test_with_the_guard_handler_doing_nothing_the_relay_still_stops_the_lift():
    t, d = table(factory=deaf_safety_factory)
    tab = t.table
    sf = tab.profile["safety"]
    lf = _lift_midway(t, d)
    now = tab.clock.us
    tab.panel.break_guard(now, 2000, "curtain")
    d.run_for(1)
    assert lf.duty > 0  # the firmware still drives it: nothing in software stopped it
    d.run_for(sf["relay_ms"] + sf["lift_coast_ms"] + 20)
    rec = tab.safety_report()[-1]
    # the motion relay opened its release time after the break; the lift coasted to rest
    assert rec["latency_ms"] == sf["relay_ms"]
    assert rec["stop_ms"] == sf["relay_ms"] + sf["lift_coast_ms"]
    assert rec["run_on_ms"] == sf["relay_ms"] + sf["lift_coast_ms"] / 2
    pos = lf.position_ms()
    d.run_for(500)
    assert lf.position_ms() == pos and not tab.power.motion
    assert tab.power.drops[-1][1:] == ["motion", "curtain"]
    assert tab.power.drive  # the mixer's rail: a hand over a wall does not stop a build


def test_with_the_guard_handler_working_the_firmware_is_first():
    t, d = table()
    tab = t.table
    sf = tab.profile["safety"]
    lf = _lift_midway(t, d)
    tab.panel.break_guard(tab.clock.us, 300, "curtain")
    d.run_for(400)
    rec = tab.safety_report()[-1]
    assert rec["latency_ms"] == 0.0  # the hard IRQ, at the edge
    assert rec["stop_ms"] == sf["lift_coast_ms"] and rec["run_on_ms"] == sf["lift_coast_ms"] / 2
    assert d.faults()[-1] == ("guard", 0, 1)


def test_a_firmware_frozen_mid_lift_loses_motor_power_within_the_bound():
    t, d = table()
    tab = t.table
    sf = tab.profile["safety"]
    lf = _lift_midway(t, d)
    # the main loop hangs: its IRQs still run, its timers (the watchdog's toggle) do not
    fw = t.fw
    fw.step = lambda: None
    fw.next_due_us = lambda: None
    t0 = tab.clock.us
    last = tab.power.wd_edges
    d.run_for(2000)
    assert tab.power.wd_edges == last
    drop = [x for x in tab.power.drops if x[0] >= t0]
    assert drop and drop[0][2] == "watchdog"
    bound_us = (sf["watchdog_hold_ms"] + sf["relay_ms"]) * 1000
    assert drop[0][0] - t0 <= bound_us
    assert not lf.motor_on and lf.v == 0 and lf.position_ms() < 4000  # stopped short of the top
    assert lf.stopped_us - t0 <= bound_us + sf["lift_coast_ms"] * 1000
    assert not tab.power.drive  # the mixer and the solenoids too


def test_no_motion_starts_while_the_chain_is_open_and_the_emergency_stop_stops_everything():
    t, d = table()
    tab = t.table
    assert d.command("configure_build", 1, [34] * 4, 17, [1, 2], 1) == (0, 255)
    assert d.command("build", 1) == (0, 255)
    d.run_for(3000)
    assert tab.mixer.running
    tab.power.press_estop()
    d.run_for(50)
    assert not tab.mixer.running and not tab.power.drive
    assert d.faults()[-1] == ("guard", 0, 4)  # detail 4: the chain (the emergency stop)
    st = t.fw.ctl.guard.get_status()
    assert st["chain"] is False and st["power"] is False
    assert d.command("clear_fault", 0)[0] == m.E_FAILED  # still open
    assert d.command("lift")[0] == m.E_NOT_ALLOWED
    tab.power.press_estop(False)
    d.run_for(100)
    assert d.command("clear_fault", 0) == (0, 255)
    assert d.command("build", 1) == (0, 255)  # resumed: counts kept
    assert d.wait(lambda: d.seen("build_done"), 60000)


def test_24v_cut_is_one_model_with_the_relays_every_reader_sees_it():
    # with the relays (the shipped profile) and without them (a profile without the chain)
    for relays in (True, False):
        p = profile()
        if not relays:
            p["pins"]["interlock"] = None
            p["pin_options"].pop("interlock")
        tab = bare_table() if relays else bare_table_from(p)
        pw = tab.power
        assert pw.relays is relays and tab.supply and pw.motion
        tab.lines["lift_dir"].drive(1)
        tab.lines["lift_pwm"].drive(65535)
        tab.lines["mixer_pwm"].drive(65535)
        tab.lines["gate1"].drive(1)
        tab.advance_to(100_000)
        assert tab.lift.motor_on and tab.mixer.running and tab.tracks[0].gate_open
        tab.set_supply(False)  # fault supply-off's switch
        # every reader: the rails, the table's supply, each mechanism
        assert not pw.drive and not pw.motion and not tab.supply
        assert not tab.lift.motor_on and not tab.mixer.running
        tab.advance_to(200_000)
        assert not tab.tracks[0].gate_open
        assert pw.drops[-1][2] == "supply"
        assert pw.feedback.level == 0
        tab.set_supply(True)
        tab.advance_to(300_000)
        assert tab.lift.motor_on and tab.mixer.running


def bare_table_from(p):
    from hw_sim.table import Table

    return Table(p, [SET, SET], seed=1, sim={"watchdog_jumper": True})


def test_a_welded_relay_is_noticed_by_its_feedback():
    t, d = table()
    tab = t.table
    tab.power.welded = True
    lf = _lift_midway(t, d)
    tab.panel.break_guard(tab.clock.us, 2000, "curtain")
    d.run_for(200)
    assert not lf.motor_on  # the firmware's IRQ stopped it
    assert tab.power.feedback.level == 1  # the contacts stayed closed
    assert t.fw.ctl.guard.get_status()["relay_stuck"] is True


def test_without_the_chains_pins_the_simulator_runs_and_says_so():
    p = profile()
    for k in ("interlock", "power_feedback", "watchdog"):
        p["pins"][k] = None
        p["pin_options"].pop(k, None)
    t, d = table(prof=p)
    assert t.table.power.relays is False
    logs = [e[2] for e in d.events if e[1] == "log"]
    assert [m.LOG_WARN, "no safety chain pins: simulator only"] in logs
    assert d.build(1, [34] * 4, 17, [1, 2], 1) is not None


def test_the_host_reads_the_chain_and_the_selftest_reports_it(tmp_path):
    """The table tells the host its chain (protocol SAFETY): the status carries it, the
    self-test reports it first and moves nothing while it is open."""
    from daemon_harness import Harness
    from hostd.core import bench

    h = Harness(tmp_path, seed=3)
    try:
        h.call(h.daemon.table.pause(0.2))  # the relays close once the watchdog toggles
        st = h.daemon.table.get_status()
        assert st["safety"] == {"chain": True, "power": True, "relay_stuck": False}
        h.sim.table.power.press_estop()
        h.call(h.daemon.table.query_status())
        assert h.daemon.table.safety["chain"] is False
        rep, err = h.call(h.daemon.bench_step("selftest", bench.selftest()), max_s=120)
        assert err is None, err
        chain = [d for d in rep["devices"] if d["device"] == "chain"]
        assert chain and chain[0]["result"] == "failed" and "emergency stop" in chain[0]["message"]
        assert {s["device"] for s in rep["skipped"]} >= {"lift", "door", "gate"}
    finally:
        h.close()
