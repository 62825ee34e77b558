"""``jantaku``: the one command line of the project.

Structure (for whoever adds a subcommand): each subcommand is a :class:`Command` in the
``COMMANDS`` table: a name, a one-line help, a ``configure(parser)`` function that adds
its arguments (it may add its own sub-subparsers, e.g. ``sim serve``), and a
``run(args) -> int`` function. ``main(argv=None)`` builds the parser from the table and
returns the exit status:

* 0 done; 1 the operation failed (the table refused, a fault...);
* 2 bad input (unknown ruleset, bad dice, argparse errors): a message on stderr naming the
  problem and what is accepted, nothing on stdout. Raise :class:`UsageError` for it.

Keep this module's top free of heavy imports (pydantic, the daemon...): ``jantaku
--help`` must stay fast. Import what a subcommand needs inside its ``run`` function.
"""
from __future__ import annotations

import argparse
import sys

from hostd.cli.common import (  # noqa: F401 - the subcommands' shared names
    EXIT_FAILURE, EXIT_OK, EXIT_USAGE, PROG, Command, UsageError, add_ruleset_options,
    emit_json, fault_arg, load_ruleset, set_colour_arg)


# --------------------------------------------------------------------------- rulesets

def _configure_rulesets(p):
    p.add_argument("names", nargs="*", metavar="NAME",
                   help="show only these rulesets, with their composition (default: all)")
    p.add_argument("--json", action="store_true", help="a JSON list, one object per ruleset")
    p.add_argument("--mixed-deck", action="store_true",
                   help="also show the Mixed Deck overlay (both sets together)")
    p.add_argument("--colours", "--colors", default="blue,green", metavar="A,B",
                   help="back colours of the two sets for --mixed-deck (default: blue,green)")
    p.add_argument("--table", action="store_true",
                   help="ask the running daemon (--api) which of them its table cannot build")
    p.add_argument("--api", metavar="URL", default=None,
                   help="with --table: the daemon's API (default $JANTAKU_API or "
                        "http://127.0.0.1:8737)")


def _table_fit(args):
    """{name: why} for the rulesets the running daemon's table cannot build, from GET
    /rulesets; None (with a message on stderr) when the daemon cannot tell."""
    import httpx

    from hostd.cli.client import api_url

    try:
        r = httpx.get(api_url(args) + "/rulesets", timeout=10)
        r.raise_for_status()
        items = r.json()
    except (httpx.HTTPError, ValueError) as e:
        raise UsageError("--table: cannot ask the daemon at %s (%s); is `jantaku run` up?"
                         % (api_url(args), e)) from None
    if all(i.get("table") is None for i in items):
        sys.stderr.write("jantaku rulesets: the daemon has no table connected: it cannot "
                         "say which rulesets the table builds\n")
        return None
    return {i["name"]: i["table"]["why"] for i in items
            if i.get("table") and not i["table"].get("can_build")}


def _break_text(proc) -> str:
    origin = "thrower" if proc.origin_seat == "self" else "thrower's " + proc.origin_seat
    return "%s from %s=%d, %s" % (
        "ccw" if proc.count_direction == "counter-clockwise" else "cw",
        origin, proc.origin_value, proc.unit)


def _faces_text(profile) -> list[str]:
    from hostd.rules.rulesets import face_sort_key

    groups: dict = {}
    for face, n in profile.faces.items():
        groups.setdefault(face_sort_key(face, profile.notation)[0], []).append(
            face if n == 1 else "%s×%d" % (face, n))
    return ["    " + " ".join(g) for g in groups.values()]


