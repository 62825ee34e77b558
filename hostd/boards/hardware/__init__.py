"""The hardware a board profile's pins are on, and the pins checked against it
(docs/FIRMWARE.md §3.5), as Klipper checks pins when the host connects.

Each ``<id>.json`` beside this file defines one piece of hardware people can buy: its
chip, the runtime it runs (MicroPython, or CPython with gpiozero on a Raspberry Pi), the
``sys.implementation._machine`` names MicroPython gives it, every usable GPIO with what it
can do (``pwm``: the PWM slice and channel, or ``soft``; ``adc``: the ADC channel;
``i2c`` and ``uart``: ``"<bus> sda|scl|tx|rx"``), the GPIOs it does not offer
(``reserved``: refused) and those to use with care (``caution``: a warning), and where
the facts come from.  The tables stay on the host: nothing of them is staged to a board.

    check(profile)    a Report of every problem and warning of a validated profile
    require(profile)  the Report's warnings, or HardwareError listing every problem
"""
import json
import pathlib

from firmware import hal
from hostd.errors import ConfigError

HERE = pathlib.Path(__file__).resolve().parent
CPYTHON_PORTS = ("serial",)  # a port kind only CPython (a Raspberry Pi) has


class HardwareError(ConfigError):
    """A profile that does not fit its hardware: every problem, one per line."""

    code = "hardware"

    def __init__(self, problems, where=None):
        self.problems = problems
        head = "%s does not fit its hardware (%d problem%s):" % (
            where or "the board profile", len(problems), "" if len(problems) == 1 else "s")
        super().__init__(head + "".join("\n  - " + str(p) for p in problems))


class Problem:
    """One finding: the profile key, the pin (or None), what is wrong, what is accepted."""

    def __init__(self, key, pin, hardware, what, accepted):
        self.key = key
        self.pin = pin
        self.hardware = hardware
        self.what = what
        self.accepted = accepted

    def __str__(self):
        pin = "" if self.pin is None else " (GPIO %d)" % self.pin
        return "%s%s on %s: %s; accepted: %s" % (self.key, pin, self.hardware, self.what, self.accepted)

    def as_dict(self):
        return {"key": self.key, "pin": self.pin, "hardware": self.hardware, "what": self.what,
                "accepted": self.accepted}


class Report:
    def __init__(self, hardware):
        self.hardware = hardware  # the definition (dict) or None
        self.problems = []
        self.warnings = []

    @property
    def ok(self):
        return not self.problems


# ---------------------------------------------------------------- the definitions
def ids():
    return sorted(p.stem for p in HERE.glob("*.json"))


def load(hw_id):
    """The definition of hardware ``hw_id`` (ConfigError naming the known ids)."""
    path = HERE / (str(hw_id) + ".json")
    if "/" in str(hw_id) or not path.is_file():
        raise ConfigError("unknown hardware %r; known: %s" % (hw_id, ", ".join(ids())))
    return json.loads(path.read_text(encoding="utf-8"))


def for_machine(machine):
    """The definition whose MicroPython ``sys.implementation._machine`` is ``machine``, or None."""
    for hw_id in ids():
        d = load(hw_id)
        if machine in d["machine"]:
            return d
    return None


def _ranges(nums):
    """'0-22, 26-28' for [0..22, 26, 27, 28]."""
    out = []
    for n in sorted(nums):
        if out and n == out[-1][1] + 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return ", ".join("%d" % a if a == b else "%d-%d" % (a, b) for a, b in out)


def _pins_with(hw, what, bus=None, role=None):
    out = []
    for n, caps in hw["pins"].items():
        v = caps.get(what)
        if v is None:
            continue
        if bus is not None and v != "%d %s" % (bus, role):
            continue
        out.append(int(n))
    return out


# ---------------------------------------------------------------- the check
def _needs(name):
    """What a signal needs of its pin: 'pwm', 'adc', ('i2c', role) or None (any GPIO)."""
    kind = hal.signal(name)[0]
    if kind == hal.PWM:
        return "pwm"
    if kind == hal.ADC:
        return "adc"
    if kind == hal.I2C:
        return ("i2c", "sda" if name.endswith("sda") else "scl")
    return None


