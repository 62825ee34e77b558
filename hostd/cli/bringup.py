"""`jantaku selftest` and `jantaku calibrate`: bring-up of a table, through the running
daemon (hostd/bringup/steps.py).  Registered in hostd.cli.main.COMMANDS; imported lazily."""
import sys

from hostd.cli.client import _print, _request, add_api_option

LONG = 900.0  # seconds: a self-test or a calibration answers when it is done


def _board_said(p, what):
    """The command's help says which board profile it takes (the one lookup)."""
    from hostd.bringup.boardfile import LOOKUP

    p.epilog = "%s The connected table's board profile is found by the id the table gives: %s." % (
        what, LOOKUP)


def configure_selftest(p):
    add_api_option(p)
    _board_said(p, "Every reading is compared with the connected table's board profile; "
                   "--write-timings writes the club's copy (made from the shipped profile the "
                   "first time).")
    p.add_argument("--device", default=None, metavar="NAME",
                   help="test one device: curtain, lid, lift_bottom, lift_top, door_closed, "
                        "door_open, mixer_empty, entry, colour, lift_current, start_button, "
                        "dice_button, mixer, stacker, pusher, status_light, gate, lift, door; "
                        "guard_stop (alone, with a person: the curtain broken while the lift "
                        "rises must stop it)")
    p.add_argument("--track", type=int, default=None, metavar="N",
                   help="with a per-track device (gate, entry, colour, stacker, pusher): track N only")
    p.add_argument("--write-timings", action="store_true",
                   help="write the measured lift and door strokes (and their timeouts, with a "
                        "margin) into the board profile, when every device passed")
    p.add_argument("--json", action="store_true", help="one JSON object")


def selftest_text(r):
    lines = []
    for d in r["devices"]:
        name = d["device"] + (" %d" % d["track"] if d.get("track") else "")
        reading = d.get("reading")
        if isinstance(reading, dict):
            reading = ", ".join("%s %s" % kv for kv in reading.items())
        prof = d.get("profile")
        if isinstance(prof, dict):
            prof = ", ".join("%s %s" % kv for kv in prof.items())
        parts = ["%-16s %-6s" % (name, d["result"])]
        if reading is not None:
            parts.append("read: %s" % reading)
        if prof is not None:
            parts.append("profile: %s" % prof)
        lines.append("  ".join(parts))
        if d.get("message") and d["result"] != "ok":
            lines.append("    -> %s" % d["message"])
    for s in r.get("skipped", []):
        lines.append("%-16s skipped: %s" % (s["device"] + (" %d" % s["track"] if s.get("track")
                                                            else ""), s["why"]))
    if r.get("tiles"):
        lines.append(r["tiles"])
    t = r.get("timings")
    if t:
        if t.get("written"):
            lines.append("timings written to %s%s" % (t["path"], " (backup %s)" % t["backup"]
                                                      if t.get("backup") else ""))
            lines.append(t["diff"].rstrip())
            lines.append(t["note"])
        else:
            lines.append("timings not written: %s" % t["why"])
    if r["failed"]:
        lines.append("FAILED: %d device(s) failed%s" % (r["failed"], ", %d not tested"
                                                       % len(r["skipped"]) if r["skipped"] else ""))
    elif r["skipped"]:
        lines.append("NOT ALL TESTED: %d device(s) ok, %d not tested" % (len(r["devices"]),
                                                                         len(r["skipped"])))
    else:
        lines.append("all ok (%d devices)" % len(r["devices"]))
    return "\n".join(lines)


def cmd_selftest(args):
    from hostd.cli.common import UsageError

    if args.track is not None and args.device is None:
        raise UsageError("--track goes with --device (gate, entry, colour, stacker or pusher)")
    if args.device == "guard_stop":  # a person takes part (docs/COMMISSIONING.md, step 6)
        sys.stderr.write("guard check: stand at the table; when the lift starts rising, put a "
                         "hand into the light curtain, then take it out: the lift must stop at "
                         "once\n")
    body = {"device": args.device, "track": args.track, "write_timings": args.write_timings}
    data, rc = _request(args, "POST", "/selftest", body, timeout=LONG)
    if rc:
        return rc
    _print(args, data, selftest_text)
    return 0 if data.get("ok") else 1


def configure_calibrate(p):
    add_api_option(p)
    _board_said(p, "The calibration is written into the club's copy of the connected table's "
                   "board profile (made from the shipped profile the first time).")
    p.add_argument("--sets", required=True, metavar="A,B",
                   help="the two sets' back colours; read one at a time: A is in the mixer now, "
                        "B on the table top (as the table leaves them)")
    p.add_argument("--mixed", action="store_true",
                   help="both sets are mixed in the mixer: one pass, two clusters")
    p.add_argument("--first", default=None, metavar="COLOUR",
                   help="with --mixed: the back colour of the first tile the table reads (it "
                        "ends at the bottom of the first stack of track 1's wall)")
    p.add_argument("--ruleset", "-r", default="riichi", metavar="R",
                   help="the sets' ruleset (default riichi): every pass builds one deck's walls")
    p.add_argument("--yes", "-y", action="store_true",
                   help="no questions (the scripted form): go ahead")
    p.add_argument("--json", action="store_true", help="one JSON object")


