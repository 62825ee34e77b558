"""hostd.rules.rulesets: every profile against its seed (../shared/seeds), names, fit, tiles,
the Mixed Deck overlay. Numbers below were read off the seed texts; docs/RULESETS.md says
where each one is."""
import pathlib
from collections import Counter

import pytest
from pydantic import ValidationError

from hostd.rules import rulesets as R
from hostd.rules.rulesets import (
    RulesetError,
    RulesetProfile,
    TableFitError,
    UnknownRulesetError,
    canonical_name,
    check_fits,
    get_ruleset,
    list_rulesets,
    mixed_deck,
    tiles_for_set,
    tiles_for_sets,
)

UZJE_VARIANTS = [
    "uzje",
    "uzje+compressed-winds",
    "uzje+flowers",
    "uzje+all-tongs",
    "uzje+compressed-winds+flowers",
    "uzje+compressed-winds+all-tongs",
    "uzje+flowers+all-tongs",
    "uzje+compressed-winds+flowers+all-tongs",
]

# name: (tiles per deck, stacks per wall, dead wall tiles, dice)
GEOMETRY = {
    "riichi": (136, 17, 14, "2d6"),
    "speed-tonpuu": (136, 17, 14, "2d6"),
    "shenyang": (136, 17, 16, "2d6"),
    "wsom": (136, 17, 14, "2d6"),
    # Ùzje: base 20 stacks, +1 full winds, +1 flowers, +7 all tongs (seed 004 table)
    "uzje": (168, 21, 16, "3d6"),
    "uzje+compressed-winds": (160, 20, 16, "3d6"),
    "uzje+flowers": (176, 22, 16, "3d6"),
    "uzje+all-tongs": (224, 28, 16, "3d6"),
    "uzje+compressed-winds+flowers": (168, 21, 16, "3d6"),
    "uzje+compressed-winds+all-tongs": (216, 27, 16, "3d6"),
    "uzje+flowers+all-tongs": (232, 29, 16, "3d6"),
    "uzje+compressed-winds+flowers+all-tongs": (224, 28, 16, "3d6"),
}

UZJE_RANKS = "123456789xabcdef"


def test_every_ruleset_is_listed_in_canonical_order():
    names = [p.name for p in list_rulesets()]
    assert names == ["riichi", "speed-tonpuu", "shenyang", "wsom"] + UZJE_VARIANTS
    assert R.ruleset_names() == names
    assert set(GEOMETRY) == set(names)


@pytest.mark.parametrize("name", list(GEOMETRY))
def test_geometry(name):
    p = get_ruleset(name)
    tiles, stacks, dead, dice = GEOMETRY[name]
    assert (p.tiles_per_deck, p.stacks_per_wall, p.dead_wall_tiles, p.dice) == (tiles, stacks, dead, dice)
    assert p.walls == 4
    assert sum(p.faces.values()) == p.tiles_per_deck == 8 * p.stacks_per_wall
    assert len(tiles_for_set(p)) == p.tiles_per_deck
    assert p.dead_wall_stacks * 2 == p.dead_wall_tiles


def test_riichi_is_four_of_each_of_34_faces_without_red_fives():
    p = get_ruleset("riichi")
    assert len(p.faces) == 34 and set(p.faces.values()) == {4}
    assert not {"0m", "0p", "0s"} & set(p.faces)
    assert list(p.faces)[:3] == ["1m", "2m", "3m"] and list(p.faces)[-1] == "7z"
    assert p.dice_alternatives == () and p.dead_wall_per_kong == 0
    assert p.break_procedure.unit == "stacks"


def test_speed_tonpuu_special_tiles():
    # seed 001 "Special Tiles": 1 red 0m0p0s, 1 blue 7m7p7s, 1 gold 5p,
    # 1 5z pocchi and 1 7z pocchi, 1 6z pocchi
    f = get_ruleset("speed-tonpuu").faces
    for special in ("0m", "0p", "0s", "7mb", "7pb", "7sb", "5pg", "5zx", "6zx", "7zx"):
        assert f[special] == 1, special
    assert f["5m"] == 3 and f["5s"] == 3
    assert f["5p"] == 2  # 2 plain + red 0p + gold 5pg
    assert f["7m"] == f["7p"] == f["7s"] == 3
    assert f["5z"] == f["6z"] == f["7z"] == 3
    assert f["1z"] == f["4z"] == 4
    # every face it plays as still has exactly four tiles
    assert set(R.combined_faces("speed-tonpuu", by_game_face=True).values()) == {8}
    # a special tile sorts right after its plain face
    order = list(f)
    assert order[order.index("5p") + 1: order.index("5p") + 3] == ["0p", "5pg"]


