"""Reading a hand written in mpsz (docs/HANDS.md): ``123m456p789s11z``, ``1m2m3m...``,
``0m/0p/0s`` red fives, Speed Tonpuu's special faces (``7mb``, ``5pg``, ``5zx``...; the
notation is docs/RULESETS.md's). Special faces count as the face they play as.

Closed hands only: a called meld (brackets, ``+``/``-`` marks, ``chi``/``pon``/``kan``)
is refused with a message that says so.

    parse_hand(text, *, mixed_deck=False) -> Hand      # HandError on anything unreadable
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from hostd.errors import BadRequest
from hostd.core.rulesets import game_face, get_ruleset

#: The 34 faces a hand is analysed in, index 0..33: 1m..9m, 1p..9p, 1s..9s, 1z..7z.
FACES = tuple("%d%s" % (r, s) for s in "mps" for r in range(1, 10)) + tuple(
    "%dz" % r for r in range(1, 8))
INDEX = {f: i for i, f in enumerate(FACES)}
#: Copies of a face a hand (and a deck) may hold: one set, or two with Mixed Deck.
COPIES_ONE_SET = 4
COPIES_MIXED_DECK = 8
#: Special tiles (red fives and Speed Tonpuu's) -> copies of each in one set, from the
#: ruleset profiles, so the notation here is the one docs/RULESETS.md defines.
SPECIAL_PER_SET = {f: n for f, n in get_ruleset("speed-tonpuu").faces.items()
                   if game_face(f) != f}
MAX_TILES = 14
_MELD_WORDS = ("chi", "chii", "pon", "kan", "ankan", "minkan", "kakan", "daiminkan")
_MELD_CHARS = "()[]{}<>|+-_'\""
_TOKEN = re.compile(r"\d+[A-Za-z]*|[A-Za-z]+|\S")
_GROUP = re.compile(r"^(\d+)([mpsz])([a-z]?)$")


class HandError(BadRequest, ValueError):
    """A hand that cannot be read or analysed (``BadRequest``: the API answers 400,
    the CLI exits 2)."""


@dataclass(frozen=True)
class Hand:
    """A closed hand: ``tiles`` as written (special faces kept, canonical order),
    ``counts`` by analysed face (index of :data:`FACES`), the copy ``limit``."""

    tiles: tuple[str, ...]
    counts: tuple[int, ...]
    limit: int

    def __len__(self):
        return len(self.tiles)

    def count(self, face: str) -> int:
        return self.counts[INDEX[game_face(face)]]


def copy_limit(mixed_deck: bool) -> int:
    """Copies of one face that can exist: 8 with Mixed Deck (two sets), else 4."""
    return COPIES_MIXED_DECK if mixed_deck else COPIES_ONE_SET


def sort_key(face: str) -> tuple:
    """m, p, s, z, then rank; a special tile right after its plain face."""
    plain = game_face(face)
    return ("mpsz".index(plain[1]), int(plain[0]), face != plain, face)


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
    if token.lower() in _MELD_WORDS or token in _MELD_CHARS:
        raise HandError("%s looks like a called meld: only closed hands are analysed; "
                        "write the concealed tiles only, e.g. 123m456p789s1122z" % where)
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
    tiles: list[str] = []
    for m in _TOKEN.finditer(text):
        if m.group() == ",":
            continue
        tiles.extend(_tiles_of(m.group(), m.start() + 1, len(tiles) + 1))
    return tiles


def _check_count(n: int) -> None:
    if n > MAX_TILES:
        raise HandError("%d tiles: a hand has at most 14 (closed hands only; a kan is a "
                        "called meld and cannot be written)" % n)
    if n % 3 == 0:
        raise HandError("%d tiles: a hand has 3n+1 tiles (1, 4, 7, 10, 13: its waits) or "
                        "3n+2 (2, 5, 8, 11, 14: complete or not), at most 14" % n)


def _check_copies(tiles: list[str], counts: list[int], limit: int, mixed_deck: bool) -> None:
    for i, n in enumerate(counts):
        if n > limit:
            raise HandError("%d copies of %s: at most %d %s" % (
                n, FACES[i], limit, "with Mixed Deck (two sets)" if mixed_deck
                else "in one set (up to 8 with Mixed Deck)"))
    sets = 2 if mixed_deck else 1
    for face, per_set in SPECIAL_PER_SET.items():
        n = tiles.count(face)
        if n > per_set * sets:
            raise HandError("%d copies of the special tile %s: a set has %d, so at most %d%s"
                            % (n, face, per_set, per_set * sets,
                               "" if mixed_deck else " (%d with Mixed Deck)" % (per_set * 2)))


def parse_hand(text: str, *, mixed_deck: bool = False) -> Hand:
    """Read ``text`` as a closed hand; :class:`HandError` names what is wrong."""
    tiles = read_tiles(text)
    _check_count(len(tiles))
    counts = [0] * len(FACES)
    for t in tiles:
        counts[INDEX[game_face(t)]] += 1
    limit = copy_limit(mixed_deck)
    _check_copies(tiles, counts, limit, mixed_deck)
    return Hand(tuple(sorted(tiles, key=sort_key)), tuple(counts), limit)


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
