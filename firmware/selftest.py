# SELF_TEST and CALIBRATE (docs/FIRMWARE.md §5): rare commands, imported by the
# controller on first use so their code is not resident from boot.
#
# SELF_TEST exercises one device: actuators (mixer, gate, stacker, pusher,
# status light) are pulsed for TEST_PULSE_MS and pass (nothing senses them);
# sensors are read and the reading is the result's value (levels, ADC counts,
# the colour sensor's clear channel, positions).  ABSENT for a null signal.
# CALIBRATE takes a track's current colour reading as a colour's reference.
from firmware.compat import const
from firmware import codes
from firmware.reference.stacker import STACK, PUSH
from firmware.drivers.colour import Classifier, min_ref_distance
from protocol import messages as _m

OK = _m.OK
NO_FIELD = _m.NO_FIELD
PASS = _m.TEST_PASS
FAIL = _m.TEST_FAIL
ABSENT = _m.TEST_ABSENT
TEST_PULSE_MS = const(100)


def start(ctl, kind, index):
    s = ctl.state
    if s != codes.IDLE and s != codes.FAULT:
        return _m.E_NOT_ALLOWED, NO_FIELD
    # index (SPEC §9): 0 for a per-track kind, or not 0 for another, is out of the
    # field's range on every table (E_RANGE); a track this table lacks is in range
    # but beyond it (E_UNSUPPORTED, SPEC §4), as for CALIBRATE
    if kind in _m.TRACK_DEVICES:
        if index < 1:
            return _m.E_RANGE, 1
        if index > ctl.ntracks:
            return _m.E_UNSUPPORTED, 1
    elif index != 0:
        return _m.E_RANGE, 1
    tr = ctl.tracks[index - 1] if index else None
    f = _PULSE.get(kind)
    ms = f(ctl, tr, kind) if f is not None else 0
    if not ms:
        # a reading (or an actuator this table lacks): its SELF_TEST_RESULT is the
        # command's reply, queued before the RESULT (SPEC §9), and the state stays
        # (two frames, all a command may take)
        finish(ctl, kind, index)
        return OK, NO_FIELD
    # a pulse: TESTING until the timer ends it (the controller calls finish);
    # SELF_TEST_RESULT comes after RESULT
    ctl.begin_test(kind, index, ms)
    return OK, NO_FIELD


# ---- a pulse's start, one function per actuator kind: (ctl, track or None, kind) ->
# the pulse's ms, or 0 where there is nothing to pulse (finish then reports at once)
def _mixer_on(ctl, tr, K):
    ctl.mixer.start()
    return TEST_PULSE_MS


def _gate_on(ctl, tr, K):
    tr.gate.open()
    return TEST_PULSE_MS


def _stroke_on(ctl, tr, K):
    if K == _m.D_PUSHER and ctl.family == "fourport":
        return 0  # the cam pushes: no pusher of its own (ABSENT)
    job = STACK if K == _m.D_STACKER else PUSH
    tr.stacker.energise_for_test(job)
    ms = tr.stacker.stroke_ms(job)  # a whole stroke: it also clears a tile off the ramp
    return ms if ms > TEST_PULSE_MS else TEST_PULSE_MS


def _light_on(ctl, tr, K):
    if ctl.light.pin is None:
        return 0
    ctl.light.pin.value(1)
    return TEST_PULSE_MS


# built once, when the module is first imported (a kind not here is a reading)
_PULSE = {_m.D_MIXER: _mixer_on, _m.D_GATE: _gate_on, _m.D_STACKER: _stroke_on,
          _m.D_PUSHER: _stroke_on, _m.D_STATUS_LIGHT: _light_on}


def finish(ctl, K, idx):
    """A test's end: a pulse's actuator released, or a sensor read; the result is
    reported (SELF_TEST_RESULT) and the state it began in comes back.  Each kind is
    one function of _FINISH, found by the kind (a new kind adds an entry)."""
    tr = ctl.tracks[idx - 1] if idx else None
    f = _FINISH.get(K)
    if f is None:
        result, value = ABSENT, 0
    else:
        result, value = f(ctl, tr, idx, K)
    ctl.events.on_self_test(K, idx, result, value)
    ctl.end_test()