def cmd_rulesets(args) -> int:
    from hostd.rules.rulesets import RulesetError, get_ruleset, list_rulesets, mixed_deck

    try:
        profiles = [get_ruleset(n) for n in args.names] if args.names else list_rulesets()
        overlays = ([mixed_deck(p, args.colours.split(",")) for p in profiles]
                    if args.mixed_deck else [None] * len(profiles))
    except RulesetError as e:
        raise UsageError(str(e)) from None

    cannot = _table_fit(args) if args.table else None

    if args.json:
        items = []
        for p, md in zip(profiles, overlays):
            item = p.summary()
            if md is not None:
                item["mixed_deck"] = md.model_dump(exclude={"ruleset"})
            if cannot is not None:
                item["table"] = {"can_build": p.name not in cannot, "why": cannot.get(p.name)}
            items.append(item)
        emit_json(items)
        return EXIT_OK

    width = max(len(p.name) for p in profiles)
    head = "%-*s  %5s  %11s  %9s  %-13s  %s" % (
        width, "name", "tiles", "stacks/wall", "dead wall", "dice", "break count")
    lines = [head, "-" * len(head)]
    for p in profiles:
        dice = " or ".join([p.dice, *p.dice_alternatives])
        dead = str(p.dead_wall_tiles) + ("+%d/kong" % p.dead_wall_per_kong if p.dead_wall_per_kong else "")
        lines.append("%-*s  %5d  %11d  %9s  %-13s  %s" % (
            width, p.name, p.tiles_per_deck, p.stacks_per_wall, dead, dice,
            _break_text(p.break_procedure)))
    if args.names or args.mixed_deck:
        for p, md in zip(profiles, overlays):
            lines.append("")
            lines.append("%s (%s%s): %d tiles, %d walls x %d stacks x 2; dead wall %d tiles"
                         % (p.name, p.title, ", seed " + p.seed if p.seed else "",
                            p.tiles_per_deck, p.walls, p.stacks_per_wall, p.dead_wall_tiles))
            if args.names:
                lines.extend(_faces_text(p))
                lines.extend("  - " + n for n in p.notes)
            if md is not None:
                lines.append("  Mixed Deck (%s + %s): %d tiles in the mixer, two decks of %d, "
                             "up to %d copies of a face per deck"
                             % (md.colours[0], md.colours[1], md.total_tiles, md.deck_tiles,
                                md.max_copies_per_face))
    if cannot is not None:
        lines.append("")
        shown = [p.name for p in profiles if p.name in cannot]
        lines.append("the connected table cannot build: %s" % ("none of these" if not shown else ""))
        lines.extend("  %s: %s" % (n, cannot[n]) for n in shown)
    if not args.names:
        lines.append("")
        lines.append("break count: seats counted ccw (the order of play) with the given seat "
                     "as the given number; the breaker counts that many stacks or tiles from "
                     "the right end of their wall. `jantaku rulesets NAME` shows a composition.")
    sys.stdout.write("\n".join(lines) + "\n")
    return EXIT_OK


# --------------------------------------------------------------------------- break

def _dice_arg(text):
    from hostd.rules.dice import DiceError, parse_dice

    try:
        return parse_dice(text)
    except DiceError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _configure_break(p):
    add_ruleset_options(p, mixed_deck=False)
    src = p.add_mutually_exclusive_group()
    src.add_argument("--dice", type=_dice_arg, metavar="A,B[,...]",
                     help="the thrown faces, e.g. 3,4 (Ùzje: three d6, or one d20)")
    src.add_argument("--seed", metavar="S",
                     help="roll from this seed (demos, simulator) instead of the "
                          "cryptographic source")
    p.add_argument("--dice-spec", metavar="NdS",
                   help="when rolling, throw this instead of the ruleset's main dice "
                        "(must be one the ruleset allows, e.g. 1d20 for Ùzje)")
    p.add_argument("--json", action="store_true",
                   help='print {"total", "breaker", "break_from_right", "unit", '
                        '"dead_wall_tiles"} (and "dice" when rolled)')


_SEAT_TEXT = {
    "self": "self (the thrower)",
    "right": "right (the thrower's right-hand neighbour, next in play)",
    "across": "across (opposite the thrower)",
    "left": "left (the thrower's left-hand neighbour)",
}


