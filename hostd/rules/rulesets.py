"""Ruleset profiles: what the table must build for each ruleset (CPython only).

A profile is validated pydantic data: the composition of one deck by face, the wall
geometry (4 walls of ``stacks_per_wall`` two-high stacks), the dead wall, the dice and the
break procedure. Every profile is built and validated when this module is imported, so
a bad number in the data below fails at once, never at the table.

Names: ``riichi``, ``speed-tonpuu``, ``shenyang``, ``wsom``, ``uzje``; Ùzje takes options
joined by ``+`` in any order (``uzje+flowers+compressed-winds``); the canonical name lists
them in the order ``compressed-winds``, ``flowers``, ``all-tongs``. Mixed Deck is not a
ruleset but an overlay on any of them (:func:`mixed_deck`).

Face notation (docs/RULESETS.md): Riichi family in mpsz (``1m``..``9m``, ``1p``..,
``1s``.., ``1z``..``7z`` = E S W N white green red, ``0m/0p/0s`` red fives) with Speed
Tonpuu's special tiles as a suffix letter (``7mb`` blue, ``5pg`` gold, ``5zx`` pocchi);
Ùzje in its own seed's notation (``1t``, ``fs``, ``xm``, ``Z``, ``E``, ``H``, ``C``,
``h``...).

Public API (used by the session and the simulator)::

    get_ruleset(name) -> RulesetProfile            # RulesetError if unknown
    list_rulesets() -> list[RulesetProfile]        # 4 bases + 8 Ùzje variants
    ruleset_names() -> list[str]
    canonical_name(name) -> str
    check_fits(profile, table_max_stacks, table_tracks=4) -> None   # TableFitError
    tiles_for_set(profile) -> list[str]            # one face per tile, fixed order
    tiles_for_sets(profile, colours=("blue", "green")) -> list[tuple[str, str]]
    mixed_deck(profile, colours=("blue", "green")) -> MixedDeck
    combined_faces(profile) -> dict[str, int]; max_copies_per_face(profile) -> int
    game_face(face) -> str                         # "0m" -> "5m", "7mb" -> "7m"
"""
from __future__ import annotations

import itertools
import re
import unicodedata
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from hostd.rules.dice_spec import DiceError, parse_dice_spec
from hostd.errors import BadRequest, Refused

__all__ = [
    "BASE_NAMES",
    "UZJE_OPTIONS",
    "DEFAULT_COLOURS",
    "RulesetError",
    "UnknownRulesetError",
    "TableFitError",
    "BreakProcedure",
    "RulesetProfile",
    "MixedDeck",
    "get_ruleset",
    "list_rulesets",
    "ruleset_names",
    "canonical_name",
    "accepted_names_text",
    "check_fits",
    "tiles_for_set",
    "tiles_for_sets",
    "combined_faces",
    "max_copies_per_face",
    "game_face",
    "check_colours",
    "mixed_deck",
    "face_sort_key",
]

BASE_NAMES = ("riichi", "speed-tonpuu", "shenyang", "wsom", "uzje")
#: Ùzje's options in canonical order (the order of its seed's wall-width table).
UZJE_OPTIONS = ("compressed-winds", "flowers", "all-tongs")
_OPTIONS = {"uzje": UZJE_OPTIONS}
#: The two sets' back colours unless configured (DESIGN §1, §2).
DEFAULT_COLOURS = ("blue", "green")

Seat = Literal["self", "right", "across", "left"]


class RulesetError(BadRequest, ValueError):
    """A ruleset name, option or colour that cannot be used (``hostd.errors.BadRequest``:
    the API answers 400)."""


class UnknownRulesetError(RulesetError):
    """The name (or one of its ``+`` options) is not a ruleset we know."""


class TableFitError(Refused, RulesetError):
    """The connected table cannot build this ruleset's walls (``hostd.errors.Refused``:
    the API answers 422 ``refused``)."""

    def __init__(self, message: str, *, ruleset: str, needs_stacks: int, table_stacks: int,
                 needs_walls: int, table_tracks: int):
        super().__init__(message)
        self.ruleset = ruleset
        self.needs_stacks = needs_stacks
        self.table_stacks = table_stacks
        self.needs_walls = needs_walls
        self.table_tracks = table_tracks


# --------------------------------------------------------------------------- notation

