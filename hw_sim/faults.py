# Fault injection (docs/SIMULATOR.md "Faults").
#
# SPEC = KIND[:key=value[,key=value]...], e.g. "jam:track=2,after=40",
# "guard:during=door", "noise:rate=1e-4".  Every key is optional: a bare kind
# picks a sensible moment (a bare "guard" breaks the curtain half-way through
# the first lift).  parse() raises ValueError naming the bad part and listing
# what is accepted.  Faults draw from the FAULT stream only, so a fault never
# shifts the mixing, offer or noise streams.
#
# Counting: builds are numbered 1.. in the order the table starts them (a
# build starts when the mixer starts with no build open: a Mixed Deck split's
# two builds first, rebuilds after a fault too); "after" counts tiles into
# that build, all tracks together.
from hw_sim import rng as _rng
from hw_sim.lines import NEVER, EventSource

# kind -> {key: default}; None = "not set" (the kind picks).
KINDS = {
    "jam": {"track": 1, "build": 1, "after": 40, "count": 0},
    "missing-tile": {"build": 1, "count": 1, "face": None, "set": None},
    "extra-tile": {"build": 1, "count": 1, "face": None, "set": None},
    "gate-slow": {"track": 0, "build": 1, "after": 0, "count": 1},
    "misread": {"track": 0, "build": 1, "after": 4, "count": 1, "rate": 0.0},
    "lift-stall": {"build": 1, "at": None, "dir": "up", "ms": 0, "track": 0},
    "limit-stuck": {"build": 1, "switch": "top", "state": None, "ms": 0, "track": 0},
    "guard": {"build": 1, "during": "lift", "at": None, "ms": 200, "input": "curtain"},
    "reset": {"build": 1, "after": 60, "during": None, "at": None},
    "unplug": {"build": 1, "after": 40, "ms": 3000, "during": None, "at": None},
    "noise": {"rate": 0.0001, "build": 0, "after": 0, "ms": 0},
    "dead-gate": {"track": 1},
    "supply-off": {"ms": 0},
    # the four-port family's (docs/SIMULATOR.md §9); `track` is the side
    "count-double": {"track": 1, "build": 1, "after": 0, "count": 0},
    "count-miss": {"track": 1, "build": 1, "after": 0, "count": 0},
    "feed-slow": {"track": 0, "build": 1, "after": 0, "count": 1},
    "dead-feed": {"track": 1},
}
# a four-port kind that is a reference kind at the pins (the feed is the side's gate)
ALIAS = {"feed-slow": "gate-slow", "dead-feed": "dead-gate"}

KIND_ORDER = ("jam", "missing-tile", "extra-tile", "gate-slow", "misread", "lift-stall",
              "limit-stuck", "guard", "reset", "unplug", "noise", "dead-gate", "supply-off",
              "count-double", "count-miss", "feed-slow", "dead-feed")

# key -> (type, description) ; type: int, float, or a tuple of accepted words
KEYS = {
    "track": ("int", "a track number 1..T (misread, gate-slow: leave out for any track)"),
    "build": ("int", "a build number 1.. (noise: 0 = from the start; lift-stall, limit-stuck, guard and reset or unplug with during: 0 = the first such motion, with or without a build, e.g. a session start's push window or a self-test)"),
    "after": ("int", "tiles into that build, all tracks together, 0.."),
    "count": ("int", "how many, 0.. (jam: back-offs that clear it, 0 = never; gate-slow: slow closes, 0 = every one in that build; misread: tiles, 0 = no limit)"),
    "rate": ("float", "a probability 0..1 (misread: per tile; noise: bit error rate)"),
    "ms": ("int", "a duration in milliseconds (0 = for good where a duration is optional)"),
    "at": ("int", "milliseconds into the motion"),
    "face": ("str", "a tile face, e.g. 5m"),
    "set": ("str", "a set's back colour (one of the profile's colours)"),
    "dir": (("up", "down"), "up or down"),
    "switch": (("top", "bottom"), "top or bottom"),
    "state": (("pressed", "open"), "pressed (stays 0) or open (never closes)"),
    "during": (("lift", "door"), "lift or door"),
    "input": (("curtain", "lid"), "curtain or lid"),
}