def test_shenyang_dead_wall_and_dice_double():
    # seed 002: "Deck ... 136 tiles total", "Dead wall has 16 tiles. Every gang adds 2
    # tiles", "dice roll double: x2 (i.e., 1/6 chance)"
    p = get_ruleset("shenyang")
    assert set(p.faces.values()) == {4} and len(p.faces) == 34
    assert p.dead_wall_tiles == 16 and p.dead_wall_per_kong == 2
    assert p.dice_double_multiplier == 2
    # no break procedure in the seed: the common (Riichi) one
    assert p.break_procedure.model_dump(exclude={"source"}) == \
        get_ruleset("riichi").break_procedure.model_dump(exclude={"source"})


def test_wsom_no_flowers_kong_box_and_break():
    # seed 003: "136 tiles. The bonus tiles (Flowers and Seasons) are not used",
    # "The last 14 tiles in the wall are called the Dead Wall"
    p = get_ruleset("wsom")
    assert len(p.faces) == 34 and set(p.faces.values()) == {4}
    assert p.dead_wall_tiles == 14
    b = p.break_procedure
    assert (b.count_direction, b.origin_seat, b.origin_value, b.unit, b.from_end) == \
        ("counter-clockwise", "self", 1, "stacks", "right")
    assert b.thrower == "East"


def test_uzje_default_composition():
    f = get_ruleset("uzje").faces
    for suit in "sm":  # ranks 1..16 in socks and mans
        assert [f[r + suit] for r in UZJE_RANKS] == [4] * 16
    assert [k for k in f if k.endswith("t")] == ["1t", "ft"]  # tongs: terminals only
    assert f["Z"] == 4  # four zero tiles
    assert [k for k in f if k in "ESWNHV"] == ["E", "S", "W", "N"]
    assert f["C"] == f["F"] == f["P"] == 4
    assert not set("hijkopqr") & set(f)
    # canonical order from the seed: tongs, socks, mans, zero, winds, arrows
    assert list(f)[:3] == ["1t", "ft", "1s"] and list(f)[-4:] == ["N", "C", "F", "P"]


def test_uzje_options():
    cw = get_ruleset("uzje+compressed-winds").faces
    assert [k for k in cw if k in "ESWNHV"] == ["H", "V"] and cw["H"] == cw["V"] == 4
    fl = get_ruleset("uzje+flowers").faces
    assert {k: fl[k] for k in "hijkopqr"} == dict.fromkeys("hijkopqr", 1)
    assert list(fl)[-8:] == list("hijkopqr")
    at = get_ruleset("uzje+all-tongs").faces
    assert [at[r + "t"] for r in UZJE_RANKS] == [4] * 16
    # wall widths: "the default width is 22 with flowers and 21 without flowers"
    assert get_ruleset("uzje").stacks_per_wall == 21
    assert get_ruleset("uzje+flowers").stacks_per_wall == 22
    assert get_ruleset("uzje+compressed-winds").stacks_per_wall == 20  # base width
    assert get_ruleset("uzje+flowers+all-tongs").stacks_per_wall == 29  # maximum width


def test_uzje_dice_and_break():
    p = get_ruleset("uzje")
    assert p.dice == "3d6" and p.dice_alternatives == ("1d20",)
    b = p.break_procedure
    assert (b.count_direction, b.origin_seat, b.origin_value, b.unit) == \
        ("counter-clockwise", "left", 0, "tiles")
    assert b.breaker_becomes_dealer
    assert p.dead_wall_tiles == 16 and p.dead_wall_per_kong == 0


# --------------------------------------------------------------------------- names

@pytest.mark.parametrize("given, canonical", [
    ("riichi", "riichi"),
    ("Speed-Tonpuu", "speed-tonpuu"),
    ("speed_tonpuu", "speed-tonpuu"),
    ("WSOM", "wsom"),
    ("Ùzje", "uzje"),
    ("uzje+all-tongs+flowers", "uzje+flowers+all-tongs"),
    ("uzje+all-tongs+compressed-winds+flowers", "uzje+compressed-winds+flowers+all-tongs"),
    (" uzje + flowers ", "uzje+flowers"),
])
def test_canonical_names(given, canonical):
    assert canonical_name(given) == canonical
    assert get_ruleset(given).name == canonical