def cmd_break(args) -> int:
    from hostd.rules.dice import DiceError, break_wall, roll_for

    profile = load_ruleset(args)
    try:
        if args.dice is not None:
            if args.dice_spec:
                raise UsageError("--dice-spec is for rolling; with --dice the number of dice "
                                 "chooses the throw")
            dice, how = args.dice, "given"
        elif args.seed is not None:
            dice = roll_for(profile, seed=args.seed, spec=args.dice_spec)
            how = "rolled from seed %s" % args.seed
        else:
            dice = roll_for(profile, spec=args.dice_spec)
            how = "rolled, cryptographic source"
        result = break_wall(profile, dice)
    except DiceError as e:
        raise UsageError(str(e)) from None

    if args.json:
        out = result.contract_dict()
        if args.dice is None:
            out["dice"] = list(result.dice)
        emit_json(out)
        return EXIT_OK

    proc = profile.break_procedure
    count = "%d %s" % (result.break_from_right, result.unit)
    if result.unit == "tiles":
        count += " (%g stacks)" % result.stacks_from_right
    lines = [
        "%s: %s %s = %d (%s)" % (profile.name, result.dice_spec,
                                 " + ".join(str(d) for d in result.dice), result.total, how),
        "wall breaker: %s" % _SEAT_TEXT[result.breaker],
        "break: count %s from the right end of the breaker's wall, leftwards" % count,
        "dead wall: %d tiles (%d stacks), from the break to the right"
        % (result.dead_wall_tiles, result.dead_wall_stacks),
    ]
    if proc.breaker_becomes_dealer:
        lines.append("on a game's first hand the breaker is the dealer (the starting dealer; "
                     "later dealers follow the results)")
    if profile.dice_double_multiplier > 1 and len(set(result.dice)) == 1 and len(result.dice) > 1:
        lines.append("a double: the hand's value is multiplied by %d" % profile.dice_double_multiplier)
    sys.stdout.write("\n".join(lines) + "\n")
    return EXIT_OK


# --------------------------------------------------------------------------- the table

#: Subcommands, in the order ``jantaku --help`` lists them. To add one: write
#: ``_configure_x(parser)`` and ``cmd_x(args) -> int`` and append a Command here
#: (planned: run, status, session, hand-over, abort, demo, sim, flash).
# --------------------------------------------------------------------------- daemon & friends
# Thin shims: the work lives in hostd.cli.daemon / hostd.cli.demo / hw_sim.serve / hostd.bringup.flash,
# imported only when the subcommand runs (keeps `jantaku --help` fast).

def _lazy(module, func):
    def call(arg):
        import importlib

        return getattr(importlib.import_module(module), func)(arg)

    return call


def _sim_board_help():
    from hostd.boards.boardfile import board_help

    return ("the simulated table is wired as this board profile, its sets' backs its first "
            "two colour classes unless --colours: " + board_help(
                "reference-18, long-29 for long walls"))


def _configure_demo(p):
    add_ruleset_options(p)
    p.add_argument("--hands", type=int, default=4, metavar="N",
                   help="hands to play in each game (default 4)")
    p.add_argument("--via", choices=("api", "buttons"), default="api",
                   help="how the players drive the table: api (the daemon's verbs, default) "
                        "or buttons (the simulated table's start and dice buttons, through "
                        "the real daemon; over --transport pty, its control channel)")
    p.add_argument("--games", type=int, default=1, metavar="G",
                   help="games to play (default 1); Mixed Deck splits the sets afresh for each")
    p.add_argument("--seed", type=int, default=1, metavar="S",
                   help="seed of the simulated table and the dice (default 1)")
    p.add_argument("--fault", action="append", default=[], metavar="SPEC", type=fault_arg,
                   help="inject a fault: KIND[:key=value,...] (see docs/SIMULATOR.md); repeatable")
    p.add_argument("--firmware-runtime", choices=("cpython", "micropython"), default="cpython",
                   help="run the firmware under CPython (default) or the MicroPython unix port")
    p.add_argument("--transport", choices=("inprocess", "pty"), default="inprocess",
                   help="inprocess: the table in this process, in virtual time (default); "
                        "pty: `jantaku sim serve` in a child process, over a pseudo-terminal")
    p.add_argument("--board", metavar="ID|PATH", default=None, help=_sim_board_help())
    p.add_argument("--table-stacks", type=int, default=None, metavar="N",
                   help="most stacks per wall of the simulated table (default 18, or 29 when needed)")
    p.add_argument("--db", metavar="PATH", default=None,
                   help="keep the session's journal there (default: a temporary file, removed "
                        "at the end)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object (default: a text report)")