DESCRIPTIONS = {
    "jam": "a tile sticks in track N's beam (entry stays 0); cleared by `count` pusher back-offs (0 = never)",
    "missing-tile": "`count` tiles taken out of the mixer when build N starts (the set is short)",
    "extra-tile": "`count` surplus tiles put into the mixer when build N starts",
    "gate-slow": "a de-energised gate (track N, or the first to close) stays open until one more tile has entered (`count` closes, 0 = all in that build)",
    "misread": "the colour reading of a tile falls between the classes",
    "lift-stall": "an obstruction `at` ms into the first stroke after build N starts: current high, the limit never reached",
    "limit-stuck": "a lift limit switch stays pressed or never closes, from the first stroke after build N starts",
    "guard": "the curtain (or lid) breaks `at` ms into the first lift (or door) motion after build N starts, for `ms`",
    "reset": "the controller resets (its state is lost; it boots again) when `after` tiles are in build N, or with `during`, `at` ms into the first lift (or door) motion after build N starts",
    "unplug": "the serial line is unplugged for `ms` when `after` tiles are in build N, or with `during`, `at` ms into the first lift (or door) motion after build N starts",
    "noise": "bit errors on the serial line at `rate` per bit (from the start, or from build N / after)",
    "dead-gate": "track N's gate solenoid never opens (a broken coil or wire): no tile enters that track",
    "count-double": "four-port: side N's counting sensor is set too sensitive: from `after` tiles into build N it pulses twice for a tile (`count` tiles, 0 = until a person fixes it: hand op fix-count)",
    "count-miss": "four-port: side N's counting sensor is set too dull: from `after` tiles into build N it misses a tile (`count` tiles, 0 = until fix-count); the colour sensor still sees it",
    "feed-slow": "four-port: a side's feed (N, or the first to stop) coasts on until one more tile has come in (`count` stops, 0 = all in that build)",
    "dead-feed": "four-port: side N's feed motor never turns (a broken motor or wire): no tile reaches that side",
    "supply-off": "the motors' and solenoids' supply is off from the start (for `ms`, 0 = for good): no motor turns and no solenoid pulls in, whatever the controller drives; what only reads (switches, beams, sensors, the curtain) works",
}


def accepted_kinds():
    return ", ".join(KIND_ORDER)


def accepted_keys(kind):
    out = []
    for k in KINDS[kind]:
        out.append(k + " (" + KEYS[k][1] + ")")
    return "; ".join(out)


class Fault:
    def __init__(self, kind, params, spec):
        self.kind = kind
        self.p = params
        self.spec = spec
        self.fired = []  # virtual us of each firing
        self.notes = []
        self.done = False
        self.remaining = 0

    def get(self, key):
        return self.p[key]

    def report(self):
        out = {"spec": self.spec, "kind": self.kind, "fired_s": [t / 1e6 for t in self.fired]}
        if self.notes:
            out["notes"] = list(self.notes)
        return out


def _bad(spec, part, why, accepted):
    return ValueError("fault %r: %s %s; accepted: %s" % (spec, part, why, accepted))


