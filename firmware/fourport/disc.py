# The centre disc: its motor turns the mixed tiles under the magnetic ring that lifts them
# into the sides' feed slots; disc_empty reads 1 when no tile is left (disc and ring).
# The reference mixer's interface (start, stop, halt, running, empty, changed).
from firmware.drivers.motor import make_motor


class Disc:
    def __init__(self, profile, hal, sched, *, wake=None):
        self.motor = make_motor(hal, "disc", profile["motors"]["disc"]["drive"], sched,
                                duty=profile["duty"]["mixer"])
        self._empty = hal.input("disc_empty")
        self._wake = wake
        self.starts = 0
        self.changed = False  # an edge of disc_empty not yet taken (set by the IRQ)
        self.halted = False   # stopped by the guard while it turned
        self._handler = self._irq  # bound once
        pin = self._empty
        pin.irq(self._handler, pin.IRQ_FALLING | pin.IRQ_RISING)

    def _irq(self, pin):
        self.changed = True
        w = self._wake
        if w is not None:
            w.up = True

    def start(self):
        if not self.motor.running:
            self.starts += 1
        self.motor.run(1)

    def stop(self):
        self.motor.stop()

    def halt(self):
        """The guard's IRQ: off now (no allocation)."""
        if self.motor.running:
            self.halted = True
        self.motor.stop()

    @property
    def running(self):
        return self.motor.running

    def empty(self):
        return self._empty.value() == 1

    def get_status(self):
        return {"running": self.motor.running, "empty": self.empty(), "starts": self.starts}
