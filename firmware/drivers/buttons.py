# Start and dice buttons (pulled-up inputs, 0 while pressed) and their events.
# The IRQ (both edges) records a press, debounced like the entry sensors: a
# falling edge counts only after the line was high for DEBOUNCE_US and the last
# press is DEBOUNCE_US old.  No allocation.  The controller takes presses in
# task context and sends BUTTON events.  A button mapped to null never reports.
from firmware.compat import const, ticks_add, ticks_diff
from protocol import messages as _m

DEBOUNCE_US = const(30000)


class _Button:
    def __init__(self, pin, clock, wake):
        self.pin = pin
        self._clock = clock
        self._wake = wake
        past = ticks_add(clock.ticks_us(), -DEBOUNCE_US - 1)
        self._t_rise = past
        self._t_press = past
        self.presses = 0
        self.taken = 0
        self._cb = self._irq
        pin.irq(self._cb, pin.IRQ_FALLING | pin.IRQ_RISING)

    def _irq(self, pin):
        t = self._clock.ticks_us()
        if self.pin.value():
            self._t_rise = t
            return
        d = ticks_diff(t, self._t_rise)
        if 0 <= d < DEBOUNCE_US:
            return
        d = ticks_diff(t, self._t_press)
        if 0 <= d < DEBOUNCE_US:
            return
        self._t_press = t
        self.presses += 1
        w = self._wake
        if w is not None:
            w.up = True  # a press to report (raised after the count)


class Buttons:
    def __init__(self, hal, clock, *, wake=None):
        s = hal.input("start_button")
        d = hal.input("dice_button")
        self.start = None if s is None else _Button(s, clock, wake)
        self.dice = None if d is None else _Button(d, clock, wake)

    def pending(self):
        b = self.start
        if b is not None and b.presses != b.taken:
            return True
        b = self.dice
        return b is not None and b.presses != b.taken

    def take(self):
        """The next unreported press (BUTTON_START / BUTTON_DICE), or 0."""
        b = self.start
        if b is not None and b.presses != b.taken:
            b.taken += 1
            return _m.BUTTON_START
        b = self.dice
        if b is not None and b.presses != b.taken:
            b.taken += 1
            return _m.BUTTON_DICE
        return 0

    def level(self, button):
        """1 while pressed, 0 released, None if the profile has no such button."""
        b = self.start if button == _m.BUTTON_START else self.dice
        if b is None:
            return None
        return 1 if b.pin.value() == 0 else 0

    def get_status(self):
        return {
            "start": None if self.start is None else self.start.presses,
            "dice": None if self.dice is None else self.dice.presses,
        }