def _check_pin(rep, hw, key, pin, need, bus):
    name = hw["name"]
    if str(pin) in hw.get("reserved", {}):
        rep.problems.append(Problem(key, pin, name, "GPIO %d is not free: %s" % (pin, hw["reserved"][str(pin)]),
                                    "a free GPIO: " + _ranges(int(n) for n in hw["pins"])))
        return None
    caps = hw["pins"].get(str(pin))
    if caps is None:
        rep.problems.append(Problem(key, pin, name, "GPIO %d does not exist" % pin,
                                    "a GPIO of " + _ranges(int(n) for n in hw["pins"])))
        return None
    if str(pin) in hw.get("caution", {}):
        rep.warnings.append(Problem(key, pin, name, "GPIO %d: %s" % (pin, hw["caution"][str(pin)]),
                                    "another GPIO if that applies"))
    if need == "pwm" and "pwm" not in caps:
        rep.problems.append(Problem(key, pin, name, "GPIO %d has no PWM" % pin,
                                    "a PWM pin: " + _ranges(_pins_with(hw, "pwm"))))
    elif need == "adc" and "adc" not in caps:
        rep.problems.append(Problem(key, pin, name, "GPIO %d has no ADC" % pin,
                                    "an ADC pin: " + _ranges(_pins_with(hw, "adc")) if _pins_with(hw, "adc")
                                    else "null here (no ADC on this hardware: use current_adc, an ADS1115)"))
    elif isinstance(need, tuple) and caps.get("i2c") != "%d %s" % (bus, need[1]):
        good = _pins_with(hw, "i2c", bus, need[1])
        rep.problems.append(Problem(key, pin, name, "GPIO %d is not %s of I2C bus %d (i2c.bus)%s" % (
            pin, need[1].upper(), bus, "" if not caps.get("i2c") else ", it is %s of bus %s" % (
                caps["i2c"].split()[1].upper(), caps["i2c"].split()[0])),
            "%s of bus %d: %s" % (need[1].upper(), bus, _ranges(good)) if good
            else "another i2c.bus: this hardware has no I2C bus %d" % bus))
    return caps


def _check_pwm_channels(rep, hw, used):
    """No two PWM signals on one slice channel (they would carry one signal)."""
    seen = {}
    for key, pin, caps in used:
        ch = caps.get("pwm")
        if not ch or ch == "soft":
            continue
        if ch in seen:
            rep.problems.append(Problem(key, pin, hw["name"], "GPIO %d is PWM channel %s, as GPIO %d (%s)" % (
                pin, ch, seen[ch][1], seen[ch][0]), "a PWM pin of another slice channel"))
        else:
            seen[ch] = (key, pin)


def _check_port(rep, hw, port):
    name = hw["name"]
    kind = port["kind"]
    if hw["runtime"] == "micropython" and kind in CPYTHON_PORTS:
        rep.problems.append(Problem("port.kind", None, name, 'port kind "%s" needs CPython (a Raspberry Pi)' % kind,
                                    '"usb" or "uart" on a MicroPython board'))
    if hw["runtime"] == "cpython" and kind not in CPYTHON_PORTS:
        rep.problems.append(Problem("port.kind", None, name, 'port kind "%s" is a MicroPython board\'s' % kind,
                                    '"serial" (a serial device the Pi opens)'))
    if kind == "uart":
        for role in ("tx", "rx"):
            pin = port[role]
            caps = _check_pin(rep, hw, "port." + role, pin, None, None)
            want = "%d %s" % (port["id"], role)
            if caps is not None and caps.get("uart") != want:
                good = [int(n) for n, c in hw["pins"].items() if c.get("uart") == want]
                rep.problems.append(Problem("port." + role, pin, name, "GPIO %d is not %s of UART %d (port.id)" % (
                    pin, role.upper(), port["id"]), "%s of UART %d: %s" % (role.upper(), port["id"], _ranges(good))
                    if good else "another port.id: this hardware has no UART %d" % port["id"]))


