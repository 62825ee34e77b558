from firmware.compat import TICKS_MASK
from firmware.drivers.photo import PhotoInterrupter
from firmware.fakes import FakeClock, FakePin


def make(debounce=3, start=0):
    clock = FakeClock(start)
    pin = FakePin(level=1)
    edges = []
    ph = PhotoInterrupter(pin, clock, debounce_ms=debounce, on_edge=lambda: edges.append(clock.us))
    return clock, pin, ph, edges


def tile(clock, pin, beam_us=30000):
    pin.set(0)
    clock.advance_us(beam_us)
    pin.set(1)


def test_registers_both_edges_and_counts_falling():
    clock, pin, ph, edges = make()
    assert pin.trigger == FakePin.IRQ_FALLING | FakePin.IRQ_RISING
    tile(clock, pin)
    assert ph.count == 1 and edges == [0]
    assert ph.last_edge_us == 0
    clock.advance(250)
    tile(clock, pin)
    assert ph.count == 2
    assert not ph.blocked()


def test_bounces_on_either_edge_do_not_count():
    clock, pin, ph, edges = make()
    # leading bounce: fall, rise 0.3 ms later, fall again
    pin.set(0)
    clock.advance_us(300)
    pin.set(1)
    clock.advance_us(300)
    pin.set(0)
    clock.advance_us(30000)
    # trailing bounce: rise, fall 0.3 ms later, rise
    pin.set(1)
    clock.advance_us(300)
    pin.set(0)
    clock.advance_us(300)
    pin.set(1)
    assert ph.count == 1
    assert ph.rejected == 2
    clock.advance(100)
    tile(clock, pin)
    assert ph.count == 2


def test_no_debounce_counts_every_fall():
    clock, pin, ph, edges = make(debounce=0)
    pin.set(0)
    pin.set(1)
    pin.set(0)
    assert ph.count == 2


def test_first_edge_counts_right_after_construction_and_across_tick_wrap():
    clock, pin, ph, edges = make(start=TICKS_MASK - 1000)
    tile(clock, pin, beam_us=500)  # crosses the wrap
    assert ph.count == 1
    clock.advance(10)
    tile(clock, pin)
    assert ph.count == 2


def test_long_quiet_then_tile_counts():
    clock, pin, ph, edges = make()
    tile(clock, pin)
    clock.advance(600 * 1000)  # ten minutes: ticks_diff wraps negative
    tile(clock, pin)
    assert ph.count == 2


def test_blocked_and_reset():
    clock, pin, ph, edges = make()
    pin.set(0)
    assert ph.blocked()
    ph.reset(5)
    assert ph.count == 5
