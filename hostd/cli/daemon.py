"""`jantaku run` and the commands that talk to a running daemon (status, session start,
hand-over, abort).  Registered in hostd.cli.main.COMMANDS; imported lazily from there."""
import asyncio
import json
import os
import sys
import time

from hostd.cli.client import DEFAULT_API, _print, _request, add_api_option, api_url  # noqa: F401

DEFAULT_API_PORT = 8737
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")  # = hostd.logging.LEVEL_CHOICES


def default_db(sim=False):
    """The journal's default place; the simulated table keeps its own, apart from a real
    table's."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "jantaku", "sim-journal.sqlite" if sim else "journal.sqlite")


def status_text(st):
    t = st.get("table") or {}
    lines = []
    if t.get("connected"):
        ident = t.get("identity") or {}
        lines.append("table: %s (%s, firmware %s)" % (t.get("state"), ident.get("board"),
                                                     ident.get("firmware")))
    else:
        lines.append("table: not connected (%s)" % (t.get("error") or "waiting"))
    s = st.get("session")
    open_faults = [f for f in (s or {}).get("faults", []) if not f["recovered"]]
    if open_faults:  # the session's words: the deck, counted and expected
        lines.append("fault: %s" % open_faults[-1]["message"])
    elif t.get("fault"):
        lines.append("fault: %s" % t["fault"]["message"])
    b = t.get("build")
    if b and b["id"]:
        lines.append("build %d: %s of %s" % (b["id"], "+".join(map(str, b["per_track"])),
                                           "+".join(map(str, b["targets"]))))
    if s:
        lines.append("session %s: %s%s, game %d, hand %d%s" % (
            s["id"], s["ruleset"], " (Mixed Deck)" if s["mixed_deck"] else "",
            s.get("game", 1), s.get("game_hand", s["hand"]),
            ", busy: %s" % s["busy"] if s.get("busy") else ""))
        if s.get("sets"):
            lines.append("  sets: %s" % _sets_text(s["sets"]))
        if s.get("dice"):
            lines.append("  hand %d's throw (%s): %s" % (s["dice"]["hand"], s["dice"]["by"],
                                                      s["dice"]["text"]))
        for name, d in sorted(s["decks"].items()):
            what = "%d tiles (%s)" % (d["tiles"], ", ".join(
                "%s %d" % kv for kv in sorted(d["backs"].items()))) if "tiles" in d \
                else "not split yet"
            lines.append("  deck %s: %s, %s" % (name, what, WHERE_TEXT.get(d.get("where"),
                                                                          d.get("where"))))
    else:
        lines.append("session: none")
        if st.get("last_end"):
            e = st["last_end"]
            lines.append("  last: session %s %s (%s)" % (e["id"], e["how"], e["reason"]))
    m = st.get("mqtt")
    if m:
        lines.append("mqtt: %s as %s, %s%s%s" % (
            m["broker"], m["table_id"], "connected" if m["connected"] else
            "not connected (%s)" % (m.get("error") or "connecting"),
            ", %d waiting" % m["queued"] if m.get("queued") else "",
            ", %d dropped (the outbox was full)" % m["dropped"] if m.get("dropped") else ""))
    if st.get("next"):
        lines.append("next: %s" % st["next"])
    return "\n".join(lines)


WHERE_TEXT = {"top": "on the table top", "inside": "walls built inside", "lift": "on the lift",
              "mixer": "in the mixer", "split": "partly built, the rest in the mixer",
              "unknown": "where it is is not known"}


def cmd_status(args):
    data, rc = _request(args, "GET", "/status")
    if rc == 0:
        _print(args, data, status_text)
    return rc


class _Progress:
    """One line on a terminal (redrawn in place, cleared before other output); nothing
    when stderr is not a terminal."""

    def __init__(self):
        self.tty = sys.stderr.isatty()
        self.shown = False

    def bar(self, got, total):
        if not self.tty or not total:
            return
        w = 40
        k = w * min(got, total) // total
        sys.stderr.write("\r\x1b[Kbuilding [%s%s] %d/%d" % ("#" * k, "." * (w - k), got, total))
        sys.stderr.flush()
        self.shown = True

    def say(self, text):
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            self.shown = False
        sys.stderr.write(text + "\n")
        sys.stderr.flush()


def _follow(args, done):
    """Follow the daemon's events until `done(event)` says the awaited walls are built
    (exit 0) or a step stops (its message and what to do; exit 1).  What the table asks
    of people is printed as it comes."""
    import httpx

    url = api_url(args) + "/events"
    headers = {"Authorization": "Bearer %s" % args.token} if getattr(args, "token", None) else {}
    out = _Progress()
    got = total = 0
    try:
        with httpx.stream("GET", url, timeout=None, headers=headers) as r:
            for line in r.iter_lines():
                if not line.startswith("data:"):
                    continue
                ev = json.loads(line[5:])
                kind = ev.get("type")
                if kind == "hello":  # where things are when we join
                    st = ev.get("status") or {}
                    s = st.get("session") or {}
                    if s.get("stopped"):
                        out.say("stopped: %s" % st.get("next"))
                        return 1
                    if s.get("asking"):
                        out.say("the table asks: %s" % s["asking"])
                    if done({"type": "where", "phase": s.get("phase"), "hand": s.get("hand"),
                             "busy": s.get("busy")}):
                        return 0
                    b = (st.get("table") or {}).get("build") or {}
                    got, total = sum(b.get("per_track") or []), sum(b.get("targets") or [])
                elif kind == "build_started":
                    got, total = 0, sum(ev.get("targets") or [])
                elif kind == "build_progress":
                    got, total = ev.get("tiles", 0), ev.get("of", 0)
                elif kind == "tile":
                    got += 1
                elif kind == "ask":
                    out.say("the table asks: %s" % ev.get("message"))
                elif kind == "dice":  # pressed while following: where to break the wall
                    out.say("hand %s: %s" % (ev.get("hand"), ev.get("text")))
                elif kind == "step_failed":
                    out.say("stopped: %s" % (ev.get("next") or ev.get("message")))
                    return 1
                elif kind == "session_ended":
                    out.say("the session ended (%s)" % ev.get("how"))
                    return 1
                elif done(ev):
                    inside = [d for d, w in sorted((ev.get("decks") or {}).items()) if w == "inside"]
                    out.say("ready: deck %s is built inside" % (inside[0] if inside else "?"))
                    return 0
                if kind in ("tile", "build_started", "build_progress"):
                    out.bar(got, total)
    except KeyboardInterrupt:
        out.say("stopped following; the table carries on (`jantaku status`)")
        return 130
    except httpx.HTTPError as e:
        out.say("lost the daemon's events (%s)" % e)
        return 1
    out.say("the daemon stopped, and its events with it (`jantaku status` once it runs again)")
    return 1


def _built_for(hand):
    """A `done` for _follow: the session's walls for `hand` are built inside."""
    def done(ev):
        return (ev.get("type") == "where" and ev.get("phase") == "built"
                and (ev.get("hand") or 0) >= hand and not ev.get("busy"))
    return done


