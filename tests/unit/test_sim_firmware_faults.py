"""Each simulated fault kind against the real firmware: detected, motors safe, reported
with the right code and track (FAULT events decoded by the host link); on the reference
board and on the Pico's (pico-18: the door's switches, the solenoids, the buttons and the
mixer's empty sensor on an I2C expander), where every fault must hold the same."""
import pytest

from hw_sim.driver import Driver
from hw_sim.inprocess import InProcessTable
from protocol import messages as m
from protocol import link as plink
from sim_helpers import SET


BOARD = "reference-18"


@pytest.fixture(autouse=True, params=["reference-18", "pico-18"])
def board(request):
    """Every test here on both boards (table() builds the table of the one in force)."""
    global BOARD
    BOARD = request.param
    yield request.param
    BOARD = "reference-18"


def table(faults, seed=3, **kw):
    t = InProcessTable(BOARD, [SET, SET], seed=seed, faults=faults, **kw)
    d = Driver(t)
    d.connect()
    return t, d


def motors_safe(t):
    tab = t.table
    return not tab.mixer.running and not tab.lift.motor_on and not tab.door.motor_on


def build(d, empty=1):
    return d.build(1, [34] * 4, 17, [1, 2], empty, timeout_ms=60000)


def codes(d):
    return [(c, tr) for c, tr, _ in d.faults()]


@pytest.mark.parametrize("track", [1, 4])
def test_jam_never_cleared(track):
    t, d = table(["jam:track=%d,after=20" % track])
    assert build(d) is None
    assert codes(d) == [("jam", track)]
    assert motors_safe(t) and t.table.tracks[track - 1].jammed
    assert d.faults()[0][2] & 0xFF == t.profile["timeouts_ms"]["jam_retries"]  # back-offs tried
    assert all(t.table.lines["gate%d" % k].level == 0 for k in range(1, 5))


def test_jam_cleared_by_a_back_off():
    t, d = table(["jam:track=2,after=20,count=1"])
    done = build(d)
    assert done is not None and d.faults() == []
    assert t.report()["builds"][0]["tiles_per_track"] == [34] * 4


def test_missing_tile_is_short():
    t, d = table(["missing-tile"])
    assert build(d) is None
    (code, track), = codes(d)
    assert code == "short" and t.report()["builds"][0]["tiles_per_track"][track - 1] == 33
    assert motors_safe(t)


def test_extra_tile_is_surplus():
    t, d = table(["extra-tile"])
    assert build(d) is None
    assert codes(d) == [("surplus", 0)]
    assert motors_safe(t) and t.table.mixer.count() == 1


def test_extra_tile_in_a_split_build_is_not_a_fault():
    t, d = table(["extra-tile"], mixed_deck=True)
    assert build(d, empty=0) is not None and d.faults() == []


@pytest.mark.parametrize("track", [2, 3])
def test_gate_slow_is_overfill_on_that_track(track):
    t, d = table(["gate-slow:track=%d" % track])
    build(d)
    got = codes(d)
    if t.report()["builds"][0]["tiles_per_track"][track - 1] == 35:
        assert got[0] == ("overfill", track)
        assert motors_safe(t)
    else:  # that track filled last: the mixer held no tile for it
        assert got == []


def test_gate_slow_default_overfills_the_first_track_to_fill():
    t, d = table(["gate-slow"])
    build(d)
    per = t.report()["builds"][0]["tiles_per_track"]
    assert codes(d)[0] == ("overfill", per.index(35) + 1)


def test_misread_is_reported_unknown_never_guessed():
    t, d = table(["misread:track=3,after=10,count=2"])
    done = build(d)
    assert done is not None
    unknown = [done[1][k * 3] for k in range(4)]
    assert unknown == [0, 0, 2, 0]
    tiles = [e[2] for e in d.events if e[1] == "tile"]
    assert [(v[1], v[3]) for v in tiles if v[3] == 0] == [(3, 0), (3, 0)]
    assert t.report()["builds"][0]["back_counts"][2] == {"blue": 34, "green": 0}


def test_misread_outside_the_expected_colours_is_caught_by_the_host_counts():
    t, d = table(["misread:rate=0.05"])
    done = build(d)
    assert done is not None
    assert sum(done[1][k * 3] for k in range(4)) == len(t.table.faults.faults[0].fired)


def test_lift_stall():
    t, d = table(["lift-stall"])
    assert build(d) is not None
    assert not d.lift()
    assert codes(d) == [("lift_stall", 0)]
    assert motors_safe(t) and 1500 < t.table.lift.position_ms() <= 2000


@pytest.mark.parametrize("spec", ["limit-stuck", "limit-stuck:switch=bottom", "limit-stuck:switch=top,state=pressed"])
def test_limit_stuck(spec):
    t, d = table([spec])
    assert build(d) is not None
    assert not d.lift()
    assert codes(d) == [("limit", 0)]
    assert motors_safe(t)


@pytest.mark.parametrize("spec,motors", [("guard", {"lift"}), ("guard:during=door", {"lift", "door"}),
                                         ("guard:input=lid,at=3000", {"lift"})])
def test_guard(spec, motors):
    t, d = table([spec])
    assert build(d) is not None
    assert not d.hand_over()
    assert codes(d) == [("guard", 0)]
    r = t.report()
    assert {s["motor"] for s in r["safety"]} == motors
    assert all(s["latency_ms"] is not None and s["latency_ms"] <= 10 for s in r["safety"])
    assert motors_safe(t) and r["guard_violations"] == []


def test_reset_mid_build():
    t, d = table(["reset:after=50"])
    first = t.boot_nonce
    assert build(d) is None
    assert t.boots == 2 and t.boot_nonce != first
    assert plink.PEER_RESET in [e for _, e in d.link_events]
    assert d.link.identity[4] == t.boot_nonce  # a new session with the rebooted table
    assert motors_safe(t)
    d.command("status")
    st = d.last["status_reply"]
    assert st[0] in (m.S_BOOT, m.S_IDLE) and st[2] == 0  # no build: the host decides
    assert t.report()["builds"][0]["tiles_per_track"] != [34] * 4


def test_unplug_pauses_and_the_build_resumes():
    t, d = table(["unplug:after=30,ms=4000"])
    d.command("configure_build", 1, [34] * 4, 17, [1, 2], 1)
    d.command("build", 1)
    assert d.wait(lambda: plink.LOST in [e for _, e in d.link_events], 30000)
    d.run_for(500)
    assert not t.table.mixer.running  # paused while the host is gone
    assert d.wait(lambda: plink.UP in [e for _, e in d.link_events], 10000)
    d.command("status")
    st = d.last["status_reply"]
    assert st[0] == m.S_PAUSED and st[3] == 1 and sum(st[6]) >= 30
    d.command("build", 1)  # resume, same id: counts were kept
    assert d.wait(lambda: d.seen("build_done") > 0, 60000)
    assert list(d.last["build_done"][1]) == [0, 34, 0] * 4
    assert t.report()["builds"][0]["tiles_per_track"] == [34] * 4


def test_noise_costs_retransmits_not_tiles():
    t, d = table(["noise:rate=0.002"])
    done = build(d)
    assert done is not None and list(done[1]) == [0, 34, 0] * 4
    s = d.link.stats()
    assert s["crc_errors"] > 0 or s["retransmits"] > 0
    assert t.report()["wire"]["bit_flips"] > 0
    d.command("status")
    assert d.last["status_reply"][4] == 0  # the table dropped no event
