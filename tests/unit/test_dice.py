"""hostd.rules.dice: dice sources, validation against a ruleset, the wall break per seed."""
import random
import secrets

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hostd.rules import dice as D
from hostd.rules.dice import DiceError, DiceSpec, break_wall, breaker_for, check_dice, roll, roll_for
from hostd.rules.rulesets import BreakProcedure, get_ruleset, list_rulesets


def test_parse_dice_spec():
    assert D.parse_dice_spec("2d6") == DiceSpec(2, 6)
    assert D.parse_dice_spec(" 1D20 ") == DiceSpec(1, 20)
    assert str(DiceSpec(3, 6)) == "3d6" and DiceSpec(3, 6).max_total == 18
    for bad in ("d6", "2d", "2x6", "0d6", "2d1", "", "two dice"):
        with pytest.raises(DiceError):
            D.parse_dice_spec(bad)


def test_parse_dice():
    assert D.parse_dice("3,4") == (3, 4)
    assert D.parse_dice("3 4 5") == (3, 4, 5)
    assert D.parse_dice("3+4") == (3, 4)
    assert D.parse_dice("17") == (17,)
    for bad in ("", "3,x", "3.5,4"):
        with pytest.raises(DiceError):
            D.parse_dice(bad)


def test_real_play_uses_the_cryptographic_source(monkeypatch):
    assert isinstance(D.fair_rng(), secrets.SystemRandom)
    calls = []

    class Spy(secrets.SystemRandom):
        def randint(self, a, b):
            calls.append((a, b))
            return super().randint(a, b)

    monkeypatch.setattr(D.secrets, "SystemRandom", Spy)
    out = roll("2d6")
    assert len(out) == 2 and all(1 <= v <= 6 for v in out)
    assert calls == [(1, 6), (1, 6)]
    roll_for(get_ruleset("riichi"))
    assert len(calls) == 4


def test_seeded_rolls_are_reproducible():
    a = [roll_for(get_ruleset("riichi"), seed=42) for _ in range(3)]
    assert a[0] == a[1] == a[2]
    assert roll_for(get_ruleset("riichi"), seed="42") == a[0]  # "42" is 42
    rng = D.seeded_rng("demo")
    seq = [roll("3d6", rng) for _ in range(50)]
    rng = D.seeded_rng("demo")
    assert seq == [roll("3d6", rng) for _ in range(50)]  # the same stream again
    assert len(set(seq)) > 10  # and it is a stream, not one value
    # namespaced: not the same draws as random.Random(seed) used for the mixing stream
    plain = random.Random("demo")
    assert seq[:5] != [tuple(plain.randint(1, 6) for _ in range(3)) for _ in range(5)]
    # any object with randint works (e.g. a simulator stream)
    assert roll("2d6", random.Random(7)) == roll("2d6", random.Random(7))
    with pytest.raises(DiceError):
        D.seeded_rng(1.5)
    with pytest.raises(DiceError):
        roll_for(get_ruleset("riichi"), seed=1, rng=random.Random(1))


def test_roll_for_alternative_dice():
    uz = get_ruleset("uzje")
    assert len(roll_for(uz, seed=1)) == 3
    d20 = roll_for(uz, seed=1, spec="1d20")
    assert len(d20) == 1 and 1 <= d20[0] <= 20
    with pytest.raises(DiceError, match="riichi does not throw 1d20"):
        roll_for(get_ruleset("riichi"), spec="1d20")


@given(st.integers(0, 2**32))
@settings(max_examples=60, deadline=None)
def test_rolls_always_fit_their_ruleset(seed):
    for p in (get_ruleset("riichi"), get_ruleset("uzje")):
        for spec in p.dice_specs:
            d = roll_for(p, seed=seed, spec=spec)
            assert check_dice(p, d) == spec
            r = break_wall(p, d)
            assert r.breaker in D.SEATS
            limit = p.stacks_per_wall * (2 if r.unit == "tiles" else 1)
            assert 1 <= r.break_from_right <= limit


# --------------------------------------------------------------------------- validation

@pytest.mark.parametrize("name, dice_, fragment", [
    ("riichi", (3,), "wrong number of dice: got 1"),
    ("riichi", (1, 2, 3), "wrong number of dice: got 3"),
    ("riichi", (), "wrong number of dice: got 0"),
    ("riichi", (3, 7), "die face 7 is out of range 1..6"),
    ("riichi", (0, 4), "die face 0 is out of range 1..6"),
    ("wsom", (3, True), "not a whole number"),
    ("shenyang", (3, 4.0), "not a whole number"),
    ("uzje", (3, 4), "wrong number of dice: got 2"),
    ("uzje", (3, 4, 7), "die face 7 is out of range 1..6"),
    ("uzje", (21,), "die face 21 is out of range 1..20"),
])
def test_bad_dice(name, dice_, fragment):
    p = get_ruleset(name)
    with pytest.raises(DiceError) as e:
        break_wall(p, dice_)
    msg = str(e.value)
    assert fragment in msg
    assert "%s throws %s" % (p.name, p.dice) in msg  # and what is accepted
    if name == "uzje":
        assert "1d20" in msg
    assert isinstance(e.value, ValueError)


# --------------------------------------------------------------------------- the break

RIICHI_SEATS = {  # counter-clockwise from the thrower, who is 1
    "self": (1, 5, 9), "right": (2, 6, 10), "across": (3, 7, 11), "left": (4, 8, 12),
}


