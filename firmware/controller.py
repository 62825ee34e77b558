# The table's state machine (docs/FIRMWARE.md "State machine"; states and fault
# codes are protocol/messages.py's tables).
#
# The controller owns the mechanisms (mixer, tracks, lift, door, guard,
# buttons), turns commands into actions with range and state checks (each
# cmd_* returns (error code, field index)), watches the build, and reports
# through an `events` sink (the protocol endpoint; NullEvents in tests).
# Safety never waits for it: the guard IRQ stops the lift and door itself, end
# switches stop their motors in their IRQs, every motion has a timeout.
from firmware.compat import const, ticks_diff
from firmware import codes
from firmware.drivers.colour import ColourBus, Classifier
from firmware.reference.mixer import Mixer
from firmware.reference.track import Track
from firmware.reference.lift import Lift
from firmware.reference.door import Door
from firmware.drivers.safety import Safety, CURTAIN as _CURTAIN, LID as _LID, CHAIN as _CHAIN
from firmware.drivers.buttons import Buttons
from firmware.drivers import light as _light
from protocol import messages as _m

OK = _m.OK
NO_FIELD = _m.NO_FIELD

# GUARD_STOP.cut_us when the relay's feedback never fell (or there is none)
NO_CUT = 0xFFFFFFFF

# A track whose colour sensor fails this many reads in a row during a build
# is a SENSOR fault (its tiles would all read unknown).
SENSOR_ERRORS = const(3)

class NullEvents:
    """An events sink that drops everything (tests replace it with a recorder)."""

    def on_state(self, state, prev):
        pass

    def on_tile(self, build_id, track, index, colour, c, r, g, b):
        pass

    def on_track_full(self, build_id, track, count):
        pass

    def on_build_done(self, build_id, counts, mixer_empty):
        pass

    def on_lift_done(self, position):
        pass

    def on_lift_stroke(self, position, ms, peak_current):
        pass

    def on_door_state(self, state):
        pass

    def on_guard(self, curtain, lid):
        pass

    def on_guard_stop(self, motor, inp, at_ms, off_us, cut_us):
        pass

    def on_safety(self, chain, power, relay_stuck):
        pass

    def on_fault(self, code, track, detail):
        pass

    def on_self_test(self, kind, index, result, value):
        pass

    def on_button(self, button):
        pass

    def on_log(self, level, text):
        pass

    def on_pin_levels(self, count, levels):
        pass


