"""The bench: bring-up of a real table as the daemon runs it (layer: session): self-test,
colour calibration, measured timings.  The API's /selftest and /calibrate call these
through Daemon.bench_step (no session open, nothing else running).

How a new calibration reaches the table (docs/FIRMWARE.md §3.2): the daemon sends
SET_CALIBRATION (per track) and SET_COLOUR_NAMES, which the firmware uses at once (RAM),
and writes the club's copy of the board profile (hostd/boards/boardfile.py, backup + diff).  A
board keeps it across a restart once `jantaku flash --board <that file>` installed it; the
simulated table keeps it until it restarts.
"""
from hostd.boards import boardfile
from hostd.bringup import calibrate as cal
from hostd.bringup import selftest as st
from hostd.core.codes import table_fault_todo
from hostd.errors import BadRequest, ConfigError, Refused
from hostd.table.link import CommandRejected
from hostd.table.client import TableFault
from protocol import messages as m

TIMEOUT_MARGIN = 1.5  # a measured stroke's timeout: this many times the stroke...
TIMEOUT_MIN_EXTRA_MS = 500  # ...and at least this much above it


def _board(daemon):
    ident = daemon.table.identity
    if ident is None:
        raise ConfigError("the table has not said which board it is (no handshake yet)")
    return ident["board"]


def plan_timings(measured, raw):
    """The profile changes for measured strokes: the stroke itself and its timeout with a
    margin.  Returns {key path: (old, new)}."""
    out = {}
    for stroke, timeout in (("lift_stroke", "lift"), ("door_move", "door")):
        ms = measured.get(stroke + "_ms")
        if not ms:
            continue
        ms = int(round(ms))
        to = max(int(ms * TIMEOUT_MARGIN), ms + TIMEOUT_MIN_EXTRA_MS)
        out["timings_ms." + stroke] = (raw["timings_ms"][stroke], ms)
        out["timeouts_ms." + timeout] = (raw["timeouts_ms"][timeout], to)
    return out


def selftest(device=None, track=None, write_timings=False):
    async def work(daemon):
        board = _board(daemon)
        profile, path, raw = boardfile.load(board)
        rep = await st.run_selftest(daemon.table, profile, device=device, track=track,
                                    people=daemon.people_push)
        if rep.get("raised_first") is not None:  # a session's walls: on the table top now
            daemon.walls_came_up()
        rep["profile_file"] = path
        if write_timings:
            plan = plan_timings(rep["measured"], raw)
            if not plan:
                rep["timings"] = {"written": False, "why": "no stroke was measured (run the lift "
                                  "and door tests)"}
            elif not rep["ok"]:
                rep["timings"] = {"written": False, "why": "a device failed: timings are written "
                                  "only from a self-test that passed"}
            else:
                def change(d):
                    for key, (_, new) in plan.items():
                        sect, k = key.split(".")
                        d[sect][k] = new
                w = boardfile.write(board, change)
                w["changes"] = {k: {"was": a, "now": b} for k, (a, b) in plan.items()}
                w["written"] = True
                w["note"] = ("the firmware reads timings at start: install the file on the board "
                             "(`jantaku flash --board %s`)" % w["path"])
                rep["timings"] = w
        daemon.publish({"type": "selftest", "ok": rep["ok"], "failed": rep["failed"],
                        "pulsed": rep["pulsed"]})
        return rep
    return work


def stopped_words(e, what, again):
    """A step of the bench (`what`) stopped by a table fault: what happened, that nothing
    was written, and what people do about it: the fault's own words (the state is then the
    table's fault, its action clear_fault), then `again`."""
    if e.kind == "short":
        todo = ("the mixer ran empty before a deck's walls were read: put the sets to read in "
                "it (both mixed, or one set with the other on the table top), clear the fault, "
                "then %s" % again)
    else:
        todo = "%s, then %s" % (table_fault_todo(e.kind, e.track)[0], again)
    return "the %s stopped: %s; nothing was written: %s" % (what, e, todo)


