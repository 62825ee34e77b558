"""hostd/game/values.py at its edges: every refusal's words (what was wrong and what is
accepted, as the page and the API show them) and every number at the boundary where a
one-character change would move it (bench/mutation.py, issue 53 point 8)."""
import pytest

from hostd.game.entries import WinnerHand
from hostd.game.errors import BadEntry
from hostd.game.values import (UZJE_LIMIT, check_value, shenyang_factor, uzje_points,
                               wsom_value)
from hostd.rules.game import RULES

WSOM_BAD = ("patterns: %d cannot be; every WSOM pattern is worth a multiple of 5 (5 to 480, "
            "seed 003 lines 183-289)")
SHENYANG_NAMES = (
    "duiduihu, dragon_kezi, gang, gangshang_kaihua, gangshang_pao, qianggang, single_wait, "
    "haidilaoyue, first_turn_dragons, first_turn_winds (also toitoi = duiduihu, "
    "dragon_triplet = dragon_kezi, angang = gang, rinshan = gangshang_kaihua, chankan = "
    "qianggang, haitei = haidilaoyue)")

REFUSED = [
    ("riichi", dict(han=2, fu=30, chips=1), False, "no_chips",
     "riichi counts no chips; leave 'chips' out", {}),
    ("riichi", dict(han=2, fu=30, pao="east"), False, "pao_self",
     "east cannot be liable (pao) for their own win: 'pao' is the player who let the hand "
     "complete", {"player": "east"}),
    ("riichi", dict(yakuman=1, han=2), False, "yakuman_alone",
     "give yakuman: N alone (a yakuman counts no han or fu)", {}),
    ("riichi", dict(yakuman=1, fu=30), False, "yakuman_alone",
     "give yakuman: N alone (a yakuman counts no han or fu)", {}),
    ("riichi", dict(fu=30), False, "han_missing", "give han (1 or more) and fu, or yakuman: N",
     {}),
    ("riichi", dict(han=4), False, "fu_missing",
     "4 han needs its fu (20, 25, 30, 40 ... 110); fu may be left out only at 5 han or more",
     {"han": 4}),
    ("riichi", dict(han=2, fu=35), False, "fu_invalid",
     "35 fu cannot be: fu is 25 (seven pairs) or a multiple of 10 from 20 to 110", {"fu": 35}),
    ("riichi", dict(han=2, fu=21), True, "fu_invalid",
     "21 fu cannot be: fu is 25 (seven pairs) or a multiple of 10 from 20 to 110", {"fu": 21}),
    ("riichi", dict(han=1, fu=25), False, "fu25_han",
     "25 fu is seven pairs, which is 2 han at least (got 1 han)", {"han": 1}),
    ("riichi", dict(han=2, fu=20), False, "fu20_ron",
     "20 fu cannot be won on a discard (a closed ron has 30 fu at least, an open 20-fu hand "
     "counts 30)", {}),
    ("riichi", dict(han=1, fu=20), True, "fu20_han",
     "1 han 20 fu cannot be: 20 fu is pinfu tsumo, 2 han at least", {}),
    ("wsom", dict(patterns=[]), False, "patterns_missing",
     "patterns: give the pattern points (e.g. 170) or a list of them", {}),
    ("wsom", dict(patterns=[0]), False, "pattern_invalid", WSOM_BAD % 0, {"points": 0}),
    ("wsom", dict(patterns=[3]), False, "pattern_invalid", WSOM_BAD % 3, {"points": 3}),
    ("wsom", dict(patterns=[485]), False, "pattern_invalid", WSOM_BAD % 485, {"points": 485}),
    ("wsom", dict(patterns=-5), False, "pattern_invalid", WSOM_BAD % -5, {"points": -5}),
    ("wsom", dict(patterns=7), False, "pattern_invalid", WSOM_BAD % 7, {"points": 7}),
    ("wsom", dict(patterns=325), False, "patterns_over_limit",
     "patterns: 325 is no hand's worth: a hand of several patterns scores at most 320 (the "
     "compound limit), a single limit hand 400 or 480 (seed 003 lines 172-176); give the "
     "hand's worth, or each pattern's points as a list", {"points": 325, "most": 320}),
    ("wsom", dict(patterns=405), False, "patterns_over_limit", None, {"points": 405}),
    ("wsom", dict(), False, "patterns_missing",
     "give patterns: the hand's pattern points (e.g. 170)", {}),
    ("wsom", dict(han=2), False, "field_foreign",
     "han is not counted in wsom: a win there gives patterns: the hand's pattern points (a "
     "number up to the compound limit 320, or 400 or 480 for a single limit hand), or a list "
     "of each pattern's points", {"fields": ["han"]}),
    ("wsom", dict(han=2, fu=30), False, "field_foreign",
     "han, fu is not counted in wsom: a win there gives patterns: the hand's pattern points "
     "(a number up to the compound limit 320, or 400 or 480 for a single limit hand), or a "
     "list of each pattern's points", {"fields": ["han", "fu"]}),
    ("riichi", dict(patterns=170), False, "field_foreign",
     "patterns is not counted in riichi: a win there gives han and fu (fu may be left out at "
     "5 han or more), or yakuman: N", {"fields": ["patterns"]}),
    ("shenyang", dict(fan=3.5, multipliers=["gang"]), False, "field_foreign",
     "fan is not counted in shenyang: a win there gives multipliers: a list of the seed's "
     "names (see the error for a bad name)", {"fields": ["fan"]}),
    ("uzje", dict(patterns=5), False, "field_foreign",
     "patterns is not counted in uzje: a win there gives fan (above 2.5, in steps of 0.2), "
     "or limits: N for a limit hand", {"fields": ["patterns"]}),
    ("shenyang", dict(pao="south"), False, "field_foreign", None, {"fields": ["pao"]}),
    ("shenyang", dict(multipliers=["nope"]), False, "multiplier_unknown",
     "multipliers: 'nope' is not one of seed 002's: " + SHENYANG_NAMES, {"name": "nope"}),
    ("shenyang", dict(multipliers=["dragon_kezi"] * 4), False, "multiplier_times",
     "multipliers: dragon_kezi counts at most 3 times in a hand (got 4)",
     {"name": "dragon_kezi", "most": 3, "got": 4}),
    ("shenyang", dict(multipliers=["gang"] * 5), False, "multiplier_times",
     "multipliers: gang counts at most 4 times in a hand (got 5)",
     {"name": "gang", "most": 4, "got": 5}),
    ("shenyang", dict(multipliers=["toitoi", "duiduihu"]), False, "multiplier_times",
     "multipliers: duiduihu counts at most 1 time in a hand (got 2)",
     {"name": "duiduihu", "most": 1, "got": 2}),
    ("uzje", dict(), False, "fan_or_limits",
     "give fan (above 2.5) or limits: N (a limit hand counts no fan, seed 004 line 200), one "
     "of them", {}),
    ("uzje", dict(fan=3, limits=1), False, "fan_or_limits", None, {}),
    ("uzje", dict(fan=2.4), False, "fan_invalid",
     "fan 2.4 cannot win: fan come in steps of 0.2 and a win needs more than 2.5 (seed 004 "
     "line 297)", {"fan": 2.4, "least": 2.5}),
    ("uzje", dict(fan=3.1), False, "fan_invalid", None, {"fan": 3.1}),
    ("uzje", dict(fan=2.5), False, "fan_invalid", None, {"fan": 2.5}),  # the minimum: no win
]


