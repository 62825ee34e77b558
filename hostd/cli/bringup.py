"""`jantaku selftest`, `jantaku calibrate` and `jantaku name-sets`: bring-up of a table,
through the running daemon (hostd/core/bench.py).  Registered in hostd.cli.main.COMMANDS; imported lazily."""
import sys

from hostd.cli.client import _print, _request, add_api_option

LONG = 900.0  # seconds: a self-test or a calibration answers when it is done


def _board_said(p, what):
    """The command's help says which board profile it takes (the one lookup)."""
    from hostd.boards.boardfile import LOOKUP

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
                        "guard_stop (alone, with a person and a test rod: the curtain broken while the lift "
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
        result = "pulsed (not confirmed)" if d["result"] == "pulsed" else d["result"]
        parts = ["%-16s %-6s" % (name, result)]
        if reading is not None:
            parts.append("read: %s" % reading)
        if prof is not None:
            parts.append("profile: %s" % prof)
        lines.append("  ".join(parts))
        if d.get("message") and d["result"] not in ("ok", "pulsed"):
            lines.append("    -> %s" % d["message"])
    for s in r.get("skipped", []):
        lines.append("%-16s skipped: %s" % (s["device"] + (" %d" % s["track"] if s.get("track")
                                                            else ""), s["why"]))
    if r.get("walls"):
        lines.append(r["walls"])
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
    pulsed = sum(1 for d in r["devices"] if d["result"] == "pulsed")
    unsure = (", %d pulsed and not confirmed: watch or listen to them" % pulsed) if pulsed else ""
    if r["failed"]:
        lines.append("FAILED: %d device(s) failed%s%s" % (r["failed"], ", %d not tested"
                                                         % len(r["skipped"]) if r["skipped"] else "",
                                                         unsure))
    elif r["skipped"]:
        lines.append("NOT ALL TESTED: %d device(s) tested, %d not tested%s"
                     % (len(r["devices"]), len(r["skipped"]), unsure))
    else:
        lines.append("all ok (%d devices%s)" % (len(r["devices"]), unsure))
    return "\n".join(lines)


def cmd_selftest(args):
    from hostd.cli.common import UsageError

    if args.track is not None and args.device is None:
        raise UsageError("--track goes with --device (gate, entry, colour, stacker or pusher)")
    if args.device == "guard_stop":  # a person takes part (docs/COMMISSIONING.md, step 6)
        sys.stderr.write("stop test: take the test rod (never a hand) and hold it by a lift "
                         "opening, out of the light curtain; press the start button (or `jantaku "
                         "continue`) when ready; as the lift rises put the rod into the curtain "
                         "and leave it there until the lift has stopped. The table measures the "
                         "stop (docs/SAFETY.md)\n")
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
                   help="the two sets' back colours. Load them as you like: both mixed in the "
                        "mixer (one pass; you say which is which after), or one set at a time: "
                        "A in the mixer, B on the table top (two passes, with two hand overs: "
                        "when the centre opens, push the set on the table top in)")
    p.add_argument("--ruleset", "-r", default="riichi", metavar="R",
                   help="the sets' ruleset (default riichi): every pass builds one deck's walls")
    p.add_argument("--yes", "-y", action="store_true",
                   help="no questions (the scripted form): go ahead, and name the classes as "
                        "--sets says when one set was read at a time (A: the set in the mixer); "
                        "read mixed, the reading is kept and `jantaku name-sets` names it")
    p.add_argument("--json", action="store_true", help="one JSON object")


def _swatch(hex_colour):
    """Two blocks of the swatch's colour on a terminal that shows 24-bit colour."""
    if not sys.stdout.isatty() or not hex_colour:
        return ""
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return " \x1b[48;2;%d;%d;%dm    \x1b[0m" % (r, g, b)


def classes_text(r):
    """The two classes a calibration read: tiles (per track), the mean colour, a swatch."""
    lines = []
    for c in r.get("classes") or ():
        lines.append("  class %d%s: %d tiles (%s per track), mean r %.3f g %.3f b %.3f, swatch %s%s"
                     % (c["class"], " (%s)" % c["name"] if c.get("name") else "", c["tiles"],
                        ", ".join(str(n) for n in c["per_track"]), *c["mean"], c["swatch"],
                        _swatch(c["swatch"])))
    return lines