@pytest.mark.parametrize("bad, fragment", [
    ("mcr", "unknown ruleset 'mcr'"),
    ("", "no ruleset given"),
    ("riichi+flowers", "riichi takes no '+' options"),
    ("uzje+jokers", "unknown option 'jokers'"),
    ("uzje+flowers+flowers", "option 'flowers' given twice"),
    ("riichi+mixed-deck", "--mixed-deck"),
    ("uzje+", "unknown option ''"),
])
def test_bad_names_say_what_is_accepted(bad, fragment):
    with pytest.raises(UnknownRulesetError) as e:
        get_ruleset(bad)
    msg = str(e.value)
    assert fragment in msg
    for name in ("riichi", "speed-tonpuu", "shenyang", "wsom", "uzje",
                 "uzje+compressed-winds", "uzje+flowers", "uzje+all-tongs"):
        assert name in msg
    assert isinstance(e.value, ValueError)


# --------------------------------------------------------------------------- validation

def _item(**over):
    p = get_ruleset("riichi").model_dump()
    p.update(over)
    return p


def test_the_data_validates():
    RulesetProfile.model_validate(_item())


@pytest.mark.parametrize("over, fragment", [
    (dict(tiles_per_deck=144), "faces sum to 136"),
    (dict(faces={**get_ruleset("riichi").faces, "5m": 3}), "faces sum to 135"),
    (dict(stacks_per_wall=18), "4 walls x 18 stacks x 2 = 144"),
    (dict(faces={**get_ruleset("riichi").faces, "8z": 4}), "'8z' is not a face"),
    (dict(faces={**get_ruleset("riichi").faces, "1m": 5}), "a set holds 1 to 4"),
    (dict(dead_wall_tiles=13), "whole stacks"),
    (dict(dice="2x6"), "NdS"),
    (dict(dice="3d6"), "does not fit a wall of 17 stacks"),
    (dict(name="riichi+flowers"), "riichi takes no"),
    (dict(base="wsom"), "disagree"),
    (dict(colour="blue"), "Extra inputs"),
])
def test_bad_profiles_are_refused(over, fragment):
    with pytest.raises(ValidationError) as e:
        RulesetProfile.model_validate(_item(**over))
    assert fragment in str(e.value)


def test_profiles_are_copies():
    p = get_ruleset("riichi")
    p.faces["1m"] = 0
    assert get_ruleset("riichi").faces["1m"] == 4
    with pytest.raises(ValidationError):
        p.stacks_per_wall = 18  # frozen


def test_summary_has_the_cli_keys():
    s = get_ruleset("uzje+flowers").summary()
    for k in ("name", "tiles_per_deck", "stacks_per_wall", "dead_wall_tiles", "dice", "faces"):
        assert k in s
    assert s["dice"] == "3d6" and s["dice_alternatives"] == ["1d20"]
    assert s["faces"]["h"] == 1 and s["options"] == ["flowers"]


# --------------------------------------------------------------------------- table fit

def test_check_fits_names_both_numbers():
    with pytest.raises(TableFitError) as e:
        check_fits(get_ruleset("uzje+all-tongs"), 18)
    assert str(e.value) == "uzje+all-tongs needs 28 stacks per wall; this table's walls hold 18"
    assert (e.value.needs_stacks, e.value.table_stacks) == (28, 18)
    assert isinstance(e.value, RulesetError)


def test_errors_are_the_daemons_errors():
    from hostd.errors import BadRequest, Refused

    with pytest.raises(Refused) as e:
        check_fits("uzje", 18)
    assert (e.value.status, e.value.code) == (422, "refused")
    with pytest.raises(BadRequest) as e:
        get_ruleset("mcr")
    assert (e.value.status, e.value.code) == (400, "bad_request")


def test_check_fits_tracks_and_names():
    with pytest.raises(TableFitError, match="riichi needs 4 walls .* this table has 3 tracks"):
        check_fits("riichi", 18, table_tracks=3)
    with pytest.raises(ValueError, match="table_max_stacks"):
        check_fits("riichi", 0)


def test_what_fits_the_reference_tables():
    short = [p.name for p in list_rulesets() if p.stacks_per_wall <= 18]
    assert short == ["riichi", "speed-tonpuu", "shenyang", "wsom"]
    for p in list_rulesets():  # the long-wall profile holds every variant
        check_fits(p, 29)
    check_fits("uzje", 21)
    with pytest.raises(TableFitError, match="needs 22 stacks per wall; this table's walls hold 21"):
        check_fits("uzje+flowers", 21)


