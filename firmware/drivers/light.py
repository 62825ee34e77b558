# The status light (docs/FIRMWARE.md "The status light"): one LED output and the
# patterns it shows, each a tuple of step times in ms that alternate on, off,
# on, off ... from the first step (one step: steady on; none: off), run by one
# preallocated scheduler timer.
#
# Two sources set it.  The controller sets the firmware's own pattern from what
# it knows (show_own: off, ready, building, motion, fault, or hold while a
# self-test drives the pin); the host sets its pattern for what only it knows
# (set_host, the LIGHT command: auto, ready, people, dice, and refused, a
# one-shot).  Precedence (choose(), documented in FIRMWARE.md):
#   hold > fault > refused (one-shot) > motion > building > the host's pattern
#   > the firmware's own ready/off
# where the host's pattern counts only while a host session is up (the
# controller calls host_gone() when the link is lost or a new session starts).
#
# The timer callback indexes a tuple and writes the pin: it allocates nothing
# (tests/mpy/test_firmware_light.py runs it under micropython.heap_lock()).
from firmware.compat import const
from protocol import messages as _m

# What the light shows: the host's codes (LIGHT.pattern, protocol/messages.py
# LIGHTS) first, then the firmware's own.  AUTO is not a pattern: it hands the
# light back to the firmware.
AUTO = _m.LIGHT_AUTO
READY = _m.LIGHT_READY
PEOPLE = _m.LIGHT_PEOPLE
DICE = _m.LIGHT_DICE
REFUSED = _m.LIGHT_REFUSED
OFF = const(5)
BUILDING = const(6)
MOTION = const(7)
FAULT = const(8)
HOLD = const(9)  # a self-test drives the pin: the light leaves it alone
NAMES = ("auto", "ready", "people", "dice", "refused", "off", "building", "motion", "fault", "hold")

# Step times in ms, alternating on/off from an "on" step; repeated, except
# REFUSED, which plays once (its last step is the dark gap before the pattern
# comes back).
STEPS = (
    (),  # auto: never shown
    (1,),  # ready: steady on
    (150, 150, 150, 1050),  # people: double blink, 1.5 s period
    (1200, 300),  # dice: long on, a short wink off
    (100, 100, 100, 100, 100, 400),  # refused: three quick flashes, once
    (),  # off
    (1000, 1000),  # building: slow blink, 0.5 Hz
    (250, 250),  # motion: fast blink, 2 Hz
    (80, 80),  # fault: flicker, 6 Hz
    (),  # hold
)


class Light:
    def __init__(self, pin, sched):
        self.pin = pin  # None: the profile has no light (everything is still tracked)
        self.own = OFF  # the firmware's own pattern
        self.host = AUTO  # the host's pattern (never REFUSED: that one is a flash)
        self.shown = OFF  # what the light shows now
        self.flashing = False  # a REFUSED one-shot is playing
        self.level = 0
        self._steps = STEPS[OFF]
        self._i = 0
        self._cb = self._step  # bound once: the timer calls it
        self._timer = sched.timer(self._cb)

    # ------------------------------------------------------------ inputs
    def show_own(self, p):
        """The firmware's own pattern (OFF, READY, BUILDING, MOTION, FAULT, HOLD)."""
        if p != self.own:
            self.own = p
            self._update()

    def set_host(self, code):
        """The host's pattern (LIGHT.pattern: AUTO, READY, PEOPLE, DICE, REFUSED)."""
        if code == REFUSED:
            if self.own != FAULT and self.own != HOLD:
                self.flashing = True
                self._play(REFUSED)
            return
        self.host = code
        self._update()

    def host_gone(self):
        """No host session any more (link lost, a new session): the host's pattern
        is forgotten and the firmware's own shows (a flash in progress ends)."""
        self.host = AUTO
        self.flashing = False
        self._update()

    def choose(self):
        """The pattern to show now, by precedence (without the one-shot)."""
        own = self.own
        if own == HOLD or own == FAULT or own == MOTION or own == BUILDING:
            return own
        if self.host != AUTO:
            return self.host
        return own

    def off(self):
        """Dark now, the timer stopped (shutdown); the next change lights it again."""
        self._timer.cancel()
        self.flashing = False
        self.shown = OFF
        self._steps = STEPS[OFF]
        self._write(0)

    # ------------------------------------------------------------ running
    def _update(self):
        if self.flashing:
            if self.own != FAULT and self.own != HOLD:
                return  # the flash plays to its end, then the pattern chosen then
            self.flashing = False
        p = self.choose()
        if p != self.shown:
            self._play(p)

    def _play(self, p):
        self.shown = p
        steps = STEPS[p]
        self._steps = steps
        self._i = 0
        if p == HOLD:
            self._timer.cancel()  # the pin stays as the self-test set it
            return
        if len(steps) < 2:
            self._timer.cancel()
            self._write(1 if steps else 0)
            return
        self._write(1)
        self._timer.start(steps[0])

    def _step(self):
        steps = self._steps
        i = self._i + 1
        if i >= len(steps):
            if self.flashing:
                self.flashing = False
                self._play(self.choose())
                return
            i = 0
        self._i = i
        self._write(1 - (i & 1))
        self._timer.start(steps[i])

    def _write(self, v):
        self.level = v
        pin = self.pin
        if pin is not None:
            pin.value(v)

    def get_status(self):
        return {
            "present": self.pin is not None,
            "shown": NAMES[self.shown],
            "own": NAMES[self.own],
            "host": NAMES[self.host],
            "level": self.level,
        }
