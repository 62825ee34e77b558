"""Dice and the wall break (host side, CPython only).

Two sources of dice:

* real play: ``roll(spec)`` with no ``rng`` draws from :class:`secrets.SystemRandom`
  (the operating system's cryptographic source);
* demos and the simulator: ``roll(spec, rng=seeded_rng(seed))`` or any object with a
  ``randint(a, b)`` method (e.g. one of the simulator's own seeded streams).

:func:`break_wall` turns a throw into the break of the wall, following the ruleset's
break procedure (``RulesetProfile.break_procedure``, see docs/RULESETS.md):

    >>> from hostd.rules.rulesets import get_ruleset
    >>> break_wall(get_ruleset("riichi"), (3, 4)).contract_dict()
    {'total': 7, 'breaker': 'across', 'break_from_right': 7, 'unit': 'stacks', 'dead_wall_tiles': 14}

Errors are :class:`DiceError` (a ``ValueError``) whose message names what was given and
what the ruleset accepts.
"""
from __future__ import annotations

import random
import re
import secrets
from typing import TYPE_CHECKING, Iterable, Protocol

from pydantic import BaseModel, ConfigDict

from hostd.rules.dice_spec import DiceError, DiceSpec, parse_dice_spec

if TYPE_CHECKING:  # pragma: no cover
    from hostd.rules.rulesets import BreakProcedure, RulesetProfile

__all__ = [
    "SEATS",
    "DiceError",
    "DiceSpec",
    "Dice",
    "BreakResult",
    "parse_dice_spec",
    "parse_dice",
    "fair_rng",
    "seeded_rng",
    "roll",
    "roll_for",
    "check_dice",
    "breaker_for",
    "break_wall",
]

#: The four seats seen from the thrower, in counter-clockwise order (the order of play:
#: each player's next is the one on their right).
SEATS = ("self", "right", "across", "left")

class _RandInt(Protocol):  # pragma: no cover - typing only
    def randint(self, a: int, b: int) -> int: ...


def parse_dice(text: str) -> tuple[int, ...]:
    """``"3,4"`` (also ``"3 4"``, ``"3+4"``) -> ``(3, 4)``. Syntax only; ranges are
    checked against a ruleset by :func:`check_dice`."""
    parts = [p for p in re.split(r"[\s,+]+", str(text).strip()) if p]
    if not parts:
        raise DiceError("no dice given: give the faces separated by commas, e.g. 3,4")
    out = []
    for p in parts:
        if not re.fullmatch(r"-?[0-9]+", p):
            raise DiceError(
                "dice %r: %r is not a whole number; give the faces separated by commas, e.g. 3,4"
                % (text, p)
            )
        out.append(int(p))
    return tuple(out)


def fair_rng() -> secrets.SystemRandom:
    """The cryptographic source for real play."""
    return secrets.SystemRandom()


