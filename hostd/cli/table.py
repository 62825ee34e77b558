"""The table's commands on the command line, made from the one list
(hostd/core/commands.py): each command's subcommand words (``Command.cli``: `session
start`, `hand-over`, `game new` ...), its options, its body and its answer in words.
Registered in hostd.cli.main; imported lazily from there."""
import json
import sys

from hostd.cli.client import _print, _request, add_api_option, api_url
from hostd.cli.common import UsageError
from hostd.cli.words import next_line, sets_text
from hostd.core.commands import BY_NAME, COMMANDS

LONG = 900.0  # seconds: a self-test or a calibration answers when it is done
ASKING = ("push_all", "push_rest", "mixer_short", "clear_top", "find_stray")


# -- options and bodies --------------------------------------------------------------------

def _wait_options(p):
    p.add_argument("--wait", dest="wait", action="store_true", default=None,
                   help="follow until the walls are built inside, printing what the table asks "
                        "of people; exit 0 then, 1 on a fault or refusal (default on a terminal)")
    p.add_argument("--no-wait", dest="wait", action="store_false",
                   help="return once the daemon took the command")


def _start_options(p):
    from hostd.cli.common import add_ruleset_options

    add_ruleset_options(p)
    p.set_defaults(colours=None)  # the daemon's (`run --colours`, or the sets calibrated)
    p.add_argument("--seed", type=int, default=None, help="dice from this seed (demos)")
    p.add_argument("--replace", action="store_true",
                   help="end the open session (its motions stopped) and start this one")
    p.add_argument("--loaded", action="store_true",
                   help="normal rotation: the sets are loaded as documented (the first set in "
                        "the mixer, the second on the table top), whatever the last session did")
    _wait_options(p)


def _start_body(args):
    body = {"ruleset": args.ruleset, "mixed_deck": bool(args.mixed_deck)}
    if args.seed is not None:
        body["seed"] = args.seed
    if args.replace:
        body["replace"] = True
    if args.loaded:
        body["loaded"] = True
    if args.colours is not None:
        sets = [c.strip() for c in args.colours.split(",")]
        if len(sets) != 2 or not all(sets):
            raise UsageError("--colours takes the two sets' back colours, e.g. blue,green "
                             "(blue,blue for sets whose backs look alike); got %r" % args.colours)
        body["colours"] = sets
    return body


def _end_options(p):
    p.add_argument("--empty", action="store_true",
                   help="also bring every tile up to the table top, to take the sets out")


def _dice_options(p):
    p.add_argument("faces", nargs="?", default=None, metavar="FACES",
                   help="the faces of physical dice people threw, e.g. 3,4 (default: the "
                        "table throws the ruleset's dice, as the dice button does)")


def _dice_body(args):
    if args.faces is None:
        return {}
    faces = [f.strip() for f in args.faces.split(",")]
    if not faces or not all(f.isdigit() for f in faces):
        raise UsageError("dice %r: give the faces as whole numbers separated by commas, e.g. "
                         "3,4" % args.faces)
    return {"dice": [int(f) for f in faces]}


def _said_start(d):
    return "session %s started: %s%s, sets %s" % (
        d["id"], d["ruleset"], " (Mixed Deck)" if d.get("mixed_deck") else "", sets_text(d["sets"]))


def _said_end(d):
    return "%s%s" % ("session %s %s" % (d["ended"]["id"], d["ended"]["how"]) if d.get("ended")
                     else "no session was open",
                     "; bringing every tile up to the table top" if d.get("emptying") else "")


def _said_abort(d):
    what = "session %s aborted" % d["aborted"] if d.get("aborted") else "every motor stopped"
    if not d.get("confirmed", True):
        what += ": not confirmed by the table yet (it is not connected): the abort is sent " \
                "again as soon as it is back"
    return what


