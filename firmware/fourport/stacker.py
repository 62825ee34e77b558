# A side's stack-and-push cam: one motor (on/off, or H-bridge / relays one way), a home
# switch pressed at the end of every stroke.  A stroke is home -> away -> home: the motor
# runs until the home switch, having released, presses again (its IRQ stops the motor, so
# no stroke overruns while the task loop is busy).  One stroke lifts one tile onto the
# stack; the stroke that completes a stack (every `strokes_per_stack`-th) also pushes it
# into the wall.  A jam back-off is one stroke while the counting sensor is blocked (it
# shakes the head).  The reference stacker's interface: add_tile, finish, backoff, idle,
# stop, reset, stacked, pushed, last_done, on_step.  A stroke that does not come home in
# time is a fault (the cam's motor or its switch): `on_fault`.
from firmware.compat import const
from firmware.drivers.motor import make_motor
from firmware.drivers.limit import LimitSwitch

IDLE = const(0)
STACK = const(1)
PUSH = const(2)
BACKOFF = const(3)


class CamStacker:
    def __init__(self, num, profile, hal, sched, *, on_fault=None):
        t = profile["timings_ms"]
        self.motor = make_motor(hal, "stacker" + str(num), profile["motors"]["stacker"]["drive"], sched)
        self._per_stack = profile["strokes_per_stack"]
        self._stroke_ms = t["stacker"]
        # a stroke that is not home in twice its time: the cam is stuck or its switch broken
        self._timeout_ms = 2 * t["stacker"] + profile["timeouts_ms"]["jam_backoff"]
        self._home_cb = self._home_irq
        self.home = LimitSwitch(hal.input("home" + str(num)), self._home_cb)
        self._timeout_cb = self._timeout_due
        self._timer = sched.timer(self._timeout_cb)
        self._wake = sched.wake
        self.on_step = None
        self._on_fault = on_fault
        self.job = IDLE
        self._left = False      # the home switch released during this stroke
        self._done_flag = False  # set by the IRQ: a stroke came home
        self.tiles_waiting = 0
        self.backoffs_waiting = 0
        self.pushes_waiting = 0
        self.stacked = 0
        self.pushed = 0
        self.backoffs = 0
        self.in_stack = 0  # tiles on the stack not yet pushed
        self._odd_push = False
        self.last_done = IDLE
        self.halted = False
        self.fails = 0
        self._testing = False
        self.test_homed = False

    # ---- IRQ: the home switch's edges ----------------------------------
    def _home_irq(self):
        # LimitSwitch calls this on the pressing edge only: a stroke ends when home presses
        # again after it released
        if self._testing:
            self.motor.stop()  # a self-test's stroke: home again
            self.test_homed = True
            return
        if self.job != IDLE:
            self.motor.stop()
            self._done_flag = True
            self._wake.up = True

    def pending(self):
        return self._done_flag

    def add_tile(self):
        self.tiles_waiting += 1
        self._next()

    def finish(self):
        """The wall is complete: a last stack below strokes_per_stack is pushed by one more
        stroke (it lifts nothing)."""
        total = self.stacked + self.tiles_waiting + (1 if self.job == STACK else 0)
        if total % self._per_stack and not self._odd_push:
            self._odd_push = True
            if self.tiles_waiting == 0 and self.job != STACK:
                self.pushes_waiting += 1
            self._next()

    def backoff(self):
        self.backoffs_waiting += 1
        self._next()

    def idle(self):
        return (self.job == IDLE and self.tiles_waiting == 0 and self.backoffs_waiting == 0
                and self.pushes_waiting == 0)

    def _stroke(self, job):
        self.job = job
        self._done_flag = False
        self.motor.run(1)
        self._timer.start(self._timeout_ms)

    def _next(self):
        if self.job != IDLE:
            return
        if self.backoffs_waiting:
            self.backoffs_waiting -= 1
            self._stroke(BACKOFF)
        elif self.tiles_waiting:
            self.tiles_waiting -= 1
            self._stroke(STACK)
        elif self.pushes_waiting:
            self.pushes_waiting -= 1
            self._stroke(PUSH)

    def service(self):
        """Task context after the home switch's IRQ: finish the stroke, start the next."""
        if not self._done_flag:
            return
        self._done_flag = False
        self._timer.cancel()
        job = self.job
        self.job = IDLE
        self.last_done = job
        if job == STACK:
            self.stacked += 1
            self.in_stack += 1
            if self.in_stack >= self._per_stack:
                self.in_stack = 0
                self.pushed += 1
        elif job == PUSH:
            if self.in_stack:
                self.in_stack = 0
                self.pushed += 1
        elif job == BACKOFF:
            self.backoffs += 1
        if self._odd_push and self.tiles_waiting == 0 and self.in_stack and job == STACK:
            self.pushes_waiting += 1
        self._next()
        if self.on_step is not None:
            self.on_step()

    def resume(self):
        """A stroke the guard stopped goes on (the build resumes)."""
        self.halted = False
        if self.job != IDLE:
            self.motor.run(1)
            self._timer.start(self._timeout_ms)

    def _timeout_due(self):
        if self.halted:
            return  # stopped by the guard: resume() times the rest of the stroke
        self.motor.stop()
        self.fails += 1
        self.job = IDLE
        self.tiles_waiting = 0
        self.backoffs_waiting = 0
        self.pushes_waiting = 0
        if self._on_fault is not None:
            self._on_fault()

    def halt(self):
        """The guard's IRQ: off now (the stroke resumes when the build does)."""
        if self.job != IDLE:
            self.halted = True
        self.motor.stop()

    def stop(self):
        self.motor.stop()
        self._timer.cancel()
        self.job = IDLE
        self._done_flag = False
        self.tiles_waiting = 0
        self.backoffs_waiting = 0
        self.pushes_waiting = 0

    def reset(self):
        self.stop()
        self.stacked = 0
        self.pushed = 0
        self.backoffs = 0
        self.in_stack = 0
        self._odd_push = False

    # SELF_TEST (firmware/selftest.py): one stroke, home to home, outside the queued work
    def energise_for_test(self, job):
        self._testing = True
        self.test_homed = False
        self.motor.run(1)

    def release_test(self, job):
        self.motor.stop()
        self._testing = False

    def stroke_ms(self, job):
        return self._stroke_ms + self._stroke_ms // 2  # a stroke and time to come home

    def get_status(self):
        return {"stacked": self.stacked, "pushed": self.pushed, "backoffs": self.backoffs,
                "busy": not self.idle(), "home": self.home.pressed()}
