# A side's feed motor: it carries tiles from the ring's slot to the side's stacking head.
# It is the side's gate: turning, the side takes the tiles the ring brings to its slot;
# stopped, they ride on to the next side.  The reference gate's interface (open, close,
# is_open); close() runs in the counting sensor's IRQ when the count is reached: it only
# writes a pin.
from firmware.drivers.motor import make_motor


class Feed:
    def __init__(self, num, profile, hal, sched):
        self.motor = make_motor(hal, "feed" + str(num), profile["motors"]["feed"]["drive"], sched,
                                duty=profile["duty"]["mixer"])
        self.close_ms = profile["timings_ms"]["gate_close"]  # it coasts this long
        self.is_open = False
        self.opens = 0
        self.halted = False

    def open(self):
        if not self.is_open:
            self.opens += 1
        self.motor.run(1)
        self.is_open = True

    def close(self):
        self.motor.stop()
        self.is_open = False

    def halt(self):
        """The guard's IRQ: off now."""
        if self.is_open:
            self.halted = True
        self.close()

    def get_status(self):
        return {"open": self.is_open, "opens": self.opens}
