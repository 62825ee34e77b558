# The turntable: DC motor (pwm + optional direction) and the mixer-empty sensor
# (docs/ARCHITECTURE.md §4: mixer_empty reads 1 when no tile is left).
#
# The sensor is watched by an IRQ on both edges: it sets `changed` (the
# controller's build watch takes it in task context) and raises `wake` (a
# sched.Wake, optional).  No allocation.
from firmware.drivers.motor import DCMotor


class Mixer:
    # motor, empty: another family's turning part (the four-port machine's disc) gives its
    # own motor and empty sensor's pin name; the same starts, stops, halts and IRQ
    def __init__(self, profile, hal, *, wake=None, motor=None, empty="mixer_empty"):
        if motor is None:
            motor = DCMotor(hal.pwm("mixer_pwm"), hal.output("mixer_dir"),
                            duty=profile["duty"]["mixer"])
        self.motor = motor
        self._empty = hal.input(empty)
        self._wake = wake
        self.starts = 0
        self.halted = False  # stopped by the safety IRQ while running (lid, chain)
        self.changed = False  # an edge of mixer_empty not yet taken (set by the IRQ)
        self._handler = self._irq  # bound once
        pin = self._empty
        pin.irq(self._handler, pin.IRQ_FALLING | pin.IRQ_RISING)

    def _irq(self, pin):
        self.changed = True
        w = self._wake
        if w is not None:
            w.up = True

    def start(self):
        self.halted = False
        if not self.motor.running:
            self.starts += 1
        self.motor.run(1)

    def stop(self):
        self.motor.stop()

    def halt(self):
        """The safety IRQ: off at once (allocation-free)."""
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
