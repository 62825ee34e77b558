# DC motor: direction pin + PWM enable (docs/ARCHITECTURE.md §4).
#
# Touches only pwm.duty_u16(v) and dir_pin.value(v).  stop() is safe to call
# from an IRQ handler (it allocates nothing).
from firmware.hal import duty_u16


class DCMotor:
    def __init__(self, pwm, dir_pin=None, *, duty=1.0):
        self._pwm = pwm
        self._dir = dir_pin
        self._duty = duty_u16(duty)
        self.running = False
        self.direction = 1
        pwm.duty_u16(0)
        if dir_pin is not None:
            dir_pin.value(0)

    def run(self, direction):
        """Turn in `direction` (1 = forward/up/open, 0 = reverse).  A motor without a
        direction pin turns one way only: run(0) raises ValueError."""
        if self._dir is None:
            if direction != 1:
                raise ValueError("no direction pin")
        elif direction != self.direction or not self.running:
            # never reverse under power: stop, set direction, start
            self._pwm.duty_u16(0)
            self._dir.value(direction)
        self.direction = direction
        self.running = True
        self._pwm.duty_u16(self._duty)

    def stop(self):
        self._pwm.duty_u16(0)
        self.running = False

    def get_status(self):
        return {"running": self.running, "direction": self.direction}
