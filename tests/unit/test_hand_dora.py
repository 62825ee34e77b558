"""Dora (hostd.hand.dora): the indicators' next faces, every tile counted."""
import pytest

from hostd.hand import HandError, parse_hand
from hostd.hand.dora import dora_counts, indicated, next_face
from hostd.hand.notation import FACES
from hostd.hand.scoring_rules import options_for


@pytest.mark.parametrize("indicator, dora", [
    ("1m", "2m"), ("9m", "1m"), ("9s", "1s"), ("4z", "1z"), ("1z", "2z"), ("7z", "5z"),
    ("5z", "6z"), ("0p", "6p"), ("7sb", "8s"),
])
def test_next_face(indicator, dora):
    assert [FACES[f] for f in indicated(indicator)] == [dora]
    assert next_face(FACES.index(indicator if len(indicator) == 2 and indicator[0] != "0"
                                 else {"0p": "5p", "7sb": "7s"}[indicator])) == FACES.index(dora)


def test_none_and_too_many():
    assert indicated("") == [] and indicated(None) == []
    with pytest.raises(HandError, match="dora indicators: 6 given, at most 5"):
        indicated("123456m")


def test_every_tile_counts_kans_too_and_ura_only_in_riichi():
    hand = parse_hand("123m406p789s11z", calls=["kan:0555p"], mixed_deck=True)
    opts = options_for("riichi")
    d = dora_counts(hand, indicated("4p4p"), indicated("4p"), riichi=False, options=opts)
    assert d == {"dora": 10, "ura": 0, "red": 2, "blue": 0}  # 5 copies, 2 indicators
    d = dora_counts(hand, [], indicated("4p"), riichi=True, options=dict(opts, red_fives=False))
    assert d == {"dora": 0, "ura": 5, "red": 0, "blue": 0}


def test_eight_copies_are_eight_dora():
    hand = parse_hand("22222222p333s456s", mixed_deck=True)
    assert dora_counts(hand, indicated("1p"), [], riichi=False,
                       options=options_for("riichi"))["dora"] == 8
