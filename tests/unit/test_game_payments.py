"""hostd/game/payments.py (and the hand values of values.py): who pays whom for one
hand, per ruleset, against the seeds' worked examples and the usual tables."""
import pytest

from hostd.game.entries import WinnerHand
from hostd.game.payments import (chombo_payments, noten_payments, uma_chips, win_payments)
from hostd.rules.game import RULES


def hand(player, **value):
    return WinnerHand(player=player, **value)


def pays(ruleset, hands, *, dealer="east", discarder=None, honba=0, **kw):
    book, chips, details = win_payments(hands, RULES[ruleset], dealer=dealer,
                                        discarder=discarder, honba=honba, **kw)
    assert sum(book.values()) == 0 and sum(chips.values()) == 0
    return book, chips, details


# --------------------------------------------------------------------------- WSOM (seed 003)

def test_wsom_170_by_self_draw_is_510_170_from_each():
    # seed 003 line 319: "he or she wins 170 x 3 = 510 points, while the other three
    # players split -170" (each loses 170)
    book, _, _ = pays("wsom", [hand("north", patterns=170)], dealer="south")
    assert book == {"north": 510, "east": -170, "south": -170, "west": -170}


def test_wsom_170_on_a_discard_is_460_from_the_discarder_25_from_the_others():
    # seed 003 line 321
    book, _, _ = pays("wsom", [hand("north", patterns=170)], discarder="west")
    assert book == {"north": 510, "west": -460, "east": -25, "south": -25}


def test_wsom_25_or_less_on_a_discard_is_split_three_ways():
    # seed 003 line 297: 20 x 3 = 60, each loser 20
    book, _, _ = pays("wsom", [hand("east", patterns=20)], discarder="south")
    assert book == {"east": 60, "south": -20, "west": -20, "north": -20}
    book, _, _ = pays("wsom", [hand("east", patterns=25)], discarder="south")
    assert book["south"] == -25


@pytest.mark.parametrize("patterns, value", [
    (320, 320),           # a number is the hand's worth, taken as it is
    (400, 400),           # ... a single limit's too (seed 003 lines 175-176), never clamped
    (480, 480),
    ([400, 30], 400),     # a single 400 pattern scores 400 (seed 003 line 176)
    ([480], 480),
    ([120, 120, 100], 320),  # patterns listed are summed: compound limit 320 (line 173-174)
])
def test_wsom_limits(patterns, value):
    book, _, details = pays("wsom", [hand("east", patterns=patterns)])
    assert details[0]["patterns"] == value and book["east"] == 3 * value


@pytest.mark.parametrize("patterns", [330, 395, 405, 485, 960])
def test_wsom_a_number_beyond_the_limits_is_refused_not_clamped(patterns):
    """Issue 50: `patterns: 480` was scored 320 silently. A number above the compound limit
    that is no single limit is refused, saying what a hand can be worth (seed 003 lines
    172-176); a list is the way to give patterns that the limit holds to 320."""
    from hostd.game.entries import parse_entry
    from hostd.game.errors import BadEntry

    with pytest.raises(BadEntry) as e:
        parse_entry({"kind": "tsumo", "winner": "east", "patterns": patterns}, RULES["wsom"])
    assert "at most 320" in e.value.message and "400 or 480" in e.value.message
    assert e.value.key == "patterns_over_limit"


# --------------------------------------------------------------------------- riichi

def test_riichi_non_dealer_ron_3_han_30_fu_is_3900():
    book, _, details = pays("riichi", [hand("west", han=3, fu=30)], discarder="south")
    assert book["west"] == 3900 and book["south"] == -3900
    assert details[0]["base"] == 960 and details[0]["limit"] is None


def test_riichi_dealer_tsumo_mangan_is_4000_all_and_non_dealer_2000_4000():
    book, _, _ = pays("riichi", [hand("east", han=5)])
    assert book == {"east": 12000, "south": -4000, "west": -4000, "north": -4000}
    book, _, _ = pays("riichi", [hand("north", han=5)], dealer="south")
    assert book == {"north": 8000, "south": -4000, "east": -2000, "west": -2000}


