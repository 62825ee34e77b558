# Board profile: loading and validation (docs/ARCHITECTURE.md §4, docs/FIRMWARE.md).
#
# A profile is data the user edits for their table (pins, thresholds, timings,
# timeouts, tracks, stacks per wall, colour calibration).  It is validated once,
# at start: an unknown or missing key, a wrong type or an out-of-range value
# raises ProfileError naming the key and what is accepted.  Nothing is read
# from the profile after construction (each mechanism copies what it needs).
from firmware.profile_error import ProfileError  # noqa: F401 (firmware.profile.ProfileError)


DEFAULT_ID = "reference-18"


def validate(d):
    """A validated copy of the profile dict d (defaults filled in), or ProfileError.
    The checks live in firmware/profile_check.py (see release())."""
    from firmware import profile_check

    return profile_check.validate(d)


def release():
    """Drop the checks' module (a board calls this once the firmware is built:
    running from .mpy files, its code would otherwise stay in RAM)."""
    import sys

    import firmware

    for name in ("profile_check", "profile_fourport", "profile_leaf"):
        sys.modules.pop("firmware." + name, None)
        if hasattr(firmware, name):
            delattr(firmware, name)


def boards_dir():
    try:
        f = __file__
    except NameError:
        return "firmware/boards"
    i = f.rfind("/")
    if i < 0:
        return "boards"
    return f[:i] + "/boards"


def _read_json(path):
    import json

    try:
        with open(path) as fh:
            return json.load(fh)
    except OSError:
        raise ProfileError("(file)", "cannot read " + path, "a readable JSON file")
    except ValueError as e:
        raise ProfileError("(file)", "%s is not valid JSON (%s)" % (path, e), "a JSON object")


def load(src=None):
    """Load and validate a board profile.

    src: a dict, a path to a JSON file, a board id of firmware/boards/ (e.g.
    "long-29"), or None for the default (reference-18).  Returns a new dict."""
    if src is None:
        src = DEFAULT_ID
    if isinstance(src, dict):
        return validate(src)
    if not isinstance(src, str):
        raise ProfileError("(profile)", "got %r" % (src,), "a dict, a path or a board id")
    path = src
    if "/" not in src and not src.endswith(".json"):
        path = boards_dir() + "/" + src + ".json"
    return validate(_read_json(path))


def max_tiles_per_track(profile):
    """The most tiles one track can hold: two-high stacks, max_stacks per wall."""
    return 2 * profile["max_stacks"]


def safety_missing(profile):
    """The safety chain's keys a validated profile leaves null ("pins.interlock",
    "pins.power_feedback", "pins.watchdog"): the simulator runs without them (and says
    so at start); a real board refuses to start (require_safety())."""
    from firmware.hal import SAFETY_SIGNALS

    out = []
    for name in SAFETY_SIGNALS:
        if profile["pins"].get(name) is None:
            out.append("pins." + name)
    return out


def require_safety(profile):
    """ProfileError naming the first safety key a real board's profile leaves out."""
    miss = safety_missing(profile)
    if miss:
        raise ProfileError(miss[0], "null or missing: a real board does not start without the safety chain "
                           "(the interlock input, the relay's feedback, the watchdog output; "
                           "docs/SAFETY.md; only the simulator runs without them)",
                           "a pin of the chip (docs/WIRING.md \"The safety chain\")")
