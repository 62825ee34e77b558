"""hostd.hand.waits: the faces that complete a 3n+1 hand and their wait types."""
import random

import pytest

from hostd.hand.notation import FACES, INDEX, parse_hand
from hostd.hand.shapes import is_complete
from hostd.hand.waits import shape_waits


def waits(text):
    return {FACES[i]: list(t) for i, t in shape_waits(parse_hand(text, mixed_deck=True).counts).items()}


@pytest.mark.parametrize("text, expected", [
    ("23m55z", {"1m": ["ryanmen"], "4m": ["ryanmen"]}),
    ("13m55z", {"2m": ["kanchan"]}),
    ("12m55z", {"3m": ["penchan"]}),
    ("89m55z", {"7m": ["penchan"]}),
    ("78s55z", {"6s": ["ryanmen"], "9s": ["ryanmen"]}),
    ("5z", {"5z": ["tanki"]}),
    ("1122p", {"1p": ["shanpon"], "2p": ["shanpon"]}),
    ("1234m", {"1m": ["tanki"], "4m": ["tanki"]}),
    ("1113m", {"2m": ["kanchan"], "3m": ["tanki"]}),
    ("3334m", {"2m": ["ryanmen"], "4m": ["tanki"], "5m": ["ryanmen"]}),
])
def test_wait_types_come_from_the_final_block(text, expected):
    assert waits(text) == expected


def test_a_face_can_have_several_types():
    assert waits("1112m") == {"2m": ["tanki"], "3m": ["penchan"]}
    assert waits("2223m") == {"1m": ["ryanmen"], "3m": ["tanki"], "4m": ["ryanmen"]}
    assert waits("2p3p4p4p4p4p4p4p4p4p")["4p"] == ["ryanmen", "shanpon", "tanki"]
    assert waits("11m22p") == {"1m": ["shanpon"], "2p": ["shanpon"]}


def test_nine_gates_waits_on_every_face_of_its_suit():
    assert list(waits("1112345678999m")) == ["%dm" % r for r in range(1, 10)]


def test_thirteen_orphans_waits():
    assert list(waits("19m19p19s1234567z")) == [FACES[i] for i in
                                                (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)]
    assert waits("19m19p19s1234566z") == {"7z": ["tanki"]}


def test_seven_pairs_tanki():
    assert waits("1122334455667z") == {"7z": ["tanki"]}
    assert waits("1122334455666z") == {}  # a 7th pair needs a face not yet held
    assert waits("1133557799m1133p") == {}  # 14 tiles is not 3n+1: nothing completes


def test_seed_2p3p4p_and_seven_4p_shapes():
    # seed 000: waits on 1p (ryanmen); 4p completes the shape only as a 9th copy
    # (as 234 444 444 44: the 4p can end a run, a triplet or the pair)
    assert waits("2p3p4p4p4p4p4p4p4p4p") == {"1p": ["ryanmen"],
                                             "4p": ["ryanmen", "shanpon", "tanki"]}


def test_shape_waits_are_every_completing_face():
    """The candidate shortcut (neighbours of held faces, orphans) loses nothing: on
    random hands, every face that completes the hand is found, and nothing else."""
    rng = random.Random(1919)
    for _ in range(400):
        n = rng.choice([1, 4, 7, 10, 13])
        c = [0] * 34
        while sum(c) < n:
            i = rng.randrange(34) if rng.random() < 0.3 else rng.choice([0, 1, 2, 3, 4, 5, 27])
            if c[i] < 8:
                c[i] += 1
        found = shape_waits(c)
        for face in range(34):
            c[face] += 1
            assert (face in found) == is_complete(c), (c, FACES[face])
            c[face] -= 1


def test_index_is_mpsz_order():
    assert INDEX["1m"] < INDEX["9m"] < INDEX["1p"] < INDEX["1s"] < INDEX["1z"] < INDEX["7z"]
