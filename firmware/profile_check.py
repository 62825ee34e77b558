# The board profile's schema and checks (docs/FIRMWARE.md §3), used through
# firmware.profile.validate().  A board drops this module once the firmware is
# built (firmware.profile.release(), from main.py), so running from .mpy files
# its code does not stay in RAM for the rest of the run.
from firmware import hal
from firmware.profile_error import ProfileError
from firmware.profile_leaf import PIN, EXPANDERS_MAX, EXPANDER_INDEX, EXPANDER_PIN, MOTOR_SUPPLIES, \
    PIN_ACC as _PIN_ACC, fmt_range as _fmt_range, is_int as _is_int, is_num as _is_num, leaf as _leaf, \
    chip_only as _chip_only, expander_pin, pin_object as _pin_object  # noqa: F401 (the schema's names)

# Leaf specs: (kind, lo, hi).  kind: "int" (JSON integer), "num" (integer or
# decimal), "str", "bool".  Sections are dicts of specs.  OPTIONAL lists keys
# that may be left out (their default is filled in).
_TIMINGS = {
    "debounce": ("int", 0, 50),
    "colour_delay": ("int", 1, 100),
    "gate_close": ("int", 1, 200),
    "stacker": ("int", 10, 2000),
    "pusher": ("int", 10, 2000),
    "lift_stroke": ("int", 100, 60000),
    "door_move": ("int", 50, 20000),
    "heartbeat": ("int", 50, 10000),
    "poll": ("int", 1, 100),
    "mix": ("int", 0, 60000),
}
_TIMEOUTS = {
    "jam": ("int", 20, 10000),
    "jam_backoff": ("int", 10, 5000),
    "jam_retries": ("int", 0, 10),
    "mixer_empty": ("int", 100, 60000),
    "lift": ("int", 100, 120000),
    "limit_release": ("int", 20, 20000),
    "door": ("int", 50, 60000),
    "link": ("int", 200, 60000),
    "build": ("int", 1000, 500000),  # timers run on ticks_us: half its 2**30 period is ~537 s
    "stall_current": ("int", 1, 5000),
}
# The board id names the profile's file (firmware/boards/<id>.json on the board and
# on the host) and is sent in IDENTITY (1..20 bytes): letters a-z, digits, '-', '_'.
ID = ("str", 1, 20)
ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-_"
HARDWARE = ("str", 1, 40)
COLOURS = (1, 7)  # how many colours
COLOUR_NAME = ("str", 1, 16)
CALIBRATION = {
    "integration_ms": ("int", 1, 614),
    "max_distance": ("num", 0.001, 1.0),
    "min_clear": ("int", 0, 65535),
}
REF = ("num", 0.0, 1.0)  # each of a reference's r, g, b
PORT = {
    "usb": {},
    "uart": {"id": ("int", 0, 9), "baud": ("int", 300, 3000000), "tx": PIN, "rx": PIN},
    "serial": {"path": ("str", 1, 200), "baud": ("int", 300, 3000000)},
}
EXPANDER_KIND = "mcp23017"
EXPANDER_ADDR = ("int", 0x20, 0x27)
# The safety chain's figures (docs/SAFETY.md): the watchdog's toggle and hold, the
# relays' release time, each axis's coast after its power goes and its travel, and the
# limits the measured stop (selftest guard_stop) must stay under.
SAFETY = {
    "watchdog_toggle_ms": ("int", 5, 1000),
    "watchdog_hold_ms": ("int", 20, 5000),
    "relay_ms": ("int", 1, 500),
    "lift_coast_ms": ("int", 0, 2000),
    "door_coast_ms": ("int", 0, 2000),
    "lift_travel_mm": ("int", 1, 2000),
    "door_travel_mm": ("int", 1, 2000),
    "stop_limit_ms": ("int", 1, 5000),
    "overrun_limit_mm": ("num", 0.1, 200.0),
}
# The power stage (docs/SAFETY.md "The power stage"): read by the host only (`jantaku wiring
# --power` sizes fuses, relays and wires from it), never by the board.
POWER = {
    "supply_v": ("int", 5, 48),
    "mains": ("int", 0, 1),
    "mixer_a": ("num", 0.05, 30.0),
    "lift_a": ("num", 0.05, 30.0),
    "door_a": ("num", 0.05, 30.0),
    "solenoid_a": ("num", 0.01, 10.0),
    # the four-port machine's other motors' running currents (its lifts take lift_a)
    "disc_a": ("num", 0.05, 30.0),
    "feed_a": ("num", 0.05, 30.0),
    "stacker_a": ("num", 0.05, 30.0),
    "centre_a": ("num", 0.05, 30.0),
    "dice_a": ("num", 0.05, 30.0),
}
POWER_DEFAULTS = {
    "supply_v": 24,
    "mains": 1,
    "mixer_a": 1.5,
    "lift_a": 2.5,
    "door_a": 1.0,
    "solenoid_a": 0.6,
    "disc_a": 1.5,
    "feed_a": 0.6,
    "stacker_a": 0.8,
    "centre_a": 1.5,
    "dice_a": 0.5,
}
SAFETY_DEFAULTS = {
    "watchdog_toggle_ms": 100,
    "watchdog_hold_ms": 300,
    "relay_ms": 20,
    "lift_coast_ms": 80,
    "door_coast_ms": 40,
    "lift_travel_mm": 120,
    "door_travel_mm": 80,
    "stop_limit_ms": 150,
    "overrun_limit_mm": 5.0,
}
CURRENT_ADC_KIND = "ads1115"
CURRENT_ADC = {"addr": ("int", 0x48, 0x4B), "channel": ("int", 0, 3)}
SCHEMA = {
    "id": "id",
    "description": ("str", 0, 1000),
    # the hardware the pins are on (a definition of the host's, hostd/boards/hardware/):
    # checked by the host, never by the board
    "hardware": "hardware",
    "tracks": ("int", 1, 8),
    "max_stacks": ("int", 1, 32),
    "colours": "colours",
    "pins": "pins",
    # validated: the pins given as objects, {name: {"invert", "pull"}} (docs/FIRMWARE.md §3)
    "pin_options": "pin_options",
    "i2c": {
        "bus": ("int", 0, 9),
        "freq": ("int", 10000, 1000000),
        "mux_addr": ("int", 0x70, 0x77),
        "sensor_addr": ("int", 0x08, 0x77),
    },
    "pwm_freq": ("int", 10, 100000),
    "duty": {
        "mixer": ("num", 0.05, 1.0),
        "lift": ("num", 0.05, 1.0),
        "door": ("num", 0.05, 1.0),
    },
    "timings_ms": _TIMINGS,
    "timeouts_ms": _TIMEOUTS,
    "thresholds": {
        "lift_stall_current_u16": ("int", 1, 65535),
        # what the threshold means (docs/FIRMWARE.md §3): the stall current in amperes and
        # the current sense's volts per ampere; the threshold must be their counts on the
        # profile's ADC (checked in _cross, within STALL_TOLERANCE)
        "lift_stall_a": ("num", 0.1, 100.0),
        "lift_sense_v_per_a": ("num", 0.001, 10.0),
    },
    "calibration": "calibration",
    "port": "port",
    "watchdog_ms": ("int", 0, 8388),
    "current_adc": "current_adc",
    # I2C GPIO expanders on the main bus, for slow signals (docs/FIRMWARE.md §3.7)
    "expanders": "expanders",
    # where each track's wall comes up, one side per track (read by the host's page,
    # never by the board; docs/FIRMWARE.md §3)
    "track_sides": "track_sides",
    # the safety chain's and the stop's figures (docs/SAFETY.md)
    "safety": SAFETY,
    # the power stage's figures (docs/SAFETY.md): the host's, never the board's
    "power": POWER,
    # the mechanism family (docs/FIRMWARE.md §11): "reference" (this project's table) or
    # "fourport" (the four-port machines people own); the pins' names follow it
    "family": "family",
    # fourport: how each kind of motor is driven and supplied, {kind: {"drive", "supply"}}
    "motors": "motors",
    # fourport: cam strokes (home to home) that make and push one stack
    "strokes_per_stack": ("int", 1, 4),
}
# a table's sides, counter-clockwise seen from above; the front has the table's buttons
SIDES = ("front", "right", "back", "left")