def test_riichi_honba_300_a_counter_100_from_each_on_tsumo():
    book, _, _ = pays("riichi", [hand("west", han=1, fu=30)], discarder="east", honba=2)
    assert book["west"] == 1000 + 600
    book, _, _ = pays("riichi", [hand("west", han=2, fu=20)], honba=2)
    # 2 han 20 fu tsumo: base 320 -> dealer 700, others 400; + 200 from each
    assert book == {"west": 700 + 400 + 400 + 600, "east": -900, "south": -600, "north": -600}


def test_riichi_double_ron_both_paid_honba_to_the_winner_nearest_the_discarder():
    hands = [hand("south", han=2, fu=30), hand("north", han=3, fu=30)]
    book, _, _ = pays("riichi", hands, discarder="west", honba=1)
    # north plays right after west: the honba (300) is north's
    assert book == {"south": 2000, "north": 3900 + 300, "west": -6200, "east": 0}


def test_riichi_has_no_kiriage_and_speed_tonpuu_has():
    base, _, _ = pays("riichi", [hand("south", han=4, fu=30)], discarder="west")
    speed, _, _ = pays("speed-tonpuu", [hand("south", han=4, fu=30)], discarder="west")
    assert base["south"] == 7700 and speed["south"] == 8000


# --------------------------------------------------------------------------- Speed Tonpuu

def test_speed_tonpuu_basengo_500_per_player_per_counter():
    # seed 001 line 28: ron 1500 a counter from the discarder, tsumo 500 from each
    book, _, _ = pays("speed-tonpuu", [hand("west", han=1, fu=30)], discarder="east", honba=1)
    assert book["west"] == 1000 + 1500
    book, _, _ = pays("speed-tonpuu", [hand("west", han=5)], honba=1)
    assert book == {"west": 8000 + 1500, "east": -4500, "south": -2500, "north": -2500}


def test_speed_tonpuu_chips_from_the_discarder_or_from_each_on_tsumo():
    # seed 001 line 68: "10 chips if ron, and 5 chips each if tsumo"
    _, chips, _ = pays("speed-tonpuu", [hand("west", yakuman=1, chips=10)], discarder="east")
    assert chips == {"west": 10, "east": -10, "south": 0, "north": 0}
    _, chips, _ = pays("speed-tonpuu", [hand("west", yakuman=1, chips=5)])
    assert chips == {"west": 15, "east": -5, "south": -5, "north": -5}


# --------------------------------------------------------------------------- Shenyang (seed 002)

def test_shenyang_base_2_tsumo_everyone_pays_x1_dealer_and_closed_pay_double():
    # a non-dealer's bare tsumo: 2 from each; the dealer (east) pays 4; closed north 4
    book, _, _ = pays("shenyang", [hand("west")], closed=["north"])
    assert book == {"west": 2 + 4 + 4, "south": -2, "east": -4, "north": -4}


def test_shenyang_ron_the_discarder_pays_x2_with_multipliers_and_the_dice():
    # duiduihu x8, a double on the dice x2: 2 x 8 x 2 = 32; ron x2 = 64; closed x2 = 128
    book, _, details = pays("shenyang", [hand("west", multipliers=["duiduihu"])],
                            discarder="south", closed=["south"], doubles=2)
    assert details[0]["value"] == 32
    assert book == {"west": 128, "south": -128, "east": 0, "north": 0}


def test_shenyang_the_dealer_wins_double():
    # dealer tsumo, two gang (x2 each): 2 x 4 = 8, each pays 8 x 2 (the dealer wins double)
    book, _, _ = pays("shenyang", [hand("east", multipliers=["gang", "angang"])])
    assert book == {"east": 48, "south": -16, "west": -16, "north": -16}


# --------------------------------------------------------------------------- Ùzje (seed 004)

