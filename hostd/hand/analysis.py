"""The whole analysis of one hand, as the CLI's ``--json`` and ``POST /hand/check`` give
it (docs/HANDS.md).

    analyse(text, *, mixed_deck=False, completable=False, backs=None, calls=()) -> dict
    parse_backs("7,7") -> (7, 7)                                # HandError
"""
from __future__ import annotations

from hostd.hand.notation import FACES, Hand, HandError, read_hand
from hostd.hand.rulings import applicable
from hostd.hand.shapes import BLOCK_TEXT, forms
from hostd.hand.waits import completing, wait_types
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
    count = hand.tile_count
    if n < 0 or m < 0 or n + m != count:
        raise HandError("backs %d,%d count %d tiles; the hand has %d%s (give how many of its "
                        "tiles come from each set)" % (
                            n, m, n + m, count, ", its calls' included" if hand.calls else ""))
    return (n, m)


def _about(hand: Hand, mixed_deck: bool, completable: bool) -> dict:
    """What every answer says of the hand it read and the question asked."""
    return {
        "tiles": list(hand.tiles),
        "calls": [c.as_dict() for c in hand.calls] if hand.calls else [],
        "tile_count": hand.tile_count,
        "mixed_deck": mixed_deck,
        "completable": completable,
        "copy_limit": hand.limit,
    }


def _complete_answer(hand: Hand, mixed_deck: bool, completable: bool, backs) -> dict:
    """The answer for a 3n+2 hand: its readings and yaku (no waits)."""
    readings = forms(hand.counts)
    complete = bool(readings)
    return {
        **_about(hand, mixed_deck, completable),
        "complete": complete,
        "decompositions": [{"form": form, "blocks": [BLOCK_TEXT[b] for b in blocks]}
                           for form, blocks in readings],
        "tenpai": False, "waits": [], "wait_types": {}, "copies_left": {}, "shape_waits": [],
        "mixed_deck_yaku": mixed_deck_yaku(hand.total, backs) if complete and mixed_deck
        else [],
        "wait_yaku": {},
        "rulings": applicable(hand, complete, mixed_deck, backs, (), ()),
    }


def _waiting_answer(hand: Hand, mixed_deck: bool, completable: bool, backs) -> dict:
    """The answer for a 3n+1 hand: its waits (a wait: fewer than the limit held, the
    calls counted), their types and copies."""
    shapes = completing(hand.counts)
    total, limit = hand.total, hand.limit
    waits = [f for f in shapes if total[f] < limit]  # face order = m, p, s, z
    return {
        **_about(hand, mixed_deck, completable),
        "complete": False, "decompositions": [],
        "tenpai": bool(waits) if completable else bool(shapes),
        "waits": [FACES[f] for f in waits],
        "wait_types": {FACES[f]: list(wait_types(hand.counts, f, shapes[f])) for f in waits},
        "copies_left": {FACES[f]: limit - total[f] for f in waits},
        "shape_waits": [FACES[f] for f in shapes],
        "mixed_deck_yaku": [],
        "wait_yaku": _wait_yaku(total, waits) if mixed_deck else {},
        "rulings": applicable(hand, False, mixed_deck, backs, shapes, waits),
    }


def analyse(text: str, *, mixed_deck: bool = False, completable: bool = False,
            backs: tuple[int, int] | None = None, calls=()) -> dict:
    """Read and analyse ``text`` with its ``calls`` (``Call`` or ``KIND:TILES``; calls
    may also be written in the text); :class:`HandError` if it cannot be read.

    ``complete``: the closed part of a 3n+2 hand is sets and a pair (or, with no calls,
    seven pairs or thirteen orphans); no yaku needed. ``waits`` (3n+1 hands): faces that
    complete it and can exist (fewer than the copy limit held, closed or called);
    ``shape_waits`` also lists those that would be a 5th (9th) copy. ``tenpai``: with
    ``completable``, some wait exists; without, the hand is waiting (some shape wait).
    Mixed Deck's yaku count every tile, called or not; ``rulings``: those that bear.
    """
    hand = read_hand(text, mixed_deck=mixed_deck, calls=calls)
    if backs is not None:
        backs = check_backs(backs, hand, mixed_deck)
    if len(hand.tiles) % 3 == 2:
        return _complete_answer(hand, mixed_deck, completable, backs)
    return _waiting_answer(hand, mixed_deck, completable, backs)


def _wait_yaku(total, waits) -> dict[str, list[dict]]:
    """Mixed Deck's copy yaku the hand would have if it won on each wait, its calls'
    copies counted (the 7-from-each-set yaku depends on the winning tile's back, unknown
    here, so it is not listed)."""
    out = {}
    for i in waits:
        won = list(total)
        won[i] += 1
        out[FACES[i]] = mixed_deck_yaku(won)
    return out