def calibration(sets, ruleset="riichi", ask=False):
    """Read both sets, keep the reading (daemon.reading) and name it at once when one set
    was read at a time (class 1 is sets[0], the set in the mixer; checked against an
    earlier calibration of the same names) unless `ask`; else the answer shows the two
    classes and `next` asks which is which."""
    names = cal.check_request(sets)
    from hostd.rules import rulesets

    try:
        rs = rulesets.get_ruleset(ruleset)
    except rulesets.RulesetError as e:
        raise BadRequest("ruleset: %s" % e) from None

    async def work(daemon):
        board = _board(daemon)
        profile, path, raw = boardfile.load(board)
        ident = daemon.table.identity or {}
        if ident.get("colours") is not None and len(ident["colours"]) != 2:
            raise Refused("this table has %d colour classes; calibration handles two sets"
                          % len(ident["colours"]))
        if rs.stacks_per_wall > (ident.get("max_stacks") or profile["max_stacks"]):
            raise Refused("a %s wall has %d stacks; this table builds at most %d"
                          % (rs.name, rs.stacks_per_wall, ident.get("max_stacks") or
                             profile["max_stacks"]))
        daemon.reading = None  # a new reading replaces the last one
        table = daemon.table
        await table.query_status()  # its counts, not the last build's events
        try:
            # walls the table built (not counts a draft's map made of presses): up first
            if table.state in ("built", "paused"):
                await table.bring_walls_up()
            reading = await cal.read_sets(table, sets=names, board=board,
                                          stacks=rs.stacks_per_wall, people=daemon.people_push,
                                          min_clear=profile["calibration"]["min_clear"])
        except TableFault as e:
            raise TableFault(e.fault, e.track or 0, e.detail,
                             stopped_words(e, "calibration", "calibrate again")) from None
        rep = reading.derive()
        rep["profile_file"] = path
        if not rep["ok"]:
            daemon.publish({"type": "calibration", "ok": False, "why": rep["refused"]})
            return rep
        daemon.reading = reading
        daemon.tiles_left(reading)
        if reading.mode == cal.ONE_AT_A_TIME and not ask:
            rep["check"] = cal.check_names(reading, profile, names)
            if rep["check"] is None:
                return await write_names(daemon, reading, names)
        rep["ask"] = ("say which of %s is class 1 (read first) and which class 2"
                      % " and ".join(names))
        daemon.publish({"type": "calibration", "ok": True, "named": False, "sets": names,
                        "separation": [t["separation"] for t in rep["tracks"]]})
        return rep
    return work


async def write_names(daemon, reading, names):
    """The kept reading under `names` (class 1's first): the table takes the references
    (it checks the radii again), the club's profile is written (a backup and a diff)."""
    rep = reading.derive(names)
    rep["profile_file"] = boardfile.load(reading.board)[1]
    if not rep["ok"]:
        return rep
    try:
        await daemon.table.set_colour_names(names)
        for t in rep["tracks"]:
            await daemon.table.set_calibration(t["track"], t["max_distance"],
                                               [t["refs"][n] for n in names])
        rep["table"] = "the table uses the new references now (until it restarts)"
    except CommandRejected as e:
        rep["ok"] = False
        rep["table"] = ("the profile is written, but the table refused the new calibration "
                        "(%s): install the profile with `jantaku flash --board FILE`" % e)
    w = boardfile.write(reading.board, lambda d: cal.apply_to_profile(d, rep))
    rep["profile"] = w
    reading.named = list(names)
    rep["classes"] = reading.classes()
    daemon.tiles_left(reading)
    daemon.publish({"type": "calibration", "ok": True, "named": True, "sets": list(names),
                    "separation": [t["separation"] for t in rep["tracks"]]})
    return rep


async def name_sets(daemon, names=None, swap=False):
    """`name_sets`: the kept reading named (class 1's first), or the last calibration's two
    colours swapped in the club's profile (no reading needed); the table takes the
    references.  Nothing moves."""
    if not swap:
        r = daemon.reading
        if r is None:
            raise Refused("no calibration's reading is kept (the daemon restarted, or none "
                          "ran): calibrate first, or swap the names of the last calibration")
        if sorted(names) != sorted(r.sets):
            raise BadRequest("names: the calibration's two sets, %s, class 1's first; got %s"
                             % (" and ".join(r.sets), ", ".join(names)))
        return await write_names(daemon, r, names)
    board = _board(daemon)
    out = {}

    def change(d):
        out["names"] = cal.swap_names(d)

    try:
        w = boardfile.write(board, change)
    except ValueError as e:
        raise Refused(str(e)) from None
    profile = boardfile.load(board)[0]
    names = out["names"]
    calib = profile["calibration"]
    rep = {"ok": True, "named": True, "names": list(names), "swapped": True, "profile": w,
           "profile_file": w["path"]}
    try:
        await daemon.table.set_colour_names(names)
        tracks = calib.get("tracks") or [{"refs": calib["refs"],
                                          "max_distance": calib["max_distance"]}]
        for k, t in enumerate(tracks):
            await daemon.table.set_calibration(k + 1 if calib.get("tracks") else 0,
                                               t["max_distance"], [t["refs"][n] for n in names])
        rep["table"] = "the table uses the swapped references now (until it restarts)"
    except CommandRejected as e:
        rep["ok"] = False
        rep["table"] = ("the profile is written, but the table refused the swapped references "
                        "(%s): install the profile with `jantaku flash --board FILE`" % e)
    if daemon.reading is not None and daemon.reading.named:
        daemon.reading.named.reverse()
    daemon.publish({"type": "calibration", "ok": rep["ok"], "named": True, "sets": list(names),
                    "swapped": True})
    return rep


async def _unfaulted(call, *args):
    """A survey's read or status, again when a FAULT the survey's own press or pulse made
    the table see came meanwhile (it fails whatever waits; the survey carries on)."""
    for _ in range(4):
        try:
            return await call(*args)
        except TableFault:
            continue
    return await call(*args)


