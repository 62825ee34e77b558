"""Rulings the scorer takes where the seeds (and the base rules) leave a question open
(docs/HANDS.md "Scoring rulings"); each scored answer lists those that bore on it.

    applicable(facts, best, *, scored, ura_given, hand, mixed_deck, ruleset) -> list[dict]
"""
from __future__ import annotations

RULINGS = {
    "best-reading": "the hand reads more than one way (decomposition and the block the "
                    "winning tile completed): the reading that pays most is taken; on equal "
                    "points the most han, then the most fu",
    "no-yaku": "a hand without a yaku does not win: dora, red fives and blue sevens add han "
               "only to a hand that has a yaku",
    "ura-needs-riichi": "ura dora indicators are counted only for a hand in riichi: here "
                        "they were given without it and count nothing",
    "red-fives-anywhere": "red fives count 1 han of dora wherever a hand holds them, though "
                          "the base ruleset's sets have none (docs/RULESETS.md); the "
                          "red_fives option turns them off",
    "yakuhai-each-set": "with Mixed Deck, two triplets of one value face (a dragon, the seat "
                        "or a round wind) are two sets: each is a yakuhai",
    "copy-yaku-open": "Mixed Deck's 1-han yaku (5-7 copies of a face, 7 tiles from each set) "
                      "count in an open hand too: seed 000 does not make them closed only",
    "copy-yakuman-stacks": "8 copies of a face is a yakuman that stacks with the hand's other "
                           "yakuman, as the ruleset stacks yakuman",
    "little-three-missing-face": "with Mixed Deck a pair may be a 4th-8th copy of a "
                                 "triplet's face (seed 000 lines 15-16): shousangen and "
                                 "shousuushii need the pair to be the face no triplet has "
                                 "(the third dragon, the fourth wind), so a pair of a "
                                 "triplet's face makes neither",
    "kansai-many-copies": "Kansai chiitoi with Mixed Deck: a quad is two of the same pair, so "
                          "6 copies of a face are a quad and a pair, 8 copies two quads",
    "blue-sevens-as-dora": "a blue seven's +1 han counts as dora does (it makes no win on its "
                           "own); the gold 5p, which the seed calls a yaku, does",
    "chips-any-hand": "Speed Tonpuu's chips for coloured tiles count in an open hand too "
                      "(seed 001 does not limit them)",
    "renhou-five-han": "renhou (without the renhou_yakuman option) is 5 han, as the mahjong "
                       "library counts it",
    "pocchi-wildcard": "a wildcard pocchi (seed 001: the 5z or 7z pocchi drawn in riichi, the "
                       "6z pocchi drawn to an open hand) is the winning tile by tsumo and plays "
                       "as the face that scores best, up to the copy limit",
    "shiisanpuutaa-first-draw": "shiisanpuutaa is a first-draw win (seed 001 lists it as a "
                                "yakuman): it is scored when tenhou or chiihou marks the first "
                                "draw, the hand then being 14 unrelated tiles, not complete, so "
                                "neither tenhou nor chiihou counts beside it",
    "double-wind-pair": "a pair of a wind that is both the seat and a round wind is 4 fu",
}


def _mixed_deck_ids(facts, best, hand, ids: set) -> None:
    """The rulings only a hand of more than 4 copies (Mixed Deck) can need."""
    reading = best["reading"]
    named = {y for y, _ in best["yaku_ids"]} | {y for y, _ in best["yakuman_ids"]}
    trips = [i for i, _, _ in reading.trips if i in facts.valued]
    if len(trips) != len(set(trips)) and not best["yakuman"]:
        ids.add("yakuhai-each-set")
    if not facts.closed and named & {"copies_5_7", "seven_each"}:
        ids.add("copy-yaku-open")
    if "copies_8" in named and len(best["yakuman_ids"]) > 1:
        ids.add("copy-yakuman-stacks")
    faces = {i for i, _, _ in reading.trips}
    for group in ((31, 32, 33), (27, 28, 29, 30)):
        if reading.pair in group and reading.pair in faces and \
                sum(1 for i in group if i in faces) == len(group) - 1:
            ids.add("little-three-missing-face")
    if reading.form == "seven pairs with quads" and max(hand.counts) > 4:
        ids.add("kansai-many-copies")


def _ids(facts, best, *, scored: int, ura_given: bool, hand, mixed_deck: bool,
         ruleset: str) -> set:
    ids, opts, dora, win = set(), facts.options, best["dora"], facts.win
    if scored > 1:
        ids.add("best-reading")
    if not best["han"]:
        ids.add("no-yaku")
    if ura_given and not win.in_riichi:
        ids.add("ura-needs-riichi")
    if dora["red"] and ruleset == "riichi":
        ids.add("red-fives-anywhere")
    if mixed_deck:
        _mixed_deck_ids(facts, best, hand, ids)
    if dora["blue"]:
        ids.add("blue-sevens-as-dora")
    if opts["chips"] and not facts.closed and best["chips"]["items"]:
        ids.add("chips-any-hand")
    if win.renhou and not opts["renhou_yakuman"] and best["han"] and not best["yakuman"]:
        ids.add("renhou-five-han")
    if best.get("wildcard"):
        ids.add("pocchi-wildcard")
    if best["reading"].form == "thirteen unrelated tiles":
        ids.add("shiisanpuutaa-first-draw")
    pair = best["reading"].pair
    if pair is not None and 27 <= pair <= 30 and facts.valued.count(pair) > 1:
        ids.add("double-wind-pair")
    return ids


def applicable(facts, best, **kw) -> list[dict]:
    ids = _ids(facts, best, **kw)
    if not ids:
        return []
    return [{"id": k, "ruling": text} for k, text in RULINGS.items() if k in ids]
