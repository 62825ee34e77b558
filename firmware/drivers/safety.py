# The safety layer as the firmware sees it (docs/SAFETY.md): the guard inputs (the
# light curtain over the lift openings, the lid over the mixer), the safety chain's
# end (`interlock`: 1 = the emergency stop released and the lid closed, every contact
# of the chain closed), the motion relay's feedback contact (`power_feedback`: 1 = the
# lift's and door's supply is on) and the watchdog output the firmware's loop toggles.
#
# The hardware comes first and needs none of this: the chain opens the relays on the
# motors' supply itself, and the relays' coils hold only while the watchdog output
# keeps toggling (a retriggerable relay or charge pump), so a hung firmware loses motor
# power within safety.watchdog_hold_ms + safety.relay_ms.  Inside that, this driver:
#
# - stops at once, from a hard interrupt where the port has one (rp2: Pin.irq(...,
#   hard=True); elsewhere a scheduled one), every motor a mechanism family registers:
#   `motion` ones (the lift, the door, a four-port table's side lifts: where fingers
#   go at the table top) on any unsafe input, `drive` ones (the mixer, a disc, feed
#   motors: under the lid) when the lid or the chain opens.  The handler allocates
#   nothing: it loops over lists built once and calls halt() on each (halt() only
#   writes pins and sets flags), then raises `wake`.
# - says whether a motion may start (may_move: every input safe and the motion
#   relay's feedback on) and whether a drive may (may_drive: lid and chain closed);
# - toggles the watchdog output from a scheduler timer: the timer runs from the main
#   loop (Scheduler.run in Firmware.step), never from an interrupt, so a loop that
#   hangs stops the toggling;
# - judges the relay's feedback 2 x relay_ms + 10 ms after every edge of an input (and
#   after the watchdog starts): on while the chain is open is a welded relay
#   (`relay_stuck`), off while every input is safe is a relay that does not close
#   (`no_power`, and no motion starts).
#
# Signals the profile leaves null (the simulator only: a real board refuses such a
# profile, firmware/profile.py require_safety) are taken as safe / powered.
from firmware.compat import const, ticks_diff

# FAULT GUARD's detail bits (protocol/SPEC.md "fault"): what was unsafe
CURTAIN = const(1)
LID = const(2)
CHAIN = const(4)


def irq_hard(pin, handler, trigger):
    """pin.irq(handler, trigger) as a hard interrupt where the port has one (rp2; the
    simulator's machine); a scheduled one elsewhere (a port or wrapper without `hard`).
    True if it is hard."""
    try:
        pin.irq(handler, trigger, hard=True)
        return True
    except TypeError:
        pin.irq(handler, trigger)
        return False