# Keys that may be left out, with the value they then take.
OPTIONAL = {
    "description": "",
    "hardware": None,
    "pin_options": None,
    "timings_ms.debounce": 3,
    "timings_ms.heartbeat": 500,  # protocol/SPEC.md §8's
    "timings_ms.poll": 10,
    "timings_ms.mix": 2000,
    "timeouts_ms.jam_retries": 2,
    "timeouts_ms.limit_release": 1000,
    "timeouts_ms.link": 2000,  # protocol/SPEC.md §8's
    "timeouts_ms.stall_current": 150,
    "calibration.tracks": None,
    "port": {"kind": "usb"},
    "watchdog_ms": 4000,
    "current_adc": None,
    "expanders": None,
    "track_sides": None,
    "family": "reference",
    "motors": None,
    "strokes_per_stack": 2,
    # the reference table's: a 10 mOhm shunt and an INA180A2 (x 50), a 5.24 A cut-out
    "thresholds.lift_stall_a": 5.24,
    "thresholds.lift_sense_v_per_a": 0.5,
    "safety": dict(SAFETY_DEFAULTS),
}
for _k in SAFETY_DEFAULTS:
    OPTIONAL["safety." + _k] = SAFETY_DEFAULTS[_k]
OPTIONAL["power"] = dict(POWER_DEFAULTS)
for _k in POWER_DEFAULTS:
    OPTIONAL["power." + _k] = POWER_DEFAULTS[_k]

