"""The wiring survey (issue 47 point 4, docs/RETROFIT.md "The survey"): find which of a
table's devices each pin of the board reaches, when the board profile's map is not known
(a retrofitted commercial table whose connectors are not labelled), and write the map.

The person starts from a draft profile: the shipped profile nearest to the controller,
with the pins they wired (docs/RETROFIT.md).  What they know is how they wired the board:
which pins go to a motor driver's PWM and DIR inputs (one driver: one channel), which to a
MOSFET or relay, which to an input; what they do not know is which motor, coil or switch
of the table is at the far end of each.  So the survey keeps the draft's channels and
names what each reaches:

1. **Inputs first**, with the table at rest (lift down, centre closed, nothing in a beam):
   for each input device of the family's catalogue the person presses its switch, covers
   its sensor, breaks the light curtain, opens the lid, while the daemon watches every
   input pin of the draft (``watch``); the pin that changed is that device's, and its level
   at rest says whether it is wired the other way round (``invert``).  The light curtain
   and the lid must be where the draft says before anything moves (the firmware guards
   with the draft's pins): else the survey stops and says which pin to put in the draft.
2. **Outputs**: each channel is pulsed for a moment (``pulse``: the firmware's PIN_PULSE,
   every other output off) while the person says what moved, from the catalogue: a motor
   driver's channel twice (its DIR low, then held high: one of the two moves the motor
   away from its end, and which one gives the DIR's sense), a plain output once.
3. **Write**: the pins each device was found on, into the club's copy of the profile
   (validated first; a backup and a diff).

Refused, each with what to do: an output channel that moves nothing, an input that never
changes, two answers for one pin (a device already found on another pin, or a pin already
given to another device), a motor whose direction did not change with its DIR, a device a
channel of that kind cannot drive.  Nothing is written while a required device is not
found.

This module is the survey's knowledge (layer: bring-up); the daemon runs its moves
(hostd/core/bench.py survey, the API's POST /survey: plan, pulse, watch, write) and
`jantaku survey` (hostd/cli/bringup.py) asks the person, or takes the answers from a file.
"""
from firmware import hal as _hal
from hostd.errors import JantakuError

PULSE_MS = 400  # a moment: long enough to see a solenoid pull in or a motor start
WATCH_MS = 15000  # how long the survey waits for a person to press one switch
POLL_MS = 40  # how often the inputs are read while it waits
RELEASE_S = 5.0  # after a change, how long it waits for the person to let go

NOTHING = "nothing"

# -- the catalogue: the family's devices, in the words people answer with ---------------
# A motor: its signal base and its motions, the first the one its DIR high gives (the
# firmware's convention: dir 1 = up, open, forward), or () when no one can tell a
# direction from the other (a turntable).  A plain output: one word.  An input: the
# signal and what the person does to it, and what it reads at rest (1, 0, or None: not
# known, the draft's invert is kept).
REFERENCE_MOTORS = {
    "mixer": (),
    "lift": ("up", "down"),
    "door": ("open", "close"),
}


# Not surveyed, kept as the draft has it: the status light (the firmware lights it
# steadily whenever the table is idle, whatever its pin drives: the draft leaves it null
# until the rest is found, docs/RETROFIT.md), the safety chain's signals (the chain's
# end, the relay's feedback, the watchdog output: wired as docs/SAFETY.md says before
# anything moves, like the light curtain and the lid), the I2C bus and the ADC.
KEPT = ("status_light",) + _hal.SAFETY_SIGNALS


def _plain_outputs(tracks):
    out = []
    for n in range(1, tracks + 1):
        out += ["gate%d" % n, "stacker%d" % n, "pusher%d" % n]
    return out


