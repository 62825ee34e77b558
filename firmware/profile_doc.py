# CPython only
"""The board-profile reference of docs/FIRMWARE.md §3, made from the schema itself: one row
per key with its unit, range, default and meaning.  Ranges and defaults come from
firmware/profile_check.py (what validation enforces), units and meanings from
firmware/profile_reference.py; below it the stall threshold in amperes
(firmware/current_reference.py).  tests/unit/test_profile_doc.py fails when the documents
and the validation drift.

    python -m firmware.profile_doc            # print the generated blocks
    python -m firmware.profile_doc --write    # write them into docs/FIRMWARE.md
"""
import json
import pathlib
import sys

from firmware import hal
from firmware.fourport import pins as _fp
from firmware import profile_check as S
from firmware.current_reference import lift_current_text
from firmware.profile_reference import ADDR, KEYS, PINS

DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "FIRMWARE.md"
REFERENCE_BOARD = "reference-18"
HINT = "python -m firmware.profile_doc --write"


class ReferenceGap(Exception):
    """The schema has a key the reference does not describe (or the reverse)."""


def _range(spec, unit=None):
    kind, lo, hi = spec
    if kind == "str":
        return "%d..%d characters" % (lo, hi)
    if unit == ADDR:
        return "%d..%d (0x%02X..0x%02X)" % (lo, hi, lo, hi)
    return "%s..%s" % (lo, hi)


def _pin_range(kind, optional):
    obj = ", or an object" if kind in (hal.IN, hal.OUT, hal.PWM) else ""
    return _range(S.PIN) + obj + (" or null" if optional else "")


def _id():
    yield "id", S.id_rule()


def _hardware():
    yield "hardware", _range(S.HARDWARE) + " or null"


def _colours():
    yield "colours", "%d..%d distinct names of %s, not `unknown`" % (S.COLOURS + (_range(S.COLOUR_NAME),))


def _pins():
    for name, (kind, _, optional) in hal.SIGNALS.items():
        yield "pins." + name, _pin_range(kind, optional)
    for base, (kind, _, optional) in hal.TRACK_SIGNALS.items():
        yield "pins.%s<n>" % base, _pin_range(kind, optional)
    # the four-port family's (docs/FIRMWARE.md §11)
    for pat, (kind, _, optional) in _fp.FOURPORT_SIGNALS.items():
        yield "pins." + pat, _pin_range(kind, optional)
    for d in _fp.DRIVES:
        for sfx, kind in _fp.DRIVES[d]:
            yield "pins.<motor>" + sfx, _pin_range(kind, False)
    # a pin given as an object (docs/FIRMWARE.md §3.6)
    yield "pins.<signal>.pin", "%s (%s on an expander)" % (_range(S.PIN), _range(S.EXPANDER_PIN))
    yield "pins.<signal>.expander", S.EXPANDER_INDEX
    yield "pins.<signal>.invert", "true or false"
    yield "pins.<signal>.pull", '"%s", "%s" or null (inputs)' % (hal.PULL_UP, hal.PULL_DOWN)


def _pin_options():
    yield "pin_options", "null or an object"


def _calibration():
    for k, spec in S.CALIBRATION.items():
        yield "calibration." + k, spec
    yield "calibration.refs.<colour>", "[r, g, b], each %s" % _range(S.REF)
    yield "calibration.tracks", "null or a list of `tracks` objects"
    yield "calibration.tracks[].refs.<colour>", "[r, g, b], each %s" % _range(S.REF)
    yield "calibration.tracks[].max_distance", S.CALIBRATION["max_distance"]


def _port():
    yield "port.kind", " \\| ".join(S.PORT_KINDS)
    seen = {}
    for kind in S.PORT_KINDS:
        for k, spec in S.PORT[kind].items():
            if k in seen and seen[k] != spec:
                raise ReferenceGap("port.%s has two ranges; give it one row per kind" % k)
            seen[k] = spec
    for k, spec in seen.items():
        yield "port." + k, spec


def _expanders():
    yield "expanders", "null or a list of up to %d objects" % S.EXPANDERS_MAX
    yield "expanders[].kind", S.EXPANDER_KIND
    yield "expanders[].addr", S.EXPANDER_ADDR


def _current_adc():
    yield "current_adc", "null or an object"
    yield "current_adc.kind", S.CURRENT_ADC_KIND
    for k, spec in S.CURRENT_ADC.items():
        yield "current_adc." + k, spec


def _family():
    yield "family", " or ".join(hal.FAMILIES)


def _motors():
    yield "motors", "null (reference) or an object of %s" % ", ".join(m for m, _, _ in _fp.FOURPORT_MOTORS)
    yield "motors.<motor>.drive", " \\| ".join(_fp.DRIVES)
    yield "motors.<motor>.supply", " \\| ".join(S.MOTOR_SUPPLIES)


def _track_sides():
    yield "track_sides", "null or a list of `tracks` sides, each %s" % ", ".join(S.SIDES)


SPECIAL = {"id": _id, "track_sides": _track_sides, "hardware": _hardware, "colours": _colours, "pins": _pins,
           "pin_options": _pin_options, "calibration": _calibration, "port": _port,
           "current_adc": _current_adc, "expanders": _expanders, "family": _family, "motors": _motors}


def ranges():
    """(key, range) for every key the schema validates, in the schema's order: a range is
    a leaf spec (kind, lo, hi) or, for a key it does not describe alone, a text."""
    for k, spec in S.SCHEMA.items():
        if isinstance(spec, tuple):
            yield k, spec
        elif isinstance(spec, dict):
            for sub, leaf in spec.items():
                yield k + "." + sub, leaf
        elif spec in SPECIAL:
            yield from SPECIAL[spec]()
        else:
            raise ReferenceGap("the schema's section %r has no reference: add a function for it to "
                               "firmware/profile_doc.py SPECIAL" % spec)


