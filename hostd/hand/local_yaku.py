"""Yaku beyond the standard set (docs/HANDS.md "Yaku"): Mixed Deck's copy yaku and
7-and-7 (seed 000), and Speed Tonpuu's local yaku and special tiles (seed 001).

    local_yaku(reading, facts, hand, *, backs, mixed_deck) -> (yaku, yakuman)

Mixed Deck: 5, 6 or 7 copies of a face 1 han (once); 8 copies a yakuman (once); exactly 7
tiles from each set 1 han. Speed Tonpuu, each as its option says: the gold 5p a 1-han
yaku; Kansai chiitoi's quads (1: +1 han, 2: +3, 3: yakuman); sanrenko (three triplets of
consecutive ranks in a suit, 2 han), suurenko (four, yakuman), sanpuuko (three wind
triplets, 2 han), ultimate all-stars (every coloured tile: the three red fives, the gold
5p and the three blue sevens; yakuman), shiisanpuutaa (a first draw of 14 unrelated
tiles, one pair or none; yakuman).
"""
from __future__ import annotations

from hostd.hand.dora import every_tile
from hostd.hand.readings import KANSAI_PAIRS, UNRELATED
from hostd.hand.shapes import SETS
from hostd.hand.yaku import EIGHT_COPIES, MANY_COPIES, SEVEN_EACH

LOCAL = {
    "copies_5_7": (MANY_COPIES, 1), "copies_8": (EIGHT_COPIES, 1),
    "seven_each": (SEVEN_EACH, 1), "gold_five": ("Gold 5p", 1),
    "kansai_one_quad": ("Kansai chiitoi: 1 quad", 1),
    "kansai_two_quads": ("Kansai chiitoi: 2 quads", 3),
    "kansai_three_quads": ("Kansai chiitoi: 3 quads", 1),
    "sanrenko": ("Sanrenko", 2), "sanpuuko": ("Sanpuuko", 2),
    "suurenko": ("Suurenko", 1), "ultimate_all_stars": ("Ultimate all-stars", 1),
    "shiisanpuutaa": ("Shiisanpuutaa", 1),
}
#: The yakuman among them (their value is a count of yakuman, not han).
LOCAL_YAKUMAN = frozenset(("copies_8", "kansai_three_quads", "suurenko",
                           "ultimate_all_stars", "shiisanpuutaa"))
COLOURED = frozenset(("0m", "0p", "0s", "5pg", "7mb", "7pb", "7sb"))


def _mixed_deck(total, backs, out: list) -> None:
    if 8 in total:
        out.append("copies_8")
    elif any(5 <= n <= 7 for n in total):
        out.append("copies_5_7")
    if backs is not None and tuple(backs) == (7, 7):
        out.append("seven_each")


def _consecutive(faces, n: int) -> bool:
    """``n`` triplets of consecutive ranks in one suit among ``faces``."""
    for i in faces:
        if i < 27 and i % 9 <= 9 - n and all(i + k in faces for k in range(n)):
            return True
    return False


def _triplets(reading, local: list, out: list) -> None:
    faces = {i for k, i, _, _ in reading.sets if k == "triplet"}
    if "suurenko" in local and _consecutive(faces, 4):
        out.append("suurenko")
    elif "sanrenko" in local and _consecutive(faces, 3):
        out.append("sanrenko")
    if "sanpuuko" in local and sum(1 for i in faces if 27 <= i <= 30) == 3:
        out.append("sanpuuko")


def _kansai(counts, out: list) -> None:
    quads = sum(n // 4 for n in counts)
    out.append(("kansai_one_quad", "kansai_two_quads", "kansai_three_quads")[min(quads, 3) - 1])


def local_yaku(reading, facts, hand, *, backs=None, mixed_deck=False) -> tuple[list, list]:
    """``([(id, han)], [(id, yakuman count)])`` of the local yaku of this reading."""
    opts, ids = facts.options, []
    if not (mixed_deck or opts["special_tiles"] or opts["local_yaku"] or
            reading.form == KANSAI_PAIRS):
        return ids, ids  # the base ruleset's hand: none of these can be
    if reading.form == UNRELATED:
        return [], [("shiisanpuutaa", 1)]
    if mixed_deck:
        _mixed_deck(facts.total, backs, ids)
    tiles = every_tile(hand) if opts["special_tiles"] or opts["local_yaku"] else ()
    if opts["special_tiles"] and "5pg" in tiles:
        ids.append("gold_five")
    if reading.form == KANSAI_PAIRS:
        _kansai(hand.counts, ids)
    if reading.form == SETS and opts["local_yaku"]:
        _triplets(reading, opts["local_yaku"], ids)
    if "ultimate_all_stars" in opts["local_yaku"] and COLOURED <= set(tiles):
        ids.append("ultimate_all_stars")
    yaku = [(y, LOCAL[y][1]) for y in ids if y not in LOCAL_YAKUMAN]
    return yaku, [(y, 1) for y in ids if y in LOCAL_YAKUMAN]
