# CPython only
#
# A table wired another way than its board profile says (the wiring survey's rehearsal,
# docs/SIMULATOR.md "A table whose wiring is not known"): `jantaku sim serve --board B
# --shuffle-wiring SEED` serves a table whose pins follow shuffled(B, SEED) while the
# firmware boots B as given, as a retrofitted commercial table whose connectors nobody
# labelled: the survey (`jantaku survey`) must find the true map.
#
# What moves, as a person retrofitting a table can get it wrong (docs/RETROFIT.md): which
# motor each driver's channel (its PWM and DIR together) reaches, and which way its DIR
# turns it (the motor's leads); which coil each MOSFET reaches; which switch or sensor
# each input reads, and whether a switch is normally closed.  What stays: the light
# curtain and the lid (the survey needs them right before anything moves), the status
# light (the firmware lights it whenever the table is idle), the bus and the ADC.  A pin
# on the chip stays on the chip and an expander's on the expander (the gates, beams and
# the lift's switches must be on the chip's own pins).
import copy
import random

from firmware import hal as _hal

FIXED = ("guard_curtain", "lid", "status_light") + _hal.SAFETY_SIGNALS
# motors whose direction a person can tell (its DIR's sense may come out either way);
# nobody can say which way a turntable's "forward" is, so its sense is left as it was
DIRECTIONAL = ("lift", "door", "centre")  # (a four-port table's lifts: lift1.., its centre)


def _place(v):
    """(where, the pin's location keys) of a raw pin value."""
    if isinstance(v, dict):
        loc = {k: v[k] for k in ("pin", "expander") if k in v}
        return ("x" if "expander" in v else "chip"), loc
    return "chip", {"pin": v}


def _with(v, loc, invert=None):
    """Raw pin value ``v`` (its options) at location ``loc``, its invert set if given."""
    opts = {k: x for k, x in v.items() if k not in ("pin", "expander")} if isinstance(v, dict) else {}
    if invert is not None:
        opts["invert"] = invert
    if not opts.get("invert"):
        opts.pop("invert", None)
    if not opts and "expander" not in loc:
        return loc["pin"]
    return dict(opts, **loc)


def _invert(v):
    return bool(isinstance(v, dict) and v.get("invert"))


def shuffled(raw, seed):
    """A copy of raw profile ``raw`` (a dict) with its pins shuffled as above: the same
    ``seed`` gives the same wiring."""
    rng = random.Random(seed)
    out = copy.deepcopy(raw)
    pins = out["pins"]
    names = [n for n in pins if pins[n] is not None and n not in FIXED and _hal.signal(n)]
    # motor channels: (pwm, dir) pairs, moved together; the DIR's sense flipped at random
    motors = [n[:-4] for n in names if n.endswith("_pwm") and pins.get(n[:-4] + "_dir") is not None]
    locs = [(_place(pins[m + "_pwm"])[1], _place(pins[m + "_dir"])[1]) for m in motors]
    order = list(range(len(motors)))
    rng.shuffle(order)
    for m, k in zip(motors, order):
        p, d = locs[k]
        pins[m + "_pwm"] = _with(raw["pins"][m + "_pwm"], p)
        flip = rng.random() < 0.5
        pins[m + "_dir"] = _with(raw["pins"][m + "_dir"], d,
                                 invert=(flip != _invert(raw["pins"][m + "_dir"]))
                                 if m.rstrip("0123456789") in DIRECTIONAL else None)
    paired = set(m + s for m in motors for s in ("_pwm", "_dir"))
    # a reversing pair of relays (a four-port table's): moved together, its two relays
    # swapped at random (which one runs it forward)
    pairs = [n[:-4] for n in names if n.endswith("_fwd") and pins.get(n[:-4] + "_rev") is not None]
    locs = [(_place(pins[m + "_fwd"])[1], _place(pins[m + "_rev"])[1]) for m in pairs]
    order = list(range(len(pairs)))
    rng.shuffle(order)
    for m, k in zip(pairs, order):
        f, r = locs[k]
        if m.rstrip("0123456789") in DIRECTIONAL and rng.random() < 0.5:
            f, r = r, f
        pins[m + "_fwd"] = _with(raw["pins"][m + "_fwd"], f)
        pins[m + "_rev"] = _with(raw["pins"][m + "_rev"], r)
    paired |= set(m + s for m in pairs for s in ("_fwd", "_rev"))
    plain = [n for n in names if _hal.signal(n)[0] == _hal.OUT and n not in paired]
    inputs = [n for n in names if _hal.signal(n)[0] == _hal.IN]
    flips = ("lift_top", "door_open", "door_closed", "centre_open", "centre_closed")
    flips += tuple(n for n in inputs if n.startswith("lift") and n.endswith("_top"))
    for group, flip in ((plain, ()), (inputs, flips)):
        for where in ("chip", "x"):
            part = [n for n in group if _place(raw["pins"][n])[0] == where]
            locs = [_place(raw["pins"][n])[1] for n in part]
            rng.shuffle(locs)
            for n, loc in zip(part, locs):
                inv = (not _invert(raw["pins"][n])) if n in flip and rng.random() < 0.25 else None
                pins[n] = _with(raw["pins"][n], loc, invert=inv)
    return out