SAID = {
    "start": _said_start,
    "hand_over": lambda d: ("hand over: game %s, hand %s begins" % (d["game"], d["game_hand"])
                            if "game_hand" in d else "carrying on: the hand over"),
    "dice": lambda d: "game %s, hand %s: %s" % (d.get("game", "-"), d.get("game_hand", d["hand"]),
                                                d["text"]),
    "continue": lambda d: "carrying on: %s" % (d.get("continued") or "done").replace("_", " "),
    "clear_fault": lambda d: ("fault cleared: %s" % d["cleared"]) if d.get("cleared")
    else "carrying on: %s" % (d.get("continued") or "done").replace("_", " "),
    "game_new": lambda d: "game %s begins%s" % (d["game"], (
        ": every tile goes back into the mixer and is split afresh"
        if d["next"]["code"] == "collecting" else "")),
    "end": _said_end,
    "abort": _said_abort,
}


class Spec:
    """How the CLI offers one command: its options, its body from the arguments, its
    answer in words, and what --wait follows it to."""

    def __init__(self, options=None, body=None, wait=None, run=None):
        self.options = options
        self.body = body or (lambda args: {})
        self.wait = wait  # (args, answer) -> done(event), or None
        self.run = run  # a command of its own (selftest, calibrate), else None


def _built_again(args, answer):
    return lambda st: st["state"]["name"] == "built" and st["next"]["code"] == "press_start"


def _hand_built(args, answer):
    hand = answer.get("hand") or 0
    return lambda st: st["state"]["name"] == "built" and (st["state"]["params"].get("hand") or 0) >= hand


def _lazy_run(name):
    def run(args):
        from hostd.cli import bringup

        return getattr(bringup, "cmd_" + name)(args)
    return run


def _lazy_options(name):
    def configure(p):
        from hostd.cli import bringup

        getattr(bringup, "configure_" + name)(p)
    return configure


SPECS = {
    "start": Spec(_start_options, _start_body, _built_again),
    "hand_over": Spec(_wait_options, None, _hand_built),
    "dice": Spec(_dice_options, _dice_body),
    "continue": Spec(),
    "clear_fault": Spec(),
    "game_new": Spec(_wait_options, None, lambda args, answer: (
        _built_again(args, answer) if answer["next"]["code"] == "collecting" else None)),
    "end": Spec(_end_options, lambda args: {"empty": bool(args.empty)}),
    "abort": Spec(),
    "selftest": Spec(_lazy_options("selftest"), run=_lazy_run("selftest")),
    "calibrate": Spec(_lazy_options("calibrate"), run=_lazy_run("calibrate")),
    "name_sets": Spec(_lazy_options("name_sets"), run=_lazy_run("name_sets")),
    "survey": Spec(_lazy_options("survey"), run=_lazy_run("survey")),
}


# -- the parser: one entry per first word of Command.cli -------------------------------------

def entries():
    """[(word, help, {action or None: command name})]: the CLI's entries for the list's
    commands, in its order (`session` holds start and end, `game` holds new)."""
    out = {}
    for c in COMMANDS:
        if not c.cli:
            continue
        word, _, action = c.cli.partition(" ")
        out.setdefault(word, {})[action or None] = c.name
    return [(w, _help(w, acts), acts) for w, acts in out.items()]


def _help(word, actions):
    if None in actions:
        return BY_NAME[actions[None]].summary
    return "%s: %s" % (word, "; ".join("%s %s: %s" % (word, a, BY_NAME[n].summary)
                                       for a, n in actions.items()))


def configure(word, actions):
    def conf(p):
        if None in actions:
            _configure_one(p, actions[None])
            return
        sub = p.add_subparsers(dest="action", required=True, metavar="ACTION")
        for action, name in actions.items():
            _configure_one(sub.add_parser(action, help=BY_NAME[name].summary), name)
    return conf


def _configure_one(p, name):
    spec = SPECS[name]
    if spec.options:
        spec.options(p)
    if spec.run is None:
        add_api_option(p)
        p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(table_command=name)