def _wait_wanted(args):
    return args.wait if args.wait is not None else sys.stderr.isatty()


def cmd_session(args):
    if args.action == "end":
        data, rc = _request(args, "POST", "/session/end", {"empty": bool(args.empty)})
        if rc == 0:
            _print(args, data, lambda d: "%s%s\nnext: %s" % (
                "session %s %s" % (d["ended"]["id"], d["ended"]["how"]) if d.get("ended")
                else "no session was open",
                "; bringing the walls inside up to the table top" if d.get("emptying") else "",
                d.get("next")))
        return rc
    body = {"ruleset": args.ruleset, "mixed_deck": bool(args.mixed_deck)}
    if args.seed is not None:
        body["seed"] = args.seed
    if args.replace:
        body["replace"] = True
    if args.loaded:
        body["loaded"] = True
    if args.colours is not None:
        body["colours"] = [c.strip() for c in args.colours.split(",")]
    data, rc = _request(args, "POST", "/session", body)
    if rc:
        return rc
    _print(args, data, lambda d: "session %s started: %s%s, sets %s\nnext: %s" % (
        d.get("id"), d.get("ruleset"), " (Mixed Deck)" if d.get("mixed_deck") else "",
        _sets_text(d.get("sets")), d.get("next")))
    return _follow(args, _built_for(0)) if _wait_wanted(args) else 0


def _sets_text(sets):
    sets = list(sets or ())
    if len(sets) == 2 and sets[0] == sets[1]:
        return "%s and %s (backs alike: the decks' colours can't be checked)" % tuple(sets)
    return " and ".join(sets)


def cmd_game(args):
    data, rc = _request(args, "POST", "/game")
    if rc:
        return rc
    _print(args, data, lambda d: "game %s begins%s\nnext: %s" % (
        d.get("game"), ": every tile goes back into the mixer and is split afresh"
        if d.get("state") == "new_game" else "", d.get("next")))
    if data.get("state") != "new_game":
        return 0
    return _follow(args, _built_for(0)) if _wait_wanted(args) else 0


