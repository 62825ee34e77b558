"""The scorer as a whole (hostd.hand.score): known hands, their yaku, han, fu and
points; the best reading; refusals that say what was wrong."""
import pytest

from hostd.hand import HandError
from hostd.hand.score import score


def ids(r):
    return [y["id"] for y in r["yaku"]]


@pytest.fixture
def south():
    """A non-dealer in the East round (the common case)."""
    return {"seat_wind": "south", "round_wind": "east"}


def test_riichi_pinfu_tsumo_is_20_fu(south):
    r = score("234789m12345666p", win="6p", tsumo=True, riichi=True, **south)
    assert ids(r) == ["riichi", "menzen_tsumo", "pinfu"]
    assert (r["han"], r["fu"]) == (3, 20)
    assert r["points"] == {"total": 2700, "payments": [
        {"payer": "east", "points": 1300}, {"payer": "west", "points": 700},
        {"payer": "north", "points": 700}]}
    assert r["fu_breakdown"] == [{"reason": "base", "fu": 20}]


def test_closed_ron_with_triplets(south):
    r = score("22444m333567p444s", win="4s", **south)
    assert ids(r) == ["tanyao"] and (r["han"], r["fu"]) == (1, 40)
    assert r["points"]["payments"] == [{"payer": "discarder", "points": 1300}]
    # the triplet the ron completed is open: 2 fu, not 4
    assert {"reason": "open triplet", "fu": 2} in r["fu_breakdown"]


def test_open_hand_with_dora(south):
    r = score("234567m22p234s", win="7m", calls=["pon:555z"], dora="6m", **south)
    assert ids(r) == ["haku"] and r["dora"]["dora"] == 1 and r["han"] == 2
    assert r["fu"] == 30 and r["points"]["total"] == 2000


def test_dealer_ron_pays_six_times_the_base():
    r = score("234789m12345666p", win="6p", riichi=True, seat_wind="east")
    assert (r["han"], r["fu"]) == (2, 30) and r["points"]["total"] == 2900


def test_the_best_reading_is_taken(south):
    # 111222333m: three triplets (sanankou) or three runs (iipeikou x ...)
    r = score("111222333m45699p", win="9p", riichi=True, **south)
    assert "sanankou" in ids(r)
    assert r["reading"]["wait"] == "tanki" and "iipeikou" not in ids(r)
    assert any(x["id"] == "best-reading" for x in r["rulings"])


def test_ron_on_a_shanpon_or_a_run_reads_the_run_when_it_pays_more(south):
    # 45666p + ron on 6p: the 666 stays concealed if 456 was the final block
    r = score("123m789s11z456666p", win="6p", **south)
    assert r["han"] == 0  # no yaku at all: answered, not refused
    r = score("123m789s11z456666p", win="6p", riichi=True, **south)
    assert r["reading"]["wait"] == "ryanmen"
    assert {"reason": "closed triplet", "fu": 4} in r["fu_breakdown"]


def test_no_yaku_is_han_0_and_says_why(south):
    r = score("123m456p789s11z555s", win="5s", dora="4s", **south)
    assert r["han"] == 0 and r["points"]["total"] == 0 and r["dora"]["dora"] == 3
    assert "no yaku" in r["no_yaku"]
    assert [x["id"] for x in r["rulings"]] == ["no-yaku"]


def test_yakuman_and_double_yakuman(south):
    r = score("19m19p19s12345677z", win="7z", **south)
    assert ids(r) == ["kokushi_13"] and r["yakuman"] == 2 and r["limit"] == "2x yakuman"
    assert r["points"]["total"] == 64000
    r = score("19m19p19s12345677z", win="7z", options={"double_yakuman": False}, **south)
    assert r["yakuman"] == 1 and r["points"]["total"] == 32000


