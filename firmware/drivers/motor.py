# DC motor: direction pin + PWM enable (docs/ARCHITECTURE.md §4).
#
# Touches only pwm.duty_u16(v) and dir_pin.value(v).  stop() is safe to call
# from an IRQ handler (it allocates nothing).
from firmware.hal import duty_u16
from firmware.compat import ticks_diff


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


class OnOffMotor:
    """A motor on one on/off output (a relay, SSR or MOSFET): one way only, stopped by its
    switch.  The DCMotor interface: run(1), stop() (IRQ-safe), running."""

    def __init__(self, pin):
        self._pin = pin
        self.running = False
        self.direction = 1
        pin.value(0)

    def run(self, direction):
        if direction != 1:
            raise ValueError("an on/off motor turns one way only")
        self.running = True
        self._pin.value(1)

    def stop(self):
        self._pin.value(0)
        self.running = False

    def get_status(self):
        return {"running": self.running, "direction": self.direction}


class RelayPair:
    """A reversing pair of relays (forward, reverse): never both on, and a reversal waits
    `dead_ms` with both off (a contact still arcing, a capacitor-run motor still turning).
    stop() is IRQ-safe.  run() in the other direction within the dead time is held back:
    the scheduler's timer switches the new relay on when it has passed."""

    def __init__(self, fwd, rev, sched, *, dead_ms=50):
        self._fwd = fwd
        self._rev = rev
        self._dead_ms = dead_ms
        self._clock = sched.clock
        self._off_us = sched.clock.ticks_us()  # when both relays last went off
        self._off_dir = -1  # the direction that was on then (-1: none yet)
        self.running = False
        self.direction = 1
        self._want = -1  # the direction waiting out the dead time, -1: none
        self._cb = self._dead_over
        self._timer = sched.timer(self._cb)
        fwd.value(0)
        rev.value(0)

    def run(self, direction):
        on = self._fwd if direction else self._rev
        off = self._rev if direction else self._fwd
        if self.running and direction == self.direction:
            return
        wait = 0
        if self.running and direction != self.direction:
            wait = self._dead_ms  # reversing under way: both off for the dead time first
        elif not self.running and self._off_dir >= 0 and self._off_dir != direction:
            gone = ticks_diff(self._clock.ticks_us(), self._off_us) // 1000
            if 0 <= gone < self._dead_ms:
                wait = self._dead_ms - gone  # stopped a moment ago the other way
        off.value(0)
        self.direction = direction
        self.running = True
        if wait:
            self._want = direction
            self._timer.start(wait)
            return
        on.value(1)

    def _dead_over(self):
        if self._want >= 0 and self.running:
            (self._fwd if self._want else self._rev).value(1)
        self._want = -1

    def stop(self):
        """Both relays off (IRQ-safe: pins, ints and a clock read)."""
        self._fwd.value(0)
        self._rev.value(0)
        if self.running:
            self._off_us = self._clock.ticks_us()
            self._off_dir = self.direction
        self.running = False
        self._want = -1

    def get_status(self):
        return {"running": self.running, "direction": self.direction}


def make_motor(hal, name, drive, sched, duty=1.0):
    """Motor `name` of a four-port profile, driven as its profile says (docs/FIRMWARE.md
    §11): an H-bridge (`<name>_pwm`, `<name>_dir`), one on/off output (`<name>_on`) or a
    reversing relay pair (`<name>_fwd`, `<name>_rev`)."""
    if drive == "hbridge":
        return DCMotor(hal.pwm(name + "_pwm"), hal.output(name + "_dir"), duty=duty)
    if drive == "relays":
        return RelayPair(hal.output(name + "_fwd"), hal.output(name + "_rev"), sched)
    return OnOffMotor(hal.output(name + "_on"))