def configure_game(p):
    sub = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    n = sub.add_parser("new", help="end the game and begin the next (Mixed Deck: every tile "
                                   "back into the mixer, split afresh)")
    configure_common_wait(n)


def cmd_dice(args):
    body = {}
    if args.faces is not None:
        from hostd.cli.common import UsageError
        from hostd.core.dice import DiceError, parse_dice

        try:
            body["dice"] = list(parse_dice(args.faces))
        except DiceError as e:
            raise UsageError(str(e)) from None
    data, rc = _request(args, "POST", "/dice", body)
    if rc == 0:
        _print(args, data, lambda d: "hand %s: %s\nnext: %s" % (d.get("hand"), d.get("text"),
                                                               d.get("next")))
    return rc


def configure_dice(p):
    p.add_argument("faces", nargs="?", default=None, metavar="FACES",
                   help="the faces of physical dice people threw, e.g. 3,4 (default: the "
                        "table throws the ruleset's dice, as the dice button does)")
    add_api_option(p)
    p.add_argument("--json", action="store_true", help="one JSON object")


def history_text(data):
    lines = []
    for s in data.get("sessions") or ():
        when = _local_time(s["created_at"])
        hands = sum(len(g["hands"]) for g in s["games"])
        lines.append("session %d  %s  %s%s, sets %s: %s%s; %d game%s, %d hand%s, %d build%s%s"
                     % (s["id"], when, s["ruleset"], " (Mixed Deck)" if s["mixed_deck"] else "",
                        _sets_text(s["sets"]).split(" (")[0], s["state"],
                        " (%s)" % s["reason"] if s.get("reason") else "",
                        len(s["games"]), "" if len(s["games"]) == 1 else "s",
                        hands, "" if hands == 1 else "s", len(s["builds"]),
                        "" if len(s["builds"]) == 1 else "s",
                        "" if s["detail"] else " (detail pruned)"))
        for g in s["games"]:
            decks = "; ".join("deck %s %s" % (k, ", ".join("%s %d" % kv for kv in sorted(
                v["backs"].items()))) for k, v in sorted(g["decks"].items()))
            throws = " ".join("+".join(map(str, h["dice"])) or "-" for h in g["hands"])
            lines.append("  game %d: %s%s" % (g["game"], decks or "not split",
                                               "; throws %s" % throws if g["hands"] else ""))
        for f in s["faults"]:
            lines.append("  fault %s: %s%s" % (f["kind"], f["message"],
                                              " (recovered)" if f["recovered"] else ""))
    return "\n".join(lines) or "no sessions in the journal"


def cmd_history(args):
    if args.db:
        from hostd.core.journal import Journal, JournalError

        if not os.path.isfile(args.db):
            sys.stderr.write("jantaku history: no journal at %s (`jantaku run --db PATH` "
                             "names the one a daemon keeps)\n" % args.db)
            return 1
        try:
            with Journal(args.db, exclusive=False) as j:
                data = {"sessions": j.history(limit=args.limit)}
        except JournalError as e:
            sys.stderr.write("jantaku history: %s\n" % e)
            return 1
        _print(args, data, history_text)
        return 0
    data, rc = _request(args, "GET", "/history?limit=%d" % args.limit)
    if rc == 0:
        _print(args, data, history_text)
    return rc


def configure_history(p):
    p.add_argument("--limit", type=int, default=20, metavar="N",
                   help="the latest N sessions (default 20)")
    p.add_argument("--db", metavar="PATH", default=None,
                   help="read this journal file directly (no daemon needed; beside a running "
                        "one it only reads)")
    add_api_option(p)
    p.add_argument("--json", action="store_true", help="one JSON object")


def pair_text(code, page_url, expires_in, qr=True):
    """The pairing code in words, and (``qr``) the page's address with the code as a QR
    code for a phone's camera.  The QR code carries the code in the address's fragment
    (``#pair=``): a fragment is never sent to any server, the page spends the code at once
    and takes it out of the address bar (docs/API.md §Security)."""
    lines = ["pair a browser: open %s and type the code %s (good once, for %d minutes)"
             % (page_url, code, expires_in // 60)]
    if qr:
        try:
            import io

            import segno

            buf = io.StringIO()
            segno.make("%s#pair=%s" % (page_url, code), error="m").terminal(out=buf, compact=True)
            lines.append("or scan this with the phone's camera:\n" + buf.getvalue().rstrip("\n"))
        except ImportError:  # pragma: no cover - a dependency
            pass
    return "\n".join(lines)


def browsers_text(data):
    """`jantaku pair --list`: one line a paired browser (local times)."""
    rows = data.get("browsers") or []
    if not rows:
        return "no browser is paired (`jantaku pair --new` makes a code for one)"
    table = [("ID", "BROWSER", "ADDRESS", "PAIRED", "LAST SEEN")]
    table += [(b["id"], b["browser"], b["address"], _local_time(b["paired_at"]),
               _local_time(b["last_seen"])) for b in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]) - 1)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1] for r in table]
    lines.append("`jantaku pair --revoke ID` unpairs one; --revoke-all every one")
    return "\n".join(lines)