async def _survey_fault(table):
    """A fault the survey's own press or pulse made the table see (its firmware reads the
    pins by the draft's names: a tile held in a beam is a tile on the track the draft says,
    a switch pressed the end of the axis it says): cleared, and said; None if none."""
    await _unfaulted(table.query_status)
    if table.state != "fault" or not table.fault:
        return None
    kind = table.fault.get("kind")
    try:
        await table.clear_fault()
    except CommandRejected:
        return {"kind": kind, "cleared": False}
    return {"kind": kind, "cleared": True}


def survey(action, pin=None, hold=None, ms=None, pins=None):
    """One move of the wiring survey (hostd/bringup/survey.py), on the connected table's
    board profile (the draft): ``plan`` (its channels, inputs and the catalogue's words;
    nothing moves), ``pulse`` (one output channel's pin for a moment, ``hold`` held on:
    its DIR), ``watch`` (every input of the draft read until one changes and comes back,
    or ``ms`` pass), ``write`` (``pins``, the new pins section, into the club's copy)."""
    from hostd.bringup import survey as sv

    if action == "pulse":
        if pin is None:
            raise BadRequest("pulse needs pin: a pin number of an output channel (action plan "
                             "lists them)")
        ms = sv.PULSE_MS if ms is None else ms
        if not 10 <= ms <= 2000:
            raise BadRequest("ms: a pulse lasts 10..2000 ms, got %d" % ms)
    elif action == "watch":
        ms = sv.WATCH_MS if ms is None else ms
        if not 100 <= ms <= 60000:
            raise BadRequest("ms: a watch lasts 100..60000 ms, got %d" % ms)
    elif action == "write":
        if not isinstance(pins, dict) or not pins:
            raise BadRequest("write needs pins: the new pins section (signal: pin), as "
                             "`jantaku survey` makes it from the answers")
    elif action != "plan":
        raise BadRequest("action: one of plan, pulse, watch, write; got %r" % (action,))

    async def work(daemon):
        board = _board(daemon)
        profile, path, raw = boardfile.load(board)
        if action == "plan":
            return dict(sv.plan(profile), ok=True, board=board, profile_file=path,
                        raw_pins=raw["pins"])
        if action == "write":
            def change(d):
                d["pins"] = dict(pins)
            try:
                w = boardfile.write(board, change)
            except ConfigError as e:
                raise BadRequest(str(e)) from None
            w["note"] = ("the firmware reads its pins at start: install the file on the board "
                         "(`jantaku flash --board %s`), then `jantaku selftest`" % w["path"])
            daemon.publish({"type": "survey", "written": True})
            return {"ok": True, "written": True, "profile": w, "profile_file": w["path"]}
        table = daemon.table
        if action == "pulse":
            outs = {n for c in sv.channels(profile) for n in c["pins"]}
            if pin not in outs or (hold is not None and (hold not in outs or hold == pin)):
                raise BadRequest("pin%s: an output of the profile's channels, %s; got %s" % (
                    "/hold" if hold is not None else "",
                    ", ".join(str(n) for n in sorted(outs)),
                    pin if hold is None else "%s/%s" % (pin, hold)))
            await _unfaulted(table.query_status)
            # walls the table built (not counts a draft's map made of presses): up first
            if table.state in ("built", "paused"):
                await table.bring_walls_up()
            try:
                await table.pin_pulse(pin, ms, hold)
            except TableFault:  # (what moved reached a switch the draft names otherwise)
                await table.pause(ms / 1000.0 + 0.1)
            except CommandRejected as e:
                if e.result == m.E_FAILED:
                    raise Refused("the light curtain is broken, the lid or the safety chain "
                                  "open, or the motors' supply off: nothing moves (clear it, "
                                  "switch the supply on, then pulse again)") from None
                if e.result == m.E_NOT_ALLOWED:
                    raise Refused("the table moves a pin only at rest with nothing inside "
                                  "(no walls, no build): bring the walls up (`jantaku "
                                  "selftest --device lift`) or restart the table, then survey"
                                  ) from None
                raise
            return {"ok": True, "pin": pin, "hold": hold, "ms": ms,
                    "table_fault": await _survey_fault(table)}
        # watch
        inputs = sorted(sv.input_pins(profile))
        rest = await _unfaulted(table.pin_read, inputs)
        t0 = table.mark()  # (table time: a simulated table's, virtual or sped up, too)
        changed = {}
        while table.seconds_since(t0) < ms / 1000.0 and not changed:
            await table.pause(sv.POLL_MS / 1000.0)
            now = await _unfaulted(table.pin_read, inputs)
            changed = {n: rest[n] for n in inputs if now[n] != rest[n]}
        released = None
        if changed:  # the person lets go: back at rest, so the next watch starts from it
            released = False
            t1 = table.mark()
            while table.seconds_since(t1) < sv.RELEASE_S:
                await table.pause(sv.POLL_MS / 1000.0)
                now = await _unfaulted(table.pin_read, inputs)
                if all(now[n] == rest[n] for n in changed):
                    released = True
                    break
        return {"ok": True, "ms": ms, "released": released, "table_fault": await _survey_fault(table),
                "changed": [{"pin": n, "rest": lvl} for n, lvl in sorted(changed.items())],
                "rest": {str(n): rest[n] for n in inputs}}
    return work