def seeded_rng(seed: "int | str") -> random.Random:
    """A reproducible dice stream for demos and the simulator.

    The stream is namespaced (``random.Random("jantaku-dice:<seed>")``) so that the same
    seed used for the simulator's mixing stream does not give correlated dice. A seed
    given as a string of digits is the same as that integer (``"42"`` == ``42``).
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, str)):
        raise DiceError("seed must be an integer or a string, got %r" % (seed,))
    s = str(seed).strip()
    if re.fullmatch(r"[+-]?[0-9]+", s):
        s = str(int(s))
    return random.Random("jantaku-dice:" + s)


def roll(spec: "str | DiceSpec", rng: "_RandInt | None" = None) -> tuple[int, ...]:
    """Throw ``spec``; cryptographic unless ``rng`` (anything with ``randint``) is given."""
    spec = parse_dice_spec(spec)
    r = fair_rng() if rng is None else rng
    return tuple(r.randint(1, spec.sides) for _ in range(spec.count))


def _allowed_specs(profile: "RulesetProfile") -> list[DiceSpec]:
    return [parse_dice_spec(s) for s in (profile.dice, *profile.dice_alternatives)]


def _accepted_text(profile: "RulesetProfile") -> str:
    specs = _allowed_specs(profile)
    throws = str(specs[0])
    if len(specs) > 1:
        throws += " (or %s)" % ", ".join(str(s) for s in specs[1:])
    return "%s throws %s: %s" % (profile.name, throws, " or ".join(s.describe() for s in specs))


def roll_for(
    profile: "RulesetProfile",
    *,
    rng: "_RandInt | None" = None,
    seed: "int | str | None" = None,
    spec: "str | DiceSpec | None" = None,
) -> tuple[int, ...]:
    """Throw the ruleset's dice (or ``spec``, which must be one the ruleset allows, e.g.
    Ùzje's ``1d20``). ``seed`` -> :func:`seeded_rng`; neither ``rng`` nor ``seed`` ->
    cryptographic."""
    if rng is not None and seed is not None:
        raise DiceError("give rng or seed, not both")
    allowed = _allowed_specs(profile)
    if spec is None:
        use = allowed[0]
    else:
        use = parse_dice_spec(spec)
        if use not in allowed:
            raise DiceError(
                "%s does not throw %s; %s" % (profile.name, use, _accepted_text(profile))
            )
    if seed is not None:
        rng = seeded_rng(seed)
    return roll(use, rng)


def check_dice(profile: "RulesetProfile", dice: Iterable[int]) -> DiceSpec:
    """Validate a throw against the ruleset (count and faces); return the spec it matches.

    The count chooses among the ruleset's specs (Ùzje: 3 dice -> 3d6, 1 die -> 1d20).
    """
    try:
        values = tuple(dice)
    except TypeError:
        raise DiceError("dice must be a sequence of integers, got %r" % (dice,)) from None
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int):
            raise DiceError(
                "dice %r: %r is not a whole number; %s" % (values, v, _accepted_text(profile))
            )
    shown = ",".join(str(v) for v in values) or "none"
    by_count = [s for s in _allowed_specs(profile) if s.count == len(values)]
    if not by_count:
        n = len(values)
        raise DiceError(
            "wrong number of dice: got %d (%s); %s"
            % (n, shown, _accepted_text(profile))
        )
    spec = by_count[0]
    bad = [v for v in values if not 1 <= v <= spec.sides]
    if bad:
        raise DiceError(
            "die face %d is out of range 1..%d (dice %s); %s"
            % (bad[0], spec.sides, shown, _accepted_text(profile))
        )
    return spec


def breaker_for(procedure: "BreakProcedure", total: int) -> str:
    """The seat (``self``/``right``/``across``/``left``, seen from the thrower) a dice
    total points at, by the procedure's counting rule: ``origin_seat`` counts as
    ``origin_value`` and each step of 1 moves one seat in ``count_direction``."""
    order = SEATS if procedure.count_direction == "counter-clockwise" else (
        "self", "left", "across", "right"
    )
    start = order.index(procedure.origin_seat)
    return order[(start + total - procedure.origin_value) % 4]


class BreakResult(BaseModel):
    """Where the wall breaks. ``contract_dict()`` is the CLI's ``break --json`` output."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ruleset: str
    dice: tuple[int, ...]
    dice_spec: str
    total: int
    #: seat of the wall breaker, seen from the thrower
    breaker: str
    #: count this many ``unit`` from the right end of the breaker's wall (leftwards,
    #: i.e. clockwise); the break is there, the dead wall starts at it and runs right
    break_from_right: int
    unit: str
    dead_wall_tiles: int

    @property
    def stacks_from_right(self) -> float:
        """The break in stacks (a tile count of 7 is 3.5 stacks: mid-stack)."""
        return self.break_from_right / 2 if self.unit == "tiles" else float(self.break_from_right)

    @property
    def dead_wall_stacks(self) -> int:
        return self.dead_wall_tiles // 2

    def __getitem__(self, key: str):
        """``result["breaker"]``: the fields read like a dict's items."""
        if key not in type(self).model_fields:
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    def contract_dict(self) -> dict:
        """Exactly the keys of ``jantaku break --json``."""
        return {
            "total": self.total,
            "breaker": self.breaker,
            "break_from_right": self.break_from_right,
            "unit": self.unit,
            "dead_wall_tiles": self.dead_wall_tiles,
        }


