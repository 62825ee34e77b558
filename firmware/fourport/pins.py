# The four-port machine's signals (docs/FIRMWARE.md §11): what each motor's drive names
# (an H-bridge's `<m>_pwm`/`<m>_dir`, one on/off output's `<m>_on`, a relay pair's
# `<m>_fwd`/`<m>_rev`) and each side's inputs.  firmware/hal.py loads this only for a
# four-port profile's names.
from firmware.hal import OUT, PWM, IN, ADC, PULL_UP, PULL_NONE, SIGNALS

# Signals every family has (the guard, the buttons, the light, the bus)
COMMON = ("guard_curtain", "lid", "interlock", "power_feedback", "watchdog", "start_button", "dice_button",
          "status_light", "i2c_sda", "i2c_scl")
# a motor output says how it is driven (profile "motors"): its pins' suffixes and kinds
DRIVES = {
    "hbridge": (("_pwm", PWM), ("_dir", OUT)),  # an H-bridge: PWM + direction, both ways
    "onoff": (("_on", OUT),),                   # a relay, SSR or MOSFET: one way, stopped by its switch
    "relays": (("_fwd", OUT), ("_rev", OUT)),   # a reversing pair of relays (never both on)
}
# the four-port machine's motors: name -> (per side, needs two directions)
FOURPORT_MOTORS = (("disc", False, False), ("feed", True, False), ("stacker", True, False),
                   ("lift", True, True), ("centre", False, True), ("dice", False, False))
FOURPORT_SIGNALS = {
    "disc_empty": (IN, PULL_NONE, False),
    "centre_closed": (IN, PULL_UP, False),
    "centre_open": (IN, PULL_UP, True),
    "count<n>": (IN, PULL_UP, False),
    "colour<n>_int": (IN, PULL_UP, False),
    "home<n>": (IN, PULL_UP, False),
    "lift<n>_top": (IN, PULL_UP, False),
    "lift<n>_bottom": (IN, PULL_UP, False),
    "lift<n>_current": (ADC, None, True),
}


def pattern(name):
    """'lift2_top' -> ('lift<n>_top', 2); a name without digits -> (name, 0)."""
    i = 0
    while i < len(name) and not name[i].isdigit():
        i += 1
    if i == len(name):
        return name, 0
    j = i
    while j < len(name) and name[j].isdigit():
        j += 1
    return name[:i] + "<n>" + name[j:], int(name[i:j])


def signal(name):
    """(kind, pull, optional) of a four-port signal name, or None if it is not one."""
    pat, _ = pattern(name)
    s = FOURPORT_SIGNALS.get(pat)
    if s is not None:
        return s
    for m, per_side, _two in FOURPORT_MOTORS:
        stem = m + "<n>" if per_side else m
        if pat.startswith(stem):
            suf = pat[len(stem):]
            for d in DRIVES:
                for sfx, kind in DRIVES[d]:
                    if suf == sfx:
                        return (kind, None, False)
    return None


def motor_names(tracks):
    """The four-port machine's motors by name: disc, feed1..N, stacker1..N, lift1..N,
    centre, dice."""
    out = []
    for m, per_side, _two in FOURPORT_MOTORS:
        if per_side:
            for n in range(1, tracks + 1):
                out.append(m + str(n))
        else:
            out.append(m)
    return out


def motor_kind(name):
    """'lift3' -> 'lift' (the key of the profile's motors section)."""
    return pattern(name)[0].replace("<n>", "")


def motor_pins(name, drive):
    """The signal names of motor `name` driven by `drive`."""
    return [name + sfx for sfx, _ in DRIVES[drive]]


def signal_names(tracks, motors, skip_missing=False):
    """Every signal a four-port profile with `tracks` sides and the motors' drives
    (`motors`: kind -> {"drive": ...}) must map (skip_missing: leave out the pins of
    motors `motors` does not name)."""
    names = []
    for m in motor_names(tracks):
        e = motors.get(motor_kind(m))
        if e is None and skip_missing:
            continue
        names.extend(motor_pins(m, e["drive"]))
    for pat in FOURPORT_SIGNALS:
        if "<n>" in pat:
            for n in range(1, tracks + 1):
                names.append(pat.replace("<n>", str(n)))
        else:
            names.append(pat)
    names.extend(COMMON)
    return names


def chip_only(name):
    """A four-port signal that must be on the chip's own pins: counting and colour edges,
    the cams' home switches, the lifts' switches, and every pin that stops a motor (the
    guard's IRQ stops them all); a direction pin is set before a motion starts and may be
    slow."""
    pat = pattern(name)[0]
    if pat in ("count<n>", "colour<n>_int", "home<n>", "lift<n>_top", "lift<n>_bottom"):
        return True
    if name in SIGNALS or pat in FOURPORT_SIGNALS or name.endswith("_dir"):
        return False
    return (name.endswith("_on") or name.endswith("_fwd") or name.endswith("_rev")
            or name.endswith("_pwm")) and signal(name) is not None


