"""The entries of ``POST /score`` as pydantic models: a union discriminated on ``kind``.

    parse_entry(data, rules) -> Entry      # BadEntry / RulesetForbids with what is accepted
    normalise(entry) -> dict               # the JSON-safe form the ledger keeps and replays
    winner_hands(entry) -> list[WinnerHand]

Kinds (docs/SCORING.md "Entries"): riichi, ron, tsumo, draw, abortive, chombo, pass,
nagashi, suukantsu, pot, transfer, rules, end, undo. A win's value is entered the way its ruleset counts it: ``han`` and
``fu`` (or ``yakuman``, and ``pao``: the liable player) in the riichi family, ``patterns`` in WSOM, ``multipliers`` in
Shenyang, ``fan`` (or ``limits``) in Ùzje. This module checks one entry on its own; what
the game's state allows is the ledger's matter.
"""
from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import (BaseModel, BeforeValidator, ConfigDict, Field, StrictFloat,
                      StrictInt, ValidationError, model_validator)
from pydantic_core import PydanticCustomError

from hostd.game.errors import BadEntry, RulesetForbids
from hostd.rules.game import GameRules
from hostd.game.seats import WINDS
from hostd.game.values import FIELDS, check_value


def _lower(v):
    return v.strip().lower() if isinstance(v, str) else v


Player = Annotated[Literal["east", "south", "west", "north"], BeforeValidator(_lower)]
Points = Union[StrictInt, StrictFloat]


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)


class Value(_Entry):
    """What one winner's hand is worth, in its ruleset's terms (values.check_value)."""

    han: StrictInt | None = Field(None, ge=1, le=100)
    fu: StrictInt | None = Field(None, ge=20, le=110)
    yakuman: StrictInt | None = Field(None, ge=1, le=6)
    patterns: StrictInt | list[StrictInt] | None = None
    multipliers: list[str] | None = None
    fan: StrictInt | StrictFloat | None = Field(None, ge=0, le=100)
    limits: StrictInt | None = Field(None, ge=1, le=20)
    chips: StrictInt | None = Field(None, ge=0, le=100)
    #: the liable player (pao) who pays for this hand (riichi family)
    pao: Player | None = None


class WinnerHand(Value):
    player: Player


class _Win(Value):
    #: Shenyang: the payers whose hand was closed (they pay double, seed 002 line 38)
    closed: list[Player] | None = None
    #: Shenyang: the table's throw for this hand (a double doubles, seed 002 line 48)
    dice: tuple[Annotated[StrictInt, Field(ge=1, le=6)], Annotated[StrictInt, Field(ge=1, le=6)]] | None = None


class Ron(_Win):
    kind: Literal["ron"]
    winner: Player | None = None
    winners: list[WinnerHand] | None = Field(None, min_length=1, max_length=3)
    discarder: Player = Field(alias="from")

    @model_validator(mode="after")
    def _one_way(self):
        if (self.winner is None) == (self.winners is None):
            raise ValueError("give either 'winner' (one winner) or 'winners' (a list of "
                             "{player, and the hand's value}), not both or neither")
        if self.winners is not None and self.value_fields():
            raise ValueError("with 'winners', give each hand's value inside its winner "
                             "(found %s outside)" % ", ".join(self.value_fields()))
        players = [self.winner] if self.winner else [w.player for w in self.winners]
        if len(set(players)) != len(players):
            raise ValueError("a winner is listed twice")
        if self.discarder in players:
            # a keyed refusal (errors.py): the page may pick "from" as the winner
            raise PydanticCustomError("own_discard", "{player} cannot win on their own discard "
                                      "('from' is the discarder; a win on one's own tile is "
                                      "a tsumo)", {"player": self.discarder})
        return self

    def value_fields(self) -> list[str]:
        return [f for f in Value.model_fields if getattr(self, f) is not None]


class Tsumo(_Win):
    kind: Literal["tsumo"]
    winner: Player


class Riichi(_Entry):
    kind: Literal["riichi"]
    player: Player


class _Tenpai(_Entry):
    """An end of a hand where who was tenpai may matter."""
    tenpai: list[Player] = []

    @model_validator(mode="after")
    def _distinct(self):
        if len(set(self.tenpai)) != len(self.tenpai):
            raise ValueError("a player is listed twice in tenpai")
        return self


class Draw(_Tenpai):
    kind: Literal["draw"]


class Abortive(_Entry):
    kind: Literal["abortive"]


