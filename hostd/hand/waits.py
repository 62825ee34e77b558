"""Waits of a 3n+1 closed hand and their types (docs/HANDS.md).

A *shape wait* is a face that completes the hand's shape; a *wait* is a shape wait
whose tile can exist: the hand, with its calls, holds fewer than ``limit`` copies of it
(4, or 8 with Mixed Deck), so winning on it is not a 5th (9th) copy. A wait's types come
only from the final block, the one the winning tile completes (seed 000):
``2p3p4p4p4p4p4p4p4p4p`` waits on 1p, ryanmen, though its other side (4p) would be a 9th
copy.

    completing(counts) -> dict[int, tuple]   # face -> how it completes (for wait_types)
    wait_types(counts, face, how) -> tuple[str, ...]
    shape_waits(counts) -> dict[int, tuple[str, ...]]   # every face -> its wait types

Only the suit the winning tile joins is searched face by face: the other suits must be
runs and triplets (and one of them the pair), which the suits' sums mod 3 tell first.
"""
from __future__ import annotations

from hostd.hand.shapes import ORPHANS
from hostd.hand.suits import SUIT_OF, SUITS, readings, sets_and_pair, sets_only

#: Wait types, in the order they are listed.
WAIT_TYPES = ("ryanmen", "kanchan", "penchan", "shanpon", "tanki")
#: How a face completes a hand: its suit as sets and the pair, or as sets only (the pair
#: elsewhere); seven pairs; thirteen orphans.
WITH_PAIR, SETS_ONLY, PAIRS, ORPHANS_HOW = "pair", "sets", "seven pairs", "orphans"


def _suit_candidates(c, suit) -> list[int]:
    """Faces of the suit a winning tile could be: held faces and (numbered suits) their
    neighbours within two ranks."""
    start, end, runs = suit
    if not runs:
        return [k for k in range(start, end) if c[k]]
    out = []
    for k in range(start, end):
        if c[k] or (k - 1 >= start and c[k - 1]) or (k - 2 >= start and c[k - 2]) or \
                (k + 1 < end and c[k + 1]) or (k + 2 < end and c[k + 2]):
            out.append(k)
    return out


def _standard(c, found) -> None:
    """Faces completing sets and a pair: the suit sums mod 3 must be (1, 0, 0, 0), the tile
    joining the 1 (which gets the pair), or (2, 2, 0, 0), the tile joining either 2."""
    rems = [sum(c[s:e]) % 3 for s, e, _ in SUITS]
    ones = [k for k in range(4) if rems[k] == 1]
    twos = [k for k in range(4) if rems[k] == 2]
    if len(ones) == 1 and not twos:
        targets = [(ones[0], None)]
    elif len(twos) == 2 and not ones:
        targets = [(twos[0], twos[1]), (twos[1], twos[0])]
    else:
        return
    for k in range(4):
        if rems[k] == 0 and not sets_only(c, SUITS[k]):
            return
    for k, other in targets:
        if other is not None and not sets_and_pair(c, SUITS[other]):
            continue
        suit, test = SUITS[k], (sets_and_pair if other is None else sets_only)
        for f in _suit_candidates(c, suit):
            c[f] += 1
            if test(c, suit):
                found[f] = (WITH_PAIR if other is None else SETS_ONLY,)
            c[f] -= 1


def _seven_pairs(c, found) -> None:
    """13 tiles: six distinct pairs and a single; the single's face completes."""
    if c.count(2) == 6 and c.count(1) == 1:
        f = c.index(1)
        found[f] = found.get(f, ()) + (PAIRS,)


def _thirteen_orphans(c, found) -> None:
    held = [c[i] for i in ORPHANS]
    if sum(held) != 13:
        return
    if held.count(1) == 13:
        faces = ORPHANS
    elif held.count(1) == 11 and held.count(2) == 1:
        faces = (ORPHANS[held.index(0)],)
    else:
        return
    for f in faces:
        found[f] = found.get(f, ()) + (ORPHANS_HOW,)


def completing(counts) -> dict[int, tuple]:
    """Every face that completes the shape (copies not checked) -> how (a tuple of
    :data:`WITH_PAIR`, :data:`SETS_ONLY`, :data:`PAIRS`, :data:`ORPHANS_HOW`), in face
    order."""
    c = list(counts)
    found: dict[int, tuple] = {}
    _standard(c, found)
    if sum(c) == 13:
        _seven_pairs(c, found)
        _thirteen_orphans(c, found)
    return dict(sorted(found.items())) if len(found) > 1 else found


def _run_type(start: int, face: int) -> str:
    pos, rank = face - start, start % 9 + 1  # rank of the run's first face
    if pos == 1:
        return "kanchan"
    if (pos == 2 and rank == 1) or (pos == 0 and rank == 7):
        return "penchan"
    return "ryanmen"


def _block_types(blocks, face, types) -> None:
    for kind, i in blocks:
        if kind == "pair" and i == face:
            types.add("tanki")
        elif kind == "triplet" and i == face:
            types.add("shanpon")
        elif kind == "run" and i <= face <= i + 2:
            types.add(_run_type(i, face))


def wait_types(counts, face: int, how: tuple) -> tuple[str, ...]:
    """The wait types ``face`` has as the winning tile: one per block that holds it in
    some reading of the completed hand (any of them can be the final block). Only the
    face's suit is read: the blocks of the other suits do not hold it."""
    types: set[str] = set()
    if PAIRS in how or ORPHANS_HOW in how:
        types.add("tanki")
    for h in how:
        if h in (WITH_PAIR, SETS_ONLY):
            c = list(counts)
            c[face] += 1
            for blocks in readings(c, SUIT_OF[face], h == WITH_PAIR):
                _block_types(blocks, face, types)
    return tuple(t for t in WAIT_TYPES if t in types)


def shape_waits(counts) -> dict[int, tuple[str, ...]]:
    """Every face that completes the shape (copies not checked) -> its wait types."""
    return {f: wait_types(counts, f, how) for f, how in completing(counts).items()}
