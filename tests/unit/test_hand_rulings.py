"""The rulings where seed 000 is silent (hostd.hand.rulings, docs/HANDS.md "Rulings"):
what each decides, and that the answer names exactly the ones that bear on the hand."""
import pytest

from hostd.hand import analyse
from hostd.hand.rulings import RULINGS

COPIES = {"name": "5-7 copies of one face", "han": 1}
EIGHT = {"name": "8 copies of one face", "yakuman": True}
SEVEN_EACH = {"name": "7 tiles from each set", "han": 1}


def ids(r):
    return [x["id"] for x in r["rulings"]]


def md(text, **kw):
    return analyse(text, mixed_deck=True, completable=True, **kw)


def test_every_ruling_has_its_words():
    assert list(RULINGS) == ["copy-yaku-once", "yakuman-stands-alone", "eight-copies-once",
                             "seven-pairs-distinct", "seven-each-with-kan",
                             "fifth-copy-one-set"]
    r = md("11111m22222m33m55p")
    assert r["rulings"] == [{"id": "copy-yaku-once", "ruling": RULINGS["copy-yaku-once"]}]


def test_two_faces_with_5_to_7_copies_give_the_1_han_yaku_once():
    r = md("11111m22222m33m55p")  # 111m 123m 123m 222m 55p
    assert r["complete"] and r["mixed_deck_yaku"] == [COPIES] and ids(r) == ["copy-yaku-once"]
    r = md("11111m2233m456s55z")  # one face 5 times: nothing to rule
    assert r["complete"] and r["mixed_deck_yaku"] == [COPIES] and ids(r) == []
    # either win holds 5m 5-6 times and 6p 6 times (two pons)
    r = md("55555m11z", calls=["pon:666p", "pon:666p"])
    assert r["waits"] == ["5m", "1z"]
    assert r["wait_yaku"] == {"5m": [COPIES], "1z": [COPIES]} and ids(r) == ["copy-yaku-once"]


def test_the_yakuman_stands_alone():
    r = md("22222222p333s456s", backs=(7, 7))
    assert r["mixed_deck_yaku"] == [EIGHT] and ids(r) == ["yakuman-stands-alone"]
    r = md("22222222p", calls=["pon:555s", "kan:5555s"])  # 8 2p, 7 5s
    assert r["complete"] and r["tile_count"] == 15
    assert r["mixed_deck_yaku"] == [EIGHT] and ids(r) == ["yakuman-stands-alone"]
    assert ids(md("22222222p333s456s")) == []  # nothing else to stand alone from


def test_eight_copies_of_two_faces_are_one_yakuman():
    r = md("11p", calls=["kan:2222p", "ankan:2222p", "kan:3333p", "ankan:3333p"])
    assert r["tile_count"] == 18 and r["complete"] is True
    assert r["mixed_deck_yaku"] == [EIGHT] and ids(r) == ["eight-copies-once"]
    r = md("1p", calls=["kan:2222p", "ankan:2222p", "kan:3333p", "ankan:3333p"])
    assert r["wait_yaku"] == {"1p": [EIGHT]} and ids(r) == ["eight-copies-once"]


@pytest.mark.parametrize("text, bears", [
    ("11112233445566z", True),      # 1z four times: not two pairs
    ("11111122334455m", True),      # six 1m: not three pairs (Mixed Deck)
    ("1111223344556z", True),       # 13 tiles: the 6z would make pairs-like, with 1z x4
    ("1112233445566z", True),       # 13: the 4th 1z would
    ("11223344556677z", False),     # seven distinct pairs: complete, nothing to rule
    ("112233445566z7z", False),
])
def test_four_identical_tiles_are_not_two_pairs(text, bears):
    r = md(text)
    assert ("seven-pairs-distinct" in ids(r)) is bears
    if bears and len(r["tiles"]) == 14:
        assert all(d["form"] != "seven pairs" for d in r["decompositions"])
    if bears and len(r["tiles"]) == 13:
        assert r["waits"] == [] and r["tenpai"] is False


def test_seven_and_seven_with_a_kan_is_never_the_yaku():
    calls = ["chi:123m", "chi:456m", "chi:789m"]
    assert md("11z", calls=["pon:555p"] + calls, backs=(7, 7))["mixed_deck_yaku"] == [SEVEN_EACH]
    r = md("11z", calls=["kan:5555p"] + calls, backs=(8, 7))
    assert r["complete"] and r["mixed_deck_yaku"] == [] and ids(r) == ["seven-each-with-kan"]
    assert ids(md("11z", calls=["kan:5555p"] + calls)) == []  # no backs: no question


def test_a_wait_on_a_5th_copy_in_one_set():
    r = analyse("1111m123p456p789p", completable=True)
    assert r["tenpai"] is False and ids(r) == ["fifth-copy-one-set"]
    assert ids(analyse("1111m123p456p789p", mixed_deck=True)) == []
    assert ids(analyse("123m123p456p789p1z")) == []