def calibrate_text(r):
    names = r.get("names") or []
    lines = ["calibration (%s, %d tiles per track per pass):" % (r.get("mode"), r.get("tiles_per_track", 0))
             if r.get("mode") else "calibration:"]
    lines += classes_text(r)
    for t in r.get("tracks") or ():
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
    if not r.get("named"):
        sets = r.get("sets") or ["A", "B"]
        lines.append("NOT NAMED%s: the reading is kept; say which is which: `jantaku name-sets "
                     "%s` (class 1 is %s) or `jantaku name-sets %s`"
                     % (" (%s)" % r["check"] if r.get("check") else "", ",".join(sets), sets[0],
                        ",".join(sets[::-1])))
        return "\n".join(lines)
    if r.get("swapped"):
        lines.append("the names swapped: %s" % " and ".join(names))
    lines.append(r.get("table", ""))
    w = r.get("profile") or {}
    if w:
        lines.append("profile written: %s%s" % (w["path"], " (backup %s)" % w["backup"]
                                                if w.get("backup") else ""))
        lines.append(w["diff"].rstrip())
        lines.append("on a board: `jantaku flash --port PORT --board %s` makes it last across "
                     "restarts; named the wrong way round: `jantaku name-sets --swap`" % w["path"])
    return "\n".join(lines)


def _ask_names(r, sets):
    """Which class is which, asked on the terminal: class 1's name first, or None."""
    one = r.get("mode") == "one set at a time" and not r.get("check")
    sys.stderr.write("The calibration read two back colours:\n%s\n%s"
                     % ("\n".join(classes_text(r)), "(%s)\n" % r["check"] if r.get("check") else ""))
    default = "1" if one else ""
    while True:
        sys.stderr.write("Which class is %s: 1 or 2%s? " % (sets[0], " [1: the set that was in "
                                                             "the mixer]" if one else ""))
        sys.stderr.flush()
        answer = sys.stdin.readline()
        if not answer:
            return None
        answer = answer.strip() or default
        if answer in ("1", "2"):
            return list(sets) if answer == "1" else list(sets[::-1])
        sys.stderr.write("answer 1 or 2\n")


def cmd_calibrate(args):
    from hostd.cli.common import UsageError

    sets = [s.strip() for s in args.sets.split(",")]
    if len(sets) != 2 or not all(sets):
        raise UsageError("--sets takes two back colours, e.g. pink,yellow; got %r" % args.sets)
    ask = False
    if not args.yes:
        what = ("the table reads the tiles in the mixer: both sets mixed there (one pass), or "
                "%s in the mixer and %s on the table top (two passes, with two hand overs: when "
                "the centre opens, push the set on the table top in); then you say which is "
                "which" % (sets[0], sets[1]))
        if not sys.stdin.isatty():
            raise UsageError("calibrate asks before it moves tiles; give --yes to go ahead "
                             "without a question (%s)" % what)
        sys.stderr.write("Calibration: %s.\nGo ahead? [y/N] " % what)
        sys.stderr.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            sys.stderr.write("nothing done\n")
            return 1
        ask = True  # the person is here: the classes are shown and named by them
    body = {"sets": sets, "ruleset": args.ruleset, "ask": ask}
    data, rc = _request(args, "POST", "/calibrate", body, timeout=LONG)
    if rc:
        return rc
    if ask and data.get("ok") and not data.get("named"):
        names = _ask_names(data, sets)
        if names is not None:
            data, rc = _request(args, "POST", "/name-sets", {"names": names})
            if rc:
                return rc
    _print(args, data, calibrate_text)
    return 0 if data.get("ok") and data.get("named") else 1


def configure_name_sets(p):
    add_api_option(p)
    _board_said(p, "Nothing moves: the club's copy of the connected table's board profile is "
                   "written again (a backup and a diff) and the table takes the references.")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.add_argument("names", nargs="?", default=None, metavar="A,B",
                   help="class 1's colour first, then class 2's: the two sets of the last "
                        "calibration, in the order its reading found them (class 1: the set "
                        "read first, the set in the mixer when read one at a time)")
    p.add_argument("--swap", action="store_true",
                   help="the last calibration's two colours named the other way round (from "
                        "the club's profile: no reading needed)")


def name_sets_body(args):
    from hostd.cli.common import UsageError

    if (args.names is None) == (not args.swap):
        raise UsageError("give the two colours, class 1's first (e.g. pink,yellow), or --swap")
    if args.swap:
        return {"swap": True}
    names = [s.strip() for s in args.names.split(",")]
    if len(names) != 2 or not all(names):
        raise UsageError("name-sets takes two back colours, class 1's first, e.g. pink,yellow; "
                         "got %r" % args.names)
    return {"names": names}


def cmd_name_sets(args):
    data, rc = _request(args, "POST", "/name-sets", name_sets_body(args))
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


# -- the wiring survey ----------------------------------------------------------------------

