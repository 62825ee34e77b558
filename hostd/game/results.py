"""What each entry does to the game (docs/SCORING.md "Entries"). Every function works on
a copy the ledger throws away if it raises, so a refusal changes nothing.

    RESULTS[kind](game, entry, rules, dice_double) -> None
"""
from __future__ import annotations

from hostd.game.entries import WinnerHand, winner_hands
from hostd.game.errors import BadEntry, NotNow, RulesetForbids
from hostd.game.game import Game, end_checks, finish, next_hand, placement
from hostd.game.payments import (chombo_payments, head_bump, noten_payments, win_payments,
                                 zero)
from hostd.game.seats import WINDS


def _book(game: Game, kind: str, payments: dict, chips: dict | None = None, **more) -> None:
    for p in WINDS:
        game.points[p] += payments[p]
        game.chips[p] += (chips or {}).get(p, 0)
    # the dealer of the hand this entry is for: its players' winds then (the page names
    # them so, not by the next hand's winds)
    game.last = dict(kind=kind, payments=dict(payments), dealer=game.dealer, **more)
    if chips and any(chips.values()):
        game.last["chips"] = dict(chips)
    game.can_pass = False


def riichi(game: Game, entry, rules, dice_double) -> None:
    p = entry.player
    if p in game.riichi:
        raise NotNow("%s is already in riichi this hand" % p, key="riichi_again", player=p)
    if game.points[p] < rules.riichi_stick:
        raise NotNow("%s has %s points: a riichi needs %d for the stick"
                     % (p, game.points[p], rules.riichi_stick), key="riichi_points", player=p,
                     points=game.points[p], need=rules.riichi_stick)
    book = zero()
    book[p] = -rules.riichi_stick
    _book(game, "riichi", book, player=p)
    game.riichi.append(p)
    game.sticks += 1


def _doubles(game: Game, entry, rules, dice_double: int) -> int:
    """Shenyang: x2 after a draw (seed 002 line 49), the dice's double (line 48)."""
    if rules.scoring != "multipliers":
        return 1
    d = 2 if game.after_draw else 1
    if entry.dice and entry.dice[0] == entry.dice[1]:
        d *= dice_double
    return d


def win(game: Game, entry, rules, dice_double) -> None:
    hands = winner_hands(entry)
    discarder = entry.discarder if entry.kind == "ron" else None
    closed = entry.closed or []
    if any(h.player in closed for h in hands):
        raise BadEntry("a Shenyang winner's hand is open (seed 002 line 12): 'closed' lists "
                       "the payers whose hand was closed", key="winner_closed")
    _settle(game, rules, entry.kind, hands, discarder, closed=closed,
            doubles=_doubles(game, entry, rules, dice_double))


def _settle(game: Game, rules, kind, hands, discarder, *, closed=(), doubles=1,
            **more) -> None:
    """A win's payments, honba, riichi sticks and pot, then the next hand."""
    book, chips, details = win_payments(
        hands, rules, dealer=game.dealer, discarder=discarder, honba=game.honba,
        closed=closed, doubles=doubles)
    taker = head_bump(hands, discarder)
    if game.sticks:
        book[taker] += game.sticks * rules.riichi_stick
    if game.pot:  # Shenyang: the next winner takes the pot (seed 002 line 67)
        book[taker] += game.pot
        more["pot"] = game.pot
    more["winners"] = details
    if discarder:
        more["from"] = discarder
    _book(game, kind, book, chips, **more)
    game.sticks, game.pot, game.riichi, game.after_draw = 0, 0, [], False
    keeps = rules.dealer_keeps != "never" and game.dealer in [h.player for h in hands]
    _then(game, rules, keeps=keeps, payees=[h.player for h in hands])


def _then(game: Game, rules, *, keeps: bool, payees, honba=None, passable=True) -> None:
    """After a hand's result: the end checks, then the next hand."""
    end_checks(game, rules, payees)
    if not game.ended:
        next_hand(game, rules, keeps=keeps, honba=honba or ("plus" if keeps else "reset"))
    game.can_pass = bool(keeps and passable and not game.ended and rules.pass_rule)


