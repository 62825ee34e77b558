"""Reading a hand (docs/HANDS.md "Notation", "Calls", "Copies"): its closed tiles in
mpsz and its called melds and kans, checked for tile count and copies.

    parse_hand(text, *, mixed_deck=False, calls=()) -> Hand   # HandError if unreadable
    read_hand(text, *, mixed_deck=False, calls=()) -> Hand    # the same, plain text faster

``calls`` are :class:`hostd.hand.calls.Call`, ``KIND:TILES`` strings or ``(kind,
tiles)`` pairs; calls may also be written in the text (``23455p66s pon:555p``).
"""
from __future__ import annotations

from itertools import compress

from hostd.hand.calls import MAX_CALLS, Call, make_call, parse_call, split_calls
from hostd.hand.errors import HandError
from hostd.hand.tiles import (FACES, INDEX, SORT_KEYS, SPECIAL_PER_SET, TILE_INDEX, plain_face,
                              read_plain, read_tiles, sort_key)

__all__ = ["FACES", "INDEX", "SPECIAL_PER_SET", "Hand", "HandError", "parse_hand",
           "read_hand", "read_tiles", "face_text", "copy_limit", "sort_key"]

#: Copies of a face a hand (and a deck) may hold: one set, or two with Mixed Deck.
COPIES_ONE_SET = 4
COPIES_MIXED_DECK = 8
MAX_TILES = 14
MAX_TEXT = 200
#: Each face's tiles, n at a time: TILES_OF[i][n] (a table, made once).
_FACE_INDEXES = range(34)
_PLAIN_FACES = frozenset(FACES)
TILES_OF = tuple(tuple((f,) * n for n in range(COPIES_MIXED_DECK + 1)) for f in FACES)


