"""What the `jantaku` subcommands share: exit statuses, the usage error, JSON output and
the options several of them take.  Light: no heavy import at the top (`jantaku --help`
stays fast)."""
from __future__ import annotations

import argparse
import json
import sys

PROG = "jantaku"
EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """Bad input from the user: printed on stderr, exit status 2."""


class Command:
    """One subcommand: ``configure(parser)`` adds arguments, ``run(args)`` returns the
    exit status (``None`` counts as 0)."""

    __slots__ = ("name", "help", "configure", "run", "description")

    def __init__(self, name, help, configure, run, description=None):
        self.name = name
        self.help = help
        self.configure = configure
        self.run = run
        self.description = description or help


# --------------------------------------------------------------------------- shared helpers

def emit_json(obj) -> None:
    """Print one JSON document on stdout (keys in insertion order)."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def add_ruleset_options(parser, *, required=True, mixed_deck=True):
    """``--ruleset R`` (+ ``--mixed-deck`` and ``--colours A,B``): for every subcommand
    that plays a ruleset (``break`` here; ``run``, ``session``, ``demo``... later)."""
    parser.add_argument(
        "--ruleset", "-r", required=required, metavar="R",
        help="riichi, speed-tonpuu, shenyang, wsom or uzje; Ùzje options joined by '+': "
             "uzje+compressed-winds, uzje+flowers, uzje+all-tongs (any combination)")
    if mixed_deck:
        parser.add_argument(
            "--mixed-deck", action="store_true",
            help="Mixed Deck overlay: both sets mixed in the machine and split into two decks")
        parser.add_argument(
            "--colours", "--colors", default=None, metavar="A,B",
            help="back colours of the two sets, colour classes of the board profile (default: "
                 "its first two, blue,green in the shipped profiles); the same name twice "
                 "(blue,blue) for sets whose backs look alike")


def fault_arg(text):
    """``--fault SPEC`` checked as it is parsed: a bad SPEC is a usage error (exit 2) naming
    the bad part and what is accepted, before anything starts."""
    from hw_sim.faults import parse

    try:
        parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def set_colour_arg(text):
    """``--set-colour NAME=R,G,B`` checked as it is parsed (exit 2 naming what is wrong)."""
    acc = "NAME=R,G,B with r, g, b normalised (0..1, summing to about 1), e.g. pink=0.45,0.25,0.30"
    name, sep, rest = text.partition("=")
    name = name.strip()
    if not sep or not name or name == "unknown" or "," in name:
        raise argparse.ArgumentTypeError("%r: accepted: %s" % (text, acc))
    try:
        rgb = [float(v) for v in rest.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError("%r: %r is not three numbers; accepted: %s"
                                         % (text, rest, acc)) from None
    if len(rgb) != 3 or any(not (0.0 <= v <= 1.0) for v in rgb) or not 0.9 <= sum(rgb) <= 1.1:
        raise argparse.ArgumentTypeError("%r: accepted: %s" % (text, acc))
    return [name, rgb]


def load_ruleset(args):
    """The profile named by ``args.ruleset``; :class:`UsageError` if unknown."""
    from hostd.rules.rulesets import RulesetError, get_ruleset

    try:
        return get_ruleset(args.ruleset)
    except RulesetError as e:
        raise UsageError(str(e)) from None


def hand_answer(args, run, report) -> int:
    """`hand check` and `hand score` alike: `run(backs)` with the parsed `--backs`, a
    HandError said as a usage error (exit 2), the result as JSON or as `report`'s text."""
    from hostd.hand import HandError, parse_backs

    try:
        result = run(parse_backs(args.backs) if args.backs is not None else None)
    except HandError as e:
        raise UsageError(str(e)) from None
    if args.json:
        emit_json(result)
    else:
        sys.stdout.write(report(result))
    return EXIT_OK