class Controller:
    def __init__(self, profile, hal, sched, clock, *, events=None):
        self.profile = profile
        self.hal = hal  # the pin objects by signal name (the wiring survey's, firmware/survey.py)
        self.events = events if events is not None else NullEvents()
        self._sched = sched
        self._clock = clock
        self.ntracks = profile["tracks"]
        self.ncolours = len(profile["colours"])
        self.max_stacks = profile["max_stacks"]
        o = profile["timeouts_ms"]
        t = profile["timings_ms"]
        self._mixer_empty_ms = o["mixer_empty"]
        self._build_ms = o["build"]
        # "service() has work": raised by every IRQ handler, by the commands and by a
        # fault; lowered by service() before it looks (see pending())
        self.wake = sched.wake
        self.state = codes.BOOT
        self.prev_state = codes.BOOT
        self.fault = codes.FAULT_NONE
        self.fault_track = 0
        self.fault_detail = 0
        self.faults = 0
        # colour sensing: one bus, one classifier
        i2c = hal.i2c()
        cal = profile["calibration"]
        self.colour_bus = None
        self.sensors_present = 0
        if i2c is not None:
            bus = ColourBus(i2c, mux_addr=profile["i2c"]["mux_addr"], sensor_addr=profile["i2c"]["sensor_addr"],
                            channels=self.ntracks, integration_ms=cal["integration_ms"])
            self.colour_bus = bus
        self._refs = [list(cal["refs"][c]) for c in profile["colours"]]
        self._max_distance = cal["max_distance"]
        self.classifier = Classifier(self._refs, max_distance=cal["max_distance"], min_clear=cal["min_clear"])
        # a track's own references (calibration.tracks), else the table-wide classifier
        per = cal.get("tracks")
        self.track_cal = per  # [{"refs", "max_distance"}] per track, or None
        # mechanisms (each pin object was created with its output off by the app), of the
        # profile's family (docs/FIRMWARE.md §11): the same names for every family
        self.family = profile.get("family") or "reference"
        self.dice = None
        self._stops = []     # what the guard halts besides the lift and door
        self._services = []  # (pending, service) of a family's own task-context work
        if self.family == "fourport":
            from firmware.fourport import table as _fourport

            (self.mixer, self.tracks, self.lift, self.door, self.dice, self._stops,
             self._services) = _fourport.build(self, profile, hal, sched, clock, self._classifier_for)
        else:
            self.mixer = Mixer(profile, hal, wake=self.wake)
            self.tracks = []
            for n in range(1, self.ntracks + 1):
                self.tracks.append(Track(n, profile, hal, sched, clock, self,
                                         colour_bus=self.colour_bus, classifier=self._classifier_for(n)))
            self.lift = Lift(profile, hal, sched, clock, self)
            self.door = Door(profile, hal, sched, clock, self)
        # (track, its entry sensor) pairs: service() looks at each sensor's
        # `changed` flag after every IRQ and runs Track.service() on an edge
        self._entries = [(tr, tr.photo) for tr in self.tracks]
        # the safety layer (firmware/drivers/safety.py): any unsafe input stops the lift
        # and the door from its IRQ, the lid or the chain the mixer too; it toggles the
        # watchdog that keeps the motors' supply on.  A family's other motors (the
        # four-port disc, feeds, cams and dice: right under the table top's openings)
        # stop on any unsafe input too.
        self.guard = Safety(hal, sched, profile, motion=[self.lift, self.door] + self._stops,
                            drive=(self.mixer,), wake=self.wake)
        self.buttons = Buttons(hal, clock, wake=self.wake)
        # its patterns (firmware/drivers/light.py); a self-test pulses its pin (light.pin) directly
        self.light = _light.Light(hal.output("status_light"), sched)
        # build configuration (CONFIGURE_BUILD) and the build in progress
        self.cfg_id = 0
        self.cfg_tiles = [0] * self.ntracks
        self._no_targets = [0] * self.ntracks  # targets() when nothing is configured
        self.cfg_stacks = 0
        self.cfg_colours = []
        self.cfg_empty = False
        self.build_id = 0          # the build started last (0 = none)
        self.walls = codes.WALLS_NONE  # the walls inside: none, build_id under way, built
        self._build_left_ms = 0
        self._full_sent = [False] * self.ntracks
        self.counts_flat = [0] * (self.ntracks * (self.ncolours + 1))
        self.unknown_tiles = 0
        self.mix_ms = 0
        self._mix_default_ms = t["mix"]
        self._sensor_errors = [0] * self.ntracks
        self.link_up = False
        self.link_losses = 0
        self.lift_reached_top = False
        self._lift_from_built = False
        self._door_reported = -1
        self._guard_reported = -1
        self._safety_reported = -1
        self._test_kind = 0
        self._test_index = 0
        self._test_return = codes.IDLE
        # timers (preallocated; callbacks bound once)
        self._mix_cb = self._mix_due
        self._build_cb = self._build_due
        self._short_cb = self._short_due
        self._surplus_cb = self._surplus_due
        self._test_cb = self._test_due
        self._mix_timer = sched.timer(self._mix_cb)
        self._build_timer = sched.timer(self._build_cb)
        self._short_timer = sched.timer(self._short_cb)
        self._surplus_timer = sched.timer(self._surplus_cb)
        self._test_timer = sched.timer(self._test_cb)
        self._gstop_cb = self._gstop_due
        self._gstop_timer = sched.timer(self._gstop_cb)
        self._gstop_ms = 2 * profile["safety"]["relay_ms"] + 10
        self._gstop_motor = 0
        self._gstop_input = 0
        self._gstop_at = 0

    def _classifier_for(self, n):
        """Track n's classifier: its own references (calibration.tracks), else the table's."""
        per = self.track_cal
        if per is None:
            return self.classifier
        cal = self.profile["calibration"]
        e = per[n - 1]
        return Classifier([e["refs"][c] for c in self.profile["colours"]],
                          max_distance=e["max_distance"], min_clear=cal["min_clear"])

    # ================================================================ boot
    def boot(self):
        """Finish booting (outputs are already off): power the colour sensors,
        check the switches, enter IDLE (or FAULT)."""
        if self.colour_bus is not None:
            self.sensors_present = self.colour_bus.init()
        self._set_state(codes.IDLE)
        self._report_door()
        self._report_guard()
        if self.colour_bus is not None and self.sensors_present < self.ntracks:
            self.events.on_log(_m.LOG_WARN, "colour sensors answering: %d of %d" % (self.sensors_present, self.ntracks))
        if self.lift.axis.both_pressed():
            self._fault(codes.FAULT_LIMIT, 0, 0)
        elif self.door.axis.both_pressed():
            self._fault(codes.FAULT_DOOR, 0, 0)

    def shutdown(self):
        """Every motor and solenoid off now (no events)."""
        self.wake.up = True  # the next service() reports what stopped
        self.mixer.stop()
        self.lift.stop()
        self.door.stop()
        for tr in self.tracks:
            tr.stop()
        if self.dice is not None:
            self.dice.stop()
        self.light.off()

    # ================================================================ state
    def _set_state(self, s):
        if s == self.state:
            return
        prev = self.state
        self.prev_state = prev
        self.state = s
        self._update_light()
        self.events.on_state(s, prev)

    def _update_light(self):
        """The light's own pattern from what the firmware knows (docs/FIRMWARE.md "The
        status light"): after every state change, door change and link change."""
        s = self.state
        if s == codes.FAULT:
            p = _light.FAULT
        elif s == codes.TESTING:
            p = _light.HOLD
        elif s == codes.LIFTING or self.door.moving():
            p = _light.MOTION
        elif s == codes.BUILDING or s == codes.MIXING:
            p = _light.BUILDING
        elif s == codes.BOOT or not self.link_up:
            p = _light.OFF  # no host: nothing shows ready
        else:
            p = _light.READY  # idle, built, paused: nothing moves
        self.light.show_own(p)

    # ================================================================ task loop
    def pending(self):
        """True if service() has something to do right now.

        Nothing changes what service() would do but an IRQ (an edge: a count, a
        beam that cleared, an end switch, the guard, a button, the mixer-empty
        sensor), a command, a fault (the lift and door stop), or a motion that
        starts at its end switch; each raises `wake`.  Timers need not: their
        callbacks finish their own work (a colour read feeds the stacker, an
        arrival seen by a motion poll is serviced there).  So a lowered wake means
        service() would find nothing to do, and it is not walked."""
        return self.wake.up

    def service(self):
        """Task-context work after IRQs: run from Firmware.step() before timers.
        Returns at once when nothing raised `wake` since the last call."""
        w = self.wake
        if not w.up:
            return
        w.up = False  # lowered before looking: an IRQ from now on raises it again
        if self.guard.changed:
            self._guard_service()
        if self.guard.report_due:  # the relays' check after an edge: what it found
            self.guard.report_due = False
            self._report_guard()
        for tr, photo in self._entries:
            if photo.changed:  # an edge of its entry sensor to look at
                tr.service()
        for pending, serve in self._services:
            if pending():
                serve()
        if self.mixer.changed or self._short_timer.active:
            # the build watch: a mixer-empty edge, or (while SHORT is timed) a count
            self.mixer.changed = False
            self._watch()
        if self.lift.pending():
            self.lift.service()
        if self.door.pending():
            self.door.service()
        self._report_door()
        if self.guard.changed:
            self._guard_service()
        b = self.buttons.take()
        while b:
            if b == _m.BUTTON_DICE and self.dice is not None and self.guard.safe():
                self.dice.spin()  # the dice motor: the players' show (the throw is the host's)
            self.events.on_button(b)
            b = self.buttons.take()

    def _guard_service(self):
        self.guard.ack()
        lift_halted = self.lift.axis.halted
        door_halted = self.door.axis.halted
        mixer_halted = self.mixer.halted
        self.mixer.halted = False
        for st in self._stops:  # a family's other motors the guard stopped
            if st.halted:
                st.halted = False
                mixer_halted = True
        self._report_guard()
        s = self.state
        if lift_halted or door_halted:
            # a motion the safety layer stopped: reported with its timing once the
            # relays had their time (GUARD_STOP, protocol minor 2)
            ax = self.lift.axis if lift_halted else self.door.axis
            self._gstop_motor = 1 if lift_halted else 2
            self._gstop_input = self.guard.unsafe_bits()
            at = ticks_diff(self.guard.trip_us, ax.start_us) // 1000
            self._gstop_at = at if 0 <= at < 65535 else 65535
            self._gstop_timer.start(self._gstop_ms)
        elif not self._gstop_timer.active:
            self.guard.end_timing()  # nothing moved: no stop to measure
        if lift_halted or door_halted or (mixer_halted and (s == codes.BUILDING or s == codes.MIXING)):
            self.lift.service()
            self.door.service()
            self.lift.axis.halted = False
            self.door.axis.halted = False
            self.lift.cycling = False
            # detail: what read unsafe (CURTAIN 1, LID 2, CHAIN 4: the emergency stop)
            self._fault(codes.FAULT_GUARD, 0, self.guard.unsafe_bits())

    def _gstop_due(self):
        g = self.guard
        cut = g.cut_us if g.cut_seen else NO_CUT
        self.events.on_guard_stop(self._gstop_motor, self._gstop_input or 1, self._gstop_at, g.off_us, cut)
        g.end_timing()

    def _report_guard(self):
        st = self.guard.get_status()
        curtain = 1 if st["curtain"] else 0
        lid = 1 if (st["lid"] is None or st["lid"]) else 0
        key = curtain | (lid << 1)
        if key != self._guard_reported:
            self._guard_reported = key
            self.events.on_guard(curtain, lid)
        chain = 2 if st["chain"] is None else (1 if st["chain"] else 0)
        power = 2 if st["power"] is None else (1 if st["power"] else 0)
        stuck = 1 if st["relay_stuck"] else 0
        key = chain | (power << 2) | (stuck << 4)
        if key != self._safety_reported:
            self._safety_reported = key
            self.events.on_safety(chain, power, stuck)

    def _report_door(self):
        if not self.door.state_changed():
            return
        self._update_light()  # a door starting or ending a move
        s = self.door.state()
        if s != self._door_reported:
            self._door_reported = s
            self.events.on_door_state(s)

    # ================================================================ callbacks from mechanisms
    def on_tile(self, track, index, cls):
        bus = self.colour_bus
        k = track - 1
        self.counts_flat[k * (self.ncolours + 1) + cls] += 1
        if cls == 0:
            self.unknown_tiles += 1
        if self.build_id:
            if bus is not None:
                self.events.on_tile(self.build_id, track, index, cls, bus.c, bus.r, bus.g, bus.b)
            else:
                self.events.on_tile(self.build_id, track, index, cls, 0, 0, 0, 0)
        if bus is not None:
            if bus.c == 0 and bus.last_failed:
                self._sensor_errors[k] += 1
                if self._sensor_errors[k] >= SENSOR_ERRORS and self.state == codes.BUILDING:
                    self._fault(codes.FAULT_SENSOR, track, self._sensor_errors[k])
                    return
            else:
                self._sensor_errors[k] = 0
        if (cls and self.cfg_colours and cls not in self.cfg_colours
                and self.walls == codes.WALLS_BUILDING):
            # a tile of a colour this build does not contain: a strayed tile
            self._fault(codes.FAULT_COLOUR, track, cls)

    def on_wall_done(self, track):
        k = track - 1
        if not self._full_sent[k] and self.build_id:
            self._full_sent[k] = True
            self.events.on_track_full(self.build_id, track, self.tracks[k].count)
        if self.state == codes.BUILDING:
            self._check_complete()

    def on_track_fault(self, code, track):
        tr = self.tracks[track - 1]
        if code == codes.FAULT_JAM:
            tr.stop()
            detail = tr.jam_backoffs
        else:
            detail = tr.count
        self._fault(code, track, detail)

    def internal_fault(self, where, exc):
        """A firmware exception (a bug): everything stops, fault INTERNAL."""
        self.wake.up = True
        try:
            self.events.on_log(_m.LOG_ERROR, "internal %s %s" % (where, exc))
        except Exception:
            pass
        self._fault(codes.FAULT_INTERNAL, 0, where if isinstance(where, int) else 0)

    def on_mech_fault(self, code, track, detail):
        self._fault(code, track, detail)

    def on_lift_arrived(self, top):
        pos = _m.LIFT_TOP if top else _m.LIFT_BOTTOM
        if top:
            self.lift_reached_top = True
            # the walls are on the table top now: the tracks are empty
            self._clear_walls()
        self.events.on_lift_done(pos)
        a = self.lift.axis  # the stroke's time and peak current: table health
        ms = a.stroke_us // 1000
        self.events.on_lift_stroke(pos, ms if ms < 65535 else 65535,
                                   a.current.peak if a.current is not None else 0)
        if not top:
            if self.state == codes.LIFTING:
                self._set_state(codes.IDLE)

    def on_door_arrived(self, opened):
        self._report_door()

    # ================================================================ faults
    def _fault(self, code, track, detail):
        if self.state == codes.FAULT:
            return  # the first fault stands; later ones are consequences
        self.wake.up = True  # (from a timer too) the next service() reports the door
        self.faults += 1
        self.fault = code
        self.fault_track = track
        self.fault_detail = detail & 0xFFFFFFFF
        # everything that moves stops; tiles already inside finish their stacking
        self.mixer.stop()
        self.lift.halt()
        self.door.halt()
        self.lift.stop()
        self.door.stop()
        for tr in self.tracks:
            tr.disarm()
        self._mix_timer.cancel()
        self._short_timer.cancel()
        self._surplus_timer.cancel()
        self._pause_build_timer()
        self.events.on_fault(code, track, self.fault_detail)
        self._set_state(codes.FAULT)

    def _pause_build_timer(self):
        if self._build_timer.active:
            left = self._build_timer.remaining_us() // 1000
            self._build_left_ms = left if left > 0 else 1
            self._build_timer.cancel()

    # ================================================================ build watch
    # Event-driven (no polling): evaluated when a build starts or resumes, on
    # every mixer_empty edge (IRQ, both edges), and on each service() while the
    # SHORT timer runs (a count may have ended the shortage).  SHORT is timed
    # from the instant the mixer ran empty with a track short; a build that
    # waits for the plate to clear completes on the edge that clears it.
    def _watch(self):
        if self.state != codes.BUILDING:
            return
        empty = self.mixer.empty()
        short = False
        if empty:
            for tr in self.tracks:
                if tr.short():
                    short = True
                    break
        if short:
            if not self._short_timer.active:
                self._short_timer.start(self._mixer_empty_ms)
        else:
            self._short_timer.cancel()
        if empty and self._surplus_timer.active:
            self._surplus_timer.cancel()
            self._complete()

    def _short_due(self):
        if self.state != codes.BUILDING or not self.mixer.empty():
            return
        mask = 0
        first = 0
        for tr in self.tracks:
            if tr.short():
                mask |= 1 << (tr.num - 1)
                if not first:
                    first = tr.num
        if mask:
            self._fault(codes.FAULT_SHORT, first, mask)

    def _surplus_due(self):
        if self.state == codes.BUILDING and not self.mixer.empty():
            self._fault(codes.FAULT_SURPLUS, 0, self._mixer_empty_ms)

    def _build_due(self):
        if self.state == codes.BUILDING:
            self._fault(codes.FAULT_BUILD_TIMEOUT, 0, self._build_ms)

    def _check_complete(self):
        for tr in self.tracks:
            if not tr.wall_done:
                return
        if self.cfg_empty and not self.mixer.empty():
            # a build that should empty the mixer: wait for the plate to clear
            if not self._surplus_timer.active:
                self._surplus_timer.start(self._mixer_empty_ms)
            return
        self._complete()

    def _complete(self):
        self.mixer.stop()
        self._build_timer.cancel()
        self._short_timer.cancel()
        self._surplus_timer.cancel()
        for tr in self.tracks:
            tr.disarm()
        self.walls = codes.WALLS_BUILT
        self.events.on_build_done(self.build_id, self.counts_view(), 1 if self.mixer.empty() else 0)
        self._set_state(codes.BUILT)

    def counts_view(self):
        """Per-track per-colour counts, track-major: [t1 unknown, t1 colour 1, ...,
        t2 unknown, ...] (the list is kept up to date, not copied)."""
        return self.counts_flat

    def targets(self):
        """STATUS_REPLY.targets (SPEC §10): the configured build's tiles per track
        (one item per track of the table, 0 for a track configure_build left out)
        from configure_build on, before the build starts as while it runs; all 0
        when no build is configured.  The list is kept, not copied."""
        return self.cfg_tiles if self.cfg_id else self._no_targets

    def _clear_walls(self):
        for tr in self.tracks:
            tr.reset()
        for i in range(len(self.counts_flat)):
            self.counts_flat[i] = 0
        for i in range(self.ntracks):
            self._full_sent[i] = False
        self.walls = codes.WALLS_NONE
        self.unknown_tiles = 0

    def tracks_empty(self):
        for tr in self.tracks:
            if tr.count:
                return False
        return True

    # ================================================================ link
    def on_link_lost(self):
        """The host went silent: lift and door stop, a build pauses (counts kept)."""
        self.link_up = False
        self.link_losses += 1
        self.light.host_gone()  # the host's pattern goes with it
        if self.state == codes.TESTING and self._test_kind == 0:
            self._end_pin_pulse()  # a survey's pulse ends with its host
        self.lift.stop()
        self.door.stop()
        self._stop_step()
        self._report_door()
        self._update_light()

    def on_link_up(self, new=False):
        """The host is heard again (new: a new session, whose host set no pattern yet)."""
        self.link_up = True
        if new:
            self.light.host_gone()
            self._safety_reported = -1  # a new host: the chain's state again
            self._report_guard()
            st = self.guard.get_status()
            if st["chain"] is None or st["power"] is None or st["watchdog"] is None:
                # a profile without the safety chain's pins: the simulator's allowance
                # only (a board's main.py refuses it, naming the key); said to every host
                # session at its start
                self.events.on_log(_m.LOG_WARN, "no safety chain pins: simulator only")
        self._update_light()

    def cmd_light(self, pattern):
        """LIGHT: the host's pattern (protocol LIGHTS); never refused in any state."""
        if pattern < 0 or pattern >= len(_m.LIGHTS):
            return _m.E_RANGE, 0
        self.light.set_host(pattern)
        return OK, NO_FIELD

    # ================================================================ commands
    # Each returns (code, field): OK or an E_* code and the index of the field at
    # fault (NO_FIELD when none is).
    def cmd_configure(self, build_id, tiles, stacks, colours, empty_mixer):
        s = self.state
        if s != codes.IDLE and s != codes.BUILT and s != codes.MIXING:
            return _m.E_NOT_ALLOWED, NO_FIELD
        if len(tiles) > self.ntracks:
            return _m.E_UNSUPPORTED, 1  # more walls than the table has tracks
        if stacks > self.max_stacks:
            return _m.E_UNSUPPORTED, 2  # longer walls than the table holds
        for n in tiles:
            if n > 2 * self.max_stacks:
                return _m.E_UNSUPPORTED, 1
            if n > 2 * stacks:
                return _m.E_RANGE, 1  # more tiles than the walls' stacks hold
        for c in colours:
            if c > self.ncolours:
                return _m.E_UNSUPPORTED, 3
        self.cfg_id = build_id
        for i in range(self.ntracks):
            self.cfg_tiles[i] = tiles[i] if i < len(tiles) else 0
        self.cfg_stacks = stacks
        self.cfg_colours = list(colours)
        self.cfg_empty = bool(empty_mixer)
        return OK, NO_FIELD

    def cmd_mix(self, duration_ms):
        self.wake.up = True  # a command: the next service() looks
        s = self.state
        if s == codes.MIXING:
            self._arm_mix_timer(duration_ms)
            return OK, NO_FIELD
        if s != codes.IDLE:
            return _m.E_NOT_ALLOWED, NO_FIELD
        if not self.guard.may_drive():  # the lid open or the chain open
            return _m.E_NOT_ALLOWED, NO_FIELD
        if self.door.moving():
            return _m.E_BUSY, NO_FIELD
        for tr in self.tracks:
            tr.disarm()
        self.mixer.start()
        self._arm_mix_timer(duration_ms)
        self._set_state(codes.MIXING)
        return OK, NO_FIELD

    def _arm_mix_timer(self, duration_ms):
        if not duration_ms:
            duration_ms = self._mix_default_ms  # 0 = the board profile's default
        self.mix_ms = duration_ms
        if duration_ms:
            self._mix_timer.start(duration_ms)
        else:
            self._mix_timer.start_us(0)

    def _mix_due(self):
        if self.state == codes.MIXING:
            self._stop_mixing()

    def _stop_mixing(self):
        self.mixer.stop()
        self._mix_timer.cancel()
        self._set_state(codes.IDLE)

    def cmd_build(self, build_id):
        self.wake.up = True  # a command: the next service() looks
        s = self.state
        if s == codes.BUILDING:
            if build_id == self.build_id:
                return OK, NO_FIELD  # already building it
            return _m.E_BUSY, 0
        if not self.guard.may_drive():  # the lid open or the chain open: the mixer stays off
            return _m.E_NOT_ALLOWED, NO_FIELD
        if s == codes.PAUSED:
            if build_id != self.build_id:
                return _m.E_NOT_ALLOWED, 0
            return self._resume()
        if s != codes.IDLE and s != codes.MIXING:
            return _m.E_NOT_ALLOWED, NO_FIELD
        if build_id != self.cfg_id:
            return _m.E_NOT_ALLOWED, 0  # not the configured build
        if self.lift.moving() or self.door.moving():
            return _m.E_BUSY, NO_FIELD
        if not self.lift.at_bottom():
            return _m.E_NOT_ALLOWED, NO_FIELD
        if build_id == self.build_id and self.walls == codes.WALLS_BUILDING:
            return self._resume()  # a build aborted by a fault and cleared
        if not self.tracks_empty():
            return _m.E_NOT_ALLOWED, NO_FIELD  # walls of another build are inside
        # a fresh build
        self._clear_walls()
        self.build_id = build_id
        self.walls = codes.WALLS_BUILDING
        self._build_left_ms = self._build_ms
        for i in range(self.ntracks):
            self._full_sent[i] = False
        self._mix_timer.cancel()
        return self._run_build()

    def _resume(self):
        if self.lift.moving() or self.door.moving():
            return _m.E_BUSY, NO_FIELD
        return self._run_build()

    def _run_build(self):
        for i in range(self.ntracks):
            self.tracks[i].arm(self.cfg_tiles[i])
        self.mixer.start()
        left = self._build_left_ms if self._build_left_ms > 0 else self._build_ms
        self._build_timer.start(left)
        self._set_state(codes.BUILDING)
        for tr in self.tracks:
            if tr.over:
                self._fault(codes.FAULT_OVERFILL, tr.num, tr.count)
                return OK, NO_FIELD
        self._check_complete()
        self._watch()
        return OK, NO_FIELD

    def _pause(self):
        self.mixer.stop()
        for tr in self.tracks:
            tr.disarm()
        self._pause_build_timer()
        self._short_timer.cancel()
        self._surplus_timer.cancel()
        self._set_state(codes.PAUSED)

    def cmd_lift(self):
        self.wake.up = True  # a command: the next service() looks
        s = self.state
        if s != codes.IDLE and s != codes.BUILT:
            return _m.E_NOT_ALLOWED, NO_FIELD
        if self.lift.moving():
            return _m.E_BUSY, NO_FIELD
        if not self.guard.may_move():  # a guard input, the chain, or no motion supply
            return _m.E_NOT_ALLOWED, NO_FIELD
        code = self.lift.cycle()
        if code:
            self._fault(code, 0, 0)
            return _m.E_FAILED, NO_FIELD
        self._lift_from_built = s == codes.BUILT
        self.lift_reached_top = False
        self._set_state(codes.LIFTING)
        return OK, NO_FIELD

    def _stop_lifting(self):
        self.lift.stop()
        if self.lift_reached_top or not self._lift_from_built:
            self._set_state(codes.IDLE)
        else:
            self._set_state(codes.BUILT)

    def cmd_door(self, want_open):
        self.wake.up = True  # a command: the next service() looks
        s = self.state
        # PAUSED too: the mixer is stopped, and people may have to push tiles in
        if s != codes.IDLE and s != codes.BUILT and s != codes.LIFTING and s != codes.PAUSED:
            return _m.E_NOT_ALLOWED, NO_FIELD
        if want_open and not self.guard.may_move():
            return _m.E_NOT_ALLOWED, NO_FIELD
        if want_open:
            code = self.door.open()
        else:
            code = self.door.close()
        if code:
            self._fault(codes.FAULT_DOOR, 0, 0)
            return _m.E_FAILED, NO_FIELD
        self._report_door()
        return OK, NO_FIELD

    def cmd_stop(self):
        self.wake.up = True  # a command: the next service() looks
        s = self.state
        if s == codes.TESTING and self._test_kind == 0:
            self._end_pin_pulse()
            return OK, NO_FIELD
        self.door.stop()
        if not self._stop_step():
            self.lift.stop()
        self._report_door()
        return OK, NO_FIELD

    def _stop_step(self):
        """Stops the step under way (STOP, or the host gone): a build pauses (its counts
        kept), mixing ends, a lift cycle ends where it stands.  False if none was."""
        s = self.state
        if s == codes.BUILDING:
            self._pause()
        elif s == codes.MIXING:
            self._stop_mixing()
        elif s == codes.LIFTING:
            self._stop_lifting()
        else:
            return False
        return True

    def cmd_abort(self):
        self.wake.up = True  # a command: the next service() looks
        s = self.state
        if s == codes.TESTING and self._test_kind == 0:
            self._end_pin_pulse()  # a survey's pulse ends at once
            return OK, NO_FIELD
        if s == codes.TESTING:
            return _m.E_BUSY, NO_FIELD
        self.mixer.stop()
        self.lift.stop()
        self.door.stop()
        for tr in self.tracks:
            tr.disarm()
        self._mix_timer.cancel()
        self._build_timer.cancel()
        self._short_timer.cancel()
        self._surplus_timer.cancel()
        if self.walls == codes.WALLS_BUILDING:
            self.walls = codes.WALLS_NONE  # what it stacked stays inside, untrusted
        self._build_left_ms = 0
        self.cfg_id = 0  # the configured build is forgotten
        if s != codes.FAULT and s != codes.BUILT:
            self._set_state(codes.IDLE)
        self._report_door()
        return OK, NO_FIELD

    def cmd_clear_fault(self, code):
        self.wake.up = True  # a command: the next service() looks
        if self.state != codes.FAULT:
            return _m.E_NOT_ALLOWED, NO_FIELD
        if code != 0 and code != self.fault:
            return _m.E_NOT_ALLOWED, 0  # not the active fault
        if self.fault == codes.FAULT_GUARD and not self.guard.safe():
            return _m.E_FAILED, NO_FIELD  # still unsafe
        for tr in self.tracks:
            if tr.jammed and tr.photo.blocked():
                if self.fault == codes.FAULT_JAM:
                    return _m.E_FAILED, NO_FIELD  # the jam is still there
            tr.jammed = False
            tr.jam_backoffs = 0
        self.fault = codes.FAULT_NONE
        self.fault_track = 0
        self.fault_detail = 0
        if self.walls == codes.WALLS_BUILDING:
            self._set_state(codes.PAUSED)
        elif self.walls == codes.WALLS_BUILT:
            self._set_state(codes.BUILT)
        else:
            self._set_state(codes.IDLE)
        return OK, NO_FIELD

    # ---------------------------------------------------------------- self-test, calibration
    # (in firmware/selftest.py, imported on first use: rare commands, kept out of
    # the controller's resident code)
    def cmd_self_test(self, kind, index):
        self.wake.up = True  # a command: the next service() looks
        from firmware import selftest

        return selftest.start(self, kind, index)

    def _test_due(self):
        if self._test_kind == 0:  # a wiring survey's pin pulse (firmware/survey.py)
            from firmware import survey

            survey.finish(self)
            return
        from firmware import selftest

        selftest.finish(self, self._test_kind, self._test_index)

    # the wiring survey (firmware/survey.py, imported on first use)
    def cmd_pin_pulse(self, pin, ms, hold):
        self.wake.up = True  # a command: the next service() looks
        from firmware import survey

        return survey.pulse(self, pin, ms, hold)

    def cmd_pin_read(self, pins):
        """(code, field, levels) of PIN_READ."""
        from firmware import survey

        return survey.read(self, pins)

    def _end_pin_pulse(self):
        self._test_timer.cancel()
        from firmware import survey

        survey.finish(self)

    def begin_test(self, kind, index, ms):
        """A self-test pulse on (kind, index) for `ms` ms: `testing` until the timer
        hands it to selftest.finish, which calls end_test()."""
        self._test_kind = kind
        self._test_index = index
        self._test_return = self.state
        self._set_state(codes.TESTING)
        self._test_timer.start(ms)

    def end_test(self):
        """A self-test is over: back to the state it began in."""
        if self.state == codes.TESTING:
            self._set_state(self._test_return)

    def colour_refs(self):
        """A copy of the table-wide colour references ([r, g, b] per colour)."""
        return [list(r) for r in self._refs]

    @property
    def max_distance(self):
        """The table-wide classifier's radius (the profile's calibration.max_distance)."""
        return self._max_distance

    def set_colour_refs(self, refs):
        """New table-wide references (CALIBRATE): a new classifier, on every track."""
        self._refs = refs
        cal = self.profile["calibration"]
        self.classifier = Classifier(refs, max_distance=cal["max_distance"], min_clear=cal["min_clear"])
        for tr in self.tracks:
            tr.set_classifier(self.classifier)

    def cmd_calibrate(self, colour, track):
        self.wake.up = True  # a command: the next service() looks
        from firmware import selftest

        return selftest.calibrate(self, colour, track)

    def cmd_set_calibration(self, track, max_distance, refs, names):
        self.wake.up = True  # a command: the next service() looks
        from firmware import selftest

        return selftest.set_calibration(self, track, max_distance, refs, names)

    # ================================================================ status
    @property
    def build_active(self):
        """A build started and not yet done or aborted (it may be paused)."""
        return self.walls == codes.WALLS_BUILDING

    @property
    def built(self):
        """The walls of build_id are complete inside."""
        return self.walls == codes.WALLS_BUILT

    @property
    def paused(self):
        """A build under way that is not running (paused, or stopped by a fault)."""
        return self.walls == codes.WALLS_BUILDING and self.state != codes.BUILDING

    def get_status(self):
        return {
            "state": codes.STATES[self.state],
            "fault": codes.FAULTS[self.fault],
            "fault_track": self.fault_track,
            "fault_detail": self.fault_detail,
            "build_id": self.build_id,
            "configured": self.cfg_id,
            "paused": self.paused,
            "built": self.built,
            "targets": list(self.targets()),
            "counts": list(self.counts_flat),
            "unknown_tiles": self.unknown_tiles,
            "link_up": self.link_up,
            "mixer": self.mixer.get_status(),
            "tracks": [tr.get_status() for tr in self.tracks],
            "lift": self.lift.get_status(),
            "door": self.door.get_status(),
            "guard": self.guard.get_status(),
            "colour_sensors": self.sensors_present,
            "colour_errors": self.colour_bus.errors if self.colour_bus is not None else 0,
            "buttons": self.buttons.get_status(),
            "light": self.light.get_status(),
            "family": self.family,
        }
