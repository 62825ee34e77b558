"""The table client (layer: table client).

Turns the table's events into a current picture of the table (state, fault, counts,
lift and door) and offers the session the verbs it needs — `build`, `raise_walls`,
`settle` — each of which returns when the table has done it, or raises a TableFault
whose message a player can read.  Knows messages, never bytes; knows nothing of
rulesets.
"""
import asyncio

import structlog

from hostd.errors import BadRequest, JantakuError
from hostd.table.link import CommandRejected
from hostd.table.operations import (DOOR_QUIET_S, Build, DoorMove, LiftCycle, SelfTestStroke,
                                    failed)
from protocol import messages as m

log = structlog.get_logger("jantaku.table")

ABORT_BUSY_S = 2.0  # table seconds an abort is sent again while a self-test pulse runs

# What a player reads for each fault code (track numbers are 1..4 as on the table).
FAULT_TEXT = {
    m.F_JAM: "track {track} is jammed",
    m.F_SHORT: "the mixer ran empty before the walls were complete",
    m.F_SURPLUS: "tiles were left in the mixer after the walls were complete",
    m.F_OVERFILL: "track {track} took one tile too many",
    m.F_MISREAD: "back colours could not be read on track {track}",
    m.F_LIFT_STALL: "the lift stalled",
    m.F_LIMIT: "a lift limit switch is stuck",
    m.F_GUARD: "the guard was broken: motion stopped",
    m.F_DOOR: "the centre door did not reach its position",
    m.F_BUILD_TIMEOUT: "the build took too long",
    m.F_LINK_LOST: "the table lost contact with the host",
    m.F_RESET: "the table restarted",
    m.F_SENSOR: "a sensor on track {track} does not answer",
    m.F_COLOUR: "the colour sensor on track {track} does not answer",
    m.F_INTERNAL: "the firmware hit an internal error",
    m.F_COUNT: "track {track}'s counting sensor and its colour sensor disagree (a tile counted twice or missed)",
}


def fault_message(code, track, detail=0):
    text = FAULT_TEXT.get(code, "fault %s" % m.code_name(m.FAULTS, code))
    if code == m.F_GUARD and detail:  # what read unsafe (firmware/drivers/safety.py bits)
        # (the lid is in the chain: an open lid opens it too, so the chain alone means the
        # emergency stop)
        what = [w for bit, w in ((1, "the light curtain"), (2, "the lid"),
                                 (4, "the emergency stop: the safety chain"))
                if detail & bit and not (bit == 4 and detail & 2)]
        text = "the guard was broken (%s): motion stopped" % " and ".join(what)
    return text.format(track=track, detail=detail)


class TableFault(JantakuError):
    """The table reported a fault while doing what was asked."""

    def __init__(self, code, track, detail=0, message=None):
        super().__init__(message or fault_message(code, track, detail), code="fault_" +
                         m.code_name(m.FAULTS, code), status=409)
        self.fault = code
        self.kind = m.code_name(m.FAULTS, code).replace("_", "-")
        self.track = track or None
        self.detail = detail


