# The wiring survey's two commands (docs/FIRMWARE.md "The wiring survey"; protocol
# minor 2): PIN_PULSE puts one output the profile claims on for a moment, by its pin
# number, and PIN_READ reads inputs the profile claims, by number.  Imported on first
# use, as firmware/selftest.py: a survey is rare, its code is not resident from boot.
#
# The survey is how a person finds which of the table's devices each pin reaches when
# the board profile's map is not known yet (a retrofitted commercial table): the host
# pulses each output while the person says what moved, and watches every input while
# the person presses each switch (hostd/bringup/survey.py).  So the firmware knows no
# device by these pins: it drives the pin objects the profile's names made, only those,
# and only while nothing else can move:
#   - IDLE (or FAULT: a draft map makes the firmware see faults that are not there) with
#     no walls inside and no build configured (else NOT_ALLOWED);
#   - the safety layer's may_move (curtain clear, lid and safety chain closed, the
#     motion supply on; else FAILED), and its IRQ switches the pulsed pins off like
#     the lift and the door (Pulse.halt, registered as a motion);
#   - every other output off first (Controller.shutdown), the state TESTING for the
#     pulse (no other motion is taken), at most PIN_PULSE_MAX_MS;
#   - STOP or ABORT ends a pulse at once.
from firmware import codes
from firmware import hal as _hal
from protocol import messages as _m

OK = _m.OK
NO_FIELD = _m.NO_FIELD
KIND = 0  # Controller.begin_test's kind for a pin pulse (a SELF_TEST kind is 1..)


class Pulse:
    """The output being pulsed and the one held with it; halt() (the guard's IRQ, STOP,
    ABORT, the pulse's end) switches both off, the pulsed one first, allocating nothing."""

    def __init__(self):
        self.obj = None
        self.pwm = False
        self.hold = None

    def start(self, obj, pwm, hold):
        self.obj = obj
        self.pwm = pwm
        self.hold = hold
        if hold is not None:
            hold.value(1)  # the direction first: never reverse under power
        if pwm:
            obj.duty_u16(65535)
        else:
            obj.value(1)

    def halt(self):
        obj = self.obj
        if obj is not None:
            if self.pwm:
                obj.duty_u16(0)
            else:
                obj.value(0)
        h = self.hold
        if h is not None:
            h.value(0)

    def active(self):
        return self.obj is not None

    def clear(self):
        self.halt()
        self.obj = None
        self.hold = None


def _named(profile, pin, kinds):
    """The signal the profile puts on pin number `pin` whose kind is one of `kinds`."""
    pins = profile["pins"]
    for name in pins:
        if pins[name] == pin:
            sig = _hal.signal(name)
            if sig is not None and sig[0] in kinds:
                return name
    return None


def _pulse_of(ctl):
    p = getattr(ctl, "pin_pulse", None)
    if p is None:
        p = Pulse()
        ctl.pin_pulse = p
        ctl.guard.add(motion=(p,))
    return p


def pulse(ctl, pin, ms, hold):
    # (IDLE, or a FAULT with nothing built: a draft's map makes the firmware see faults
    # that are not there, a beam read on a pin that reaches a pressed switch)
    s = ctl.state
    if (s != codes.IDLE and s != codes.FAULT) or ctl.walls != codes.WALLS_NONE or ctl.cfg_id:
        return _m.E_NOT_ALLOWED, NO_FIELD
    prof = ctl.profile
    name = _named(prof, pin, (_hal.OUT, _hal.PWM))
    if name is None:
        return _m.E_UNSUPPORTED, 0
    hname = None
    if hold != _m.PIN_NONE:
        if hold == pin:
            return _m.E_RANGE, 2
        hname = _named(prof, hold, (_hal.OUT,))
        if hname is None:
            return _m.E_UNSUPPORTED, 2
    if not ctl.guard.may_move():
        return _m.E_FAILED, NO_FIELD
    hal = ctl.hal
    pwm = _hal.signal(name)[0] == _hal.PWM
    obj = hal.pwm(name) if pwm else hal.output(name)
    if obj is None:
        return _m.E_UNSUPPORTED, 0
    hobj = hal.output(hname) if hname is not None else None
    ctl.shutdown()  # every other output off
    p = _pulse_of(ctl)
    p.start(obj, pwm, hobj)
    ctl.begin_test(KIND, 0, ms)
    return OK, NO_FIELD


def finish(ctl):
    """The pulse is over (its timer, STOP, ABORT): both pins off, back to IDLE."""
    p = getattr(ctl, "pin_pulse", None)
    if p is not None:
        p.clear()
    ctl.end_test()


def read(ctl, pins):
    """(code, field, levels): bit i of levels is what pins[i] reads."""
    prof = ctl.profile
    hal = ctl.hal
    levels = 0
    for i in range(len(pins)):
        name = _named(prof, pins[i], (_hal.IN,))
        obj = hal.input(name) if name is not None else None
        if obj is None:
            return _m.E_UNSUPPORTED, 0, 0
        if obj.value():
            levels |= 1 << i
    return OK, NO_FIELD, levels