def check(profile, *, hardware=None, real=False):
    """Every problem and warning of the validated ``profile`` against its ``hardware`` key
    (or ``hardware``, a definition dict or id, to check against another)."""
    hw_id = hardware if hardware is not None else profile.get("hardware")
    if hw_id is None:
        rep = Report(None)
        rep.warnings.append(Problem("hardware", None, "no hardware", "the profile names no hardware: its pins "
                                    "are not checked against a board", "one of " + ", ".join(ids())))
        return rep
    if isinstance(hw_id, dict):
        hw = hw_id
    else:
        try:
            hw = load(hw_id)
        except ConfigError:
            rep = Report(None)
            rep.problems.append(Problem("hardware", None, repr(hw_id), "unknown hardware", "one of " + ", ".join(ids())))
            return rep
    rep = Report(hw)
    used = []
    bus = profile["i2c"]["bus"]
    for name, pin in profile["pins"].items():
        if pin is None:
            continue
        if pin >= hal.EXPANDER_PINS:  # an expander's pin: validation checked it (both
            continue  # bindings drive MCP23017s: firmware/drivers/expander.py Expanders)
        caps = _check_pin(rep, hw, "pins." + name, pin, _needs(name), bus)
        if caps is not None and _needs(name) == "pwm":
            used.append(("pins." + name, pin, caps))
    _check_pwm_channels(rep, hw, used)
    _check_port(rep, hw, profile["port"])
    _check_e9(rep, hw, profile)
    _check_safety_chain(rep, hw, profile, real)
    return rep


# the inputs whose "safe" reading is high (docs/SAFETY.md): a pull-down makes a cut wire
# read unsafe
SAFETY_INPUTS = ("guard_curtain", "lid", "interlock", "power_feedback")


def _check_e9(rep, hw, profile):
    """RP2350 erratum E9: with only the internal pull-down a released input can stay near
    2 V and read high: a broken curtain or an open chain could read safe.  Its safety
    inputs need an external pull-down (a resistor to ground) and no internal pull."""
    if not str(hw.get("chip", "")).startswith("RP2350"):
        return
    for name in SAFETY_INPUTS:
        pin = profile["pins"].get(name)
        if pin is None or pin >= hal.EXPANDER_PINS:
            continue
        if hal.options(profile, name)[1] == hal.PULL_DOWN:
            rep.problems.append(Problem(
                "pins." + name, pin, hw["name"],
                "GPIO %d relies on the %s's internal pull-down: RP2350 erratum E9 can hold a released "
                "input near 2 V, reading high, so a broken safety input could read safe" % (pin, hw["chip"]),
                '{"pin": %d, "pull": null} with an external pull-down (4.7 kOhm to ground; docs/SAFETY.md)' % pin))


def _check_safety_chain(rep, hw, profile, real):
    """A real board never runs without the safety chain's pins (interlock, feedback,
    watchdog): a problem when the profile is for a board (`real`: flashing it), else a
    warning (the simulator runs without them and says so)."""
    from firmware import profile as fprofile

    for key in fprofile.safety_missing(profile):
        p = Problem(key, None, hw["name"], "null or missing: a real board does not start without the "
                    "safety chain (docs/SAFETY.md); the simulator runs without it",
                    "a pin of the chip (docs/WIRING.md \"The safety chain\")")
        (rep.problems if real else rep.warnings).append(p)


def require(profile, *, where=None, hardware=None, real=False):
    """The Report's warnings (Problem list) if the profile fits its hardware, else
    HardwareError listing every problem.  real: the profile goes onto a board (`jantaku
    flash`): a missing safety chain is a problem, not a warning."""
    rep = check(profile, hardware=hardware, real=real)
    if rep.problems:
        raise HardwareError(rep.problems, where)
    return rep.warnings