_MPSZ_SPECIAL = {
    # face: (game face, variant rank for ordering)
    "0m": ("5m", 1), "0p": ("5p", 1), "0s": ("5s", 1),  # red fives
    "7mb": ("7m", 1), "7pb": ("7p", 1), "7sb": ("7s", 1),  # Speed Tonpuu blue sevens
    "5pg": ("5p", 2),  # Speed Tonpuu gold 5p
    "5zx": ("5z", 1), "6zx": ("6z", 1), "7zx": ("7z", 1),  # Speed Tonpuu pocchi
}
_MPSZ_PLAIN = re.compile(r"^(?:[1-9][mps]|[1-7]z)$")
_UZJE_RANKS = "123456789xabcdef"  # 1..16 (seed: "1 ~ 9, then x, then a ~ f")
_UZJE_HONOURS = "Z" + "ESWN" + "HV" + "CFP"  # zero, winds, compressed winds, arrows
_UZJE_FLOWERS = "hijkopqr"
_UZJE_NUMBER = re.compile(r"^[1-9xa-f][tsm]$")


def _is_face(face: str, notation: str) -> bool:
    if notation == "mpsz":
        return bool(_MPSZ_PLAIN.match(face)) or face in _MPSZ_SPECIAL
    return bool(_UZJE_NUMBER.match(face)) or (len(face) == 1 and face in _UZJE_HONOURS + _UZJE_FLOWERS)


def face_sort_key(face: str, notation: str) -> tuple:
    """Canonical order: mpsz by suit m p s z then rank, a special tile right after its
    plain face; Ùzje as its seed sorts: tongs, socks, mans by rank, zero, winds
    (E S W N, then H V), arrows (C F P), flowers (h i j k o p q r)."""
    if notation == "mpsz":
        base, variant = _MPSZ_SPECIAL.get(face, (face, 0))
        return ("mpsz".index(base[1]), int(base[0]), variant)
    if len(face) == 2:
        return ("tsm".index(face[1]), _UZJE_RANKS.index(face[0]))
    if face in _UZJE_HONOURS:
        group = 3 if face == "Z" else 4 if face in "ESWNHV" else 5
        return (group, _UZJE_HONOURS.index(face))
    return (6, _UZJE_FLOWERS.index(face))


def game_face(face: str) -> str:
    """The face a special tile plays as (``0m`` -> ``5m``, ``7mb`` -> ``7m``, ``5pg`` ->
    ``5p``, ``5zx`` -> ``5z``); every other face is itself."""
    return _MPSZ_SPECIAL.get(face, (face, 0))[0]


# --------------------------------------------------------------------------- models

