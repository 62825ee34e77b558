"""The four-port machine as a second mechanism family (issue 47 points 1-3 and 6): its
profile refused naming every problem, its firmware on the simulated machine at the pin
level building exact walls over builds and hand overs within 2 % of the mechanical bound,
the count cross-check (fault COUNT naming the side, the deck kept exact), a lift that
stalls named by its side, and the guard's IRQ stopping every motor."""
import copy
import json

import pytest

from firmware import profile as P
from firmware.profile import ProfileError
from hw_sim.driver import Driver
from hw_sim.inprocess import InProcessTable
from protocol import messages as m

SETS = [["%d%s" % (i % 9 + 1, "mpsz"[(i // 36) % 4]) for i in range(136)]] * 2


def fourport():
    with open(P.boards_dir() + "/fourport-24v.json") as f:
        return json.load(f)


def table(faults=(), seed=3):
    t = InProcessTable("fourport-24v", SETS, seed=seed, faults=faults)
    d = Driver(t)
    d.connect()
    return t, d


def test_a_profile_that_mixes_families_lacks_switches_or_puts_ac_on_pwm_is_refused_at_once():
    d = fourport()
    d["motors"]["lift"] = {"drive": "hbridge", "supply": "ac"}
    d["pins"]["gate1"] = 42  # a reference-family signal
    del d["pins"]["home2"]   # stacker2 without its home switch
    with pytest.raises(ProfileError) as e:
        P.load(d)
    keys = {p.key for p in e.value.problems}
    assert {"motors.lift", "pins.gate1", "pins.home2"} <= keys
    text = str(e.value)
    assert "AC" in text and "not mixed" in text and "stacker2" in text
    r = json.load(open(P.boards_dir() + "/reference-18.json"))
    r["pins"]["count1"] = 40
    with pytest.raises(ProfileError, match="fourport family in a reference profile"):
        P.load(r)


def test_one_way_drive_for_a_two_way_motor_is_refused():
    d = fourport()
    d["motors"]["centre"] = {"drive": "onoff", "supply": "ac"}
    with pytest.raises(ProfileError, match="motors.centre.drive"):
        P.load(d)


def test_builds_and_hand_overs_are_exact_and_within_two_percent_of_the_bound():
    t, d = table()
    for b in (1, 2, 3):
        r = d.build(b, [34, 34, 34, 34], 17, (1,) if b % 2 else (2,), 1)
        assert r is not None, d.last.get("fault")
        rep = t.report(full=False)["builds"][-1]
        assert rep["tiles_per_track"] == [34, 34, 34, 34]
        assert rep["efficiency"] >= 0.98
        assert 18 <= rep["build_s"] <= 35
        # every tile counted by the firmware is a tile in the walls, colour for colour
        counts = r[1]
        for k in range(4):
            backs = rep["back_counts"][k]
            assert counts[3 * k + 1] == backs["blue"] and counts[3 * k + 2] == backs["green"]
        assert d.hand_over()
        assert t.table.tile_census()["odd"] == []
    assert t.report(full=False)["wiring"] == []


@pytest.mark.parametrize("kind,detail", [("count-double", 1), ("count-miss", 2)])
def test_a_counting_sensor_off_its_threshold_is_fault_count_naming_the_side_and_the_deck_stays_exact(kind, detail):
    t, d = table(faults=("%s:track=2,after=10,count=0" % kind,))
    assert d.build(1, [34, 34, 34, 34], 17, (1,), 1) is None
    code, track, det = d.last["fault"]
    assert (code, track, det & 0xFF) == (m.F_COUNT, 2, detail)
    # the side's own status says which and how many; the detail's high byte is the count
    # put right (the phantom dropped, or the missed tile counted)
    side = t.fw.ctl.tracks[1]
    st = side.get_status()
    assert (st["doubles"], st["misses"]) == ((1, 0) if detail == 1 else (0, 1))
    assert det >> 8 == st["count"] == st["seen"] > 0 and st["home"] in (True, False)
    assert {k: v for k, v in t.fw.ctl.tracks[0].get_status().items()
            if k in ("doubles", "misses")} == {"doubles": 0, "misses": 0}
    # a person turns the potentiometer back; the build goes on to exact walls
    assert t.table.hand("fix-count", track=2) == {"sides": [2]}
    d.run_for(300)
    assert d.command("clear_fault", m.F_COUNT)[0] == 0
    base = d.seen("build_done")
    assert d.command("build", 1)[0] == 0
    assert d.wait(lambda: d.seen("build_done") > base, 90000)
    rep = t.report(full=False)["builds"][-1]
    assert rep["tiles_per_track"] == [34, 34, 34, 34]
    counts = d.last["build_done"][1]
    assert [counts[3 * k + 1] for k in range(4)] == [34, 34, 34, 34]


def test_one_lift_that_stalls_stops_all_four_and_is_named_by_its_side():
    t, d = table(faults=("lift-stall:build=1,track=3",))
    assert d.build(1, [34, 34, 34, 34], 17, (1,), 1) is not None
    assert not d.hand_over()
    code, track, _ = d.last["fault"]
    assert (code, track) == (m.F_LIFT_STALL, 3)
    assert not [ln for ln in t.table.driven() if ln.startswith("lift")]


def test_the_guard_stops_every_motor_at_once_disc_feeds_and_cams_included():
    t, d = table()
    assert d.command("configure_build", 1, [34, 34, 34, 34], 17, [1], 1)[0] == 0
    assert d.command("build", 1)[0] == 0
    d.run_for(3000)
    on = t.table.driven()
    assert "disc_on" in on and [n for n in on if n.startswith("feed")]
    t.table.panel.break_guard(t.table.clock.us + 1000, 500, "curtain")
    d.run_for(20)
    assert t.table.driven() == []
    assert d.last["fault"][0] == m.F_GUARD


def test_a_relay_pair_is_never_both_on_and_waits_its_dead_time_to_reverse():
    from firmware.drivers.motor import RelayPair, OnOffMotor
    from firmware.fakes import FakeClock, FakePin
    from firmware.sched import Scheduler

    clock = FakeClock()
    sched = Scheduler(clock)
    fwd, rev = FakePin("fwd", 0), FakePin("rev", 0)
    m = RelayPair(fwd, rev, sched, dead_ms=50)
    levels = []
    m.run(1)
    levels.append((fwd.level, rev.level))
    m.run(0)  # a reversal: both off first
    levels.append((fwd.level, rev.level))
    clock.advance(49)
    sched.run()
    levels.append((fwd.level, rev.level))
    clock.advance(2)
    sched.run()
    levels.append((fwd.level, rev.level))
    m.stop()
    levels.append((fwd.level, rev.level))
    clock.advance(10)
    m.run(1)  # the other way 10 ms after a stop: the rest of the dead time first
    levels.append((fwd.level, rev.level))
    clock.advance(41)
    sched.run()
    levels.append((fwd.level, rev.level))
    assert levels == [(1, 0), (0, 0), (0, 0), (0, 1), (0, 0), (0, 0), (1, 0)]
    one = OnOffMotor(FakePin("on", 0))
    with pytest.raises(ValueError):
        one.run(0)  # one output turns one way only


def _building(t, d, ms=3000):
    assert d.command("configure_build", 1, [34, 34, 34, 34], 17, [1], 1)[0] == 0
    assert d.command("build", 1)[0] == 0
    d.run_for(ms)
    on = t.table.driven()
    assert "disc_on" in on and [n for n in on if n.startswith("feed")]


def test_a_four_port_firmware_frozen_mid_build_loses_every_motor_within_the_bound():
    """The safety chain (issue 48) on the four-port machine: a hung main loop stops
    toggling the watchdog, the relays drop the supply, and the disc, the feeds and the cams
    stop with no software in the path."""
    t, d = table()
    tab = t.table
    sf = tab.profile["safety"]
    _building(t, d)
    t.fw.step = lambda: None
    t.fw.next_due_us = lambda: None
    t0 = tab.clock.us
    entered = [tr.entered for tr in tab.tracks]
    d.run_for(2000)
    drop = [x for x in tab.power.drops if x[0] >= t0]
    assert drop and drop[0][2] == "watchdog"
    assert drop[0][0] - t0 <= (sf["watchdog_hold_ms"] + sf["relay_ms"]) * 1000
    assert not tab.power.drive and not tab.mixer.running
    after = [tr.entered for tr in tab.tracks]
    strokes = [tr.strokes for tr in tab.tracks]
    d.run_for(2000)
    assert [tr.entered for tr in tab.tracks] == after  # no tile moves any more
    assert [tr.strokes for tr in tab.tracks] == strokes  # no cam turns
    assert sum(after) - sum(entered) <= 4  # (tiles already at a slot)


def test_four_port_lifts_run_on_the_motion_rail_the_curtain_cuts():
    """The four lifts are on the motion rail (K2): a broken curtain cuts it in the relay's
    time even if the firmware did nothing, and every lift stops."""
    t, d = table()
    assert d.build(1, [34, 34, 34, 34], 17, (1,), 1) is not None
    assert d.command("lift")[0] == 0
    d.run_for(1000)
    tab = t.table
    assert all(lf.motor_on for lf in tab.lifts)
    tab.panel.break_guard(tab.clock.us, 2000, "curtain")
    d.run_for(tab.profile["safety"]["relay_ms"] + 1)
    assert not tab.power.motion and not any(lf.motor_on for lf in tab.lifts)
    assert d.last["fault"][0] == m.F_GUARD


def test_wiring_power_tables_the_four_port_machines_own_motors():
    """Issue 48 point 5 on the four-port profile: each of its motors a branch of its own
    (a lift per side fused above its stall, the disc, feeds, cams and dice on the drive
    rail, the lifts and the centre panel on the motion rail), no reference-table part."""
    from hostd.bringup import wiring

    prof = P.load("fourport-24v")
    text = wiring.power_markdown(prof)
    assert "door motor" not in text and "solenoids" not in text and "mixer" not in text
    rows = {r[0]: r for r in wiring.power_rows(prof)}
    lift = rows["lift motor (each of 4)"]
    assert lift[2] >= 1.25 * prof["thresholds"]["lift_stall_a"] and lift[4] == "motion (K2)"
    assert rows["centre panel motor"][4] == "motion (K2)"
    for m in ("disc motor", "feed motor (each of 4)", "stacker cam motor (each of 4)", "dice motor"):
        assert rows[m][4] == "drive (K1)", m
    assert "at least 28.6 A continuous" in text and "main fuse of 30 A" in text


class SideCtl:
    def __init__(self):
        self.faults = []
        self.tiles = []

    def on_mech_fault(self, code, track, detail):
        self.faults.append((code, track, detail))

    def on_track_fault(self, code, track):
        self.faults.append((code, track))

    def on_tile(self, track, index, cls):
        self.tiles.append(index)

    def on_wall_done(self, track):
        pass


def one_side(num=3):
    """A four-port side on fake pins, driven as the controller's task loop drives it."""
    from firmware.fakes import FakeClock, FakeHal
    from firmware.fourport.side import Side
    from firmware.sched import Scheduler

    prof = P.load(fourport())
    clock = FakeClock(5_000_000)
    hal = FakeHal(prof)
    sched = Scheduler(clock)
    ctl = SideCtl()
    side = Side(num, prof, hal, sched, clock, ctl)

    def run(ms):
        for _ in range(ms):
            clock.us += 1000
            if side.photo.changed:
                side.service()
            if side.pending():
                side.extra_service()
            sched.run()

    return prof, hal, sched, clock, ctl, side, run


def test_a_cam_that_never_comes_home_is_fault_jam_naming_the_side_and_the_failures():
    """A side's stack-and-push cam whose home switch never presses again: fault JAM for
    that side, detail 0x100 and how many strokes failed so far."""
    prof, hal, sched, clock, ctl, side, run = one_side()
    wait_ms = 2 * prof["timings_ms"]["stacker"] + prof["timeouts_ms"]["jam_backoff"]
    for _ in range(2):
        side.cam.add_tile()  # a stroke starts; its switch never presses
        for _ in range(wait_ms + 1):
            clock.us += 1000
            sched.run()
    assert ctl.faults == [(m.F_JAM, 3, 0x101), (m.F_JAM, 3, 0x102)]


def test_a_sides_count_cross_check_counts_each_double_and_each_miss_and_keeps_in_step():
    from firmware.fourport.side import COUNT_DOUBLE, COUNT_MISSED

    prof, hal, sched, clock, ctl, side, run = one_side()
    count, seen = hal.pins["count3"], hal.pins["colour3_int"]
    sched.wake.up = False
    seen.set(0)  # not building: the colour sensor's edge is kept in step, nothing reported
    assert sched.wake.up and side.pending()
    run(5)
    seen.set(1)
    run(5)
    assert side.seen.count == 0 == side.photo.count and not side.pending() and ctl.faults == []
    side.arm(10)
    for _ in range(2):  # two pulses with no tile under the colour sensor: two doubles
        count.set(0)
        run(5)
        count.set(1)
        run(100)
    assert (side.doubles, side.photo.count, side.misses) == (2, 0, 0)
    assert ctl.faults == [(m.F_COUNT, 3, COUNT_DOUBLE)] * 2
    for k in range(2):  # two tiles the colour sensor saw, never counted: two misses
        seen.set(0)
        run(5)
        seen.set(1)
        run(100)
    assert (side.doubles, side.misses, side.photo.count, side.seen.count) == (2, 2, 2, 2)
    assert ctl.faults[2:] == [(m.F_COUNT, 3, COUNT_MISSED | (1 << 8)),
                              (m.F_COUNT, 3, COUNT_MISSED | (2 << 8))]
    assert ctl.tiles == [1, 2]  # each missed tile counted and read