class Chombo(_Entry):
    kind: Literal["chombo"]
    player: Player


class Pass(_Entry):
    kind: Literal["pass"]


class Transfer(_Entry):
    kind: Literal["transfer"]
    payments: dict[Player, Points] = {}
    chips: dict[Player, StrictInt] = {}

    @model_validator(mode="after")
    def _zero_sum(self):
        for what, m in (("payments", self.payments), ("chips", self.chips)):
            if sum(m.values()) != 0:
                raise ValueError("%s must sum to 0 (what one pays another receives); these "
                                 "sum to %s" % (what, sum(m.values())))
        if not any(self.payments.values()) and not any(self.chips.values()):
            raise ValueError("a transfer moves something: give payments (player -> points, "
                             "summing to 0) and/or chips")
        for v in self.payments.values():
            if isinstance(v, float) and (v * 2) % 1:
                raise ValueError("points are whole (or halves, in Ùzje), not %s" % v)
        return self


class Nagashi(_Tenpai):
    """Nagashi mangan by ``player``; ``tenpai``: who was tenpai, where it is then a draw
    (riichi: the dealer keeps the deal if tenpai)."""
    kind: Literal["nagashi"]
    player: Player


class Suukantsu(_Entry):
    """Speed Tonpuu's special suukantsu: a tsumo, or a ron ``from`` the player who gave the
    daiminkan (seed 001 lines 43-47)."""
    kind: Literal["suukantsu"]
    winner: Player
    discarder: Player | None = Field(None, alias="from")

    @model_validator(mode="after")
    def _not_own(self):
        if self.discarder == self.winner:
            raise PydanticCustomError("own_discard", "{player} cannot win on their own discard "
                                      "('from' is who gave the 4th kan's tile; leave it out "
                                      "for a tsumo)", {"player": self.winner})
        return self


class Pot(_Entry):
    """Shenyang's pot: ``player`` revealed ``tiles`` tiles (seed 002 line 67)."""
    kind: Literal["pot"]
    player: Player
    tiles: StrictInt = Field(1, ge=1, le=34)


class Rules(_Entry):
    """A game's options (docs/SCORING.md "Options"), before its first result."""
    kind: Literal["rules"]
    ron_pays: str | None = None  # its values: GameRules.options (ledger.with_options)

    def options(self) -> dict:
        return {k: v for k, v in self.model_dump(exclude={"kind"}).items() if v is not None}


class End(_Entry):
    kind: Literal["end"]


class Undo(_Entry):
    kind: Literal["undo"]


MODELS = {m.model_fields["kind"].annotation.__args__[0]: m
          for m in (Riichi, Ron, Tsumo, Draw, Abortive, Chombo, Pass, Nagashi, Suukantsu, Pot,
                    Transfer, Rules, End, Undo)}
KINDS = tuple(MODELS)
#: The union the API's schema can use; parse_entry picks the model by kind itself, so
#: that its errors name the fields of that kind.
Entry = Annotated[Union[tuple(MODELS.values())], Field(discriminator="kind")]


def _fields_of(kind: str, rules: GameRules) -> str:
    """The fields ``kind`` takes in ``rules``: its own, then the win value's there."""
    model, out = MODELS[kind], ["kind"]
    for name, f in model.model_fields.items():
        if name in Value.model_fields or name == "kind":
            continue
        if name in ("closed", "dice") and rules.scoring != "multipliers":
            continue
        out.append(f.alias or name)
    if issubclass(model, Value):
        out += [f for f in FIELDS[rules.scoring] if (f != "chips" or rules.win_chips)
                and (f != "pao" or rules.pao)]
    if model is Rules:
        out = ["kind"] + list(rules.options)
    return ", ".join(out)


#: the models' own refusals that carry a translation key (errors.py)
KEYED = ("own_discard",)


def _describe(errors) -> str:
    """pydantic's errors as one line: "winner: Input should be ...; ..." ."""
    parts = []
    for e in errors:
        msg = e.get("msg", "invalid").removeprefix("Value error, ")
        if e.get("type") == "extra_forbidden":
            msg = "unknown field"
        loc = ".".join(str(x) for x in e.get("loc", ()))
        parts.append("%s: %s" % (loc, msg) if loc else msg)
    return "; ".join(parts)