class BreakProcedure(BaseModel):
    """How a throw breaks the wall (data, interpreted by ``hostd.rules.dice.break_wall``).

    The dice total counts seats: ``origin_seat`` (seen from the thrower) is
    ``origin_value``, and each further 1 moves a seat in ``count_direction``. The seat
    reached is the breaker; the breaker counts the total in ``unit`` from the ``from_end``
    end of their own wall, leftwards; the dead wall runs from the break to the right.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    count_direction: Literal["counter-clockwise", "clockwise"]
    origin_seat: Seat
    origin_value: int = Field(ge=0, le=1)
    unit: Literal["stacks", "tiles"]
    from_end: Literal["right"] = "right"
    thrower: str
    breaker_becomes_dealer: bool = False
    source: str


class RulesetProfile(BaseModel):
    """One ruleset as the table sees it. Validated on construction."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    base: str
    options: tuple[str, ...] = ()
    title: str
    seed: str | None
    notation: Literal["mpsz", "uzje"]
    faces: dict[str, int]
    tiles_per_deck: int = Field(gt=0)
    walls: int = Field(4, ge=2, le=6)
    stacks_per_wall: int = Field(gt=0)
    dead_wall_tiles: int = Field(ge=0)
    #: tiles the dead wall grows by with each kong (Shenyang: 2)
    dead_wall_per_kong: int = Field(0, ge=0)
    dice: str
    dice_alternatives: tuple[str, ...] = ()
    #: a double on the dice multiplies the hand's value by this (Shenyang: 2)
    dice_double_multiplier: int = Field(1, ge=1)
    #: a second throw for the same hand replaces the first (none of the five: a throw
    #: decides the break, and Shenyang's double, once; docs/RULESETS.md "Throws")
    rethrow: bool = False
    break_procedure: BreakProcedure
    notes: tuple[str, ...] = ()

    @field_validator("dice", "dice_alternatives")
    @classmethod
    def _dice_spec(cls, v):
        try:
            if isinstance(v, tuple):
                return tuple(str(parse_dice_spec(s)) for s in v)
            return str(parse_dice_spec(v))
        except DiceError as e:
            raise ValueError(str(e)) from None

    @field_validator("faces")
    @classmethod
    def _faces(cls, v: dict[str, int], info: ValidationInfo):
        notation = info.data.get("notation")
        if notation is None:
            return v
        for face, n in v.items():
            if not _is_face(face, notation):
                raise ValueError("%r is not a face in %s notation" % (face, notation))
            if not 1 <= n <= 4:
                raise ValueError("face %s: %d copies; a set holds 1 to 4 of a face" % (face, n))
        # canonical order, whatever order the data was written in
        return {f: v[f] for f in sorted(v, key=lambda f: face_sort_key(f, notation))}

    @model_validator(mode="after")
    def _geometry(self):
        total = sum(self.faces.values())
        if total != self.tiles_per_deck:
            raise ValueError(
                "%s: faces sum to %d tiles, tiles_per_deck says %d"
                % (self.name, total, self.tiles_per_deck)
            )
        built = self.walls * self.stacks_per_wall * 2
        if built != self.tiles_per_deck:
            raise ValueError(
                "%s: %d walls x %d stacks x 2 = %d tiles, tiles_per_deck says %d"
                % (self.name, self.walls, self.stacks_per_wall, built, self.tiles_per_deck)
            )
        if self.dead_wall_tiles % 2 or self.dead_wall_tiles >= self.tiles_per_deck:
            raise ValueError(
                "%s: dead wall of %d tiles must be whole stacks and less than the deck"
                % (self.name, self.dead_wall_tiles)
            )
        per_wall = self.stacks_per_wall * (2 if self.break_procedure.unit == "tiles" else 1)
        for spec in self.dice_specs:
            if spec.max_total > per_wall:
                raise ValueError(
                    "%s: a %s total of %d %s does not fit a wall of %d %s"
                    % (self.name, spec, spec.max_total, self.break_procedure.unit, per_wall,
                       self.break_procedure.unit)
                )
        expected = canonical_name(self.name) if self.base in BASE_NAMES else None
        if expected != self.name or self.base != self.name.split("+")[0] or \
                tuple(self.name.split("+")[1:]) != self.options:
            raise ValueError("%s: name, base and options disagree" % self.name)
        return self

    # -- derived
    @property
    def dice_specs(self):
        """All throws the ruleset allows, the main one first (``DiceSpec`` list)."""
        return [parse_dice_spec(s) for s in (self.dice, *self.dice_alternatives)]

    @property
    def dead_wall_stacks(self) -> int:
        return self.dead_wall_tiles // 2

    def summary(self) -> dict:
        """The JSON item of ``jantaku rulesets --json``."""
        return {
            "name": self.name,
            "title": self.title,
            "base": self.base,
            "options": list(self.options),
            "seed": self.seed,
            "tiles_per_deck": self.tiles_per_deck,
            "walls": self.walls,
            "stacks_per_wall": self.stacks_per_wall,
            "dead_wall_tiles": self.dead_wall_tiles,
            "dead_wall_per_kong": self.dead_wall_per_kong,
            "dice": self.dice,
            "dice_alternatives": list(self.dice_alternatives),
            "dice_double_multiplier": self.dice_double_multiplier,
            "rethrow": self.rethrow,
            "break": self.break_procedure.model_dump(exclude={"source"}),
            "notation": self.notation,
            "faces": dict(self.faces),
            "notes": list(self.notes),
        }


