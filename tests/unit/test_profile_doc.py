"""docs/FIRMWARE.md §3's profile reference is the validation's, key for key: every key a
validated profile has is a row and every row a key it has; each row's range is what
validation refuses just outside and accepts at its ends; each default is what a profile
without the key gets, and each "required" key left out is refused by name."""
import copy
import difflib
import json
import re

import pytest

from firmware import profile as P
from firmware import profile_check as S
from firmware import current_reference as C
from firmware import hal
from firmware import profile_doc as D
from firmware.profile import ProfileError


def ref():
    with open(P.boards_dir() + "/reference-18.json") as f:
        return json.load(f)


def bases():
    """Valid profiles between them using every section and every port kind."""
    usb = ref()
    uart = ref()
    uart["port"] = {"kind": "uart", "id": 0, "baud": 115200, "tx": 44, "rx": 45}
    serial = ref()
    serial["port"] = {"kind": "serial", "path": "/dev/ttyGS0", "baud": 115200}
    adc = ref()
    adc["pins"]["lift_current"] = None
    adc["current_adc"] = {"kind": "ads1115", "addr": 72, "channel": 0}
    adc["thresholds"]["lift_stall_current_u16"] = 41920  # the same 5.24 A on an ADS1115
    per_track = ref()
    per_track["calibration"]["tracks"] = [
        {"refs": copy.deepcopy(usb["calibration"]["refs"]), "max_distance": 0.1} for _ in range(4)]
    objects = ref()  # pins given as objects (docs/FIRMWARE.md §3.6)
    objects["pins"]["lift_top"] = {"pin": 21, "invert": True, "pull": None}
    objects["pins"]["gate1"] = {"pin": 38, "invert": True}
    objects["pins"]["start_button"] = {"expander": 0, "pin": 3}  # a slow signal; GPIO 3 is free
    objects["expanders"] = [{"kind": "mcp23017", "addr": 32}]
    # every pin a number (no pin_options): a board whose safety inputs take the chip's own
    # pull-downs (an RP2040's; the RP2350's erratum E9 needs external ones)
    plain = ref()
    for k, v in list(plain["pins"].items()):
        if isinstance(v, dict):
            plain["pins"][k] = v["pin"]
    with open(P.boards_dir() + "/fourport-24v.json") as f:
        fourport = json.load(f)  # the four-port family (docs/FIRMWARE.md §11)
    relays = copy.deepcopy(fourport)  # (first: the base of the motor pins' rows)  # every drive: H-bridges, on/off, a relay pair
    relays["motors"]["disc"] = {"drive": "hbridge", "supply": "dc"}
    relays["pins"]["disc_pwm"] = relays["pins"].pop("disc_on")
    relays["pins"]["disc_dir"] = 41
    relays["hardware"] = None  # (pins past the chip's 48: the host's check is not this test's)
    relays["expanders"] = None
    for i, (k, v) in enumerate(sorted(relays["pins"].items())):
        if isinstance(v, dict):
            relays["pins"][k] = 100 + i
    return [usb, uart, serial, adc, per_track, objects, plain, relays, fourport]


OBJECT_PIN = "lift_top"  # an input of the chip: invert, pull and pin apply
EXPANDER_PIN = "start_button"  # on expanders[0]


def row_key(path):
    """A validated profile's key path as the reference names it."""
    key = ".".join(str(p) for p in path).replace(".[", "[")
    key = re.sub(r"\[\d+\]", "[]", key)
    key = re.sub(r"^pins\.(gate|entry|stacker|pusher)\d+$", r"pins.\1<n>", key)
    key = re.sub(r"^(pins|pin_options)\.[a-z_0-9]+\.([a-z]+)$", r"pins.<signal>.\2", key)
    key = re.sub(r"^pins\.(count|home)\d+$", r"pins.\1<n>", key)
    key = re.sub(r"^pins\.(colour|lift)\d+_(int|top|bottom|current)$", r"pins.\1<n>_\2", key)
    key = re.sub(r"^pins\.(disc|centre|dice|feed\d+|stacker\d+|lift\d+)_(pwm|dir|on|fwd|rev)$",
                 r"pins.<motor>_\2", key)
    key = re.sub(r"^motors\.[a-z]+\.([a-z]+)$", r"motors.<motor>.\1", key)
    key = re.sub(r"^calibration(\.tracks\[\])?\.refs\.[^.]+$", r"calibration\1.refs.<colour>", key)
    return key


