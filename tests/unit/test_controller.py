import pytest

from firmware import codes
from firmware.fakes import Rig
from protocol import messages as m

OK = (m.OK, m.NO_FIELD)


def names(rig, kind):
    return rig.rec.named(kind)


def offer(rig, track, colour=1):
    """The turntable offers a tile at track's mouth: it enters only if the gate is open."""
    if rig.pin("gate" + str(track)).level:
        rig.tile(track, colour)
        return True
    return False


def build(rig, per_track, *, empty=False, build_id=7, colours=None):
    assert rig.ctl.cmd_configure(build_id, [per_track] * 4, max(1, (per_track + 1) // 2), [1, 2], 1 if empty else 0) == OK
    assert rig.ctl.cmd_build(build_id) == OK
    assert rig.ctl.state == codes.BUILDING


def fill(rig, rounds, colour_of=lambda k, i: 1):
    taken = 0
    for i in range(rounds):
        for k in range(1, 5):
            if offer(rig, k, colour_of(k, i)):
                taken += 1
        rig.run(220)
    return taken


def test_boot_is_idle_with_everything_off():
    r = Rig()
    assert r.ctl.state == codes.IDLE
    assert r.rec.events[0] == ("state", codes.IDLE, codes.BOOT)
    for name in ("mixer_pwm", "lift_pwm", "door_pwm", "gate1", "stacker1", "pusher1", "status_light"):
        assert r.hal.level(name) == 0
    assert r.ctl.sensors_present == 4


def test_boot_with_both_lift_switches_pressed_is_limit_fault():
    from firmware.fakes import FakeHal
    from firmware import fakes

    orig = fakes._REST["lift_top"]
    fakes._REST["lift_top"] = 0
    try:
        r = Rig()
    finally:
        fakes._REST["lift_top"] = orig
    assert r.ctl.state == codes.FAULT and r.ctl.fault == codes.FAULT_LIMIT


def test_configure_checks():
    r = Rig()
    c = r.ctl
    assert c.cmd_configure(1, [34] * 4, 19, [1], 0) == (m.E_UNSUPPORTED, 2)  # table walls hold 18
    assert c.cmd_configure(1, [36] * 4, 17, [1], 0) == (m.E_RANGE, 1)
    assert c.cmd_configure(1, [34] * 4, 17, [3], 0) == (m.E_UNSUPPORTED, 3)
    assert c.cmd_configure(1, [34] * 5, 17, [1], 0) == (m.E_UNSUPPORTED, 1)
    assert c.cmd_configure(1, [34, 34], 17, [1], 0) == OK  # tracks 3 and 4 get none
    assert c.cfg_tiles == [34, 34, 0, 0]
    assert c.cmd_configure(1, [34] * 4, 17, [1, 2], 0) == OK
    assert c.cfg_id == 1 and c.cfg_tiles == [34] * 4
    assert c.cmd_build(2) == (m.E_NOT_ALLOWED, 0)
    assert c.cmd_build(1) == OK
    assert c.cmd_configure(2, [34] * 4, 17, [1], 0) == (m.E_NOT_ALLOWED, m.NO_FIELD)
    assert c.cmd_build(1) == OK  # repeated: already building
    assert c.cmd_build(3) == (m.E_BUSY, 0)


def test_full_build_counts_colours_and_reports():
    r = Rig()
    build(r, 4)
    assert r.hal.level("mixer_pwm") == 1
    for k in range(1, 5):
        assert r.pin("gate" + str(k)).level == 1  # every short track open
    taken = fill(r, 6, lambda k, i: 1 if (i + k) % 2 else 2)
    r.run(2000)
    assert taken == 16
    assert r.ctl.state == codes.BUILT
    full = names(r, "track_full")
    assert sorted(e[2] for e in full) == [1, 2, 3, 4] and all(e[3] == 4 for e in full)
    done = names(r, "build_done")
    assert len(done) == 1 and done[0][1] == 7
    counts = done[0][2]
    assert len(counts) == 12
    for k in range(4):
        assert counts[3 * k] == 0 and counts[3 * k + 1] + counts[3 * k + 2] == 4
    assert len(names(r, "tile")) == 16
    assert r.hal.level("mixer_pwm") == 0
    for k in range(1, 5):
        assert r.pin("gate" + str(k)).level == 0
    assert r.hal.level("status_light") == 0  # built, nothing moves, no host: dark
    r.ctl.on_link_up(True)
    assert r.hal.level("status_light") == 1  # ready (tests/unit/test_light.py: each pattern)


def test_unknown_colour_is_counted_never_guessed():
    r = Rig()
    build(r, 2)
    fill(r, 3, lambda k, i: 0 if k == 3 else 1)
    r.run(1000)
    counts = names(r, "build_done")[0][2]
    assert counts[6] == 2 and r.ctl.unknown_tiles == 2
    assert all(e[4] == 0 for e in names(r, "tile") if e[2] == 3)


def test_stop_pauses_and_build_resumes_with_counts():
    r = Rig()
    build(r, 6)
    fill(r, 2)
    assert r.ctl.cmd_stop() == OK
    assert r.ctl.state == codes.PAUSED and r.ctl.paused
    assert r.hal.level("mixer_pwm") == 0 and r.pin("gate1").level == 0
    before = [tr.count for tr in r.ctl.tracks]
    assert before == [2, 2, 2, 2]
    r.run(5000)
    assert r.ctl.state == codes.PAUSED
    assert r.ctl.cmd_build(8) == (m.E_NOT_ALLOWED, 0)
    assert r.ctl.cmd_build(7) == OK
    assert r.ctl.state == codes.BUILDING and r.pin("gate1").level == 1
    fill(r, 5)
    r.run(2000)
    assert r.ctl.state == codes.BUILT
    assert [tr.count for tr in r.ctl.tracks] == [6, 6, 6, 6]


def test_link_loss_pauses_a_build_and_stops_lift_and_door():
    r = Rig()
    build(r, 4)
    fill(r, 1)
    r.ctl.on_link_lost()
    assert r.ctl.state == codes.PAUSED
    assert r.hal.level("mixer_pwm") == 0
    assert r.ctl.cmd_build(7) == OK
    fill(r, 4)
    r.run(2000)
    assert r.ctl.state == codes.BUILT
    r.ctl.cmd_lift()
    r.ctl.cmd_door(1)
    r.run(50)
    assert r.hal.level("lift_pwm") == 1 and r.hal.level("door_pwm") == 1
    r.ctl.on_link_lost()
    assert r.hal.level("lift_pwm") == 0 and r.hal.level("door_pwm") == 0
    assert r.ctl.state == codes.BUILT  # the lift had not reached the top


def test_short_when_mixer_runs_empty():
    r = Rig()
    build(r, 4)
    fill(r, 2)
    r.pin("mixer_empty").set(1)
    r.run(2900)
    assert r.ctl.state == codes.BUILDING
    r.run(200)
    assert r.ctl.state == codes.FAULT and r.ctl.fault == codes.FAULT_SHORT
    f = names(r, "fault")[0]
    assert f[1] == codes.FAULT_SHORT and f[2] == 1 and (f[3] & 0xFF) == 0b1111
    assert r.hal.level("mixer_pwm") == 0
    # the counts are kept; after the operator refills, clear and resume
    r.pin("mixer_empty").set(0)
    assert r.ctl.cmd_clear_fault(codes.FAULT_JAM) == (m.E_NOT_ALLOWED, 0)
    assert r.ctl.cmd_clear_fault(codes.FAULT_SHORT) == OK
    assert r.ctl.state == codes.PAUSED
    assert r.ctl.cmd_build(7) == OK
    fill(r, 3)
    r.run(2000)
    assert r.ctl.state == codes.BUILT


def test_empty_mixer_build_surplus_and_success():
    r = Rig()
    build(r, 2, empty=True)
    fill(r, 3)
    r.run(1500)
    assert r.ctl.state == codes.BUILDING  # waiting for the plate to clear
    r.run(3000)
    assert r.ctl.state == codes.FAULT and r.ctl.fault == codes.FAULT_SURPLUS
    r2 = Rig()
    build(r2, 2, empty=True)
    fill(r2, 3)
    r2.run(1500)
    r2.pin("mixer_empty").set(1)
    r2.run(100)
    assert r2.ctl.state == codes.BUILT
    assert names(r2, "build_done")[0][3] == 1


def test_build_timeout():
    r = Rig()
    build(r, 4)
    r.run(80100)
    assert r.ctl.fault == codes.FAULT_BUILD_TIMEOUT


def test_build_timeout_excludes_paused_time():
    r = Rig()
    build(r, 4)
    r.run(50000)
    r.ctl.cmd_stop()
    r.run(60000)
    r.ctl.cmd_build(7)
    r.run(25000)
    assert r.ctl.state == codes.BUILDING
    r.run(6000)
    assert r.ctl.fault == codes.FAULT_BUILD_TIMEOUT


def test_jam_fault_clear_and_resume():
    r = Rig()
    build(r, 4)
    r.see(2, 1)
    r.pin("entry2").set(0)
    r.run(3000)
    assert r.ctl.state == codes.FAULT and r.ctl.fault == codes.FAULT_JAM and r.ctl.fault_track == 2
    assert names(r, "fault")[0][2] == 2
    assert r.ctl.cmd_clear_fault(0) == (m.E_FAILED, m.NO_FIELD)  # still jammed
    r.pin("entry2").set(1)  # cleared by hand
    assert r.ctl.cmd_clear_fault(0) == OK
    assert r.ctl.state == codes.PAUSED
    assert r.ctl.cmd_build(7) == OK
    assert r.pin("gate2").level == 1


def test_overfill_fault():
    r = Rig()
    build(r, 2)
    fill(r, 2)
    r.tile(3)  # a tile past a closed gate (gate-slow)
    r.run(100)
    assert r.ctl.fault == codes.FAULT_OVERFILL and r.ctl.fault_track == 3
    assert names(r, "fault")[0][3] & 0xFF == 3


def test_mix_then_build():
    r = Rig()
    assert r.ctl.cmd_mix(1000) == OK
    assert r.ctl.state == codes.MIXING and r.hal.level("mixer_pwm") == 1
    assert r.pin("gate1").level == 0
    r.run(1100)
    assert r.ctl.state == codes.IDLE and r.hal.level("mixer_pwm") == 0
    r.ctl.cmd_configure(3, [2] * 4, 1, [], 0)
    assert r.ctl.cmd_mix(0) == OK  # the profile's default: 2000 ms
    r.run(1900)
    assert r.ctl.state == codes.MIXING and r.ctl.mix_ms == 2000
    assert r.ctl.cmd_mix(1000) == OK  # extended
    r.run(900)
    assert r.ctl.state == codes.MIXING
    assert r.ctl.cmd_build(3) == OK
    assert r.ctl.state == codes.BUILDING and r.hal.level("mixer_pwm") == 1


def test_lift_cycle_clears_the_walls():
    r = Rig()
    build(r, 2)
    fill(r, 3)
    r.run(1000)
    assert r.ctl.state == codes.BUILT
    assert r.ctl.cmd_build(7) == (m.E_NOT_ALLOWED, m.NO_FIELD)
    assert r.ctl.cmd_lift() == OK
    assert r.ctl.state == codes.LIFTING and r.hal.level("lift_pwm") == 1
    assert r.ctl.cmd_lift() == (m.E_NOT_ALLOWED, m.NO_FIELD)
    r.run(30)
    r.pin("lift_bottom").set(1)
    r.run(3900)
    r.pin("lift_top").set(0)
    r.run(5)
    assert names(r, "lift_done") == [("lift_done", m.LIFT_TOP)]
    assert [tr.count for tr in r.ctl.tracks] == [0, 0, 0, 0]
    r.run(30)
    r.pin("lift_top").set(1)
    r.run(3900)
    r.pin("lift_bottom").set(0)
    r.run(5)
    assert names(r, "lift_done")[-1] == ("lift_done", m.LIFT_BOTTOM)
    assert r.ctl.state == codes.IDLE
    # the next build may start
    r.ctl.cmd_configure(8, [2] * 4, 1, [], 0)
    assert r.ctl.cmd_build(8) == OK


def test_guard_during_lift_stops_at_once_and_faults():
    r = Rig()
    assert r.ctl.cmd_lift() == OK
    r.ctl.cmd_door(1)
    r.run(50)
    r.pin("lift_bottom").set(1)
    r.pin("door_closed").set(1)
    r.run(500)
    r.pin("guard_curtain").set(0)
    # inside the IRQ, before any step
    assert r.hal.level("lift_pwm") == 0 and r.hal.level("door_pwm") == 0
    r.step()
    assert r.ctl.state == codes.FAULT and r.ctl.fault == codes.FAULT_GUARD
    assert names(r, "guard")[-1] == ("guard", 0, 1)
    assert r.ctl.cmd_clear_fault(codes.FAULT_GUARD) == (m.E_FAILED, m.NO_FIELD)
    r.pin("guard_curtain").set(1)
    r.step()
    assert names(r, "guard")[-1] == ("guard", 1, 1)
    assert r.ctl.cmd_clear_fault(codes.FAULT_GUARD) == OK
    assert r.ctl.state == codes.IDLE
    assert r.ctl.cmd_lift() == OK  # and the lift can go again


def test_guard_break_without_motion_is_no_fault_but_blocks_motion():
    r = Rig()
    build(r, 2)
    r.pin("guard_curtain").set(0)  # a hand over a wall during the hand: the build goes on
    r.step()
    assert r.ctl.state == codes.BUILDING and r.hal.level("mixer_pwm")
    assert names(r, "guard")[-1] == ("guard", 0, 1)
    r.pin("guard_curtain").set(1)
    r.pin("lid").set(0)  # the lid over the mixer: the mixer stops in the IRQ, the build pauses
    assert r.hal.level("mixer_pwm") == 0
    r.step()
    assert r.ctl.state == codes.FAULT and r.ctl.fault == codes.FAULT_GUARD and r.ctl.fault_detail == 2
    assert names(r, "guard")[-1] == ("guard", 1, 0)
    r.pin("lid").set(1)
    r.step()
    assert r.ctl.cmd_clear_fault(0) == OK and r.ctl.state == codes.PAUSED
    r.pin("lid").set(0)
    r.step()
    assert r.ctl.cmd_build(r.ctl.build_id) == (m.E_NOT_ALLOWED, m.NO_FIELD)  # not with the lid open
    r2 = Rig()
    r2.pin("guard_curtain").set(0)
    r2.step()
    assert r2.ctl.cmd_lift() == (m.E_NOT_ALLOWED, m.NO_FIELD)
    assert r2.ctl.cmd_door(1) == (m.E_NOT_ALLOWED, m.NO_FIELD)
    assert r2.ctl.cmd_door(0) == OK


def test_guard_stops_motors_in_every_state():
    for state_setup in ("idle", "building", "built", "lifting", "fault"):
        r = Rig()
        if state_setup == "building":
            build(r, 2)
        elif state_setup == "built":
            build(r, 1)
            fill(r, 2)
            r.run(1000)
        elif state_setup == "lifting":
            r.ctl.cmd_lift()
        elif state_setup == "fault":
            r.ctl._fault(codes.FAULT_SHORT, 1, 0)
        # someone drives the lift and door motors (a worst case): the guard stops them
        r.ctl.lift.axis.motor.run(1)
        r.ctl.door.axis.motor.run(1)
        r.pin("guard_curtain").set(0)
        assert r.hal.level("lift_pwm") == 0 and r.hal.level("door_pwm") == 0, state_setup


def test_door_commands_and_states():
    r = Rig()
    assert r.ctl.cmd_door(1) == OK
    r.run(20)
    r.pin("door_closed").set(1)
    r.run(600)
    r.pin("door_open").set(0)
    r.run(5)
    states = [e[1] for e in names(r, "door_state")]
    assert states[-1] == m.DOOR_OPEN and m.DOOR_MOVING in states
    build(r, 2) if False else None
    r.ctl.cmd_configure(1, [2] * 4, 1, [], 0)
    assert r.ctl.cmd_mix(100) == OK
    assert r.ctl.cmd_door(0) == (m.E_NOT_ALLOWED, m.NO_FIELD)


def test_door_opens_while_a_build_is_paused_but_not_while_it_runs():
    # after a SHORT, people push the missing tiles in through the door, then it resumes
    r = Rig()
    build(r, 4)
    fill(r, 1)
    assert r.ctl.cmd_door(1) == (m.E_NOT_ALLOWED, m.NO_FIELD)  # the mixer is running
    assert r.ctl.cmd_stop() == OK and r.ctl.state == codes.PAUSED
    assert r.ctl.cmd_door(1) == OK
    r.run(50)
    assert r.hal.level("door_pwm") == 1 and r.hal.level("mixer_pwm") == 0


def test_door_moved_by_hand_is_reported_once_per_change():
    # no motion: only the switches' edges tell the controller the door moved
    r = Rig()
    r.run(5)
    before = len(names(r, "door_state"))
    r.pin("door_closed").set(1)  # someone pushes the door open by hand
    r.run(5)
    r.pin("door_open").set(0)
    r.run(5)
    r.pin("entry1").set(0)  # other inputs change: no new door report
    r.run(5)
    r.pin("entry1").set(1)
    r.run(5)
    states = [e[1] for e in names(r, "door_state")][before:]
    assert states == [m.DOOR_UNKNOWN, m.DOOR_OPEN]


def test_abort_returns_to_idle_and_walls_block_a_new_build():
    r = Rig()
    build(r, 4)
    fill(r, 1)
    assert r.ctl.cmd_abort() == OK
    assert r.ctl.state == codes.IDLE and not r.ctl.build_active
    assert r.ctl.cfg_id == 0 and r.ctl.cmd_build(7) == (m.E_NOT_ALLOWED, 0)  # forgotten
    r.ctl.cmd_configure(9, [4] * 4, 2, [], 0)
    assert r.ctl.cmd_build(9) == (m.E_NOT_ALLOWED, m.NO_FIELD)  # tiles on the tracks
    assert r.ctl.cmd_lift() == OK


def test_buttons_become_events():
    r = Rig()
    r.pin("start_button").set(0)
    r.run(100)
    r.pin("start_button").set(1)
    r.run(100)
    assert names(r, "button") == [("button", m.BUTTON_START)]


def test_first_fault_stands():
    r = Rig()
    r.ctl._fault(codes.FAULT_SHORT, 1, 0)
    r.ctl._fault(codes.FAULT_JAM, 2, 0)
    assert r.ctl.fault == codes.FAULT_SHORT and len(names(r, "fault")) == 1
    assert r.ctl.cmd_clear_fault(0) == OK
    assert r.ctl.cmd_clear_fault(0) == (m.E_NOT_ALLOWED, m.NO_FIELD)


def test_status_light():
    r = Rig()
    build(r, 2)
    assert r.hal.level("status_light") == 1
    r.ctl._fault(codes.FAULT_SHORT, 1, 0)
    seen = set()
    for _ in range(6):
        r.run(40)
        seen.add(r.hal.level("status_light"))
    assert seen == {0, 1}  # blinking (tests/unit/test_light.py times every pattern)


def test_get_status_is_plain():
    r = Rig()
    st = r.ctl.get_status()
    assert st["state"] == "idle" and st["fault"] == "none"
    assert len(st["tracks"]) == 4 and st["counts"] == [0] * 12
    import json

    json.dumps(st)


def test_colour_not_in_the_build_is_a_colour_fault():
    r = Rig()
    assert r.ctl.cmd_configure(5, [4] * 4, 2, [1], 0) == OK
    assert r.ctl.cmd_build(5) == OK
    r.tile(1, 1)
    r.tile(2, 0)  # unknown: reported, no fault
    assert r.ctl.state == codes.BUILDING
    r.tile(3, 2)  # a green tile in a blue build
    assert r.ctl.state == codes.FAULT and r.ctl.fault == codes.FAULT_COLOUR
    assert names(r, "fault")[0][1:] == (codes.FAULT_COLOUR, 3, 2)
    assert names(r, "tile")[-1][2:] == (3, 1, 2)  # the tile itself was reported first


def test_dead_colour_sensor_is_a_sensor_fault():
    r = Rig()
    build(r, 6)
    r.hal.i2c().absent[3] = True
    r.tile(4)
    r.run(200)
    r.tile(4)
    r.run(200)
    assert r.ctl.state == codes.BUILDING
    r.tile(4)
    assert r.ctl.fault == codes.FAULT_SENSOR and r.ctl.fault_track == 4
    assert [e[4] for e in names(r, "tile")] == [0, 0, 0]


def test_status_carries_what_a_host_needs_to_resume():
    r = Rig()
    build(r, 4, build_id=12)
    fill(r, 2, lambda k, i: 1 + (k % 2))
    r.ctl.on_link_lost()
    st = r.ctl.get_status()
    assert st["state"] == "paused" and st["paused"] and st["configured"] == 12
    assert st["targets"] == [4, 4, 4, 4]
    assert st["counts"] == [0, 0, 2, 0, 2, 0, 0, 0, 2, 0, 2, 0]


def test_tracks_without_tiles_in_a_build():
    r = Rig()
    assert r.ctl.cmd_configure(6, [2, 0, 2], 1, [], 0) == OK
    assert r.ctl.cmd_build(6) == OK
    assert r.pin("gate2").level == 0 and r.pin("gate4").level == 0
    fill(r, 3)
    r.run(1000)
    assert r.ctl.state == codes.BUILT
    assert sorted(e[2] for e in names(r, "track_full")) == [1, 3]


def test_status_targets_are_the_configured_builds_before_it_starts():
    # SPEC §10: from configure_build on; all 0 with nothing configured (issue 13)
    r = Rig()
    assert r.ctl.targets() == [0, 0, 0, 0]
    assert r.ctl.cmd_configure(3, [30, 32, 34], 17, [], 1) == (m.OK, m.NO_FIELD)
    assert r.ctl.targets() == [30, 32, 34, 0] and r.ctl.state == codes.IDLE
    assert r.ctl.cmd_abort() == (m.OK, m.NO_FIELD)
    assert r.ctl.targets() == [0, 0, 0, 0]