def test_kazoe_and_kiriage_options(south):
    hand = dict(win="9p", riichi=True, tsumo=True, dora="8p8p8p", **south)
    r = score("11122233345699p", **hand)
    assert r["han"] >= 13 and r["limit"] == "kazoe yakuman"
    r = score("11122233345699p", options={"kazoe_yakuman": False}, **hand)
    assert r["limit"] == "sanbaiman"
    # riichi, pinfu, tanyao, a dora: 4 han 30 fu is 7700, or a mangan with kiriage
    hand = dict(win="8s", riichi=True, dora="1m", **south)
    plain = score("234m567p22345678s", **hand)
    assert (plain["han"], plain["fu"], plain["limit"]) == (4, 30, None)
    assert plain["points"]["total"] == 7700
    cut = score("234m567p22345678s", options={"kiriage": True}, **hand)
    assert cut["limit"] == "kiriage mangan" and cut["points"]["total"] == 8000


def test_the_speed_tonpuu_ruleset_changes_the_defaults(south):
    r = score("11223344556677z", win="7z", ruleset="speed-tonpuu", **south)
    assert r["options"]["kiriage"] is True and r["ruleset"] == "speed-tonpuu"
    assert r["chips"]["total"] == 10  # a yakuman by ron: 10 chips


def test_mixed_deck_copy_yaku_and_eight_copies():
    r = score("22222333p444s555s", win="4s", mixed_deck=True, backs=(7, 7), riichi=True,
              seat_wind="south")
    assert {"copies_5_7", "seven_each"} <= set(ids(r))
    r = score("22222222p333s456s", win="6s", mixed_deck=True, seat_wind="south")
    assert ids(r) == ["copies_8"] and r["points"]["total"] == 32000


def test_eight_copies_read_several_ways():
    r = score("22222222334455p", win="5p", mixed_deck=True, seat_wind="south")
    # 222 222 234 234 55 or 22 222 222 345 345 ...: the yakuman either way, best fu kept
    assert r["yakuman"] == 1 and r["fu"] >= 30


@pytest.mark.parametrize("kw, words", [
    ({"win": "5m"}, "5m is not among them"),
    ({"win": "0p"}, "0p is not among them (a special tile is named as written)"),
    ({"win": "5p5p"}, "the winning tile is one tile"),
    ({"win": "9p", "seat_wind": "up"}, "seat_wind 'up': one of east, south, west, north"),
    ({"win": "9p", "ippatsu": True}, "ippatsu needs riichi"),
    ({"win": "9p", "rinshan": True, "tsumo": True}, "give the kan among the calls"),
    ({"win": "9p", "houtei": True, "tsumo": True}, "houtei (a win on the last discard) is a ron"),
    ({"win": "9p", "tenhou": True, "tsumo": True, "seat_wind": "west"}, "tenhou is the dealer"),
    ({"win": "9p", "dora": "4q"}, "dora indicators: bad token '4q'"),
    ({"win": "9p", "ura": "1m2m3m4m5m6m"}, "ura indicators: 6 given, at most 5"),
    ({"win": "9p", "options": {"kuitan": True}},
     "no scoring option 'kuitan'; accepted: open_tanyao"),
    ({"win": "9p", "options": {"kiriage": 1}}, "option kiriage: 1 is not true or false"),
    ({"win": "9p", "ruleset": "wsom"}, "wsom has its own scoring"),
    ({"win": "9p", "ruleset": "nope"}, "nope"),
])
def test_refusals_say_what_was_wrong(kw, words):
    with pytest.raises(HandError) as e:
        score("11122233345699p", **kw)
    assert words in str(e.value)


def test_an_incomplete_hand_is_refused():
    with pytest.raises(HandError, match="not a winning hand"):
        score("11122233345689p", win="9p")
    with pytest.raises(HandError, match="13 closed tiles: a won hand holds 3n\\+2"):
        score("1112223334568p", win="8p")


def test_riichi_with_an_open_call_is_refused():
    with pytest.raises(HandError, match="riichi needs a closed hand"):
        score("123m456p789s11z", win="1z", calls=["pon:555z"], riichi=True)
    r = score("123m456p789s11z", win="1z", calls=["ankan:5555z"], riichi=True, seat_wind="south")
    assert "riichi" in ids(r) and "haku" in ids(r)
