"""Seats and turn order.

Players are keyed by the wind of their seat at the first hand, ``east`` ``south``
``west`` ``north`` (counter-clockwise, the order of play). The first dealer is
``east`` unless the ledger is told otherwise (Ùzje's breaker becomes the dealer, seed
004 line 115); a player's seat wind is counted from the dealer.
"""
from __future__ import annotations

WINDS = ("east", "south", "west", "north")


def offset(player: str, first: str) -> int:
    """How many seats ``player`` sits after ``first`` in the order of play (0..3)."""
    return (WINDS.index(player) - WINDS.index(first)) % 4


def seat_wind(player: str, dealer: str) -> str:
    """``player``'s seat wind while ``dealer`` deals."""
    return WINDS[offset(player, dealer)]


def next_player(player: str) -> str:
    return WINDS[(WINDS.index(player) + 1) % 4]


def in_turn_order(first: str) -> list[str]:
    """All four players, ``first`` first, then in the order of play."""
    return [WINDS[(WINDS.index(first) + k) % 4] for k in range(4)]


def nearest_after(discarder: str, players) -> str:
    """Of ``players``, the first to play after ``discarder`` (the head-bump winner)."""
    return min(players, key=lambda p: offset(p, discarder) or 4)


def others(player: str) -> list[str]:
    return [p for p in WINDS if p != player]