PORT_KINDS = ("usb", "uart", "serial")

# The lift current's ADCs (firmware/current_reference.py has the same figures): a chip's
# pin (RP2040/RP2350: read_u16 0..65535 over 3.3 V) and an ADS1115 (+-4.096 V, raw << 1)
CHIP_ADC = (3.3, 65535)
ADS1115_ADC = (4.096, 65536)
STALL_TOLERANCE = 0.01  # the threshold within 1 % of the stall current's counts


def stall_counts(p):
    """What the current sense's read_u16() gives at thresholds.lift_stall_a on the
    profile's ADC (None without a current sense)."""
    th = p["thresholds"]
    if p.get("current_adc") is not None:
        adc = ADS1115_ADC
    elif p["pins"].get("lift_current") is not None:
        adc = CHIP_ADC
    else:
        return None
    return int(th["lift_stall_a"] * th["lift_sense_v_per_a"] / adc[0] * adc[1] + 0.5)


def id_rule():
    return "%d..%d characters of a-z, 0-9, '-' and '_', the first a letter or a digit" % (ID[1], ID[2])


def _section(key, v, spec, found):
    """The checked copy of section v (key "" for the profile itself); each problem is
    added to found, and the keys without one are still checked."""
    if not isinstance(v, dict):
        found.append(ProfileError(key, "got %r, not an object" % (v,), "an object with keys " + ", ".join(sorted(spec.keys()))))
        return None
    pre = key + "." if key else ""
    out = {}
    for k in v:
        if k not in spec:
            found.append(ProfileError(pre + str(k), "unknown key", "one of " + ", ".join(sorted(spec.keys()))))
    for k in spec:
        sub = pre + k
        if k in v:
            out[k] = _value(sub, v[k], spec[k], found)
        elif sub in OPTIONAL:
            d = OPTIONAL[sub]
            out[k] = dict(d) if isinstance(d, dict) else d
        else:
            found.append(ProfileError(sub, "missing", _describe(spec[k])))
    return out


def _describe(spec):
    if spec == "id":
        return id_rule()
    if isinstance(spec, tuple):
        return _fmt_range(spec[0], spec[1], spec[2])
    if isinstance(spec, dict):
        return "an object with keys " + ", ".join(sorted(spec.keys()))
    return "see docs/FIRMWARE.md (" + spec + ")"