@pytest.mark.parametrize("name", ["riichi", "speed-tonpuu", "shenyang", "wsom"])
def test_riichi_family_breaker(name):
    proc = get_ruleset(name).break_procedure
    for seat, totals in RIICHI_SEATS.items():
        for t in totals:
            assert breaker_for(proc, t) == seat, (name, t)


def test_wsom_dice_count_per_seed():
    # seed 003: counted counter-clockwise, the thrower as "1": "5" and "9" give the
    # thrower; "2" "6" "10" his lower seat (right); "3" "7" "11" opposite; "4" "8" "12"
    # his upper seat (left). Break: count that many stacks off the right end.
    p = get_ruleset("wsom")
    assert break_wall(p, (4, 5)).contract_dict() == {
        "total": 9, "breaker": "self", "break_from_right": 9, "unit": "stacks", "dead_wall_tiles": 14}
    assert break_wall(p, (1, 1)).breaker == "right"
    assert break_wall(p, (6, 5)).breaker == "across"
    assert break_wall(p, (6, 6)).contract_dict() == {
        "total": 12, "breaker": "left", "break_from_right": 12, "unit": "stacks", "dead_wall_tiles": 14}


def test_riichi_contract_example():
    r = break_wall(get_ruleset("riichi"), (3, 4))
    assert r.contract_dict() == {"total": 7, "breaker": "across", "break_from_right": 7,
                                 "unit": "stacks", "dead_wall_tiles": 14}
    assert list(r.contract_dict()) == ["total", "breaker", "break_from_right", "unit", "dead_wall_tiles"]
    assert r.dice == (3, 4) and r.dice_spec == "2d6" and r.ruleset == "riichi"
    assert r.stacks_from_right == 7.0 and r.dead_wall_stacks == 7


def test_shenyang_dead_wall_16():
    r = break_wall(get_ruleset("shenyang"), (2, 2))
    assert (r.breaker, r.break_from_right, r.unit, r.dead_wall_tiles) == ("left", 4, "stacks", 16)


def test_uzje_counts_from_the_left_player_as_zero_in_tiles():
    # seed 004: "The player on his left is 0, and increases anticlockwise"; the breaker
    # "counts left that many tiles" from the right end of his wall
    proc = get_ruleset("uzje").break_procedure
    expect = {0: "left", 1: "self", 2: "right", 3: "across"}
    for total in range(1, 21):
        assert breaker_for(proc, total) == expect[total % 4]
    r = break_wall(get_ruleset("uzje+flowers"), (6, 6, 6))
    assert r.contract_dict() == {"total": 18, "breaker": "right", "break_from_right": 18,
                                 "unit": "tiles", "dead_wall_tiles": 16}
    assert r.stacks_from_right == 9.0
    r = break_wall(get_ruleset("uzje"), (1, 2, 4))
    assert (r.breaker, r.break_from_right, r.unit, r.stacks_from_right) == ("across", 7, "tiles", 3.5)
    r = break_wall(get_ruleset("uzje+compressed-winds"), (20,))
    assert (r.dice_spec, r.breaker, r.break_from_right) == ("1d20", "left", 20)


def test_break_procedure_is_data():
    cw = BreakProcedure(count_direction="clockwise", origin_seat="self", origin_value=1,
                        unit="stacks", thrower="x", source="test")
    assert [breaker_for(cw, t) for t in (1, 2, 3, 4, 5)] == ["self", "left", "across", "right", "self"]


def test_every_ruleset_breaks():
    for p in list_rulesets():
        d = (1,) * p.dice_specs[0].count
        r = break_wall(p, d)
        assert r.dead_wall_tiles == p.dead_wall_tiles and r.unit == p.break_procedure.unit


# --------------------------------------------------------------------------- the session's roller

def test_dice_roller_for_sessions(monkeypatch):
    riichi, uzje = get_ruleset("riichi"), get_ruleset("uzje")
    a, b = D.Dice(seed=11), D.Dice(seed=11)
    seq = [a.roll(riichi) for _ in range(20)]
    assert seq == [b.roll(riichi) for _ in range(20)]  # reproducible
    assert len({tuple(x) for x in seq}) > 5  # one stream: successive hands differ
    assert a.seed == 11 and not a.cryptographic and isinstance(seq[0], list)
    brk = a.break_wall(riichi, [3, 4])
    assert brk["breaker"] == "across" and brk["break_from_right"] == 7 and brk["unit"] == "stacks"
    assert brk.get("nope") is None
    with pytest.raises(KeyError):
        brk["nope"]
    t = a.throw(uzje, "1d20")
    assert t.dice_spec == "1d20" and t.unit == "tiles"
    real = D.Dice()
    assert real.cryptographic and real.seed is None
    used = []
    monkeypatch.setattr(D.secrets, "SystemRandom", lambda: used.append(1) or random.Random(0))
    assert real.roll(riichi) == list(roll("2d6", random.Random(0)))
    assert used == [1]  # each real throw draws from the cryptographic source
    with pytest.raises(DiceError):
        D.Dice(seed=1, rng=random.Random(1))


def test_errors_are_the_daemons_errors():
    from hostd.errors import BadRequest

    with pytest.raises(BadRequest) as e:
        break_wall(get_ruleset("riichi"), (9, 9))
    assert e.value.status == 400 and e.value.code == "bad_request"
    assert e.value.to_dict()["message"].startswith("die face 9 is out of range")
