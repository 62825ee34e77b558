# The four-port family's part of the board profile's checks (docs/FIRMWARE.md §11):
# its motors section and its pins, every problem at once.  firmware/profile_check.py
# imports it only for a profile that names the family or gives motors, so a reference
# board never loads it (and profile.release() drops it with the checks).
from firmware import hal
from firmware.fourport import pins as _fp
from firmware.profile_error import ProfileError
from firmware.profile_leaf import PIN_ACC as _PIN_ACC, PIN, MOTOR_SUPPLIES, is_int as _is_int, \
    pin_object as _pin_object, chip_only as _chip_only

# ---- the four-port family (docs/FIRMWARE.md §11) ------------------------------------------
_MOTOR_ACC = ('{"drive": "hbridge"|"onoff"|"relays", "supply": "dc"|"ac"} (hbridge: PWM + direction; '
              'onoff: one relay, SSR or MOSFET, one way, stopped by its switch; relays: a reversing pair)')


def motors_into(found, out, v):
    """The motors section, every problem in it at once (added to found; the first raised
    so the section counts as wrong)."""
    fam = out["family"]
    kinds = [m for m, _, _ in _fp.FOURPORT_MOTORS]
    if fam != "fourport":
        if v is not None:
            raise ProfileError("motors", "the %s family has no motors section (its motors are named by "
                               "its pins)" % fam, 'leave it out, or "family": "fourport"')
        return None
    acc = "an object with keys " + ", ".join(kinds) + ", each " + _MOTOR_ACC
    if not isinstance(v, dict):
        raise ProfileError("motors", "missing" if v is None else "got %r, not an object" % (v,), acc)
    mine = []
    res = {}
    for k in v:
        if k not in kinds:
            mine.append(ProfileError("motors." + str(k), "unknown motor", "one of " + ", ".join(kinds)))
    for m, _side, two_way in _fp.FOURPORT_MOTORS:
        key = "motors." + m
        e = v.get(m)
        if not isinstance(e, dict):
            mine.append(ProfileError(key, "missing" if e is None else "got %r" % (e,), _MOTOR_ACC))
            continue
        bad = False
        for k in e:
            if k != "drive" and k != "supply":
                mine.append(ProfileError(key + "." + str(k), "unknown key", "drive, supply"))
                bad = True
        drive = e.get("drive")
        supply = e.get("supply")
        if drive not in _fp.DRIVES:
            mine.append(ProfileError(key + ".drive", "missing" if drive is None else "got %r" % (drive,),
                                     "hbridge, onoff or relays"))
            bad = True
        if supply not in MOTOR_SUPPLIES:
            mine.append(ProfileError(key + ".supply", "missing" if supply is None else "got %r" % (supply,),
                                     "dc or ac"))
            bad = True
        if drive == "hbridge" and supply == "ac":
            mine.append(ProfileError(key, "an AC (mains, capacitor-run) motor on a PWM output (an H-bridge "
                                     "drives DC motors only)", 'drive "onoff" (one relay or SSR) or "relays" '
                                     "(a reversing pair) for an AC motor"))
            bad = True
        if drive == "onoff" and two_way:
            mine.append(ProfileError(key + ".drive", "%s must move both ways (up and down, open and closed); "
                                     "one on/off output turns it one way only" % m, "hbridge or relays"))
            bad = True
        if not bad:
            res[m] = {"drive": drive, "supply": supply}
    out["_motor_drives"] = res  # what the pins' check can go by (popped there)
    if mine:
        found.extend(mine[1:])
        raise mine[0]
    return res


# a motor is stopped by its switches: the inputs each motor cannot do without
def _motor_switches(name):
    kind = _fp.motor_kind(name)
    n = name[len(kind):]
    if kind == "stacker":
        return ["home" + n]
    if kind == "lift":
        return ["lift" + n + "_top", "lift" + n + "_bottom"]
    if kind == "centre":
        return ["centre_closed"]
    if kind == "feed":
        return ["count" + n, "colour" + n + "_int"]
    if kind == "disc":
        return ["disc_empty"]
    return []