class Safety:
    def __init__(self, hal, sched, profile, *, motion=(), drive=(), wake=None):
        sf = profile["safety"]
        self._wake = wake
        self._clock = sched.clock
        # a stop's timing, from the unsafe edge (the IRQ): when the firmware's halt had
        # switched the motors off, and when the relay's feedback fell (the hardware cut);
        # `timing` while one is being measured (the controller reports it and ends it)
        self.timing = False
        self.trip_us = 0
        self.off_us = 0
        self.cut_us = 0
        self.cut_seen = False
        self._curtain = hal.input("guard_curtain")
        self._lid = hal.input("lid")
        self._chain = hal.input("interlock")
        self._feedback = hal.input("power_feedback")
        self._wd = hal.output("watchdog")
        self._motion = list(motion)
        self._drive = list(drive)
        self.trips = 0          # unsafe edges seen
        self.tripped = False    # set by the IRQ, cleared by the controller (ack())
        self.changed = False    # any edge (safe or not), cleared by the controller
        self.relay_stuck = False
        self.report_due = False
        self.no_power = False
        self.settling = False
        self.toggles = 0
        self._wd_level = 0
        self._toggle_ms = sf["watchdog_toggle_ms"]
        self._check_ms = 2 * sf["relay_ms"] + 10
        self._handler = self._irq  # bound once
        self.hard = True
        for pin in (self._curtain, self._lid, self._chain, self._feedback):
            if pin is not None:
                if not irq_hard(pin, self._handler, pin.IRQ_FALLING | pin.IRQ_RISING):
                    self.hard = False
        self._toggle_cb = self._toggle
        self._check_cb = self._check_relay
        self._wd_timer = sched.timer(self._toggle_cb)
        self._relay_timer = sched.timer(self._check_cb)
        self.watchdog_on = False
        if self._wd is not None:
            self.start_watchdog()

    def add(self, motion=(), drive=()):
        """More motors to stop (a family registers its own): motion ones on any unsafe
        input, drive ones when the lid or the chain opens."""
        self._motion.extend(motion)
        self._drive.extend(drive)

    # ---- the inputs -------------------------------------------------------
    def unsafe_bits(self):
        """CURTAIN | LID | CHAIN of what reads unsafe now (0: all safe)."""
        b = 0
        if self._curtain.value() != 1:
            b |= CURTAIN
        if self._lid is not None and self._lid.value() != 1:
            b |= LID
        if self._chain is not None and self._chain.value() != 1:
            b |= CHAIN
        return b

    def safe(self):
        return self.unsafe_bits() == 0

    def powered(self):
        """The motion relay's feedback: the lift's and door's supply is on (True when
        the profile has no feedback input)."""
        return self._feedback is None or self._feedback.value() == 1

    def may_move(self):
        """A lift or door motion may start: every input safe, and the motion supply on
        (or the relays still within their time since the chain closed or the watchdog
        started: they are pulling in)."""
        return self.unsafe_bits() == 0 and (self.powered() or self.settling)

    def may_drive(self):
        """The mixer (a build, a mix) may start: the lid and the chain closed."""
        return self.unsafe_bits() & (LID | CHAIN) == 0

    # ---- the interrupt ----------------------------------------------------
    def _irq(self, pin):
        self.changed = True
        b = self.unsafe_bits()
        if b:
            clk = self._clock
            first = not self.timing
            if first:
                self.timing = True
                self.cut_seen = False
                self.trip_us = clk.ticks_us()
            if b & (LID | CHAIN):
                for s in self._drive:
                    s.halt()
            for s in self._motion:
                s.halt()
            if first:
                self.off_us = ticks_diff(clk.ticks_us(), self.trip_us)
            if not self.tripped:
                self.trips += 1
            self.tripped = True
        if self.timing and not self.cut_seen and not self.powered():
            self.cut_seen = True  # the relay's feedback fell: the hardware cut the supply
            self.cut_us = ticks_diff(self._clock.ticks_us(), self.trip_us)
        w = self._wake
        if w is not None:
            w.up = True

    def end_timing(self):
        """The controller reported the stop (or there was none to report)."""
        self.timing = False

    def check(self):
        """Task-context backstop (a missed edge): same as the IRQ."""
        if not self.safe():
            self._irq(None)
        return self.tripped

    def ack(self):
        """The controller took an edge (task context): the relays move now; their
        feedback is judged once their time has passed."""
        self._settle()
        self.tripped = False
        self.changed = False

    def _settle(self):
        if self._feedback is not None:
            self.settling = True
            self._relay_timer.start(self._check_ms)

    def _check_relay(self):
        self.settling = False
        self.report_due = True  # the controller reports what the check found
        w = self._wake
        if w is not None:
            w.up = True
        fb = self._feedback.value() == 1
        if self.unsafe_bits():
            # the chain is open and the motors still have power: welded contacts
            self.relay_stuck = fb
        else:
            # the chain is closed and the watchdog alive, yet no power: a relay (or the
            # watchdog's module, or the 24 V) that does not close
            self.no_power = not fb

    # ---- the watchdog -----------------------------------------------------
    def start_watchdog(self):
        """Toggle the watchdog output every safety.watchdog_toggle_ms (from the main
        loop's scheduler): the relays' coils may hold."""
        if self._wd is None:
            return
        self.watchdog_on = True
        self._toggle()
        self._settle()

    def stop_watchdog(self):
        """Stop toggling: the motors' supply drops within the hold time (the firmware
        leaving its loop for the REPL, a test of the hardware path)."""
        self.watchdog_on = False
        self._wd_timer.cancel()

    def _toggle(self):
        if not self.watchdog_on:
            return
        self._wd_level ^= 1
        self._wd.value(self._wd_level)
        self.toggles = (self.toggles + 1) & 0x3FFFFFFF
        self._wd_timer.start(self._toggle_ms)

    # ---- status -----------------------------------------------------------
    def get_status(self):
        b = self.unsafe_bits()
        return {
            "safe": b == 0,
            "curtain": not (b & CURTAIN),
            "lid": None if self._lid is None else not (b & LID),
            "chain": None if self._chain is None else not (b & CHAIN),
            "power": None if self._feedback is None else self.powered(),
            "watchdog": None if self._wd is None else self.watchdog_on,
            "relay_stuck": self.relay_stuck,
            "no_power": self.no_power,
            "hard_irq": self.hard,
            "trips": self.trips,
        }