def break_wall(profile: "RulesetProfile", dice: Iterable[int]) -> BreakResult:
    """The break for this throw under ``profile``'s break procedure.

    Raises :class:`DiceError` if the throw does not fit the ruleset's dice.
    """
    values = parse_dice(dice) if isinstance(dice, str) else tuple(dice)
    spec = check_dice(profile, values)
    proc = profile.break_procedure
    total = sum(values)
    return BreakResult(
        ruleset=profile.name,
        dice=values,
        dice_spec=str(spec),
        total=total,
        breaker=breaker_for(proc, total),
        break_from_right=total,
        unit=proc.unit,
        dead_wall_tiles=profile.dead_wall_tiles,
    )


SEAT_WORDS = {"self": "the thrower", "right": "the thrower's right", "across": "across",
              "left": "the thrower's left"}


def announcement(profile: "RulesetProfile", dice: Iterable[int], *, hand: int, by: str,
                 first_of_game: bool) -> dict:
    """What people are told of a hand's throw: the throw (``dice``, ``by``), the fields of
    ``jantaku break --json``, ``double`` where the ruleset scores one (Shenyang),
    ``breaker_is_dealer`` where the breaker becomes the starting dealer (Ùzje: a game's
    first hand only; later dealers follow the results, which the table does not know),
    and ``text``, one line."""
    brk = break_wall(profile, dice)
    out = {"hand": hand, "dice": list(brk.dice), "by": by}
    out.update(brk.contract_dict())
    words = ["dice %s = %d: %s breaks, %d %s from the right end of their wall; dead wall %d "
             "tiles" % ("+".join(str(d) for d in brk.dice), brk.total,
                        SEAT_WORDS[brk.breaker], brk.break_from_right, brk.unit,
                        brk.dead_wall_tiles)]
    if profile.dice_double_multiplier > 1:
        out["double"] = len(brk.dice) > 1 and len(set(brk.dice)) == 1
        if out["double"]:
            words.append("a double: the hand counts x%d" % profile.dice_double_multiplier)
    if profile.break_procedure.breaker_becomes_dealer:
        out["breaker_is_dealer"] = bool(first_of_game)
        if first_of_game:
            words.append("the breaker is the dealer")
    out["text"] = "; ".join(words)
    return out


class Dice:
    """A session's dice: cryptographic in real play (``Dice()``), one reproducible stream
    for demos and the simulator (``Dice(seed=S)``, or ``Dice(rng=stream)``).

    Unlike ``roll_for(profile, seed=S)`` (which starts the stream afresh each call), one
    ``Dice`` keeps its stream, so successive hands get successive throws.
    """

    def __init__(self, seed: "int | str | None" = None, *, rng: "_RandInt | None" = None):
        if seed is not None and rng is not None:
            raise DiceError("give seed or rng, not both")
        self.seed = seed
        self._rng = rng if rng is not None else (seeded_rng(seed) if seed is not None else None)

    @property
    def cryptographic(self) -> bool:
        return self._rng is None

    def roll(self, profile: "RulesetProfile", spec: "str | DiceSpec | None" = None) -> list[int]:
        """Throw the ruleset's dice (or an allowed alternative ``spec``)."""
        return list(roll_for(profile, rng=self._rng, spec=spec))

    def break_wall(self, profile: "RulesetProfile", dice: Iterable[int]) -> BreakResult:
        return break_wall(profile, dice)

    def throw(self, profile: "RulesetProfile", spec: "str | DiceSpec | None" = None) -> BreakResult:
        """Roll and break in one step."""
        return break_wall(profile, self.roll(profile, spec))

    def __repr__(self) -> str:
        return "Dice(%s)" % ("cryptographic" if self.cryptographic else "seed=%r" % (self.seed,))
