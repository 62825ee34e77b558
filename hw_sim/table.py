# The physical table, composed (docs/SIMULATOR.md): mixer, tracks, lift, door,
# guard panel and I2C bus for a board profile and two tile sets, driven by a
# virtual clock.  It knows nothing of the controller but its pins.
#
# Time is integer microseconds.  Every mechanism keeps `next_us` (its next
# event, NEVER if none) and fire(now); advance_to(t) fires, in time order,
# every event up to t.  Level changes reach the controller's IRQ handlers
# synchronously at their instant.
#
# Initial state (DESIGN §2): normal rotation, the first set (the profile's
# first colour, "blue") in the mixer and the second on the table top; Mixed
# Deck, both sets in the mixer.  The table top holds the walls raised; the lift
# raises the walls built inside to the top.  The centre door drops only the
# tiles people pushed onto its plate (`plate`): the simulated players
# (`players="auto"`) push in whatever was on the table top when the door began
# to open (the played hand; walls that arrive while it is open are the next
# hand's), before it is open; `players="manual"` pushes nothing by itself:
# `push()` is a person's hands.
from hw_sim import faults as _faults
from hw_sim.clock import VirtualClock
from hw_sim.door import Door
from hw_sim.guard import Panel
from hw_sim.i2c import Bus, Mcp23017
from hw_sim.lift import Lift
from hw_sim.lines import NEVER, IN, OUT, PWM, Epoch, EventMark, Line, KIND_NAMES
from hw_sim.mixer import Mixer
from hw_sim.power import Power
from hw_sim.tiles import Tiles
from hw_sim.reference.track import Track

# The simulator's own model (not the board profile: the profile is what the
# controller believes; these are the table's physics).  DESIGN §2 timings.
PLAYERS = ("auto", "manual")  # the simulated people around the table
# what a person's hands do to fix what a fault left (Table.hand)
HAND_OPS = ("clear-jam", "put-tile", "take-tile", "take-stray", "clear-guard", "clear-lift",
            "fix-switch", "plug", "fix-count")
# each op's method of Table (Table.hand)
_HAND = {"clear-jam": "_clear_jam", "put-tile": "_put_tile", "take-tile": "_take_tile",
         "take-stray": "_take_stray", "clear-guard": "_clear_guard", "clear-lift": "_clear_lift",
         "fix-switch": "_fix_switch", "plug": "_plug", "fix-count": "_fix_count"}

SIM_DEFAULTS = {
    "offer_mean_ms": 600,  # a track is offered a tile every 0.6 s on average...
    "offer_min_ms": 250,  # ...never less than 0.25 s apart (the ring's pitch)
    "beam_ms": 30,  # a tile darkens the entry beam ~30 ms
    "beam_jitter_ms": 4,  # +- (BEAM stream)
    "bounce": 0.05,  # chance of a contact bounce on a beam edge (BEAM stream)
    "bounce_us": 300,
    "sensor_lag_ms": 5,  # a tile is under the colour sensor from entry + 5 ms
    "ramp_tiles": 3,  # tiles the ramp holds between the mouth and the stacker
    "sensor_tile_per_cycle": 600,  # clear counts per 2.4 ms integration cycle, gain 1
    "sensor_ambient_per_cycle": 30,
    "limit_zone_ms": 20,  # an end switch is pressed within this of its end
    "door_zone_ms": 10,
    "current": {"idle": 2000, "run": 22000, "stall": 60000, "noise": 800},
    # the sets' true back colours: None = the board profile's references (the
    # table as the profile believes it), or [[name, [r, g, b]], [name, [r, g, b]]]
    # normalised (`sim serve --set-colour pink=0.45,0.25,0.30`): the sets are then
    # named by these, whatever the firmware's profile calls its classes
    "set_colours": None,
    # per-track sensor variation: each track's sensor reads every channel off by
    # a fixed -N..+N per mille (drawn per track from the seed) ...
    "sensor_bias_pm": 0,
    # ... and drifts by up to -N..+N per mille more per 1000 reads (a dirty sensor)
    "sensor_drift_pm": 0,
    # the watchdog's hold bridged (a bench without a controller toggling it: the physics'
    # own tests drive the lines by hand): the relays follow the chain alone
    "watchdog_jumper": False,
}


def check_set_colours(sc):
    """[[name, [r, g, b]] x 2] checked (ValueError naming what is wrong and what is
    accepted); returns it with r, g, b normalised to sum 1."""
    acc = "two sets, each NAME=r,g,b with r, g, b between 0 and 1 (normalised: summing to about 1)"
    if not isinstance(sc, (list, tuple)) or len(sc) != 2:
        raise ValueError("set colours: got %r; accepted: %s" % (sc, acc))
    out = []
    for item in sc:
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise ValueError("set colour %r: accepted: %s" % (item, acc))
        name, rgb = item[0], item[1]
        if not isinstance(name, str) or not name or name == "unknown" or "," in name or "=" in name:
            raise ValueError("set colour name %r: accepted: a name of letters, not 'unknown'" % (name,))
        if not isinstance(rgb, (list, tuple)) or len(rgb) != 3:
            raise ValueError("set colour %s: %r is not three numbers; accepted: %s" % (name, rgb, acc))
        for v in rgb:
            if not isinstance(v, (int, float)) or not (0.0 <= v <= 1.0):
                raise ValueError("set colour %s: %r is out of range; accepted: %s" % (name, v, acc))
        s = rgb[0] + rgb[1] + rgb[2]
        if not (0.9 <= s <= 1.1):
            raise ValueError("set colour %s: r+g+b = %.3f; accepted: %s" % (name, s, acc))
        out.append([name, [rgb[0] / s, rgb[1] / s, rgb[2] / s]])
    if out[0][0] == out[1][0]:
        raise ValueError("set colours: both sets are named %s; accepted: two different names" % out[0][0])
    return out


