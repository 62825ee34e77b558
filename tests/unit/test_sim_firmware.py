"""Firmware + simulator in-process (the product's firmware on hw_sim.machine): rotation,
Mixed Deck split, the mechanical bound, the guard in every state, table sizes."""
import pytest

from hw_sim.driver import Driver
from hw_sim.inprocess import InProcessTable
from protocol import messages as m
from sim_helpers import SET


def table(seed=1, **kw):
    t = InProcessTable("reference-18", [SET, SET], seed=seed, **kw)
    d = Driver(t)
    d.connect()
    return t, d


def colours(done, cls):
    return sum(done[1][k * 3 + cls] for k in range(4))


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_136_tiles_within_2_percent_of_the_bound(seed):
    t, d = table(seed)
    assert d.build(1, [34] * 4, 17, [1, 2], 1) is not None
    b = t.report()["builds"][0]
    assert b["efficiency"] >= 0.98, b
    assert 18 < b["bound_s"] < 26 and b["missed"] == [] and b["blocked_offers"] == 0


def test_normal_rotation():
    t, d = table(7)
    tab = t.table
    b1 = d.build(1, [34] * 4, 17, [1, 2], 1)
    assert colours(b1, 1) == 136 and colours(b1, 2) == 0
    assert d.hand_over()  # green drops into the mixer while blue goes up
    assert {tab.tiles.colour(x) for x in tab.mixer.contents()} == {"green"}
    b2 = d.build(2, [34] * 4, 17, [1, 2], 1)
    assert colours(b2, 2) == 136
    assert d.hand_over()
    b3 = d.build(3, [34] * 4, 17, [1, 2], 1)
    assert colours(b3, 1) == 136
    r = t.report()
    assert [b["build"] for b in r["builds"]] == [1, 2, 3] and r["missed_tiles"] == []
    assert r["table_top_tiles"] == 136 and d.faults() == []


def test_mixed_deck_split_and_rebuilds_reproduce_each_deck():
    t, d = table(8, mixed_deck=True)
    a = d.build(1, [34] * 4, 17, [1, 2], 0)
    assert a[2] == 0  # the mixer still holds deck B
    assert d.hand_over()
    b = d.build(2, [34] * 4, 17, [1, 2], 1)
    assert b[2] == 1
    assert colours(a, 1) + colours(b, 1) == 136 and colours(a, 2) + colours(b, 2) == 136
    assert d.hand_over()
    a2 = d.build(3, [34] * 4, 17, [1, 2], 1)
    assert (colours(a2, 1), colours(a2, 2)) == (colours(a, 1), colours(a, 2))
    assert d.hand_over()
    b2 = d.build(4, [34] * 4, 17, [1, 2], 1)
    assert (colours(b2, 1), colours(b2, 2)) == (colours(b, 1), colours(b, 2))
    # the firmware's sensed colours are the simulator's backs, build by build
    r = t.report()
    for done, br in zip((a, b, a2, b2), r["builds"]):
        for k in range(4):
            assert done[1][k * 3 + 1] == br["back_counts"][k]["blue"]
            assert done[1][k * 3 + 2] == br["back_counts"][k]["green"]


def test_a_wall_longer_than_the_table_is_refused_before_any_motor_moves():
    t, d = table(1)
    code, field = d.command("configure_build", 1, [44] * 4, 22, [1, 2], 1)
    assert (code, field) == (m.E_UNSUPPORTED, 2)
    assert not t.table.mixer.running and t.table.build is None


def test_table_stacks_builds_a_longer_wall():
    faces = SET + SET[:24]  # a 160-tile set: 20 stacks per wall
    t = InProcessTable("reference-18", [faces, faces], seed=3, table_stacks=20)
    d = Driver(t)
    assert d.connect()[7] == 20
    done = d.build(1, [40] * 4, 20, [1, 2], 1)
    assert done is not None
    b = t.report()["builds"][0]
    assert b["tiles_per_track"] == [40] * 4 and b["efficiency"] > 0.98
    assert all(len(tr.wall) == 20 for tr in t.table.tracks)