class Hand:
    """A hand: its closed ``tiles`` as written (special faces kept, canonical order),
    ``counts`` of the closed tiles by analysed face (index of :data:`FACES`), the copy
    ``limit``, its ``calls`` and ``total``, the counts of every tile, called or not."""

    __slots__ = ("tiles", "counts", "limit", "calls", "total")

    def __init__(self, tiles, counts, limit, calls=(), total=None):
        self.tiles, self.counts, self.limit = tiles, counts, limit
        self.calls, self.total = calls, counts if total is None else total

    def __len__(self):
        return len(self.tiles)

    def __eq__(self, other):
        return isinstance(other, Hand) and all(
            getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __repr__(self):
        return "Hand(%r, calls=%r)" % (face_text(self.tiles), self.calls)

    @property
    def tile_count(self) -> int:
        """Every tile of the hand: closed and called (a kan's four)."""
        if not self.calls:
            return len(self.tiles)
        return len(self.tiles) + sum(len(c.tiles) for c in self.calls)

    def count(self, face: str) -> int:
        """Copies of ``face`` (its plain face) in the closed tiles."""
        return self.counts[INDEX[plain_face(face)]]


def copy_limit(mixed_deck: bool) -> int:
    """Copies of one face that can exist: 8 with Mixed Deck (two sets), else 4."""
    return COPIES_MIXED_DECK if mixed_deck else COPIES_ONE_SET


def _check_count(n: int, k: int) -> None:
    """``n`` closed tiles and ``k`` calls (each counting as 3 tiles of 14)."""
    if k > MAX_CALLS:
        raise HandError("%d calls: a hand has at most %d" % (k, MAX_CALLS))
    room = MAX_TILES - 3 * k
    if k == 0 and n > MAX_TILES:
        raise HandError("%d tiles: a hand has at most 14 closed tiles (write a kan or "
                        "another call as KIND:TILES, e.g. kan:5555p)" % n)
    if k == 0 and n % 3 == 0:
        raise HandError("%d tiles: a hand has 3n+1 tiles (1, 4, 7, 10, 13: its waits) or "
                        "3n+2 (2, 5, 8, 11, 14: complete or not), at most 14" % n)
    if k and (n > room or n % 3 == 0):
        raise HandError("%d closed tiles with %d call%s: each call counts as 3 of the hand's "
                        "14 (a kan's 4th tile is extra), so the closed tiles number %s" % (
                            n, k, "s" * (k > 1), ", ".join(
                                str(x) for x in range(1, room + 1) if x % 3)))


def _where(face: int, counts, calls) -> str:
    held = ["%d in the closed tiles" % counts[face]] if counts[face] else []
    held += [c.text for c in calls if face in c.faces]
    return ", ".join(held)


def _check_copies(tiles, counts, total, limit: int, mixed_deck: bool, calls) -> None:
    every = list(tiles) + [t for c in calls for t in c.tiles]
    if max(total) <= limit and _PLAIN_FACES.issuperset(every):
        return  # within the limit, and no special tile
    rule = ("with Mixed Deck (two sets)" if mixed_deck
            else "in one set (up to 8 with Mixed Deck)")
    for i, n in enumerate(counts):
        if n > limit:
            raise HandError("%d copies of %s: at most %d %s" % (n, FACES[i], limit, rule))
    for i, n in enumerate(total):
        if n > limit:
            first = next(c for c in calls if i in c.faces)
            raise HandError("call %r: %d copies of %s in all (%s): at most %d %s"
                            % (first.text, n, FACES[i], _where(i, counts, calls), limit, rule))
    sets = 2 if mixed_deck else 1
    for face, per_set in SPECIAL_PER_SET.items():
        n = every.count(face)
        if n > per_set * sets:
            raise HandError("%d copies of the special tile %s%s: a set has %d, so at most %d%s"
                            % (n, face, " (called ones too)" if n > tiles.count(face) else "",
                               per_set, per_set * sets,
                               "" if mixed_deck else " (%d with Mixed Deck)" % (per_set * 2)))


def _calls_of(calls) -> list[Call]:
    """Calls given apart from the text: Call, ``KIND:TILES`` or ``(kind, tiles)``."""
    if len(calls) > MAX_CALLS:
        raise HandError("%d calls: a hand has at most %d" % (len(calls), MAX_CALLS))
    return [c if isinstance(c, Call) else parse_call(c) if isinstance(c, str)
            else make_call(*c) for c in calls]


def parse_hand(text: str, *, mixed_deck: bool = False, calls=()) -> Hand:
    """Read ``text`` (closed tiles, and calls written in it) with ``calls`` given
    apart; :class:`HandError` names what is wrong."""
    if isinstance(text, str) and len(text) > MAX_TEXT:
        raise HandError("a hand of %d characters: at most %d" % (len(text), MAX_TEXT))
    closed, written = split_calls(text) if isinstance(text, str) else (text, [])
    calls = tuple(_calls_of(calls)) + tuple(written)
    if calls and isinstance(closed, str) and not closed.strip():
        raise HandError("no closed tiles besides the calls: a hand holds 1 to %d closed tiles "
                        "beside them, e.g. 23455p66s pon:555p" % (MAX_TILES - 3 * len(calls)))
    tiles = read_tiles(closed)
    _check_count(len(tiles), len(calls))
    counts = [0] * len(FACES)
    for t in tiles:
        counts[TILE_INDEX[t]] += 1
    total = list(counts)
    for c in calls:
        for f in c.faces:
            total[f] += 1
    limit = copy_limit(mixed_deck)
    _check_copies(tiles, counts, total, limit, mixed_deck, calls)
    return Hand(tuple(sorted(tiles, key=SORT_KEYS.__getitem__)), tuple(counts), limit, calls,
                tuple(total))


def read_hand(text: str, *, mixed_deck: bool = False, calls=()) -> Hand:
    """:func:`parse_hand`, with a fast path for plain closed hands (digits and suit
    letters, no calls): the same Hand, without the general reader's work."""
    c = read_plain(text) if not calls and type(text) is str and len(text) <= MAX_TEXT \
        else None
    if c is not None:
        n, limit = sum(c), COPIES_MIXED_DECK if mixed_deck else COPIES_ONE_SET
        if n and n <= MAX_TILES and n % 3 and max(c) <= limit:
            tiles = []
            for i in compress(_FACE_INDEXES, c):
                tiles += TILES_OF[i][c[i]]
            counts = tuple(c)
            return Hand(tuple(tiles), counts, limit, (), counts)
    return parse_hand(text, mixed_deck=mixed_deck, calls=calls)


def face_text(faces) -> str:
    """Faces grouped mpsz-style: ``["1m", "2m", "5z"]`` -> ``12m5z``."""
    out, run, suit = [], "", None
    for f in faces:
        if len(f) > 2:  # a marked special tile stands alone
            out.append(run + suit if run else "")
            out.append(f)
            run, suit = "", None
            continue
        if f[1] != suit and run:
            out.append(run + suit)
            run = ""
        run, suit = run + f[0], f[1]
    if run:
        out.append(run + suit)
    return "".join(out)