class ColourModel:
    """Per colour class (0 = ambient, 1.. = profile colours) the true r, g, b of
    a back in per mille, and for misreads a point between two classes."""

    def __init__(self, profile, set_colours=None):
        cols = profile["colours"]
        refs = profile.get("calibration", {}).get("refs", {})
        if set_colours:
            cols = [set_colours[0][0], set_colours[1][0]]
            refs = {set_colours[0][0]: set_colours[0][1], set_colours[1][0]: set_colours[1][1]}
        self.names = list(cols)
        self.ref = [[333, 334, 333]]
        for c in cols:
            r = refs.get(c)
            if r is None:
                self.ref.append([333, 334, 333])
            else:
                self.ref.append([int(r[0] * 1000 + 0.5), int(r[1] * 1000 + 0.5), int(r[2] * 1000 + 0.5)])
        self.misread = [[333, 334, 333]]
        n = len(cols)
        for i in range(1, n + 1):
            a = self.ref[i]
            b = self.ref[(i % n) + 1] if n > 1 else [333, 334, 333]
            self.misread.append([(a[0] + b[0]) // 2, (a[1] + b[1]) // 2, (a[2] + b[2]) // 2])


class Build:
    def __init__(self, n, start_us, tracks):
        self.n = n
        self.start_us = start_us
        self.tiles = []
        for _ in range(tracks):
            self.tiles.append([])
        self.count = 0
        # one int per offer: (t - start) << 13 | count before << 5 | status << 3 | track
        # (status 0 = taken, 1 = gate closed, 2 = blocked; count saturates at 255)
        self.offers = []
        self.supply = 0
        self.last_mech_us = start_us
        self.closed_us = -1
        self.mixed = False

    def offer_list(self):
        """The offers decoded: [(t_us, track 0-based, status, count before)]."""
        out = []
        for v in self.offers:
            out.append(((v >> 13) + self.start_us, v & 7, (v >> 3) & 3, (v >> 5) & 0xFF))
        return out

    def add_offer(self, t_us, k, status, count):
        """Record one offer (tests build synthetic histories with this)."""
        self.offers.append(((t_us - self.start_us) << 13) | (min(count, 255) << 5) | (status << 3) | k)


def _set_faces(s, back, colours):
    """A set is its list of faces (its back the class by its place: set 1 class 1, set 2
    class 2) or {"faces": [...], "back": colour name}: two sets may have the same back."""
    if isinstance(s, dict):
        name = s.get("back")
        if name not in colours:
            raise ValueError("a set's back colour must be one of the profile's colours (%s), got %r"
                             % (", ".join(colours), name))
        return s["faces"], colours.index(name) + 1
    return s, back


class Table:
    def __init__(self, profile, sets, *, seed=0, faults=(), mixed_deck=False, clock=None,
                 sim=None, table_stacks=None, keep_builds=None, wire=None, players="auto"):
        if len(sets) != 2:
            raise ValueError("a table takes two tile sets (lists of faces), got %d" % len(sets))
        if players not in PLAYERS:
            raise ValueError("players must be %s, got %r" % (" or ".join(PLAYERS), players))
        self.profile = profile
        self.seed = seed
        self.players = players
        self.mixed_deck = bool(mixed_deck)
        self.clock = clock if clock is not None else VirtualClock()
        self.sim = {}
        for k in SIM_DEFAULTS:
            self.sim[k] = SIM_DEFAULTS[k]
        if sim:
            for k in sim:
                if k not in SIM_DEFAULTS:
                    raise ValueError("unknown simulator option %r; accepted: %s" % (k, ", ".join(sorted(SIM_DEFAULTS))))
                self.sim[k] = sim[k]
        s = self.sim
        self.ntracks = profile["tracks"]
        self.max_stacks = table_stacks if table_stacks else profile["max_stacks"]
        timings = profile["timings_ms"]
        self.stacker_us = timings["stacker"] * 1000
        self.pusher_us = timings["pusher"] * 1000
        if s["set_colours"]:
            s["set_colours"] = check_set_colours(s["set_colours"])
        colours = ColourModel(profile, s["set_colours"])
        names = colours.names  # the sets' backs: the set colours' names, else the profile's
        self.tiles = Tiles(names)
        ncol = len(names)
        self.set_ids = [self.tiles.add_set(*_set_faces(sets[0], 1, names)),
                        self.tiles.add_set(*_set_faces(sets[1], 2 if ncol > 1 else 1, names))]
        self.lines = {}
        self.inputs = Epoch()  # bumped by every input level change
        self.wire = wire  # hw_sim.wire.Wire for unplug/noise faults, or None
        self.actions = []
        self.lost = []  # tiles taken away by faults
        # tiles a person took out: of the mixer (hand("take-tile")), or strays off the
        # table top (hand("take-stray"))
        self.taken = []
        self.faults = _faults.FaultPlan(faults, seed=seed, tracks=self.ntracks, colours=colours.names)
        # mechanisms, of the profile's family (docs/SIMULATOR.md §9)
        self.family = profile.get("family") or "reference"
        fourport = self.family == "fourport"
        self.tracks = []
        for n in range(1, self.ntracks + 1):
            if fourport:
                from hw_sim.fourport.side import Side

                self.tracks.append(Side(self, n, seed=seed, timings=timings, sim=s, colours=colours,
                                        motors=profile["motors"], strokes_per_stack=profile["strokes_per_stack"]))
            else:
                self.tracks.append(Track(self, n, seed=seed, timings=timings, sim=s, colours=colours))
        off_min = s["offer_min_ms"] * 1000
        off_max = (2 * s["offer_mean_ms"] - s["offer_min_ms"]) * 1000
        if off_max < off_min:
            raise ValueError("offer_mean_ms must be at least offer_min_ms")
        self.offer_min_us = off_min
        self.offer_max_us = off_max
        # inertia: each axis coasts for the profile's figure once its power goes
        # (safety.lift_coast_ms, door_coast_ms: measured on the real table, docs/SAFETY.md)
        sf = profile.get("safety") or {}
        lift_coast = sf.get("lift_coast_ms", 0) * 1000
        door_coast = sf.get("door_coast_ms", 0) * 1000
        self.lifts = []  # the four-port machine's lifts, one per side
        self.fourport = None  # its parts (hw_sim/fourport/compose.py)
        if fourport:
            from hw_sim.fourport.compose import FourPort

            self.fourport = FourPort(self, profile, seed=seed, sim=s, lift_coast=lift_coast,
                                     door_coast=door_coast)
        else:
            self.mixer = Mixer(self, seed=seed, tracks=self.ntracks, offer_min_us=off_min, offer_max_us=off_max)
            self.lift = Lift(self, seed=seed, stroke_us=timings["lift_stroke"] * 1000,
                             zone_us=s["limit_zone_ms"] * 1000, current=s["current"], coast_us=lift_coast)
            self.door = Door(self, move_us=timings["door_move"] * 1000, zone_us=s["door_zone_ms"] * 1000,
                             coast_us=door_coast)
            self.dice = None
        self.axes = (self.lifts if fourport else [self.lift]) + [self.door]
        self.panel = Panel(self)
        # the motors' and solenoids' supply: 24 V, the safety chain's relays, the
        # watchdog's hold (hw_sim/power.py): one model every reader asks
        self.power = Power(self, profile, self.panel, jumper=s["watchdog_jumper"])
        i2c = profile.get("i2c", {})
        cur = profile.get("current_adc")
        self.bus = Bus(mux_addr=i2c.get("mux_addr", 0x70), sensor_addr=i2c.get("sensor_addr", 0x29),
                       sensors=[t.sensor for t in self.tracks],
                       ads_addr=cur["addr"] if cur else None, ads_source=self.lift)
        self.expanders = []
        for k, e in enumerate(profile.get("expanders") or []):
            x = Mcp23017(self, k)
            self.expanders.append(x)
            self.bus.devices[e["addr"]] = x
        self.components = ([self.mixer] + self.tracks + (self.lifts or [self.lift])
                           + [self.door, self.panel, self.power, self.faults])
        # the earliest next_us of the components, cached until one changes
        # (hw_sim.lines.EventMark): next_ev holds while evmark is clean (a runner's
        # loop reads it then; next_event_us() refreshes it)
        self.evmark = EventMark()
        self.next_ev = NEVER
        self.times = [c.next_us for c in self.components]
        for i, c in enumerate(self.components):
            c.attach_events(self.evmark, self.times, i)
        # pins by number (the profile's map), and how each is wired where the profile
        # says (pin_options: an inverted signal, a pull of its own)
        self.pin_names = {}
        for name, num in profile["pins"].items():
            if num is not None:
                self.pin_names[num] = name
        self._pin_options = profile.get("pin_options") or {}
        for num, name in self.pin_names.items():  # the expanders' pins (numbers >= 256)
            if num >= 0x100 and name in self.lines:
                k = num - 0x100
                self.expanders[k >> 4].attach(k & 15, self.lines[name], self.wire_invert(name))
        # tiles: DESIGN §2 initial state
        self.top_walls = []  # walls raised (lists per track of stacks)
        self.top_loose = []  # tiles on the table top that are not raised walls
        self.plate = []  # tiles pushed onto the centre door: they fall when it opens
        self._push_loads = None  # auto players: the walls to push in at this opening
        self.pushes = 0
        if self.mixed_deck:
            self.mixer.add(self.set_ids[0] + self.set_ids[1])
        else:
            self.mixer.add(list(self.set_ids[0]))
            self.top_loose = list(self.set_ids[1])
        # builds and records
        self.keep_builds = None if keep_builds is None else max(1, keep_builds)
        self.builds = []
        self.build = None
        self.nbuilds = 0
        self.dropped_builds = 0
        self.safety = []
        self._pending = {}  # axis -> the guard break record waiting for its motor to stop
        self.guard_violations = []
        self.wiring = []  # controller configuration mismatches seen by the stand-ins
        self.hand_overs = 0
        self.faults.start(self)
        self._looked = self._sight()  # what a person saw when they last looked (look())

    # -- a person watching and touching the table (the wiring survey's rehearsal) ------------
    def _sight(self):
        """What a person can see: each axis's position (ms of travel), the mixer's (the
        disc's) starts, and how often each other motor's or coil's line changed."""
        four = self.profile.get("family") == "fourport"
        st = {("disc" if four else "mixer"): self.mixer.starts,
              ("centre" if four else "door"): self.door.position_ms()}
        lifts = getattr(self, "lifts", None) or [self.lift]
        for k, lf in enumerate(lifts):
            st["lift%d" % (k + 1) if four else "lift"] = lf.position_ms()
        for name, ln in self.lines.items():
            base = name
            for sfx in ("_on", "_pwm", "_fwd", "_rev"):
                if name.endswith(sfx):
                    base = name[:-len(sfx)]
            if base in st or base == "mixer" or base == "door" or (base == name and ln.kind != OUT):
                continue
            if base == name and not base.startswith(("gate", "stacker", "pusher")):
                continue  # (a direction, the status light, the watchdog)
            st["line:" + base] = st.get("line:" + base, 0) + ln.changes
        return st

    def look(self):
        """What a person watching the table saw move since they last looked, in the wiring
        survey's words (hostd/bringup/survey.py): [{"device", "motion"}]: the mixer (the
        disc) turned, a lift went up or down, the door opened or closed (the centre panel
        went up or down), a coil pulled in or a motor without an end ran (a feed, a cam,
        the dice: with the motors' supply on).  A motor pressing against its end moves
        nothing.  (The status light is not looked at: the firmware shows its own patterns
        on it, and the survey leaves it as the profile has it.)"""
        now = self._sight()
        was, self._looked = self._looked, now
        out = []
        for name in now:
            d = now[name] - was[name]
            if not d:
                continue
            if name.startswith("lift") or name in ("door", "centre"):
                if abs(d) >= 100.0:  # (ms of travel: a motor's last few ms after it stopped, no)
                    up, down = ("open", "close") if name == "door" else ("up", "down")
                    out.append({"device": name, "motion": up if d > 0 else down})
            elif name in ("mixer", "disc"):
                out.append({"device": name, "motion": None})
            elif self.supply:
                out.append({"device": name[5:], "motion": None})
        return out

    def hold(self, signal, ms=1000, after_ms=0):
        """A person presses a switch, covers a sensor, breaks the light curtain or opens
        the lid (input ``signal``, as the table is wired): its level the other way from
        ``after_ms`` for ``ms`` milliseconds of table time, then back."""
        ln = self.lines.get(signal)
        if ln is None or ln.kind != IN:
            raise ValueError("no input %r on this table; accepted: %s" % (
                signal, ", ".join(n for n, l in self.lines.items() if l.kind == IN)))
        if not (0 < ms <= 60000) or not (0 <= after_ms <= 60000):
            raise ValueError("ms: 1..60000 and after_ms: 0..60000, got %r and %r" % (ms, after_ms))
        at = self.clock.us + int(after_ms * 1000)
        self.panel.schedule(at, ln, 1 - ln.level)
        self.panel.schedule(at + int(ms * 1000), ln, ln.level)
        return {"signal": signal, "ms": ms, "after_ms": after_ms}

    @property
    def supply(self):
        """The drive rail is live: the mixer turns and the solenoids pull in when driven
        (the 24 V there and the safety relay K1 closed: hw_sim/power.py)."""
        return self.power.drive

    def set_supply(self, on):
        """Switch the 24 V supply itself (fault supply-off); the rails follow
        (hw_sim/power.py): what the controller drives takes effect again (or stops) at
        once."""
        self.power.set_v24(on)

    def power_changed(self, now):
        """A rail went live or dead (hw_sim/power.py): every mechanism re-evaluates what
        the controller drives."""
        self.mixer.on_output(0, self.mixer.duty)
        for axis in self.axes:
            axis.on_output(0, axis.duty)
        for tr in self.tracks:
            tr.supply_changed()

    # -- lines --------------------------------------------------------------
    def add_line(self, name, kind, level, sink=None, what=0):
        ln = Line(name, kind, level, sink, what, self.inputs)
        self.lines[name] = ln
        return ln

    def line(self, name):
        return self.lines[name]

    def complain(self, msg):
        """A controller configuration that contradicts the table's wiring."""
        if msg not in self.wiring:
            self.wiring.append(msg)

    def wire_invert(self, name):
        """1 if the signal's wire carries the opposite of its line's level."""
        o = self._pin_options.get(name)
        return 1 if o is not None and o["invert"] else 0

    def wire_pull(self, name):
        """The pull the circuit relies on where the profile says (1 up, 2 down, 0 none:
        machine.Pin's constants), else None (the table's own, docs/ARCHITECTURE.md §4)."""
        o = self._pin_options.get(name)
        if o is None or "pull" not in o:
            return None
        return {"up": 1, "down": 2}.get(o["pull"], 0)

    def line_for_pin(self, num):
        name = self.pin_names.get(num)
        if name is None:
            return None
        return self.lines.get(name)

    def kind_name(self, line):
        return KIND_NAMES[line.kind]

    def reset_outputs(self):
        """A controller reset: its pins float, the drivers' pull-downs switch
        every output off (motors stop, gates close); its IRQ handlers are gone."""
        for ln in self.lines.values():
            ln.listener = None
        for ln in self.lines.values():
            if ln.sink is not None and ln.level:
                ln.drive(0)
        for x in self.expanders:  # their RESET is wired to the controller's (docs/WIRING.md)
            x.power_on()

    # -- time ---------------------------------------------------------------
    def now_us(self):
        return self.clock.us

    def next_event_us(self):
        mark = self.evmark
        if mark.dirty:
            mark.dirty = False
            self.next_ev = n = min(self.times)
            return n
        return self.next_ev

    def advance_to(self, t):
        """Fire every event up to virtual time t, in time order, then set the
        clock to t."""
        comps = self.components
        clock = self.clock
        mark = self.evmark
        while True:
            n = self.next_event_us() if mark.dirty else self.next_ev
            if n > t or n >= NEVER:
                break
            clock.catch_up(n)
            for c in comps:
                if c.next_us <= n:
                    c.fire(n)
            mark.dirty = True
        clock.catch_up(t)

    def request(self, action):
        self.actions.append(action)

    def take_actions(self):
        if not self.actions:
            return None
        a = self.actions
        self.actions = []
        return a

    # -- builds -------------------------------------------------------------
    def on_mixer_start(self, now):
        if self.build is not None:
            return
        self.nbuilds += 1
        b = Build(self.nbuilds, now, self.ntracks)
        self.build = b
        self.builds.append(b)
        self.faults.on_build_start(self.nbuilds, now)
        b.supply = self.mixer.count()
        if self.keep_builds is not None:
            while len(self.builds) > self.keep_builds:
                self.builds.pop(0)
                self.dropped_builds += 1

    def on_mixed(self, now):
        if self.build is not None:
            self.build.mixed = True

    def log_offer(self, now, k, status):
        b = self.build
        if b is None:
            return
        c = len(b.tiles[k])
        if c > 255:
            c = 255
        b.offers.append(((now - b.start_us) << 13) | (c << 5) | (status << 3) | k)

    def on_entry(self, k, tile, now):
        b = self.build
        if b is None:
            return False, False, 0
        before = b.count
        b.tiles[k].append(tile)
        b.count += 1
        return self.faults.on_entry(k, tile, now, b.n, before)

    def on_mech(self, now):
        if self.build is not None:
            self.build.last_mech_us = now

    def on_jam_cleared(self, k, now):
        pass

    def close_build(self, now):
        b = self.build
        if b is None:
            return
        b.closed_us = now
        self.build = None
        self.faults.on_build_end(b.n)

    def walls_onto_lift(self, now):
        any_tiles = False
        for tr in self.tracks:
            if tr.has_tiles():
                any_tiles = True
        if not any_tiles:
            return None
        load = []
        for tr in self.tracks:
            load.append(tr.take_wall())
        return load

    def walls_to_top(self, load, now):
        self.top_walls.append(load)
        self.close_build(now)

    def walls_back_inside(self, load, now):
        for k in range(self.ntracks):
            self.tracks[k].put_wall(load[k])

    def door_opening(self, now):
        """The door began to open: the automatic players will push in what is on the
        table top now (the hand played), not the walls the lift brings meanwhile."""
        if self.players == "auto":
            self._push_loads = list(self.top_walls)

    def door_opened(self, now):
        if self._push_loads is not None:  # pushed while it opened (well under its travel)
            loads, self._push_loads = self._push_loads, None
            self._push(loads)
        self._drop()

    def push(self, keep=0):
        """People push the tiles on the table top onto the centre door (all but the
        `keep` newest wall loads: 1 leaves the hand being played); with the door open
        they fall into the mixer at once.  Returns how many were pushed."""
        loads = self.top_walls[:len(self.top_walls) - keep] if keep > 0 else list(self.top_walls)
        return self._push(loads)

    def _push(self, loads):
        """`loads` (wall loads on the table top) and the loose tiles onto the door."""
        n = len(self.plate)
        for load in loads:
            if load in self.top_walls:
                self.top_walls.remove(load)
                for wall in load:
                    for st in wall:
                        self.plate.extend(st)
        self.plate.extend(self.top_loose)
        self.top_loose = []
        n = len(self.plate) - n
        if n:
            self.pushes += 1
        if self.door.was_open:
            self._drop()
        return n

    def _drop(self):
        drop, self.plate = self.plate, []
        if drop:
            self.hand_overs += 1
            self.mixer.add(drop)

    def top_tiles(self):
        """Every tile on the table top: walls, loose tiles and those on the door."""
        out = list(self.top_loose)
        for load in self.top_walls:
            for wall in load:
                for st in wall:
                    out.extend(st)
        out.extend(self.plate)
        return out

    def clear_tracks(self):
        """A person clears every track by hand; the tiles go back into the
        mixer and an open build ends."""
        out = []
        for tr in self.tracks:
            out.extend(tr.clear())
        self.close_build(self.clock.us)
        self.mixer.add(out)
        return out

    # -- a person's hands (docs/SIMULATOR.md "People": the control channel) ---
    def hand(self, op, track=0, count=0, which=None, colour=None):
        """What a person does to fix what a fault left (`jantaku sim OP`, the control
        channel's ops, hw_sim/control.py): returns a dict that says what was done, or
        raises ValueError saying why there was nothing to do.

        clear-jam (track): take the stuck tile out of the track's beam (it drops onto
        the ramp); put-tile (count, 0 = all): put tiles a fault took back into the
        mixer through the lid; take-tile (count, 0 = all): take the surplus tiles (not
        of the two sets) out of the mixer; take-stray (colour, None = any; count, 0 =
        all): find the tiles not of the two sets among the table top's tiles of that back
        colour (sorting them by face: a face with a copy too many) and take them out;
        clear-guard (which: curtain, lid, None =
        both): step out of the light curtain, close the lid; clear-lift: take the
        obstruction out of the lift's way; fix-switch: free a stuck lift end switch;
        plug: plug the table's cable back in; fix-count (track, 0 = any): a four-port side's
        counting sensor turned back to its threshold."""
        name = _HAND.get(op)
        if name is None:
            raise ValueError("unknown op %r; accepted: %s" % (op, ", ".join(HAND_OPS)))
        return getattr(self, name)(self.clock.us, track, count, which, colour)

    # -- a person's hands, one method an op (HAND_OPS; each: now, track, count, which, colour)
    def _clear_jam(self, now, track, count, which, colour):
        if not (1 <= track <= self.ntracks):
            raise ValueError("no track %r; accepted: 1..%d" % (track, self.ntracks))
        if not self.tracks[track - 1].free_jam(now):
            raise ValueError("track %d is not jammed" % track)
        return {"track": track}

    def _put_tile(self, now, track, count, which, colour):
        n = len(self.lost) if count <= 0 else min(count, len(self.lost))
        if n == 0:
            raise ValueError("no tile is missing from the table")
        back, self.lost = self.lost[:n], self.lost[n:]
        self.mixer.add(back)
        return {"tiles": n}

    def _take_tile(self, now, track, count, which, colour):
        # as many tiles as the table holds beyond its two sets (or `count`): the
        # surplus ones where they are in the mixer, else tiles alike in the mixer
        # (a copy went into the walls: a person takes out the one left over)
        n_sets = len(self.set_ids[0]) + len(self.set_ids[1])
        n = count if count > 0 else len(self.tiles) - n_sets - len(self.taken)
        inside = self.mixer.contents()
        extra = [t for t in inside if t >= n_sets][:n]
        # a copy gone into the walls: the left-over tiles of its back colour first (a
        # person takes out what the count says is extra: "blue 69, expected 68")
        backs = [self.tiles.backs[t] for t in range(n_sets, len(self.tiles))
                 if t not in self.taken]
        for same in (True, False):
            for t in inside:
                if len(extra) >= n:
                    break
                if t < n_sets and t not in extra and (self.tiles.backs[t] in backs) == same:
                    extra.append(t)
        if not extra:
            raise ValueError("no surplus tile is in the mixer")
        for t in extra:
            self.mixer.remove(t)
            self.taken.append(t)
        return {"tiles": len(extra)}

    def _clear_guard(self, now, track, count, which, colour):
        p = self.panel
        if which is not None and which != "curtain" and which != "lid":
            raise ValueError("no guard input %r; accepted: curtain, lid" % (which,))
        names = []
        for name, ln in (("curtain", p.curtain), ("lid", p.lid)):
            # already cleared, from now (the table has not moved on yet)
            pending = p.scheduled(ln, 1, now)
            if (which is None or which == name) and ln.level == 0 and not pending:
                p.schedule(now, ln, 1)
                names.append(name)
        if not names:
            raise ValueError("the light curtain is clear and the lid closed"
                             if which is None else "the %s is already safe" % which)
        return {"cleared": names}

    def _clear_lift(self, now, track, count, which, colour):
        done = []
        for lf in (self.lifts or [self.lift]):  # (four-port: each side's lift)
            if lf.block_hi == NEVER and lf.block_lo == -1:
                continue
            lf.block_hi = NEVER
            lf.block_lo = -1
            lf.on_output(0, lf.duty)  # re-evaluate the motion
            done.append(lf)
        if not done:
            raise ValueError("nothing blocks the lift")
        return {"lift": "free"} if not self.lifts else {"lift": "free", "sides": [lf.side for lf in done]}

    def _fix_switch(self, now, track, count, which, colour):
        done = []
        for lf in (self.lifts or [self.lift]):
            if lf.force_lo == -1 and lf.force_hi == -1:
                continue
            lf.free_switches()
            done.append(lf)
        if not done:
            raise ValueError("no lift end switch is stuck")
        return ({"lift": "switches free"} if not self.lifts
                else {"lift": "switches free", "sides": [lf.side for lf in done]})

    def _fix_count(self, now, track, count, which, colour):
        """four-port: a person turns side `track`'s counting sensor's potentiometer back
        (0: every side's that is off)."""
        if self.fourport is None:
            raise ValueError("fix-count is the four-port machine's (its counting sensors); this "
                             "table has none")
        return self.fourport.fix_count(track)

    def _plug(self, now, track, count, which, colour):
        w = self.wire
        if w is None or w.plugged:
            raise ValueError("the table's cable is plugged in")
        w.replug()
        return {"plugged": True}

    def _take_stray(self, now, track, count, which, colour):
        names = self.tiles.colours
        if colour is not None and colour not in names:
            raise ValueError("no back colour %r; the sets' are %s" % (colour, ", ".join(names)))
        n_sets = len(self.set_ids[0]) + len(self.set_ids[1])
        found = []
        for t in self.top_tiles():
            if t >= n_sets and (colour is None or self.tiles.colour(t) == colour):
                found.append(t)
        if count > 0:
            found = found[:count]
        if not found:
            raise ValueError("no tile that is not of the sets is on the table top" + (
                "" if colour is None else " with a %s back" % colour))
        for t in found:
            self._off_top(t)
            self.taken.append(t)
        return {"tiles": len(found)}

    def _off_top(self, t):
        """Tile `t` taken off the table top (a wall's stack, the loose tiles, the door)."""
        for where in (self.top_loose, self.plate):
            if t in where:
                where.remove(t)
                return
        for load in self.top_walls:
            for wall in load:
                for st in wall:
                    if t in st:
                        st.remove(t)
                        return

    def tile_census(self):
        """Where every tile is: {place: count} and the ids that are not exactly once in
        a place (a conservation check for tests)."""
        places = {"mixer": self.mixer.contents(), "top": self.top_tiles(), "lost": self.lost,
                  "taken": self.taken}
        tracks = []
        for tr in self.tracks:
            tracks.extend(tr.wall_tiles())
            for i in range(tr.ramp_n):
                tracks.append(tr.ramp[(tr.ramp_r + i) % len(tr.ramp)])
            if tr.jam_tile >= 0:
                tracks.append(tr.jam_tile)
        places["tracks"] = tracks
        lift = []
        for lf in (self.lifts or [self.lift]):
            for wall in lf.load or ():
                for st in wall:
                    lift.extend(st)
        if self.fourport is not None:  # up already, waiting for the other sides' walls
            lift.extend(self.fourport.waiting_tiles())
        places["lift"] = lift
        seen = {}
        for name in places:
            for t in places[name]:
                seen[t] = seen.get(t, 0) + 1
        odd = [t for t in range(len(self.tiles)) if seen.get(t, 0) != 1]
        out = {}
        for name in places:
            out[name] = len(places[name])
        out["odd"] = odd
        return out

    # -- safety -------------------------------------------------------------
    def on_lift_start(self, now):
        self.faults.on_lift_start(now, self.lift.direction, self.nbuilds)

    def on_door_start(self, now):
        self.faults.on_door_start(now, self.nbuilds)
        if not self.door.was_open:
            self.door_opening(now)

    def on_guard_break(self, name, now):
        """Called just before the guard line goes unsafe (records are made
        here, outside the controller's IRQ handler)."""
        for ax in self.axes:
            if ax.motor_on:
                rec = {"input": name, "motor": ax.kind, "at_us": now, "off_us": -1, "stop_us": -1,
                       "position_ms": ax.position_ms(), "end_ms": -1.0, "moving": ax.v != 0}
                self.safety.append(rec)
                self._pending[ax] = rec

    def on_guard_restore(self, name, now):
        pass

    def on_motor(self, axis, on, now):
        if on:
            if not self.panel.safe():
                self.guard_violations.append({"motor": axis.kind, "at_us": now})
            return
        rec = self._pending.get(axis)
        if rec is not None and rec["off_us"] < 0:
            rec["off_us"] = now
        if rec is not None and axis.v == 0:
            self.on_axis_stopped(axis, now)

    def on_axis_stopped(self, axis, now):
        """An axis stopped moving (its motion or its coast ended): a guard break's record
        gets the last movement and where it came to rest."""
        rec = self._pending.get(axis)
        if rec is None or rec["off_us"] < 0:
            return  # still driven (an end reached under power): not this record's stop
        rec["stop_us"] = now
        rec["end_ms"] = axis.pos / 1000
        del self._pending[axis]

    # -- reports ------------------------------------------------------------
    def bound_us(self, b):
        """The mechanical bound of build b: the time from its start if every
        tile offered to a track that is not full had been taken at once, plus
        the last tile's stacking and push (docs/SIMULATOR.md)."""
        n = self.ntracks
        target = []
        remaining = 0
        for k in range(n):
            target.append(len(b.tiles[k]))
            remaining += target[k]
        if remaining == 0:
            return None
        supply = b.supply
        cnt = [0] * n
        done = -1
        for v in b.offers:
            k = v & 7
            if cnt[k] < target[k] and supply > 0:
                cnt[k] += 1
                supply -= 1
                remaining -= 1
                if remaining == 0:
                    done = v >> 13
                    break
        if done < 0:
            return None
        if self.family == "fourport":
            return done + self.stacker_us  # one cam stroke stacks the last tile and pushes its stack
        return done + self.stacker_us + self.pusher_us

    def missed(self, b):
        """Offers a track could have taken: its gate was closed while it was
        short of the count it finished the build with."""
        out = []
        for v in b.offers:
            k = v & 7
            c = (v >> 5) & 0xFF
            if (v >> 3) & 3 == 1 and c < len(b.tiles[k]):
                out.append({"t_s": (v >> 13) / 1e6, "track": k + 1, "count": c})
        return out

    def build_report(self, b, full=True):
        tiles = self.tiles
        cols = tiles.colours
        real = b.last_mech_us - b.start_us
        bound = self.bound_us(b)
        blocked = 0
        o = b.offers
        for v in o:
            if (v >> 3) & 3 == 2:
                blocked += 1
        per = []
        backs = []
        counts = []
        for k in range(self.ntracks):
            ids = b.tiles[k]
            c = {}
            for col in cols:
                c[col] = 0
            for t in ids:
                c[cols[tiles.backs[t] - 1]] += 1
            counts.append(c)
            if full:
                per.append([tiles.faces[t] for t in ids])
                backs.append([cols[tiles.backs[t] - 1] for t in ids])
        missed = self.missed(b)
        r = {
            "build": b.n,
            "start_s": b.start_us / 1e6,
            "end_s": b.last_mech_us / 1e6,
            "closed_s": b.closed_us / 1e6 if b.closed_us >= 0 else None,
            "build_s": real / 1e6,
            "bound_s": bound / 1e6 if bound is not None else None,
            "efficiency": (bound / real) if (bound is not None and real > 0) else None,
            "tiles_per_track": [len(b.tiles[k]) for k in range(self.ntracks)],
            "back_counts": counts,
            "supply": b.supply,
            "offers": len(o),
            "blocked_offers": blocked,
            "missed": missed,
        }
        if full:
            r["tiles"] = per
            r["backs"] = backs
        return r

    def safety_report(self):
        out = []
        for rec in self.safety:
            lat = None
            if rec["off_us"] >= 0:
                lat = (rec["off_us"] - rec["at_us"]) / 1000
            stop = None
            run_on = None
            if rec["stop_us"] >= 0:
                stop = (rec["stop_us"] - rec["at_us"]) / 1000
                run_on = abs(rec["end_ms"] - rec["position_ms"])
            out.append({"input": rec["input"], "motor": rec["motor"], "at_s": rec["at_us"] / 1e6,
                        "position_ms": rec["position_ms"], "moving": rec["moving"], "latency_ms": lat,
                        "stop_ms": stop, "run_on_ms": run_on})
        return out

    def report(self, full=True):
        builds = [self.build_report(b, full) for b in self.builds]
        missed = []
        for br in builds:
            for m in br["missed"]:
                mm = dict(m)
                mm["build"] = br["build"]
                missed.append(mm)
        lat = [s["latency_ms"] for s in self.safety_report() if s["latency_ms"] is not None]
        return {
            "seed": self.seed,
            "sim_s": self.clock.elapsed_us() / 1e6,
            "mixed_deck": self.mixed_deck,
            "builds": builds,
            "builds_started": self.nbuilds,
            "builds_dropped": self.dropped_builds,
            "safety": self.safety_report(),
            "max_safety_latency_ms": max(lat) if lat else None,
            "guard_violations": [{"motor": v["motor"], "at_s": v["at_us"] / 1e6} for v in self.guard_violations],
            "missed_tiles": missed,
            "faults": self.faults.report(),
            "mixer_tiles": self.mixer.count(),
            "table_top_tiles": len(self.top_tiles()),
            "lost_tiles": len(self.lost),
            "tracks": [tr.get_status() for tr in self.tracks],
            "lift": self._lift_status(),
            "door": self.door.get_status(),
            "guard": self.panel.get_status(),
            "wiring": list(self.wiring),
            "family": self.family,
        }

    def get_status(self):
        return {
            "now_s": self.clock.us / 1e6,
            "mixer": self.mixer.get_status(),
            "tracks": [tr.get_status() for tr in self.tracks],
            "lift": self._lift_status(),
            "door": self.door.get_status(),
            "guard": self.panel.get_status(),
            "build": self.build.n if self.build is not None else None,
            "table_top_tiles": len(self.top_tiles()),
            "plate_tiles": len(self.plate),
            "mixer_tiles": self.mixer.count(),
            "players": self.players,
            "driven": self.driven(),
            "faults": self.faults.report(),
            "safety": self.safety_report(),
            "guard_violations": len(self.guard_violations),
        }

    def _lift_status(self):
        return self.lift.get_status() if self.fourport is None else self.fourport.lift_status()

    def driven(self):
        """The actuators the controller is driving now, by line name: motor PWMs
        above 0, solenoids (gates, stackers, pushers) energised.  Empty: nothing
        moves.  Direction lines, the status light and the watchdog are not actuators."""
        out = []
        for name, ln in self.lines.items():
            if ln.level and (ln.kind == PWM or (ln.kind == OUT and not name.endswith("_dir")
                                                and name != "status_light" and name != "watchdog")):
                out.append(name)
        out.sort()
        return out