def _local_time(when):
    """Seconds since the epoch, or '2025-05-01T18:30:05+00:00' -> '2025-05-01 20:30' (this
    machine's time zone); what is neither is shown as it came."""
    import datetime

    if when is None:
        return "-"
    try:
        if isinstance(when, str):
            when = datetime.datetime.fromisoformat(when).timestamp()
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(when))
    except (TypeError, ValueError, OverflowError, OSError):
        return str(when)


def cmd_pair(args):
    if args.revoke_all:
        data, rc = _request(args, "POST", "/pair/revoke-all")
        if rc == 0:
            _print(args, data, lambda d: "%d browser session(s) ended: every browser must pair "
                                         "again (`jantaku pair --new`)" % d["revoked"])
        return rc
    if args.list:
        data, rc = _request(args, "GET", "/pair/browsers")
        if rc == 0:
            _print(args, data, browsers_text)
        return rc
    if args.revoke is not None:
        data, rc = _request(args, "POST", "/pair/revoke", {"id": args.revoke})
        if rc == 0:
            _print(args, data, lambda d: "browser %s unpaired: it must pair again to press "
                                         "(`jantaku pair --new`)" % d["revoked"])
        return rc
    data, rc = _request(args, "POST", "/pair/new")
    if rc == 0:
        page = args.page_url or api_url(args).rstrip("/") + "/"
        _print(args, data, lambda d: pair_text(d["code"], page, d["expires_in"], not args.no_qr))
    return rc


def configure_pair(p):
    g = p.add_mutually_exclusive_group()
    g.add_argument("--new", action="store_true",
                   help="a fresh one-time code for a browser (the default; the last code stops "
                        "working)")
    g.add_argument("--list", action="store_true",
                   help="the paired browsers: id, browser, address, when each paired and was "
                        "last seen")
    g.add_argument("--revoke", metavar="ID", default=None,
                   help="end one browser's session (its id from --list): it must pair again")
    g.add_argument("--revoke-all", action="store_true",
                   help="end every browser session: each must pair again")
    p.add_argument("--page-url", metavar="URL", default=None,
                   help="the page's address as a phone reaches it (e.g. http://table.local:8737/; "
                        "default: the API's)")
    p.add_argument("--no-qr", action="store_true", help="the code only, no QR code")
    add_api_option(p)
    p.add_argument("--json", action="store_true", help="one JSON object")


def cmd_hand_over(args):
    data, rc = _request(args, "POST", "/hand-over")
    if rc:
        return rc
    _print(args, data, lambda d: "hand over: hand %s begins; once its walls are up, press "
                                 "dice (or `jantaku dice`) for the throw" % d.get("hand"))
    return _follow(args, _built_for(data.get("hand") or 0)) if _wait_wanted(args) else 0


def cmd_abort(args):
    data, rc = _request(args, "POST", "/abort")
    if rc == 0:
        _print(args, data, lambda d: "%s\nnext: %s" % (
            "session %s aborted" % d["aborted"] if d.get("aborted") else "stopped (no session)",
            d.get("next")))
    return rc


def cmd_continue(args):
    data, rc = _request(args, "POST", "/continue")
    if rc == 0:
        _print(args, data, lambda d: "carrying on (%s)\nnext: %s" % (d.get("continued"),
                                                                     d.get("next")))
    return rc


def cmd_clear_fault(args):
    data, rc = _request(args, "POST", "/clear-fault")
    if rc == 0:
        _print(args, data, lambda d: "%s\nnext: %s" % (
            "fault cleared: %s" % d["cleared"] if d.get("cleared") else
            "carrying on (%s)" % d.get("continued"), d.get("next")))
    return rc


def configure_continue(p):
    add_api_option(p)
    p.add_argument("--json", action="store_true", help="one JSON object")


configure_clear_fault = configure_continue


def configure_status(p):
    add_api_option(p)
    p.add_argument("--json", action="store_true", help="one JSON object")


