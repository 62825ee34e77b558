from firmware import compat


def test_ticks_wrap_like_micropython():
    top = compat.TICKS_MASK
    assert compat.ticks_add(top, 5) == 4
    assert compat.ticks_diff(compat.ticks_add(top, 5), top) == 5
    assert compat.ticks_diff(top, compat.ticks_add(top, 5)) == -5


def test_real_clock_is_monotonic():
    c = compat.RealClock()
    a = c.ticks_us()
    b = c.ticks_us()
    assert compat.ticks_diff(b, a) >= 0


def test_const_is_identity_on_cpython():
    assert compat.const(7) == 7
