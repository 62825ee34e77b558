"""The whole analysis of one hand, as the CLI's ``--json`` and ``POST /hand/check`` give
it (docs/HANDS.md).

    analyse(text, *, mixed_deck=False, completable=False, backs=None) -> dict
    parse_backs("7,7") -> (7, 7)                                # HandError
"""
from __future__ import annotations

from hostd.hand.notation import FACES, Hand, HandError, parse_hand
from hostd.hand.shapes import decompositions
from hostd.hand.waits import shape_waits
from hostd.hand.yaku import mixed_deck_yaku


def parse_backs(text: str) -> tuple[int, int]:
    """``"N,M"`` -> (N, M): how many tiles of the hand come from each set."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise HandError("backs %r: give N,M, the number of the hand's tiles from each of "
                        "the two sets, e.g. 7,7" % text)
    return int(parts[0]), int(parts[1])


def check_backs(backs, hand: Hand, mixed_deck: bool) -> tuple[int, int] | None:
    if backs is None:
        return None
    if not mixed_deck:
        raise HandError("backs count the tiles from each of two sets: they need Mixed Deck "
                        "(--mixed-deck, or \"mixed_deck\": true)")
    n, m = backs
    if n < 0 or m < 0 or n + m != len(hand):
        raise HandError("backs %d,%d count %d tiles; the hand has %d (give how many of its "
                        "tiles come from each set)" % (n, m, n + m, len(hand)))
    return (n, m)


def analyse(text: str, *, mixed_deck: bool = False, completable: bool = False,
            backs: tuple[int, int] | None = None) -> dict:
    """Read and analyse ``text``; :class:`HandError` if it cannot be read.

    ``complete``: a 3n+2 hand that is sets and a pair, seven pairs or thirteen orphans.
    ``waits`` (3n+1 hands): faces that complete it and can exist (fewer than the copy
    limit in the hand); ``shape_waits`` also lists those that would be a 5th (9th) copy.
    ``tenpai``: with ``completable``, some wait exists; without, the hand is waiting
    (some shape wait). A 3n+2 hand is never tenpai here and has no waits.
    ``wait_yaku`` (Mixed Deck): each wait -> the copy yaku winning on it would give.
    """
    hand = parse_hand(text, mixed_deck=mixed_deck)
    backs = check_backs(backs, hand, mixed_deck)
    counts = hand.counts
    decomps = decompositions(counts) if len(hand) % 3 == 2 else []
    shapes = shape_waits(counts) if len(hand) % 3 == 1 else {}
    waits = [i for i in shapes if counts[i] < hand.limit]  # index order = m, p, s, z
    complete = bool(decomps)
    return {
        "tiles": list(hand.tiles),
        "mixed_deck": mixed_deck,
        "completable": completable,
        "copy_limit": hand.limit,
        "complete": complete,
        "decompositions": [{"form": d.form, "blocks": d.texts()} for d in decomps],
        "tenpai": bool(waits) if completable else bool(shapes),
        "waits": [FACES[i] for i in waits],
        "wait_types": {FACES[i]: list(shapes[i]) for i in waits},
        "copies_left": {FACES[i]: hand.limit - counts[i] for i in waits},
        "shape_waits": [FACES[i] for i in shapes],
        "mixed_deck_yaku": mixed_deck_yaku(counts, backs) if complete and mixed_deck else [],
        "wait_yaku": _wait_yaku(counts, waits) if mixed_deck else {},
    }


def _wait_yaku(counts, waits) -> dict[str, list[dict]]:
    """Mixed Deck's copy yaku the hand would have if it won on each wait (the 7-from-each-
    set yaku depends on the winning tile's back, unknown here, so it is not listed)."""
    out = {}
    for i in waits:
        won = list(counts)
        won[i] += 1
        out[FACES[i]] = mixed_deck_yaku(won)
    return out
