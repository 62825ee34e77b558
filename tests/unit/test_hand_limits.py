"""From han and fu to points (hostd.hand.limits): the table players know."""
import pytest

from hostd.hand.limits import limit_of, payments
from hostd.hand.scoring_rules import options_for


@pytest.fixture
def base():
    return options_for("riichi")


@pytest.mark.parametrize("han, fu, ron, dealer_ron", [
    (1, 30, 1000, 1500), (1, 40, 1300, 2000), (2, 25, 1600, 2400), (3, 30, 3900, 5800),
    (3, 60, 7700, 11600), (4, 30, 7700, 11600), (3, 70, 8000, 12000), (4, 40, 8000, 12000),
    (5, 30, 8000, 12000), (6, 30, 12000, 18000), (8, 30, 16000, 24000),
    (11, 30, 24000, 36000), (13, 30, 32000, 48000),
])
def test_ron_table(base, han, fu, ron, dealer_ron):
    _, b = limit_of(han, fu, 0, options=base)
    assert payments(b, dealer=False, tsumo=False, seat=2)["total"] == ron
    assert payments(b, dealer=True, tsumo=False, seat=0)["total"] == dealer_ron


def test_tsumo_shares_round_up_each(base):
    _, b = limit_of(1, 30, 0, options=base)
    p = payments(b, dealer=False, tsumo=True, seat=3)
    assert [x["points"] for x in p["payments"]] == [500, 300, 300]
    assert [x["payer"] for x in p["payments"]] == ["east", "south", "west"]
    p = payments(b, dealer=True, tsumo=True, seat=0)
    assert [x["points"] for x in p["payments"]] == [500, 500, 500] and p["total"] == 1500


def test_limits_by_name(base):
    assert limit_of(5, 30, 0, options=base)[0] == "mangan"
    assert limit_of(7, 30, 0, options=base)[0] == "haneman"
    assert limit_of(10, 30, 0, options=base)[0] == "baiman"
    assert limit_of(12, 30, 0, options=base)[0] == "sanbaiman"
    assert limit_of(3, 70, 0, options=base) == ("mangan", 2000)
    assert limit_of(3, 60, 0, options=base) == (None, 1920)


def test_kiriage_and_kazoe_are_options(base):
    assert limit_of(4, 30, 0, options=dict(base, kiriage=True)) == ("kiriage mangan", 2000)
    assert limit_of(3, 60, 0, options=dict(base, kiriage=True)) == ("kiriage mangan", 2000)
    assert limit_of(14, 30, 0, options=base) == ("kazoe yakuman", 8000)
    assert limit_of(14, 30, 0, options=dict(base, kazoe_yakuman=False)) == ("sanbaiman", 6000)


def test_yakuman_count_up_to_six(base):
    assert limit_of(26, 0, 2, options=base) == ("2x yakuman", 16000)
    assert limit_of(13 * 7, 0, 7, options=base) == ("6x yakuman", 48000)


def test_total_is_the_sum_of_the_shares(base):
    from hostd.hand.limits import total_of

    for han, fu in ((1, 30), (2, 40), (3, 70), (1, 110), (13, 0)):
        _, b = limit_of(han, fu, 0, options=base)
        for dealer, tsumo, seat in ((False, False, 1), (True, False, 0), (False, True, 2),
                                    (True, True, 0)):
            assert total_of(b, dealer=dealer, tsumo=tsumo) == payments(
                b, dealer=dealer, tsumo=tsumo, seat=seat)["total"]


def test_a_yakumans_name_says_how_many():
    """The limit's name the ledger's detail and the hand's answer show: one yakuman is
    "yakuman", two "2x yakuman" (bench/mutation.py found "1x yakuman" passing)."""
    from hostd.hand.limits import limit_of
    from hostd.hand.scoring_rules import options_for

    opts = options_for("riichi")
    assert limit_of(0, 0, 1, options=opts) == ("yakuman", 8000)
    assert limit_of(0, 0, 2, options=opts) == ("2x yakuman", 16000)
    assert limit_of(0, 0, 9, options=opts) == ("6x yakuman", 48000)