def calibrate_text(r):
    lines = ["calibration (%s, %d tiles per track per pass):" % (r.get("mode"), r.get("tiles_per_track", 0))]
    names = r["names"]
    for t in r["tracks"]:
        refs = "  ".join("%s %s (spread %.3f, %d read)" % (
            n, "(%s)" % ", ".join("%.3f" % v for v in t["refs"][n]) if n in t["refs"] else "-",
            t["spread"].get(n, 0.0), t["readings"].get(n, 0)) for n in names)
        sep = t.get("separation")
        lines.append("  track %d: %s" % (t["track"], refs))
        if "distance" in t:
            lines.append("           distance %.3f, separation %s (at least %.1f), radius %.3f"
                         % (t["distance"], "%.2f" % sep if sep is not None else "inf",
                            r["min_separation"], t["max_distance"]))
    if not r["ok"]:
        lines.append("REFUSED: %s" % (r.get("refused") or r.get("table")))
        return "\n".join(lines)
    lines.append(r.get("table", ""))
    w = r.get("profile") or {}
    if w:
        lines.append("profile written: %s%s" % (w["path"], " (backup %s)" % w["backup"]
                                                if w.get("backup") else ""))
        lines.append(w["diff"].rstrip())
        lines.append("on a board: `jantaku flash --port PORT --board %s` makes it last across "
                     "restarts" % w["path"])
    return "\n".join(lines)


def cmd_calibrate(args):
    from hostd.cli.common import UsageError

    sets = [s.strip() for s in args.sets.split(",")]
    if len(sets) != 2 or not all(sets):
        raise UsageError("--sets takes two back colours, e.g. pink,yellow; got %r" % args.sets)
    if args.first is not None and not args.mixed:
        raise UsageError("--first goes with --mixed (one set at a time, the order of --sets "
                         "says which is which)")
    if args.mixed and args.first is None:
        raise UsageError("with --mixed, say the colour of the first tile the table reads: "
                         "--first %s or --first %s" % (sets[0], sets[1]))
    if not args.yes:
        if args.mixed:
            what = ("both sets are mixed in the mixer; the table builds one deck's walls, "
                    "raises them and opens the centre: push them back in")
        else:
            what = ("%s is in the mixer and %s on the table top; the table builds walls of "
                    "each, with two hand overs: when the centre opens, push the table top's "
                    "tiles in" % (sets[0], sets[1]))
        if not sys.stdin.isatty():
            raise UsageError("calibrate asks before it moves tiles; give --yes to go ahead "
                             "without a question (%s)" % what)
        sys.stderr.write("Calibration: %s.\nGo ahead? [y/N] " % what)
        sys.stderr.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            sys.stderr.write("nothing done\n")
            return 1
    if args.mixed and args.first not in sets:
        raise UsageError("--first is the colour of the first tile the table reads: %s or %s; "
                         "got %r" % (sets[0], sets[1], args.first))
    body = {"sets": sets, "mixed": bool(args.mixed),
            "first": sets.index(args.first) if args.mixed else 0, "ruleset": args.ruleset}
    data, rc = _request(args, "POST", "/calibrate", body, timeout=LONG)
    if rc:
        return rc
    _print(args, data, calibrate_text)
    return 0 if data.get("ok") else 1


def configure_health(p):
    add_api_option(p)
    p.add_argument("--json", action="store_true", help="one JSON object")


def health_text(r):
    lines = ["table health over the last %d builds (against the %s):" % (r["builds"], r["reference"])]
    for t in r["tracks"]:
        drift = ", ".join("%s %.0f%%%s" % (c, 100 * d["margin_used"],
                                            " (misreads in ~%d builds)" % d["builds_to_misread"]
                                            if d.get("builds_to_misread") is not None
                                            and d["builds_to_misread"] < 100 else "")
                          for c, d in sorted(t["drift"].items()))
        lines.append("  track %d: %d tiles, misread %.2f%% (recent %.2f%%), %d jam(s), radius "
                     "used: %s" % (t["track"], t["tiles"], 100 * t["misread_rate"],
                                   100 * t["recent_misread_rate"], t["jams"], drift or "-"))
    lift = r["lift"]
    if lift.get("latest_up_s"):
        lines.append("  lift: %d hand overs, stroke up %.2f s (first %.2f s)%s"
                     % (lift["hand_overs"], lift["latest_up_s"], lift["first_up_s"],
                        ", peak current %d (first %d%s)" % (
                            lift["latest_peak_current"], lift["first_peak_current"],
                            ", stall at %d" % lift["stall_current"] if lift.get("stall_current")
                            else "") if lift.get("latest_peak_current") else ""))
    for f in r["flags"]:
        lines.append("FLAG %s" % f)
    if not r["flags"]:
        lines.append("nothing to look at")
    return "\n".join(lines)


def cmd_health(args):
    data, rc = _request(args, "GET", "/table/health")
    if rc:
        return rc
    _print(args, data, health_text)
    return 0 if data.get("ok") else 1