def configure_session(p):
    from hostd.cli.common import add_ruleset_options

    sub = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    s = sub.add_parser("start", help="start a session: check the table fits, bring the tiles "
                                     "to the starting position, build deck A")
    add_ruleset_options(s)
    s.set_defaults(colours=None)  # the daemon's `run --colours` unless given
    s.add_argument("--seed", type=int, default=None, help="dice from this seed (demos)")
    s.add_argument("--replace", action="store_true",
                   help="end the open session (its motions stopped) and start this one")
    s.add_argument("--loaded", action="store_true",
                   help="normal rotation: the sets are loaded as documented (the first set in "
                        "the mixer, the second on the table top), whatever the last session did")
    configure_common_wait(s)
    e = sub.add_parser("end", help="end the session normally (failed, if a fault is open)")
    e.add_argument("--empty", action="store_true",
                   help="also bring the walls inside up to the table top, to take the tiles out")
    add_api_option(e)
    e.add_argument("--json", action="store_true", help="one JSON object")


def configure_common_wait(p):
    add_api_option(p)
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.add_argument("--wait", dest="wait", action="store_true", default=None,
                   help="follow until the walls are built inside, printing what the table asks "
                        "of people; exit 0 then, 1 on a fault or refusal (default on a terminal)")
    p.add_argument("--no-wait", dest="wait", action="store_false",
                   help="return once the daemon took the command")


def configure_hand_over(p):
    configure_common_wait(p)


def configure_abort(p):
    add_api_option(p)
    p.add_argument("--json", action="store_true", help="one JSON object")


# ------------------------------------------------------------------------------ the daemon
def _api_port(text):
    import argparse

    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a port number (1-65535)" % text) from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError("%d is not a port number: 1-65535" % port)
    return port


def _whole(what, lo, hi):
    """An argparse type: a whole number lo..hi, refused in words naming `what`."""
    def parse(text):
        import argparse

        try:
            v = int(text)
        except ValueError:
            v = lo - 1
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError("%r is not %s: a whole number %d..%d"
                                             % (text, what, lo, hi))
        return v
    return parse


_days = _whole("a number of days", 1, 36500)
_megabytes = _whole("a size in MB", 1, 1 << 20)


def _seconds(text):
    import argparse

    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number of seconds" % text) from None
    if not v > 0 or v > 3600:
        raise argparse.ArgumentTypeError("%s: give seconds above 0 (at most 3600)" % text)
    return v


