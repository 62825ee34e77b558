# A track's entry gate: a solenoid, 1 = open (docs/ARCHITECTURE.md §4).
# De-energised, the spring closes it in `gate_close` ms.  close() is called from
# the entry IRQ when the count reaches the target, so it must not allocate.
from firmware.drivers.solenoid import Solenoid


class Gate:
    def __init__(self, pin, *, close_ms):
        self._sol = Solenoid(pin)
        self.close_ms = close_ms
        self.is_open = False
        self.opens = 0

    def open(self):
        if not self.is_open:
            self.opens += 1
        self._sol.energise()
        self.is_open = True

    def close(self):
        self._sol.release()
        self.is_open = False

    def get_status(self):
        return {"open": self.is_open, "opens": self.opens}
