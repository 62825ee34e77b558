# End-to-end motion of one DC motor between two end switches: the lift (bottom
# <-> top) and the centre door (closed <-> open).  docs/FIRMWARE.md "Safety".
#
# Every motion has a timeout.  Faults (motor off first, then reported):
#   - the switch being left does not release within `release_ms`  -> LIMIT
#   - both end switches pressed at once (before, during, or at the    -> LIMIT
#     arrival: a switch stuck pressed, not an arrival)
#   - the end switch is not reached within `timeout_ms`             -> LIMIT
#     (the mechanism moved, the switch never closed)
#   - motor current above threshold for `stall_ms`                  -> STALL
#     (only with a current sense; sampled every `poll_ms`, on a grid of poll_ms)
# The end switch stops the motor from its IRQ handler (no overtravel while the
# task loop is busy); halt() (guard IRQ) stops it too.  Both allocate nothing.
from firmware.compat import const, ticks_diff
from firmware.drivers.limit import LimitSwitch
from firmware.drivers.current import CurrentSense
from firmware import codes

NONE = const(0)
FAR = const(1)    # toward the far end: lift up, door open   (motor dir 1)
NEAR = const(2)   # toward the near end: lift down, door closed (motor dir 0)

AT_NEAR = const(0)
AT_FAR = const(1)
BETWEEN = const(2)


