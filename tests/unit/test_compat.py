from hypothesis import given, strategies as st

from firmware import compat

TICKS = st.integers(0, compat.TICKS_MASK)


def test_ticks_wrap_like_micropython():
    top = compat.TICKS_MASK
    assert compat.ticks_add(top, 5) == 4
    assert compat.ticks_diff(compat.ticks_add(top, 5), top) == 5
    assert compat.ticks_diff(top, compat.ticks_add(top, 5)) == -5


@given(TICKS, TICKS)
def test_ticks_diff_is_micropythons_signed_wrapping_difference(a, b):
    half = compat.TICKS_PERIOD // 2
    d = compat.ticks_diff(a, b)
    assert d == ((a - b + half) & compat.TICKS_MASK) - half  # MicroPython's definition
    assert -half <= d < half and compat.ticks_add(b, d) == a


def test_ticks_diff_at_half_a_period():
    half = compat.TICKS_PERIOD // 2
    assert compat.ticks_diff(half, 0) == -half  # exactly half: the past
    assert compat.ticks_diff(half - 1, 0) == half - 1
    assert compat.ticks_diff(0, half) == -half
    assert compat.ticks_diff(0, half + 1) == half - 1


def test_real_clock_is_monotonic():
    c = compat.RealClock()
    a = c.ticks_us()
    b = c.ticks_us()
    assert compat.ticks_diff(b, a) >= 0


def test_const_is_identity_on_cpython():
    assert compat.const(7) == 7
