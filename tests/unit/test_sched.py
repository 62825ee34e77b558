from firmware.compat import TICKS_MASK, ticks_diff
from firmware.fakes import FakeClock
from firmware.sched import MAX_FIRES, Scheduler


def make():
    clock = FakeClock(0)
    return clock, Scheduler(clock)


def test_fires_when_due_and_not_before():
    clock, s = make()
    fired = []
    t = s.timer(lambda: fired.append(clock.us))
    t.start(10)
    assert t.active
    clock.advance(9)
    assert s.run() == 0
    clock.advance(1)
    assert s.run() == 1
    assert fired == [10000]
    assert not t.active
    assert s.run() == 0


def test_earliest_first_and_ties_in_creation_order():
    clock, s = make()
    order = []
    a = s.timer(lambda: order.append("a"))
    b = s.timer(lambda: order.append("b"))
    c = s.timer(lambda: order.append("c"))
    c.start(5)
    b.start(3)
    a.start(5)
    clock.advance(10)
    s.run()
    assert order == ["b", "a", "c"]


def test_cancel_and_next_due():
    clock, s = make()
    a = s.timer(lambda: None)
    b = s.timer(lambda: None)
    assert s.next_due_us() is None
    a.start(20)
    b.start(7)
    assert s.next_due_us() == 7000
    b.cancel()
    assert s.next_due_us() == 20000
    assert s.active_count() == 1
    assert a.remaining_us() == 20000
    assert b.remaining_us() == 0


def test_start_at_us_relative_to_a_past_instant():
    clock, s = make()
    hit = []
    t = s.timer(lambda: hit.append(1))
    clock.advance(5)
    t.start_at_us(2000, 3000)  # due at 5 ms: now
    assert s.run() == 1


def test_zero_delay_restart_fires_in_same_run_but_is_bounded():
    clock, s = make()
    n = [0]

    def again():
        n[0] += 1
        t.start_us(0)

    t = s.timer(again)
    t.start(0)
    assert s.run() == MAX_FIRES
    assert t.active


def test_callback_starting_a_later_timer_waits():
    clock, s = make()
    out = []
    b = s.timer(lambda: out.append("b"))
    a = s.timer(lambda: (out.append("a"), b.start(1)))
    a.start(0)
    s.run()
    assert out == ["a"]
    clock.advance(1)
    s.run()
    assert out == ["a", "b"]


def test_wraparound_of_ticks():
    clock, s = make()
    clock.us = TICKS_MASK - 500  # 0.5 ms before the ticks wrap
    hit = []
    t = s.timer(lambda: hit.append(1))
    t.start(2)
    assert t.due < 2000  # wrapped
    clock.advance(1)
    assert s.run() == 0
    clock.advance(1)
    assert s.run() == 1
    assert ticks_diff(clock.ticks_us(), t.due) >= 0


def test_timers_straddling_the_wrap_fire_in_deadline_order():
    # deadlines on both sides of the wrap (raw values 2**30-300 .. 1700): the list
    # is ordered by ticks, not by raw value, however they were started
    clock, s = make()
    clock.us = TICKS_MASK - 1000
    out = []
    timers = {ms: s.timer(lambda ms=ms: out.append(ms)) for ms in (3, 1, 2, 0)}
    for ms in (3, 1, 2, 0):
        timers[ms].start_us(ms * 700 + 700)  # 0.7, 1.4, 2.1 and 2.8 ms from now
    assert s.next_due_us() == timers[0].due
    for _ in range(40):
        clock.advance_us(100)
        s.run()
    assert out == [0, 1, 2, 3]
