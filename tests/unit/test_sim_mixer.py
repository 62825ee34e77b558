"""hw_sim.mixer: mixing draws one seeded permutation; tiles leave in that order whatever
the controller's timing; offers every 0.6 s on average, never closer than 0.25 s."""
from hw_sim import rng as _rng
from hw_sim.rng import Rng
from sim_helpers import bare_table, scripted, scripted_build

DUTY = 52428


def open_all(tab):
    for k in range(1, 5):
        tab.lines["gate%d" % k].drive(1)


def start(tab):
    tab.lines["mixer_dir"].drive(1)
    tab.lines["mixer_pwm"].drive(DUTY)


def test_mixing_is_the_seeded_permutation():
    tab = bare_table(seed=11)
    before = list(tab.mixer.order)
    start(tab)
    expect = list(before)
    Rng(11, _rng.MIX).shuffle(expect)
    assert tab.mixer.order == expect
    assert tab.mixer.mixes == 1


def test_tiles_leave_in_permutation_order_with_ride_on():
    tab = bare_table(seed=3, sim={"ramp_tiles": 500})  # nobody stacks here: a long ramp
    tab.lines["gate2"].drive(1)  # only track 2 takes tiles
    start(tab)
    order = list(tab.mixer.order)
    tab.advance_to(30_000_000)
    got = tab.build.tiles[1]
    assert got == order[: len(got)] and len(got) > 30
    for k in (0, 2, 3):
        assert tab.build.tiles[k] == []
    assert tab.mixer.rides > 0  # tiles rode on past closed mouths


def test_offer_spacing():
    tab = bare_table(seed=5, sim={"ramp_tiles": 500})
    open_all(tab)
    start(tab)
    tab.advance_to(60_000_000)
    o = tab.build.offer_list()
    for k in range(4):
        times = [t for (t, kk, _, _) in o if kk == k]
        gaps = [b - a for a, b in zip(times, times[1:])]
        assert min(gaps) >= 250_000
        assert max(gaps) <= 950_000
        if len(gaps) > 20:
            assert 500_000 < sum(gaps) / len(gaps) < 700_000


def _build_tiles(t):
    b = t.table.builds[-1]
    out = []
    for k in range(4):
        out.extend(b.tiles[k])
    return sorted(out)


def test_build_contents_do_not_depend_on_timing():
    """The same seed, two controllers with different timing: the same 136 tiles."""
    a = scripted(seed=21)
    scripted_build(a)
    b = scripted(seed=21)
    b.fw.colour_delay_us = 40_000  # a slower controller...
    b.fw.stacker_ms += 30
    b.run(777)  # ...that starts its build later
    scripted_build(b)
    assert _build_tiles(a) == _build_tiles(b)
    ta = a.table.builds[-1].tiles
    tb = b.table.builds[-1].tiles
    assert [len(x) for x in ta] == [34] * 4 == [len(x) for x in tb]


def test_mixed_deck_split_takes_the_first_136_of_272():
    t = scripted(seed=8, mixed_deck=True)
    assert t.table.mixer.count() == 272
    perm = []

    def grab(now):
        perm.extend(t.table.mixer.order)

    t.table.on_mixed = grab
    scripted_build(t)
    assert len(perm) == 272
    assert _build_tiles(t) == sorted(perm[:136])
    assert t.table.mixer.count() == 136


def test_no_remix_without_new_tiles_and_remix_after_a_drop():
    tab = bare_table(seed=2)
    start(tab)
    assert tab.mixer.mixes == 1
    tab.lines["mixer_pwm"].drive(0)
    start(tab)
    assert tab.mixer.mixes == 1  # nothing was added: same order continues
    tab.lines["mixer_pwm"].drive(0)
    tab.mixer.add([tab.set_ids[1][0]])
    start(tab)
    assert tab.mixer.mixes == 2


def test_mixer_empty_sensor():
    tab = bare_table(seed=4, sim={"ramp_tiles": 500})
    assert tab.lines["mixer_empty"].level == 0
    open_all(tab)
    start(tab)
    tab.advance_to(40_000_000)  # every track takes until the mixer is empty
    assert tab.mixer.count() == 0
    assert tab.lines["mixer_empty"].level == 1


def test_below_min_duty_nothing_turns():
    tab = bare_table()
    tab.lines["mixer_pwm"].drive(1000)
    assert not tab.mixer.running and tab.build is None