def cmd_demo(args) -> int:
    import asyncio

    from hostd import logging as jlog
    from hostd.cli.demo import run_demo, text_report

    jlog.configure("warning", stream=sys.stderr)  # stdout carries the report only
    if args.hands < 0:
        raise UsageError("--hands must be 0 or more")
    if args.games < 1:
        raise UsageError("--games must be 1 or more")
    load_ruleset(args)  # a bad name is a usage error before anything starts
    from hostd.cli.demo import demo_sets
    from hostd.table.sim import SimStartError, board_profile
    from hostd.errors import JantakuError

    try:
        board = board_profile(board=args.board)
    except ValueError as e:  # (ProfileError is one)
        raise UsageError("--board: %s" % e) from None
    try:
        demo_sets(args, board)
    except JantakuError as e:
        raise UsageError("--colours: %s" % e) from None

    try:
        out, ok = asyncio.run(run_demo(args))
    except SimStartError as e:
        sys.stderr.write("jantaku demo: %s\n" % e)
        return EXIT_FAILURE
    if args.json:
        emit_json(out)
    else:
        sys.stdout.write(text_report(out))
    return EXIT_OK if ok else EXIT_FAILURE


def _configure_sim(p):
    sub = p.add_subparsers(dest="sim_command", required=True, metavar="ACTION")
    s = sub.add_parser("serve", help="the simulated table on a pseudo-terminal (prints PORT <path>)")
    add_ruleset_options(s)
    s.add_argument("--seed", type=int, default=1, metavar="S",
                   help="seed of the simulated table: the mixing, the faults' randomness (default 1)")
    s.add_argument("--speed", type=float, default=1.0, metavar="X",
                   help="mechanics run this many times faster than the wall, above 0 (default "
                        "1; link timing stays wall time)")
    s.add_argument("--fault", action="append", default=[], metavar="SPEC", type=fault_arg,
                   help="inject a fault: KIND[:key=value,...] (see docs/SIMULATOR.md); repeatable")
    s.add_argument("--board", metavar="ID|PATH", default=None, help=_sim_board_help())
    s.add_argument("--shuffle-wiring", type=int, default=None, metavar="SEED",
                   help="the table is wired as the shipped profile of --board's id with its "
                        "motors' drivers, coils and switches shuffled by SEED (the light "
                        "curtain, the lid and the safety chain kept), while the firmware boots "
                        "--board as the one lookup finds it (the club's copy first): the wiring "
                        "survey's rehearsal, which goes on once the survey wrote the club's "
                        "copy (`jantaku survey`, docs/RETROFIT.md)")
    s.add_argument("--table-stacks", type=int, default=None, metavar="N",
                   help="most stacks per wall of the simulated table (default 18, or 29 when "
                        "the ruleset needs it)")
    s.add_argument("--firmware-runtime", choices=("cpython", "micropython"), default="cpython",
                   help="run the firmware under CPython (default) or the MicroPython unix port")
    s.add_argument("--link", metavar="PATH", default=None,
                   help="the stable symlink to offer the port at (default: a new temporary path)")
    s.add_argument("--state", metavar="PATH", default=None,
                   help="keep the table's physical state (motors, tiles, guard, safety latencies) "
                        "as JSON in this file, rewritten every 50 ms")
    s.add_argument("--set-colour", "--set-color", dest="set_colour", action="append", default=[],
                   metavar="NAME=R,G,B", type=set_colour_arg,
                   help="a set's true back colour, normalised r,g,b (e.g. pink=0.45,0.25,0.30); "
                        "give it twice, once per set (the set in the mixer first). Without it "
                        "the sets' backs are what the board profile's references say")
    s.add_argument("--sensor-bias", type=int, default=0, metavar="PM",
                   help="each track's colour sensor reads every channel off by a fixed amount "
                        "within +-PM per mille (drawn per track from the seed; default 0)")
    s.add_argument("--sensor-drift", type=int, default=0, metavar="PM",
                   help="each track's sensor drifts by up to +-PM per mille more every 1000 reads "
                        "(a sensor getting dirty; default 0)")
    s.add_argument("--players", choices=("auto", "manual"), default="auto",
                   help="the simulated people: auto (default) push the played tiles into the "
                        "centre when it opens; manual do nothing by themselves (`jantaku "
                        "continue` and a person's `sim push` stand in)")
    pu = sub.add_parser("push", help="people push every tile on the simulated table's top into "
                                     "the centre (with --players manual)")
    pu.add_argument("--link", metavar="PATH", required=True,
                    help="the port path `sim serve` printed (PORT <path>)")
    pu.add_argument("--keep-hand", action="store_true",
                    help="leave the walls of the hand being played (push only the played tiles)")
    pr = sub.add_parser("press", help="a person presses a button of the simulated table")
    pr.add_argument("button", metavar="BUTTON", help="start or dice")
    pr.add_argument("--link", metavar="PATH", required=True,
                    help="the port path `sim serve` printed (PORT <path>)")
    lk = sub.add_parser("look", help="what a person watching the simulated table saw move "
                                      "since they last looked (the wiring survey's answers)")
    lk.add_argument("--link", metavar="PATH", required=True,
                    help="the port path `sim serve` printed (PORT <path>)")
    ho = sub.add_parser("hold", help="a person presses a switch, covers a sensor, breaks the "
                                     "curtain or opens the lid of the simulated table (as it is "
                                     "wired), then lets go")
    ho.add_argument("signal", metavar="INPUT", help="e.g. lift_top, entry2, guard_curtain")
    ho.add_argument("--ms", type=int, default=1000, help="for how long (table ms, default 1000)")
    ho.add_argument("--after-ms", type=int, default=0, help="from this many table ms on (default 0)")
    ho.add_argument("--link", metavar="PATH", required=True,
                    help="the port path `sim serve` printed (PORT <path>)")
    # a person's hands fixing what a fault left (hw_sim.table.Table.hand); then the command
    # the daemon's `fault.action` names (`jantaku clear-fault`, `jantaku continue`)
    for op, what in SIM_HANDS:
        h = sub.add_parser(op, help=what)
        if op == "clear-jam":
            h.add_argument("--track", type=int, required=True, metavar="N",
                           help="the jammed track, 1..4")
        if op in ("put-tile", "take-tile", "take-stray"):
            h.add_argument("--count", type=int, default=0, metavar="N",
                           help="how many (default: every one)")
        if op == "take-stray":
            h.add_argument("--colour", default=None, metavar="NAME",
                           help="the stray's back colour, as `next` names it (default: any)")
        if op == "clear-guard":
            h.add_argument("--input", choices=("curtain", "lid"), default=None,
                           help="only the light curtain or only the lid (default: both)")
        h.add_argument("--link", metavar="PATH", required=True,
                       help="the port path `sim serve` printed (PORT <path>)")