# --------------------------------------------------------------------------- tiles

@pytest.mark.parametrize("name", list(GEOMETRY))
def test_tiles_for_set_matches_faces(name):
    p = get_ruleset(name)
    tiles = tiles_for_set(p)
    assert Counter(tiles) == Counter(p.faces)
    assert tiles == tiles_for_set(name)  # deterministic
    assert tiles == sorted(tiles, key=lambda f: R.face_sort_key(f, p.notation))


def test_tiles_for_sets_two_colours():
    both = tiles_for_sets("riichi")
    assert len(both) == 272
    assert Counter(c for _, c in both) == {"blue": 136, "green": 136}
    assert both[0] == ("1m", "blue") and both[136] == ("1m", "green")
    assert Counter(c for _, c in tiles_for_sets("wsom", ("Red", "white"))) == {"red": 136, "white": 136}


# --------------------------------------------------------------------------- mixed deck

@pytest.mark.parametrize("name", list(GEOMETRY))
def test_mixed_deck_overlay(name):
    p = get_ruleset(name)
    md = mixed_deck(p)
    assert md.colours == ("blue", "green")
    assert md.deck_tiles == p.tiles_per_deck and md.total_tiles == 2 * p.tiles_per_deck
    assert sum(md.faces.values()) == md.total_tiles
    assert md.faces == {f: 2 * n for f, n in p.faces.items()}
    assert md.max_copies_per_face == 8  # seed 000: yakuman for 8 copies of a face


def test_mixed_deck_game_faces():
    md = mixed_deck("speed-tonpuu")
    assert md.faces["5p"] == 4 and md.faces["0p"] == 2 and md.faces["5pg"] == 2
    assert md.game_faces["5p"] == 8 and "0p" not in md.game_faces
    assert mixed_deck("uzje+flowers").game_faces["h"] == 2
    assert R.game_face("0s") == "5s" and R.game_face("7zx") == "7z" and R.game_face("ft") == "ft"


def test_two_sets_may_have_identical_backs():
    assert mixed_deck("riichi", ("Blue", "blue")).colours == ("blue", "blue")


@pytest.mark.parametrize("colours, fragment", [
    (("blue",), "exactly two"),
    (("blue", "unknown"), "no-answer class"),
    (("blue", "gr een"), "lowercase name"),
])
def test_mixed_deck_colours(colours, fragment):
    with pytest.raises(RulesetError, match=fragment):
        mixed_deck("riichi", colours)


def test_configured_colours():
    assert mixed_deck("riichi", ["Yellow", "white"]).colours == ("yellow", "white")


# --------------------------------------------------------------------------- seed texts

SEEDS = pathlib.Path(__file__).resolve().parents[2].parent / "shared" / "seeds"


def _seed(prefix):
    found = sorted(SEEDS.glob(prefix + "_*.txt")) if SEEDS.is_dir() else []
    if not found:
        pytest.skip("seed texts not beside the repository (../shared/seeds)")
    return found[0].read_text(encoding="utf-8")


def test_seed_texts_still_say_what_the_profiles_assume():
    """The sentences each number was read from (docs/RULESETS.md)."""
    t = _seed("001")
    for s in ("1 red 0m0p0s", "1 blue 7m7p7s", "1 gold 5p", "1 5z pocchi and 1 7z pocchi",
              "1 6z pocchi"):
        assert s in t
    t = _seed("002")
    assert "136 tiles total" in t and "Dead wall has 16 tiles. Every gang adds 2 tiles" in t
    assert "dice roll double: x2 (i.e., 1/6 chance)" in t
    t = _seed("003")
    assert "uses a set of 136 tiles. The bonus tiles (Flowers and Seasons) are not used" in t
    assert "The last 14 tiles in the wall are called the “Dead Wall”" in t
    assert "two six-sided dice" in t and "count a number of stacks off the right end" in t
    assert "“5” and “9” gives the dice thrower; “2” “6” and “10” gives his lower seat" in t
    t = _seed("004")
    for s in ("| Base width              | 20 |", "| Using full set of winds |  1 |",
              "| Using flowers           |  1 |", "| Using all tongs         |  7 |",
              "| Maximum width           | 29 |", "He rolls 3d6 (alternative: use 1d20 instead",
              "The player on his left is 0, and increases anticlockwise",
              "counts left that many tiles", "16 tiles, or 8 stacks",
              "the tongs are limited to the terminals, 1 and 16"):
        assert s in t
    t = _seed("000")
    assert "yakuman: using 8 copies of the same face" in t