def _reference_value(key, board):
    v = board
    for part in key.split("."):
        if not isinstance(v, dict) or part not in v:
            return None
        v = v[part]
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _port_kinds(sub):
    return ", ".join(k for k in S.PORT_KINDS if sub in S.PORT[k])


def default(key, board):
    """What a profile without the key gets: its default, or "required" (and when)."""
    if key in S.OPTIONAL:
        return "`%s`" % json.dumps(S.OPTIONAL[key])
    top, _, sub = key.partition(".")
    if top == "port":
        if sub == "kind":
            return "`%s`" % json.dumps(S.OPTIONAL["port"]["kind"])
        return "required (kind %s)" % _port_kinds(sub)
    if top in S.OPTIONAL and sub:
        return "required in `%s`" % top
    if top == "pins" and sub.startswith("<signal>."):  # a pin given as an object
        return {"pin": "required in the object", "invert": "`false`", "expander": "none: a pin of the chip",
                "pull": "the signal's (its row above)"}[sub[9:]]
    if "[]." in key:
        return "required in each entry"
    if top == "pins" and sub in hal.SAFETY_SIGNALS:  # left out: null (the simulator only)
        return "`null`"
    if top == "pins":  # a pin number is the board's, not an example to copy
        sig = hal.signal(sub.replace("<n>", "1").replace("<motor>", "disc"))
        return ("required (null allowed)" if sig[2] else "required") + (
            " (fourport)" if sub not in hal.SIGNALS and sub[:-3] not in hal.TRACK_SIGNALS else "")
    ref = _reference_value(key, board)
    return "required" if ref is None else "required (%s: %s)" % (REFERENCE_BOARD, ref)


def _signal_kind(name):
    kind, pull, _ = hal.signal(name)
    text = {hal.OUT: "output", hal.PWM: "PWM output", hal.IN: "input", hal.ADC: "ADC input",
            hal.I2C: "I2C"}[kind]
    return text + (", pulled " + pull if pull else "")


def meaning(key):
    """(unit, meaning) of a key."""
    if key.startswith("pins.") and key[5:] in PINS and "<" in key:  # the four-port family's
        name = key[5:]
        return "GPIO number", "%s: %s" % (_signal_kind(name.replace("<n>", "1").replace("<motor>", "disc")),
                                          PINS[name])
    if key.startswith("pins.") and key not in KEYS:
        name = key[5:]
        base = name[:-3] if name.endswith("<n>") else name
        if base not in PINS:
            raise ReferenceGap("firmware/profile_reference.py PINS has no meaning for %s" % key)
        signal = base + "1" if name.endswith("<n>") else base
        return "GPIO number", "%s: %s" % (_signal_kind(signal), PINS[base])
    if key not in KEYS:
        raise ReferenceGap("firmware/profile_reference.py KEYS has no unit and meaning for %s: "
                           "add them, then run `%s`" % (key, HINT))
    return KEYS[key]


def rows(board=None):
    """[(key, unit, range, default, meaning)] for every key of the schema."""
    board = board if board is not None else _board()
    out = []
    for k, rng in ranges():
        unit, text = meaning(k)
        if isinstance(rng, tuple):
            rng = _range(rng, unit)
        out.append((k, unit, rng, default(k, board), text))
    signals = {r[0][5:].replace("<n>", "") for r in out if r[0].startswith("pins.")}
    signals |= {r[0][5:] for r in out if r[0].startswith("pins.")}
    extra = (set(KEYS) - {r[0] for r in out}) | {"pins." + p for p in PINS if p not in signals}
    if extra:
        raise ReferenceGap("firmware/profile_reference.py KEYS describes keys the schema does not "
                           "have: %s" % ", ".join(sorted(extra)))
    return out


def _board():
    from firmware import profile

    with open("%s/%s.json" % (profile.boards_dir(), REFERENCE_BOARD)) as f:
        return json.load(f)


def table(board=None):
    lines = ["| key | unit | range | default | meaning |", "|---|---|---|---|---|"]
    for key, unit, rng, dflt, text in rows(board):
        lines.append("| `%s` | %s | %s | %s | %s |" % (key, unit, rng, dflt, text))
    return "\n".join(lines) + "\n"


def lift_current():
    return lift_current_text(_board()["thresholds"]["lift_stall_current_u16"])


BLOCKS = (("profile reference", table), ("lift current", lift_current))


def _markers(name):
    return ("<!-- %s: made by `%s`, do not edit -->\n" % (name, HINT), "<!-- %s: end -->" % name)


def written(text):
    """text (docs/FIRMWARE.md) with every generated block made anew."""
    for name, make in BLOCKS:
        begin, end = _markers(name)
        i, j = text.find(begin), text.find(end)
        if i < 0 or j < i:
            raise ReferenceGap("%s has no %r block (%s ... %s)" % (DOC, name, begin.strip(), end))
        text = text[:i + len(begin)] + make() + text[j:]
    return text


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--write"]:
        DOC.write_text(written(DOC.read_text(encoding="utf-8")), encoding="utf-8")
        print("wrote %s" % DOC)
        return 0
    if argv:
        print("usage: python -m firmware.profile_doc [--write]", file=sys.stderr)
        return 2
    for _, make in BLOCKS:
        print(make())
    return 0


if __name__ == "__main__":
    sys.exit(main())