SIM_HANDS = (
    ("clear-jam", "a person takes the stuck tile out of a jammed track (then: jantaku "
                  "clear-fault)"),
    ("put-tile", "a person puts the missing tiles (a missing-tile fault took them) back into "
                 "the mixer through the lid (then: jantaku continue)"),
    ("take-tile", "a person takes the surplus tiles (an extra-tile fault added them) out of the "
                  "mixer through the lid (then: jantaku continue)"),
    ("take-stray", "a person finds the tiles that are not of the sets (an extra-tile fault added "
                   "them) among the tiles on the table top, by their back colour and a face with "
                   "a copy too many, and takes them out (then: jantaku continue)"),
    ("clear-guard", "a person steps out of the light curtain and closes the lid (then: "
                    "jantaku continue)"),
    ("clear-lift", "a person takes what blocks the lift (a lift-stall fault) out of its way "
                   "(then: jantaku continue)"),
    ("fix-switch", "a person frees a stuck lift end switch (a limit-stuck fault; then: jantaku "
                   "continue)"),
    ("plug", "a person plugs the table's cable back in (an unplug fault; the daemon reconnects "
             "by itself)"),
)


def _raw_profile(board):
    """The JSON object in the profile file ``board`` names (an id or a path), or None when
    there is no such file or it holds no JSON object."""
    import json

    from hostd.boards import boardfile
    from hostd.errors import ConfigError

    if not board:
        return None
    try:
        path = boardfile.locate(board)
    except ConfigError:
        return None
    try:
        with open(path) as f:
            raw = json.load(f)
    except (OSError, ValueError):
        return None
    return raw if isinstance(raw, dict) else None


def _ask_sim(args, op, **fields):
    """``op`` asked of the running `sim serve` at ``args.link``: its answer, or None when
    it could not be asked or refused (said on stderr as `jantaku sim OP: why`)."""
    from hw_sim.control import request

    try:
        r = request(args.link, op, **fields)
    except OSError as e:
        r = {"ok": False, "error": e}
    if not r.get("ok"):
        sys.stderr.write("jantaku sim %s: %s\n" % (op, r.get("error")))
        return None
    return r


