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
    K = kind
    tr = ctl.tracks[index - 1] if index else None
    ms = TEST_PULSE_MS
    if K == _m.D_MIXER:
        ctl.mixer.start()
    elif K == _m.D_GATE:
        tr.gate.open()
    elif K == _m.D_PUSHER and ctl.family == "fourport":
        finish(ctl, kind, index)  # the cam pushes: no pusher of its own (ABSENT)
        return OK, NO_FIELD
    elif K == _m.D_STACKER or K == _m.D_PUSHER:
        job = STACK if K == _m.D_STACKER else PUSH
        tr.stacker.energise_for_test(job)
        if tr.stacker.stroke_ms(job) > ms:
            ms = tr.stacker.stroke_ms(job)  # a whole stroke: it also clears a tile off the ramp
    elif K == _m.D_STATUS_LIGHT and ctl.light.pin is not None:
        ctl.light.pin.value(1)
    else:
        # a reading: its SELF_TEST_RESULT is the command's reply, queued before the
        # RESULT (SPEC §9), and the state stays (two frames, all a command may take)
        finish(ctl, kind, index)
        return OK, NO_FIELD
    # a pulse: TESTING until the timer ends it (the controller calls finish);
    # SELF_TEST_RESULT comes after RESULT
    ctl.begin_test(kind, index, ms)
    return OK, NO_FIELD

def finish(ctl, K, idx):
    tr = ctl.tracks[idx - 1] if idx else None
    result = _m.TEST_PASS
    value = 0
    if K == _m.D_MIXER:
        ctl.mixer.stop()
    elif K == _m.D_GATE:
        tr.gate.close()
    elif K == _m.D_STACKER:
        tr.stacker.release_test(STACK)
    elif K == _m.D_PUSHER and ctl.family == "fourport":
        result = _m.TEST_ABSENT
    elif K == _m.D_PUSHER:
        tr.stacker.release_test(PUSH)
    elif K == _m.D_HOME:
        if ctl.family != "fourport":
            result = _m.TEST_ABSENT
        else:
            value = 1 if tr.cam.home.pressed() else 0
            if not value:
                result = _m.TEST_FAIL  # a cam at rest is home
    elif K == _m.D_STATUS_LIGHT:
        if ctl.light.pin is None:
            result = _m.TEST_ABSENT
        else:
            ctl.light.pin.value(0)
    elif K == _m.D_MIXER_EMPTY:
        value = 1 if ctl.mixer.empty() else 0
    elif K == _m.D_ENTRY:
        value = 0 if tr.photo.blocked() else 1
        if not value:
            result = _m.TEST_FAIL  # the beam is blocked
    elif K == _m.D_COLOUR:
        bus = ctl.colour_bus
        if bus is None:
            result = _m.TEST_ABSENT
        elif bus.read(idx - 1):
            value = bus.c
        else:
            result = _m.TEST_FAIL
    elif K == _m.D_LIFT:
        value = ctl.lift.axis.position
        if ctl.lift.axis.both_pressed():
            result = _m.TEST_FAIL
    elif K == _m.D_LIFT_TOP:
        value = 1 if ctl.lift.axis.far_pressed() else 0
    elif K == _m.D_LIFT_BOTTOM:
        value = 1 if ctl.lift.axis.near_pressed() else 0
    elif K == _m.D_LIFT_CURRENT:
        cur = ctl.lift.axis.current
        if cur is None:
            result = _m.TEST_ABSENT
        else:
            value = cur.read()
            if value > cur.threshold:
                result = _m.TEST_FAIL
    elif K == _m.D_DOOR:
        value = ctl.door.state()
        if ctl.door.axis.both_pressed():
            result = _m.TEST_FAIL
    elif K == _m.D_DOOR_CLOSED:
        value = 1 if ctl.door.axis.near_pressed() else 0
    elif K == _m.D_DOOR_OPEN:
        if ctl.door.axis.far is None:
            result = _m.TEST_ABSENT
        else:
            value = 1 if ctl.door.axis.far_pressed() else 0
    elif K == _m.D_CURTAIN:
        value = 1 if ctl.guard.get_status()["curtain"] else 0
        if not value:
            result = _m.TEST_FAIL
    elif K == _m.D_LID:
        lid = ctl.guard.get_status()["lid"]
        if lid is None:
            result = _m.TEST_ABSENT
        else:
            value = 1 if lid else 0
            if not value:
                result = _m.TEST_FAIL
    elif K == _m.D_START_BUTTON or K == _m.D_DICE_BUTTON:
        lvl = ctl.buttons.level(_m.BUTTON_START if K == _m.D_START_BUTTON else _m.BUTTON_DICE)
        if lvl is None:
            result = _m.TEST_ABSENT
        else:
            value = lvl
    else:
        result = _m.TEST_ABSENT
    ctl.events.on_self_test(K, idx, result, value)
    ctl.end_test()

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
