"""The game's running state and how it moves on between hands (docs/SCORING.md).

    Game.start(rules, dealer) -> Game
    next_hand(game, rules, keeps=..., honba=...)   # the deal kept or passed; the end by rounds
    end_checks(game, rules, payees)                # a bust, Speed Tonpuu's called game
    finish(game, rules, why)                       # placement, leftover sticks, uma
    left_on_table(game, rules) -> dict | None      # what an end would give out now
    view(game, rules, names) -> dict               # the GET /score shape
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

from hostd.game.payments import uma_chips, zero
from hostd.rules.game import options_of
from hostd.game.seats import WINDS, next_player, offset, seat_wind


@dataclass
class Game:
    first: str
    dealer: str
    points: dict
    chips: dict = field(default_factory=zero)
    round: int = 0
    honba: int = 0
    sticks: int = 0
    #: Shenyang's pot (seed 002 line 67): points the next winner takes
    pot: int = 0
    #: players in riichi this hand (their sticks are on the table)
    riichi: list = field(default_factory=list)
    #: Shenyang: the last hand was a draw, so this hand's win doubles (seed 002 line 49)
    after_draw: bool = False
    #: the dealer kept the deal by a win or tenpai just now: a pass is possible
    can_pass: bool = False
    ended: bool = False
    ended_by: str | None = None
    placement: list | None = None
    last: dict | None = None

    @classmethod
    def start(cls, rules, dealer: str) -> "Game":
        return cls(first=dealer, dealer=dealer, points={p: rules.start_points for p in WINDS})

    def hand_number(self) -> int:
        return offset(self.dealer, self.first) + 1

    def is_last_hand(self, rules) -> bool:
        return self.round == rules.rounds - 1 and self.hand_number() == 4


def placement(game: Game) -> list[str]:
    """Players by points, ties by seat order from the first dealer (ruling)."""
    return sorted(WINDS, key=lambda p: (-game.points[p], offset(p, game.first)))


def next_hand(game: Game, rules, *, keeps: bool, honba: str) -> None:
    """Move on to the next hand: the dealer keeps the deal or passes it to the next seat
    (a new round when it comes back to the first dealer); honba ``"plus"``, ``"reset"``
    or ``"same"`` (rulesets without honba keep 0). Past the last round the game ends,
    the state left at its last hand."""
    counters = game.honba
    if rules.honba_per_payer:
        counters = {"plus": game.honba + 1, "reset": 0, "same": game.honba}[honba]
    if keeps:
        game.honba = counters
        return
    dealer, rnd = next_player(game.dealer), game.round
    if dealer == game.first:
        rnd += 1
    if rnd >= rules.rounds:
        finish(game, rules, "the last hand (%s %d) was played" % (
            WINDS[game.round % 4], game.hand_number()))
        return
    game.dealer, game.round, game.honba = dealer, rnd, counters


def end_checks(game: Game, rules, payees) -> None:
    """After a hand's result: a player below 0 ends the game (riichi family, ruling) and
    pays the tobi chip to each of ``payees`` (seed 001 lines 69-70); a player reaching the
    called game takes its chip from each other player (seed 001 line 16)."""
    why = []
    busted = [p for p in WINDS if game.points[p] < 0] if rules.bust_ends else []
    if busted:
        why.append("%s went below 0" % ", ".join(busted))
        for b in busted:
            for p in payees:
                if p != b:
                    game.chips[b] -= rules.tobi_chips
                    game.chips[p] += rules.tobi_chips
    called = [p for p in WINDS if rules.called_game and game.points[p] >= rules.called_game]
    if called:
        why.append("%s reached %d (called game)" % (", ".join(called), rules.called_game))
        for c in called:
            for p in WINDS:
                if p != c:
                    game.chips[p] -= rules.called_game_chips
                    game.chips[c] += rules.called_game_chips
    if why:
        finish(game, rules, "; ".join(why))


def left_on_table(game: Game, rules) -> dict | None:
    """What the end would give out now: riichi sticks and the pot left on the table, and
    who takes them (first place, ruling): ``{"sticks", "points", "pot", "to"}``, or None
    when nothing is left."""
    if not game.sticks and not game.pot:
        return None
    return {"sticks": game.sticks, "points": game.sticks * rules.riichi_stick,
            "pot": game.pot, "to": placement(game)[0]}


def finish(game: Game, rules, why: str) -> None:
    """End the game: riichi sticks and a pot left on the table go to first place (ruling),
    then placement and the chips of oka and uma."""
    order = placement(game)
    if game.sticks:
        game.points[order[0]] += game.sticks * rules.riichi_stick
        if game.last is not None:
            game.last.setdefault("leftover_sticks", {order[0]: game.sticks * rules.riichi_stick})
        game.sticks = 0
    if game.pot:
        game.points[order[0]] += game.pot
        if game.last is not None:
            game.last.setdefault("leftover_pot", {order[0]: game.pot})
        game.pot = 0
    for p, c in uma_chips(rules, order).items():
        game.chips[p] += c
    game.ended, game.ended_by, game.placement = True, why, order
    game.riichi, game.can_pass = [], False


def view(game: Game, rules, names: dict) -> dict:
    """The state as ``GET /score`` answers it (docs/SCORING.md "State")."""
    return {
        "ruleset": rules.name,
        "game": 1,
        "round": WINDS[game.round % 4],
        "round_wind": WINDS[game.round % 4] if rules.round_wind else None,
        "hand": game.hand_number(),
        "honba": game.honba,
        "dealer": game.dealer,
        "sticks": game.sticks,
        "pot": game.pot,
        "left_on_table": None if game.ended else left_on_table(game, rules),
        "options": options_of(rules),
        "riichi": list(game.riichi),
        "ended": game.ended,
        "ended_by": game.ended_by,
        "placement": list(game.placement) if game.placement else None,
        "can_pass": game.can_pass,
        "players": {p: {"name": names.get(p), "wind": seat_wind(p, game.dealer),
                        "points": game.points[p], "chips": game.chips[p]} for p in WINDS},
        "last": copy.deepcopy(game.last),
    }
