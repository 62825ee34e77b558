"""hw_sim.clock.VirtualClock: MicroPython-style wrapping ticks over unwrapped virtual us."""
import pytest

from firmware import compat
from hw_sim.clock import PERIOD, VirtualClock


def test_ticks_and_advance():
    c = VirtualClock()
    assert c.ticks_us() == 0 and c.ticks_ms() == 0
    c.advance_to(1500)
    assert c.ticks_us() == 1500 and c.ticks_ms() == 1
    c.advance(2500)
    assert c.now_us() == 4000 and c.now_ms() == 4.0
    with pytest.raises(ValueError):
        c.advance_to(10)
    with pytest.raises(ValueError):
        c.advance(-1)


def test_wraps_like_micropython():
    start = PERIOD - 500
    c = VirtualClock(start)
    t0 = c.ticks_us()
    c.advance(1000)
    assert c.ticks_us() == 500
    assert compat.ticks_diff(c.ticks_us(), t0) == 1000
    assert c.now_us() == start + 1000  # unwrapped for reports
    assert c.elapsed_us() == 1000


def test_ticks_ms_wraps_too():
    c = VirtualClock((PERIOD - 1) * 1000)
    a = c.ticks_ms()
    c.advance(5000)
    assert compat.ticks_diff(c.ticks_ms(), a) == 5


def test_period_is_the_runtimes():
    assert compat.ticks_add(PERIOD - 1, 1) == 0
    assert VirtualClock(PERIOD + 5).ticks_of(PERIOD + 7) == 7


def test_abs_us_of_a_deadline():
    c = VirtualClock(PERIOD - 100)
    due = compat.ticks_add(c.ticks_us(), 300)  # wraps
    assert c.abs_us(due) == c.now_us() + 300
    past = compat.ticks_add(c.ticks_us(), -50)
    assert c.abs_us(past) == c.now_us() - 50


def test_catch_up_moves_only_forward():
    c = VirtualClock(1000)
    c.catch_up(500)  # an event already due: the clock stays
    assert c.now_us() == 1000
    c.catch_up(2500)
    assert c.now_us() == 2500