# -- the guard in every state ---------------------------------------------------
def _break_at(t, d, offset_ms, action):
    t.table.panel.break_guard(t.now_us() + int(offset_ms * 1000), 150)
    action()
    d.run_for(max(offset_ms, 0) + 600)
    return t.report()


def _check_safe(r):
    for s in r["safety"]:
        assert s["latency_ms"] is not None and s["latency_ms"] <= 10.0, s
    assert r["guard_violations"] == []


def _lift(d):
    return lambda: d.command("lift")


def _hand_over(d):
    def go():
        d.command("door", 1)
        d.command("lift")
    return go


@pytest.mark.parametrize("when_ms", [0.0, 5, 100, 1500, 3000, 3975, 3990, 4100, 4400, 6000, 7990])
def test_guard_stops_the_lift_within_10ms_in_every_phase(when_ms):
    """Broken at any point of a lift cycle (up, at the top, down, at the bottom)."""
    t, d = table(2)
    d.build(1, [34] * 4, 17, [1, 2], 1)
    r = _break_at(t, d, when_ms, _lift(d))
    _check_safe(r)
    if r["safety"]:
        assert [f[0] for f in d.faults()] == ["guard"]
        assert not t.table.lift.motor_on


@pytest.mark.parametrize("when_ms", [1, 300, 590, 2000])
def test_guard_during_a_hand_over_stops_lift_and_door(when_ms):
    t, d = table(2)
    d.build(1, [34] * 4, 17, [1, 2], 1)
    r = _break_at(t, d, when_ms, _hand_over(d))
    _check_safe(r)
    motors = {s["motor"] for s in r["safety"]}
    assert "lift" in motors
    if when_ms < 590:
        assert "door" in motors
    assert not t.table.lift.motor_on and not t.table.door.motor_on


def test_guard_while_building_and_idle_starts_nothing():
    t, d = table(2)
    t.table.panel.break_guard(t.now_us() + 100_000, 200)
    d.run_for(500)  # idle
    d.command("configure_build", 1, [34] * 4, 17, [1, 2], 1)
    d.command("build", 1)
    d.run_for(2000)
    t.table.panel.break_guard(t.now_us(), 300, "lid")  # while building
    d.run_for(1000)
    r = t.report()
    assert r["safety"] == [] and r["guard_violations"] == []
    # with the curtain broken, a lift is refused: the motor never starts
    d.wait(lambda: d.seen("build_done") > 0, 60000)
    t.table.panel.break_guard(t.now_us(), 5000)
    d.run_for(10)
    code, _ = d.command("lift")
    d.run_for(1000)
    assert code == m.E_NOT_ALLOWED or code == m.E_BUSY
    assert not t.table.lift.motor_on and t.report()["guard_violations"] == []


def inverted_profile():
    """reference-18 on a table wired the other way round in places: normally-closed lift
    and door switches, an active-high entry beam, a gate on a low-side driver that wants an
    inverted enable, and the door motor's PWM on an inverted driver."""
    from firmware import profile as fprofile

    p = fprofile.load("reference-18")
    raw = dict(p, pins=dict(p["pins"]), pin_options=None)
    pins = raw["pins"]
    for name in ("lift_top", "lift_bottom", "door_closed", "door_open", "entry3"):
        pins[name] = {"pin": pins[name], "invert": True, "pull": "up"}
    for name in ("gate2", "door_pwm"):
        pins[name] = {"pin": pins[name], "invert": True}
    return fprofile.validate(raw)


