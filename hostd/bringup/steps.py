"""Bring-up of a real table, as the daemon runs it (layer: session): self-test,
colour calibration, measured timings.  The API's /selftest and /calibrate call these
through Daemon.bench_step (no session open, nothing else running).

How a new calibration reaches the table (docs/FIRMWARE.md §3.2): the daemon sends
SET_CALIBRATION (per track) and SET_COLOUR_NAMES, which the firmware uses at once (RAM),
and writes the club's copy of the board profile (hostd/bringup/boardfile.py, backup + diff).  A
board keeps it across a restart once `jantaku flash --board <that file>` installed it; the
simulated table keeps it until it restarts.
"""
from hostd.bringup import boardfile
from hostd.bringup import calibrate as cal
from hostd.bringup import selftest as st
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
        rep = await st.run_selftest(daemon.table, profile, device=device, track=track)
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
        daemon.publish({"type": "selftest", "ok": rep["ok"], "failed": rep["failed"]})
        return rep
    return work


def calibration(sets, mixed=False, first=None, ruleset="riichi"):
    names = cal.check_request(sets, mixed, first)
    from hostd.core import rulesets

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
        await daemon.table.query_status()  # its counts, not the last build's events
        if daemon.table.walls_inside():
            raise Refused("walls are inside the table: bring them up first (a lift stroke: "
                          "`jantaku selftest --device lift`), and put their tiles back where "
                          "the calibration expects them")
        if rs.stacks_per_wall > (ident.get("max_stacks") or profile["max_stacks"]):
            raise Refused("a %s wall has %d stacks; this table builds at most %d"
                          % (rs.name, rs.stacks_per_wall, ident.get("max_stacks") or
                             profile["max_stacks"]))
        try:
            rep = await cal.run_calibration(daemon.table, names, stacks=rs.stacks_per_wall,
                                            mixed=mixed, first=first,
                                            min_clear=profile["calibration"]["min_clear"],
                                            push_s=daemon.push_window)
        except TableFault as e:
            raise TableFault(e.fault, e.track or 0, e.detail, "calibration stopped: %s (nothing "
                             "written; `jantaku selftest` tells which device fails)" % e) from None
        rep["profile_file"] = path
        if not rep["ok"]:
            daemon.publish({"type": "calibration", "ok": False, "why": rep["refused"]})
            return rep
        # the table first (it checks the radii against the references again)
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
        w = boardfile.write(board, lambda d: cal.apply_to_profile(d, rep))
        rep["profile"] = w
        daemon.publish({"type": "calibration", "ok": True, "sets": names,
                        "separation": [t["separation"] for t in rep["tracks"]]})
        return rep
    return work