class EndMotion:
    def __init__(self, motor, far_pin, near_pin, sched, clock, *, timeout_ms, release_ms, poll_ms,
                 travel_ms, adc=None, stall_threshold=0, stall_ms=0, stall_code=0, on_arrive=None,
                 on_fault=None):
        self.motor = motor
        self._clock = clock
        self._timeout_ms = timeout_ms
        self._release_ms = release_ms
        self._poll_us = poll_ms * 1000
        self._travel_ms = travel_ms
        self._stall_us = stall_ms * 1000
        self._stall_code = stall_code
        self._on_arrive = on_arrive
        self._on_fault = on_fault
        self._far_cb = self._far_irq
        self._near_cb = self._near_irq
        # the switches' IRQs (both edges) raise the scheduler's wake: an arrival to
        # finish, or a switch that changed (the controller reports the door's state)
        self._wake = sched.wake
        self.far = None if far_pin is None else LimitSwitch(far_pin, self._far_cb, wake=self._wake)
        self.near = None if near_pin is None else LimitSwitch(near_pin, self._near_cb, wake=self._wake)
        self.current = None
        if adc is not None:
            self.current = CurrentSense(adc, threshold_u16=stall_threshold)
        self._timeout = sched.timer(self._timeout_due)
        self._release = sched.timer(self._release_due)
        self._poll = sched.timer(self._poll_due)
        self._travel = sched.timer(self._travel_due)
        self.stroke_us = 0  # the last arrival's stroke time (0: it was already there)
        self.moving = NONE
        self.position = BETWEEN
        self._arrived = False   # set by the end-switch IRQ
        self.halted = False     # set by halt() while moving (guard)
        self._over_since = 0
        self._over = False
        self.strokes = 0
        self.last_stroke_us = 0
        self._start_us = 0
        self._timed = False
        self.fault = 0
        self.fail_ms = 0  # ms into the stroke when it failed (FAULT.detail)
        self.position = self.read_position()

    @property
    def start_us(self):
        """ticks_us of the current (or last) motion's start."""
        return self._start_us

    # ---- reading the switches ----------------------------------------
    def far_pressed(self):
        return self.far is not None and self.far.pressed()

    def near_pressed(self):
        return self.near is not None and self.near.pressed()

    def read_position(self):
        f = self.far_pressed()
        n = self.near_pressed()
        if f and not n:
            return AT_FAR
        if n and not f:
            return AT_NEAR
        return BETWEEN

    def both_pressed(self):
        return self.far is not None and self.near is not None and self.far.pressed() and self.near.pressed()

    # ---- IRQ context --------------------------------------------------
    def _far_irq(self):
        if self.moving == FAR:
            self.motor.stop()
            self._arrived = True

    def _near_irq(self):
        if self.moving == NEAR:
            self.motor.stop()
            self._arrived = True

    def halt(self):
        """Motor off now (IRQ-safe).  A motion in progress is marked halted."""
        self.motor.stop()
        if self.moving != NONE:
            self.halted = True

    # ---- task context -------------------------------------------------
    def pending(self):
        return self._arrived or (self.halted and self.moving != NONE)

    def move(self, direction):
        """Start moving FAR or NEAR.  Returns 0, or a fault code (nothing moved)."""
        if self.both_pressed():
            return codes.FAULT_LIMIT
        self.fault = 0
        self.halted = False
        self._arrived = False
        target = self.far if direction == FAR else self.near
        if target is not None and target.pressed():
            self.moving = direction
            self._arrived = True  # already there: service() reports it
            self._wake.up = True
            return 0
        leaving = self.near if direction == FAR else self.far
        self.moving = direction
        self._over = False
        self._start_us = self._clock.ticks_us()
        self._timed = True
        self.position = BETWEEN
        if self.current is not None:
            self.current.reset_peak()  # the stroke's own peak (LIFT_STROKE)
        self.motor.run(1 if direction == FAR else 0)
        self._timeout.start(self._timeout_ms)
        if leaving is not None and leaving.pressed():
            self._release.start(self._release_ms)
        if target is None:
            self._travel.start(self._travel_ms)  # no end switch: timed move
        self._next_poll()
        return 0

    def stop(self):
        """Stop without a fault (e.g. a shutdown or a cancelled cycle)."""
        self.motor.stop()
        self._cancel_timers()
        self.moving = NONE
        self._arrived = False
        self.position = self.read_position()

    def _cancel_timers(self):
        self._timeout.cancel()
        self._release.cancel()
        self._poll.cancel()
        self._travel.cancel()

    def service(self):
        """Finish an arrival or a halt seen by an IRQ.  Returns True if one was."""
        if self._arrived:
            self._arrived = False
            if self.both_pressed():
                # the end switch closed while the one being left is still pressed:
                # a stuck switch, not an arrival (the lift or door never moved)
                self._fail(codes.FAULT_LIMIT)
                return True
            direction = self.moving
            self.motor.stop()
            self._cancel_timers()
            self.moving = NONE
            self.position = AT_FAR if direction == FAR else AT_NEAR
            self.stroke_us = 0
            if self._timed:
                self._timed = False
                self.last_stroke_us = ticks_diff(self._clock.ticks_us(), self._start_us)
                self.stroke_us = self.last_stroke_us
            self.strokes += 1
            if self._on_arrive is not None:
                self._on_arrive(direction)
            return True
        if self.halted and self.moving != NONE:
            self.motor.stop()
            self._cancel_timers()
            self.moving = NONE
            self.position = self.read_position()
            return True
        return False

    def _fail(self, code):
        self.motor.stop()
        self.fail_ms = ticks_diff(self._clock.ticks_us(), self._start_us) // 1000 if self._timed else 0
        self._timed = False
        self._cancel_timers()
        self.moving = NONE
        self.position = self.read_position()
        self.fault = code
        if self._on_fault is not None:
            self._on_fault(code)

    def _timeout_due(self):
        if self.moving != NONE:
            self._fail(codes.FAULT_LIMIT)

    def _release_due(self):
        if self.moving == NONE:
            return
        leaving = self.near if self.moving == FAR else self.far
        if leaving is not None and leaving.pressed():
            self._fail(codes.FAULT_LIMIT)

    def _travel_due(self):
        if self.moving != NONE:
            self.motor.stop()
            self._arrived = True
            self.service()

    def _next_poll(self):
        # on a grid of poll_ms (from the clock's zero): the lift's and the door's
        # polls of a hand over fall on the same instants and take one pass of
        # the task loop, not two
        now = self._clock.ticks_us()
        self._poll.start_at_us(now - now % self._poll_us, self._poll_us)

    def _poll_due(self):
        moving = self.moving
        if moving == NONE:
            return
        # each switch read once (this runs every poll_ms of every motion)
        f = self.far is not None and self.far.pressed()
        n = self.near is not None and self.near.pressed()
        if f and n:
            self._fail(codes.FAULT_LIMIT)
            return
        if f if moving == FAR else n:
            # the end switch is closed but its edge was missed: arrive now
            self.motor.stop()
            self._arrived = True
            self.service()
            return
        cur = self.current
        if cur is not None:
            if cur.over():
                now = self._clock.ticks_us()
                if not self._over:
                    self._over = True
                    self._over_since = now
                elif ticks_diff(now, self._over_since) >= self._stall_us:
                    self._fail(self._stall_code)
                    return
            else:
                self._over = False
        self._next_poll()

    def get_status(self):
        d = {
            "moving": self.moving,
            "position": self.position,
            "strokes": self.strokes,
            "last_stroke_ms": self.last_stroke_us // 1000,
            "fault": self.fault,
        }
        if self.current is not None:
            d["current_u16"] = self.current.last
            d["current_peak_u16"] = self.current.peak
        return d