def _sim_hand(args) -> int:
    """One of a person's hands on a running `sim serve` (SIM_HANDS)."""
    op = args.sim_command
    fields = {}
    if op == "clear-jam":
        fields["track"] = args.track
    if op == "take-stray" and args.colour:
        fields["colour"] = args.colour
    if op in ("put-tile", "take-tile", "take-stray"):
        if args.count < 0:
            raise UsageError("--count must be 0 (every one) or more, got %d" % args.count)
        fields["count"] = args.count
    if op == "clear-guard" and args.input:
        fields["input"] = args.input
    r = _ask_sim(args, op, **fields)
    if r is None:
        return EXIT_FAILURE
    if "tiles" in r:
        said = "%s %d tile%s" % ("put back" if op == "put-tile" else "took out", r["tiles"],
                                 "" if r["tiles"] == 1 else "s")
    elif op == "clear-jam":
        said = "track %d is clear" % r["track"]
    elif op == "clear-guard":
        said = "cleared the %s" % " and the ".join(r["cleared"])
    elif op == "plug":
        said = "plugged the cable back in"
    else:
        said = "the lift is free" if op == "clear-lift" else "the lift's end switches are free"
    sys.stdout.write(said + "\n")
    return EXIT_OK


def _sim_person(args) -> int:
    """The wiring survey's person at a running `sim serve`: look (what moved since the last
    look) or hold (press a switch, cover a sensor, as the table is wired)."""
    fields = ({"signal": args.signal, "ms": args.ms, "after_ms": args.after_ms}
              if args.sim_command == "hold" else {})
    r = _ask_sim(args, args.sim_command, **fields)
    if r is None:
        return EXIT_FAILURE
    if args.sim_command == "hold":
        sys.stdout.write("held %s for %d ms\n" % (args.signal, args.ms))
    else:
        sys.stdout.write("\n".join(" ".join(x for x in (m["device"], m["motion"]) if x)
                                    for m in r["moved"]) or "nothing")
        sys.stdout.write("\n")
    return EXIT_OK


def _shuffled_board(args, board, stacks, firmware_profile):
    """`sim serve --shuffle-wiring SEED`: (the table's wiring, the profile its firmware
    boots): the board profile as given for the firmware, shuffled for the table
    (hw_sim/rewire.py)."""
    if firmware_profile is not None or args.firmware_runtime != "cpython":
        raise UsageError("--shuffle-wiring needs a valid --board and the cpython firmware "
                         "runtime")
    from firmware import profile as fprofile
    from hw_sim.rewire import shuffled

    import json
    import os

    from hostd.boards import boardfile

    raw = _raw_profile(args.board or board["id"])
    if raw is None:
        raise UsageError("--shuffle-wiring: the board profile %s is not a JSON file here"
                         % (args.board or board["id"]))
    # the table: the shipped profile of that id shuffled (whatever the club's copy says, so
    # that the rehearsal goes on once the survey wrote the copy), else the file given
    wired = raw
    shipped = boardfile.builtin_path(raw["id"]) if boardfile.BOARD_ID.match(str(raw.get("id"))) else None
    if shipped and os.path.exists(shipped):
        with open(shipped) as f:
            wired = json.load(f)
    if stacks:
        raw["max_stacks"] = board["max_stacks"]
        wired["max_stacks"] = board["max_stacks"]
    table = fprofile.validate(shuffled(wired, args.shuffle_wiring))
    return table, fprofile.validate(raw)  # (the firmware's: as a board loads it)


def cmd_sim(args) -> int:
    """`jantaku sim ACTION`: one function an action (_SIM), serve by default."""
    return _SIM.get(args.sim_command, _sim_serve)(args)


def _sim_press(args) -> int:
    """A button pressed on a running `sim serve`."""
    from hw_sim.guard import BUTTONS

    if args.button not in BUTTONS:
        raise UsageError("no button %r; accepted: %s" % (args.button, ", ".join(BUTTONS)))
    if _ask_sim(args, "press", button=args.button) is None:
        return EXIT_FAILURE
    sys.stdout.write("pressed %s\n" % args.button)
    return EXIT_OK


def _sim_push(args) -> int:
    """People push the played tiles into a running `sim serve`'s centre."""
    r = _ask_sim(args, "push", keep=1 if args.keep_hand else 0)
    if r is None:
        return EXIT_FAILURE
    sys.stdout.write("pushed %d tiles into the centre\n" % r["pushed"])
    return EXIT_OK