def pins_into(found, out, v):
    """A four-port profile's pins: every problem at once (added to found)."""
    tracks = out["tracks"]
    drives = out.pop("_motor_drives", None) or {}
    vague = [m for m in _fp.motor_names(tracks) if _fp.motor_kind(m) not in drives]
    names = _fp.signal_names(tracks, drives, skip_missing=True)
    acc_keys = "the fourport family's signals for %d sides and these motors' drives" % tracks
    if not isinstance(v, dict):
        raise ProfileError("pins", "got %r, not an object" % (v,), acc_keys)
    mine = []
    for k in v:
        if k not in names:
            if [m for m in vague if _fp.pattern(k)[0].startswith(_fp.pattern(m)[0] + "_")]:
                continue  # a pin of a motor whose drive is wrong (reported at motors)
            sig = hal.signal(k)
            if sig is not None and (k in hal.SIGNALS or _fp.pattern(k)[0] in [b + "<n>" for b in hal.TRACK_SIGNALS]):
                mine.append(ProfileError("pins." + str(k), "a signal of the reference family in a fourport "
                                         "profile (the families are not mixed)", acc_keys))
            elif sig is not None:
                mine.append(ProfileError("pins." + str(k), "not a signal of this profile's motors' drives "
                                         "or sides (motors.%s says how it is driven)" % _fp.motor_kind(k.split("_")[0])
                                         if _fp.pattern(k)[0].split("_")[0].replace("<n>", "") in [m for m, _, _ in _fp.FOURPORT_MOTORS]
                                         else "not a signal of this profile's %d sides" % tracks, acc_keys))
            else:
                mine.append(ProfileError("pins." + str(k), "unknown signal", acc_keys + ": " + ", ".join(names)))
    given = out["pin_options"] or {}
    nexp = len(out["expanders"])
    pins = {}
    opts = {}
    used = {}
    for k in names:
        key = "pins." + k
        kind, pull, optional = hal.signal(k)
        if k not in v:
            if not optional and kind == hal.IN:
                owner = [m for m in _fp.motor_names(tracks) if k in _motor_switches(m)]
                if owner:
                    mine.append(ProfileError(key, "missing: motor %s is stopped by it (a motor without its "
                                             "switches is refused)" % owner[0], _PIN_ACC))
                    continue
            mine.append(ProfileError(key, "missing", _PIN_ACC + (" or null" if optional else "")))
            continue
        p = v[k]
        try:
            if p is None:
                if not optional:
                    owner = [m for m in _fp.motor_names(tracks) if k in _motor_switches(m)]
                    raise ProfileError(key, "null is not allowed" + (
                        ": motor %s is stopped by it" % owner[0] if owner else ", the firmware cannot do without it"),
                        _PIN_ACC)
                pins[k] = None
                continue
            if isinstance(p, dict):
                if k in given:
                    raise ProfileError(key, "given as an object and in pin_options", "one of the two")
                p, opts[k] = _pin_object(key, p, kind, pull, nexp)
            elif _is_int(p) and hal.EXPANDER_PINS <= p < hal.EXPANDER_PINS + 16 * nexp:
                pass
            elif not _is_int(p) or p < PIN[1] or p > PIN[2]:
                raise ProfileError(key, "got %r" % (p,), _PIN_ACC + (" or null" if optional else ""))
            if k in given and k not in opts:
                _, opts[k] = _pin_object("pin_options." + k, dict(given[k], pin=0), kind, pull, 0)
            if p >= hal.EXPANDER_PINS:
                _chip_only(key, k, kind)
            if p in used:
                raise ProfileError(key, "pin %d is already used by %s" % (p, used[p]), "a pin number no other signal uses")
            used[p] = k
            pins[k] = p
        except ProfileError as e:
            mine.append(e)
    for k in given:
        if k not in opts and k in names:
            pass
        elif k not in opts:
            mine.append(ProfileError("pin_options." + str(k), "not a signal with a pin", "signals of pins that have one"))
    if "i2c_sda" in pins and "i2c_scl" in pins and (pins["i2c_sda"] is None) != (pins["i2c_scl"] is None):
        mine.append(ProfileError("pins.i2c_sda", "i2c_sda and i2c_scl must both be pins or both null",
                                 "both pins or both null"))
    if mine:
        found.extend(mine[1:])
        raise mine[0]
    out["pin_options"] = opts
    return pins
