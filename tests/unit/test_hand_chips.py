"""Chips (hostd.hand.chips): what each item counts, from whom."""
from hostd.hand import parse_hand
from hostd.hand.chips import chips_of
from hostd.hand.scoring_rules import options_for
from hostd.hand.win import make_win

TABLE = options_for("speed-tonpuu")["chips"]


def items(r):
    return {i["item"]: (i["count"], i["chips"]) for i in r["items"]}


def test_coloured_tiles_ippatsu_and_ura_on_a_ron():
    hand = parse_hand("0m6m7mb4p0p6p123s5zx5zx5z9m9m", mixed_deck=True)
    r = chips_of(hand, make_win(win="5z", riichi=True, ippatsu=True), ura=2, yakuman=0,
                 table=TABLE)
    assert items(r) == {"red": (2, 2), "blue": (1, 2), "pocchi": (2, 2), "ippatsu": (1, 1),
                        "ura": (2, 2)}
    assert (r["per_payer"], r["payers"], r["total"]) == (9, 1, 9)


def test_a_tsumo_takes_from_each_of_three_and_yakuman_count():
    hand = parse_hand("5pg", calls=["pon:111z", "pon:222z", "pon:333z", "pon:444z"])
    r = chips_of(hand, make_win(win="5pg", tsumo=True), ura=0, yakuman=2, table=TABLE)
    assert items(r) == {"gold": (1, 1), "yakuman_tsumo_each": (2, 10)}
    assert (r["per_payer"], r["payers"], r["total"]) == (11, 3, 33)
    r = chips_of(hand, make_win(win="5pg"), ura=0, yakuman=1, table=TABLE)
    assert items(r)["yakuman_ron"] == (1, 10) and r["total"] == 11


def test_no_table_no_chips():
    hand = parse_hand("0m6m7mb4p0p6p123s5zx5zx5z9m9m", mixed_deck=True)
    r = chips_of(hand, make_win(win="5z"), ura=3, yakuman=1, table={})
    assert r == {"items": [], "per_payer": 0, "payers": 1, "total": 0}