# ---- a test's end, one function per device kind: (ctl, track or None, index, kind) ->
# (result, value)


def _level(pressed, fail_if_not):
    # a switch or beam as 1/0, FAIL when it reads 0 but a good one reads 1 at rest
    if pressed:
        return PASS, 1
    return (FAIL if fail_if_not else PASS), 0


def _mixer(ctl, tr, idx, K):
    ctl.mixer.stop()
    return PASS, 0


def _gate(ctl, tr, idx, K):
    tr.gate.close()
    return PASS, 0


def _stacker(ctl, tr, idx, K):
    tr.stacker.release_test(STACK)
    return PASS, 0


def _pusher(ctl, tr, idx, K):
    if ctl.family == "fourport":
        return ABSENT, 0  # the cam pushes: no pusher of its own
    tr.stacker.release_test(PUSH)
    return PASS, 0


def _home(ctl, tr, idx, K):
    if ctl.family != "fourport":
        return ABSENT, 0
    return _level(tr.cam.home.pressed(), True)  # a cam at rest is home


def _status_light(ctl, tr, idx, K):
    if ctl.light.pin is None:
        return ABSENT, 0
    ctl.light.pin.value(0)
    return PASS, 0


def _mixer_empty(ctl, tr, idx, K):
    return PASS, (1 if ctl.mixer.empty() else 0)


def _entry(ctl, tr, idx, K):
    return _level(not tr.photo.blocked(), True)  # FAIL: the beam is blocked


def _colour(ctl, tr, idx, K):
    bus = ctl.colour_bus
    if bus is None:
        return ABSENT, 0
    if bus.read(idx - 1):
        return PASS, bus.c
    return FAIL, 0


def _lift(ctl, tr, idx, K):
    axis = ctl.lift.axis
    value = axis.position
    return (FAIL if axis.both_pressed() else PASS), value


def _lift_top(ctl, tr, idx, K):
    return _level(ctl.lift.axis.far_pressed(), False)


def _lift_bottom(ctl, tr, idx, K):
    return _level(ctl.lift.axis.near_pressed(), False)


def _lift_current(ctl, tr, idx, K):
    cur = ctl.lift.axis.current
    if cur is None:
        return ABSENT, 0
    value = cur.read()
    return (FAIL if value > cur.threshold else PASS), value


def _door(ctl, tr, idx, K):
    value = ctl.door.state()
    return (FAIL if ctl.door.axis.both_pressed() else PASS), value


def _door_closed(ctl, tr, idx, K):
    return _level(ctl.door.axis.near_pressed(), False)


def _door_open(ctl, tr, idx, K):
    if ctl.door.axis.far is None:
        return ABSENT, 0
    return _level(ctl.door.axis.far_pressed(), False)


def _curtain(ctl, tr, idx, K):
    return _level(ctl.guard.get_status()["curtain"], True)


def _lid(ctl, tr, idx, K):
    lid = ctl.guard.get_status()["lid"]
    if lid is None:
        return ABSENT, 0
    return _level(lid, True)


def _button(ctl, tr, idx, K):
    lvl = ctl.buttons.level(_m.BUTTON_START if K == _m.D_START_BUTTON else _m.BUTTON_DICE)
    if lvl is None:
        return ABSENT, 0
    return PASS, lvl