def configure_run(p):
    from hostd.cli.common import fault_arg

    where = p.add_mutually_exclusive_group()
    where.add_argument("--port", metavar="PATH", help="the table's serial port (e.g. /dev/jantaku)")
    where.add_argument("--sim", action="store_true",
                       help="start the simulated table (`jantaku sim serve`) and use it; it "
                            "ends with the daemon")
    p.add_argument("--db", metavar="PATH", default=None,
                   help="the journal (default %s; with --sim %s)" % (default_db(), default_db(sim=True)))
    p.add_argument("--api-host", "--host", dest="api_host", default="127.0.0.1", metavar="ADDR",
                   help="address the API listens on (default 127.0.0.1; anything else needs a token)")
    p.add_argument("--api-port", type=_api_port, default=DEFAULT_API_PORT, metavar="N",
                   help="TCP port of the API (default %d)" % DEFAULT_API_PORT)
    p.add_argument("--allow-host", dest="allow_hosts", action="append", default=[], metavar="NAME",
                   help="a host name the API may be reached by besides its address and "
                        "localhost, e.g. the table host's LAN name (table.local); repeatable")
    p.add_argument("--token-file", default=None, metavar="PATH",
                   help="where the API token is kept (mode 0600; generated if absent); needed "
                        "when listening beyond loopback (default: api-token beside the journal)")
    p.add_argument("--colours", "--colors", default="blue,green", metavar="A,B",
                   help="back colours of the two sets loaded (default blue,green): the default "
                        "of `session start --colours`; the same name twice (blue,blue) for "
                        "sets whose backs look alike; with --sim, the simulated sets' backs")
    p.add_argument("--seed", type=int, default=None,
                   help="dice (and the simulated table) from this seed instead of a cryptographic source")
    p.add_argument("--sim-ruleset", default="riichi", metavar="R",
                   help="with --sim: the tiles loaded into the simulated table (default riichi)")
    p.add_argument("--sim-mixed-deck", action="store_true",
                   help="with --sim: both tile sets in the simulated table's mixer (Mixed Deck)")
    p.add_argument("--sim-speed", type=float, default=1.0, metavar="X",
                   help="with --sim: the simulated table's speed, above 0 (1 = real time)")
    p.add_argument("--sim-fault", action="append", default=[], metavar="SPEC", type=fault_arg,
                   help="with --sim: inject a fault, KIND[:key=value,...] (docs/SIMULATOR.md); "
                        "repeatable")
    p.add_argument("--sim-players", choices=("auto", "manual"), default="auto",
                   help="with --sim: the simulated people: auto push the played tiles in; "
                        "manual leave it to you (`jantaku sim push`, then `jantaku continue`)")
    p.add_argument("--keep-days", type=_days, default=90, metavar="N",
                   help="an ended session keeps its event detail in the journal this many "
                        "days, then only its summary (default 90; docs/ARCHITECTURE.md "
                        "\"Journal retention\")")
    p.add_argument("--journal-max-mb", type=_megabytes, default=64, metavar="MB",
                   help="past that much live data the oldest ended sessions are removed "
                        "whole (default 64)")
    p.add_argument("--push-window", type=_seconds, default=None, metavar="S",
                   help="table seconds the centre stays open while people push tiles in "
                        "(default 10; `jantaku continue` closes it sooner)")
    p.add_argument("--log-level", default="info", choices=LOG_LEVELS,
                   help="the lowest level logged (default info; tracebacks on the console "
                        "at debug only)")
    p.add_argument("--no-view", action="store_true", help="no live status line on a terminal")
    m = p.add_argument_group("MQTT (docs/FLEET.md)")
    m.add_argument("--mqtt", metavar="URL", default=None,
                   help="also publish this table on an MQTT broker: mqtt://[USER@]HOST[:PORT] "
                        "or mqtts://... (TLS); needs --table-id")
    m.add_argument("--table-id", metavar="ID", default=None,
                   help="this table's name on the broker (topics jantaku/ID/...), e.g. t1")
    m.add_argument("--mqtt-password-file", metavar="PATH", default=None,
                   help="the broker password's file (mode 0600), else $JANTAKU_MQTT_PASSWORD; "
                        "never on the command line")
    m.add_argument("--mqtt-ca", metavar="FILE", default=None,
                   help="with mqtts://: the CA certificate(s) the broker's certificate is checked "
                        "against (default: the system's)")
    m.add_argument("--mqtt-commands", action="store_true",
                   help="take commands from the broker (hand over, continue, abort ...); off by "
                        "default: a hand over from afar drops a hand in play")
    m.add_argument("--mqtt-outbox", type=int, default=None, metavar="N",
                   help="messages kept while the broker is away (default 10000); the oldest "
                        "beyond are dropped, counted and reported")
    m.add_argument("--mqtt-discovery-prefix", metavar="PREFIX", default=None,
                   help="Home Assistant's discovery prefix: the table is published there as a "
                        "device (default homeassistant)")
    m.add_argument("--no-mqtt-discovery", action="store_true",
                   help="publish nothing for Home Assistant's discovery")


def start_sim_process(args, colours):
    """`jantaku sim serve` as a child, loaded with sets of these backs; returns (Popen,
    port path)."""
    from hostd.table.sim import spawn_sim_serve

    return spawn_sim_serve(args.sim_ruleset, speed=args.sim_speed, seed=args.seed,
                           mixed_deck=args.sim_mixed_deck, faults=args.sim_fault,
                           players=args.sim_players, colours=colours)


def _check_sim_options(args):
    """Everything `sim serve` would refuse, refused here before it starts (exit 2)."""
    from hostd.cli.common import UsageError, load_ruleset

    if args.sim_speed <= 0 or args.sim_speed != args.sim_speed:
        raise UsageError("--sim-speed must be above 0, e.g. 1 (real time) or 20; got %g"
                         % args.sim_speed)
    try:
        load_ruleset(argparse_ns(ruleset=args.sim_ruleset))
    except UsageError as e:
        raise UsageError("--sim-ruleset: %s" % e) from None
    from hostd.table.sim import board_profile
    from hostd.errors import JantakuError
    from hostd.core.session import check_sets

    try:  # the simulated table's sets have these backs: colours of its board profile
        check_sets(args.colours, board_profile()["colours"])
    except JantakuError as e:
        raise UsageError("--colours: %s" % e) from None


