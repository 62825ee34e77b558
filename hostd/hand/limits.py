"""From han and fu to points (docs/HANDS.md "Points"): the limit, the base points and
each payer's share.

    limit_of(han, fu, yakuman, *, options) -> (limit or None, base points)
    payments(base, *, dealer, tsumo, seat) -> {"total", "payments": [{"payer", "points"}]}

Below a limit, base = fu x 2^(han + 2), a limit above 2000 (mangan); kiriage (option)
makes 4 han 30 fu and 3 han 60 fu mangan. 6-7 han haneman (3000), 8-10 baiman (4000),
11-12 sanbaiman (6000), 13 or more a counted yakuman (8000; sanbaiman without the
``kazoe_yakuman`` option); each yakuman 8000, up to six. A share is the base times 4 (a
non-dealer's ron), 6 (a dealer's ron), or on tsumo 2 from the dealer and 1 from each other
seat (2 from each for the dealer), each rounded up to 100.
"""
from __future__ import annotations

from hostd.hand.scoring_rules import WINDS

MANGAN = 2000
#: (lowest han, limit, base) for 5 han or more, highest first.
_LIMITS = ((11, "sanbaiman", 6000), (8, "baiman", 4000), (6, "haneman", 3000),
           (5, "mangan", 2000))
MAX_YAKUMAN = 6


def limit_of(han: int, fu: int, yakuman: int, *, options: dict) -> tuple[str | None, int]:
    if yakuman:
        k = min(yakuman, MAX_YAKUMAN)
        return ("yakuman" if k == 1 else "%dx yakuman" % k), 8000 * k
    if han >= 13:
        return ("kazoe yakuman", 8000) if options["kazoe_yakuman"] else ("sanbaiman", 6000)
    for low, name, base in _LIMITS:
        if han >= low:
            return name, base
    if options["kiriage"] and (han, fu) in ((4, 30), (3, 60)):
        return "kiriage mangan", MANGAN
    base = fu * 2 ** (han + 2)
    return ("mangan", MANGAN) if base > MANGAN else (None, base)


def _up(x: int) -> int:
    return (x + 99) // 100 * 100


def total_of(base: int, *, dealer: bool, tsumo: bool) -> int:
    """What the winner gains in all (the sum of :func:`payments`' shares)."""
    if not tsumo:
        return _up(base * (6 if dealer else 4))
    return 3 * _up(2 * base) if dealer else _up(2 * base) + 2 * _up(base)


def payments(base: int, *, dealer: bool, tsumo: bool, seat: int) -> dict:
    """What each payer gives the winner (``seat``: 0-3, east..north), before honba and
    riichi sticks; a ron's payer is the discarder."""
    if not tsumo:
        pays = [{"payer": "discarder", "points": _up(base * (6 if dealer else 4))}]
    else:
        pays = [{"payer": WINDS[s], "points": _up(base * (2 if dealer or s == 0 else 1))}
                for s in range(4) if s != seat]
    return {"total": sum(p["points"] for p in pays), "payments": pays}
