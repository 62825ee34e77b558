"""hostd.hand.yaku: Mixed Deck's yaku (seed 000, "New Yaku")."""
import pytest

from hostd.hand.notation import parse_hand
from hostd.hand.yaku import EIGHT_COPIES, MANY_COPIES, SEVEN_EACH, mixed_deck_yaku


def yaku(text, backs=None):
    return mixed_deck_yaku(parse_hand(text, mixed_deck=True).counts, backs)


@pytest.mark.parametrize("text, expected", [
    ("11123m456p789s11z", []),                                 # 4 copies at most: none
    ("22222p333s456s789m", [{"name": MANY_COPIES, "han": 1}]),  # 5
    ("222222p33s456s789m", [{"name": MANY_COPIES, "han": 1}]),  # 6
    ("2222222p34p456s11z", [{"name": MANY_COPIES, "han": 1}]),  # 7: 222 222 234 ...
    ("22222222p333s456s", [{"name": EIGHT_COPIES, "yakuman": True}]),
])
def test_copies_of_one_face(text, expected):
    assert yaku(text) == expected


def test_two_faces_with_five_copies_is_still_one_han():
    assert yaku("11111m22222m345p") == [{"name": MANY_COPIES, "han": 1}]


def test_red_fives_are_copies_of_five():
    assert yaku("5550m0m123p456s999s") == [{"name": MANY_COPIES, "han": 1}]
    assert yaku("0555m67m456s999s11z") == []  # 4 copies, one of them red


def test_seven_tiles_from_each_set():
    assert yaku("123m456p789s11z222z", backs=(7, 7)) == [{"name": SEVEN_EACH, "han": 1}]
    assert yaku("123m456p789s11z222z", backs=(8, 6)) == []
    assert yaku("123m456p789s11z222z") == []
    assert yaku("22222p333s456s789m", backs=(7, 7)) == [{"name": MANY_COPIES, "han": 1},
                                                        {"name": SEVEN_EACH, "han": 1}]


def test_yakuman_stands_alone():
    assert yaku("22222222p333s456s", backs=(7, 7)) == [{"name": EIGHT_COPIES, "yakuman": True}]
