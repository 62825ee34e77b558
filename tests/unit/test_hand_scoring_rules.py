"""The scoring options as data (hostd.hand.scoring_rules)."""
import pytest

from hostd.hand import HandError
from hostd.hand.scoring_rules import DEFAULTS, OPTIONS, options_for


def test_every_ruleset_sets_every_option():
    for name, opts in DEFAULTS.items():
        assert set(opts) == set(OPTIONS), name


def test_base_defaults_are_the_common_rules():
    o = options_for("riichi")
    assert o["open_tanyao"] and not o["kiriage"] and o["kazoe_yakuman"] and o["double_yakuman"]
    assert o["red_fives"] and o["chips"] == {} and o["local_yaku"] == []


def test_speed_tonpuu_from_its_seed():
    o = options_for("Speed Tonpuu")
    assert o["kiriage"] and o["renhou_yakuman"] and o["kansai_chiitoi"]
    assert o["round_winds"] == ["west"] and o["chips"]["blue"] == 2
    assert "sanrenko" in o["local_yaku"]


def test_overrides_apply_and_do_not_leak():
    o = options_for("speed-tonpuu", {"kiriage": False, "local_yaku": []})
    assert o["kiriage"] is False and o["local_yaku"] == []
    o["chips"]["red"] = 99
    assert options_for("speed-tonpuu")["chips"]["red"] == 1


@pytest.mark.parametrize("overrides, words", [
    ({"nope": True}, "no scoring option 'nope'; accepted: open_tanyao, kiriage"),
    ({"kiriage": "yes"}, "option kiriage: 'yes' is not true or false"),
    ({"local_yaku": ["daisharin"]}, "option local_yaku: 'daisharin' is not one of sanrenko"),
    ({"round_winds": "west"}, "option round_winds: 'west' is not a list"),
    ({"chips": {"red": -1}}, "option chips: red must be a whole number of chips"),
    ({"chips": {"flower": 1}}, "option chips: no item 'flower'"),
    ([1], "options must be an object"),
])
def test_bad_overrides_are_refused(overrides, words):
    with pytest.raises(HandError) as e:
        options_for("riichi", overrides)
    assert words in str(e.value)


def test_a_ruleset_not_scored_here():
    with pytest.raises(HandError, match="shenyang has its own scoring"):
        options_for("shenyang")


def test_hands_md_gives_each_rulesets_defaults():
    from tests.unit.hands_md import code, rows

    table = rows("Scoring options")
    assert [code(r[0]) for r in table] == list(OPTIONS)
    for r in table:
        name = code(r[0])
        for col, ruleset in ((1, "riichi"), (2, "speed-tonpuu")):
            value = DEFAULTS[ruleset][name]
            if isinstance(value, bool):
                assert r[col] == str(value).lower(), (name, ruleset)
            elif not value:
                assert r[col] in ("`[]`", "`{}`"), (name, ruleset)