def _sim_serve(args) -> int:
    """`jantaku sim serve`: the simulated table on a pseudo-terminal."""
    from hostd.table.sim import board_profile
    from hostd.cli.demo import sim_sets
    from hostd.errors import JantakuError
    from hostd.core.session import check_sets
    from hw_sim import serve

    from hw_sim.lifetime import stop_on_signals

    stop_on_signals()  # SIGTERM ends it like Ctrl-C: the port link is removed
    from hostd.table.sim import watch_parent

    watch_parent()  # started by `run --sim` or `demo`: end with that process, however it ends

    profile = load_ruleset(args)
    if args.speed <= 0:
        raise UsageError("--speed must be above 0, e.g. 1 (real time) or 20")
    stacks = args.table_stacks or (29 if profile.stacks_per_wall > 18 else None)
    firmware_profile = None
    try:
        board = board_profile(stacks, args.board)
    except ValueError as e:  # (ProfileError is one)
        raw = _raw_profile(args.board)
        if raw is None or args.firmware_runtime != "cpython":
            raise UsageError("--board: %s" % e) from None
        # a profile the firmware will refuse: the table is wired as the reference one,
        # and the simulated board boots the profile as given, as a real one would
        sys.stderr.write("jantaku sim serve: the board profile is not valid (%s); the simulated "
                         "firmware boots it as given and says why on the port\n"
                         % str(e).replace("\n", " "))
        board = board_profile(stacks)
        firmware_profile = raw
    if args.shuffle_wiring is not None:
        board, firmware_profile = _shuffled_board(args, board, stacks, firmware_profile)
    sim = {}
    if args.set_colour:
        if len(args.set_colour) != 2:
            raise UsageError("--set-colour is given once per set: twice (got %d), e.g. "
                             "--set-colour pink=0.45,0.25,0.30 --set-colour yellow=0.40,0.42,0.18"
                             % len(args.set_colour))
        sim["set_colours"] = list(args.set_colour)
        colours = None  # the sets' backs are the set colours, set 1 in the mixer
    else:
        try:  # (none given: set 1 has colour class 1's back, set 2 class 2's)
            colours = check_sets(args.colours, board["colours"]) if args.colours else None
        except JantakuError as e:
            raise UsageError("--colours: %s" % e) from None
    for opt, key in (("sensor_bias", "sensor_bias_pm"), ("sensor_drift", "sensor_drift_pm")):
        v = getattr(args, opt)
        if not 0 <= v <= 100:
            raise UsageError("--%s must be 0..100 per mille, got %d" % (opt.replace("_", "-"), v))
        if v:
            sim[key] = v
    try:
        return serve.serve(board, sim_sets(profile, colours), seed=args.seed,
                           speed=args.speed, faults=tuple(args.fault), sim=sim or None,
                           mixed_deck=args.mixed_deck, firmware_runtime=args.firmware_runtime,
                           port_link_path=args.link, state_path=args.state,
                           players=args.players, firmware_profile=firmware_profile) or 0
    except ValueError as e:
        raise UsageError(str(e)) from None


_SIM = {"press": _sim_press, "push": _sim_push, "look": _sim_person, "hold": _sim_person}
_SIM.update((op, _sim_hand) for op, _what in SIM_HANDS)  # a person's hands


def _configure_flash(p):
    p.add_argument("--port", metavar="PATH", help="the board's serial port (not needed with --dry-run)")
    from hostd.boards.boardfile import board_help

    p.add_argument("--board", default="reference-18", metavar="ID|PATH",
                   help="install this " + board_help("reference-18"))
    p.add_argument("--dry-run", action="store_true",
                   help="compile and list what would be copied, with sizes; copy nothing")


def cmd_flash(args) -> int:
    from hostd.errors import JantakuError
    from hostd.bringup.flash import flash

    if not args.port and not args.dry_run:
        raise UsageError("--port PATH is needed (the board's serial port), or --dry-run")
    try:
        flash(args.port, dry_run=args.dry_run, board=args.board)
    except JantakuError as e:
        sys.stderr.write("jantaku flash: %s\n" % e)
        return EXIT_FAILURE
    return EXIT_OK


