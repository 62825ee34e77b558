"""Who pays whom for one hand's result, per ruleset (docs/SCORING.md). Each function
returns a full map player -> points (+ receives, - pays; every player present), summing
to 0 unless riichi sticks move (the ledger adds those).

    win_payments(hands, rules, *, dealer, discarder, honba, dice_double, carry)
        -> (payments, chips, details)
    noten_payments(rules, tenpai)  chombo_payments(rules, player, dealer)
    uma_chips(rules, placement)
"""
from __future__ import annotations

from hostd.game.seats import WINDS, nearest_after, others, seat_wind
from hostd.game.values import riichi_base, shenyang_factor, uzje_points, wsom_value
from hostd.hand.limits import payments as riichi_shares
from hostd.hand.limits import total_of


def zero() -> dict:
    return {p: 0 for p in WINDS}


def _pay(book: dict, payer: str, payee: str, amount) -> None:
    book[payer] -= amount
    book[payee] += amount


def _exact(x):
    """Ùzje's halves stay halves; a whole number is an int."""
    return int(x) if x == int(x) else x

# ----------------------------------------------------------------------------- per ruleset


def _liable(hand, discarder):
    """The liable player (pao) who pays for ``hand``, unless it is the discarder (who pays
    the whole anyway), or None."""
    return hand.pao if getattr(hand, "pao", None) and hand.pao != discarder else None