def test_uzje_7_fan_self_draw_25_from_each_75_in_all():
    # seed 004 line 236
    book, _, _ = pays("uzje", [hand("south", fan=7)])
    assert book == {"south": 75, "east": -25, "west": -25, "north": -25}


def test_uzje_multiple_winners_the_discarder_pays_each():
    # seed 004 line 235; 4 f is 5 points, 5 f 10 points
    book, _, _ = pays("uzje", [hand("south", fan=4), hand("west", fan=5)], discarder="north")
    assert book == {"south": 5, "west": 10, "north": -15, "east": 0}


def test_uzje_halves_stay_exact():
    book, _, _ = pays("uzje", [hand("south", fan=4)])
    assert book["east"] == -2.5 and book["south"] == 7.5


@pytest.mark.parametrize("fan, points", [(2.6, 2), (3, 2), (4, 5), (5, 10), (8, 100),
                                         (12, 2000), (13, 5000), (15, 5000), (16, 10000),
                                         (19, 15000), (24, 20000)])
def test_uzje_the_seeds_table(fan, points):
    # seed 004 lines 204-230
    _, _, details = pays("uzje", [hand("east", fan=fan)], discarder="west")
    assert details[0]["points"] == points


def test_uzje_limit_hands_count_no_fan():
    _, _, details = pays("uzje", [hand("east", limits=2)], discarder="west")
    assert details[0]["points"] == 10000


# --------------------------------------------------------------------------- the rest

@pytest.mark.parametrize("tenpai, book", [
    (["south"], {"south": 3000, "east": -1000, "west": -1000, "north": -1000}),
    (["south", "north"], {"south": 1500, "north": 1500, "east": -1500, "west": -1500}),
    (["east", "south", "west"], {"east": 1000, "south": 1000, "west": 1000, "north": -3000}),
    ([], {"east": 0, "south": 0, "west": 0, "north": 0}),
    (["east", "south", "west", "north"], {"east": 0, "south": 0, "west": 0, "north": 0}),
])
def test_noten_payments_3000_split(tenpai, book):
    assert noten_payments(RULES["riichi"], tenpai) == book


def test_noten_payments_none_where_tenpai_does_not_matter():
    assert set(noten_payments(RULES["shenyang"], ["east"]).values()) == {0}


def test_chombo_riichi_reversed_mangan_speed_3000_all_shenyang_8_each():
    assert chombo_payments(RULES["riichi"], "west", "east") == \
        {"west": -8000, "east": 4000, "south": 2000, "north": 2000}
    assert chombo_payments(RULES["riichi"], "east", "east") == \
        {"east": -12000, "south": 4000, "west": 4000, "north": 4000}
    assert chombo_payments(RULES["speed-tonpuu"], "west", "east") == \
        {"west": -9000, "east": 3000, "south": 3000, "north": 3000}
    assert chombo_payments(RULES["shenyang"], "west", "east") == \
        {"west": -24, "east": 8, "south": 8, "north": 8}


def test_speed_tonpuu_uma_13_3_minus5_minus11():
    assert uma_chips(RULES["speed-tonpuu"], ["north", "east", "west", "south"]) == \
        {"north": 13, "east": 3, "west": -5, "south": -11}
    assert set(uma_chips(RULES["riichi"], ["north", "east", "west", "south"]).values()) == {0}


# --------------------------------------------------------------------------- pao (issue 50)

def test_speed_tonpuu_pao_on_a_tsumo_pays_the_whole_and_3x_the_chips():
    # seed 001 lines 59-61: the liable player pays; "pays 3x shuugi in the case of tsumo"
    book, chips, details = pays("speed-tonpuu", [hand("west", yakuman=1, chips=5, pao="north")],
                                honba=1)
    assert book == {"west": 32000 + 1500, "north": -33500, "east": 0, "south": 0}
    assert chips == {"west": 15, "north": -15, "east": 0, "south": 0}
    assert details[0]["pao"] == "north"


