"""Rulings where seed 000 is silent (docs/HANDS.md "Rulings"), and which of them bear
on a hand: the answer lists those (``rulings``), so a club sees which reading it got.

    applicable(hand, complete, mixed_deck, backs, shapes, waits) -> list[dict]
"""
from __future__ import annotations

RULINGS = {
    "copy-yaku-once": "5-7 copies of two or more faces: the 1-han yaku counts once (the seed "
                      "names one yaku, not one per face)",
    "yakuman-stands-alone": "8 copies of a face with another of Mixed Deck's yaku (5-7 copies "
                            "of another face, 7 tiles from each set): the yakuman alone is "
                            "listed, as 1-han yaku never add to a yakuman",
    "eight-copies-once": "8 copies of two faces (only with kans): one yakuman, not a double",
    "seven-pairs-distinct": "seven pairs are seven different faces: 4 copies of a face are not "
                            "two pairs (the base rules), nor 6 three; the seed is silent",
    "seven-each-with-kan": "7 tiles from each set counts every tile, a kan's four too: a hand "
                           "with a kan holds 15-18 tiles, never exactly 7 and 7, so it never "
                           "has this yaku",
    "fifth-copy-one-set": "one set: a face that completes the shape only as a 5th copy (across "
                          "the calls too) is no wait; the hand counts as tenpai (waiting) "
                          "without --completable, not with it",
}


def yaku_rulings(counts, backs=None) -> set[str]:
    """Rulings bearing on Mixed Deck's yaku for a complete hand with these counts."""
    eights = sum(1 for n in counts if n == 8)
    many = sum(1 for n in counts if 5 <= n <= 7)
    out = set()
    if eights >= 2:
        out.add("eight-copies-once")
    if eights and (many or (backs is not None and tuple(backs) == (7, 7))):
        out.add("yakuman-stands-alone")
    if not eights and many >= 2:
        out.add("copy-yaku-once")
    return out


def _seven_pairs_bears(closed, n: int) -> bool:
    """A closed hand of 14 (13) tiles that is (would be, with one tile) faces held an even
    number of times, one of them 4 or more."""
    odd_allowed = 0 if n == 14 else 1 if n == 13 else -1
    if odd_allowed < 0:
        return False
    ones = closed.count(1)
    if ones > odd_allowed or max(closed) < 3:
        return False
    # 14 tiles all even, one face 3 or more: 4 or more; 13, one face odd, one face 3 or
    # more: that face is 3 (4 with the tile) or another is 4
    return ones + closed.count(3) + closed.count(5) + closed.count(7) == odd_allowed


def applicable(hand, complete: bool, mixed_deck: bool, backs, shapes, waits) -> list[dict]:
    """The rulings that bear on this hand's answer, in :data:`RULINGS` order."""
    ids = set()
    if mixed_deck and complete:
        ids |= yaku_rulings(hand.total, backs)
    if mixed_deck:
        for f in waits:
            won = list(hand.total)
            won[f] += 1
            ids |= yaku_rulings(won)
    if _seven_pairs_bears(hand.counts, len(hand.tiles)):
        ids.add("seven-pairs-distinct")
    if backs is not None and hand.calls and any(c.is_kan for c in hand.calls):
        ids.add("seven-each-with-kan")
    if not mixed_deck and len(waits) < len(shapes):
        ids.add("fifth-copy-one-set")
    if not ids:
        return []
    return [{"id": k, "ruling": text} for k, text in RULINGS.items() if k in ids]