def draw(game: Game, entry, rules, dice_double) -> None:
    tenpai = [p for p in WINDS if p in entry.tenpai]
    _book(game, "draw", noten_payments(rules, tenpai), tenpai=tenpai)
    game.riichi, game.after_draw = [], True
    if rules.dealer_keeps == "win-or-tenpai":
        keeps = game.dealer in tenpai
    else:
        keeps = rules.dealer_keeps == "win-or-draw"
    _then(game, rules, keeps=keeps, payees=tenpai, honba="plus")


def abortive(game: Game, entry, rules, dice_double) -> None:
    """Dealer keeps, honba +1, riichi sticks stay on the table (ruling)."""
    _book(game, "abortive", zero())
    game.riichi = []
    next_hand(game, rules, keeps=True, honba="plus")


def chombo(game: Game, entry, rules, dice_double) -> None:
    """The hand is replayed: dealer and honba unchanged; riichi sticks of the hand go back
    to their players (ruling)."""
    book = chombo_payments(rules, entry.player, game.dealer)
    for p in game.riichi:
        book[p] += rules.riichi_stick
    game.sticks -= len(game.riichi)
    _book(game, "chombo", book, player=entry.player)
    game.riichi = []
    end_checks(game, rules, payees=[])


def pass_deal(game: Game, entry, rules, dice_double) -> None:
    if not game.can_pass:
        raise NotNow("a pass (agariyame/tenpaiyame) is the dealer's, right after winning or "
                     "being tenpai at a draw, before anything else is entered", key="pass_not_now")
    if rules.pass_rule == "all-last-top":
        if not game.is_last_hand(rules) or placement(game)[0] != game.dealer:
            raise RulesetForbids("%s: %s" % (rules.name, rules.sources["pass_rule"]),
                                 key="pass_last_top")
        _book(game, "pass", zero(), player=game.dealer)
        finish(game, rules, "%s passed (agariyame/tenpaiyame)" % game.dealer)
        return
    # Speed Tonpuu: the deal moves on and honba resets (seed 001 lines 12-14)
    _book(game, "pass", zero(), player=game.dealer)
    next_hand(game, rules, keeps=False, honba="reset")


def nagashi(game: Game, entry, rules, dice_double) -> None:
    """Nagashi mangan (rules.py "nagashi"): paid as a tsumo of ``rules.nagashi_han``; a
    win in Speed Tonpuu (honba, sticks, the deal), else a draw (sticks stay, honba +1,
    the dealer keeps the deal if tenpai)."""
    hand = WinnerHand(player=entry.player, han=rules.nagashi_han)
    if rules.nagashi == "win":
        _settle(game, rules, "nagashi", [hand], None)
        return
    book, _, details = win_payments([hand], rules, dealer=game.dealer, discarder=None, honba=0)
    tenpai = [p for p in WINDS if p in entry.tenpai]
    _book(game, "nagashi", book, winners=details, tenpai=tenpai)
    game.riichi = []
    _then(game, rules, keeps=game.dealer in tenpai, payees=[entry.player], honba="plus")


def suukantsu(game: Game, entry, rules, dice_double) -> None:
    """Speed Tonpuu's special suukantsu (seed 001 lines 43-47): a double yakuman of its
    own, no chips but its yakuman shuugi (10 from each on a tsumo, 20 on a ron, line 68)."""
    ron = entry.discarder is not None
    hand = WinnerHand(player=entry.winner, yakuman=2, chips=20 if ron else 10)
    _settle(game, rules, "suukantsu", [hand], entry.discarder)


def pot(game: Game, entry, rules, dice_double) -> None:
    """Shenyang: a revealed tile costs its player ``pot_per_tile`` into the pot."""
    book = zero()
    book[entry.player] = -rules.pot_per_tile * entry.tiles
    _book(game, "pot", book, player=entry.player, tiles=entry.tiles)
    game.pot += rules.pot_per_tile * entry.tiles


def transfer(game: Game, entry, rules, dice_double) -> None:
    book = zero()
    book.update(entry.payments)
    chips = zero()
    chips.update(entry.chips)
    _book(game, "transfer", book, chips)


def end(game: Game, entry, rules, dice_double) -> None:
    _book(game, "end", zero())
    finish(game, rules, "ended by agreement")


RESULTS = {"riichi": riichi, "ron": win, "tsumo": win, "draw": draw, "abortive": abortive,
           "chombo": chombo, "pass": pass_deal, "nagashi": nagashi, "suukantsu": suukantsu,
           "pot": pot, "transfer": transfer, "end": end}