def _inputs(tracks):
    """[(signal, what the person does, level at rest)] in the order the survey asks."""
    rows = [
        ("guard_curtain", "put a hand into the light curtain, then take it out", 1),
        ("lid", "open the lid, then close it", 1),
        ("lift_bottom", "lift the lift off its bottom switch by hand (or press the switch's "
                        "lever the other way), then let it back", 0),
        ("lift_top", "press the lift's top switch by hand, then let go", 1),
        ("door_closed", "push the centre door's closed switch off (or its lever), then let go", 0),
        ("door_open", "press the centre door's open switch, then let go", 1),
        ("mixer_empty", "cover the mixer-empty sensor with a hand (or uncover it), then take "
                        "the hand away", None),
    ]
    for n in range(1, tracks + 1):
        rows.append(("entry%d" % n, "hold a tile in track %d's entry beam, then take it out" % n, 1))
    rows += [("start_button", "press the start button", 1),
             ("dice_button", "press the dice button", 1)]
    return rows


# The four-port machine (issue 47; firmware/fourport): per side a feed motor, a cam
# stacker and a lift; the disc, the centre panel's lift and the dice.  Its motors by
# kind (a per-side one gets the side's number: lift2), the first motion the one its DIR
# high (or its forward relay) gives.
FOURPORT_MOTORS = (("disc", False, ()), ("feed", True, ()), ("stacker", True, ()),
                   ("lift", True, ("up", "down")), ("centre", False, ("up", "down")),
                   ("dice", False, ()))


def _fourport_inputs(tracks):
    rows = [
        ("guard_curtain", "put a hand into the light curtain, then take it out", 1),
        ("lid", "open the lid, then close it", 1),
        ("centre_closed", "push the centre panel's down switch off (or its lever), then let go", 0),
        ("centre_open", "press the centre panel's up switch, then let go", 1),
        ("disc_empty", "cover the disc-empty sensor with a hand (or uncover it), then take the "
                       "hand away", None),
    ]
    for n in range(1, tracks + 1):
        rows += [("lift%d_bottom" % n, "lift side %d's lift off its bottom switch by hand (or "
                                       "press the switch's lever the other way), then let it "
                                       "back" % n, 0),
                 ("lift%d_top" % n, "press side %d's lift top switch by hand, then let go" % n, 1),
                 ("home%d" % n, "turn side %d's stacker cam off its home switch by hand (or "
                                "press the switch's lever the other way), then back" % n, 0),
                 ("count%d" % n, "hold a tile in front of side %d's counting sensor, then take "
                                 "it away" % n, 1),
                 ("colour%d_int" % n, "hold a tile under side %d's colour sensor at the feed "
                                      "slot, then take it away" % n, None)]
    rows += [("start_button", "press the start button (a lift key)", 1),
             ("dice_button", "press the dice button", 1)]
    return rows


def family(profile):
    """The profile's mechanism family ("reference" or "fourport")."""
    return profile.get("family") or "reference"


def family_signals(profile):
    """Every signal name the profile's family maps (firmware/hal.py)."""
    names = getattr(_hal, "profile_signals", None)
    if names is not None:
        return names(profile)
    return _hal.signal_names(profile["tracks"])


def catalogue(profile):
    """The family's devices for this profile's table: {"motors": {name: motions},
    "plain": [names], "inputs": [(signal, what to do, rest)]}."""
    tracks = profile["tracks"]
    if family(profile) == "fourport":
        motors = {}
        for m, per_side, motions in FOURPORT_MOTORS:
            for n in (range(1, tracks + 1) if per_side else (None,)):
                motors[m + (str(n) if n else "")] = motions
        return {"motors": motors, "plain": [], "inputs": _fourport_inputs(tracks)}
    return {"motors": dict(REFERENCE_MOTORS), "plain": _plain_outputs(tracks),
            "inputs": _inputs(tracks)}


def answer_words(cat):
    """Every answer the person may give for an output, in words: 'lift up', 'gate 2',
    'lift 3 down', 'mixer', 'nothing'."""
    out = []
    for m, motions in cat["motors"].items():
        out += ["%s %s" % (spoken(m), w) for w in motions] if motions else [spoken(m)]
    out += [spoken(p) for p in cat["plain"]]
    return out + [NOTHING]