def test_inverted_switches_and_drivers_run_a_mixed_deck_evening():
    """The profile's polarity is honoured by the machine binding and the simulated table
    alike: the split, three hand overs (lift strokes to the inverted switches, the door on
    an inverted PWM), every tile counted on the inverted beam and gate, no wiring
    complaints, and the wire really is the other way round."""
    prof = inverted_profile()
    t = InProcessTable(prof, [SET, SET], seed=8, mixed_deck=True)
    d = Driver(t)
    d.connect()
    tab = t.table
    at_rest = {n: t.machine.Pin(prof["pins"][n]).value() for n in ("lift_bottom", "lift_top", "entry3")}
    # on the wire, at rest: the lift down opens the bottom NC switch (pulled up: high), the
    # top one is closed (low); the active-high beam is clear (low)
    assert at_rest == {"lift_bottom": 1, "lift_top": 0, "entry3": 0}, at_rest
    a = d.build(1, [34] * 4, 17, [1, 2], 0)
    assert d.hand_over()
    b = d.build(2, [34] * 4, 17, [1, 2], 1)
    assert colours(a, 1) + colours(b, 1) == 136 and colours(a, 2) + colours(b, 2) == 136
    assert d.hand_over()
    a2 = d.build(3, [34] * 4, 17, [1, 2], 1)
    assert (colours(a2, 1), colours(a2, 2)) == (colours(a, 1), colours(a, 2))
    assert d.hand_over()
    r = t.report()
    assert r["missed_tiles"] == [] and d.faults() == [] and tab.wiring == []
    assert tab.lines["gate2"].level == 0 and t.machine.Pin(prof["pins"]["gate2"]).value() == 1  # closed: wire high


def test_the_pico_profile_runs_a_mixed_deck_evening_with_its_expander():
    """pico-18 (a Raspberry Pi Pico: the slow signals on an MCP23017 on the colour sensors'
    bus): the split and its rotation with every tile's back read, the rebuilds
    reproducing each deck, within 2 % of the mechanical bound as on reference-18; both
    buttons reach the host through the expander's polls; the guard still stops the lift
    within 10 ms (on the chip's pins); no wiring complaints."""
    t = InProcessTable("pico-18", [SET, SET], seed=8, mixed_deck=True)
    d = Driver(t)
    assert d.connect()[3] == "pico-18"
    a = d.build(1, [34] * 4, 17, [1, 2], 0)
    assert sum(a[1][k * 3] for k in range(4)) == 0  # every back read: no unknown
    assert d.hand_over()
    b = d.build(2, [34] * 4, 17, [1, 2], 1)
    assert colours(a, 1) + colours(b, 1) == 136 and colours(a, 2) + colours(b, 2) == 136
    assert d.hand_over()
    a2 = d.build(3, [34] * 4, 17, [1, 2], 1)
    assert (colours(a2, 1), colours(a2, 2)) == (colours(a, 1), colours(a, 2))
    n = d.seen("button")
    t.press("start")
    assert d.wait_event("button", 2000, since=n) == [m.BUTTON_START]
    t.press("dice")
    assert d.wait_event("button", 2000, since=n + 1) == [m.BUTTON_DICE]
    r = t.report()
    assert all(x["efficiency"] >= 0.98 for x in r["builds"]), [x["efficiency"] for x in r["builds"]]
    assert r["missed_tiles"] == [] and d.faults() == [] and t.table.wiring == []
    x = t.fw.hal.expanders[0].get_status()
    assert x["errors"] == 0 and x["polls"] > 1000
    t.table.panel.break_guard(t.now_us() + 1_000_000, 100)
    assert not d.hand_over()
    s = t.report()["safety"]
    assert s and all(e["latency_ms"] is not None and e["latency_ms"] <= 10 for e in s), s


BOARDS = sorted(p.stem for p in __import__("pathlib").Path(__file__).resolve().parents[2].joinpath(
    "firmware", "boards").glob("*.json"))


@pytest.mark.parametrize("board", BOARDS)
def test_every_shipped_profile_builds_a_deck_on_the_table_it_describes(board):
    """Each example profile, on the simulated table wired as it says (the Raspberry Pi's on
    its gpiozero binding): a 136-tile build, 34 per track, every back read, no fault and
    no wiring complaint."""
    kw = {}
    if board == "pi-reference":
        from hw_sim.gpiozero_pins import gpiozero_factory

        kw["firmware_factory"] = gpiozero_factory()
    t = InProcessTable(board, [SET, SET], seed=5, **kw)
    d = Driver(t)
    assert d.connect()[3] == board
    done = d.build(1, [34] * 4, 17, [1, 2], 1)
    assert done is not None and colours(done, 1) == 136
    assert sum(done[1][k * 3] for k in range(4)) == 0  # no unknown back
    r = t.report()
    assert r["builds"][0]["tiles_per_track"] == [34] * 4 and d.faults() == [] and r["wiring"] == []
