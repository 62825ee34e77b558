# A board profile's leaf checks: a value against its (kind, lo, hi), and a pin given as a
# number or an object (inverted, pulled, on an expander, or on the chip's own pins only).
# Under both families' checks: firmware/profile_check.py (the schema, the sections) and
# firmware/profile_fourport.py (the four-port family's motors and pins) import these, and
# this module neither of them.  profile.release() drops it with them.
from firmware import hal
from firmware.profile_error import ProfileError

PIN = ("int", 0, 255)
EXPANDERS_MAX = 8
EXPANDER_INDEX = ("int", 0, EXPANDERS_MAX - 1)  # a pin's {"expander": e, "pin": p}
EXPANDER_PIN = ("int", 0, 15)
MOTOR_SUPPLIES = ("dc", "ac")


def fmt_range(kind, lo, hi):
    if kind == "int":
        return "an integer %d..%d" % (lo, hi)
    if kind == "num":
        return "a number %s..%s" % (lo, hi)
    if kind == "str":
        return "a string of %d..%d characters" % (lo, hi)
    return kind


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return (isinstance(v, int) or isinstance(v, float)) and not isinstance(v, bool)


def leaf(key, v, spec):
    kind, lo, hi = spec
    acc = fmt_range(kind, lo, hi)
    if kind == "int":
        if not is_int(v):
            raise ProfileError(key, "got %r, not an integer" % (v,), acc)
        if v < lo or v > hi:
            raise ProfileError(key, "got %d, out of range" % v, acc)
        return v
    if kind == "num":
        if not is_num(v):
            raise ProfileError(key, "got %r, not a number" % (v,), acc)
        if v < lo or v > hi:
            raise ProfileError(key, "got %r, out of range" % (v,), acc)
        return float(v)
    if kind == "str":
        if not isinstance(v, str):
            raise ProfileError(key, "got %r, not a string" % (v,), acc)
        if len(v) < lo or len(v) > hi:
            raise ProfileError(key, "got %d characters" % len(v), acc)
        return v
    if kind == "bool":
        if not isinstance(v, bool):
            raise ProfileError(key, "got %r, not true/false" % (v,), "true or false")
        return v
    raise ProfileError(key, "bad schema kind " + kind)


PIN_ACC = ('a pin number 0..255, or {"pin": n, "invert": true|false, "pull": "up"|"down"|null} '
            '(pull: inputs only)')


def chip_only(key, name, kind):
    if kind == hal.PWM or kind == hal.ADC or kind == hal.I2C or hal.chip_only(name):
        raise ProfileError(key, "%s must be on the chip's own pins (its interrupt and timing are the "
                           "safety or the per-tile path)" % name,
                           "a pin of the chip; an expander takes slow signals: solenoids, directions, "
                           "the door's switches, buttons, the light, the mixer's empty sensor")


def expander_pin(key, p, nexp):
    """The number an expander's pin gets in a validated profile: EXPANDER_PINS +
    16 x expander + pin (an MCP23017's GPA0..7 are pins 0..7, GPB0..7 8..15)."""
    e = leaf(key + ".expander", p["expander"], EXPANDER_INDEX)
    if e >= nexp:
        raise ProfileError(key + ".expander", "expander %d is not in expanders (%d given)" % (e, nexp),
                           "an index of the profile's expanders")
    return hal.EXPANDER_PINS + 16 * e + leaf(key + ".pin", p["pin"], EXPANDER_PIN)


def pin_object(key, p, kind, pull, nexp):
    """(number, {"invert", "pull"}) of a pin given as an object."""
    acc = PIN_ACC if kind == hal.IN else '{"pin": n, "invert": true|false}'
    if kind == hal.ADC or kind == hal.I2C:
        raise ProfileError(key, "an %s pin cannot be inverted or pulled" % kind, "a pin number 0..255")
    for k in p:
        if k not in ("pin", "invert", "pull", "expander") or (k == "pull" and kind != hal.IN):
            raise ProfileError(key + "." + str(k), "unknown key for %s" % (
                "an input" if kind == hal.IN else "an output"), acc)
    if "pin" not in p:
        raise ProfileError(key + ".pin", "missing", "a pin number 0..255")
    if "expander" in p:
        chip_only(key, key[key.rfind(".") + 1:], kind)
        n = expander_pin(key, p, nexp)
    else:
        n = leaf(key + ".pin", p["pin"], PIN)
    inv = leaf(key + ".invert", p.get("invert", False), ("bool", 0, 0))
    if kind != hal.IN:
        return n, {"invert": inv}
    if "pull" in p:
        pull = p["pull"]
        if pull is not None and pull != hal.PULL_UP and pull != hal.PULL_DOWN:
            raise ProfileError(key + ".pull", "got %r" % (pull,), '"up", "down" or null (none: an external resistor)')
    if pull == hal.PULL_DOWN and n >= hal.EXPANDER_PINS:
        raise ProfileError(key + ".pull", "an MCP23017 has pull-ups only", '"up" or null (a resistor of its own)')
    return n, {"invert": inv, "pull": pull}
