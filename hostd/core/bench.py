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
            if table.walls_inside():  # taken as they are: up to the table top first
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
