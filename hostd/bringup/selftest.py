"""`jantaku selftest`: every device of the board, in a safe order (layer: table client's
user; docs/FIRMWARE.md §3.4).

Order: the guard first (curtain, lid: nothing moves unless both read safe); then what only
reads (end switches, entry beams, colour sensors with no tile under them, the lift current
at rest, buttons); then short pulses (mixer, stackers, pushers, status light); then the
gates with tiles (STACK_CHECK tiles each: the mixer offers, the gate opens, the entry beam
counts the tiles, the stacker stacks them off the ramp, the gate closes on that count);
then one lift stroke (up and down, timed; it also raises the gate test's tiles to the
table top) and one door stroke (open and close, timed; with the centre open, people push
the test's tiles back in).

Each device is reported ok (confirmed: a reading within the profile's value, or a motion
something sensed), failed, absent, or pulsed (it was pulsed and nothing confirms that it
moved: watch or listen).  A pulse is confirmed later where the table can tell: the mixer
by tiles reaching the entries in the gate test, a track's stacker by the count (more tiles
entered than its ramp holds unstacked), the lift's motor by its end switches and current;
a device that should have moved and did not is failed.  Nothing reads ok that did not
move: with the motors' supply off every motion fails or stays pulsed.

Every step goes through the table client's verbs (TableClient.self_test, build, raise
walls, door), so the firmware's own guard and timeouts keep every motion safe.
"""
import asyncio

from hostd.errors import BadRequest
from hostd.table.link import CommandRejected
from hostd.table.client import TableFault
from protocol import messages as m

# the gate test's tiles per track: two stacks, more than a ramp holds unstacked (the
# reference table's ramp holds three), so the count confirms the track's stacker
STACK_CHECK = 4
GATE_WAIT_S = 8.0  # table seconds for them to reach an open gate (offers are 0.25..0.95 s apart)
TEST_BUILD_ID = 65000  # the gate test's build (sessions number theirs from 1)
RESULT = {m.TEST_PASS: "ok", m.TEST_FAIL: "failed", m.TEST_ABSENT: "absent"}
#: the results a device can have: ok (confirmed), failed, absent, pulsed (not confirmed)
RESULTS = ("ok", "failed", "absent", "pulsed")
PULSED = "pulsed (not confirmed): nothing senses it; watch or listen"
# a motor's current sense confirms it ran: its peak this much over the reading at rest
# (u16 counts; the sense's noise is a few hundred)
CURRENT_SEEN = 2000

# device name -> (kind, per track?, what it is)
DEVICES = {}
for _k in range(1, len(m.DEVICES)):
    DEVICES[m.DEVICES[_k]] = (_k, _k in m.TRACK_DEVICES)
READINGS = ("curtain", "lid", "lift_bottom", "lift_top", "door_closed", "door_open", "mixer_empty",
            "entry", "colour", "lift_current", "start_button", "dice_button", "home")
# devices of one mechanism family only (docs/FIRMWARE.md §11): a four-port side's cam home switch
FAMILY_ONLY = {"home": "fourport"}
PULSES = ("mixer", "stacker", "pusher", "status_light")
MOTIONS = ("gate", "lift", "door")  # need tiles or move a big part: the guard must be safe
# asked for alone, with a person at the table: the guard really stops the lift (a test rod
# put into the light curtain while it rises, as `jantaku selftest --device guard_stop` says)
WITH_PEOPLE = ("guard_stop",)
ORDER = READINGS + PULSES + MOTIONS + WITH_PEOPLE
# a motion's test: SelfTest's method (a new motion adds an entry)
MOTION_TESTS = {"gate": "_gates", "lift": "_lift", "door": "_door", "guard_stop": "_guard_stop"}
GUARD_SAFE_WAIT_S = 60.0  # table seconds for the person to step back afterwards
# a limit switch's reading with its part at rest (lift down, door closed), and what it
# means when it reads otherwise
AT_REST = {
    "lift_bottom": (1, "the lift's bottom switch is not pressed with the lift at rest: the lift "
                       "is not down, or the switch is broken"),
    "lift_top": (0, "the lift's top switch reads pressed with the lift at rest: a stuck switch"),
    "door_closed": (1, "the door's closed switch is not pressed: the door is open, or the switch "
                       "is broken"),
    "door_open": (0, "the door's open switch reads pressed with the door closed: a stuck switch"),
}