def flat(d, path=()):
    """The key paths of a profile: a dict's keys are keys (current_adc is one too), and so
    are those of a list of objects' entries ("[0]")."""
    for k, v in d.items():
        p = path + (k,)
        if isinstance(v, dict):
            if p == ("current_adc",) or not v:
                yield p
            yield from flat(v, p)
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            yield p
            for i, e in enumerate(v):
                yield from flat(e, p + ("[%d]" % i,))
        else:
            yield p


ROWS = {r[0]: r for r in D.rows()}


def test_the_docs_hold_the_reference_the_schema_makes():
    text = D.DOC.read_text(encoding="utf-8")
    made = D.written(text)
    diff = "".join(difflib.unified_diff(text.splitlines(True), made.splitlines(True), "docs", "schema", n=0))
    assert made == text, ("docs/FIRMWARE.md §3 and the profile's validation differ; run `%s`:\n%s"
                          % (D.HINT, diff[:3000]))


def test_every_key_a_validated_profile_has_is_a_row_and_no_other():
    keys = set()
    for b in bases():  # what validation returns, and what it was given (a pin's object)
        keys |= {row_key(p) for p in flat(P.load(b))} | {row_key(p) for p in flat(b)}
    assert set(ROWS) == keys, "rows without a key: %s; keys without a row: %s" % (
        sorted(set(ROWS) - keys), sorted(keys - set(ROWS)))


def concrete(key):
    """(path in a base profile, that base) for a row key."""
    signal = EXPANDER_PIN if key.endswith(".expander") else OBJECT_PIN
    motor = {"_pwm": "lift1", "_dir": "disc", "_on": "disc", "_fwd": "centre", "_rev": "centre"}
    motor = next((m for sfx, m in motor.items() if key.endswith(sfx)), "disc")
    key = key.replace("<n>", "1").replace("<colour>", "blue").replace("<signal>", signal).replace(
        "<motor>", motor)
    path = [int(k) if k.isdigit() else k for k in key.replace("[]", ".0").split(".")]
    top = path[0]
    for b in bases():
        if top == "motors" and not b.get("motors") and len(path) > 1:
            continue
        if top == "pins" and path[1] not in b["pins"]:
            continue
        if len(path) == 3 and top == "pins" and not isinstance(b["pins"][path[1]], dict):
            continue
        if 0 in path and not has(b, path):
            continue
        if top == "port" and len(path) > 1 and path[1] not in b["port"] and path[1] != "kind":
            continue
        if top == "current_adc" and not b["current_adc"]:
            continue
        if top == "pin_options" and [1 for v in b["pins"].values() if isinstance(v, dict)]:
            continue  # (its pin objects would give it some)
        return path, b
    raise AssertionError(key)


def has(d, path):
    for k in path[:-1]:
        if not isinstance(d, (dict, list)) or (k not in d if isinstance(d, dict) else k >= len(d)):
            return False
        d = d[k]
    return True


def key_of(path):
    """The key validation names: "calibration.tracks[0].max_distance"."""
    return "".join("[%d]" % k if isinstance(k, int) else ("." if i else "") + k for i, k in enumerate(path))


def put(d, path, value):
    for k in path[:-1]:
        d = d[k]
    d[path[-1]] = value


def drop(d, path):
    for k in path[:-1]:
        d = d[k]
    d.pop(path[-1], None)


def problem(d, key):
    """The ProfileError validation raises about key for d, or None."""
    try:
        P.load(d)
    except ProfileError as e:
        return next((p for p in e.problems if p.key == key), None)
    return None


