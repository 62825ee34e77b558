# The dice motor: it spins the dice under their dome for `DICE_MS` when the dice button
# is pressed (the throw the host announces is its own, from the ruleset's dice: the
# motor is the players' show).  One on/off output, or either drive one way.
from firmware.compat import const
from firmware.drivers.motor import make_motor

DICE_MS = const(800)


class Dice:
    def __init__(self, profile, hal, sched):
        self.motor = make_motor(hal, "dice", profile["motors"]["dice"]["drive"], sched)
        self._cb = self.stop
        self._timer = sched.timer(self._cb)
        self.spins = 0
        self.halted = False

    def spin(self, ms=DICE_MS):
        self.spins += 1
        self.motor.run(1)
        self._timer.start(ms)

    def stop(self):
        self.motor.stop()

    def halt(self):
        if self.motor.running:
            self.halted = True
        self.motor.stop()

    def get_status(self):
        return {"running": self.motor.running, "spins": self.spins}
