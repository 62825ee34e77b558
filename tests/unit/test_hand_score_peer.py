"""The scorer against the ``mahjong`` library's HandCalculator (2.1.0, pinned in the dev
extra) on a fixed seeded set of random won hands with at most 4 copies of a face, the
base ruleset's options set alike in both (open tanyao, red fives as dora, no kiriage,
counted yakuman, double yakuman): han, fu and points agree on every hand."""
import random

import pytest

from hostd.hand.score import score
from tests.unit.score_samples import (our_score, ours_args, peer_from_strings, peer_score,
                                      peer_strings, won_hands)

HANDS = 2500


@pytest.fixture(scope="module")
def hands():
    return won_hands(random.Random(41), HANDS)


def test_the_set_covers_what_the_issue_names(hands):
    def share(pred):
        return sum(1 for s in hands if pred(s)) / len(hands)

    assert share(lambda s: not s["calls"]) > 0.3 and share(lambda s: s["calls"]) > 0.3
    assert 0.4 < share(lambda s: s["tsumo"]) < 0.6
    assert share(lambda s: s.get("riichi")) > 0.15 and share(lambda s: s.get("ippatsu")) > 0.03
    assert share(lambda s: any("kan" in k for k, _ in s["calls"])) > 0.15
    assert share(lambda s: s["red"]) > 0.2 and share(lambda s: s["seat"] == 0) > 0.2
    assert share(lambda s: any(s.get(f) for f in ("haitei", "houtei", "rinshan",
                                                   "chankan"))) > 0.03


def test_han_fu_and_points_agree_with_mahjong(hands):
    bad, kinds = [], {"no yaku": 0, "yakuman": 0, "limit": 0, "below": 0}
    for s in hands:
        ours, peer = our_score(s, score), peer_score(s)
        if ours != peer:
            bad.append((ours_args(s), ours, peer))
        han = peer[0]
        kinds["no yaku" if not han else "yakuman" if han >= 13 and peer[2] >= 32000
              else "limit" if peer[2] >= 8000 else "below"] += 1
    assert bad == [], "%d of %d disagree, first: %r" % (len(bad), len(hands), bad[:3])
    assert min(kinds.values()) > 50, kinds  # every kind of answer was checked


def test_the_benchs_way_to_the_peer_scores_alike(hands):
    """bench/hand_bench.py times the peer from its per-suit strings (its converters,
    Meld and HandConfig inside the timing): the same answers as from 136-tile ids."""
    for s in hands[:500]:
        r = peer_from_strings(peer_strings(s))
        got = (0, None, 0) if r.error == "no_yaku" else (r.han, r.fu, r.cost["total"])
        assert got == peer_score(s)[:3], ours_args(s)