def accepted_devices():
    return ", ".join(ORDER)


def check_request(device, track, tracks):
    """BadRequest naming what is wrong (nothing moves on bad input)."""
    if device is not None and device not in ORDER:
        raise BadRequest("unknown device %r; accepted: %s" % (device, accepted_devices()))
    if track is not None:
        if device is None or device not in DEVICES or not DEVICES[device][1]:
            raise BadRequest("--track goes with a per-track device (gate, entry, colour, stacker, "
                             "pusher), got %s" % (device or "no --device"))
        if not isinstance(track, int) or not 1 <= track <= tracks:
            raise BadRequest("track %r is not a track of this table; accepted: 1..%d" % (track, tracks))


def _entry(device, track, result, reading=None, profile=None, message=None, **extra):
    e = {"device": device, "track": track, "result": result, "reading": reading,
         "profile": profile, "message": message}
    e.update(extra)
    return e


async def _nobody(push, tiles=None):
    """No people to ask (a table client alone): the centre stays open a moment."""


class SelfTest:
    def __init__(self, table, profile, *, device=None, track=None, people=None):
        self.table = table
        self.profile = profile
        self.device = device
        self.track = track
        # people(push, tiles): the centre is open while people push `push` in (the
        # daemon's state asks them, hostd/core/daemon.py people_push)
        self.people = people or _nobody
        self.pushed_back = False
        self.raised_first = None  # tiles of walls built inside, raised before the test
        self.rest_current = None  # the lift current at rest, as read
        ident = table.identity or {}
        self.ntracks = ident.get("tracks") or profile["tracks"]
        self.devices = []
        self.skipped = []
        self.measured = {}
        self.tiles_out = 0

    def wanted(self, name):
        return self.device is None or self.device == name

    def tracks(self):
        return [self.track] if self.track else list(range(1, self.ntracks + 1))

    async def run(self):
        await self.table.query_status()
        # taken as it is: the table tests its devices at rest (a table in fault: its
        # readings only, where they are)
        if self.table.walls_inside() and self.table.state != "fault":
            if not await self._walls_up_first():
                return self.report()
        guard_ok = await self._guard()
        family = self.profile.get("family") or "reference"
        for name in READINGS[2:]:
            if self.wanted(name) and FAMILY_ONLY.get(name, family) == family:
                await self._reading(name)
        motions = [n for n in PULSES + MOTIONS if self.wanted(n)]
        if self.device in WITH_PEOPLE:
            motions = list(WITH_PEOPLE)
        if motions and not guard_ok:
            self.skipped += [{"device": n, "why": "the guard is not safe (curtain or lid): nothing "
                              "moves until it is"} for n in motions]
            motions = []
        for i, name in enumerate(motions):
            if self.table.state == "fault" and name in MOTIONS:
                f = self.table.fault or {}
                self.skipped += [{"device": n, "why": "the table reports a fault (%s): fix it, "
                                  "`jantaku clear-fault`, then test again"
                                  % f.get("message", "unknown")} for n in motions[i:]]
                break
            try:
                if name in PULSES:
                    await self._pulse(name)
                else:
                    await getattr(self, MOTION_TESTS[name])()
            except (TableFault, CommandRejected) as e:
                self.devices.append(_entry(name, None, "failed", None, None,
                                           "the %s test stopped: %s" % (name, e)))
        if motions:
            await self.table.query_status()  # where the table is now (walls, counts)
        return self.report()

    async def _walls_up_first(self):
        """Walls are built inside (a session's, or a stopped build's): a lift cycle brings
        them up to the table top first (the table tests its devices at rest), when the
        guard is safe; else nothing is tested and the report says why."""
        if not all(self.table.guard.values()):
            self.skipped.append({"device": "all", "why": "walls are built inside the table and "
                                 "the guard is not safe (curtain or lid): the self-test raises "
                                 "them first once it is: clear the light curtain, close the "
                                 "lid, then test again"})
            return False
        tiles = sum(self.table.per_track())
        try:
            await self.table.bring_walls_up()
        except (TableFault, CommandRejected) as e:
            self.skipped.append({"device": "all", "why": "walls are built inside the table and "
                                 "raising them first stopped: %s: fix it, `jantaku clear-fault`, "
                                 "then test again" % e})
            return False
        self.raised_first = tiles
        await self.table.query_status()
        return True

    def report(self):
        failed = [d for d in self.devices if d["result"] == "failed"]
        pulsed = [d for d in self.devices if d["result"] == "pulsed"]
        out = {"devices": self.devices, "skipped": self.skipped, "failed": len(failed),
               "pulsed": len(pulsed), "ok": not failed and not self.skipped,
               "board": self.profile["id"], "measured": self.measured}
        if self.raised_first is not None:
            out["raised_first"] = self.raised_first
            out["walls"] = ("the walls built inside (%d tiles) came up to the table top first: "
                            "the table tests its devices at rest" % self.raised_first)
        if self.tiles_out:
            lifted = any(d["device"] == "lift" and d["result"] == "ok" for d in self.devices)
            if lifted and self.pushed_back:
                where = (", the lift stroke raised them to the table top, and people pushed them "
                         "back into the centre while the door test held it open")
            elif lifted:
                where = ", and the lift stroke raised them to the table top: put them back in the centre"
            else:
                where = (": they are inside the tracks (a lift stroke raises them: `jantaku "
                         "selftest --device lift`)")
            out["tiles"] = "%d tile(s) went through the gates for the test%s" % (self.tiles_out,
                                                                                 where)
        return out

    def _confirm(self, name, track, result, message):
        """A pulse confirmed (or found failed) by what a later test sensed: its entry of
        this run, if it was pulsed."""
        for d in self.devices:
            if d["device"] == name and d["track"] == track and d["result"] == "pulsed":
                d.update(result=result, message=message)

    # -- readings ----------------------------------------------------------------------------
    async def _guard(self):
        ok = True
        for name in ("curtain", "lid"):
            res, val = await self.table.self_test(DEVICES[name][0], 0)
            r = RESULT.get(res, "failed")
            if r == "failed":
                ok = False
            if self.wanted(name) or r == "failed":
                self.devices.append(_entry(name, None, r, val if r != "absent" else None, 1,
                                           None if r != "failed" else
                                           "reads unsafe: close the %s" % ("lid" if name == "lid"
                                                                           else "light curtain's path")))
        # the safety chain as the table reads it (protocol minor 2: SAFETY; None: not wired,
        # the simulator's allowance, or an older firmware): nothing moves with it open
        sf = self.table.safety
        if sf.get("chain") is not None:
            r = "ok" if sf["chain"] else "failed"
            if r == "failed":
                ok = False
            if self.device is None or r == "failed":
                self.devices.append(_entry("chain", None, r, 1 if sf["chain"] else 0, 1,
                                           None if r == "ok" else
                                           "the safety chain is open: release the emergency stop "
                                           "and close the lid (docs/SAFETY.md)"))
        if sf.get("relay_stuck"):
            ok = False
            self.devices.append(_entry("chain", None, "failed", None, None,
                                       "the safety relay's feedback stayed on with the chain open: "
                                       "welded contacts; replace the relay before anything moves "
                                       "(docs/SAFETY.md)"))
        return ok

    async def _reading(self, name):
        kind, per_track = DEVICES[name]
        for idx in (self.tracks() if per_track else [0]):
            res, val = await self.table.self_test(kind, idx)
            r = RESULT.get(res, "failed")
            track = idx or None
            e = _entry(name, track, r, val if r != "absent" else None)
            p = self.profile
            if name in AT_REST:
                want, message = AT_REST[name]
                e["profile"] = want
                if r == "ok" and val != want:
                    e.update(result="failed", message=message)
            elif name == "entry":
                e["profile"] = 1
                if r == "failed":
                    e["message"] = "the entry beam of track %d is dark: a tile stuck in it, or the " \
                                   "sensor is dirty or unplugged" % idx
            elif name == "colour":
                mc = p["calibration"]["min_clear"]
                e["profile"] = {"min_clear": mc}
                if r == "failed":
                    e["message"] = "the colour sensor of track %d does not answer on the I2C bus" % idx
                elif r == "ok" and val >= mc:
                    e.update(result="failed", message="the colour sensor of track %d reads clear %d "
                             "with no tile under it (at least min_clear %d): light leaks in, or a "
                             "tile is stuck under it" % (idx, val, mc))
            elif name == "lift_current":
                if r == "ok":
                    self.rest_current = val  # (the lift's stroke is held against it)
                thr = p["thresholds"]["lift_stall_current_u16"]
                e["profile"] = {"lift_stall_current_u16": thr}
                if r == "failed":
                    e["message"] = "the lift current at rest (%d) is above the stall threshold " \
                                   "(%d): a shorted motor or a broken sense" % (val, thr)
            elif name == "mixer_empty":
                e["reading"] = "empty" if val else "tiles"
            self.devices.append(e)

    # -- pulses ------------------------------------------------------------------------------
    async def _pulse(self, name):
        kind, per_track = DEVICES[name]
        t = self.profile["timings_ms"]
        prof = {"stacker": t["stacker"], "pusher": t["pusher"]}.get(name)
        for idx in (self.tracks() if per_track else [0]):
            res, val = await self.table.self_test(kind, idx)
            r = RESULT.get(res, "failed")
            if r == "ok":  # the table gave the pulse: nothing says it moved (yet)
                r = "pulsed"
            self.devices.append(_entry(name, idx or None, r, None,
                                       {"%s_ms" % name: prof} if prof else None,
                                       PULSED if r == "pulsed" else None))

    # -- gates, with tiles ---------------------------------------------------------------------
    async def _gates(self):
        res, empty = await self.table.self_test(m.D_MIXER_EMPTY, 0)
        tracks = self.tracks()
        if self.table.walls_inside():
            self.skipped += [{"device": "gate", "track": k, "why": "tiles are inside the tracks: "
                              "a lift stroke raises them first (`jantaku selftest --device "
                              "lift`)"} for k in tracks]
            return
        if res == m.TEST_PASS and empty:
            self.skipped += [{"device": "gate", "track": k, "why": "the mixer is empty: put tiles "
                              "in to test the gates"} for k in tracks]
            return
        targets = [STACK_CHECK if (k + 1) in tracks else 0 for k in range(self.ntracks)]
        first = {}
        t0 = self.table.mark()

        def on_tile(i, v):
            if i == m.TILE and v[0] == TEST_BUILD_ID and v[1] not in first:
                first[v[1]] = self.table.seconds_since(t0)
            return False

        spy = self.table.expect(on_tile)
        fault = None
        task = asyncio.ensure_future(self.table.build(TEST_BUILD_ID, targets,
                                                      stacks=STACK_CHECK // 2, expect_empty=False))
        try:
            while not task.done() and self.table.seconds_since(t0) < GATE_WAIT_S:
                await self.table.pause(0.05)
            if task.done():
                try:
                    task.result()
                except TableFault as e:
                    fault = e
            else:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                await self.table.stop()
        finally:
            spy.cancel()
        if fault is not None:
            try:
                await self.table.clear_fault()
            except Exception:
                pass
        if self.table.state in ("paused", "building", "fault"):
            await self.table.abort()
        gc = self.profile["timings_ms"]["gate_close"]
        counts = {}
        for k in tracks:
            got = self.table.counts[k - 1] if k - 1 < len(self.table.counts) else []
            n = counts[k] = sum(got)
            self.tiles_out += n
            e = _entry("gate", k, "ok", None, {"gate_close_ms": gc, "wait_s": GATE_WAIT_S})
            if fault is not None and fault.track == k and fault.kind == "overfill":
                e.update(result="failed", reading={"tiles": n},
                         message="the gate of track %d did not close in time: one tile more "
                         "entered behind the count (the profile gives it %d ms)" % (k, gc))
            elif k in first:
                e["reading"] = {"first_tile_ms": int(first[k] * 1000), "tiles": n}
                e["message"] = "opened; %d tile(s) entered and the gate closed on the count" % n
            else:
                e.update(result="failed", reading={"tiles": 0},
                         message="no tile entered track %d within %.0f s with its gate open: the "
                         "gate does not open (coil, wire, driver, the solenoids' supply), or the "
                         "mouth is blocked" % (k, GATE_WAIT_S))
            self.devices.append(e)
        if fault is not None and fault.kind not in ("overfill", "build-timeout"):
            self.devices.append(_entry("gate", fault.track, "failed", None, None,
                                       "the gate test stopped: %s" % fault))
        self._confirm_by_tiles(counts)

    def _confirm_by_tiles(self, counts):
        """What the gate test's tiles confirm: the mixer turned (tiles reached the entries),
        each track's stacker stacked (more tiles entered than its ramp holds unstacked);
        what should have moved and did not fails.  {track: tiles entered}."""
        if any(counts.values()):
            self._confirm("mixer", None, "ok", "turned: tiles reached the entries in the gate "
                                               "test")
        else:
            self._confirm("mixer", None, "failed", "no tile reached any entry in %.0f s with the "
                          "gates open: the mixer does not turn (its driver, its fuse, the "
                          "motors' supply), or no gate opens" % GATE_WAIT_S)
        for k, n in counts.items():
            if n >= STACK_CHECK:
                self._confirm("stacker", k, "ok", "stacked: %d tiles entered track %d, more than "
                              "its ramp holds unstacked" % (n, k))
            elif n:
                self._confirm("stacker", k, "failed", "track %d took %d of %d tiles and no more: "
                              "they are not stacked off its ramp (the stacker, its coil, the "
                              "solenoids' supply), or its mouth is blocked" % (k, n, STACK_CHECK))

    # -- strokes ---------------------------------------------------------------------------------
    async def _lift(self):
        p = self.profile
        nominal = p["timings_ms"]["lift_stroke"]
        limit = p["timeouts_ms"]["lift"]
        stall = p.get("thresholds", {}).get("lift_stall_current_u16")
        prof = {"lift_stroke_ms": nominal, "timeout_ms": limit, "stall_current": stall}
        t0 = self.table.mark()
        # the table's own report of the upward stroke (LIFT_STROKE, protocol minor 1)
        stroke = self.table.expect(lambda i, v: i == m.LIFT_STROKE and v[0] == m.LIFT_TOP)
        top = self.table.expect(lambda i, v: i == m.LIFT_DONE and v[0] == m.LIFT_TOP)
        bottom = self.table.expect(lambda i, v: i == m.LIFT_DONE and v[0] == m.LIFT_BOTTOM)
        try:
            await self.table.link.command(m.LIFT, ())
            await top
            up = self.table.seconds_since(t0)
            await bottom
            down = self.table.seconds_since(t0) - up
        except TableFault as e:
            top.cancel()
            bottom.cancel()
            stroke.cancel()
            self.devices.append(_entry("lift", None, "failed", None, prof,
                                       "the lift stroke failed: %s" % e, fault=e.kind))
            return
        except CommandRejected as e:
            top.cancel()
            bottom.cancel()
            stroke.cancel()
            self.devices.append(_entry("lift", None, "failed", None, prof,
                                       "the table refused the lift stroke: %s" % e))
            return
        up_ms, down_ms = int(up * 1000), int(down * 1000)
        self.measured["lift_stroke_ms"] = max(up_ms, down_ms)
        peak = None
        if stroke.done() and not stroke.cancelled() and stroke.exception() is None:
            peak = stroke.result()[2]
        else:  # a firmware of protocol minor 0 reports no stroke
            stroke.cancel()
        e = _entry("lift", None, "ok", {"up_ms": up_ms, "down_ms": down_ms,
                                       "peak_current_up": peak}, prof,
                   "one stroke up and down, its end switches met" + (
                       "; its motor drew %d (at rest %d)" % (peak, self.rest_current)
                       if peak is not None and self.rest_current is not None else ""))
        rest = self.rest_current
        if peak is not None and rest is not None and peak < rest + CURRENT_SEEN:
            # the lift moved (its switches say so) and its sense saw no more than at rest
            e.update(result="failed", message="the lift made its stroke, but its current sense "
                     "read %d, no more than at rest (%d): the sense is not on the lift motor's "
                     "supply (`lift_current` or `current_adc`)" % (peak, rest))
        if peak is not None and stall and peak >= 0.8 * stall:
            e.update(result="failed", message="the upward stroke drew %d, %.0f%% of the stall "
                     "threshold %d: the lift drags (something rubbing, a worn motor)"
                     % (peak, 100.0 * peak / stall, stall))
        if max(up_ms, down_ms) > nominal * 1.25:
            e.update(result="failed", message="the stroke took %d ms, more than 1.25 x the "
                     "profile's %d ms: a weak motor, a dragging lift, or a profile to measure "
                     "again (`jantaku selftest --write-timings`)" % (max(up_ms, down_ms), nominal))
        self.devices.append(e)

    async def _door(self):
        p = self.profile
        nominal = p["timings_ms"]["door_move"]
        prof = {"door_move_ms": nominal, "timeout_ms": p["timeouts_ms"]["door"]}
        lifted = self.tiles_out and any(d["device"] == "lift" and d["result"] == "ok"
                                        for d in self.devices)
        try:
            t0 = self.table.mark()
            await self.table.open_door()
            opened = self.table.seconds_since(t0)
            if lifted:  # the centre is open: people push the test's tiles back in
                await self.people("test_tiles", self.tiles_out)
                self.pushed_back = True
            t1 = self.table.mark()
            await self.table.close_door()
            closed = self.table.seconds_since(t1)
        except (TableFault, CommandRejected) as e:
            self.devices.append(_entry("door", None, "failed", None, prof,
                                       "the door stroke failed: %s" % e,
                                       fault=getattr(e, "kind", None)))
            return
        o_ms, c_ms = int(opened * 1000), int(closed * 1000)
        self.measured["door_move_ms"] = max(o_ms, c_ms)
        e = _entry("door", None, "ok", {"open_ms": o_ms, "close_ms": c_ms}, prof,
                   "opened and closed, its end switches met")
        if max(o_ms, c_ms) > nominal * 1.25:
            e.update(result="failed", message="the door took %d ms, more than 1.25 x the profile's "
                     "%d ms" % (max(o_ms, c_ms), nominal))
        self.devices.append(e)


    async def _guard_stop(self):
        """The stop measured (docs/SAFETY.md "The stop, measured"): a person holds a test rod
        by a lift opening and confirms (the start button, or continue); the lift then rises
        and the person puts the rod into the light curtain.  The firmware times the stop
        from the break (GUARD_STOP): when its interrupt switched the motor off, and when the
        motion relay's feedback said the supply was cut (the hardware path).  The last
        movement is the motor off plus the lift's coast (safety.lift_coast_ms, measured on
        the table), the overrun in mm the stroke's speed (safety.lift_travel_mm over
        timings_ms.lift_stroke) times the time it kept moving (full speed to the motor off,
        then half of the coast).  Passed only with the relay's cut seen and both under the
        profile's limits (safety.stop_limit_ms, safety.overrun_limit_mm); then, once the
        curtain is clear again, the fault is cleared and the lift comes back down."""
        p = self.profile
        sf = p["safety"]
        stroke_ms = p["timings_ms"]["lift_stroke"]
        prof = {"lift_stroke_ms": stroke_ms, "lift_coast_ms": sf["lift_coast_ms"],
                "lift_travel_mm": sf["lift_travel_mm"], "stop_limit_ms": sf["stop_limit_ms"],
                "overrun_limit_mm": sf["overrun_limit_mm"], "relay_ms": sf["relay_ms"]}
        confirmed = await self.people("test_rod")
        if confirmed is False:
            self.devices.append(_entry("guard_stop", None, "failed", None, prof,
                                       "nobody confirmed the test rod was ready (the start button, "
                                       "or `jantaku continue`): the lift did not move"))
            return
        self.table.last_stop = None
        t0 = self.table.mark()
        top = self.table.expect(lambda i, v: i == m.LIFT_DONE and v[0] == m.LIFT_TOP)
        bottom = self.table.expect(lambda i, v: i == m.LIFT_DONE and v[0] == m.LIFT_BOTTOM)
        try:
            await self.table.link.command(m.LIFT, ())
            await top
        except TableFault as e:
            bottom.cancel()
            stopped_ms = int(self.table.seconds_since(t0) * 1000)
            if e.kind != "guard":
                self.devices.append(_entry("guard_stop", None, "failed", {"stopped_after_ms": stopped_ms},
                                           prof, "the lift stopped for another fault: %s" % e, fault=e.kind))
                return
            # the firmware's timing comes once the relays had their time
            waited = self.table.mark()
            while self.table.last_stop is None and self.table.seconds_since(waited) < 1.0:
                await self.table.pause(0.02)
            self.devices.append(self._stop_entry(self.table.last_stop, stopped_ms, prof, sf, stroke_ms))
            await self._after_guard_stop()
            return
        bottom.cancel()
        self.devices.append(_entry("guard_stop", None, "failed", {"stopped_after_ms": None}, prof,
                                   "the lift reached the top: nobody broke the light curtain while it "
                                   "rose, or the guard did not stop it (check the curtain's wiring: "
                                   "docs/COMMISSIONING.md)"))
        done = self.table.expect(lambda i, v: i == m.LIFT_DONE and v[0] == m.LIFT_BOTTOM)
        try:
            await done  # its own way back down
        except TableFault:
            pass

    @staticmethod
    def _stop_entry(stop, stopped_ms, prof, sf, stroke_ms):
        """The guard_stop entry from the firmware's GUARD_STOP (None: a firmware before
        protocol minor 2, which does not time its stops)."""
        if stop is None:
            return _entry("guard_stop", None, "failed", {"stopped_after_ms": stopped_ms}, prof,
                          "the light curtain stopped the lift %d ms into its stroke, but the table "
                          "did not time the stop (its firmware is older than protocol minor 2): "
                          "flash it again, then run this again" % stopped_ms)
        off = stop["off_ms"]
        coast = sf["lift_coast_ms"]
        last = off + coast
        speed = sf["lift_travel_mm"] / stroke_ms  # mm per ms at full speed
        overrun = round(speed * (off + coast / 2), 2)
        reading = {"stopped_after_ms": stop["at_ms"], "break_to_off_ms": round(off, 3),
                   "break_to_cut_ms": None if stop["cut_ms"] is None else round(stop["cut_ms"], 3),
                   "break_to_last_movement_ms": round(last, 3), "overrun_mm": overrun}
        problems = []
        if stop["cut_ms"] is None:
            problems.append("the safety relay's feedback never went off: the curtain is not in "
                            "the safety chain, or the relay or its feedback is not wired "
                            "(docs/WIRING.md \"The safety chain\")")
        elif stop["cut_ms"] > sf["relay_ms"] * 2 + 5:
            problems.append("the relay cut the supply %.1f ms after the break, more than twice its "
                            "%d ms (safety.relay_ms)" % (stop["cut_ms"], sf["relay_ms"]))
        if last > sf["stop_limit_ms"]:
            problems.append("the lift moved until %.1f ms after the break, over the %d ms limit "
                            "(safety.stop_limit_ms)" % (last, sf["stop_limit_ms"]))
        if overrun > sf["overrun_limit_mm"]:
            problems.append("it ran on %.2f mm, over the %.1f mm limit (safety.overrun_limit_mm)"
                            % (overrun, sf["overrun_limit_mm"]))
        said = ("the light curtain stopped the lift %d ms into its stroke: motor off %.1f ms "
                "after the break, last movement %.1f ms, overrun %.2f mm" % (stop["at_ms"], off, last,
                                                                            overrun))
        if problems:
            return _entry("guard_stop", None, "failed", reading, prof, said + "; " + "; ".join(problems))
        return _entry("guard_stop", None, "ok", reading, prof,
                      said + "; the safety relay cut the supply %.1f ms after it" % stop["cut_ms"])

    async def _after_guard_stop(self):
        """Wait for the person to step back (the curtain safe), clear the fault, and bring
        the lift to the bottom."""
        t0 = self.table.mark()
        while self.table.seconds_since(t0) < GUARD_SAFE_WAIT_S:
            try:
                await self.table.clear_fault()
                break
            except CommandRejected:  # still unsafe
                await self.table.pause(0.2)
        else:
            self.skipped.append({"device": "lift", "why": "the light curtain still reads broken: "
                                 "clear it, `jantaku clear-fault`, then `jantaku selftest --device lift`"})
            return
        await self.table.settle_after_restart()


async def run_selftest(table, profile, *, device=None, track=None, people=None):
    ident = table.identity or {}
    check_request(device, track, ident.get("tracks") or profile["tracks"])
    return await SelfTest(table, profile, device=device, track=track, people=people).run()
