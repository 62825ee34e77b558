"""Faces and tiles in mpsz (docs/HANDS.md "Notation"): ``123m456p789s11z``,
``1m2m3m...``, ``0m/0p/0s`` red fives, Speed Tonpuu's special faces (``7mb``, ``5pg``,
``5zx``...; the notation is docs/RULESETS.md's). Special faces count as the face they
play as.

    read_tiles(text) -> list[str]          # every tile written; HandError names a bad token
    read_plain(text) -> list[int] | None   # counts, for plain text only (the fast path)
"""
from __future__ import annotations

import re

from hostd.hand.errors import HandError
from hostd.rules.rulesets import game_face, get_ruleset

#: The 34 faces a hand is analysed in, index 0..33: 1m..9m, 1p..9p, 1s..9s, 1z..7z.
FACES = tuple("%d%s" % (r, s) for s in "mps" for r in range(1, 10)) + tuple(
    "%dz" % r for r in range(1, 8))
INDEX = {f: i for i, f in enumerate(FACES)}
#: Special tiles (red fives and Speed Tonpuu's) -> copies of each in one set, from the
#: ruleset profiles, so the notation here is the one docs/RULESETS.md defines.
SPECIAL_PER_SET = {f: n for f, n in get_ruleset("speed-tonpuu").faces.items()
                   if game_face(f) != f}
MELD_WORDS = ("chi", "chii", "pon", "kan", "ankan", "minkan", "kakan", "daiminkan")
MELD_CHARS = "()[]{}<>|+-_'\""
_TOKEN = re.compile(r"\d+[A-Za-z]*|[A-Za-z]+|\S")
_GROUP = re.compile(r"^(\d+)([mpsz])([a-z]?)$")
#: The fast reader's pattern (digits, each group followed by its suit letter; spaces and
#: commas between groups) and its tables: a suit letter -> {digit: face index}.
_PLAIN = re.compile(r"(?:[1-9]+[mps]|[1-7]+z|[ ,])+")
_SUIT_ROWS = {s: {d: b + int(d) - 1 for d in ("1234567" if s == "z" else "123456789")}
              for s, b in zip("mpsz", (0, 9, 18, 27))}
_NO_SUIT: dict = {}


def _sort_key(face: str) -> tuple:
    plain = game_face(face)
    return ("mpsz".index(plain[1]), int(plain[0]), face != plain, face)


#: Every tile that can be written (the 34 faces and the special ones) -> the face it plays
#: as, and -> its sort key: tables made once.
PLAIN = {f: game_face(f) for f in FACES + tuple(SPECIAL_PER_SET)}
SORT_KEYS = {f: _sort_key(f) for f in PLAIN}
#: Every tile -> the index of the face it plays as (``0p`` -> 13).
TILE_INDEX = {f: INDEX[p] for f, p in PLAIN.items()}
_WRITABLE = frozenset(PLAIN)
#: A tile written alone (``1m``, ``0p``, ``7pb``): the fast reader's pattern.
_SINGLE = re.compile(r"[0-9][mpsz][bgx]?")


def plain_face(face: str) -> str:
    """The face a tile plays as (``0p`` -> ``5p``, ``7mb`` -> ``7m``)."""
    return PLAIN.get(face) or game_face(face)


def sort_key(face: str) -> tuple:
    """m, p, s, z, then rank; a special tile right after its plain face."""
    return SORT_KEYS.get(face) or _sort_key(face)


def _why_unreadable(token: str) -> str:
    if token[0].isdigit() and token.rstrip("0123456789") == "":
        return "digits without a suit letter (m, p, s or z)"
    if token[0].isdigit():
        return ("after the digits comes one lowercase suit letter (m, p, s, z), then "
                "optionally a special tile's mark (b, g, x)")
    return "not a tile; a tile is a digit and a suit letter (m, p, s, z)"


def _tiles_of(token: str, column: int, tile_no: int) -> list[str]:
    """The tiles of one token (``123m``, ``7mb``), or :class:`HandError` naming it and
    its position (``column``: 1-based character; ``tile_no``: its first tile's number)."""
    where = "bad token %r at position %d (tile %d)" % (token, column, tile_no)
    if token.lower() in MELD_WORDS or token in MELD_CHARS:
        raise HandError("%s looks like a called meld: write a call as KIND:TILES (chi:123m, "
                        "pon:555p, kan:5555p, ankan:1111z) after the closed tiles, e.g. "
                        "23455p66s pon:555p" % where)
    m = _GROUP.match(token)
    if m is None:
        raise HandError("%s: %s" % (where, _why_unreadable(token)))
    digits, suit, mark = m.groups()
    if mark and len(digits) > 1:
        raise HandError("%s: a mark (%s) belongs to a single tile; write the special tile on "
                        "its own, e.g. %s%s%s%s" % (where, mark, digits[:-1], suit,
                                                    digits[-1] + suit, mark))
    tiles = [d + suit + mark for d in digits]
    for k, face in enumerate(tiles):
        if face not in INDEX and face not in SPECIAL_PER_SET:
            which = " (tile %d)" % (tile_no + k) if len(tiles) > 1 else ""
            raise HandError("%s: no tile %s%s; accepted: 1-9 m/p/s, 1-7 z, red fives 0m 0p "
                            "0s, special tiles %s" % (where, face, which, " ".join(
                                sorted((f for f in SPECIAL_PER_SET if f[0] != "0"),
                                       key=sort_key))))
    return tiles


def read_tiles(text: str) -> list[str]:
    """Every tile written in ``text`` (spaces and commas between tokens are ignored)."""
    if not isinstance(text, str) or not text.strip():
        raise HandError("no tiles given; write a hand in mpsz, e.g. 123m456p789s11122z")
    tiles = _SINGLE.findall(text)  # a tile at a time, nothing else, every one a tile:
    if "".join(tiles) == text and _WRITABLE.issuperset(tiles):  # read at once
        return tiles
    tiles: list[str] = []
    for m in _TOKEN.finditer(text):
        if m.group() == ",":
            continue
        tiles.extend(_tiles_of(m.group(), m.start() + 1, len(tiles) + 1))
    return tiles


def read_plain(text: str) -> list[int] | None:
    """The counts of a hand written with plain faces only (digits 1-9 and suit letters,
    spaces and commas between groups), or None for anything else, which
    :func:`read_tiles` then reads (or refuses, naming what is wrong). Read from the end,
    so that a suit letter says which faces the digits before it are."""
    if _PLAIN.fullmatch(text) is None:
        return None
    c = [0] * 34
    row, rows, empty = _NO_SUIT, _SUIT_ROWS, _NO_SUIT
    for ch in reversed(text):
        i = row.get(ch)
        if i is None:  # a suit letter (its digits come next), or a space or comma
            row = rows.get(ch, empty)
        else:
            c[i] += 1
    return c