class MixedDeck(BaseModel):
    """The Mixed Deck overlay on one ruleset: two full sets (named by back colour)
    mixed and split into two decks of the ruleset's size."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ruleset: str
    colours: tuple[str, str]
    deck_tiles: int
    total_tiles: int
    #: both sets together, by physical face
    faces: dict[str, int]
    #: both sets together, special tiles counted as the face they play as
    game_faces: dict[str, int]
    #: the most copies of one (game) face a deck can hold: 8 for four-of-a-kind sets
    max_copies_per_face: int


# --------------------------------------------------------------------------- the data

_RIICHI_BREAK = dict(
    count_direction="counter-clockwise",
    origin_seat="self",
    origin_value=1,
    unit="stacks",
    thrower="the dealer (East)",
)


def _riichi_faces() -> dict[str, int]:
    faces = {}
    for suit in "mps":
        for rank in range(1, 10):
            faces["%d%s" % (rank, suit)] = 4
    for rank in range(1, 8):
        faces["%dz" % rank] = 4
    return faces


def _speed_tonpuu_faces() -> dict[str, int]:
    """Seed 001 'Special Tiles': 1 red 0m0p0s, 1 blue 7m7p7s, 1 gold 5p, 1 pocchi each
    of 5z 6z 7z; each replaces one plain copy of the face it plays as."""
    faces = _riichi_faces()
    for special in ("0m", "0p", "0s", "7mb", "7pb", "7sb", "5pg", "5zx", "6zx", "7zx"):
        plain = game_face(special)
        faces[plain] -= 1
        faces[special] = 1
    return faces


def _uzje_faces(options: tuple[str, ...]) -> dict[str, int]:
    tong_ranks = _UZJE_RANKS if "all-tongs" in options else "1f"
    winds = "HV" if "compressed-winds" in options else "ESWN"
    faces = {}
    for rank in tong_ranks:
        faces[rank + "t"] = 4
    for suit in "sm":
        for rank in _UZJE_RANKS:
            faces[rank + suit] = 4
    faces["Z"] = 4
    for w in winds:
        faces[w] = 4
    for a in "CFP":
        faces[a] = 4
    if "flowers" in options:
        for f in _UZJE_FLOWERS:
            faces[f] = 1
    return faces


def _uzje_stacks(options: tuple[str, ...]) -> int:
    # seed 004 "Wall building" table: base 20, full winds +1, flowers +1, all tongs +7
    return (20 + (0 if "compressed-winds" in options else 1)
            + (1 if "flowers" in options else 0) + (7 if "all-tongs" in options else 0))


def _data() -> list[dict]:
    out = [
        dict(
            name="riichi", base="riichi", title="Riichi (base)", seed=None, notation="mpsz",
            faces=_riichi_faces(), tiles_per_deck=136, stacks_per_wall=17, dead_wall_tiles=14,
            dice="2d6",
            break_procedure=dict(_RIICHI_BREAK, source="standard Riichi practice (no seed)"),
            notes=("four of each of 34 faces, no red fives",),
        ),
        dict(
            name="speed-tonpuu", base="speed-tonpuu", title="Speed Tonpuu",
            seed="001_0f72f3107023dbe4.txt", notation="mpsz",
            faces=_speed_tonpuu_faces(), tiles_per_deck=136, stacks_per_wall=17,
            dead_wall_tiles=14, dice="2d6",
            break_procedure=dict(_RIICHI_BREAK, source="seed silent; Riichi procedure"),
            notes=(
                "special tiles replace one plain copy each: red 0m 0p 0s, blue 7mb 7pb 7sb, "
                "gold 5pg, pocchi 5zx 6zx 7zx",
                "the seed gives no deck size, dead wall or dice: standard Riichi (136, 14, 2d6)",
                "all kan dora are revealed at once",
            ),
        ),
        dict(
            name="shenyang", base="shenyang", title="Shenyang",
            seed="002_6469f8646e482b7c.txt", notation="mpsz",
            faces=_riichi_faces(), tiles_per_deck=136, stacks_per_wall=17,
            dead_wall_tiles=16, dead_wall_per_kong=2, dice="2d6", dice_double_multiplier=2,
            break_procedure=dict(_RIICHI_BREAK, source="seed silent; common (Riichi) procedure"),
            notes=(
                "dead wall starts at 16 tiles and every gang adds 2",
                "a double on the dice doubles the hand's value (local variation: an x2 from a "
                "double that does not stack with liuju's passes to the next hand)",
                "2d6 inferred from the seed's '1/6 chance' of a double",
            ),
        ),
        dict(
            name="wsom", base="wsom", title="World Series of Mahjong",
            seed="003_c4a6019c3d77a876.txt", notation="mpsz",
            faces=_riichi_faces(), tiles_per_deck=136, stacks_per_wall=17, dead_wall_tiles=14,
            dice="2d6",
            break_procedure=dict(
                _RIICHI_BREAK, thrower="East",
                source="seed 003 'Dice Count' and 'Breaking the Wall' (single cast)",
            ),
            notes=(
                "no flowers or seasons",
                "the dead wall is the 'kong box'; it stays 14 tiles (the 7th stack from the "
                "end is split when a supplement tile leaves half a stack)",
                "17 stacks per wall is not in the seed: 136 tiles in 4 two-high walls",
            ),
        ),
    ]
    for k in range(len(UZJE_OPTIONS) + 1):
        for opts in itertools.combinations(UZJE_OPTIONS, k):
            faces = _uzje_faces(opts)
            out.append(dict(
                name="+".join(("uzje",) + opts), base="uzje", options=opts, title="Ùzje",
                seed="004_31bfe3af6c2d3975.txt", notation="uzje", faces=faces,
                tiles_per_deck=sum(faces.values()), stacks_per_wall=_uzje_stacks(opts),
                dead_wall_tiles=16, dice="3d6", dice_alternatives=("1d20",),
                break_procedure=dict(
                    count_direction="counter-clockwise", origin_seat="left", origin_value=0,
                    unit="tiles", thrower="a designated starter player",
                    breaker_becomes_dealer=True,
                    source="seed 004 'Breaking the wall'",
                ),
                notes=(
                    "winds: %s; tongs: %s; flowers: %s" % (
                        "compressed H V" if "compressed-winds" in opts else "full E S W N",
                        "all 1..16" if "all-tongs" in opts else "1 and 16 only",
                        "all 8" if "flowers" in opts else "none"),
                    "the break counts tiles (16 tiles = 8 stacks): an odd count ends mid-stack",
                    "the breaker becomes the dealer",
                    "dead wall tiles stay there: replacement tiles come from the live wall",
                ),
            ))
    return out


def _load() -> dict[str, RulesetProfile]:
    profiles = {}
    for item in _data():
        p = RulesetProfile.model_validate(item)
        profiles[p.name] = p
    return profiles


# --------------------------------------------------------------------------- names

def _norm(token: str) -> str:
    t = unicodedata.normalize("NFKD", token)
    t = "".join(c for c in t if not unicodedata.combining(c))
    return re.sub(r"[\s_]+", "-", t.strip().lower())


def accepted_names_text(*, mixed_deck_hint: bool = True) -> str:
    """What a ruleset name may be, for error messages and help."""
    text = (
        "accepted: %s; Ùzje options joined by '+' in any order: %s (e.g. uzje+flowers+all-tongs)"
        % (", ".join(BASE_NAMES), ", ".join("uzje+" + o for o in UZJE_OPTIONS))
    )
    if mixed_deck_hint:
        text += "; Mixed Deck is not part of the name: use --mixed-deck"
    return text


def canonical_name(name: str) -> str:
    """``"Ùzje+all-tongs+flowers"`` -> ``"uzje+flowers+all-tongs"``.

    Raises :class:`UnknownRulesetError` naming what was given and what is accepted.
    """
    if not isinstance(name, str) or not name.strip():
        raise UnknownRulesetError("no ruleset given; " + accepted_names_text())
    parts = [_norm(p) for p in name.split("+")]
    base, opts = parts[0], parts[1:]
    if base not in BASE_NAMES:
        raise UnknownRulesetError("unknown ruleset %r; %s" % (name, accepted_names_text()))
    allowed = _OPTIONS.get(base, ())
    seen = []
    for o in opts:
        if o == "mixed-deck":
            raise UnknownRulesetError(
                "ruleset %r: Mixed Deck is an overlay, not a '+' option: give --mixed-deck "
                "with the ruleset; %s" % (name, accepted_names_text(mixed_deck_hint=False)))
        if not allowed:
            raise UnknownRulesetError(
                "ruleset %r: %s takes no '+' options (only uzje does); %s"
                % (name, base, accepted_names_text()))
        if o not in allowed:
            raise UnknownRulesetError(
                "ruleset %r: unknown option %r; %s"
                % (name, o, accepted_names_text()))
        if o in seen:
            raise UnknownRulesetError("ruleset %r: option %r given twice; %s"
                                      % (name, o, accepted_names_text()))
        seen.append(o)
    return "+".join([base] + [o for o in allowed if o in seen])


_PROFILES: dict[str, RulesetProfile] = {}  # filled below, after the validators can run
_PROFILES.update(_load())


def get_ruleset(name: "str | RulesetProfile") -> RulesetProfile:
    """The validated profile for ``name`` (any accepted spelling). A fresh copy: callers
    may not change the shared data."""
    if isinstance(name, RulesetProfile):
        return name
    return _PROFILES[canonical_name(name)].model_copy(deep=True)


def list_rulesets() -> list[RulesetProfile]:
    """Every ruleset: the five bases, then the other Ùzje option combinations."""
    return [p.model_copy(deep=True) for p in _PROFILES.values()]


def ruleset_names() -> list[str]:
    return list(_PROFILES)


# --------------------------------------------------------------------------- the table

def check_fits(profile: "RulesetProfile | str", table_max_stacks: int, table_tracks: int = 4) -> None:
    """Refuse, before any motor moves, a ruleset the table cannot build.

    Raises :class:`TableFitError`, e.g. "uzje+all-tongs needs 28 stacks per wall; this
    table's walls hold 18".
    """
    profile = get_ruleset(profile)
    for what, v in (("table_max_stacks", table_max_stacks), ("table_tracks", table_tracks)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError("%s must be a positive integer, got %r" % (what, v))
    problems = []
    if table_tracks != profile.walls:
        problems.append("%s needs %d walls (one per track); this table has %d tracks"
                        % (profile.name, profile.walls, table_tracks))
    if profile.stacks_per_wall > table_max_stacks:
        problems.append("%s needs %d stacks per wall; this table's walls hold %d"
                        % (profile.name, profile.stacks_per_wall, table_max_stacks))
    if problems:
        raise TableFitError(
            "; ".join(problems), ruleset=profile.name, needs_stacks=profile.stacks_per_wall,
            table_stacks=table_max_stacks, needs_walls=profile.walls, table_tracks=table_tracks)


# --------------------------------------------------------------------------- tiles

def tiles_for_set(profile: "RulesetProfile | str") -> list[str]:
    """One set's tiles, one face per tile, in canonical face order (deterministic)."""
    profile = get_ruleset(profile)
    return [face for face, n in profile.faces.items() for _ in range(n)]