def parse(spec, *, tracks=4, colours=None):
    """One SPEC -> Fault (ValueError naming the bad part and what is accepted)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("fault %r: empty; accepted: KIND[:key=value[,key=value]...] with KIND one of %s" % (spec, accepted_kinds()))
    s = spec.strip()
    parts = s.split(":", 1)
    kind = parts[0].strip()
    if kind not in KINDS:
        raise _bad(spec, "kind " + repr(kind), "is unknown", "KIND[:key=value,...] with KIND one of " + accepted_kinds())
    params = {}
    for k in KINDS[kind]:
        params[k] = KINDS[kind][k]
    given = {}
    if len(parts) > 1:
        body = parts[1].strip()
        if not body:
            raise _bad(spec, "the part after ':'", "is empty", "key=value[,key=value]... with keys " + accepted_keys(kind))
        for item in body.split(","):
            item = item.strip()
            kv = item.split("=", 1)
            if len(kv) != 2 or not kv[0].strip() or not kv[1].strip():
                raise _bad(spec, "part " + repr(item), "is not key=value", "key=value with keys " + accepted_keys(kind))
            key = kv[0].strip()
            val = kv[1].strip()
            if key not in KINDS[kind]:
                raise _bad(spec, "key " + repr(key), "is not a key of " + kind, accepted_keys(kind))
            if key in given:
                raise _bad(spec, "key " + repr(key), "is given twice", "each key once")
            given[key] = True
            params[key] = _convert(spec, kind, key, val, tracks, colours)
    _defaults(kind, params, given)
    return Fault(kind, params, s)


def _convert(spec, kind, key, val, tracks, colours):
    typ, desc = KEYS[key]
    part = "%s=%s" % (key, val)
    if typ == "int":
        try:
            v = int(val)
        except ValueError:
            raise _bad(spec, repr(part), "is not an integer", desc)
        if v < 0:
            raise _bad(spec, repr(part), "is negative", desc)
        if key == "track" and not (1 <= v <= tracks):
            raise _bad(spec, repr(part), "is not a track of this table", "a track number 1..%d" % tracks)
        if key == "build" and v < 1 and kind not in ("noise", "lift-stall", "limit-stuck", "guard",
                                                     "reset", "unplug"):
            raise _bad(spec, repr(part), "is not a build number", "a build number 1..")
        if key == "ms" and v < 1 and kind in ("guard", "unplug"):
            raise _bad(spec, repr(part), "is not a duration", "a duration of at least 1 ms")
        return v
    if typ == "float":
        try:
            v = float(val)
        except ValueError:
            raise _bad(spec, repr(part), "is not a number", desc)
        if not (0.0 <= v <= 1.0):
            raise _bad(spec, repr(part), "is out of range", desc)
        return v
    if typ == "str":
        if key == "set" and colours is not None and val not in colours:
            raise _bad(spec, repr(part), "is not one of the profile's colours", ", ".join(colours))
        return val
    if val not in typ:
        raise _bad(spec, repr(part), "is not accepted", desc)
    return val


def _defaults(kind, p, given):
    if kind in ("reset", "unplug") and p["build"] == 0 and p["during"] is None:
        raise ValueError("fault %r: 'build=0' is not a build number without during; "
                         "accepted: a build number 1.., or build=0 with during=lift|door (the "
                         "first such motion)" % (kind + ":build=0",))
    if kind == "limit-stuck" and p["state"] is None:
        p["state"] = "open" if p["switch"] == "top" else "pressed"
    if kind == "misread" and "count" not in given and p["rate"] > 0:
        p["count"] = 0


# the hooks a kind's faults are consulted at (FaultPlan's lists, by the kind after ALIAS);
# a kind not here picks by its parameters (_hooks)
_HOOKS = {"jam": ("entry",), "misread": ("entry",), "missing-tile": ("build_start",),
          "extra-tile": ("build_start",), "gate-slow": ("build_start", "entry"),
          "lift-stall": ("lift",), "limit-stuck": ("lift",), "count-double": ("count", "entry"),
          "count-miss": ("count", "entry"), "supply-off": ("supply_off",), "dead-gate": ()}


def _hooks(k, p):
    h = _HOOKS.get(k)
    if h is not None:
        return h
    if k == "noise":  # from the session's start, or as a tile of its build enters
        return ("session",) if p["build"] == 0 else ("entry",)
    if k == "guard":
        return ("lift",) if p["during"] == "lift" else ("door",)
    if k != "reset" and k != "unplug":
        return ()
    if p["during"] is None:  # a reset or an unplug as a tile enters, else during a motion
        return ("entry",)
    return ("lift",) if p["during"] == "lift" else ("door",)


def _at_ms(p, stroke_us):
    """A motion fault's `at`: ms into the motion that starts (default: half its stroke)."""
    at = p["at"]
    return stroke_us // 2000 if at is None else at


