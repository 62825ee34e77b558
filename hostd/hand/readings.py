"""A won hand's readings for scoring (docs/HANDS.md "Scoring"): each decomposition of
the closed tiles, with the calls, once for each block the winning tile can complete (the
wait depends on that final block only, seed 000), so that the best can be taken.

    readings(hand, win_face, tsumo, *, kansai=False, unrelated=False) -> list[Reading]

A set is ``(kind, face, concealed, kan)``: kind ``"run"`` (faces face..face+2) or
``"triplet"`` (a kan is a triplet with ``kan`` true); ``concealed`` is false for a call
and for a triplet completed by a discard (ron on a shanpon wait).
"""
from __future__ import annotations

from typing import NamedTuple

from hostd.hand.shapes import (ORPHANS, SETS, SEVEN_PAIRS, SUITS, THIRTEEN_ORPHANS,
                               is_seven_pairs, is_thirteen_orphans, pair_suit)
from hostd.hand.suits import readings as suit_readings
from hostd.hand.waits import _run_type

KANSAI_PAIRS = "seven pairs with quads"
UNRELATED = "thirteen unrelated tiles"


class Reading(NamedTuple):
    """One way to read the won hand: ``form`` (sets, seven pairs, seven pairs with quads,
    thirteen orphans), its ``sets`` (calls included), the ``pair`` face (None for the
    pair forms), the ``wait`` type, ``pairs`` (the pair forms' faces, a face once per
    pair); and the sets again by kind: ``runs`` (their first faces) and ``trips`` (the
    triplets and kans: ``(face, concealed, kan)``)."""

    form: str
    sets: tuple
    pair: int | None
    wait: str
    pairs: tuple = ()
    runs: tuple = ()
    trips: tuple = ()


def call_sets(calls) -> tuple:
    """The calls as sets: chi a run, pon a triplet, kan/ankan a kan (ankan concealed)."""
    out = []
    for c in calls:
        faces = c.faces
        if c.kind == "chi":
            out.append(("run", min(faces), False, False))
        else:
            out.append(("triplet", faces[0], c.kind == "ankan", c.is_kan))
    return tuple(out)


def _final_choices(blocks, win: int):
    """The distinct blocks that hold the winning face: (index, kind, face)."""
    seen, out = set(), []
    for k, (kind, i) in enumerate(blocks):
        holds = i <= win <= i + 2 if kind == "run" else i == win
        if holds and (kind, i) not in seen:
            seen.add((kind, i))
            out.append((k, kind, i))
    return out


def _set_readings(blocks, win: int, tsumo: bool, called: tuple, called_runs: tuple,
                  called_trips: tuple) -> list[Reading]:
    """The readings of one decomposition, one per block the winning face can complete;
    a ron opens the triplet it completes."""
    sets, runs, trips, pair = [], [], [], None
    for kind, i in blocks:
        if kind == "pair":
            pair = i
        elif kind == "run":
            sets.append(("run", i, True, False))
            runs.append(i)
        else:
            sets.append(("triplet", i, True, False))
            trips.append((i, True, False))
    every, runs = tuple(sets) + called, tuple(runs) + called_runs
    closed_trips = tuple(trips) + called_trips
    out = []
    for _k, kind, face in _final_choices(blocks, win):
        if kind == "run":
            out.append(Reading(SETS, every, pair, _run_type(face, win), (), runs, closed_trips))
        elif kind == "pair":
            out.append(Reading(SETS, every, pair, "tanki", (), runs, closed_trips))
        elif tsumo:
            out.append(Reading(SETS, every, pair, "shanpon", (), runs, closed_trips))
        else:  # ron on a shanpon: that triplet (one of those of its face) is open
            k = sets.index(("triplet", face, True, False))
            j = trips.index((face, True, False))
            out.append(Reading(
                SETS, tuple(sets[:k]) + (("triplet", face, False, False),) + tuple(
                    sets[k + 1:]) + called, pair, "shanpon", (), runs,
                tuple(trips[:j]) + ((face, False, False),) + tuple(trips[j + 1:]) + called_trips))
    return out


def kansai_pairs(counts) -> tuple | None:
    """Seven pairs where a face may be held 4 (or, with Mixed Deck, 6 or 8) times: two
    (three, four) of the same pair; None unless 14 tiles make 7 pairs with such a face."""
    if sum(counts) != 14 or any(n % 2 for n in counts) or max(counts) < 4:
        return None
    return tuple(i for i, n in enumerate(counts) for _ in range(n // 2))


def set_blocks(counts) -> list[tuple]:
    """Every sets-and-a-pair reading of the closed counts (as hostd.hand.shapes.standard
    gives them), each suit read in full at once: a won hand is mostly complete, so the
    shapes module's quick test first would only repeat the work."""
    k_pair = pair_suit(counts)
    if k_pair is None:
        return []
    c, combos = list(counts), [()]
    for k, suit in enumerate(SUITS):
        if k != k_pair and not any(c[suit[0]:suit[1]]):
            continue  # a suit the hand does not hold
        local = suit_readings(c, suit, k == k_pair)
        if not local:
            return []
        combos = [a + b for a in combos for b in local] if len(local) > 1 else \
            [a + local[0] for a in combos]
    return combos


def unrelated_tiles(counts) -> bool:
    """Shiisanpuutaa's shape (seed 001), 14 closed tiles with no set and no partial set:
    no face held 3 times, at most one pair, no two tiles of a suit within two ranks of each
    other (the pair's second tile aside); shiisuupuutaa, no pair, is the same yakuman."""
    if sum(counts) != 14 or max(counts) > 2 or counts.count(2) > 1:
        return False
    for start in (0, 9, 18):
        ranks = [r for r in range(9) if counts[start + r]]
        if any(b - a <= 2 for a, b in zip(ranks, ranks[1:])):
            return False
    return True


def readings(hand, win: int, tsumo: bool, *, kansai: bool = False,
             unrelated: bool = False) -> list[Reading]:
    """Every reading of the won ``hand`` (closed counts, the win tile among them) with
    the winning face ``win``; empty if the hand is not complete. ``kansai``: seven pairs
    may hold quads; ``unrelated``: a first draw of 14 unrelated tiles is a reading too
    (shiisanpuutaa)."""
    counts, out = hand.counts, []
    blocks_list = set_blocks(counts)
    if blocks_list:
        called = call_sets(hand.calls) if hand.calls else ()
        called_runs = tuple(i for k, i, _, _ in called if k == "run")
        called_trips = tuple((i, c, kan) for k, i, c, kan in called if k == "triplet")
        for blocks in blocks_list:
            out.extend(_set_readings(blocks, win, tsumo, called, called_runs, called_trips))
    if len(hand.tiles) == 14:
        if is_seven_pairs(counts):
            out.append(Reading(SEVEN_PAIRS, (), None, "tanki",
                               tuple(i for i, n in enumerate(counts) if n == 2)))
        elif not out and is_thirteen_orphans(counts):
            out.append(Reading(THIRTEEN_ORPHANS, (), None, "tanki", ORPHANS))
    if kansai and not hand.calls:
        pairs = kansai_pairs(hand.counts)
        if pairs is not None:
            out.append(Reading(KANSAI_PAIRS, (), None, "tanki", pairs))
    if unrelated and not out and not hand.calls and unrelated_tiles(hand.counts):
        pair = hand.counts.index(2) if 2 in hand.counts else None
        out.append(Reading(UNRELATED, (), pair, "none", tuple(
            i for i, n in enumerate(hand.counts) if n == 1)))
    return out
