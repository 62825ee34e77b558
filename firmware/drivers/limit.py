# Limit / end switch on a pulled-up input: 0 when pressed (docs/ARCHITECTURE.md §4).
#
# With on_press, an IRQ on the pressing edge calls on_press() at once (the lift
# stops its motor there, inside the IRQ: it must not allocate).
class LimitSwitch:
    def __init__(self, pin, on_press=None, *, active_low=True):
        self._pin = pin
        self._active = 0 if active_low else 1
        self._on_press = on_press
        self.presses = 0
        if on_press is not None:
            trig = pin.IRQ_FALLING if active_low else pin.IRQ_RISING
            self._handler = self._irq  # bound once: no allocation per edge
            pin.irq(self._handler, trig)

    def pressed(self):
        return self._pin.value() == self._active

    def _irq(self, pin):
        if self._pin.value() == self._active:
            self.presses += 1
            self._on_press()
