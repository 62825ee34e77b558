# Limit / end switch on a pulled-up input: 0 when pressed (docs/ARCHITECTURE.md §4).
#
# With on_press, an IRQ on the pressing edge calls on_press() at once (the lift
# stops its motor there, inside the IRQ: it must not allocate).  With `wake` (a
# sched.Wake) the IRQ takes both edges and raises it after each: the task loop
# then sees a switch that pressed or released (e.g. reports the door's state);
# `changed` says which switch it was (its owner lowers it before it looks).
class LimitSwitch:
    def __init__(self, pin, on_press=None, *, active_low=True, wake=None):
        self._pin = pin
        self._active = 0 if active_low else 1
        self._on_press = on_press
        self._wake = wake
        self.presses = 0
        self.changed = False  # an edge since the owner last looked (set by the IRQ)
        if on_press is not None:
            trig = pin.IRQ_FALLING if active_low else pin.IRQ_RISING
            if wake is not None:
                trig = pin.IRQ_FALLING | pin.IRQ_RISING
            self._handler = self._irq  # bound once: no allocation per edge
            pin.irq(self._handler, trig)

    def pressed(self):
        return self._pin.value() == self._active

    def _irq(self, pin):
        if self._pin.value() == self._active:
            self.presses += 1
            self._on_press()
        self.changed = True
        w = self._wake
        if w is not None:
            w.up = True
