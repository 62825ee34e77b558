"""Called melds and kans (docs/HANDS.md "Calls"): ``chi``, ``pon``, ``kan`` (open) and
``ankan`` (closed kan), each with its tiles in mpsz.

    parse_call("pon:555p") -> Call               # the CLI's --call KIND:TILES
    make_call("pon", "555p") -> Call             # the API's {"kind": ..., "tiles": ...}
    split_calls("23455p66s pon:555p") -> (text, [Call])   # calls written in the hand

A call is checked on its own (a chi is three in a row of one suit, a pon three alike, a
kan four alike); its copies are checked with the hand's (hostd.hand.notation.parse_hand).
Every refusal is a :class:`HandError` that quotes the call and says what is accepted.
"""
from __future__ import annotations

import re

from hostd.hand.errors import HandError
from hostd.hand.tiles import SORT_KEYS, TILE_INDEX, read_tiles

#: Kinds -> how many tiles; the words players also use for them.
SIZES = {"chi": 3, "pon": 3, "kan": 4, "ankan": 4}
ALIASES = {"chii": "chi", "minkan": "kan", "daiminkan": "kan", "kakan": "kan",
           "shouminkan": "kan"}
ACCEPTED = ("accepted: chi:TILES (3 in a row of one suit, e.g. chi:123m), pon:TILES (3 alike, "
            "pon:555p), kan:TILES (4 alike, an open kan: kan:5555p), ankan:TILES (4 alike, a "
            "closed kan: ankan:1111z)")
MAX_CALLS = 4
MAX_CALL_TEXT = 40
_WRITTEN = re.compile(r"(?<![0-9A-Za-z])(%s)(?![0-9A-Za-z])(?:[ \t]*:[ \t]*|[ \t]+)?"
                      r"([^\s,]*)" % "|".join(sorted(list(SIZES) + list(ALIASES),
                                                      key=len, reverse=True)),
                      re.IGNORECASE)


class Call:
    """One called meld: ``kind`` (chi, pon, kan, ankan), its ``tiles`` as written
    (special tiles kept, canonical order), the ``text`` it was given as; ``faces``, the
    analysed face of each tile (index of FACES). Immutable by convention; compared by
    kind, tiles and text."""

    __slots__ = ("kind", "tiles", "text", "faces", "is_kan")

    def __init__(self, kind: str, tiles: tuple[str, ...], text: str):
        self.kind, self.tiles, self.text = kind, tiles, text
        self.faces = [TILE_INDEX[t] for t in tiles]
        self.is_kan = kind in ("kan", "ankan")

    def __eq__(self, other):
        return isinstance(other, Call) and (self.kind, self.tiles, self.text) == (
            other.kind, other.tiles, other.text)

    def __hash__(self):
        return hash((self.kind, self.tiles, self.text))

    def __repr__(self):
        return "Call(kind=%r, tiles=%r, text=%r)" % (self.kind, self.tiles, self.text)

    def as_dict(self) -> dict:
        return {"kind": self.kind, "tiles": list(self.tiles)}


def _refuse(text: str, why: str) -> HandError:
    return HandError("call %r: %s; %s" % (text, why, ACCEPTED))


def _shape_error(kind: str, faces: list[int], n: int) -> str | None:
    """Why these tiles are not a ``kind``, or None."""
    size = SIZES[kind]
    if n != size:
        return "a %s is %d tiles, not %d" % (kind, size, n)
    if kind != "chi":
        return None if len(set(faces)) == 1 else "a %s is %d alike" % (kind, size)
    if faces[0] >= 27:
        return "a chi is a run of one suit, m, p or s: honours make no runs"
    f = sorted(faces)
    if not (f[1] == f[0] + 1 and f[2] == f[0] + 2 and f[0] // 9 == f[2] // 9):
        return "a chi is 3 in a row of one suit"
    return None


def make_call(kind: str, tiles: str, shown: str | None = None) -> Call:
    """A call from its kind and tiles; ``shown`` is how to quote it in an error."""
    shown = shown if shown is not None else "%s:%s" % (kind, tiles)
    k = str(kind).strip().lower()
    k = ALIASES.get(k, k)
    if k not in SIZES:
        raise _refuse(shown, "no kind %r" % kind)
    if not isinstance(tiles, str) or not tiles.strip():
        raise _refuse(shown, "no tiles after the kind")
    if len(tiles) > MAX_CALL_TEXT:
        raise _refuse(shown[:MAX_CALL_TEXT] + "...", "%d characters of tiles: a call has 3 "
                      "or 4 tiles" % len(tiles))
    try:
        written = read_tiles(tiles)
    except HandError as e:
        raise _refuse(shown, str(e)) from None
    why = _shape_error(k, [TILE_INDEX[t] for t in written], len(written))
    if why:
        raise _refuse(shown, why)
    return Call(k, tuple(sorted(written, key=SORT_KEYS.__getitem__)), shown)


def parse_call(text: str) -> Call:
    """``KIND:TILES`` (the CLI's ``--call``)."""
    kind, sep, tiles = str(text).partition(":")
    if not sep:
        raise _refuse(text, "write the kind, a colon and the tiles")
    return make_call(kind, tiles, text)


def split_calls(text: str) -> tuple[str, list[Call]]:
    """The calls written inside a hand's text (``pon:555p``, ``pon 555p``, any case) and
    the text left: each call's characters become spaces, so the closed tiles keep their
    positions for error messages."""
    lowered = text.lower()
    if "n" not in lowered and "h" not in lowered:  # every kind's word has an n or an h,
        return text, []                               # and no tile has either
    calls, chars = [], list(text)
    for m in _WRITTEN.finditer(text):
        calls.append(make_call(m.group(1), m.group(2), m.group(0).strip()))
        chars[m.start():m.end()] = " " * (m.end() - m.start())
    return ("".join(chars), calls) if calls else (text, calls)
