"""A won hand's readings for scoring (hostd.hand.readings): one per final block."""
from hostd.hand import parse_hand
from hostd.hand.notation import FACES
from hostd.hand.readings import kansai_pairs, readings


def waits(text, win, tsumo=False, **kw):
    return sorted(r.wait for r in readings(parse_hand(text, **kw), FACES.index(win), tsumo))


def test_one_reading_per_block_the_tile_can_complete():
    # 456 666 + the 6: the run's end (ryanmen) or the triplet (shanpon)
    assert waits("123m789s11z456666p", "6p") == ["ryanmen", "shanpon"]
    assert waits("123m789s11z456666p", "4p") == ["ryanmen"]


def test_ron_opens_the_triplet_it_completes_tsumo_does_not():
    hand = parse_hand("123m789s11z456666p")
    ron = [r for r in readings(hand, FACES.index("6p"), False) if r.wait == "shanpon"][0]
    tsumo = [r for r in readings(hand, FACES.index("6p"), True) if r.wait == "shanpon"][0]
    assert ("triplet", FACES.index("6p"), False, False) in ron.sets
    assert ("triplet", FACES.index("6p"), True, False) in tsumo.sets


def test_calls_are_sets_of_their_kind():
    hand = parse_hand("123m11z", calls=["chi:456p", "pon:777s", "ankan:9999m"])
    (r,) = readings(hand, 0, False)
    assert r.sets[1:] == (("run", 12, False, False), ("triplet", 24, False, False),
                          ("triplet", 8, True, True))


def test_kansai_pairs_only_with_a_quad():
    assert kansai_pairs(parse_hand("1111m2233p4455s66z").counts) is not None
    assert kansai_pairs(parse_hand("11m2233p4455s6677z").counts) is None
    eight = parse_hand("11111111m223344p", mixed_deck=True).counts
    assert kansai_pairs(eight) == (0, 0, 0, 0, 10, 11, 12)