def run(args):
    """Run the command the arguments name: POST its route, say its answer and next."""
    name = args.table_command
    spec = SPECS[name]
    if spec.run is not None:
        return spec.run(args)
    c = BY_NAME[name]
    data, rc = _request(args, "POST", c.path, spec.body(args))
    if rc:
        return rc
    _print(args, data, lambda d: "%s\n%s" % (SAID[name](d), next_line(d.get("next"))))
    if data.get("confirmed") is False:
        return 1  # an abort the table has not confirmed yet: not done
    done = spec.wait(args, data) if spec.wait else None
    if done is None or not _wait_wanted(args):
        return 0
    return follow(args, done)


def _wait_wanted(args):
    wait = getattr(args, "wait", None)
    return wait if wait is not None else sys.stderr.isatty()


# -- following the table --------------------------------------------------------------------

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


def follow(args, done):
    """Follow the daemon's events until `done(status)` says the awaited walls are built
    (exit 0) or a step stops (its fault and what to do; exit 1).  What the table asks of
    people is printed as it comes."""
    import httpx

    url = api_url(args) + "/events"
    headers = {"Authorization": "Bearer %s" % args.token} if getattr(args, "token", None) else {}
    out = _Progress()
    try:
        with httpx.stream("GET", url, timeout=None, headers=headers) as r:
            return _follow_stream(r, done, out)
    except KeyboardInterrupt:
        out.say("stopped following; the table carries on (`jantaku status`)")
        return 130
    except httpx.HTTPError as e:
        out.say("lost the daemon's events (%s)" % e)
        return 1


def _follow_stream(r, done, out):
    f = _Follower(done, out)
    for line in r.iter_lines():
        if not line.startswith("data:"):
            continue
        ev = json.loads(line[5:])
        kind = ev.get("type")
        on = _FOLLOW.get(kind)
        rc = on(f, kind, ev) if on is not None else None
        if rc is not None:
            return rc
        if kind in ("tile", "build_started", "build_progress"):
            out.bar(f.got, f.total)
    out.say("the daemon stopped, and its events with it (`jantaku status` once it runs again)")
    return 1


class _Follower:
    """What `follow` keeps between the daemon's events: the build's count, the question
    last asked.  One method an event type (_FOLLOW): an exit code ends the following."""

    def __init__(self, done, out):
        self.done = done
        self.out = out
        self.got = self.total = 0
        self.asked = None

    def status(self, kind, ev):  # hello (the status in it), state
        from hostd.cli.words import fault_line

        st = ev.get("status") if kind == "hello" else ev
        if st is None:
            return None
        if st["state"]["name"] == "stopped":
            self.out.say("stopped: %s" % fault_line(st.get("fault")))
            return 1
        if st["next"]["code"] in ASKING and st["next"]["code"] != self.asked:
            self.asked = st["next"]["code"]
            self.out.say("the table asks: %s" % next_line(st["next"])[6:])
        elif st["next"]["code"] not in ASKING:
            self.asked = None
        if self.done(st):
            self.out.say("ready: %s" % st["next"]["text"])
            return 0
        if kind == "hello":
            b = (st.get("table") or {}).get("build") or {}
            self.got, self.total = sum(b.get("per_track") or []), sum(b.get("targets") or [])
        return None

    def build_started(self, kind, ev):
        self.got, self.total = 0, sum(ev.get("targets") or [])

    def build_progress(self, kind, ev):
        self.got, self.total = ev.get("tiles", 0), ev.get("of", 0)

    def tile(self, kind, ev):
        self.got += 1

    def dice(self, kind, ev):  # pressed while following: where to break the wall
        self.out.say("the throw: %s" % ev.get("text"))

    def session_ended(self, kind, ev):
        self.out.say("the session ended (%s)" % ev.get("how"))
        return 1


_FOLLOW = {"hello": _Follower.status, "state": _Follower.status,
           "build_started": _Follower.build_started, "build_progress": _Follower.build_progress,
           "tile": _Follower.tile, "dice": _Follower.dice, "session_ended": _Follower.session_ended}
