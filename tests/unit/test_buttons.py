from firmware.drivers.buttons import Buttons
from firmware.fakes import FakeClock, FakeHal
from firmware.profile import load
from protocol import messages as m


def test_press_debounced_and_taken_in_order():
    p = load(None)
    clock = FakeClock(0)
    hal = FakeHal(p)
    b = Buttons(hal, clock)
    s = hal.pins["start_button"]
    d = hal.pins["dice_button"]
    assert not b.pending() and b.take() == 0
    s.set(0)
    clock.advance(1)
    s.set(1)  # bounce
    clock.advance(1)
    s.set(0)
    clock.advance(200)
    s.set(1)
    clock.advance(100)
    d.set(0)
    assert b.level(m.BUTTON_DICE) == 1 and b.level(m.BUTTON_START) == 0
    assert b.pending()
    assert b.take() == m.BUTTON_START
    assert b.take() == m.BUTTON_DICE
    assert b.take() == 0
    # release bounce after a long press is not a press
    clock.advance(500)
    d.set(1)
    clock.advance(1)
    d.set(0)
    clock.advance(1)
    d.set(1)
    assert b.take() == 0
    assert b.get_status() == {"start": 1, "dice": 1}


def test_absent_buttons():
    p = load("pi-reference")
    b = Buttons(FakeHal(p), FakeClock())
    assert b.level(m.BUTTON_START) is None and not b.pending() and b.take() == 0
