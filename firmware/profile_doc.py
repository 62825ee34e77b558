# CPython only
"""The board-profile reference of docs/FIRMWARE.md §3, made from the schema itself: one row
per key with its unit, range, default and meaning.  Ranges and defaults come from
firmware/profile_check.py (what validation enforces), units and meanings from
firmware/profile_reference.py.  tests/unit/test_profile_doc.py fails when the documents
and the validation drift.

    python -m firmware.profile_doc            # print the generated blocks
    python -m firmware.profile_doc --write    # write them into docs/FIRMWARE.md
"""
import json
import pathlib
import sys

from firmware import hal
from firmware import profile_check as S
from firmware.profile_reference import KEYS, PINS

DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "FIRMWARE.md"
REFERENCE_BOARD = "reference-18"
HINT = "python -m firmware.profile_doc --write"


class ReferenceError(Exception):
    """The schema has a key the reference does not describe (or the reverse)."""


def _range(spec):
    kind, lo, hi = spec
    if kind == "str":
        return "%d..%d characters" % (lo, hi)
    if kind == "int" and lo >= 0x08 and hi <= 0x77 and hi - lo < 0x70:  # an I2C address
        return "%d..%d (0x%02X..0x%02X)" % (lo, hi, lo, hi)
    return "%s..%s" % (lo, hi)


def _pin_range(optional):
    return _range(S.PIN) + (" or null" if optional else "")


def _id():
    yield "id", S.id_rule()


def _hardware():
    yield "hardware", _range(S.HARDWARE) + " or null"


def _colours():
    yield "colours", "%d..%d distinct names of %s, not `unknown`" % (S.COLOURS + (_range(S.COLOUR_NAME),))


def _pins():
    for name, (_, _, optional) in hal.SIGNALS.items():
        yield "pins." + name, _pin_range(optional)
    for base, (_, _, optional) in hal.TRACK_SIGNALS.items():
        yield "pins.%s<n>" % base, _pin_range(optional)


def _calibration():
    for k, spec in S.CALIBRATION.items():
        yield "calibration." + k, _range(spec)
    yield "calibration.refs.<colour>", "[r, g, b], each %s" % _range(S.REF)
    yield "calibration.tracks", "null or a list of `tracks` objects"


def _port():
    yield "port.kind", " \\| ".join(S.PORT_KINDS)
    seen = {}
    for kind in S.PORT_KINDS:
        for k, spec in S.PORT[kind].items():
            if k in seen and seen[k] != spec:
                raise ReferenceError("port.%s has two ranges; give it one row per kind" % k)
            seen[k] = spec
    for k, spec in seen.items():
        yield "port." + k, _range(spec)


def _current_adc():
    yield "current_adc", "null or an object"
    yield "current_adc.kind", S.CURRENT_ADC_KIND
    for k, spec in S.CURRENT_ADC.items():
        yield "current_adc." + k, _range(spec)


SPECIAL = {"id": _id, "hardware": _hardware, "colours": _colours, "pins": _pins,
           "calibration": _calibration, "port": _port, "current_adc": _current_adc}