def _check_mqtt_options(args):
    """The broker (or None), every MQTT option checked before anything starts (exit 2)."""
    from hostd.fleet.broker import BrokerConfigError, check_table_id, parse
    from hostd.cli.common import UsageError

    if not args.mqtt:
        given = [o for o, v in (("--table-id", args.table_id),
                                ("--mqtt-password-file", args.mqtt_password_file),
                                ("--mqtt-ca", args.mqtt_ca),
                                ("--mqtt-commands", args.mqtt_commands),
                                ("--mqtt-outbox", args.mqtt_outbox is not None),
                                ("--mqtt-discovery-prefix", args.mqtt_discovery_prefix),
                                ("--no-mqtt-discovery", args.no_mqtt_discovery)) if v]
        if given:
            raise UsageError("%s without --mqtt URL: give the broker too" % ", ".join(given))
        return None
    if not args.table_id:
        raise UsageError("--mqtt needs --table-id ID: this table's name on the broker, e.g. t1")
    if args.mqtt_outbox is not None and not 1 <= args.mqtt_outbox <= 1000000:
        raise UsageError("--mqtt-outbox takes 1 to 1000000 messages, got %d" % args.mqtt_outbox)
    if args.no_mqtt_discovery and args.mqtt_discovery_prefix:
        raise UsageError("--no-mqtt-discovery and --mqtt-discovery-prefix: give one of them")
    from hostd.fleet import ha

    try:
        args.discovery_prefix = None if args.no_mqtt_discovery else \
            ha.check_prefix(args.mqtt_discovery_prefix or ha.PREFIX)
    except ValueError as e:
        raise UsageError("--mqtt-discovery-prefix: %s" % e) from None
    try:
        check_table_id(args.table_id)
        return parse(args.mqtt, password_file=args.mqtt_password_file, ca_file=args.mqtt_ca)
    except BrokerConfigError as e:
        raise UsageError(str(e)) from None


def argparse_ns(**kw):
    import argparse

    return argparse.Namespace(**kw)


def _prepare_db(args):
    """The journal's path, its folder made; UsageError (one line) if that cannot be."""
    from hostd.cli.common import UsageError

    db = args.db or default_db(sim=args.sim)
    folder = os.path.dirname(os.path.abspath(db))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise UsageError("cannot make the journal's folder %s (%s); give a writable place "
                         "with --db PATH" % (folder, e.strerror or e)) from None
    if not os.access(folder, os.W_OK):
        raise UsageError("the journal's folder %s is not writable; give a writable place with "
                         "--db PATH" % folder)
    return db


def cmd_run(args):
    from hostd.cli.common import UsageError
    from hostd.table.sim import SimStartError

    if not args.port and not args.sim:
        raise UsageError("say where the table is: --port PATH (a real table) or --sim")
    from hostd.errors import JantakuError
    from hostd.core.session import check_sets

    try:  # the names the table knows are checked once it answers (session start)
        colours = check_sets(args.colours)
    except JantakuError as e:
        raise UsageError("--colours: %s" % e) from None
    if args.sim:
        _check_sim_options(args)
    args.broker = _check_mqtt_options(args)
    db = _prepare_db(args)
    # systemd stops a service with SIGTERM, a closed terminal sends SIGHUP: both end the
    # daemon as Ctrl-C does (the table stopped cleanly, the simulated table ended)
    from hw_sim.lifetime import stop_on_signals

    stop_on_signals()
    sim = None
    speed = 1.0
    try:
        if args.sim:
            try:
                sim, port = start_sim_process(args, colours)
            except SimStartError as e:
                sys.stderr.write("jantaku run: %s\n" % e)
                return 1
            speed = args.sim_speed
        else:
            port = args.port
        return asyncio.run(_serve(args, port, colours, speed, db))
    except KeyboardInterrupt:
        return 0
    finally:
        if sim is not None:
            from hostd.table.sim import stop_sim_process

            stop_sim_process(sim)