def parse_entry(data, rules: GameRules):
    """One entry, checked on its own and against ``rules`` (not against the game's state)."""
    if not isinstance(data, dict) or "kind" not in data:
        raise BadEntry("an entry is a JSON object with a 'kind'; accepted kinds: %s"
                       % ", ".join(KINDS))
    kind = _lower(data["kind"])
    if kind not in MODELS:
        raise BadEntry("unknown entry kind %r; accepted kinds: %s" % (data["kind"], ", ".join(KINDS)))
    if kind not in rules.kinds:
        raise RulesetForbids("%s has no %r entry; it takes: %s" % (
            rules.name, kind, ", ".join(k for k in KINDS if k in rules.kinds)),
            key="kind_forbidden", kind=kind)
    try:
        entry = MODELS[kind].model_validate(dict(data, kind=kind))
    except ValidationError as e:
        errors = e.errors()
        keyed = errors[0] if len(errors) == 1 and errors[0]["type"] in KEYED else {}
        raise BadEntry("%s entry: %s (a %s entry in %s takes: %s)" % (
            kind, _describe(errors), kind, rules.name, _fields_of(kind, rules)),
            key=keyed.get("type"), **keyed.get("ctx", {})) from None
    check = _CHECKS.get(kind)
    if check is not None:
        check(entry, rules)
    return entry


# -- an entry against the rules, one function a kind that has such a check (_CHECKS)
def _check_draw(entry, rules: GameRules) -> None:
    if entry.tenpai and rules.dealer_keeps != "win-or-tenpai":
        raise BadEntry("%s: tenpai does not matter at a draw (%s); leave 'tenpai' out"
                       % (rules.name, rules.sources.get("dealer_keeps", "no noten payments")),
                       key="tenpai_unused")


def _check_nagashi(entry, rules: GameRules) -> None:
    if entry.tenpai and rules.nagashi != "draw":
        raise BadEntry("%s: nagashi mangan is a win (%s); leave 'tenpai' out"
                       % (rules.name, rules.sources.get("nagashi", "")), key="tenpai_unused")


def _check_rules(entry, rules: GameRules) -> None:
    if not entry.options():
        raise BadEntry("a rules entry sets one of %s's options: %s" % (
            rules.name, ", ".join("%s (%s)" % (k, ", ".join(v)) for k, v in rules.options.items())),
            key="option_missing")


def _check_transfer(entry, rules: GameRules) -> None:
    if entry.chips and not rules.win_chips:
        raise BadEntry("%s counts no chips; a transfer gives 'payments' only" % rules.name,
                       key="no_chips")


def _check_win(entry, rules: GameRules) -> None:
    if entry.closed is not None and rules.scoring != "multipliers":
        raise BadEntry("'closed' (payers with a closed hand) is Shenyang's; %s does not "
                       "use it" % rules.name)
    if entry.dice is not None and rules.scoring != "multipliers":
        raise BadEntry("'dice' (the throw's double) is Shenyang's; %s does not use it"
                       % rules.name)
    hands = winner_hands(entry)
    if len(hands) > rules.max_ron_winners:
        raise RulesetForbids("%s takes at most %d winner%s on one discard: %s" % (
            rules.name, rules.max_ron_winners, "" if rules.max_ron_winners == 1 else "s",
            rules.sources.get("max_ron_winners", "")), key="too_many_winners",
            most=rules.max_ron_winners)
    tsumo = entry.kind == "tsumo"
    for h in hands:
        try:
            check_value(h, rules, tsumo=tsumo)
        except BadEntry as e:
            who = " (%s)" % h.player if len(hands) > 1 else ""
            raise BadEntry("%s entry%s: %s" % (entry.kind, who, e.message), key=e.key,
                           **e.params) from None


_CHECKS = {"ron": _check_win, "tsumo": _check_win, "draw": _check_draw, "nagashi": _check_nagashi,
           "rules": _check_rules, "transfer": _check_transfer}


def winner_hands(entry) -> list:
    """The winners of a ron or tsumo, each as a :class:`WinnerHand`."""
    if getattr(entry, "winners", None) is not None:
        return list(entry.winners)
    fields = {f: getattr(entry, f) for f in Value.model_fields if getattr(entry, f) is not None}
    return [WinnerHand(player=entry.winner, **fields)]


def normalise(entry) -> dict:
    """The entry as JSON-safe data (``from`` spelt so), what replay takes back."""
    return entry.model_dump(mode="json", by_alias=True, exclude_none=True)


__all__ = ["KINDS", "Entry", "parse_entry", "normalise", "winner_hands", "WINDS"]