class FaultPlan(EventSource):
    """The faults of a session, consulted by the table at its hook points."""

    def __init__(self, faults, *, seed, tracks, colours=None):
        self.rng = _rng.Rng(seed, _rng.FAULT)
        self.tracks = tracks
        self.faults = []
        for f in faults:
            if isinstance(f, str):
                f = parse(f, tracks=tracks, colours=colours)
            self.faults.append(f)
        self.count = []  # count-double, count-miss (four-port sides)
        self.entry = []
        self.build_start = []
        self.lift = []
        self.door = []
        self.session = []
        self.dead = [False] * (tracks + 1)  # dead-gate, by track number
        self.supply_off = []  # supply-off: the motors' supply cut at the start
        for f in self.faults:
            k = ALIAS.get(f.kind, f.kind)
            for hook in _hooks(k, f.p):
                getattr(self, hook).append(f)
            if k == "dead-gate":
                self.dead[f.p["track"]] = True
                f.fired.append(0)
                f.done = True
            if k == "misread" or k == "gate-slow":
                f.remaining = f.p["count"]
        for f in self.faults:
            f.base = ALIAS.get(f.kind, f.kind)
        self.slow = [0] * (tracks + 1)  # armed slow closes per track, [tracks] = any track (-1 = every one)
        self.slow_build = [0] * (tracks + 1)
        self.slow_used = 0
        self._ev = []  # [time, callback-name, fault]
        self.next_us = NEVER
        self.table = None

    # -- scheduled follow-ups (replug, noise off, unstick...) ------------------
    def _at(self, t, what, f):
        ev = self._ev
        i = len(ev)
        while i > 0 and ev[i - 1][0] > t:
            i -= 1
        ev.insert(i, [t, what, f])
        self.next_us = ev[0][0]
        self._times[self._slot] = self.next_us
        self._mark.dirty = True

    def fire(self, now):
        ev = self._ev
        while ev and ev[0][0] <= now:
            e = ev.pop(0)
            self._follow_up(e[1], e[2], now)
        self.next_us = ev[0][0] if ev else NEVER
        self._times[self._slot] = self.next_us
        self._mark.dirty = True

    def _follow_up(self, what, f, now):
        t = self.table
        if what == "replug":
            if t.wire is not None:
                t.wire.replug()
        elif what == "noise_off":
            if t.wire is not None:
                t.wire.set_noise(0.0)
        elif what == "unstall":
            lf = getattr(f, "lift", None) or t.lift
            lf.block_hi = NEVER
            lf.block_lo = -1
            lf.on_output(0, lf.duty)  # re-evaluate the motion
        elif what == "reset":
            t.request("reset")
        elif what == "unplug":
            if t.wire is None:
                f.notes.append("no serial line in this runner")
            else:
                t.wire.unplug(now, -1)
                self._at(now + f.p["ms"] * 1000, "replug", f)
        elif what == "unstick":
            (getattr(f, "lift", None) or t.lift).free_switches()
        elif what == "supply_on":
            t.set_supply(True)

    # -- hooks ----------------------------------------------------------------
    def start(self, table):
        self.table = table
        for f in self.session:
            self._noise_on(f, table.clock.us)
        for f in self.supply_off:
            now = table.clock.us
            f.fired.append(now)
            f.done = True
            table.set_supply(False)
            if f.p["ms"]:
                self._at(now + f.p["ms"] * 1000, "supply_on", f)

    def _noise_on(self, f, now):
        t = self.table
        f.fired.append(now)
        f.done = True
        if t.wire is None:
            f.notes.append("no serial line in this runner")
            return
        t.wire.set_noise(f.p["rate"])
        if f.p["ms"]:
            self._at(now + f.p["ms"] * 1000, "noise_off", f)

    def on_build_start(self, n, now):
        t = self.table
        for f in self.build_start:
            if f.done or f.p["build"] != n:
                continue
            if f.base == "gate-slow":
                if f.p["after"] == 0:
                    self._arm_slow(f, now)
                continue
            f.done = True
            f.fired.append(now)
            if f.kind == "missing-tile":
                self._missing(f)
            else:
                self._extra(f)

    def on_build_end(self, n):
        for k in range(self.tracks + 1):
            if self.slow_build[k] == n:
                self.slow[k] = 0

    def _arm_slow(self, f, now):
        f.done = True
        f.fired.append(now)
        k = f.p["track"] - 1 if f.p["track"] else self.tracks
        c = f.p["count"]
        self.slow[k] = c if c > 0 else -1
        self.slow_build[k] = self.table.nbuilds

    def _pick(self, ids, face, colour):
        t = self.table
        cands = []
        for i in ids:
            if face is not None and t.tiles.faces[i] != face:
                continue
            if colour is not None and t.tiles.colour(i) != colour:
                continue
            cands.append(i)
        if not cands:
            return -1
        return cands[self.rng.below(len(cands))]

    def _missing(self, f):
        t = self.table
        for _ in range(f.p["count"]):
            tile = self._pick(t.mixer.contents(), f.p["face"], f.p["set"])
            if tile < 0:
                f.notes.append("no matching tile in the mixer")
                break
            t.mixer.remove(tile)
            t.lost.append(tile)
            f.notes.append("took %s (%s)" % (t.tiles.faces[tile], t.tiles.colour(tile)))

    def _extra(self, f):
        t = self.table
        new = []
        for _ in range(f.p["count"]):
            like = self._pick(t.mixer.contents(), f.p["face"], f.p["set"])
            face = f.p["face"]
            if face is None:
                face = t.tiles.faces[like] if like >= 0 else "1m"
            if f.p["set"] is not None:
                back = t.tiles.colours.index(f.p["set"]) + 1
            elif like >= 0:
                back = t.tiles.backs[like]
            else:
                back = 1
            tile = t.tiles.add(face, back)
            new.append(tile)
            f.notes.append("added %s (%s)" % (face, t.tiles.colours[back - 1]))
        t.mixer.add(new)

    def on_entry(self, k, tile, now, build_n, before):
        """A tile enters track k (0-based) as tile number before+1 of build
        build_n.  Returns (jam, misread, jam_count).  Each kind's part is a method,
        found by the kind in _ENTRY."""
        jam = False
        misread = False
        need = 0
        for f in self.entry:
            if f.done:
                continue
            p = f.p
            if p["build"] != build_n:
                continue
            kind = f.kind
            # jam and misread hit the tile after the after-th; the others
            # happen as the after-th tile enters
            if kind == "jam" or kind == "misread":
                if before < p["after"]:
                    continue
            elif before + 1 < p["after"]:
                continue
            hit = _ENTRY[kind](self, f, p, k, now)
            if hit == _JAM:
                jam = True
                need = p["count"]
            elif hit == _MISREAD:
                misread = True
        return jam, misread, need

    # -- a tile's entry, one method a kind (_ENTRY; each: f, p, track k, now -> _JAM,
    # _MISREAD or 0)
    def _entry_jam(self, f, p, k, now):
        if p["track"] - 1 != k:
            return 0
        f.done = True
        f.fired.append(now)
        return _JAM

    def _entry_misread(self, f, p, k, now):
        if p["track"] and p["track"] - 1 != k:
            return 0
        if p["rate"] > 0 and not self.rng.chance(_rng.prob_u32(p["rate"])):
            return 0
        f.fired.append(now)
        if f.remaining > 0:
            f.remaining -= 1
            if f.remaining == 0:
                f.done = True
        return _MISREAD

    def _entry_slow(self, f, p, k, now):
        self._arm_slow(f, now)
        return 0

    def _entry_count(self, f, p, k, now):
        if p["track"] - 1 != k:
            return 0
        f.done = True
        f.fired.append(now)
        tr = self.table.tracks[k]
        if hasattr(tr, "set_count_fault"):
            tr.set_count_fault(1 if f.kind == "count-double" else 2, p["count"])
        else:
            f.notes.append("not a four-port side: no counting sensor to set")
        return 0

    def _entry_reset(self, f, p, k, now):
        f.done = True
        f.fired.append(now)
        self.table.request("reset")
        return 0

    def _entry_unplug(self, f, p, k, now):
        f.done = True
        f.fired.append(now)
        w = self.table.wire
        if w is None:
            f.notes.append("no serial line in this runner")
        else:
            w.unplug(now, -1)
            self._at(now + p["ms"] * 1000, "replug", f)
        return 0

    def _entry_noise(self, f, p, k, now):
        self._noise_on(f, now)
        return 0

    def slow_close(self, k):
        """Gate k is de-energised: does it stay open for one more tile?  (Called
        from the controller's output path: allocates nothing.)"""
        s = self.slow[k]
        if s == 0:
            k = self.tracks
            s = self.slow[k]
            if s == 0:
                return False
        if s > 0:
            self.slow[k] = s - 1
        self.slow_used += 1
        return True

    def on_lift_start(self, now, up, builds, lift=None):
        """A lift stroke starts (lift: a four-port side's lift, else the table's one).
        Each kind's part is a method, found by the kind in _LIFT."""
        t = self.table
        lf = lift if lift is not None else t.lift
        side = getattr(lf, "side", 0)
        for f in self.lift:
            if f.done or builds < f.p["build"]:
                continue
            p = f.p
            if side and f.kind in ("lift-stall", "limit-stuck") and (p["track"] or 1) != side:
                continue  # another side's lift
            if side and f.kind not in ("lift-stall", "limit-stuck") and side != 1:
                continue  # a guard, reset or unplug: once, at the first lift's start
            f.lift = lf
            _LIFT[f.kind](self, f, p, now, up, lf)

    # -- a lift stroke's start, one method a kind (_LIFT; each: f, p, now, up, the lift)
    def _lift_stall(self, f, p, now, up, lf):
        if (p["dir"] == "up") != bool(up):
            return
        f.done = True
        f.fired.append(now)
        at = _at_ms(p, lf.S)
        if up:
            lf.block_hi = lf.pos + at * 1000
        else:
            lf.block_lo = lf.pos - at * 1000
        lf.on_output(0, lf.duty)
        if p["ms"]:
            self._at(now + p["ms"] * 1000, "unstall", f)

    def _lift_limit_stuck(self, f, p, now, up, lf):
        if not up:
            return
        f.done = True
        f.fired.append(now)
        level = 0 if p["state"] == "pressed" else 1
        lf.force_switch(p["switch"] == "top", level)
        if p["ms"]:
            self._at(now + p["ms"] * 1000, "unstick", f)

    def _lift_guard(self, f, p, now, up, lf):
        if not up:
            return
        f.done = True
        f.fired.append(now)
        at = _at_ms(p, lf.S)
        self.table.panel.break_guard(now + at * 1000, p["ms"], p["input"])

    def _lift_reset(self, f, p, now, up, lf):  # reset or unplug, during=lift
        if not up:
            return
        f.done = True
        self._arm_reset(f, now, lf.S)

    def on_door_start(self, now, builds):
        t = self.table
        for f in self.door:
            if f.done or builds < f.p["build"]:
                continue
            f.done = True
            if f.kind == "reset" or f.kind == "unplug":
                self._arm_reset(f, now, t.door.S)
                continue
            at = _at_ms(f.p, t.door.S)
            f.fired.append(now)
            t.panel.break_guard(now + at * 1000, f.p["ms"], f.p["input"])

    def _arm_reset(self, f, now, stroke_us):
        """A reset (or an unplug) `at` ms into the motion that starts now (default: half
        its stroke)."""
        at = _at_ms(f.p, stroke_us)
        f.fired.append(now + at * 1000)
        self._at(now + at * 1000, f.kind, f)

    def report(self):
        out = []
        for f in self.faults:
            out.append(f.report())
        return out


