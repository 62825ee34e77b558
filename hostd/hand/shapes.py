"""Shapes of a closed hand, with up to 8 copies of a face (docs/HANDS.md).

A hand is a tuple of 34 counts (index of :data:`hostd.hand.notation.FACES`). Blocks are
``(kind, index)``: ``("run", i)`` is faces i, i+1, i+2; ``("triplet", i)``; ``("pair", i)``;
``("single", i)`` only in thirteen orphans.

    decompositions(counts) -> list[Decomposition]   # every way a 3n+2 hand is complete
    is_complete(counts) -> bool                      # the same question, faster
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from hostd.hand.notation import FACES

#: (first index, length, runs allowed) of m, p, s and the honours.
SEGMENTS = ((0, 9, True), (9, 9, True), (18, 9, True), (27, 7, False))
ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
SETS, SEVEN_PAIRS, THIRTEEN_ORPHANS = "sets", "seven pairs", "thirteen orphans"


@dataclass(frozen=True)
class Decomposition:
    """One reading of a complete hand: ``form`` (sets, seven pairs, thirteen orphans)
    and its ``blocks``, in face order."""

    form: str
    blocks: tuple[tuple[str, int], ...]

    def texts(self) -> list[str]:
        return [block_text(b) for b in self.blocks]


def block_text(block: tuple[str, int]) -> str:
    kind, i = block
    face = FACES[i]
    if kind == "run":
        return "%s%s%s%s" % (face[0], FACES[i + 1][0], FACES[i + 2][0], face[1])
    return face[0] * {"triplet": 3, "pair": 2, "single": 1}[kind] + face[1]


@lru_cache(maxsize=1 << 16)
def _segment(seg: tuple[int, ...], runs: bool, pair: bool) -> tuple[tuple, ...]:
    """Every multiset of blocks (sets, plus exactly one pair if ``pair``) that uses up
    ``seg``; local indices. The lowest face left decides: some pairs/triplets/runs all
    start there, so each multiset comes out once."""
    i = next((k for k, c in enumerate(seg) if c), None)
    if i is None:
        return () if pair else ((),)
    c, out = seg[i], []
    for p in ((0, 1) if pair else (0,)):
        for t in range((c - 2 * p) // 3 + 1):
            u = c - 2 * p - 3 * t
            if u < 0 or (u and not (runs and i + 2 < len(seg) and seg[i + 1] >= u
                                    and seg[i + 2] >= u)):
                continue
            rest = list(seg)
            rest[i] = 0
            if u:
                rest[i + 1] -= u
                rest[i + 2] -= u
            head = (("pair", i),) * p + (("triplet", i),) * t + (("run", i),) * u
            out.extend(head + tail for tail in _segment(tuple(rest), runs, pair and not p))
    return tuple(out)


def _pair_segment(counts) -> int | None:
    """Which segment must hold the pair (the one with 2 tiles over a multiple of 3), or
    None when the segment sums rule out sets and one pair."""
    which = None
    for k, (start, n, _) in enumerate(SEGMENTS):
        r = sum(counts[start:start + n]) % 3
        if r == 1 or (r == 2 and which is not None):
            return None
        if r == 2:
            which = k
    return which


def _standard(counts) -> list[tuple]:
    k_pair = _pair_segment(counts)
    if k_pair is None:
        return []
    combos: list[tuple] = [()]
    for k, (start, n, runs) in enumerate(SEGMENTS):
        local = _segment(tuple(counts[start:start + n]), runs, k == k_pair)
        if not local:
            return []
        combos = [c + tuple((kind, start + i) for kind, i in blocks)
                  for c in combos for blocks in local]
    return combos


def _standard_ok(counts) -> bool:
    k_pair = _pair_segment(counts)
    if k_pair is None:
        return False
    return all(_segment(tuple(counts[s:s + n]), runs, k == k_pair)
               for k, (s, n, runs) in enumerate(SEGMENTS))


def is_seven_pairs(counts) -> bool:
    """Seven pairs: 14 tiles, seven DISTINCT faces twice each (4 copies of a face are not
    two pairs, as in the base rules; the seed is silent)."""
    return sum(1 for c in counts if c == 2) == 7 and sum(counts) == 14


def is_thirteen_orphans(counts) -> bool:
    """All 13 terminals and honours, one of them twice, nothing else (14 tiles)."""
    return sum(counts) == 14 and all(counts[i] for i in ORPHANS) and \
        sum(counts[i] for i in ORPHANS) == 14


def is_complete(counts) -> bool:
    return _standard_ok(counts) or is_seven_pairs(counts) or is_thirteen_orphans(counts)


def decompositions(counts) -> list[Decomposition]:
    """Every reading of a complete hand: sets and a pair (each multiset of blocks once),
    then seven pairs, then thirteen orphans. Empty if the hand is not complete."""
    out = [Decomposition(SETS, blocks) for blocks in _standard(counts)]
    if is_seven_pairs(counts):
        out.append(Decomposition(SEVEN_PAIRS, tuple(("pair", i) for i, c in enumerate(counts)
                                                     if c == 2)))
    if is_thirteen_orphans(counts):
        out.append(Decomposition(THIRTEEN_ORPHANS, tuple(
            ("pair" if counts[i] == 2 else "single", i) for i in ORPHANS)))
    return out