COMMANDS: list[Command] = [
    Command("rulesets", "list the rulesets the table can serve (tiles, walls, dead wall, dice)",
            _configure_rulesets, cmd_rulesets),
    Command("break", "throw the dice (or take a throw) and show where the wall breaks",
            _configure_break, cmd_break),
    Command("run", "the daemon: connect to the table (--port PATH, or --sim) and serve the API",
            _lazy("hostd.cli.run", "configure_run"), _lazy("hostd.cli.run", "cmd_run")),
    Command("status", "the table's state, what happens next and the session, from the running "
            "daemon", _lazy("hostd.cli.reads", "configure_status"),
            _lazy("hostd.cli.reads", "cmd_status")),
    Command("pair", "let a browser press the table's buttons: a one-time code (and QR code); "
            "--list the paired browsers, --revoke ID one, --revoke-all every one",
            _lazy("hostd.cli.reads", "configure_pair"), _lazy("hostd.cli.reads", "cmd_pair")),
    Command("history", "past sessions from the journal: games, decks, hands, throws, faults",
            _lazy("hostd.cli.reads", "configure_history"), _lazy("hostd.cli.reads", "cmd_history")),
    Command("score", "the game's scores: who deals, honba, sticks, points (score add KIND "
            "key=value: enter a result; score export: JSON or CSV)",
            _lazy("hostd.cli.reads", "configure_score"), _lazy("hostd.cli.reads", "cmd_score")),
    Command("health", "the table's health over time: misreads, jams and sensor drift per track, "
            "the lift; exit 1 when something is flagged",
            _lazy("hostd.cli.bringup", "configure_health"), _lazy("hostd.cli.bringup", "cmd_health")),
    Command("demo", "a whole session against the simulated table, reported as text (--json: JSON)",
            _configure_demo, cmd_demo),
    Command("sim", "the simulated table (sim serve: on a pseudo-terminal)", _configure_sim, cmd_sim),
    Command("flash", "compile the firmware with mpy-cross and copy it to a board with mpremote",
            _configure_flash, cmd_flash),
    Command("wiring", "a board profile's wiring: each signal's pin, what it is and where it goes "
            "(Markdown), --svg FILE: the diagram", _lazy("hostd.bringup.wiring", "configure"),
            _lazy("hostd.bringup.wiring", "cmd_wiring")),
    Command("hand", "analyse a hand (hand check HAND): waits, tenpai, Mixed Deck yaku",
            _lazy("hostd.cli.hand", "configure"), _lazy("hostd.cli.hand", "cmd_hand")),
    Command("fleet", "every table on an MQTT broker (fleet status --mqtt URL): online, state, "
            "session, hand, fault; fleet retire ID: one taken out of service", _lazy("hostd.cli.fleet", "configure"),
            _lazy("hostd.cli.fleet", "cmd_fleet")),
]


class _Parser(argparse.ArgumentParser):
    """argparse, with a bad argument said in one line (and where to look), exit status 2."""

    def error(self, message):
        self.exit(EXIT_USAGE, "%s: error: %s (see `%s --help`)\n" % (self.prog, message, self.prog))


def _table_commands():
    """The table's commands, made from the one list (hostd/core/commands.py, through
    hostd/cli/table.py): `session start|end`, `hand-over`, `dice`, `game new` ..."""
    from hostd.cli import table

    return [Command(word, help, table.configure(word, actions), table.run)
            for word, help, actions in table.entries()]


def build_parser(commands=None) -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="jantaku: controller software for an automatic mahjong table")
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="show the installed version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for c in (COMMANDS[:2] + _table_commands() + COMMANDS[2:]) if commands is None else commands:
        p = sub.add_parser(c.name, help=c.help, description=c.description)
        c.configure(p)
        p.set_defaults(command_run=c.run)
    return parser


class _VersionAction(argparse.Action):
    """``--version`` without importing importlib.metadata unless asked."""

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write("%s %s\n" % (PROG, _version()))
        parser.exit()


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("jantaku")
    except Exception:  # pragma: no cover - not installed
        return "unknown"


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help, --version, argparse errors (status 2)
        return e.code if isinstance(e.code, int) else EXIT_USAGE
    if getattr(args, "command_run", None) is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        status = args.command_run(args)
    except UsageError as e:
        sys.stderr.write("%s %s: error: %s\n" % (PROG, args.command, e))
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    return EXIT_OK if status is None else int(status)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
