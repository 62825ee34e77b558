# The binding interface: the table of named signals (docs/ARCHITECTURE.md §4)
# and what a binding must return for each kind.
#
# A binding (bindings/machine_hal.py, bindings/gpiozero_hal.py) is built from
# a validated profile and offers:
#
#   hal.output(name) -> object with value(v) / value()       (digital out, starts at 0)
#   hal.pwm(name)    -> object with duty_u16(v)               (starts at duty 0)
#   hal.input(name)  -> object with value() and irq(handler, trigger), and the
#                       attributes IRQ_RISING / IRQ_FALLING; handler(pin) is
#                       called at each selected edge and must not allocate
#   hal.adc(name)    -> object with read_u16()
#   hal.i2c()        -> object with writeto(addr, buf), writeto_mem(addr, reg, buf),
#                       readfrom_mem_into(addr, reg, buf)  (the machine.I2C subset)
#
# Each returns None when the profile maps the (optional) signal to null;
# the firmware then does without it (docs/FIRMWARE.md "Optional signals").
# Nothing else of a pin object is touched by the firmware.

OUT = "out"
PWM = "pwm"
IN = "in"
ADC = "adc"
I2C = "i2c"

# In a validated profile, an I2C expander's pin is EXPANDER_PINS + 16 x expander + pin
# (firmware/profile_check.py expander_pin); the chip's own are 0..255
EXPANDER_PINS = 0x100

PULL_UP = "up"
PULL_DOWN = "down"
PULL_NONE = None

# name -> (kind, pull, optional).  Per-track names are produced by track_signals().
SIGNALS = {
    "mixer_pwm": (PWM, None, False),
    "mixer_dir": (OUT, None, True),
    "mixer_empty": (IN, PULL_NONE, False),
    "lift_pwm": (PWM, None, False),
    "lift_dir": (OUT, None, False),
    "lift_top": (IN, PULL_UP, False),
    "lift_bottom": (IN, PULL_UP, False),
    "lift_current": (ADC, None, True),
    "door_pwm": (PWM, None, False),
    "door_dir": (OUT, None, False),
    "door_closed": (IN, PULL_UP, False),
    "door_open": (IN, PULL_UP, True),
    "guard_curtain": (IN, PULL_DOWN, False),
    "lid": (IN, PULL_DOWN, True),
    # the safety chain (docs/SAFETY.md): its end read back (1 = every contact closed: the
    # emergency stop released, the lid closed), the motion relay's feedback contact (1 =
    # the lift's and door's supply is on) and the watchdog the firmware's loop toggles
    # (its edges keep the relays' coil supply up).  Null only for the simulator: a real
    # board refuses a profile without them (firmware/profile.py safety_missing()).
    "interlock": (IN, PULL_DOWN, True),
    "power_feedback": (IN, PULL_DOWN, True),
    "watchdog": (OUT, None, True),
    "start_button": (IN, PULL_UP, True),
    "dice_button": (IN, PULL_UP, True),
    "status_light": (OUT, None, True),
    "i2c_sda": (I2C, None, True),
    "i2c_scl": (I2C, None, True),
}

# The safety chain's signals: a profile may leave them out (null for the simulator);
# a real board's entry point refuses one without them (firmware/profile.py).
SAFETY_SIGNALS = ("interlock", "power_feedback", "watchdog")

TRACK_SIGNALS = {
    "gate": (OUT, None, False),
    "entry": (IN, PULL_UP, False),
    "stacker": (OUT, None, False),
    "pusher": (OUT, None, False),
}


def track_signals(tracks):
    """All per-track signal names for a table with `tracks` tracks, in order."""
    out = []
    for n in range(1, tracks + 1):
        for base in ("gate", "entry", "stacker", "pusher"):
            out.append(base + str(n))
    return out


# ---- mechanism families (docs/FIRMWARE.md §11) -----------------------------------------
# The four-port machine's signal table is firmware/fourport/pins.py, loaded only for a
# name of its own (a reference board never loads it).
FAMILIES = ("reference", "fourport")


def reference_track(name):
    for base in TRACK_SIGNALS:
        if name.startswith(base) and name[len(base):].isdigit():
            return True
    return False


def signal(name):
    """(kind, pull, optional) of a signal name (of any family), or None if it is not one."""
    s = SIGNALS.get(name)
    if s is not None:
        return s
    for base in TRACK_SIGNALS:
        if name.startswith(base) and name[len(base):].isdigit():
            return TRACK_SIGNALS[base]
    from firmware.fourport import pins as _fp

    return _fp.signal(name)


def family(profile):
    """The profile's mechanism family: "reference" or "fourport"."""
    return profile.get("family") or "reference"


def profile_signals(profile):
    """Every signal name a validated profile maps, for its family."""
    if family(profile) == "fourport":
        from firmware.fourport import pins as _fp

        return _fp.signal_names(profile["tracks"], profile["motors"])
    return signal_names(profile["tracks"])


def chip_only(name):
    """True for a signal that must be on the chip's own pins, never an expander's: the
    guard, the entry beams, the gates and the lift's limit switches (their IRQs are the
    safety and the per-tile path); a four-port profile's, firmware/fourport/pins.py's."""
    if (name == "guard_curtain" or name == "lid" or name == "lift_top" or name == "lift_bottom"
            or name in SAFETY_SIGNALS or name.startswith("entry") or name.startswith("gate")):
        return True
    if name in SIGNALS or signal(name) is None or reference_track(name):
        return False
    from firmware.fourport import pins as _fp

    return _fp.chip_only(name)


def options(profile, name):
    """(invert, pull) of a signal's pin in a validated profile: the profile's, where it
    gave the pin as an object (docs/FIRMWARE.md §3), else (False, the signal's pull)."""
    o = (profile.get("pin_options") or {}).get(name)
    if o is None:
        return False, signal(name)[1]
    return o["invert"], o.get("pull", signal(name)[1])


def signal_names(tracks):
    """Every signal name a profile with `tracks` tracks must map."""
    names = list(SIGNALS.keys())
    names.extend(track_signals(tracks))
    return names


def duty_u16(fraction):
    """A 0..1 duty as the integer PWM.duty_u16 takes (computed once, at setup)."""
    v = int(fraction * 65535 + 0.5)
    if v < 0:
        return 0
    if v > 65535:
        return 65535
    return v