async def _serve(args, port, colours, speed, db):
    from hostd import logging as jlog
    from hostd import sdnotify
    from hostd.web.api import create_app, is_loopback, load_or_create_token
    from hostd.core.daemon import Daemon
    from hostd.errors import ConfigError
    from hostd.core.journal import Journal, JournalError
    from hostd.web.server import bind_socket, make_server
    from hostd.table.transport import SerialTransport

    jlog.configure(args.log_level)
    log = jlog.get_logger("jantaku.run")
    token = None
    try:
        if not is_loopback(args.api_host) or args.token_file:
            path = args.token_file or os.path.join(os.path.dirname(os.path.abspath(db)), "api-token")
            token, created = load_or_create_token(path)
            jlog.add_secret(token)
            if created:
                log.info("API token created", path=path)
        # the API's address before anything starts: a clash is an error, never "daemon up"
        sock = bind_socket(args.api_host, args.api_port)
    except ConfigError as e:
        sys.stderr.write("jantaku run: %s\n" % e)
        return 1
    except OSError as e:
        sys.stderr.write("jantaku run: cannot listen on %s:%d: %s (another daemon? choose "
                         "another with --api-port N)\n"
                         % (args.api_host, args.api_port, e.strerror or e))
        return 1
    try:
        journal = Journal(db)
    except JournalError as e:
        sock.close()
        sys.stderr.write("jantaku run: %s\n" % e)
        return 1
    # a simulated table started by this daemon is new: nothing left from a session before
    daemon = Daemon(transport=SerialTransport(port, time_scale=speed), journal=journal,
                    colours=colours, seed=args.seed, resume=not args.sim,
                    keep_days=args.keep_days, journal_max_bytes=args.journal_max_mb << 20,
                    **({"push_window": args.push_window} if args.push_window else {}))
    try:
        app = create_app(daemon, token=token, bind_host=args.api_host,
                         allowed_hosts=args.allow_hosts)
    except ConfigError as e:
        sock.close()
        journal.close()
        sys.stderr.write("jantaku run: %s\n" % e)
        return 1
    await daemon.start()
    bridge = None
    if getattr(args, "broker", None) is not None:
        from hostd.fleet.mqtt import Bridge

        jlog.add_secret(args.broker.password)
        from hostd.web.api import VERSION

        bridge = Bridge(daemon, args.broker, args.table_id, commands=args.mqtt_commands,
                        discovery_prefix=args.discovery_prefix, sw_version=VERSION,
                        **({"outbox_limit": args.mqtt_outbox} if args.mqtt_outbox else {}))
        await bridge.start()
        daemon.reporters["mqtt"] = bridge.get_status
    server = make_server(app, args.api_host, args.api_port, on_shutdown=app.state.end_streams)
    extra = [asyncio.create_task(sdnotify.watchdog_loop(healthy=lambda: True)),
             asyncio.create_task(journal.flush_every())]
    try:
        # whether the table answered, and if not why (no such port, locked, not a tty)
        try:
            await daemon.link.wait_connected(timeout=2.0)
        except Exception:
            pass
        table = daemon.status()["table"]
        log.info("daemon up", port=port, db=db,
                 api="http://%s:%d" % (args.api_host, args.api_port),
                 page="http://%s:%d/" % (args.api_host, args.api_port),  # the table's page
                 **({"mqtt": "%s as %s (commands %s)" % (
                     bridge.broker.url(), args.table_id, "on" if bridge.commands else "off")}
                    if bridge else {}),
                 table="connected" if table.get("connected")
                 else "not connected: %s" % (table.get("error") or "waiting for the handshake"))
        # a browser's pairing code: on the terminal only, never in the log
        from hostd.web.pairing import CODE_TTL_S

        if sys.stdout.isatty():
            host = (args.allow_hosts[0] if args.allow_hosts else
                    "127.0.0.1" if args.api_host in ("0.0.0.0", "::") else args.api_host)
            host = "[%s]" % host if ":" in host else host
            sys.stdout.write(pair_text(app.state.pairing.new_code(), "http://%s:%d/" % (
                host, args.api_port), CODE_TTL_S) + "\n")
            sys.stdout.flush()
        else:
            log.info("pair a browser with the code from `jantaku pair --new`")
        if sys.stdout.isatty() and not args.no_view:
            extra.append(asyncio.create_task(_live_view(daemon)))
        sdnotify.ready("table on %s" % port)
        await server.serve(sockets=[sock])
    finally:
        sdnotify.stopping()
        for t in extra:
            t.cancel()
        await asyncio.gather(*extra, return_exceptions=True)
        jlog.clear_status_line()
        if bridge is not None:
            await bridge.close()
        await daemon.close()
        sock.close()
    return 0


async def _live_view(daemon):
    """One status line on the terminal, redrawn twice a second; a log line clears it
    first (hostd.logging), so the two never run together."""
    from hostd import logging as jlog

    while True:
        st = daemon.status()
        t = st["table"]
        s = st["session"]
        b = t.get("build")
        parts = ["table %s" % (t["state"] if t["connected"] else "not connected")]
        if t.get("fault"):
            parts.append("FAULT: %s" % t["fault"]["message"])
        if b:
            parts.append("build %d %d/%d" % (b["id"], sum(b["per_track"]), sum(b["targets"])))
        if s:
            parts.append("session %s %s game %d hand %d" % (s["id"], s["ruleset"], s["game"],
                                                            s["game_hand"]))
            if s.get("dice"):
                parts.append(s["dice"]["text"])
            elif s["hand"] and s["decks"].get((s["hands"] or [{}])[-1].get("deck"), {}).get(
                    "where") == "top":
                parts.append("press dice")
        m = st.get("mqtt")
        if m and not m["connected"]:
            parts.append("MQTT not connected (%d waiting)" % m["queued"])
        sys.stdout.write("\r\x1b[K" + " | ".join(parts))
        sys.stdout.flush()
        jlog.status_line_shown(sys.stdout)
        await asyncio.sleep(0.5)