def numeric_range(cell):
    m = re.match(r"^(-?[\d.]+)\.\.(-?[\d.]+)( characters)?", cell)
    if not m:
        return None
    num = "." in m.group(1) + m.group(2)
    conv = float if num else int
    return conv(m.group(1)), conv(m.group(2)), num, bool(m.group(3))


RANGED = [k for k, r in ROWS.items() if numeric_range(r[2]) and k not in ("id", "colours")]


@pytest.mark.parametrize("key", RANGED)
def test_a_documented_range_is_what_validation_refuses_outside_and_takes_at_its_ends(key):
    lo, hi, num, chars = numeric_range(ROWS[key][2])
    path, base = concrete(key)
    step = 0.0001 if num else 1
    outside = [lo - step, hi + step] if lo - step >= 0 or not chars else [hi + step]
    name = key_of(path)
    for v in outside:
        d = copy.deepcopy(base)
        put(d, path, "x" * int(v) if chars else v)
        e = problem(d, name)
        assert e is not None and e.accepted, "%s = %r is outside %s, not refused" % (key, v, ROWS[key][2])
    for v in (lo, hi):
        d = copy.deepcopy(base)
        put(d, path, "x" * int(v) if chars else v)
        e = problem(d, name)  # a cross-check may still name it, never its range
        assert e is None or not str(e).startswith(name + ": got"), "%s = %r is inside %s: %s" % (
            key, v, ROWS[key][2], e)


def test_the_documented_colours_are_what_validation_takes():
    lo, hi, _, _ = numeric_range(ROWS["colours"][2])
    name = re.search(r"names of (\d+)\.\.(\d+) characters", ROWS["colours"][2])
    d = ref()
    d["colours"] = ["c%d" % i for i in range(hi + 1)]
    assert problem(d, "colours") is not None
    d["colours"] = []
    assert lo == 1 and problem(d, "colours") is not None
    for n, ok in ((int(name.group(2)), True), (int(name.group(2)) + 1, False)):
        d = ref()
        d["colours"][1] = "g" * n
        d["calibration"]["refs"]["g" * n] = d["calibration"]["refs"].pop("green")
        if ok:
            assert P.load(d)["colours"][1] == "g" * n
        else:
            assert problem(d, "colours[1]") is not None
    d = ref()
    d["colours"][1] = "unknown"
    assert problem(d, "colours[1]") is not None


@pytest.mark.parametrize("key", sorted(ROWS))
def test_a_documented_default_is_what_a_profile_without_the_key_gets(key):
    cell = ROWS[key][3]
    path, base = concrete(key)
    d = copy.deepcopy(base)
    if key == "port.kind":  # the whole port left out
        drop(d, ["port"])
        assert P.load(d)["port"]["kind"] == json.loads(cell.strip("`"))
        return
    drop(d, path)
    if len(path) == 3 and path[0] == "pins":  # a pin's object: validated into pin_options
        if path[2] == "expander":  # without it, the object's pin is the chip's GPIO
            assert cell == "none: a pin of the chip" and P.load(d)["pins"][path[1]] == base["pins"][path[1]]["pin"]
            return
        if path[2] != "pin":
            got = P.load(d)["pin_options"][path[1]][path[2]]
            want = hal.signal(path[1])[1] if cell.startswith("the signal's") else json.loads(cell.strip("`"))
            assert got == want, key
            return
    if cell.startswith("`"):
        got = P.load(d)
        for k in path:
            got = got[k]
        if got in ({}, []) and cell == "`null`":  # none: validation returns it empty
            got = None
        assert got == json.loads(cell.strip("`")), key
        return
    assert cell.startswith("required"), cell
    e = pytest.raises(ProfileError, P.load, d).value
    owner = key_of(path[:-1]) if key.endswith((".<colour>", ".kind")) or "[]" in key else None
    assert e.key in (key_of(path), owner) and ("missing" in str(e) or e.key == owner), (key, str(e))
    if "(null allowed)" in cell:
        d = copy.deepcopy(base)
        put(d, path, None)
        if path[-1].startswith("i2c_"):
            d["pins"]["i2c_sda"] = d["pins"]["i2c_scl"] = None
        assert P.load(d)["pins"][path[-1]] is None