def configure_survey(p):
    add_api_option(p)
    _board_said(p, "The survey starts from the connected table's board profile as the draft "
                   "(its channels: which pins go to one driver, which to a MOSFET or relay, "
                   "which are inputs) and writes the map it finds into the club's copy (a "
                   "backup and a diff); docs/RETROFIT.md \"The survey\".")
    p.add_argument("--answers", metavar="FILE", default=None,
                   help="take the answers from a JSON file instead of asking: {\"outputs\": "
                        "{\"<pin>\": [\"<what moved with DIR low>\", \"<with DIR high>\"] or "
                        "\"<what moved>\"}, \"skip\": [\"<input signal the table lacks>\"]}; "
                        "the inputs are still watched while you press each switch")
    p.add_argument("--only", choices=("inputs", "outputs"), default=None,
                   help="survey only the inputs or only the outputs (the other part keeps the "
                        "profile's pins)")
    p.add_argument("--no-write", action="store_true",
                   help="show the map found; write nothing")
    p.add_argument("--watch-s", type=float, default=15.0, metavar="S",
                   help="how long to wait for each switch (default 15)")
    p.add_argument("--json", action="store_true", help="one JSON object at the end")


def _say(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _ask(question):
    """A line from the person (stdin), or None at its end: the question on a line of its
    own, then the prompt "> " (a program answering it waits for that)."""
    sys.stderr.write("? %s\n> " % question)
    sys.stderr.flush()
    line = sys.stdin.readline()
    return None if not line else line.strip()


_SAID_FAULTS = set()


def _survey_post(args, body):
    from hostd.bringup.survey import SurveyError

    data, rc = _request(args, "POST", "/survey", body, timeout=LONG)
    if rc:
        raise SurveyError((data or {}).get("error", {}).get("message", "the daemon refused"),
                          code="survey_stopped")
    f = data.get("table_fault")
    if f and not f.get("cleared") and f.get("kind") not in _SAID_FAULTS:
        _SAID_FAULTS.add(f.get("kind"))
        _say("  (the table reports %s: its firmware reads the pins by the profile's names, "
             "which the survey is finding; the survey goes on, and the fault goes once the "
             "map is written and flashed)" % f.get("kind"))
    return data


def _scripted(args):
    import json

    from hostd.cli.common import UsageError

    if args.answers is None:
        return None
    try:
        with open(args.answers) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        raise UsageError("--answers %s: %s" % (args.answers, e)) from None
    if not isinstance(d, dict) or set(d) - {"outputs", "skip"}:
        raise UsageError("--answers: a JSON object with \"outputs\" and \"skip\"; got %s"
                         % (sorted(d) if isinstance(d, dict) else type(d).__name__))
    outs = d.get("outputs") or {}
    return {"outputs": {str(k): (v if isinstance(v, list) else [v]) for k, v in outs.items()},
            "skip": list(d.get("skip") or [])}


def _survey_inputs(args, sv, plan, script, refusals):
    from hostd.bringup import survey as S

    _say("Inputs: the table at rest (the lift down, the centre closed, the lid closed, the "
         "light curtain clear, nothing in a beam). For each: do what it says, when asked.")
    rows = sv.cat["inputs"]
    for k, (signal, do, _) in enumerate(rows):
        while True:
            if script is not None:
                if signal in script["skip"]:
                    sv.skip(signal)
                    _say("[%d/%d] %s: skipped (the table has none)" % (k + 1, len(rows), S.spoken(signal)))
                    break
                _say("[%d/%d] %s: %s (watching %.0f s)" % (k + 1, len(rows), S.spoken(signal), do,
                                                          args.watch_s))
            else:
                a = _ask("[%d/%d] %s: %s. Enter to start watching (then do it), skip, or quit:"
                         % (k + 1, len(rows), S.spoken(signal), do))
                if a is None or a == "quit":
                    raise S.SurveyError("the survey was ended: nothing written", code="survey_ended")
                if a == "skip":
                    try:
                        sv.skip(signal)
                        break
                    except S.SurveyError as e:
                        _say("  refused: %s" % e)
                        continue
            w = _survey_post(args, {"action": "watch", "ms": int(args.watch_s * 1000)})
            try:
                got = sv.input_found(signal, w)
            except S.SurveyError as e:
                if signal in ("guard_curtain", "lid") and sv.found.get(signal) is not None:
                    raise  # the guard elsewhere than the draft says: nothing may move
                _say("  refused: %s" % e)
                if script is not None:
                    refusals.append(str(e))
                    break
                continue
            _say("  %s is on %s%s" % (S.spoken(signal), got["label"],
                                      " (wired the other way round: invert)" if got["invert"] else ""))
            break


def _survey_outputs(args, sv, plan, script, refusals):
    from hostd.bringup import survey as S

    _say("Outputs: the motors' supply on, people clear of the table. Each output moves for "
         "a moment; say what moved: %s." % ", ".join(plan["answers"]))
    chans = plan["channels"]
    for k, ch in enumerate(chans):
        where = "/".join(ch["labels"])
        keys = [str(ch["pins"][0]), ch["labels"][0].split(" ")[0], ch["labels"][0]]
        while True:
            said = []
            for pin, hold in S.pulses(ch):
                if len(ch["pins"]) == 1:
                    _say("[%d/%d] %s on for %d ms" % (k + 1, len(chans), where, plan["pulse_ms"]))
                else:
                    _say("[%d/%d] %s: the driver's PWM on for %d ms, its DIR %s" % (
                        k + 1, len(chans), where, plan["pulse_ms"],
                        "held high" if hold is not None else "low"))
                _survey_post(args, {"action": "pulse", "pin": pin, "hold": hold})
                if script is not None:
                    given = next((script["outputs"][key] for key in keys if key in script["outputs"]), None)
                    a = given[len(said)] if given is not None and len(said) < len(given) else S.NOTHING
                else:
                    a = _ask("what moved? (%s; again; quit)" % ", ".join(plan["answers"]))
                    if a is None or a == "quit":
                        raise S.SurveyError("the survey was ended: nothing written",
                                            code="survey_ended")
                    if a == "again":
                        break
                    try:
                        S.parse_answer(sv.cat, a)
                    except S.SurveyError as e:
                        _say("  %s" % e)
                        break
                said.append(a)
            if len(said) < len(S.pulses(ch)):
                continue  # again
            try:
                got = sv.output(ch, said)
            except S.SurveyError as e:
                _say("  refused: %s" % e)
                if script is not None:
                    refusals.append(str(e))
                    break
                continue
            _say("  %s: the %s%s" % (where, S.spoken(got["device"]),
                                     "" if got.get("invert") is None else
                                     (" (its DIR the other way round: invert)" if got["invert"]
                                      else "")))
            break


def cmd_survey(args):
    from hostd.bringup import survey as S

    script = _scripted(args)
    try:
        plan = _survey_post(args, {"action": "plan"})
    except S.SurveyError as e:
        _say("jantaku survey: %s" % e)
        return 1
    sv = S.Survey(plan["draft"])
    _say("Wiring survey of %s (%s): %d output channels, %d inputs."
         % (plan["board"], plan["profile_file"], len(plan["channels"]), len(plan["inputs"])))
    refusals = []
    then = None
    try:
        if args.only != "outputs":
            _survey_inputs(args, sv, plan, script, refusals)
        else:
            sv.keep_draft("inputs")
            # the table at rest, the inputs named right (flashed): which are wired the other
            # way round, read with their own pulls
            sv.inputs_at_rest(_survey_post(args, {"action": "watch", "ms": 100}))
        if args.only is None and not refusals and sv.inputs_moved():
            # the firmware reads the inputs by the draft's names until the map is flashed: a
            # motion it makes would reach a switch it takes for another (a beam: a tile on
            # a track, and a stroke of that track's stacker), so the outputs wait for it
            then = ("the inputs are not where the profile said: flash the profile written "
                    "(`jantaku flash --port PORT --board %s`), let the table restart, switch "
                    "the motors' supply on, then `jantaku survey --only outputs`" % plan["board"])
        if args.only != "inputs" and then is None:
            if refusals:
                raise S.SurveyError("the inputs were not all found: nothing moves until they are")
            _survey_outputs(args, sv, plan, script, refusals)
        else:
            sv.keep_draft("outputs")
        pins = sv.pins_map(plan["raw_pins"]) if not refusals else None
    except S.SurveyError as e:
        refusals.append(str(e))
        pins = None
    out = {"ok": pins is not None, "found": {s: n for s, n in sv.found.items()},
           "invert": sv.invert, "skipped": sv.skipped, "refused": refusals}
    if pins is not None and then is not None:
        out["next"] = then
    if pins is None:
        _say("jantaku survey: nothing written:\n  " + "\n  ".join(refusals))
    elif args.no_write:
        out["pins"] = pins
        _say("the map found (not written, --no-write):")
    else:
        w = _survey_post(args, {"action": "write", "pins": pins})
        out["pins"] = pins
        out["profile"] = w.get("profile")
        _say("written: %s (backup %s)\n%s" % (w["profile"]["path"], w["profile"]["backup"],
                                             w["profile"]["note"]))
        if out.get("next"):
            _say("next: " + out["next"])
    import json

    if args.json:
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
    elif pins is not None:
        for s in sorted(pins):
            sys.stdout.write("%s: %s\n" % (s, json.dumps(pins[s])))
    return 0 if out["ok"] else 1