def check_colours(colours) -> tuple[str, str]:
    """Two back-colour names (``unknown`` is the sensor's no-answer class); the same name
    twice means the two sets' backs look alike."""
    try:
        a, b = (str(c).strip().lower() for c in colours)
    except (TypeError, ValueError):
        got = ",".join(str(c) for c in colours) if isinstance(colours, (list, tuple)) else colours
        raise RulesetError("give exactly two back colours, e.g. blue,green, or the same name "
                           "twice (blue,blue) for two sets whose backs look alike (got %s)"
                           % (str(got)[:80] or "none")) from None
    for c in (a, b):
        if not re.fullmatch(r"[a-z][a-z0-9-]{0,15}", c):
            raise RulesetError("back colour '%s': use a short lowercase name such as blue or "
                               "green" % c[:40])
        if c == "unknown":
            raise RulesetError("'unknown' is the colour sensor's no-answer class, not a back colour")
    return (a, b)


def tiles_for_sets(profile: "RulesetProfile | str", colours=DEFAULT_COLOURS) -> list[tuple[str, str]]:
    """Both sets as ``(face, back colour)`` pairs: the first colour's set, then the second."""
    colours = check_colours(colours)
    tiles = tiles_for_set(profile)
    return [(f, c) for c in colours for f in tiles]