def _value(key, v, spec, found):
    if isinstance(spec, tuple):
        try:
            return _leaf(key, v, spec)
        except ProfileError as e:
            found.append(e)
            return None
    if isinstance(spec, dict):
        return _section(key, v, spec, found)
    return v  # special sections are checked after the plain ones


def _colours(v):
    acc = "a list of %d..%d distinct names (%d..%d characters)" % (COLOURS + COLOUR_NAME[1:])
    if not isinstance(v, list) or len(v) < COLOURS[0] or len(v) > COLOURS[1]:
        raise ProfileError("colours", "got %r" % (v,), acc)
    seen = []
    for i, c in enumerate(v):
        if not isinstance(c, str) or not (COLOUR_NAME[1] <= len(c) <= COLOUR_NAME[2]) or c in seen or c == "unknown":
            raise ProfileError("colours[%d]" % i, "got %r" % (c,), acc + ", not 'unknown'")
        seen.append(c)
    return list(v)


def _board_id(v):
    if not isinstance(v, str):
        raise ProfileError("id", "got %r, not a string" % (v,), id_rule())
    if len(v) < ID[1] or len(v) > ID[2]:
        raise ProfileError("id", "got %r, %d characters" % (v, len(v)), id_rule())
    for ch in v:
        if ch not in ID_CHARS:
            raise ProfileError("id", "got %r: %r is not accepted" % (v, ch), id_rule())
    if v[0] == "-" or v[0] == "_":
        raise ProfileError("id", "got %r, starting with %r" % (v, v[0]), id_rule())
    return v


def _hardware(v):
    if v is None:
        return None
    return _leaf("hardware", v, HARDWARE)


def _pins(v, tracks, given_options, nexp):
    """(pins: name -> number or None, options: name -> {"invert", "pull"} of the pins given
    as objects, or in a validated profile's pin_options)."""
    names = hal.signal_names(tracks)
    acc_keys = "the signal names of docs/ARCHITECTURE.md §4 for %d tracks" % tracks
    if not isinstance(v, dict):
        raise ProfileError("pins", "got %r, not an object" % (v,), acc_keys)
    for k in v:
        if k not in names:
            if hal.signal(str(k)) is not None and k not in hal.SIGNALS and not hal.reference_track(str(k)):
                raise ProfileError("pins." + str(k), "a signal of the fourport family in a reference profile "
                                   "(the families are not mixed)", 'the reference family\'s signals, or '
                                   '"family": "fourport" with its motors and pins')
            raise ProfileError("pins." + str(k), "unknown signal", acc_keys + ": " + ", ".join(names))
    out = {}
    opts = {}
    used = {}
    for k in names:
        key = "pins." + k
        kind, pull, optional = hal.signal(k)
        if k not in v and k in hal.SAFETY_SIGNALS:
            out[k] = None  # left out: null (the simulator only; firmware/profile.py)
            continue
        if k not in v:
            raise ProfileError(key, "missing", _PIN_ACC + (" or null" if optional else ""))
        p = v[k]
        if p is None:
            if not optional:
                raise ProfileError(key, "null is not allowed, the firmware cannot do without it", _PIN_ACC)
            out[k] = None
            continue
        if isinstance(p, dict):
            if k in given_options:
                raise ProfileError(key, "given as an object and in pin_options", "one of the two")
            p, opts[k] = _pin_object(key, p, kind, pull, nexp)
        elif _is_int(p) and hal.EXPANDER_PINS <= p < hal.EXPANDER_PINS + 16 * nexp:
            pass  # an expander's pin, as validation wrote it
        elif not _is_int(p) or p < PIN[1] or p > PIN[2]:
            raise ProfileError(key, "got %r" % (p,), _PIN_ACC + (" or null" if optional else ""))
        if k in given_options and k not in opts:  # a validated profile's options
            _, opts[k] = _pin_object("pin_options." + k, dict(given_options[k], pin=0), kind, pull, 0)
            if opts[k].get("pull") == hal.PULL_DOWN and p >= hal.EXPANDER_PINS:
                raise ProfileError("pin_options." + k + ".pull", "an MCP23017 has pull-ups only", '"up" or null')
        if p >= hal.EXPANDER_PINS:
            _chip_only(key, k, kind)
        if p in used:
            raise ProfileError(key, "pin %d is already used by %s" % (p, used[p]), "a pin number no other signal uses")
        used[p] = k
        out[k] = p
    for k in given_options:
        if k not in opts:
            raise ProfileError("pin_options." + str(k), "not a signal with a pin", "signals of pins that have one")
    if (out["i2c_sda"] is None) != (out["i2c_scl"] is None):
        raise ProfileError("pins.i2c_sda", "i2c_sda and i2c_scl must both be pins or both null", "both pins or both null")
    return out, opts