class TableClient:
    def __init__(self, link, *, colours=("blue", "green"), on_event=None, on_button=None):
        self.link = link
        self._on_button = on_button  # a press of the start or dice button: "start" / "dice"
        self.colours = tuple(colours)  # class 1.. names, as the board profile orders them
        self._emit = on_event or (lambda ev: None)
        self.state = "unknown"
        self.fault = None  # {"kind", "track", "detail", "message"} while faulted
        self.lift = None  # "top" / "bottom" / None
        self.door = "unknown"
        self.guard = {"curtain": True, "lid": True}
        # the safety chain (protocol minor 2, SAFETY): None until the table says (an older
        # firmware never does); the last stop the safety layer measured (GUARD_STOP)
        self.safety = {"chain": None, "power": None, "relay_stuck": False}
        self.last_stop = None
        self.build_id = 0
        self.targets = []
        self.counts = []  # per track, per colour class (0 = unknown first)
        self._waiters = []  # (predicate, future)
        # the operations under way (hostd/table/operations.py), for _reconcile: a build
        # and the push window's door move may run together
        self._ops = []
        self._cycle = None  # the hand over's lift cycle, from raise_walls until settled
        self._raised = None  # the build whose walls the lift raised last
        self._tasks = set()
        self.light = "auto"  # the host's light pattern last set (re-sent after a reconnect)
        self.readings = None  # a list while a calibration pass listens: (track, class, c, r, g, b)
        # per track, per class: [tiles, sum r, sum g, sum b] of normalised readings in the
        # current build (table health: a sensor drifting shows here before it misreads)
        self._sums = []
        # a handler per table message, as Klipper's register_msg (on_event dispatches)
        self._handlers = {}
        for msgid, handler in ((m.TILE, self._on_tile), (m.STATE, self._on_state),
                               (m.FAULT, self._on_fault), (m.LIFT_DONE, self._on_lift_done),
                               (m.LIFT_STROKE, self._on_lift_stroke),
                               (m.DOOR_STATE, self._on_door), (m.GUARD, self._on_guard),
                               (m.SAFETY, self._on_safety), (m.GUARD_STOP, self._on_guard_stop),
                               (m.HEARTBEAT, self._on_events_lost),
                               (m.STATUS_REPLY, self._take_status), (m.LOG, self._on_log),
                               (m.BUILD_DONE, self._on_build_done)):
            self.register(msgid, handler)
        if on_button is not None:
            self.register(m.BUTTON, self._on_press)

    # -- events in ---------------------------------------------------------------------------
    @property
    def identity(self):
        ident = self.link.identity
        if ident is None:
            return None
        about = self.link.about
        if about:  # the table names its colour classes in the handshake
            self.colours = tuple(about["colours"].split(","))
        return {"tracks": ident["tracks"], "max_stacks": ident["max_stacks"],
                "colours": list(self.colours[: ident["colours"]]),
                "runtime": "%s %s" % (about["implementation"], about["version"]) if about else None,
                "board": ident["board"], "firmware": ident["firmware"],
                "boot_nonce": ident["boot_nonce"]}

    def _begin(self, op):
        self._ops.append(op)
        return op

    def _end(self, op):
        if op in self._ops:
            self._ops.remove(op)

    def register(self, msgid, handler):
        """``handler(values)`` for every event ``msgid`` from the table (one per message)."""
        self._handlers[msgid] = handler

    def on_event(self, msgid, v):
        """Called by the link for every event (in order, exactly once): its handler, then
        whatever waits for it."""
        handler = self._handlers.get(msgid)
        if handler is not None:
            handler(v)
        self._check_waiters(msgid, v)

    def _on_tile(self, v):
        build_id, track, index, colour = v[0], v[1], v[2], v[3]
        if build_id == self.build_id and 1 <= track <= len(self.counts):
            row = self.counts[track - 1]
            if colour < len(row):
                row[colour] += 1
        if build_id == self.build_id:
            if self.readings is not None:
                self.readings.append((track, colour, v[4], v[5], v[6], v[7]))
            self._sum(track, colour, v[5], v[6], v[7])
        self._emit({"type": "tile", "build": build_id, "track": track, "index": index,
                    "colour": self.colour_name(colour)})

    def _on_state(self, v):
        was, self.state = self.state, m.code_name(m.STATES, v[0])
        if self.state not in ("fault", "testing"):  # a self-test from fault returns to it
            self.fault = None
        self._emit({"type": "table_state", "state": self.state})
        op = self._cycle
        if op in self._ops and op.stopped_short(was, self.state):
            # the table lost the link for less than the host's own silence limit, so the
            # host never saw it go: carry on as after a reconnect (the lift again)
            op.interrupted = True
            self._tasks.add(asyncio.create_task(self._reconcile()))

    def _on_fault(self, v):
        code, track, detail = v
        self.fault = {"kind": m.code_name(m.FAULTS, code).replace("_", "-"),
                      "track": track or None, "detail": detail,
                      "message": fault_message(code, track, detail), "code": code}
        self._emit(dict(self.fault, type="table_fault"))

    def _on_lift_done(self, v):
        self.lift = "top" if v[0] == m.LIFT_TOP else "bottom"
        if self._cycle is not None:
            self._cycle.lift_done(self, v[0])

    def _on_lift_stroke(self, v):  # the table's own timing and peak current (minor 1)
        if self._cycle is not None:
            self._cycle.strokes[v[0]] = (v[1], v[2])

    def _on_door(self, v):
        self.door = ("closed", "open", "moving", "unknown")[v[0]]

    def _on_guard(self, v):
        self.guard = {"curtain": bool(v[0]), "lid": bool(v[1])}
        self._emit({"type": "guard", "curtain": bool(v[0]), "lid": bool(v[1])})

    def _on_safety(self, v):
        def tri(x):
            return None if x == 2 else bool(x)

        self.safety = {"chain": tri(v[0]), "power": tri(v[1]), "relay_stuck": bool(v[2])}

    def _on_guard_stop(self, v):
        none = 0xFFFFFFFF
        self.last_stop = {"motor": "lift" if v[0] == 1 else "door", "input": v[1], "at_ms": v[2],
                          "off_ms": v[3] / 1000, "cut_ms": None if v[4] == none else v[4] / 1000}

    def _on_events_lost(self, v):  # (a HEARTBEAT from the link client: events dropped)
        for op in self._ops:
            if isinstance(op, (Build, DoorMove, SelfTestStroke)):
                op.interrupted = True  # the event that ends it may be what was lost
        self._tasks.add(asyncio.create_task(self._reconcile()))

    def _on_log(self, v):
        log.info("table says", level=v[0], text=v[1])

    def _on_build_done(self, v):
        if v[0] == self.build_id and self.targets:
            # the table's own counts: right even if tile events were lost (SPEC §10)
            self._take_counts(v[1])

    def _on_press(self, v):
        self._on_button("dice" if v[0] == m.BUTTON_DICE else "start")

    def fault_error(self):
        """The fault the table is in, as the TableFault a wait for it raises."""
        f = self.fault
        return TableFault(f["code"], f["track"] or 0, f["detail"])

    def _take_counts(self, flat):
        ncls = self._ncol() + 1
        c = list(flat)
        self.counts = [c[i * ncls:(i + 1) * ncls] for i in range(len(self.targets))]

    def _take_status(self, v):
        st = dict(zip(m.field_names(m.STATUS_REPLY), v))
        was = self.state
        self.state = m.code_name(m.STATES, st["state"])
        if self.state == "fault" and self.fault is None and st["fault"]:
            # a fault raised before this host connected (its FAULT event went to another)
            code = st["fault"]
            self.fault = {"kind": m.code_name(m.FAULTS, code).replace("_", "-"), "track": None,
                          "detail": 0, "message": fault_message(code, 0), "code": code}
            # (or its FAULT event was among those the table dropped): as if it came, it is
            # said and it ends whatever waits on the table
            self._emit(dict(self.fault, type="table_fault"))
            self._fail_waiters(self.fault_error())
        self.build_id = st["build_id"]
        self.targets = list(st["targets"])
        self._take_counts(st["counts"])
        if self.state != was:  # (a table found in a fault after a restart: the daemon says so)
            self._emit({"type": "table_state", "state": self.state})

    def _sum(self, track, cls, r, g, b):
        t = r + g + b
        if t <= 0 or not 1 <= track <= len(self._sums):
            return
        row = self._sums[track - 1]
        while len(row) <= cls:
            row.append([0, 0.0, 0.0, 0.0])
        a = row[cls]
        a[0] += 1
        a[1] += r / t
        a[2] += g / t
        a[3] += b / t

    def build_health(self, build_id):
        """Per track: tiles, unknown backs and each colour's mean normalised reading in
        this build (journalled as a `build_health` event; hostd/bringup/health.py)."""
        tracks = []
        for k, row in enumerate(self._sums):
            means = {}
            for cls, a in enumerate(row):
                if cls and a[0]:
                    means[self.colour_name(cls)] = [round(a[1] / a[0], 4), round(a[2] / a[0], 4),
                                                    round(a[3] / a[0], 4)]
            counts = self.counts[k] if k < len(self.counts) else []
            tracks.append({"track": k + 1, "tiles": sum(counts),
                           "unknown": counts[0] if counts else 0, "means": means})
        return {"type": "build_health", "build": build_id, "tracks": tracks}

    def _fail_waiters(self, exc):
        for _, fut in self._waiters:
            if not fut.done():
                fut.set_exception(exc)
        self._waiters = []

    def _check_waiters(self, msgid, v):
        keep = []
        for pred, fut in self._waiters:
            if fut.done():
                continue
            try:
                if msgid == m.FAULT:
                    fut.set_exception(TableFault(v[0], v[1], v[2]))
                    continue
                if pred(msgid, v):
                    fut.set_result(v)
                    continue
            except Exception as e:  # a predicate bug must not kill the pump
                fut.set_exception(e)
                continue
            keep.append((pred, fut))
        self._waiters = keep

    def expect(self, pred):
        """A future resolved by the first event for which pred(msgid, values) holds, or
        failed by a FAULT event."""
        fut = asyncio.get_running_loop().create_future()
        # a waiter nobody awaits any more (the lift's return after a fault) is not an error
        fut.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._waiters.append((pred, fut))
        return fut

    def link_changed(self, what, detail):
        """From the link.  A firmware reset fails whatever waits: walls built by another
        boot can't be trusted.  A lost link fails nothing: the table paused (keeping its
        counts) or stopped its lift, and once the link is back `_reconcile` asks where it
        is and carries on."""
        if what == "reset":
            self._fail_waiters(TableFault(m.F_RESET, 0))
            self._ops = []
            self.state, self.lift, self.door = "boot", None, "unknown"
        if what == "disconnected":
            for op in self._ops:
                op.interrupted = True  # only what the outage cut is carried on
        if what in ("connected", "up", "reset") and self.link.connected:
            self._tasks.add(asyncio.create_task(self._reconcile()))
            for t in [t for t in self._tasks if t.done()]:
                self._tasks.discard(t)

    async def _reconcile(self):
        """Ask the table where it is, and carry on what the link's outage (or a lost
        event: SPEC §10) interrupted: a paused build, a build done or a lift at the top
        whose event never came, a door or a self-test stroke the outage cut."""
        try:
            await self.query_status()
            if self.light != "auto":  # the table forgot it with the link (its safe default)
                await self.set_light(self.light)
            for op in [op for op in self._ops if op.interrupted]:
                op.interrupted = False
                log.info("carrying on after the link came back", operation=op.kind,
                         table=self.state)
                await op.carry_on(self)
        except Exception as e:  # the link may go again; the next reconnect retries
            log.warning("could not carry on after the link came back", error=str(e))

    async def close(self):
        """Cancel the follow-ups still running (a reconnect's status query)."""
        for t in self._tasks:
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()

    def colour_name(self, cls):
        if cls == m.COLOUR_UNKNOWN or cls > len(self.colours):
            return "unknown"
        return self.colours[cls - 1]

    # -- verbs --------------------------------------------------------------------------------
    async def build(self, build_id, targets, *, stacks, expect_empty, colours=None):
        """Configure and run one build; returns per-track counts, backs by colour and the
        build's duration in table seconds.  `colours`: the colour classes the build's
        tiles have (a tile of another stops it as a stray); None: every class; []: the
        backs are not checked (identical backs)."""
        ncol = self._ncol()
        if colours is None:
            colours = list(range(1, ncol + 1))
        await self.link.command(m.CONFIGURE_BUILD, (
            build_id, list(targets), stacks, list(colours), 1 if expect_empty else 0))
        # set after the table confirmed: a status reply to an earlier query (which comes
        # before this RESULT on the line) must not overwrite the new build's picture
        self.build_id = build_id
        self.targets = list(targets)
        self.counts = [[0] * (ncol + 1) for _ in targets]
        self._sums = [[] for _ in targets]
        return await self._run_build(build_id, ((m.BUILD, (build_id,)),))

    async def resume_build(self, build_id):
        """Carry on with a build the table paused (it kept its counts): after a lost link
        or a restarted daemon.  If the table finished it meanwhile, its status has the
        counts."""
        await self.query_status()
        if self.build_id != build_id:
            raise TableFault(m.F_RESET, 0, 0, "the table does not know build %d (it is on build %d)"
                             % (build_id, self.build_id))
        if self.state == "built":
            return self._result(self.flat_counts(), 0.0, None)
        return await self._run_build(build_id, ((m.BUILD, (build_id,)),))

    def backs(self):
        """Colours counted so far in the current build."""
        out = {}
        for row in self.counts:
            for cls, n in enumerate(row):
                if n:
                    out[self.colour_name(cls)] = out.get(self.colour_name(cls), 0) + n
        return out

    def per_track(self):
        """Tiles counted so far on each track of the current build (from TILE events)."""
        return [sum(r) for r in self.counts]

    def _ncol(self):
        ident = self.link.identity
        return ident["colours"] if ident else len(self.colours)

    def flat_counts(self):
        out = []
        for row in self.counts:
            out += row
        return out

    async def _run_build(self, build_id, commands):
        done = self.expect(lambda i, v: i == m.BUILD_DONE and v[0] == build_id)
        op = self._begin(Build(build_id, done))
        t0 = self.link.mark()
        try:
            for msgid, values in commands:
                await self.link.command(msgid, values)
            self._emit({"type": "build_progress", "build": build_id,
                        "tiles": sum(sum(r) for r in self.counts), "of": sum(self.targets)})
            v = await done
            self._emit(self.build_health(build_id))
        finally:
            self._end(op)
            if not done.done():
                done.cancel()
        return self._result(list(v[1]), self.link.seconds_since(t0),
                            None if v[2] is None else bool(v[2]))

    def _result(self, counts, seconds, mixer_empty):
        per = self._ncol() + 1
        rows = [counts[i * per:(i + 1) * per] for i in range(len(counts) // per)]
        backs = {}
        for row in rows:
            for cls, n in enumerate(row):
                if n:
                    name = self.colour_name(cls)
                    backs[name] = backs.get(name, 0) + n
        return {"per_track": [sum(r) for r in rows], "backs": backs,
                "backs_per_track": [{self.colour_name(c): n for c, n in enumerate(r) if n}
                                    for r in rows],
                "seconds": seconds, "mixer_empty": mixer_empty}

    async def raise_walls(self, *, open_door):
        """Hand over: open the door (the played deck drops into the mixer) and raise the
        walls built inside, at the same time; returns the turnaround in table seconds
        (command to lift at the top).  The lift then returns on its own; `settle` waits
        for it and closes the door: one lift cycle (hostd/table/operations.py)."""
        cycle = self._cycle = self._begin(LiftCycle(self, open_door=open_door))
        if open_door:
            await self._move(m.DOOR, (1,))
        await self._move(m.LIFT)
        await cycle.top
        self.lift = "top"
        self._raised = self.build_id  # its walls are up: its counts are history
        cycle.at_top(self)
        return cycle.up_s

    async def settle(self):
        """Wait for the lift to be back down and the door (if opened) closed again: the
        end of the lift cycle.  Taken again after a stop (the guard broken on the lift's
        way down) or with no cycle (the daemon restarted), it brings them there itself: a
        lift cycle ends at the bottom, and the door is told to close; nothing waits on
        what a fault already ended."""
        cycle = self._cycle
        if cycle is None or failed(cycle.bottom):
            try:
                await self.settle_after_restart()
            finally:
                self._end(cycle)
                self._cycle = None
            self.lift = "bottom"
            return
        if cycle.door_open is not None:
            if not failed(cycle.door_open):
                await cycle.door_open
            closed = self.expect(lambda i, v: i == m.DOOR_STATE and v[0] == m.DOOR_CLOSED)
            await self._move(m.DOOR, (0,))
            await closed
            cycle.door_open = None
        try:
            await cycle.bottom
        finally:
            self._end(cycle)
        self._cycle = None
        self.lift = "bottom"
        health = cycle.health()
        if health is not None:
            self._emit(health)

    async def flush_tracks(self, strokes=3):
        """Stack and push whatever a reset left on the tracks' ramps (its counts were lost
        with the firmware's memory), so that the lift takes every tile: a stacker and a
        pusher stroke per ramp place, through the self-test command."""
        ident = self.link.identity
        for _ in range(strokes):
            for track in range(1, (ident["tracks"] if ident else 4) + 1):
                for kind in (m.D_STACKER, m.D_PUSHER):
                    await self.self_test(kind, track)

    async def self_test(self, kind, index=0):
        """One SELF_TEST: (result, value) of its SELF_TEST_RESULT (protocol TEST_*)."""
        op = self._begin(SelfTestStroke(self, kind, index))
        try:
            await self.link.command(m.SELF_TEST, (kind, index))
            v = await op.done
        except BaseException:
            op.done.cancel()
            raise
        finally:
            self._end(op)
        return v[2], v[3]

    def _survey_spoken(self):
        ident = self.link.identity or {}
        if ident.get("minor", 0) < 2:
            raise JantakuError("the table's firmware has no wiring survey (protocol minor %d, "
                               "it came with minor 2): flash this version's firmware "
                               "(`jantaku flash`)" % ident.get("minor", 0), code="not_supported")

    async def pin_pulse(self, pin, ms, hold=None):
        """PIN_PULSE (the wiring survey): the output the profile puts on pin number ``pin``
        on for ``ms`` ms, ``hold`` (a pin number) held on meanwhile; returns once the pulse
        is over (the table's state back from testing)."""
        self._survey_spoken()
        over = self.expect(lambda i, v: i == m.STATE and v[1] == m.S_TESTING)
        try:
            await self.link.command(m.PIN_PULSE, (pin, ms, m.PIN_NONE if hold is None else hold))
            await asyncio.wait_for(asyncio.shield(over), ms / 1000.0 + 5.0)
        except asyncio.TimeoutError:
            raise JantakuError("the table did not end a %d ms pulse of pin %d within 5 s more"
                               % (ms, pin), code="not_connected") from None
        finally:
            over.cancel()

    async def pin_read(self, pins):
        """PIN_READ (the wiring survey): {pin number: level} of inputs the profile names."""
        self._survey_spoken()
        out = {}
        pins = list(pins)
        for k in range(0, len(pins), m.PIN_READ_MAX):
            part = pins[k:k + m.PIN_READ_MAX]
            reply = self.expect(lambda i, v: i == m.PIN_LEVELS)
            try:
                await self.link.command(m.PIN_READ, (part,))
                v = await reply
            finally:
                reply.cancel()
            for i, n in enumerate(part):
                out[n] = (v[1] >> i) & 1
        return out

    async def set_calibration(self, track, max_distance, refs):
        """New references (class order, normalised r, g, b) and radius for one track (0 =
        every track), used by the table at once (SET_CALIBRATION)."""
        sc = m.REF_SCALE
        flat = []
        for ref in refs:
            q = [int(round(x * sc)) for x in ref]
            flat += q
        await self.link.command(m.SET_CALIBRATION, (track, max(1, int(max_distance * sc)), flat))

    async def set_colour_names(self, names):
        """The table's colour classes renamed (SET_COLOUR_NAMES); the host's picture too."""
        await self.link.command(m.SET_COLOUR_NAMES, (",".join(names),))
        self.colours = tuple(names)
        if self.link.about is not None:
            self.link.about["colours"] = ",".join(names)

    def walls_inside(self):
        """The table reports walls on its tracks: a build finished, paused, or stopped
        part way (its counts kept), and not raised since."""
        return self.state in ("built", "paused") or (
            any(self.per_track()) and self.build_id != self._raised)

    async def bring_walls_up(self):
        """Walls inside (whole or partial) up to the table top, the door closed: what a
        stopped build left on the ramps is stacked first (only an idle table takes the
        strokes; a built one has none), then a lift cycle."""
        if self.state == "idle":
            await self.flush_tracks()
        await self.raise_walls(open_door=False)
        await self.settle()

    async def drain(self, build_id, stacks):
        """What the mixer holds onto the tracks, up to full walls of `stacks`: a build
        that ends short when the mixer runs empty (the point: emptying it), with what was
        on the ramps stacked.  Returns (tiles on the tracks, the mixer ran empty)."""
        tracks = (self.identity or {}).get("tracks") or len(self.per_track()) or 4
        try:
            res = await self.build(build_id, [2 * stacks] * tracks, stacks=stacks,
                                   expect_empty=False, colours=[])
            return sum(res["per_track"]), bool(res.get("mixer_empty"))
        except TableFault as e:
            if e.kind != "short":
                raise
        await self.query_status()
        await self.clear_fault_if_any()  # SHORT: the build pauses once cleared; then it ends
        if self.state != "built":
            await self.abort()
            await self.flush_tracks()
        return sum(self.per_track()), True

    async def settle_after_restart(self):
        """After the daemon restarted during a hand over whose walls are up: bring the
        lift to the bottom (a lift cycle) and close the door."""
        bottom = self.expect(lambda i, v: i == m.LIFT_DONE and v[0] == m.LIFT_BOTTOM)
        await self._move(m.LIFT)
        await bottom
        closed = self.expect(lambda i, v: i == m.DOOR_STATE and v[0] == m.DOOR_CLOSED)
        await self._move(m.DOOR, (0,))
        try:  # the table reports the door only when it changes: already closed is quiet
            await asyncio.wait_for(asyncio.shield(closed), DOOR_QUIET_S)
        except asyncio.TimeoutError:
            closed.cancel()

    async def drop_top(self):
        """Open the centre door so everything on the table top falls into the mixer, then
        close it again."""
        await self.open_door()
        await self.close_door()

    async def open_door(self):
        """Open the centre door: what people pushed onto it falls into the mixer."""
        await self._door(m.DOOR_OPEN, "open")

    async def close_door(self):
        await self._door(m.DOOR_CLOSED, "closed")

    async def _door(self, state, name):
        was = self.door  # already there: the table reports the door only when it changes
        op = self._begin(DoorMove(self, opening=state == m.DOOR_OPEN))
        try:
            await self._move(m.DOOR, (1 if op.opening else 0,))
            if was == name and self.door == name:
                op.there.cancel()
                return
            await op.there
        finally:
            self._end(op)

    async def pause(self, seconds, stop=None):
        """Wait `seconds` of table time (virtual in-process, scaled on a sped-up
        simulator), or until the asyncio.Event `stop` is set; True if it was."""
        mark = self.mark()
        virtual = getattr(self.link.transport, "virtual", False)
        while self.seconds_since(mark) < seconds:
            if stop is not None and stop.is_set():
                return True
            await asyncio.sleep(0 if virtual else 0.02)
        return bool(stop is not None and stop.is_set())

    async def wait_ready(self, timeout=None):
        """Until the table is connected again (after a reset or an unplug)."""
        await self.link.wait_connected(timeout)

    def wall_seconds(self, table_seconds):
        """Table seconds as wall-clock seconds: a sped-up simulator's pass faster; in
        virtual time (in-process) they are given as they are."""
        transport = self.link.transport
        if getattr(transport, "virtual", False):
            return table_seconds
        return table_seconds / (getattr(transport, "time_scale", 1.0) or 1.0)

    def mark(self):
        return self.link.mark()

    def seconds_since(self, mark):
        return self.link.seconds_since(mark)

    async def clear_fault(self):
        """Acknowledge the table's fault (it refuses while its cause is still there)."""
        await self.link.command(m.CLEAR_FAULT, (0,))
        self.fault = None

    async def clear_fault_if_any(self):
        """clear_fault when the table is in its fault state (as last reported), else nothing."""
        if self.state == "fault":
            await self.clear_fault()

    async def stop(self):
        await self.link.command(m.STOP, ())

    async def abort(self):
        """Every motor stopped, the build forgotten (ABORT).  The table refuses it (busy)
        only while a self-test pulse runs (a stacker or pusher stroke, e.g. of
        flush_tracks), which ends by itself within a stroke: sent again until taken."""
        mark = self.mark()
        while True:
            try:
                await self.link.command(m.ABORT, ())
                return
            except CommandRejected as e:
                if e.result != m.E_BUSY or self.seconds_since(mark) > ABORT_BUSY_S:
                    raise
            await self.pause(0.05)

    async def set_light(self, name):
        """Show a pattern on the table's status light for what only the host knows:
        "people" (waiting for people), "dice" (the walls are up: throw), "ready",
        "refused" (a one-shot: a button press was not taken) or "auto" (the firmware's
        own pattern).  The firmware's fault, motion and building patterns win over it
        (docs/FIRMWARE.md "The status light"); it is sent again after a reconnect.
        Returns False without sending when the table's firmware predates the command
        (protocol minor 0): its light then shows only the firmware's own patterns."""
        if name not in m.LIGHTS:
            raise BadRequest("unknown light pattern %r; accepted: %s" % (name, ", ".join(m.LIGHTS)),
                             code="bad_light")
        if name != "refused":
            self.light = name
        ident = self.link.identity
        if ident is not None and ident.get("minor", 0) < 1:
            log.info("the table's firmware has no light command (protocol minor 0)",
                     pattern=name)
            return False
        await self.link.command(m.LIGHT, (m.LIGHTS.index(name),))
        return True

    async def _move(self, msgid, values=()):
        """A motion command (LIFT, DOOR).  When the table refuses it because it is in a
        fault (the lift's switch check at the stroke's start raised one, or a fault came
        just before the command), that fault is what stopped the step: it is raised as the
        TableFault, whose kind tells people what to fix (a stuck switch: `limit`), not as
        a bare refusal that `continue` could only repeat."""
        try:
            await self.link.command(msgid, values)
        except CommandRejected as e:
            if e.result not in (m.E_FAILED, m.E_NOT_ALLOWED):
                raise
            if self.fault is None:
                try:
                    await self.query_status()  # its FAULT event may still be on its way
                except TableFault as tf:
                    raise tf from e
                except Exception:
                    raise e from None
            f = self.fault
            if f is None or self.state != "fault":
                broken = self._guard_broken(msgid, values)
                if broken is not None:
                    raise broken from e
                raise
            raise TableFault(f["code"], f.get("track") or 0, f.get("detail") or 0) from e

    def _guard_broken(self, msgid, values):
        """A LIFT or a DOOR open refused while the guard is unsafe (the curtain broken or
        the lid open while nothing moved: only its state was reported, no fault): the guard
        is what stops the step (`guard`: clear it, then continue), not a bare refusal that
        `continue` could only repeat.  None if the guard is safe as far as the table said."""
        if not (msgid == m.LIFT or (msgid == m.DOOR and values and values[0])):
            return None
        curtain, lid = not self.guard.get("curtain", True), not self.guard.get("lid", True)
        chain = self.safety.get("chain") is False
        if not (curtain or lid or chain):
            return None
        what = " and ".join(w for w, bad in (("the light curtain is broken", curtain),
                                              ("the lid is open", lid),
                                              ("the emergency stop is pressed (the safety chain "
                                               "is open)", chain and not lid)) if bad)
        return TableFault(m.F_GUARD, 0, (1 if curtain else 0) | (2 if lid else 0) | (4 if chain else 0),
                          message="%s: the table will not move" % what)

    async def query_status(self):
        reply = self.expect(lambda i, v: i == m.STATUS_REPLY)
        await self.link.command(m.STATUS, ())
        await reply
        return self.get_status()

    def get_status(self):
        ident = self.identity
        return {
            "connected": self.link.connected,
            "error": self.link.error,
            "state": self.state if self.link.connected else "disconnected",
            "fault": self.fault,
            "lift": self.lift,
            "door": self.door,
            "guard": self.guard,
            "safety": self.safety,
            "build": {"id": self.build_id, "targets": self.targets,
                      "per_track": [sum(r) for r in self.counts],
                      # each track's count by back colour (the page draws a build it
                      # joined half-way from these; the order of the tiles is not kept)
                      "backs": [{self.colour_name(c): n for c, n in enumerate(r) if n}
                                for r in self.counts]} if self.targets else None,
            # walls on the tracks (the page: the last walls built came up, or are inside)
            "walls_inside": self.walls_inside() if self.link.connected else None,
            "identity": ident,
            "resets": self.link.resets,
            # new sessions made because the link was out of step (a forged or lost ack)
            "resyncs": self.link.resyncs,
            # a line that flooded or carried no frame (hostd/table/link.py LineFault), or null
            "line_fault": self.link.line_fault,
            # what a board that cannot start says (firmware/bootfail.py), or null
            "boot_error": self.link.boot_error,
        }