def spoken(signal):
    """'gate2' -> 'gate 2', 'status_light' -> 'status light', 'lift2_top' -> 'lift 2 top'."""
    out = []
    for i, ch in enumerate(signal):
        if ch == "_":
            out.append(" ")
            continue
        if ch.isdigit() and i and not signal[i - 1].isdigit() and signal[i - 1] != "_":
            out.append(" ")
        out.append(ch)
    return "".join(out)


class SurveyError(JantakuError):
    """An answer the survey refuses, or a map it cannot write: what, and what to do."""

    code = "survey_refused"
    status = 409


def parse_answer(cat, text):
    """(device, motion) of an answer in words ('lift up' -> ('lift', 'up'); 'gate 2' ->
    ('gate2', None); 'nothing' -> None); SurveyError naming the accepted words."""
    t = " ".join(str(text).lower().replace("_", " ").split())
    if t in ("", NOTHING, "none"):
        return None
    for m, motions in cat["motors"].items():
        if t == spoken(m) and not motions:
            return (m, None)
        for w in motions:
            if t == "%s %s" % (spoken(m), w):
                return (m, w)
    for p in cat["plain"]:
        if t == spoken(p) or t == p.replace("_", " "):
            return (p, None)
    raise SurveyError("%r is not a device of this table; answer one of: %s"
                      % (text, ", ".join(answer_words(cat))))


# -- the draft's channels ----------------------------------------------------------------

def channels(profile):
    """The draft's output channels, as the person wired them: [{"id", "kind", "pins",
    "names"}] with kind "hbridge" (a driver's PWM, and its DIR when the draft has one:
    pins [pwm, dir]) or "plain" (one output: pins [n]).  Pin numbers are the profile's."""
    pins = profile["pins"]
    out = []
    seen = set()
    for name in family_signals(profile):
        n = pins.get(name)
        sig = _hal.signal(name)
        if n is None or name in seen or sig is None or sig[0] not in (_hal.OUT, _hal.PWM) \
                or name in KEPT:
            continue
        if name.endswith("_pwm"):
            base = name[:-4]
            d = pins.get(base + "_dir")
            seen.update((name, base + "_dir"))
            out.append({"id": base, "kind": "hbridge", "pins": [n] + ([d] if d is not None else []),
                        "names": [name] + ([base + "_dir"] if d is not None else [])})
        elif name.endswith("_fwd") and pins.get(name[:-4] + "_rev") is not None:
            base = name[:-4]
            seen.update((name, base + "_rev"))
            out.append({"id": base, "kind": "relays", "pins": [n, pins[base + "_rev"]],
                        "names": [name, base + "_rev"]})
        elif name.endswith("_on"):
            seen.add(name)
            out.append({"id": name[:-3], "kind": "onoff", "pins": [n], "names": [name]})
        elif name.endswith(("_dir", "_rev")):
            continue  # with its _pwm, its _fwd
        else:
            seen.add(name)
            out.append({"id": name, "kind": "plain", "pins": [n], "names": [name]})
    return out


def input_pins(profile):
    """{pin number: the draft's signal} of every digital input the draft names, but the
    safety chain's (its end and the relay's feedback follow the curtain and the lid)."""
    out = {}
    for name, n in profile["pins"].items():
        sig = _hal.signal(name)
        if n is not None and sig is not None and sig[0] == _hal.IN and name not in KEPT:
            out[n] = name
    return out


def plan(profile):
    """What the survey will do on this draft (the API's {"action": "plan"}): its channels,
    its inputs and the catalogue's words; nothing moves."""
    from hostd.bringup.wiring import pin_label

    cat = catalogue(profile)
    return {
        "channels": [dict(c, labels=[pin_label(profile, n) for n in c["pins"]]) for c in channels(profile)],
        "inputs": [{"signal": s, "do": do} for s, do, _ in cat["inputs"]
                   if s in profile["pins"]],
        "input_pins": {str(n): pin_label(profile, n) for n in sorted(input_pins(profile))},
        "answers": answer_words(cat),
        "pulse_ms": PULSE_MS,
        # what a client needs to make the map from the answers (Survey(draft))
        "draft": {k: profile[k] for k in ("id", "family", "tracks", "motors", "pins",
                                          "pin_options", "hardware") if k in profile},
    }