def _refs(key, refs, colours):
    acc = "an object mapping each colour (%s) to [r, g, b], each 0..1, summing to about 1" % ", ".join(colours)
    if not isinstance(refs, dict):
        raise ProfileError(key, "missing or not an object", acc)
    for k in refs:
        if k not in colours:
            raise ProfileError(key + "." + str(k), "not one of the profile's colours", acc)
    out_refs = {}
    for c in colours:
        ck = key + "." + c
        if c not in refs:
            raise ProfileError(ck, "missing", acc)
        r = refs[c]
        if not isinstance(r, list) or len(r) != 3:
            raise ProfileError(ck, "got %r" % (r,), "[r, g, b]")
        vals = []
        for i in range(3):
            vals.append(_leaf(ck + "[%d]" % i, r[i], REF))
        s = vals[0] + vals[1] + vals[2]
        if s < 0.9 or s > 1.1:
            raise ProfileError(ck, "components sum to %.3f" % s, "normalised r, g, b summing to 1 (+-0.1)")
        out_refs[c] = vals
    return out_refs


def _radius(key, md, refs, colours):
    if len(colours) > 1:
        from firmware.drivers.colour import min_ref_distance

        d = min_ref_distance([refs[c] for c in colours])
        if md * 2 >= d:
            raise ProfileError(key,
                               "%.3f reaches past half the distance between two references (%.3f)" % (md, d),
                               "less than %.3f, so no reading is near two colours (never guessed)" % (d / 2))


def _calibration(v, colours, ntracks):
    spec = CALIBRATION
    keys = "one of integration_ms, max_distance, min_clear, refs, tracks"
    if not isinstance(v, dict):
        raise ProfileError("calibration", "got %r, not an object" % (v,), "an object with keys integration_ms, max_distance, min_clear, refs (and optionally tracks)")
    for k in v:
        if k not in spec and k != "refs" and k != "tracks":
            raise ProfileError("calibration." + str(k), "unknown key", keys)
    out = {}
    for k in spec:
        if k not in v:
            raise ProfileError("calibration." + k, "missing", _describe(spec[k]))
        out[k] = _leaf("calibration." + k, v[k], spec[k])
    out["refs"] = _refs("calibration.refs", v.get("refs"), colours)
    _radius("calibration.max_distance", out["max_distance"], out["refs"], colours)
    # optional: each track's own references and radius (`jantaku calibrate` writes
    # them: every sensor reads a little differently); null = the table-wide ones
    tr = v.get("tracks", OPTIONAL["calibration.tracks"])
    acc = ("null, or a list of %d objects (one per track) {\"refs\": {colour: [r, g, b]}, "
           "\"max_distance\": %s..%s}" % ((ntracks,) + spec["max_distance"][1:]))
    if tr is None:
        out["tracks"] = None
        return out
    if not isinstance(tr, list) or len(tr) != ntracks:
        raise ProfileError("calibration.tracks", "got %r" % (tr,) if not isinstance(tr, list)
                           else "%d entries for %d tracks" % (len(tr), ntracks), acc)
    lst = []
    for i in range(ntracks):
        key = "calibration.tracks[%d]" % i
        e = tr[i]
        if not isinstance(e, dict) or "refs" not in e or "max_distance" not in e:
            raise ProfileError(key, "got %r" % (e,), acc)
        for k in e:
            if k != "refs" and k != "max_distance":
                raise ProfileError(key + "." + str(k), "unknown key", "refs, max_distance")
        refs = _refs(key + ".refs", e["refs"], colours)
        md = _leaf(key + ".max_distance", e["max_distance"], spec["max_distance"])
        _radius(key + ".max_distance", md, refs, colours)
        lst.append({"refs": refs, "max_distance": md})
    out["tracks"] = lst
    return out