# the hooks' parts by kind (FaultPlan's methods, found once: a new kind adds an entry)
_JAM = 1
_MISREAD = 2
_ENTRY = {"jam": FaultPlan._entry_jam, "misread": FaultPlan._entry_misread,
          "gate-slow": FaultPlan._entry_slow, "feed-slow": FaultPlan._entry_slow,
          "count-double": FaultPlan._entry_count, "count-miss": FaultPlan._entry_count,
          "reset": FaultPlan._entry_reset, "unplug": FaultPlan._entry_unplug,
          "noise": FaultPlan._entry_noise}
_LIFT = {"lift-stall": FaultPlan._lift_stall, "limit-stuck": FaultPlan._lift_limit_stuck,
         "guard": FaultPlan._lift_guard, "reset": FaultPlan._lift_reset,
         "unplug": FaultPlan._lift_reset}


def grammar():
    """The SPEC grammar as text (CLI help, docs)."""
    lines = ["KIND[:key=value[,key=value]...]", ""]
    for k in KIND_ORDER:
        d = KINDS[k]
        keys = []
        for key in d:
            keys.append("%s=%s" % (key, "(auto)" if d[key] is None else d[key]))
        lines.append("%-12s %s" % (k, DESCRIPTIONS[k]))
        lines.append("%-12s keys: %s" % ("", ", ".join(keys)))
    return "\n".join(lines)