def ranges():
    """(key, range) for every key the schema validates, in the schema's order."""
    for k, spec in S.SCHEMA.items():
        if isinstance(spec, tuple):
            yield k, _range(spec)
        elif isinstance(spec, dict):
            for sub, leaf in spec.items():
                yield k + "." + sub, _range(leaf)
        elif spec in SPECIAL:
            yield from SPECIAL[spec]()
        else:
            raise ReferenceError("the schema's section %r has no reference: add a function for it to "
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
    if top == "pins":  # a pin number is the board's, not an example to copy
        return "required (null allowed)" if hal.signal(sub.replace("<n>", "1"))[2] else "required"
    ref = _reference_value(key, board)
    return "required" if ref is None else "required (%s: %s)" % (REFERENCE_BOARD, ref)


def _signal_kind(name):
    kind, pull, _ = hal.signal(name)
    text = {hal.OUT: "output", hal.PWM: "PWM output", hal.IN: "input", hal.ADC: "ADC input",
            hal.I2C: "I2C"}[kind]
    return text + (", pulled " + pull if pull else "")


def meaning(key):
    """(unit, meaning) of a key."""
    if key.startswith("pins."):
        name = key[5:]
        base = name[:-3] if name.endswith("<n>") else name
        if base not in PINS:
            raise ReferenceError("firmware/profile_reference.py PINS has no meaning for %s" % key)
        signal = base + "1" if name.endswith("<n>") else base
        return "GPIO number", "%s: %s" % (_signal_kind(signal), PINS[base])
    if key not in KEYS:
        raise ReferenceError("firmware/profile_reference.py KEYS has no unit and meaning for %s: "
                             "add them, then run `%s`" % (key, HINT))
    return KEYS[key]


def rows(board=None):
    """[(key, unit, range, default, meaning)] for every key of the schema."""
    board = board if board is not None else _board()
    out = []
    for k, rng in ranges():
        unit, text = meaning(k)
        out.append((k, unit, rng, default(k, board), text))
    extra = (set(KEYS) | {"pins." + p for p in PINS}) - {r[0] for r in out} - {r[0][:-3] for r in out}
    if extra:
        raise ReferenceError("firmware/profile_reference.py KEYS describes keys the schema does not "
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


# The lift's current sense in amperes (the reference table's sensor and a Hall sensor)
PICO_ADC = (3.3, 65535)     # RP2040/RP2350: 12 bits scaled to read_u16 0..65535 over ADC_VREF
ADS1115_ADC = (4.096, 65536)  # drivers.colour.Ads1115: +-4.096 V range, read_u16 = raw << 1
SHUNT_OHM = 0.010
GAIN = 50                   # TI INA180A2
ACS712_V_PER_A = 0.185      # Allegro ACS712ELCTR-05B at Vcc = 5 V: 2.5 V at 0 A
DIVIDER = 2 / 3             # 10 kOhm over 20 kOhm


def counts_for(amps, adc=PICO_ADC, v_per_a=SHUNT_OHM * GAIN, zero_v=0.0, divider=1.0):
    """What read_u16() gives for a current through a sensor of v_per_a volts per ampere
    (zero_v at 0 A) seen through a divider by an ADC (full-scale volts, counts)."""
    return int((zero_v + amps * v_per_a) * divider / adc[0] * adc[1] + 0.5)


def amps_for(counts, adc=PICO_ADC, v_per_a=SHUNT_OHM * GAIN):
    return counts * adc[0] / (adc[1] * v_per_a)


def lift_current_text(board=None, sim=None):
    board = board if board is not None else _board()
    if sim is None:
        from hw_sim.table import SIM_DEFAULTS

        sim = SIM_DEFAULTS["current"]
    thr = board["thresholds"]["lift_stall_current_u16"]
    vpa = SHUNT_OHM * GAIN
    per_a = PICO_ADC[1] * vpa / PICO_ADC[0]
    amps = amps_for(thr)
    sim_amps = ", ".join("%.2f A %s (%d)" % (amps_for(sim[k]), k, sim[k]) for k in ("idle", "run", "stall"))
    stall4 = (2.5 + 4 * ACS712_V_PER_A) * DIVIDER
    return "\n".join([
        "**The lift's current in amperes.** `thresholds.lift_stall_current_u16` is compared with the",
        "current sense's `read_u16()`: counts 0..65535 over the ADC's input range, not amperes. On a",
        "Pico (RP2040/RP2350, `pins.lift_current`) the 12-bit result is scaled to 0..%d over" % PICO_ADC[1],
        "0..%.1f V (its ADC_VREF is the 3.3 V rail); through an ADS1115 (`current_adc`) it is the" % PICO_ADC[0],
        "15-bit result doubled, %d counts per %.3f V. For a sense resistor R and an amplifier of" % (
            ADS1115_ADC[1], ADS1115_ADC[0]),
        "gain G:",
        "",
        "```",
        "counts = I x R x G x full_counts / V_full        I = counts x V_full / (full_counts x R x G)",
        "```",
        "",
        "The reference table's sensor: a %g mOhm, 1 W resistor in the lift driver's ground return" % (SHUNT_OHM * 1000),
        "and a TI INA180A2 current-sense amplifier (gain %d V/V, supplied from 3.3 V, so its output" % GAIN,
        "never exceeds the ADC pin's 3.3 V): %g V per ampere whichever way the motor turns. On a Pico" % vpa,
        "that is %g x %d x %d / %.1f = %.1f counts per ampere, so the reference threshold" % (
            SHUNT_OHM, GAIN, PICO_ADC[1], PICO_ADC[0], per_a),
        "%d is %d / %.1f = **%.2f A** (the simulated lift draws" % (thr, thr, per_a, amps),
        "%s)." % sim_amps,
        "Through an ADS1115 the same sensor gives %g x %d / %.3f = %.1f counts per ampere, so" % (
            vpa, ADS1115_ADC[1], ADS1115_ADC[0], ADS1115_ADC[1] * vpa / ADS1115_ADC[0]),
        "the same %.2f A reads %d x %.1f / %.1f = %d there: a profile moved to `current_adc` needs" % (
            amps, thr, ADS1115_ADC[1] * vpa / ADS1115_ADC[0], per_a, counts_for(amps, ADS1115_ADC)),
        "its threshold recomputed.",
        "",
        "A Hall sensor instead, an ACS712-05B (%d mV/A around Vcc/2 with Vcc = 5 V), reads 2.5 V at" % (
            ACS712_V_PER_A * 1000),
        "0 A and passes the Pico pin's 3.3 V at (3.3 - 2.5) / %g = %.2f A: put a divider (10 kOhm over" % (
            ACS712_V_PER_A, (3.3 - 2.5) / ACS712_V_PER_A),
        "20 kOhm, x 2/3) before the ADC pin. Then counts = (2.5 + %g x I) x 2/3 x %d / 3.3: 0 A" % (
            ACS712_V_PER_A, PICO_ADC[1]),
        "reads %d and a 4 A stall (2.5 + %.2f) x 2/3 = %.2f V = %d counts." % (
            counts_for(0, zero_v=2.5, divider=DIVIDER), 4 * ACS712_V_PER_A, stall4,
            counts_for(4, v_per_a=ACS712_V_PER_A, zero_v=2.5, divider=DIVIDER)),
        "",
        "Each lift stroke reports its peak current in counts (LIFT_STROKE, §3.4: in `jantaku",
        "selftest` and every hand over's `lift_stroke` event), and `jantaku health` flags a stroke",
        "whose peak reaches 80 % of the threshold: set it above the running peak and below what the",
        "motor draws stalled.",
        "",
    ])


BLOCKS = (("profile reference", table), ("lift current", lift_current_text))


def _markers(name):
    return ("<!-- %s: made by `%s`, do not edit -->\n" % (name, HINT), "<!-- %s: end -->" % name)


def written(text):
    """text (docs/FIRMWARE.md) with every generated block made anew."""
    for name, make in BLOCKS:
        begin, end = _markers(name)
        i, j = text.find(begin), text.find(end)
        if i < 0 or j < i:
            raise ReferenceError("%s has no %r block (%s ... %s)" % (DOC, name, begin.strip(), end))
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
