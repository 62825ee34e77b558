"""Dice specs and bad dice: ``"2d6"`` read as :class:`DiceSpec`, and :class:`DiceError`.

Below both the rulesets (which check their dice fields with :func:`parse_dice_spec`) and
:mod:`hostd.rules.dice` (throws and the wall break, which reads a ruleset): the import
runs one way, rulesets -> dice_spec <- dice.  ``hostd.rules.dice`` gives these names too.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from hostd.errors import BadRequest

__all__ = ["DiceError", "DiceSpec", "parse_dice_spec"]

_SPEC_RE = re.compile(r"^\s*([1-9][0-9]?)\s*[dD]\s*([1-9][0-9]{0,2})\s*$")


class DiceError(BadRequest, ValueError):
    """Bad dice: wrong count, a face out of range, an unparsable value or spec.
    (A ``hostd.errors.BadRequest``: the API answers 400 ``bad_request``.)"""


class DiceSpec(NamedTuple):
    """``count`` dice of ``sides`` faces each (faces 1..sides), written ``"2d6"``."""

    count: int
    sides: int

    def __str__(self) -> str:
        return "%dd%d" % (self.count, self.sides)

    @property
    def max_total(self) -> int:
        return self.count * self.sides

    def describe(self) -> str:
        """``"2 dice, each 1..6"`` / ``"1 die, 1..20"``."""
        if self.count == 1:
            return "1 die, 1..%d" % self.sides
        return "%d dice, each 1..%d" % (self.count, self.sides)


def parse_dice_spec(text: "str | DiceSpec") -> DiceSpec:
    """``"3d6"`` -> ``DiceSpec(3, 6)``. At least 1 die of at least 2 sides."""
    if isinstance(text, DiceSpec):
        return text
    m = _SPEC_RE.match(str(text))
    if not m:
        raise DiceError("dice spec %r is not of the form NdS, e.g. 2d6, 3d6 or 1d20" % (text,))
    spec = DiceSpec(int(m.group(1)), int(m.group(2)))
    if spec.sides < 2:
        raise DiceError("dice spec %r: a die needs at least 2 sides" % (text,))
    return spec
