"""The scorer against an independent reference (tests/unit/score_reference.py, sharing no
code with hostd.hand) where the ``mahjong`` library cannot go: Mixed Deck hands of 5 to 8
copies of a face, and Speed Tonpuu's special tiles, Kansai chiitoi, local yaku and wildcard
pocchi, shiisanpuutaa. The reference is first checked against ``mahjong`` itself on
ordinary hands."""
import random
from collections import Counter

import pytest

from hostd.hand.score import score
from tests.unit.score_reference import ref_score
from tests.unit.score_samples import (FLAGS, many_copy_hand, ours_args, peer_score,
                                      tonpuu_hand, won_hands, written_args)

N = 400


def _ref(text_tiles, calls, win, s, rules, mixed_deck=False):
    flags = {f: True for f in FLAGS if s.get(f)}
    return ref_score(text_tiles, calls, win, tsumo=s["tsumo"], seat=s["seat"],
                     round=s["round"], flags=flags, dora=s["dora"], ura=s["ura"],
                     rules=rules, mixed_deck=mixed_deck)


def _split(text):
    out, digits = [], ""
    for ch in text:
        if ch.isdigit():
            digits += ch
        else:
            out += [d + ch for d in digits]
            digits = ""
    return out


def ref_of_sample(s, rules="riichi"):
    text, kw = ours_args(s)
    calls = [(k, _split(t)) for k, t in kw["calls"]]
    return _ref(_split(text), calls, kw["win"], s, rules, s.get("mixed_deck", False))


def ours_of(text, kw, seen, **extra):
    """Our (han, fu, points); what the answer held is tallied in ``seen``."""
    r = score(text, **kw, **extra)
    seen.update(y["id"] for y in r["yaku"])
    seen.update(k for k in ("blue", "red") if r["dora"][k])
    seen.update(["wildcard"] if r["wildcard_as"] else [])
    return r["han"], (r["fu"] if r["han"] else None), r["points"]["total"]


def test_the_reference_agrees_with_mahjong_on_ordinary_hands():
    bad = []
    for s in won_hands(random.Random(7), N):
        peer = peer_score(s)
        expected = (peer[0], peer[1], peer[2])
        got = ref_of_sample(s)
        if got != expected:
            bad.append((ours_args(s), got, expected))
    assert bad == [], bad[:3]


@pytest.fixture(scope="module")
def mixed_deck_hands():
    return [many_copy_hand(random.Random(1000 + k)) for k in range(N)]


def test_mixed_deck_hands_of_5_to_8_copies(mixed_deck_hands):
    bad, seen = [], Counter()
    for s in mixed_deck_hands:
        text, kw = ours_args(s)
        ours = ours_of(text, kw, seen, mixed_deck=True)
        ref = ref_of_sample(s)
        if ours != ref:
            bad.append((text, kw, ours, ref))
    assert bad == [], bad[:3]
    assert seen["copies_5_7"] > N // 4 and seen["copies_8"] > N // 10, seen


def test_speed_tonpuu_special_tiles_and_local_yaku():
    bad, special, seen = [], 0, Counter()
    for k in range(N):
        s = tonpuu_hand(random.Random(5000 + k))
        text, kw = written_args(s)
        ours = ours_of(text, kw, seen, ruleset="speed-tonpuu")
        ref = _ref(s["tiles"], s["call_tiles"], s["win_tile"], s, "speed-tonpuu")
        special += any(len(t) == 3 or t[0] == "0" for t in s["tiles"])
        if ours != ref:
            bad.append((text, kw, ours, ref))
    assert bad == [], bad[:3]
    assert special > N // 2
    for what in ("gold_five", "blue", "red", "wildcard", "kansai_one_quad", "kansai_two_quads",
                 "kansai_three_quads", "sanrenko", "suurenko", "sanpuuko", "renhou_yakuman",
                 "shiisanpuutaa"):
        assert seen[what], (what, seen)