def _port(v):
    acc = ('{"kind": "usb"} (USB CDC stdio), {"kind": "uart", "id": 0..9, "baud": n, "tx": pin, "rx": pin} '
           'or {"kind": "serial", "path": "/dev/...", "baud": n} (CPython)')
    if not isinstance(v, dict) or v.get("kind") not in PORT_KINDS:
        raise ProfileError("port", "got %r" % (v,), acc)
    kind = v["kind"]
    spec = PORT[kind]
    out = {"kind": kind}
    for k in v:
        if k != "kind" and k not in spec:
            raise ProfileError("port." + str(k), "unknown key for kind " + kind, acc)
    for k in spec:
        if k not in v:
            raise ProfileError("port." + k, "missing", _describe(spec[k]))
        out[k] = _leaf("port." + k, v[k], spec[k])
    if "baud" in out and out["baud"] == 1200:
        # Some boards reboot into their bootloader when a port at 1200 baud closes.
        raise ProfileError("port.baud", "1200 baud resets some boards into their bootloader", "any other rate")
    return out


def _expanders(v):
    acc = 'a list of {"kind": "mcp23017", "addr": 32..39} (I2C GPIO expanders on the main bus), or null'
    if v is None:
        return []
    if not isinstance(v, list) or len(v) > EXPANDERS_MAX:
        raise ProfileError("expanders", "got %r" % (v,), acc)
    out = []
    for i in range(len(v)):
        key = "expanders[%d]" % i
        e = v[i]
        if not isinstance(e, dict) or e.get("kind") != EXPANDER_KIND:
            raise ProfileError(key, "got %r" % (e,), acc)
        for k in e:
            if k != "kind" and k != "addr":
                raise ProfileError(key + "." + str(k), "unknown key", "kind, addr")
        if "addr" not in e:
            raise ProfileError(key + ".addr", "missing", "an integer 32..39 (0x20..0x27)")
        a = _leaf(key + ".addr", e["addr"], EXPANDER_ADDR)
        for j in range(len(out)):
            if out[j]["addr"] == a:
                raise ProfileError(key + ".addr", "%d is also expanders[%d]'s" % (a, j), "an address of its own")
        out.append({"kind": EXPANDER_KIND, "addr": a})
    return out


def _current_adc(v, pins):
    if v is None:
        return None
    acc = '{"kind": "ads1115", "addr": 72..75, "channel": 0..3} (an I2C ADC on the main bus) or null'
    if not isinstance(v, dict) or v.get("kind") != CURRENT_ADC_KIND:
        raise ProfileError("current_adc", "got %r" % (v,), acc)
    spec = CURRENT_ADC
    for k in v:
        if k != "kind" and k not in spec:
            raise ProfileError("current_adc." + str(k), "unknown key", acc)
    out = {"kind": CURRENT_ADC_KIND}
    for k in spec:
        if k not in v:
            raise ProfileError("current_adc." + k, "missing", _describe(spec[k]))
        out[k] = _leaf("current_adc." + k, v[k], spec[k])
    if pins["i2c_sda"] is None:
        raise ProfileError("current_adc", "needs the I2C bus but pins.i2c_sda is null", "null, or I2C pins")
    if "lift_current" not in pins:
        raise ProfileError("current_adc", "the fourport family reads each lift's current on pins.lift<n>_current",
                           "null (pins.lift<n>_current: an ADC pin each, or null)")
    if pins["lift_current"] is not None:
        raise ProfileError("current_adc", "pins.lift_current is also set", "one current source: pins.lift_current or current_adc")
    return out


def _top(key):
    """The profile's own key a problem's key is in: "pins.gate2" -> "pins"."""
    for sep in ".[":
        i = key.find(sep)
        if i >= 0:
            key = key[:i]
    return key