def test_required_timings_show_the_reference_table_s_value_to_start_from():
    assert ROWS["timings_ms.lift_stroke"][3] == "required (reference-18: 4000)"
    assert ROWS["timeouts_ms.build"][3] == "required (reference-18: 80000)"
    assert ROWS["timings_ms.heartbeat"][3] == "`500`"
    assert ROWS["timeouts_ms.jam_retries"][1] == "count"  # a count among the milliseconds
    for key in ("i2c.freq", "calibration.min_clear", "calibration.max_distance",
                "thresholds.lift_stall_current_u16", "i2c.mux_addr"):
        assert ROWS[key][1] not in ("", "count"), key
    assert ROWS["i2c.mux_addr"][2] == "112..119 (0x70..0x77)"


def test_a_schema_key_without_a_meaning_stops_the_reference(monkeypatch):
    monkeypatch.setitem(S.SCHEMA["timings_ms"], "settle", ("int", 1, 50))
    with pytest.raises(D.ReferenceGap, match=r"no unit and meaning for timings_ms\.settle: add them, "
                                                r"then run `python -m firmware.profile_doc --write`"):
        D.rows()
    monkeypatch.delitem(S.SCHEMA["timings_ms"], "settle")
    monkeypatch.delitem(S.SCHEMA["timings_ms"], "mix")
    with pytest.raises(D.ReferenceGap, match="schema does not have: timings_ms.mix"):
        D.rows()


def test_the_lift_current_in_amperes_adds_up():
    # 10 mOhm x 50 = 0.5 V/A; a Pico's read_u16 is 65535 over 3.3 V; an ADS1115's 65536 over 4.096 V
    assert C.counts_for(1.0) == round(0.5 / 3.3 * 65535) == 9930
    assert C.counts_for(1.0, C.ADS1115_ADC) == 8000
    thr = ref()["thresholds"]["lift_stall_current_u16"]
    amps = C.amps_for(thr)
    assert abs(amps - thr * 3.3 / 65535 / 0.5) < 1e-9 and round(amps, 2) == 5.24
    text = D.lift_current()
    assert "**5.24 A**" in text and "0.01 x 50 x 65535 / 3.3 = 9929.5 counts per ampere" in text
    # the ACS712-05B: 2.5 V at 0 A, 0.185 V/A, through a 2/3 divider
    assert C.counts_for(0, v_per_a=0.185, zero_v=2.5, divider=2 / 3) == 33098
    assert "2.16 V = 42896 counts" in text and abs((2.5 + 4 * 0.185) * 2 / 3 / 3.3 * 65535 - 42896) < 0.5
    # the simulated lift's running current is below the reference threshold, its stall above
    from hw_sim.table import SIM_DEFAULTS

    cur = SIM_DEFAULTS["current"]
    assert cur["run"] < thr < cur["stall"]


def test_the_generator_writes_and_refuses_a_document_without_its_markers(tmp_path, monkeypatch, capsys):
    doc = tmp_path / "FIRMWARE.md"
    begin, end = D._markers("profile reference")
    lbegin, lend = D._markers("lift current")
    doc.write_text("# x\n" + begin + "stale\n" + end + "\nmiddle\n" + lbegin + lend + "\n")
    monkeypatch.setattr(D, "DOC", doc)
    assert D.main(["--write"]) == 0
    text = doc.read_text()
    assert "stale" not in text and D.table() in text and D.lift_current() in text
    assert "middle" in text
    doc.write_text("# no markers\n")
    with pytest.raises(D.ReferenceGap, match="no 'profile reference' block"):
        D.main(["--write"])
    assert D.main(["--check"]) == 2