@pytest.mark.parametrize("ruleset, value, tsumo, key, words, params", REFUSED)
def test_a_value_that_cannot_be_is_refused_in_words(ruleset, value, tsumo, key, words, params):
    with pytest.raises(BadEntry) as e:
        check_value(WinnerHand(player="east", **value), RULES[ruleset], tsumo=tsumo)
    assert e.value.key == key
    if words is not None:
        assert str(e.value) == words
    for k, v in params.items():
        assert e.value.params[k] == v


ACCEPTED = [
    ("riichi", dict(han=2, fu=25), False), ("riichi", dict(han=2, fu=20), True),
    ("riichi", dict(han=5), False), ("riichi", dict(han=1, fu=110), False),
    ("riichi", dict(yakuman=2), True), ("riichi", dict(han=1, fu=30, pao="south"), False),
    ("speed-tonpuu", dict(han=1, fu=30, chips=2), True),
    ("wsom", dict(patterns=[5]), False), ("wsom", dict(patterns=[480]), False),
    ("wsom", dict(patterns=0), False), ("wsom", dict(patterns=320), False),
    ("wsom", dict(patterns=400), False), ("wsom", dict(patterns=480), False),
    ("wsom", dict(patterns=[200, 200]), False),
    ("shenyang", dict(multipliers=["dragon_kezi"] * 3 + ["gang"] * 4), False),
    ("shenyang", dict(multipliers=["Dragon Triplet", "angang"]), False),
    ("shenyang", dict(multipliers=["first-turn-dragons", "Gangshang-Kaihua"]), False),
    ("shenyang", dict(), True),
    ("uzje", dict(fan=2.6), False), ("uzje", dict(fan=3.1 + 0.1), False),
    ("uzje", dict(limits=2), True),
]


@pytest.mark.parametrize("ruleset, value, tsumo", ACCEPTED)
def test_a_value_at_the_edge_is_taken(ruleset, value, tsumo):
    check_value(WinnerHand(player="east", **value), RULES[ruleset], tsumo=tsumo)


@pytest.mark.parametrize("patterns, worth", [
    ([5], 5), ([100, 100], 200), ([160, 160], 320), ([200, 200], 320), ([100, 400], 400),
    ([480, 400], 480), ([400, 480, 20], 480), (0, 0), (320, 320), (400, 400), (170, 170)])
def test_wsom_worth_after_the_limits(patterns, worth):
    assert wsom_value(patterns) == worth


@pytest.mark.parametrize("names, factor", [
    ([], 1), (["duiduihu"], 8), (["gang", "angang"], 4), (["first_turn_dragons"], 4),
    (["duiduihu", "dragon_kezi", "dragon_kezi", "single_wait"], 64), (["haitei"], 2)])
def test_shenyang_factor_is_the_product(names, factor):
    assert shenyang_factor(names) == factor


@pytest.mark.parametrize("fan, points", [  # fan in steps of 0.2 above 2.5
    (2.6, 2), (3.4, 2), (3.6, 5), (4.4, 5), (4.6, 10), (5.6, 20), (6.6, 50), (7.6, 100),
    (8.6, 200), (9.6, 500), (10.6, 1000), (11.6, 2000), (12.4, 2000), (12.6, UZJE_LIMIT),
    (13.6, UZJE_LIMIT), (14.6, UZJE_LIMIT), (15.6, 2 * UZJE_LIMIT), (18.6, 3 * UZJE_LIMIT)])
def test_uzje_points_one_two_five_then_limits(fan, points):
    assert uzje_points(WinnerHand(player="east", fan=fan)) == points


def test_uzje_limit_hands_count_whole_limits():
    assert uzje_points(WinnerHand(player="east", limits=1)) == 5000
    assert uzje_points(WinnerHand(player="east", limits=3)) == 15000