def _check(found, out, key, needs, check, *args):
    """out[key] = check(*args), a problem kept in found; skipped when key or one of the
    keys it needs is missing or has a problem already."""
    bad = [_top(e.key) for e in found]
    for k in (key,) + needs:
        if k in bad or k not in out:
            return
    try:
        out[key] = check(*args)
    except ProfileError as e:
        found.append(e)


def validate(d):
    """A validated copy of the profile dict d (defaults filled in), or a ProfileError
    for every problem found (.problems; the first's key and accepted)."""
    if not isinstance(d, dict):
        raise ProfileError("(profile)", "got %r, not an object" % (type(d),), "a JSON object")
    found = []
    out = _section("", d, SCHEMA, found)
    _check(found, out, "id", (), _board_id, out.get("id"))
    _check(found, out, "hardware", (), _hardware, out.get("hardware"))
    _check(found, out, "colours", (), _colours, d.get("colours"))
    _check(found, out, "pin_options", (), _pin_options, out.get("pin_options"))
    _check(found, out, "expanders", (), _expanders, out.get("expanders"))
    _check(found, out, "family", (), _family, out.get("family"))
    _check(found, out, "motors", ("family",), _motors_into, found, out, out.get("motors"))
    if out.get("family") == "fourport":
        # checked even when motors has a problem (every problem at once): the pins of a
        # motor whose drive is wrong are left out
        _check(found, out, "pins", ("tracks", "pin_options", "expanders"), _fourport_pins_into, found, out,
               d.get("pins"))
    else:
        _check(found, out, "pins", ("tracks", "pin_options", "expanders"), _pins_into, out, d.get("pins"))
    _check(found, out, "expanders", ("pins",), _expanders_bus, out)
    _check(found, out, "calibration", ("colours", "tracks"), _calibration, d.get("calibration"),
           out.get("colours"), out.get("tracks"))
    _check(found, out, "port", (), _port, out.get("port"))
    _check(found, out, "current_adc", ("pins",), _current_adc, out.get("current_adc"), out.get("pins"))
    _check(found, out, "port", ("pins",), _uart_pins, out)
    _check(found, out, "track_sides", ("tracks",), _track_sides, out.get("track_sides"),
           out.get("tracks"))
    if not found:
        _cross(out)  # between keys: only once each is right
    if len(found) == 1:
        raise found[0]
    if found:
        raise ProfileError(found[0].key, "", found[0].accepted, found)
    return out


def _track_sides(v, tracks):
    if v is None:
        return None
    acc = "null, or a list of %s sides, one per track in order, each one of %s" % (
        tracks, ", ".join(SIDES))
    if not isinstance(v, list) or len(v) != tracks:
        raise ProfileError("track_sides", "got %r" % (v,), acc)
    for i, s in enumerate(v):
        if s not in SIDES:
            raise ProfileError("track_sides[%d]" % i, "got %r" % (s,), acc)
    return list(v)


def _pin_options(given):
    if given is not None and (not isinstance(given, dict) or [1 for k in given if not isinstance(given[k], dict)]):
        raise ProfileError("pin_options", "got %r" % (given,), 'an object {signal: {"invert": ..., "pull": ...}}')
    return given


def _pins_into(out, v):
    """out's pins (numbers) from the profile's, and out's pin_options from those given as
    objects (or from a validated profile's pin_options)."""
    pins, out["pin_options"] = _pins(v, out["tracks"], out["pin_options"] or {}, len(out["expanders"]))
    return pins


def _expanders_bus(p):
    if p["expanders"] and p["pins"]["i2c_sda"] is None:
        raise ProfileError("expanders", "the expanders need the I2C bus but pins.i2c_sda is null", "I2C pins")
    return p["expanders"]


def _uart_pins(p):
    port = p["port"]
    if port["kind"] == "uart":
        for pk in ("tx", "rx"):
            for name in p["pins"]:
                if p["pins"][name] == port[pk]:
                    raise ProfileError("port." + pk, "pin %d is already used by %s" % (port[pk], name), "a free pin")
    return port