def _riichi_hand(book, hand, rules, *, dealer, discarder) -> dict:
    """Limits and shares from hostd/hand/limits.py: a ron's discarder pays the whole; on
    tsumo the dealer pays twice a non-dealer's share (all of them twice for the dealer).
    With a liable player (pao, rules.py "pao"): on a tsumo they pay the whole as a ron; on
    a ron half, rounded up to 100, and the discarder the rest."""
    limit, base = riichi_base(hand, rules)
    winner, is_dealer = hand.player, hand.player == dealer
    pao = _liable(hand, discarder)
    whole = total_of(base, dealer=is_dealer, tsumo=False)
    if pao and discarder:
        half = -(-whole // 200) * 100
        _pay(book, pao, winner, half)
        _pay(book, discarder, winner, whole - half)
    elif pao:
        _pay(book, pao, winner, whole)
    elif discarder:
        _pay(book, discarder, winner, whole)
    else:
        shares = riichi_shares(base, dealer=is_dealer, tsumo=True,
                               seat=WINDS.index(seat_wind(winner, dealer)))
        by_wind = {seat_wind(p, dealer): p for p in WINDS}
        for share in shares["payments"]:
            _pay(book, by_wind[share["payer"]], winner, share["points"])
    detail = {"player": winner, "limit": limit, "base": base}
    detail.update({k: getattr(hand, k) for k in ("han", "fu", "yakuman", "pao")
                   if getattr(hand, k) is not None})
    return detail


def _wsom_hand(book, hand, *, discarder) -> dict:
    """Seed 003 lines 293-299: the patterns (after the limits) times 3; on self-draw, or a
    discard worth 25 or less, each loser pays a third; above 25 on a discard the two others
    pay 25 each and the discarder the rest (170: 460, 25, 25)."""
    value, winner = wsom_value(hand.patterns), hand.player
    for p in others(winner):
        if discarder is None or value <= 25:
            _pay(book, p, winner, value)
        else:
            _pay(book, p, winner, 3 * value - 50 if p == discarder else 25)
    return {"player": winner, "patterns": value, "total": 3 * value}


def _shenyang_hand(book, hand, *, dealer, discarder, closed, doubles, ron_pays) -> dict:
    """Seed 002 lines 36-40: base 2 times the hand's multipliers (and the dice's and the
    last draw's doubles); each payer's share doubles if the dealer wins or pays, and if
    the payer's hand is closed. A ron: the discarder pays x2, alone (``ron_pays``
    "discarder") or beside the others' x1 ("all"); a tsumo: everyone pays x1."""
    winner = hand.player
    value = 2 * shenyang_factor(hand.multipliers) * doubles
    payers = [discarder] if discarder and ron_pays == "discarder" else others(winner)
    for p in payers:
        share = value * (2 if p == discarder else 1)
        share *= 2 if dealer in (winner, p) else 1
        share *= 2 if p in closed else 1
        _pay(book, p, winner, share)
    return {"player": winner, "value": value}


def _uzje_hand(book, hand, *, discarder) -> dict:
    """Seed 004 lines 234-236: the discarder pays the amount (to each winner); on
    self-draw every other player pays exactly half."""
    amount, winner = uzje_points(hand), hand.player
    for p in ([discarder] if discarder else others(winner)):
        _pay(book, p, winner, amount if discarder else _exact(amount / 2))
    return {"player": winner, "points": amount}

# ----------------------------------------------------------------------------- a win


def win_payments(hands, rules, *, dealer, discarder, honba, closed=(), doubles=1):
    """(points, chips, details) for a ron (``discarder`` set) or a tsumo; honba and chips
    included, riichi sticks not. ``doubles``: Shenyang's dice and draw doubles."""
    book, chips, details = zero(), zero(), []
    for hand in hands:
        if rules.scoring == "han":
            details.append(_riichi_hand(book, hand, rules, dealer=dealer, discarder=discarder))
        elif rules.scoring == "patterns":
            details.append(_wsom_hand(book, hand, discarder=discarder))
        elif rules.scoring == "multipliers":
            details.append(_shenyang_hand(book, hand, dealer=dealer, discarder=discarder,
                                          closed=closed, doubles=doubles,
                                          ron_pays=rules.ron_pays))
        else:
            details.append(_uzje_hand(book, hand, discarder=discarder))
        pao = _liable(hand, discarder)
        if pao:  # the full shuugi: a ron's, or 3x a tsumo's share (seed 001 line 61)
            _pay(chips, pao, hand.player, (hand.chips or 0) * (1 if discarder else 3))
        else:
            for p in ([discarder] if discarder else others(hand.player)):
                _pay(chips, p, hand.player, hand.chips or 0)
    if honba and rules.honba_per_payer:
        taker = head_bump(hands, discarder)
        pao = None if discarder else _liable(hands[0], None)
        for p in ([discarder] if discarder else others(taker)):
            _pay(book, pao or p, taker, honba * rules.honba_per_payer * (3 if discarder else 1))
    return book, chips, details


def head_bump(hands, discarder) -> str:
    """Who takes the honba and the riichi sticks: the only winner, or on a double ron the
    one nearest the discarder in turn order (ruling, docs/SCORING.md)."""
    players = [h.player for h in hands]
    return nearest_after(discarder, players) if discarder else players[0]

# ----------------------------------------------------------------------------- others


def noten_payments(rules, tenpai) -> dict:
    """The noten players split ``noten_total`` to the tenpai players (none if all or none
    are tenpai): 1 tenpai +3000, 2 +1500 each, 3 +1000 each."""
    book = zero()
    if rules.noten_total and 0 < len(tenpai) < 4:
        for p in WINDS:
            if p in tenpai:
                book[p] += rules.noten_total // len(tenpai)
            else:
                book[p] -= rules.noten_total // (4 - len(tenpai))
    return book


def chombo_payments(rules, player: str, dealer: str) -> dict:
    """riichi (ruling): a reversed mangan tsumo, the dealer paid 4,000 and the others
    2,000 (a dealer's chombo: 4,000 each); Speed Tonpuu 3,000 to each (seed 001 line 80);
    Shenyang 8 to each (seed 002 line 56)."""
    book = zero()
    for p in others(player):
        if rules.chombo == "mangan":
            amount = 4000 if dealer in (p, player) else 2000
        else:
            amount = {"3000-all": 3000, "8-each": 8}[rules.chombo]
        _pay(book, player, p, amount)
    return book


def uma_chips(rules, placement) -> dict:
    """Oka and uma by placement (Speed Tonpuu 13/3/-5/-11, seed 001 line 76)."""
    book = zero()
    for p, chips in zip(placement, rules.uma_chips or (0, 0, 0, 0)):
        book[p] += chips
    return book
