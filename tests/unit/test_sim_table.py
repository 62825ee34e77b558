"""hw_sim.table: composition, initial state, rotation, the mechanical bound, missed
tiles and the report."""
import pytest

from hw_sim.table import Build, Table
from sim_helpers import SET, bare_table, profile, run_until, scripted, scripted_build, scripted_hand_over


def test_initial_state_normal_rotation():
    tab = bare_table()
    assert tab.mixer.count() == 136 and len(tab.top_tiles()) == 136
    assert {tab.tiles.colour(t) for t in tab.mixer.contents()} == {"blue"}
    assert {tab.tiles.colour(t) for t in tab.top_tiles()} == {"green"}


def test_initial_state_mixed_deck():
    tab = bare_table(mixed_deck=True)
    assert tab.mixer.count() == 272 and tab.top_tiles() == []


def test_lines_cover_the_profile():
    tab = bare_table()
    for name, num in tab.profile["pins"].items():
        if num is not None and not name.startswith("i2c"):
            assert tab.line_for_pin(num).name == name


def test_bad_arguments():
    with pytest.raises(ValueError):
        Table(profile(), [SET], seed=1)
    with pytest.raises(ValueError) as e:
        Table(profile(), [SET, SET], sim={"offer_mean": 1})
    assert "offer_mean_ms" in str(e.value)


def _b(offers, tiles, supply, start=0):
    b = Build(1, start, 4)
    for t, k in offers:
        b.add_offer(t, k, 0, 0)
    for k, n in enumerate(tiles):
        b.tiles[k] = list(range(n))
    b.supply = supply
    return b


def test_bound_replays_the_offers_with_ideal_gates():
    tab = bare_table()
    tail = tab.stacker_us + tab.pusher_us
    # track 0 needs 2, track 1 needs 1; offers alternate, a third to track 0 comes last
    offers = [(100, 0), (200, 1), (300, 1), (400, 0), (500, 2)]
    assert tab.bound_us(_b(offers, [2, 1, 0, 0], 10)) == 400 + tail
    # with only 2 tiles in the mixer the ideal cannot finish
    assert tab.bound_us(_b(offers, [2, 1, 0, 0], 2)) is None
    assert tab.bound_us(_b(offers, [0, 0, 0, 0], 10)) is None


def test_missed_tiles_are_gate_closed_offers_to_short_tracks():
    tab = bare_table()
    b = _b([], [3, 0, 0, 0], 10, start=1000)
    for t, k, status, count in [(2000, 0, 1, 1), (3000, 0, 1, 3), (4000, 1, 1, 0), (5000, 0, 2, 1)]:
        b.add_offer(t, k, status, count)
    assert b.offer_list()[0] == (2000, 0, 1, 1)
    m = tab.missed(b)
    assert m == [{"t_s": 0.001, "track": 1, "count": 1}]


def test_a_scripted_build_is_near_its_bound_and_misses_nothing():
    t = scripted(seed=4)
    b = scripted_build(t)
    assert b["tiles_per_track"] == [34] * 4
    assert b["missed"] == [] and b["blocked_offers"] == 0
    assert 15 < b["build_s"] < 30
    assert b["bound_s"] <= b["build_s"] and b["efficiency"] > 0.98
    assert b["back_counts"] == [{"blue": 34, "green": 0}] * 4
    assert len(b["tiles"][0]) == 34 and set(b["backs"][2]) == {"blue"}


def test_a_sluggish_controller_misses_tiles():
    t = scripted(seed=4)
    c = t.fw
    c.build(17)
    t.run(3000)
    c.gates[0].value(0)  # track 1's gate shut for 5 s while it is short
    t.run(5000)
    c.gates[0].value(1)
    run_until(t, lambda: not c.building, 60000)
    b = t.report()["builds"][0]
    assert len(b["missed"]) >= 4 and {m["track"] for m in b["missed"]} == {1}
    assert b["efficiency"] < 0.95
    assert t.report()["missed_tiles"][0]["build"] == 1


def test_two_deck_rotation():
    t = scripted(seed=6)
    b1 = scripted_build(t)
    assert b1["back_counts"][0] == {"blue": 34, "green": 0}
    scripted_hand_over(t)  # green drops in, blue walls go up
    tab = t.table
    assert tab.mixer.count() == 136 and {tab.tiles.colour(x) for x in tab.mixer.contents()} == {"green"}
    assert {tab.tiles.colour(x) for x in tab.top_tiles()} == {"blue"} and len(tab.top_tiles()) == 136
    assert tab.builds[0].closed_us > 0
    b2 = scripted_build(t)
    assert b2["build"] == 2 and b2["back_counts"][3] == {"blue": 0, "green": 34}
    scripted_hand_over(t)
    b3 = scripted_build(t)
    assert b3["back_counts"][1] == {"blue": 34, "green": 0}
    r = t.report()
    assert r["builds_started"] == 3 and r["table_top_tiles"] == 136


def test_mixed_deck_split():
    t = scripted(seed=7, mixed_deck=True)
    a = scripted_build(t)
    scripted_hand_over(t)  # deck A up (nothing on the top to drop yet)
    b = scripted_build(t)
    tab = t.table
    assert tab.mixer.count() == 0
    total = {"blue": 0, "green": 0}
    for br in (a, b):
        for c in br["back_counts"]:
            for k in c:
                total[k] += c[k]
    assert total == {"blue": 136, "green": 136}
    # the split is random: deck A holds both colours
    a_blue = sum(c["blue"] for c in a["back_counts"])
    assert 40 < a_blue < 96


def test_keep_builds_bounds_the_history():
    t = scripted(seed=6, keep_builds=1)
    scripted_build(t)
    scripted_hand_over(t)
    scripted_build(t)
    r = t.report(full=False)
    assert [b["build"] for b in r["builds"]] == [2] and r["builds_dropped"] == 1
    assert "tiles" not in r["builds"][0]


def test_clear_tracks_returns_tiles_and_ends_the_build():
    t = scripted(seed=6)
    c = t.fw
    c.build(17)
    t.run(5000)
    c.shutdown()
    t.run(1000)
    n = t.table.clear_tracks()
    assert len(n) > 10 and t.table.build is None
    assert t.table.mixer.count() == 136


def test_table_stacks_overrides_the_wall_capacity():
    tab = Table(profile(), [SET, SET], table_stacks=12)
    assert tab.max_stacks == 12


def test_status():
    tab = bare_table()
    s = tab.get_status()
    assert s["mixer"]["tiles"] == 136 and s["build"] is None and len(s["tracks"]) == 4


def test_status_lists_the_driven_actuators_and_a_reset_clears_them():
    tab = bare_table()
    assert tab.get_status()["driven"] == []  # at power-on nothing moves
    tab.line("lift_pwm").drive(40000)
    tab.line("lift_dir").drive(1)  # a direction alone drives nothing
    tab.line("gate2").drive(1)
    tab.line("status_light").drive(1)
    assert tab.get_status()["driven"] == ["gate2", "lift_pwm"]
    tab.reset_outputs()
    assert tab.get_status()["driven"] == []
