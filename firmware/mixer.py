# The turntable: DC motor (pwm + optional direction) and the mixer-empty sensor
# (docs/ARCHITECTURE.md §4: mixer_empty reads 1 when no tile is left).
from firmware.drivers.motor import DCMotor


class Mixer:
    def __init__(self, profile, hal):
        self.motor = DCMotor(hal.pwm("mixer_pwm"), hal.output("mixer_dir"), duty=profile["duty"]["mixer"])
        self._empty = hal.input("mixer_empty")
        self.starts = 0

    def start(self):
        if not self.motor.running:
            self.starts += 1
        self.motor.run(1)

    def stop(self):
        self.motor.stop()

    def halt(self):
        self.motor.stop()

    @property
    def running(self):
        return self.motor.running

    def empty(self):
        return self._empty.value() == 1

    def get_status(self):
        return {"running": self.motor.running, "empty": self.empty(), "starts": self.starts}
