# Solenoid (gate, stacker, pusher): one digital output, 1 = energised.
#
# pulse(ms) energises it and a preallocated scheduler timer releases it;
# `on_done` (a callable stored once by the owner) is called when a pulse ends.
class Solenoid:
    def __init__(self, pin, sched=None, on_done=None):
        self._pin = pin
        self.on = False
        self._on_done = on_done
        self._timer = None
        self.pulses = 0
        pin.value(0)
        if sched is not None:
            self._timer = sched.timer(self._end)

    def set(self, v):
        self._pin.value(1 if v else 0)
        self.on = bool(v)

    def energise(self):
        self._pin.value(1)
        self.on = True

    def release(self):
        """De-energise (safe from an IRQ handler)."""
        self._pin.value(0)
        self.on = False

    def pulse(self, ms):
        self._pin.value(1)
        self.on = True
        self.pulses += 1
        self._timer.start(ms)

    def busy(self):
        return self._timer is not None and self._timer.active

    def cancel(self):
        """Stop a pulse now without calling on_done."""
        if self._timer is not None:
            self._timer.cancel()
        self.release()

    def _end(self):
        self._pin.value(0)
        self.on = False
        if self._on_done is not None:
            self._on_done()