def test_speed_tonpuu_pao_on_a_ron_halves_the_points_and_pays_every_chip():
    # ruling beside seed 001 line 61: half each, the liable player all the chips
    book, chips, _ = pays("speed-tonpuu", [hand("west", yakuman=1, chips=10, pao="north")],
                          discarder="south", honba=1)
    assert book == {"west": 32000 + 1500, "north": -16000, "south": -17500, "east": 0}
    assert chips == {"west": 10, "north": -10, "south": 0, "east": 0}
    # the dealer's 48,000: 24,000 each; a half that is not whole hundreds rounds up for pao
    book, _, _ = pays("riichi", [hand("east", yakuman=1, pao="north")], discarder="south")
    assert book == {"east": 48000, "north": -24000, "south": -24000, "west": 0}
    book, _, _ = pays("riichi", [hand("west", han=3, fu=30, pao="north")], discarder="south")
    assert book == {"west": 3900, "north": -2000, "south": -1900, "east": 0}


def test_pao_by_the_discarder_is_a_plain_ron_and_riichi_takes_pao_too():
    plain, _, _ = pays("riichi", [hand("west", yakuman=1)], discarder="south")
    same, _, _ = pays("riichi", [hand("west", yakuman=1, pao="south")], discarder="south")
    assert same == plain
    book, _, _ = pays("riichi", [hand("west", yakuman=1, pao="east")])
    assert book == {"west": 32000, "east": -32000, "south": 0, "north": 0}


# --------------------------------------------------------------------------- Shenyang's ron

def test_shenyang_ron_pays_all_every_other_player_pays_the_discarder_double():
    import dataclasses

    everyone = dataclasses.replace(RULES["shenyang"], ron_pays="all")
    hands = [hand("west", multipliers=["duiduihu"])]
    book, _, _ = win_payments(hands, everyone, dealer="east", discarder="south", honba=0,
                              closed=["north"])
    # 2 x 8 = 16: the discarder x2 (32), the dealer east x2 (32), closed north x2 (32)
    assert book == {"west": 96, "south": -32, "east": -32, "north": -32}
    book, _, _ = pays("shenyang", hands, discarder="south", closed=["north"])
    assert book == {"west": 32, "south": -32, "east": 0, "north": 0}  # the default


# -- the edges a one-character change would move (bench/mutation.py, issue 53 point 8) -------

def test_each_hands_detail_names_its_winner_and_what_it_was_worth():
    """The details the ledger keeps (and the page shows) per winner, per ruleset."""
    _, _, d = pays("riichi", [hand("south", han=3, fu=30)], discarder="west")
    assert d == [{"player": "south", "limit": None, "base": 960, "han": 3, "fu": 30}]
    _, _, d = pays("wsom", [hand("north", patterns=170)], discarder="west")
    assert d == [{"player": "north", "patterns": 170, "total": 510}]
    _, _, d = pays("shenyang", [hand("west", multipliers=["duiduihu"])], discarder="north")
    assert d == [{"player": "west", "value": 16}]
    _, _, d = pays("uzje", [hand("south", fan=7)])
    assert d == [{"player": "south", "points": 50}]


def test_uzje_self_draw_halves_stay_halves_and_whole_shares_are_integers():
    """A share the JSON export writes: 25, not 25.0; 2.5 stays 2.5."""
    book, _, _ = pays("uzje", [hand("south", fan=7)])
    assert book["east"] == -25 and all(type(v) is int for v in book.values())
    book, _, _ = pays("uzje", [hand("south", fan=3.5)])
    assert book == {"south": 7.5, "east": -2.5, "west": -2.5, "north": -2.5}


def test_noten_payments_are_whole_points():
    for tenpai in (["east"], ["east", "south"], ["east", "south", "west"]):
        book = noten_payments(RULES["riichi"], tenpai)
        assert all(type(v) is int for v in book.values()), book


def test_a_liable_player_without_chips_pays_no_chip():
    """pao on a ruleset that counts no chips: points move, chips do not."""
    book, chips, _ = pays("riichi", [hand("south", yakuman=1, pao="north")])
    assert set(chips.values()) == {0}
    assert book["north"] == -32000 and book["south"] == 32000
