"""Fu with its breakdown (hostd.hand.fu), reading by reading."""
import pytest

from hostd.hand.fu import fu_of
from hostd.hand.readings import Reading
from hostd.hand.scoring_rules import options_for

RUNS = (("run", 0, True, False), ("run", 9, True, False), ("run", 18, True, False))
VALUED = (31, 32, 33, 28, 27)  # dragons, seat South, round East


@pytest.fixture
def base():
    return options_for("riichi")


def fu(reading, base, *, tsumo=False, closed=True, pinfu=False, valued=VALUED):
    return fu_of(reading, tsumo=tsumo, closed=closed, valued=valued, pinfu=pinfu, options=base)


def test_pinfu_ron_and_tsumo(base):
    r = Reading("sets", RUNS + (("run", 3, True, False),), 13, "ryanmen")
    assert fu(r, base, pinfu=True) == (30, [("base", 20), ("closed ron", 10)])
    assert fu(r, base, tsumo=True, pinfu=True) == (20, [("base", 20)])
    assert fu(r, dict(base, pinfu_tsumo_fu=True), tsumo=True, pinfu=True)[0] == 30


def test_open_hand_of_20_fu_counts_30(base):
    r = Reading("sets", RUNS + (("run", 3, False, False),), 13, "ryanmen")
    total, parts = fu(r, base, closed=False)
    assert total == 30 and parts[-1] == ("open hand of 20 fu", 10)
    assert fu(r, dict(base, open_pinfu_fu=False), closed=False)[0] == 20


def test_triplets_kans_waits_and_pairs(base):
    sets = (("triplet", 0, True, False), ("triplet", 4, False, False),
            ("triplet", 31, True, True), ("run", 9, True, False))
    r = Reading("sets", sets, 27, "kanchan")  # pair of East: round wind
    total, parts = fu(r, base)
    assert dict(parts) == {"base": 20, "closed ron": 10, "kanchan wait": 2, "value pair": 2,
                           "closed terminal triplet": 8, "open triplet": 2,
                           "closed terminal kan": 32}
    assert total == 80


def test_double_wind_pair_is_4(base):
    r = Reading("sets", RUNS + (("run", 3, True, False),), 27, "tanki")
    _, parts = fu(r, base, valued=(31, 32, 33, 27, 27))
    assert ("double value pair", 4) in parts


def test_seven_pairs_and_orphans(base):
    assert fu(Reading("seven pairs", (), None, "tanki", tuple(range(7))), base) == (
        25, [("seven pairs", 25)])
    assert fu(Reading("thirteen orphans", (), None, "tanki"), base) == (0, [])


def test_tsumo_is_2_fu_said_so_and_a_total_on_a_ten_stays_there(base):
    """A closed tsumo whose parts come to exactly 30 fu: 30, not 40 (the tsumo's 2, and no
    more; bench/mutation.py found a 3 passing), with its line in the breakdown."""
    sets = (("triplet", 4, True, False),) + RUNS  # closed simple triplet: 4
    r = Reading("sets", sets, 31, "tanki")  # a dragon pair: 2, a single wait: 2
    total, parts = fu(r, base, tsumo=True)
    assert parts == [("base", 20), ("tanki wait", 2), ("value pair", 2),
                     ("closed triplet", 4), ("tsumo", 2)]
    assert total == 30
