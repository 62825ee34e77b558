"""The scorer's rulings (hostd.hand.score_rulings): listed with the answers they bear on,
and in docs/HANDS.md's table."""
from hostd.hand.score import score
from hostd.hand.score_rulings import RULINGS

S = {"seat_wind": "south"}


def ids(r):
    return [x["id"] for x in r["rulings"]]


def test_hands_md_gives_every_ruling():
    from tests.unit.hands_md import code, rows

    assert [code(r[0]) for r in rows("Scoring rulings")] == list(RULINGS)


def test_a_plain_hand_bears_none():
    assert ids(score("234m567p22345678s", win="8s", riichi=True, **S)) == []


def test_each_is_listed_where_it_bore():
    assert ids(score("234m567p22345678s", win="8s", ura="1m", **S)) == ["ura-needs-riichi"]
    assert ids(score("234m567p22340678s", win="8s", riichi=True, **S)) == ["red-fives-anywhere"]
    assert ids(score("234m567p22345678s", win="8s", riichi=True, renhou=False, **S)) == []
    assert ids(score("234m567p11z345678s", win="1z", riichi=True, seat_wind="east")) == [
        "double-wind-pair"]
    r = score("234m567p22345678s", win="8s", renhou=True, **S)
    assert ids(r) == ["renhou-five-han"] and r["han"] == 7
    r = score("555555z666z77z", win="7z", calls=["pon:111p"], mixed_deck=True, **S)
    assert ids(r) == ["yakuhai-each-set", "copy-yaku-open"]
    r = score("111111m2233p4455s", win="5s", ruleset="speed-tonpuu", mixed_deck=True, **S)
    assert ids(r) == ["kansai-many-copies"]
    assert {y["id"] for y in r["yaku"]} == {"chiitoitsu", "kansai_one_quad", "copies_5_7"}
