"""Shapes of a closed hand, with up to 8 copies of a face (docs/HANDS.md).

A hand is a list (or tuple) of 34 counts (index of :data:`hostd.hand.notation.FACES`).
Blocks are ``(kind, index)``: ``("run", i)`` is faces i, i+1, i+2; ``("triplet", i)``;
``("pair", i)``; ``("single", i)`` only in thirteen orphans.

    decompositions(counts) -> list[Decomposition]   # every way a 3n+2 hand is complete
    is_complete(counts) -> bool                      # the same question, faster
"""
from __future__ import annotations

from dataclasses import dataclass

from hostd.hand.notation import FACES
from hostd.hand.suits import SUITS, readings, sets_and_pair, sets_only

ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
SETS, SEVEN_PAIRS, THIRTEEN_ORPHANS = "sets", "seven pairs", "thirteen orphans"


def block_text(block: tuple[str, int]) -> str:
    kind, i = block
    face = FACES[i]
    if kind == "run":
        return "%s%s%s%s" % (face[0], FACES[i + 1][0], FACES[i + 2][0], face[1])
    return face[0] * {"triplet": 3, "pair": 2, "single": 1}[kind] + face[1]


#: Every block's text, made once (a table of 34 x 4 names, not a cache of hands).
BLOCK_TEXT = {(kind, i): block_text((kind, i)) for i in range(34)
              for kind in ("pair", "triplet", "single")}
BLOCK_TEXT.update({("run", i): block_text(("run", i)) for i in range(34) if i < 27 and i % 9 < 7})


@dataclass(frozen=True)
class Decomposition:
    """One reading of a complete hand: ``form`` (sets, seven pairs, thirteen orphans)
    and its ``blocks``, in face order."""

    form: str
    blocks: tuple[tuple[str, int], ...]

    def texts(self) -> list[str]:
        return [BLOCK_TEXT[b] for b in self.blocks]


def pair_suit(counts) -> int | None:
    """Which suit must hold the pair (the one with 2 tiles over a multiple of 3), or
    None when the suits' sums rule out sets and one pair."""
    rems = (sum(counts[0:9]) % 3, sum(counts[9:18]) % 3, sum(counts[18:27]) % 3,
            sum(counts[27:34]) % 3)
    if 1 in rems or rems.count(2) != 1:
        return None
    return rems.index(2)


def standard_ok(counts) -> bool:
    """Sets and a pair."""
    k_pair = pair_suit(counts)
    return k_pair is not None and _suits_ok(counts, k_pair)


def _suits_ok(counts, k_pair: int) -> bool:
    """Each suit is runs and triplets, suit ``k_pair`` with the pair too (the honours
    first: they most often rule a hand out, and at once)."""
    c = list(counts)  # a list: sets_and_pair changes its slice of a suit (a copy)
    for k in (3, 0, 1, 2):
        suit = SUITS[k]
        if not (sets_and_pair(c, suit) if k == k_pair else sets_only(c, suit)):
            return False
    return True


def standard(counts) -> list[tuple]:
    """Every sets-and-a-pair reading, as block tuples (m, p, s, honours): the suits are
    tested first (greedy, fast), then read in full."""
    k_pair = pair_suit(counts)
    if k_pair is None or not _suits_ok(counts, k_pair):
        return []
    c = list(counts)
    combos = [()]
    for k, suit in enumerate(SUITS):
        local = readings(c, suit, k == k_pair)
        combos = [a + b for a in combos for b in local] if len(local) > 1 else \
            [a + local[0] for a in combos]
    return combos


def is_seven_pairs(counts) -> bool:
    """Seven pairs: 14 tiles, seven DISTINCT faces twice each (4 copies of a face are not
    two pairs, as in the base rules; the seed is silent: docs/HANDS.md, rulings)."""
    return counts.count(2) == 7 and sum(counts) == 14


def is_thirteen_orphans(counts) -> bool:
    """All 13 terminals and honours, one of them twice, nothing else (14 tiles)."""
    if any(counts[1:8]) or any(counts[10:17]) or any(counts[19:26]) or sum(counts) != 14:
        return False
    return all(counts[i] for i in ORPHANS)


def is_complete(counts) -> bool:
    return standard_ok(counts) or is_seven_pairs(counts) or is_thirteen_orphans(counts)


def forms(counts) -> list[tuple[str, tuple]]:
    """Every reading of a complete hand as ``(form, blocks)``: sets and a pair (each
    multiset of blocks once), then seven pairs, then thirteen orphans. Empty if the
    hand is not complete."""
    out = [(SETS, blocks) for blocks in standard(counts)]
    if is_seven_pairs(counts):
        out.append((SEVEN_PAIRS, tuple(("pair", i) for i, c in enumerate(counts) if c == 2)))
    elif not out and is_thirteen_orphans(counts):  # never sets, never seven pairs
        out.append((THIRTEEN_ORPHANS, tuple(
            ("pair" if counts[i] == 2 else "single", i) for i in ORPHANS)))
    return out


def decompositions(counts) -> list[Decomposition]:
    """:func:`forms` as :class:`Decomposition`."""
    return [Decomposition(form, blocks) for form, blocks in forms(counts)]