def _cross(p):
    names = ",".join(p["colours"])
    if len(names.encode()) > 28:
        raise ProfileError("colours", "the names take %d bytes joined by commas" % len(names.encode()),
                           "names that fit in 28 bytes joined by commas (the handshake carries them)")
    n = p["tracks"] * (len(p["colours"]) + 1)
    if n > 32:
        raise ProfileError("colours", "%d tracks x (%d colours + unknown) = %d counts, more than a status carries" % (
            p["tracks"], len(p["colours"]), n), "tracks x (colours + 1) <= 32")
    t = p["timings_ms"]
    o = p["timeouts_ms"]
    if o["lift"] <= t["lift_stroke"]:
        raise ProfileError("timeouts_ms.lift", "%d is not longer than timings_ms.lift_stroke (%d)" % (o["lift"], t["lift_stroke"]),
                           "a stroke timeout longer than the nominal stroke")
    if o["door"] <= t["door_move"]:
        raise ProfileError("timeouts_ms.door", "%d is not longer than timings_ms.door_move (%d)" % (o["door"], t["door_move"]),
                           "a door timeout longer than the nominal move")
    if o["jam"] <= t["colour_delay"] or o["jam"] <= t["debounce"]:
        raise ProfileError("timeouts_ms.jam", "%d is not longer than the colour delay and debounce" % o["jam"],
                           "a jam timeout longer than timings_ms.colour_delay")
    if o["link"] <= t["heartbeat"]:
        raise ProfileError("timeouts_ms.link", "%d is not longer than timings_ms.heartbeat (%d)" % (o["link"], t["heartbeat"]),
                           "a link timeout longer than the heartbeat")
    if o["jam_backoff"] < t["pusher"]:
        raise ProfileError("timeouts_ms.jam_backoff", "%d is shorter than timings_ms.pusher (%d)" % (o["jam_backoff"], t["pusher"]),
                           "a back-off at least one full pusher stroke long")
    want = stall_counts(p)
    thr = p["thresholds"]["lift_stall_current_u16"]
    if want is not None and abs(thr - want) > want * STALL_TOLERANCE:
        th = p["thresholds"]
        raise ProfileError("thresholds.lift_stall_current_u16",
                           "%d counts is %.2f A on this ADC (%s), not thresholds.lift_stall_a %.2f A "
                           "at %g V/A" % (thr, thr / want * th["lift_stall_a"],
                                          "an ADS1115, current_adc" if p.get("current_adc") else "the chip's, pins.lift_current",
                                          th["lift_stall_a"], th["lift_sense_v_per_a"]),
                           "%d (the stall current's counts, within 1 %%), or lift_stall_a and "
                           "lift_sense_v_per_a that say what the threshold means" % want)
    sf = p["safety"]
    if sf["watchdog_hold_ms"] <= 2 * sf["watchdog_toggle_ms"]:
        raise ProfileError("safety.watchdog_hold_ms", "%d is not longer than two toggles (2 x safety.watchdog_toggle_ms = %d)"
                           % (sf["watchdog_hold_ms"], 2 * sf["watchdog_toggle_ms"]),
                           "a hold longer than two toggle periods (one late loop must not drop the motors' power)")
    if o["limit_release"] >= o["lift"]:
        raise ProfileError("timeouts_ms.limit_release", "%d is not shorter than timeouts_ms.lift" % o["limit_release"],
                           "less than the stroke timeout")


def _family(v):
    if v not in hal.FAMILIES:
        raise ProfileError("family", "got %r" % (v,), " or ".join(hal.FAMILIES) + " (left out: reference)")
    return v


def _motors_into(found, out, v):
    if out["family"] != "fourport":
        if v is not None:
            raise ProfileError("motors", "the %s family has no motors section (its motors are named by "
                               "its pins)" % out["family"], 'leave it out, or "family": "fourport"')
        return None
    from firmware import profile_fourport  # (a reference board never loads it)

    return profile_fourport.motors_into(found, out, v)


def _fourport_pins_into(found, out, v):
    from firmware import profile_fourport

    return profile_fourport.pins_into(found, out, v)