def combined_faces(profile: "RulesetProfile | str", *, by_game_face: bool = False) -> dict[str, int]:
    """The face multiset of two sets together (special tiles folded onto the face they
    play as if ``by_game_face``)."""
    profile = get_ruleset(profile)
    out: dict[str, int] = {}
    for face, n in profile.faces.items():
        key = game_face(face) if by_game_face else face
        out[key] = out.get(key, 0) + 2 * n
    return out


def max_copies_per_face(profile: "RulesetProfile | str") -> int:
    """The most copies of one face a Mixed Deck deck can hold (all of both sets' copies
    landing in one deck): 8 for the four-of-a-kind rulesets; special tiles count as the
    face they play as (Speed Tonpuu: 5p, 0p, 5pg are all 5p)."""
    return max(combined_faces(profile, by_game_face=True).values())


def mixed_deck(profile: "RulesetProfile | str", colours=DEFAULT_COLOURS) -> MixedDeck:
    """The Mixed Deck overlay on ``profile`` (seed 000): both sets mixed, split in half."""
    profile = get_ruleset(profile)
    return MixedDeck(
        ruleset=profile.name,
        colours=check_colours(colours),
        deck_tiles=profile.tiles_per_deck,
        total_tiles=2 * profile.tiles_per_deck,
        faces=combined_faces(profile),
        game_faces=combined_faces(profile, by_game_face=True),
        max_copies_per_face=max_copies_per_face(profile),
    )
