"""Chips (shuugi) a win earns, as a ruleset counts them (``chips`` option; Speed Tonpuu,
seed 001 "Shuugi"): each coloured tile, ippatsu, each ura dora, and per yakuman (counted
ones too) 10 on a ron or 5 from each on a tsumo. A tsumo's chips come from each of the
three others (so pao covers "3x shuugi"), a ron's from the discarder.

    chips_of(hand, win, *, ura, yakuman, table) -> dict   # table: the chips option
"""
from __future__ import annotations

from hostd.hand.dora import every_tile

_TILE_ITEMS = (("red", lambda t: t[0] == "0"), ("blue", lambda t: t.endswith("b")),
               ("gold", lambda t: t == "5pg"), ("pocchi", lambda t: t.endswith("x")))


def chips_of(hand, win, *, ura: int, yakuman: int, table: dict) -> dict:
    """``{"items": [{"item", "count", "chips"}], "per_payer", "payers", "total"}``; no
    items when the ruleset counts no chips (``table``: item -> chips, the option)."""
    payers = 3 if win.tsumo else 1
    if not table:
        return {"items": [], "per_payer": 0, "payers": payers, "total": 0}
    counts = []
    if table:
        tiles = every_tile(hand)
        counts = [(k, sum(1 for t in tiles if is_it(t))) for k, is_it in _TILE_ITEMS]
        counts += [("ippatsu", int(win.ippatsu)), ("ura", ura)]
        counts.append(("yakuman_tsumo_each", yakuman) if win.tsumo else ("yakuman_ron", yakuman))
    items = [{"item": k, "count": n, "chips": n * table.get(k, 0)} for k, n in counts
             if n and table.get(k, 0)]
    per = sum(i["chips"] for i in items)
    return {"items": items, "per_payer": per, "payers": payers, "total": per * payers}