# -- the answers and the map ---------------------------------------------------------------

class Survey:
    """The answers so far and the map they make.  ``draft``: the validated draft profile.
    Each ``*_found`` / ``output`` call either records a device or raises SurveyError
    saying why not (nothing recorded then)."""

    def __init__(self, draft):
        self.draft = draft
        self.cat = catalogue(draft)
        self.found = {}  # signal -> pin number
        self.invert = {}  # signal -> True/False where the survey could tell
        self.by_pin = {}  # pin number -> the device (a motor's name, or a signal)
        self.skipped = []  # input signals the person said the table lacks
        self.notes = []

    def label(self, n):
        from hostd.bringup.wiring import pin_label

        return pin_label(self.draft, n)

    # -- inputs
    def input_found(self, signal, watched):
        """The watch while the person acted on input ``signal``: ``watched`` is the
        daemon's answer ({"changed": [{"pin", "rest"}], ...})."""
        rows = {s: (do, rest) for s, do, rest in self.cat["inputs"]}
        if signal not in rows:
            raise SurveyError("no input %r on this table; accepted: %s" % (signal, ", ".join(rows)))
        changed = watched.get("changed") or []
        if not changed:
            raise SurveyError("%s: no input changed in %.0f s: the switch or sensor is not "
                              "wired to any input the profile names, its supply is off, or "
                              "it did not change (%s; answer skip where the table has none)"
                              % (spoken(signal), (watched.get("ms") or WATCH_MS) / 1000.0,
                                 rows[signal][0]))
        if len(changed) > 1:
            raise SurveyError("%s: %d inputs changed at once (%s): one device at a time, and "
                              "nothing else touched; try again"
                              % (spoken(signal), len(changed),
                                 ", ".join(self.label(c["pin"]) for c in changed)))
        n = changed[0]["pin"]
        self._one_answer(n, signal)
        rest = rows[signal][1]
        raw = changed[0]["rest"] ^ (1 if _hal.options(self.draft, input_pins(self.draft)[n])[0] else 0)
        self.found[signal] = n
        self.by_pin[n] = signal
        if rest is not None:
            self.invert[signal] = raw != rest
        if signal in ("guard_curtain", "lid"):
            want = self.draft["pins"].get(signal)
            if want != n:
                raise SurveyError(
                    "the %s is on %s, the profile says %s: the firmware guards every motion "
                    "with the profile's pin, so nothing moves until it is right. Put "
                    "\"%s\": %s in the profile's pins (swap with the signal that had it), "
                    "flash it, and run the survey again"
                    % (spoken(signal) if signal == "lid" else "light curtain", self.label(n),
                       self.label(want) if want is not None else "none", signal, _raw_pin(n)))
        return {"signal": signal, "pin": n, "label": self.label(n),
                "invert": self.invert.get(signal)}

    def skip(self, signal):
        """The person says the table has no such input: allowed for an optional signal."""
        if not _hal.signal(signal)[2]:
            raise SurveyError("%s is not optional: the firmware needs it (a table without one "
                              "cannot be driven safely)" % spoken(signal))
        self.skipped.append(signal)

    # -- outputs
    def output(self, channel, answers):
        """A channel's pulses and what the person said each moved: ``answers`` is a list of
        answers in words, one per pulse (``pulses(channel)``).  Records the device."""
        said = [parse_answer(self.cat, a) for a in answers]
        moved = [s for s in said if s is not None]
        where = "/".join(self.label(n) for n in channel["pins"])
        if not moved:
            raise SurveyError("%s moved nothing%s: check the driver's supply and its wiring "
                              "to the table's connector (the motors' supply must be on), then "
                              "pulse it again; a pin that drives nothing is left out of the map"
                              % (where, " either way" if len(said) > 1 else ""))
        devices = {s[0] for s in moved}
        if len(devices) > 1:
            raise SurveyError("%s: the answers name %s: one channel drives one device; pulse "
                              "it again and watch" % (where, " and ".join(sorted(devices))))
        dev = moved[0][0]
        motors = self.cat["motors"]
        if channel["kind"] == "plain":
            if dev in motors:
                raise SurveyError("%s is one output (a MOSFET or relay) and it moved the %s: "
                                  "a motor of this family is driven by a driver's PWM and DIR "
                                  "(docs/RETROFIT.md); check the wiring" % (where, spoken(dev)))
            self._one_answer(channel["pins"][0], dev)
            self.found[dev] = channel["pins"][0]
            self.by_pin[channel["pins"][0]] = dev
            return {"device": dev, "pins": {dev: channel["pins"][0]}}
        if dev not in motors:
            raise SurveyError("%s is a motor's channel and it moved %s: check the wiring (a "
                              "coil belongs on a MOSFET's output)" % (where, spoken(dev)))
        suffixes = SUFFIXES[channel["kind"]][:len(channel["pins"])]
        names = [dev + sfx for sfx in suffixes]
        if names[0] not in family_signals(self.draft):
            raise SurveyError("%s is %s, and the profile drives the %s otherwise (its "
                              "\"motors\" section): wire the %s to a channel of its kind, or "
                              "say in the profile how it is driven"
                              % (where, KIND_WORDS[channel["kind"]], spoken(dev), spoken(dev)))
        if names[0] in self.found:
            raise SurveyError("the %s was already found on %s: two channels cannot both drive "
                              "it; pulse %s again and watch"
                              % (spoken(dev), self.label(self.found[names[0]]), where))
        motions = motors[dev]
        pins = list(channel["pins"])
        out = {"device": dev}
        if motions and len(pins) > 1:
            first = [s[1] if s is not None else None for s in said]  # per pulse
            if channel["kind"] == "hbridge":  # DIR low, then high: high is motions[0]
                votes = set()
                if first[1] is not None:
                    votes.add(first[1] != motions[0])
                if first[0] is not None:
                    votes.add(first[0] == motions[0])
                if len(votes) > 1 or (first[0] is not None and first[0] == first[1]):
                    raise SurveyError("the %s went %s both ways: its DIR does not reach the "
                                      "driver of %s (or the driver ignores it); check the DIR "
                                      "wire, then pulse it again"
                                      % (spoken(dev), first[0] or first[1], where))
                inv = votes.pop()
                self.invert[names[1]] = inv
                out["invert"] = inv
            else:  # a relay pair: its forward, then its reverse, each alone
                if first[0] is not None and first[0] == first[1]:
                    raise SurveyError("the %s went %s with either relay of %s: they do not "
                                      "reverse it; check the pair's wiring"
                                      % (spoken(dev), first[0], where))
                if first[0] == motions[1] or first[1] == motions[0]:
                    pins.reverse()  # the relay that gives motions[0] is the forward one
                    out["swapped"] = True
        for n in pins:
            self._one_answer(n, dev)
        out["pins"] = {}
        for name, n in zip(names, pins):
            self.found[name] = n
            self.by_pin[n] = dev
            out["pins"][name] = n
        return out

    def _one_answer(self, n, device):
        had = self.by_pin.get(n)
        if had is not None and had != device:
            raise SurveyError("%s was already found to be the %s: one pin, one device; if that "
                              "answer was wrong, start the survey again"
                              % (self.label(n), spoken(had)))
        for sig, pin in self.found.items():
            if sig == device and pin != n:
                raise SurveyError("the %s was already found on %s: two pins cannot both be it; "
                                  "try again and watch (or press) only that one"
                                  % (spoken(device), self.label(pin)))

    def inputs_at_rest(self, watched):
        """The inputs' levels with the table at rest (a short watch's ``rest``), read once
        the profile names them right: whether each is wired the other way round (a
        normally-closed switch).  Its pulls are the right ones then: a switch to ground
        read with another signal's pull-down reads low whatever it does."""
        rest = watched.get("rest") or {}
        for signal, _, want in self.cat["inputs"]:
            n = self.draft["pins"].get(signal)
            if want is None or n is None or str(n) not in rest:
                continue
            raw = rest[str(n)] ^ (1 if _hal.options(self.draft, signal)[0] else 0)
            self.invert[signal] = raw != want

    def inputs_moved(self):
        """An input found elsewhere than the draft says, or the other way round (invert)."""
        pins = self.draft["pins"]
        for name, n in self.found.items():
            sig = _hal.signal(name)
            if sig is None or sig[0] != _hal.IN:
                continue
            if pins.get(name) != n:
                return True
            if name in self.invert and self.invert[name] != bool(_hal.options(self.draft, name)[0]):
                return True
        return False

    def keep_draft(self, part):
        """The part not surveyed ("inputs" or "outputs") keeps the draft's pins."""
        pins = self.draft["pins"]
        kinds = (_hal.IN,) if part == "inputs" else (_hal.OUT, _hal.PWM)
        for name, n in pins.items():
            sig = _hal.signal(name)
            if n is not None and sig is not None and sig[0] in kinds:
                self.found[name] = n
                self.by_pin[n] = name

    # -- the map
    def missing(self):
        """Required signals of the family not found yet."""
        out = []
        for name in family_signals(self.draft):
            kind, _, optional = _hal.signal(name)
            if kind not in (_hal.OUT, _hal.PWM, _hal.IN) or optional or name in KEPT:
                continue
            if name not in self.found:
                out.append(name)
        return out

    def pins_map(self, raw_pins):
        """The new ``pins`` section (raw form) from the draft's raw ``pins``: every found
        signal on its pin (with the invert found, else the draft's option for that signal),
        optional signals not found null, I2C and ADC signals as the draft has them.
        SurveyError naming what is missing."""
        miss = self.missing()
        if miss:
            raise SurveyError("not found yet: %s; nothing written (answer the survey for "
                              "them, or fix their wiring)" % ", ".join(spoken(s) for s in miss))
        new = {}
        for name, v in raw_pins.items():
            sig = _hal.signal(name)
            if sig is None or sig[0] in (_hal.I2C, _hal.ADC) or name in KEPT:
                new[name] = v
                continue
            n = self.found.get(name)
            if n is None:
                new[name] = None
                continue
            opts = dict(v) if isinstance(v, dict) else {}
            opts.pop("pin", None)
            opts.pop("expander", None)
            if name in self.invert:
                opts["invert"] = self.invert[name]
            if not opts.get("invert"):
                opts.pop("invert", None)
            base = _raw_pin(n)
            if not opts:
                new[name] = base
            elif isinstance(base, dict):
                new[name] = dict(base, **opts)
            else:
                new[name] = dict(opts, pin=base)
        return new


def _raw_pin(n):
    """A pin number as a profile writes it: n, or {"expander": e, "pin": p}."""
    if n >= _hal.EXPANDER_PINS:
        k = n - _hal.EXPANDER_PINS
        return {"expander": k >> 4, "pin": k & 15}
    return n


# a channel's signal suffixes, by how it is driven (firmware/fourport/pins.py DRIVES)
SUFFIXES = {"hbridge": ("_pwm", "_dir"), "relays": ("_fwd", "_rev"), "onoff": ("_on",)}
KIND_WORDS = {"hbridge": "a driver's PWM and DIR", "relays": "a reversing pair of relays",
              "onoff": "one on/off output (a relay, an SSR or a MOSFET)"}


def pulses(channel):
    """The pulses of a channel: [(pin, hold or None)]: a driver's PWM with its DIR low, then
    with it held high; a relay pair's forward, then its reverse; one output alone."""
    if channel["kind"] == "hbridge" and len(channel["pins"]) > 1:
        return [(channel["pins"][0], None), (channel["pins"][0], channel["pins"][1])]
    if channel["kind"] == "relays":
        return [(channel["pins"][0], None), (channel["pins"][1], None)]
    return [(channel["pins"][0], None)]
