"""hostd.hand.shapes: every decomposition of a complete closed hand, up to 8 copies."""
import random

from hostd.hand.notation import FACES, parse_hand
from hostd.hand.shapes import (SETS, SEVEN_PAIRS, THIRTEEN_ORPHANS, decompositions,
                               is_complete)


def counts(text):
    return parse_hand(text, mixed_deck=True).counts


def readings(text):
    return sorted((d.form, tuple(sorted(d.texts()))) for d in decompositions(counts(text)))


def test_every_decomposition_once():
    assert readings("11112222333344p") == sorted([
        (SETS, ("123p", "123p", "123p", "123p", "44p")),
        (SETS, ("111p", "123p", "222p", "333p", "44p")),
        (SETS, ("11p", "123p", "123p", "234p", "234p")),
    ])
    assert readings("11122233388899m") == sorted([
        (SETS, ("111m", "222m", "333m", "888m", "99m")),
        (SETS, ("123m", "123m", "123m", "888m", "99m")),
    ])


def test_eight_copies_of_a_face():
    assert readings("22222222p333s456s") == [
        (SETS, ("222p", "222p", "22p", "333s", "456s"))]
    assert readings("22222222p") == [(SETS, ("222p", "222p", "22p"))]
    # 8 copies in runs or in triplets and the pair: both readings, nothing else
    assert readings("22222222334455p") == sorted([
        (SETS, ("222p", "222p", "234p", "234p", "55p")),
        (SETS, ("222p", "222p", "22p", "345p", "345p"))])
    assert not is_complete(counts("12222222234p"))


def test_seven_pairs_need_seven_distinct_faces():
    assert readings("11223344556677z") == [(SEVEN_PAIRS, ("11z", "22z", "33z", "44z",
                                                         "55z", "66z", "77z"))]
    assert not is_complete(counts("11112233445566z"))  # 1z four times is not two pairs
    assert not is_complete(counts("1111223344556m1z"))


def test_seven_pairs_and_sets_both_listed():
    forms = [f for f, _ in readings("112233m445566p77z")]
    assert sorted(forms) == [SETS, SEVEN_PAIRS]


def test_thirteen_orphans():
    assert readings("19m19p19s12345677z") == [(THIRTEEN_ORPHANS, (
        "1m", "1p", "1s", "1z", "2z", "3z", "4z", "5z", "6z", "77z", "9m", "9p", "9s"))]
    assert not is_complete(counts("19m19p19s1234567z2m"))


def test_no_runs_in_honours_or_across_suits():
    assert not is_complete(counts("123z55m"))
    assert not is_complete(counts("89m1p55m"))
    assert not is_complete(counts("9m12p55m"))
    assert is_complete(counts("789m55m"))


def test_partial_closed_hands():
    assert is_complete(counts("55m")) and not is_complete(counts("56m"))
    assert readings("11122m") == [(SETS, ("111m", "22m"))]
    assert not is_complete(counts("11112m"))


def test_random_complete_hands_decompose_into_their_own_tiles():
    rng = random.Random(19)
    for _ in range(300):
        c = [0] * 34
        blocks = []
        while len(blocks) < 4:
            i = rng.randrange(34)
            if rng.random() < 0.5 and i < 27 and i % 9 <= 6:
                new = [i, i + 1, i + 2]
            else:
                new = [i, i, i]
            if all(c[j] + new.count(j) <= 8 for j in new):
                for j in new:
                    c[j] += 1
                blocks.append(new)
        p = rng.choice([i for i in range(34) if c[i] <= 6])
        c[p] += 2
        ds = decompositions(c)
        assert ds, [FACES[i] for i in range(34) for _ in range(c[i])]
        for d in ds:
            back = [0] * 34
            for kind, i in d.blocks:
                for j in ((i, i + 1, i + 2) if kind == "run" else
                          (i,) * {"pair": 2, "triplet": 3, "single": 1}[kind]):
                    back[j] += 1
            assert back == c
        assert len({tuple(sorted(d.blocks)) for d in ds}) == len(ds)  # no reading twice
