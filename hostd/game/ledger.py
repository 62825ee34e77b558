"""The game ledger: one game's seats, dealer, honba, riichi sticks, points and chips,
kept entry by entry under a ruleset's rules (issue #40; docs/SCORING.md).

    led = Ledger(ruleset="riichi", dealer="east", names=None, dice_double=None)
    led.apply(entry) -> state      # refused (LedgerError) with nothing changed if it cannot be
    led.undo() -> state            # exactly the state before the last entry
    led.state() -> dict            # GET /score
    led.entries -> list[dict]      # normalised, JSON-safe; Ledger.replay(...) rebuilds the game
    led.hands() -> list[dict]      # each hand as it was dealt (dealer, round, hand, honba)
    Ledger.replay(ruleset, entries, dealer="east", names=None) -> Ledger

Pure code: no I/O, no clock. Undo keeps the state before each entry, so an undo is exact.
"""
from __future__ import annotations

import copy
import dataclasses

from hostd.game.entries import normalise, parse_entry
from hostd.game.errors import BadEntry, LedgerError, NotNow
from hostd.game.game import Game, view
from hostd.game.results import RESULTS
from hostd.game.seats import WINDS
from hostd.rules.game import RULES, GameRules, options_of
from hostd.rules.rulesets import RulesetError, canonical_name

__all__ = ["Ledger", "LedgerError", "HAND_ENDS"]

#: The entries that end a hand at the table (a chombo's hand is played again: a new deal).
HAND_ENDS = ("ron", "tsumo", "draw", "abortive", "chombo", "nagashi", "suukantsu")


def rules_for(name: str) -> GameRules:
    """The game rules of ``name`` (Ùzje's options and Mixed Deck change no scoring)."""
    try:
        canon = canonical_name(name)
    except RulesetError as e:
        raise BadEntry(str(e)) from None
    return RULES[canon.split("+")[0]]


def with_options(rules: GameRules, options: dict) -> GameRules:
    """``rules`` with a game's options set (a ``rules`` entry); BadEntry naming what each
    option accepts."""
    if not isinstance(options, dict):
        raise BadEntry("a rules entry's options are name: value")
    for name, value in options.items():
        accepted = rules.options.get(name)
        if accepted is None:
            raise BadEntry("%s has no option %r; %s" % (
                rules.name, name, "its options: %s" % ", ".join(rules.options)
                if rules.options else "it has none"))
        if value not in accepted:
            raise BadEntry("%s's %s is one of %s, not %r (docs/SCORING.md)" % (
                rules.name, name, ", ".join(accepted), value),
                key="option_value", name=name, accepted=list(accepted))
    return dataclasses.replace(rules, **options)


def _dealt(game: Game, result) -> dict:
    return {"dealer": game.dealer, "round": WINDS[game.round % 4],
            "hand": game.hand_number(), "honba": game.honba, "result": result}


def _dice_double(rules, dice_double) -> int:
    """The factor a double on the table's dice gives: Shenyang's x2 (seed 002 line 48)
    unless told otherwise (1 turns it off); other rulesets have none."""
    if dice_double is None:
        return 2 if rules.scoring == "multipliers" else 1
    if isinstance(dice_double, bool) or not isinstance(dice_double, int) or dice_double < 1:
        raise BadEntry("dice_double is a whole factor, 1 or more (1: a double on the dice "
                       "counts nothing), not %r" % (dice_double,))
    if dice_double != 1 and rules.scoring != "multipliers":
        raise BadEntry("only Shenyang doubles a hand for a double on the dice; %s takes no "
                       "dice_double" % rules.name)
    return dice_double


def _names(names) -> dict:
    if names is None:
        return {}
    if not isinstance(names, dict) or any(k not in WINDS for k in names):
        raise BadEntry("names maps players (%s) to their names" % ", ".join(WINDS))
    return {k: (None if v is None else str(v)) for k, v in names.items()}


class Ledger:
    def __init__(self, ruleset: str = "riichi", dealer: str = "east", names=None,
                 dice_double=None):
        self.rules = rules_for(ruleset)
        if dealer not in WINDS:
            raise BadEntry("dealer %r is not a player; players are %s" % (dealer, ", ".join(WINDS)))
        self.names = _names(names)
        self.dice_double = _dice_double(self.rules, dice_double)
        self._game = Game.start(self.rules, dealer)
        self._before: list = []  # (the game, its rules) before each entry, for undo
        self._entries: list[dict] = []

    @property
    def entries(self) -> list[dict]:
        return copy.deepcopy(self._entries)

    def state(self) -> dict:
        out = view(self._game, self.rules, self.names)
        out["entries"] = len(self._entries)
        return out

    def apply(self, entry: dict) -> dict:
        """Check ``entry`` and apply it; the new state. A LedgerError leaves all as it was."""
        parsed = parse_entry(entry, self.rules)
        if parsed.kind == "undo":
            return self.undo()
        if self._game.ended:
            raise NotNow("the game has ended (%s): no more entries; undo the last entry to "
                         "change it" % self._game.ended_by, key="game_over")
        game, rules = copy.deepcopy(self._game), self.rules
        if parsed.kind == "rules":
            rules = self._options(game, parsed)
        else:
            RESULTS[parsed.kind](game, parsed, rules, self.dice_double)
        self._before.append((self._game, self.rules))
        self._game, self.rules = game, rules
        self._entries.append(normalise(parsed))
        return self.state()

    def _options(self, game: Game, parsed):
        """A rules entry: the game's options, before its first result."""
        if any(e["kind"] != "rules" for e in self._entries):
            raise NotNow("a game's rules are set before its first entry (this game has %d); "
                         "undo back to its start to change them" % len(self._entries),
                         key="rules_not_now")
        rules = with_options(self.rules, parsed.options())
        game.last = {"kind": "rules", "payments": {p: 0 for p in WINDS},
                     "options": options_of(rules)}
        return rules

    def undo(self) -> dict:
        """Remove the last entry: the state is exactly what it was before it."""
        if not self._entries:
            raise NotNow("nothing to undo: no entry has been applied", key="nothing_to_undo")
        self._game, self.rules = self._before.pop()
        self._entries.pop()
        return self.state()

    def hands(self) -> list[dict]:
        """Each hand played so far, in order (the entries that ended one: a result, a
        chombo's replayed deal): ``{"dealer", "round", "hand", "honba"}`` as it was dealt,
        then the hand in play (``"result": None``).  The n-th is the game's n-th deal at
        the table (docs/SCORING.md "The break by player")."""
        out = []
        for (before, _), entry in zip(self._before, self._entries):
            if entry["kind"] in HAND_ENDS:
                out.append(_dealt(before, entry["kind"]))
        if not self._game.ended:
            out.append(_dealt(self._game, None))
        return out

    @classmethod
    def replay(cls, ruleset: str, entries, *, dealer: str = "east", names=None,
               dice_double=None) -> "Ledger":
        """A ledger rebuilt from ``entries`` (as :attr:`entries` gave them)."""
        led = cls(ruleset, dealer=dealer, names=names, dice_double=dice_double)
        for e in entries:
            led.apply(e)
        return led