# built once, when the module is first imported (a kind not here is ABSENT)
_FINISH = {
    _m.D_MIXER: _mixer, _m.D_GATE: _gate, _m.D_STACKER: _stacker, _m.D_PUSHER: _pusher,
    _m.D_HOME: _home, _m.D_STATUS_LIGHT: _status_light, _m.D_MIXER_EMPTY: _mixer_empty,
    _m.D_ENTRY: _entry, _m.D_COLOUR: _colour, _m.D_LIFT: _lift, _m.D_LIFT_TOP: _lift_top,
    _m.D_LIFT_BOTTOM: _lift_bottom, _m.D_LIFT_CURRENT: _lift_current, _m.D_DOOR: _door,
    _m.D_DOOR_CLOSED: _door_closed, _m.D_DOOR_OPEN: _door_open, _m.D_CURTAIN: _curtain,
    _m.D_LID: _lid, _m.D_START_BUTTON: _button, _m.D_DICE_BUTTON: _button,
}


def calibrate(ctl, colour, track):
    if ctl.state != codes.IDLE:
        return _m.E_NOT_ALLOWED, NO_FIELD
    if colour > ctl.ncolours:
        return _m.E_UNSUPPORTED, 0
    if track > ctl.ntracks:
        return _m.E_UNSUPPORTED, 1
    bus = ctl.colour_bus
    if bus is None:
        return _m.E_UNSUPPORTED, 1
    if not bus.read(track - 1):
        return _m.E_FAILED, 1
    if bus.c < ctl.profile["calibration"]["min_clear"]:
        return _m.E_FAILED, NO_FIELD  # no tile under the sensor
    s = bus.r + bus.g + bus.b
    if s <= 0:
        return _m.E_FAILED, NO_FIELD
    ref = [bus.r / s, bus.g / s, bus.b / s]
    refs = ctl.colour_refs()
    refs[colour - 1] = ref
    if len(refs) > 1 and ctl.max_distance * 2 >= min_ref_distance(refs):
        return _m.E_FAILED, 0  # too near another colour: classes would overlap
    ctl.set_colour_refs(refs)
    ctl.events.on_log(_m.LOG_INFO, "cal %s t%d %.3f %.3f %.3f" % (
        ctl.profile["colours"][colour - 1], track, ref[0], ref[1], ref[2]))
    return OK, NO_FIELD


def set_calibration(ctl, track, max_distance, refs, names):
    """SET_CALIBRATION (track, max_distance, refs) or SET_COLOUR_NAMES (names):
    docs/FIRMWARE.md §5 note 8.  RAM only: the board profile on the board's
    flash is what a restart reads (`jantaku flash --board` writes it)."""
    if ctl.state != codes.IDLE:
        return _m.E_NOT_ALLOWED, NO_FIELD
    prof = ctl.profile
    n = ctl.ncolours
    if names is not None:
        parts = names.split(",")
        if len(parts) != n:
            return _m.E_RANGE, 0
        for i in range(n):
            p = parts[i]
            if not p or p == "unknown" or parts.index(p) != i:
                return _m.E_RANGE, 0
        prof["colours"] = parts
        ctl.events.on_log(_m.LOG_INFO, "colours " + names)
        return OK, NO_FIELD
    if track > ctl.ntracks:
        return _m.E_UNSUPPORTED, 0
    if len(refs) != 3 * n:
        return _m.E_RANGE, 2
    sc = _m.REF_SCALE
    new = []
    for i in range(n):
        s = refs[3 * i] + refs[3 * i + 1] + refs[3 * i + 2]
        if s < sc - sc // 10 or s > sc + sc // 10:
            return _m.E_RANGE, 2
        new.append([refs[3 * i] / sc, refs[3 * i + 1] / sc, refs[3 * i + 2] / sc])
    md = max_distance / sc
    if n > 1 and md * 2 >= min_ref_distance(new):
        return _m.E_FAILED, 1  # the radius would reach a reading near two colours
    cl = Classifier(new, max_distance=md, min_clear=prof["calibration"]["min_clear"])
    for k in range(ctl.ntracks):
        if track == 0 or track == k + 1:
            ctl.tracks[k].set_classifier(cl)
    ctl.events.on_log(_m.LOG_INFO, "cal t%d r%.3f" % (track, md))
    return OK, NO_FIELD
