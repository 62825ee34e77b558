"""firmware/drivers/light.py and the controller's use of it: the status light's level over time
for every pattern and every precedence rule (docs/FIRMWARE.md "The status light")."""
from firmware import codes
from firmware.drivers import light as L
from firmware.fakes import FakeClock, FakePin, Rig
from firmware.sched import Scheduler
from protocol import messages as m

OK = (m.OK, m.NO_FIELD)


# ------------------------------------------------------------------ helpers
def runs(levels, tick):
    """[(level, ms)] of a level sampled every `tick` ms: the pattern's steps as seen."""
    out = []
    for v in levels:
        if out and out[-1][0] == v:
            out[-1][1] += tick
        else:
            out.append([v, tick])
    return [tuple(r) for r in out]


def sample(rig, ms, tick=10):
    """The light's level now and every `tick` ms after, for `ms` ms."""
    out = [rig.hal.level("status_light")]
    for _ in range(ms // tick - 1):
        rig.run(tick)
        out.append(rig.hal.level("status_light"))
    rig.run(tick)
    return out


def steady_runs(steps, repeats):
    want = []
    for _ in range(repeats):
        lvl = 1
        for ms in steps:
            if want and want[-1][0] == lvl:
                want[-1] = (lvl, want[-1][1] + ms)
            else:
                want.append((lvl, ms))
            lvl ^= 1
    return want


def settles_into(rig, steps, tick=10):
    """True if the light, at whatever phase, runs `steps` over and over: the whole runs
    seen over four periods (the first and the last may be cut) are a stretch of them."""
    seen = runs(sample(rig, 4 * sum(steps), tick), tick)[1:-1]
    want = steady_runs(steps, 6)
    n = len(seen)
    return n >= len(steps) - 1 and any(want[i:i + n] == seen for i in range(len(want) - n + 1))


def cycle(rig, steps, repeats=2, tick=10):
    """The light's runs over `repeats` periods of `steps`, started at a step boundary:
    the steps' own runs, repeated (an on step first)."""
    seen = runs(sample(rig, repeats * sum(steps), tick), tick)
    return seen, steady_runs(steps, repeats)


def hosted(**kw):
    """A controller with a host session up (the light's `ready` needs a host)."""
    r = Rig(**kw)
    r.ctl.on_link_up(True)
    r.run(10)
    return r


def start_build(r, per_track=4, build_id=7):
    assert r.ctl.cmd_configure(build_id, [per_track] * 4, 2, [1, 2], 0) == OK
    assert r.ctl.cmd_build(build_id) == OK


def finish_build(r):
    while r.ctl.state == codes.BUILDING:
        for k in range(1, 5):
            if r.pin("gate" + str(k)).level:
                r.tile(k, 1)
        r.run(250)
    assert r.ctl.state == codes.BUILT


def shown(r):
    return r.ctl.get_status()["light"]["shown"]


# ------------------------------------------------------------------ the module alone
class Bench:
    def __init__(self, pin=True):
        self.clock = FakeClock(1000000)
        self.sched = Scheduler(self.clock)
        self.pin = FakePin("status_light") if pin else None
        self.light = L.Light(self.pin, self.sched)

    def levels(self, ms):
        out = []
        for _ in range(ms):
            self.clock.advance(1)
            self.sched.run()
            out.append(self.light.level)
        return out


def test_every_pattern_is_its_steps_over_time():
    for p in (L.PEOPLE, L.DICE, L.BUILDING, L.MOTION, L.FAULT):
        b = Bench()
        if p in (L.PEOPLE, L.DICE):
            b.light.show_own(L.READY)
            b.light.set_host(p)
        else:
            b.light.show_own(p)
        steps = L.STEPS[p]
        got = runs([b.pin.level] + b.levels(3 * sum(steps) - 1), 1)
        want = [(1 - (i & 1), ms) for i, ms in enumerate(steps)] * 3
        assert got == want, L.NAMES[p]
        assert b.light.shown == p


def test_steady_patterns_use_no_timer():
    b = Bench()
    assert b.pin.level == 0 and b.light.shown == L.OFF and b.sched.next_due_us() is None
    b.light.show_own(L.READY)
    assert b.pin.level == 1 and b.sched.next_due_us() is None
    assert set(b.levels(5000)) == {1}
    b.light.show_own(L.OFF)
    assert b.pin.level == 0 and b.sched.next_due_us() is None


def test_refused_flashes_three_times_then_the_pattern_comes_back():
    b = Bench()
    b.light.show_own(L.READY)
    b.light.set_host(L.PEOPLE)
    b.levels(400)  # part way into the double blink
    b.light.set_host(L.REFUSED)
    got = runs([b.pin.level] + b.levels(sum(L.STEPS[L.REFUSED]) + 1500 - 1), 1)
    assert got[:6] == [(1, 100), (0, 100), (1, 100), (0, 100), (1, 100), (0, 400)]
    # then the host's pattern again, from its start: the flash did not change it
    assert got[6:] == [(1, 150), (0, 150), (1, 150), (0, 1050)]
    assert b.light.host == L.PEOPLE and not b.light.flashing


def test_a_light_that_is_not_there_still_tracks_its_patterns():
    b = Bench(pin=False)
    b.light.show_own(L.READY)
    b.light.set_host(L.DICE)
    b.levels(2000)
    st = b.light.get_status()
    assert st == {"present": False, "shown": "dice", "own": "ready", "host": "dice", "level": 1}


# ------------------------------------------------------------------ each state on a controller
def test_off_at_boot_and_without_a_host():
    r = Rig()
    assert r.ctl.state == codes.IDLE and not r.ctl.link_up
    assert set(sample(r, 3000)) == {0} and shown(r) == "off"


def test_ready_when_a_host_is_up_and_nothing_moves():
    r = hosted()
    assert set(sample(r, 3000)) == {1} and shown(r) == "ready"


def test_building_and_mixing_blink_slowly():
    r = hosted()
    start_build(r)
    seen, want = cycle(r, L.STEPS[L.BUILDING])
    assert seen == want and shown(r) == "building"
    r2 = hosted()
    assert r2.ctl.cmd_mix(10000) == OK
    seen, want = cycle(r2, L.STEPS[L.BUILDING])
    assert seen == want


def test_built_is_ready():
    r = hosted()
    start_build(r)
    finish_build(r)
    r.run(10)
    assert shown(r) == "ready" and set(sample(r, 2000)) == {1}


def test_lift_and_door_moving_blink_fast():
    r = hosted()
    assert r.ctl.cmd_lift() == OK
    r.pin("lift_bottom").set(1)  # the lift leaves the bottom
    seen, want = cycle(r, L.STEPS[L.MOTION])
    assert seen == want and shown(r) == "motion"
    r2 = hosted()
    assert r2.ctl.cmd_door(1) == OK  # idle, the door alone moving
    r2.pin("door_closed").set(1)
    seen, want = cycle(r2, L.STEPS[L.MOTION])
    assert seen == want
    r2.pin("door_open").set(0)  # the door arrives: nothing moves any more
    r2.run(20)
    assert shown(r2) == "ready" and set(sample(r2, 1000)) == {1}


def test_fault_flickers_with_or_without_a_host():
    for r in (Rig(), hosted()):
        r.ctl._fault(codes.FAULT_SHORT, 1, 0)
        seen, want = cycle(r, L.STEPS[L.FAULT], repeats=5)
        assert seen == want and shown(r) == "fault"


def test_people_and_dice_are_the_hosts():
    r = hosted()
    assert r.ctl.cmd_light(m.LIGHT_PEOPLE) == OK
    seen, want = cycle(r, L.STEPS[L.PEOPLE])
    assert seen == want and shown(r) == "people"
    assert r.ctl.cmd_light(m.LIGHT_DICE) == OK
    seen, want = cycle(r, L.STEPS[L.DICE])
    assert seen == want and shown(r) == "dice"
    assert r.ctl.cmd_light(m.LIGHT_READY) == OK
    assert set(sample(r, 2000)) == {1} and shown(r) == "ready"
    assert r.ctl.cmd_light(m.LIGHT_AUTO) == OK  # back to the firmware's own: ready
    assert shown(r) == "ready" and r.ctl.get_status()["light"]["host"] == "auto"


def test_refused_is_a_one_shot_over_the_hosts_pattern():
    r = hosted()
    r.ctl.cmd_light(m.LIGHT_DICE)
    r.run(500)
    assert r.ctl.cmd_light(m.LIGHT_REFUSED) == OK
    seen, want = cycle(r, L.STEPS[L.REFUSED], repeats=1)
    assert seen == want
    seen, want = cycle(r, L.STEPS[L.DICE])
    assert seen == want and shown(r) == "dice"


# ------------------------------------------------------------------ precedence
def test_building_and_motion_override_the_host_which_comes_back_after():
    r = hosted()
    r.ctl.cmd_light(m.LIGHT_PEOPLE)
    start_build(r)
    seen, want = cycle(r, L.STEPS[L.BUILDING])
    assert seen == want
    finish_build(r)
    r.run(10)
    assert shown(r) == "people"
    assert r.ctl.cmd_lift() == OK
    r.pin("lift_bottom").set(1)
    seen, want = cycle(r, L.STEPS[L.MOTION])
    assert seen == want and r.ctl.get_status()["light"]["host"] == "people"


def test_fault_overrides_the_host_and_refused_does_not_show_over_it():
    r = hosted()
    r.ctl.cmd_light(m.LIGHT_DICE)
    r.ctl._fault(codes.FAULT_JAM, 2, 1)
    assert r.ctl.cmd_light(m.LIGHT_REFUSED) == OK
    seen, want = cycle(r, L.STEPS[L.FAULT], repeats=5)
    assert seen == want
    assert r.ctl.cmd_light(m.LIGHT_PEOPLE) == OK  # taken, shown once the fault is gone
    assert shown(r) == "fault"
    assert r.ctl.cmd_clear_fault(0) == OK
    seen, want = cycle(r, L.STEPS[L.PEOPLE])
    assert seen == want


def test_a_fault_cuts_a_refused_flash_short():
    r = hosted()
    r.ctl.cmd_light(m.LIGHT_REFUSED)
    r.run(150)
    r.ctl._fault(codes.FAULT_SHORT, 1, 0)
    seen, want = cycle(r, L.STEPS[L.FAULT], repeats=5)
    assert seen == want


def test_refused_shows_over_building_then_building_again():
    r = hosted()
    start_build(r)
    r.run(300)
    r.ctl.cmd_light(m.LIGHT_REFUSED)
    seen, want = cycle(r, L.STEPS[L.REFUSED], repeats=1)
    assert seen == want
    seen, want = cycle(r, L.STEPS[L.BUILDING])
    assert seen == want


def test_a_lost_link_forgets_the_hosts_pattern():
    r = hosted()
    r.ctl.cmd_light(m.LIGHT_PEOPLE)
    r.run(200)
    r.ctl.on_link_lost()
    assert shown(r) == "off" and set(sample(r, 2000)) == {0}
    r.ctl.on_link_up(False)  # the same session is heard again: its host re-sends if it cares
    assert shown(r) == "ready" and r.ctl.get_status()["light"]["host"] == "auto"


def test_a_new_session_starts_from_the_firmwares_own_pattern():
    r = hosted()
    r.ctl.cmd_light(m.LIGHT_DICE)
    r.ctl.on_link_up(True)  # another host connected without the link being lost first
    assert shown(r) == "ready" and set(sample(r, 2000)) == {1}


def test_a_lost_link_while_building_pauses_dark():
    r = hosted()
    r.ctl.cmd_light(m.LIGHT_PEOPLE)
    start_build(r)
    r.ctl.on_link_lost()
    assert r.ctl.state == codes.PAUSED
    assert shown(r) == "off" and set(sample(r, 2000)) == {0}


def test_a_self_test_pulse_of_the_light_is_left_alone():
    r = hosted()
    r.ctl.cmd_light(m.LIGHT_PEOPLE)
    r.run(200)
    assert r.ctl.cmd_self_test(m.D_STATUS_LIGHT, 0) == OK
    assert r.ctl.state == codes.TESTING and shown(r) == "hold"
    levels = sample(r, 200)
    assert levels[0] == 1  # the self-test's pulse, not the double blink's dark step
    r.run(2000)
    assert r.ctl.state == codes.IDLE and shown(r) == "people"
    assert settles_into(r, L.STEPS[L.PEOPLE])


def test_light_out_of_range_is_refused_and_changes_nothing():
    r = hosted()
    r.ctl.cmd_light(m.LIGHT_DICE)
    assert r.ctl.cmd_light(len(m.LIGHTS)) == (m.E_RANGE, 0)
    assert r.ctl.get_status()["light"]["host"] == "dice"


def test_light_in_every_state_is_taken():
    r = hosted()
    for setup in ("idle", "mixing", "building", "paused", "built", "lifting", "fault", "testing"):
        r = hosted()
        if setup == "mixing":
            r.ctl.cmd_mix(5000)
        elif setup in ("building", "paused", "built"):
            start_build(r)
            if setup == "paused":
                r.ctl.cmd_stop()
            elif setup == "built":
                finish_build(r)
        elif setup == "lifting":
            r.ctl.cmd_lift()
        elif setup == "fault":
            r.ctl._fault(codes.FAULT_SHORT, 1, 0)
        elif setup == "testing":
            r.ctl.cmd_self_test(m.D_MIXER, 0)
        assert codes.STATES[r.ctl.state] == setup
        for p in range(len(m.LIGHTS)):
            assert r.ctl.cmd_light(p) == OK, (setup, p)


def test_shutdown_leaves_the_light_dark():
    r = hosted()
    r.ctl.cmd_light(m.LIGHT_DICE)
    r.ctl.shutdown()
    assert r.hal.level("status_light") == 0
    assert set(sample(r, 2000)) == {0}


def test_a_table_without_a_light_takes_the_command():
    r = hosted(profile="pi-reference")
    assert r.hal.pins.get("status_light") is None
    assert r.ctl.cmd_light(m.LIGHT_PEOPLE) == OK
    r.run(2000)
    st = r.ctl.get_status()["light"]
    assert st["present"] is False and st["shown"] == "people"
