"""Waits of a 3n+1 closed hand and their types (docs/HANDS.md).

A *shape wait* is a face that completes the hand's shape; a *wait* is a shape wait
whose tile can exist: the hand holds fewer than ``limit`` copies of it (4, or 8 with
Mixed Deck), so winning on it is not a 5th (9th) copy. A wait's types come only from the
final block, the one the winning tile completes (seed 000): ``2p3p4p4p4p4p4p4p4p4p``
waits on 1p, ryanmen, though its other side (4p) would be a 9th copy.

    shape_waits(counts) -> dict[int, tuple[str, ...]]   # face index -> wait types
"""
from __future__ import annotations

from hostd.hand.shapes import ORPHANS, SEGMENTS, SETS, Decomposition, decompositions, is_complete

#: Wait types, in the order they are listed.
WAIT_TYPES = ("ryanmen", "kanchan", "penchan", "shanpon", "tanki")


def _candidates(counts) -> list[int]:
    """Faces that could complete the hand: held faces and their neighbours within two
    ranks of the same suit; every terminal and honour for thirteen orphans."""
    out = set()
    for start, n, runs in SEGMENTS:
        for k in range(n):
            if counts[start + k]:
                out.update(start + j for j in range(max(0, k - 2), min(n, k + 3))
                           if runs or j == k)
    if sum(counts) == 13 and all(i in ORPHANS for i in range(34) if counts[i]):
        out.update(ORPHANS)
    return sorted(out)


def _run_type(start: int, face: int) -> str:
    pos, rank = face - start, start % 9 + 1  # rank of the run's first face
    if pos == 1:
        return "kanchan"
    if (pos == 2 and rank == 1) or (pos == 0 and rank == 7):
        return "penchan"
    return "ryanmen"


def block_types(d: Decomposition, face: int) -> set[str]:
    """The wait types ``face`` has as the winning tile of ``d``: one per block holding
    it (any of them can be the final block)."""
    if d.form != SETS:  # seven pairs and thirteen orphans: a single tile waits
        return {"tanki"}
    out = set()
    for kind, i in d.blocks:
        if kind == "pair" and i == face:
            out.add("tanki")
        elif kind == "triplet" and i == face:
            out.add("shanpon")
        elif kind == "run" and i <= face <= i + 2:
            out.add(_run_type(i, face))
    return out


def shape_waits(counts) -> dict[int, tuple[str, ...]]:
    """Every face that completes the shape (copies not checked) -> its wait types."""
    waits = {}
    work = list(counts)
    for face in _candidates(counts):
        work[face] += 1
        if is_complete(work):
            types = set()
            for d in decompositions(work):
                types |= block_types(d, face)
            waits[face] = tuple(t for t in WAIT_TYPES if t in types)
        work[face] -= 1
    return waits
