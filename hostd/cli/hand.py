"""``jantaku hand check HAND [--call KIND:TILES]... [--mixed-deck] [--completable]
[--backs N,M] [--json]``: the hand analyser (hostd.hand, docs/HANDS.md) on the command
line; ``jantaku hand score`` (the scorer) is hostd.cli.hand_score, registered here.

Exit status 0 for any hand analysed (complete, tenpai or neither); 2 with a one-line
message for a hand that cannot be read (bad notation, a call that is not one, too many
copies, a wrong tile count, backs that do not add up). Registered in hostd.cli.main's table;
this module's top stays light (the analyser is imported when the command runs).
"""
from __future__ import annotations

import sys

HELP = ("analyse a hand and its calls: decomposition, waits, completable tenpai, Mixed Deck "
        "yaku")


def configure(p) -> None:
    sub = p.add_subparsers(dest="hand_command", required=True, metavar="ACTION")
    c = sub.add_parser("check", help=HELP, description=HELP + " (docs/HANDS.md)")
    c.add_argument("hand", nargs="+", metavar="HAND",
                   help="closed tiles in mpsz, e.g. 123m456p789s11122z or 1m2m3m...; 0 = red "
                        "five; Speed Tonpuu's 7mb 5pg 5zx...; 3n+1 tiles for waits, 3n+2 "
                        "for a complete hand, at most 14 with 3 for each call; calls may "
                        "follow as KIND:TILES (23455p66s pon:555p)")
    c.add_argument("--call", action="append", default=[], metavar="KIND:TILES",
                   help="a called meld or kan: chi:123m, pon:555p, kan:5555p (open), "
                        "ankan:1111z (closed); repeat for each")
    c.add_argument("--mixed-deck", action="store_true",
                   help="two sets mixed: up to 8 copies of a face (else 4), and its yaku")
    c.add_argument("--completable", action="store_true",
                   help="tenpai only if some wait can still exist (its 5th-8th copy with "
                        "Mixed Deck, never a 9th; else never a 5th)")
    c.add_argument("--backs", metavar="N,M",
                   help="with --mixed-deck: how many of the hand's tiles, called ones too, "
                        "come from each set (for the 7-tiles-from-each-set yaku)")
    c.add_argument("--json", action="store_true",
                   help='one JSON object: "tiles", "calls", "complete", "tenpai", "waits", '
                        '"wait_types", "mixed_deck_yaku", "rulings" and more (docs/HANDS.md)')
    from hostd.cli.hand_score import configure_score

    configure_score(sub)


def _yaku_text(y: dict) -> str:
    return "%s: %s" % (y["name"], "yakuman" if y.get("yakuman") else "%d han" % y["han"])


def _head(r: dict) -> str:
    from hostd.hand.notation import face_text

    rules = ("Mixed Deck, up to 8 copies of a face" if r["mixed_deck"]
             else "one set, up to 4 copies of a face")
    if r["completable"]:
        rules += "; completable tenpai"
    calls = "".join(" %s %s" % (c["kind"], face_text(c["tiles"])) for c in r["calls"])
    return "hand: %s%s (%d tiles; %s)" % (face_text(r["tiles"]), calls, r["tile_count"], rules)


def _complete_lines(r: dict) -> list[str]:
    ds = r["decompositions"]
    lines = ["complete: %s" % ("yes, %d reading%s" % (len(ds), "s" * (len(ds) > 1))
                               if ds else "no")]
    lines.extend("  %s  (%s)" % (" ".join(d["blocks"]), d["form"]) for d in ds)
    if r["mixed_deck"] and ds:
        lines.append("Mixed Deck yaku: %s" % ("; ".join(map(_yaku_text, r["mixed_deck_yaku"]))
                                              or "none"))
    return lines


def _waiting_lines(r: dict) -> list[str]:
    verdict = "yes" if r["tenpai"] else "no"
    if r["tenpai"] and not r["waits"]:
        verdict += " (waiting, but on no tile that can exist: not tenpai with --completable)"
    elif r["shape_waits"] and not r["waits"]:
        verdict += " (waiting, but on no tile that can exist)"
    lines = ["tenpai: " + verdict]
    for w in r["waits"]:
        left = r["copies_left"][w]
        yaku = r["wait_yaku"].get(w)
        lines.append("  wait %s: %s; %d cop%s could remain%s" % (
            w, ", ".join(r["wait_types"][w]), left, "y" if left == 1 else "ies",
            "; winning on it: " + "; ".join(map(_yaku_text, yaku)) if yaku else ""))
    dead = [w for w in r["shape_waits"] if w not in r["waits"]]
    if dead:
        lines.append("  completes the shape but would be copy %d: %s"
                     % (r["copy_limit"] + 1, " ".join(dead)))
    if not r["shape_waits"]:
        lines.append("  no face completes this hand")
    return lines


def text_report(r: dict) -> str:
    """The analysis for a person."""
    lines = [_head(r)]
    lines += _complete_lines(r) if len(r["tiles"]) % 3 == 2 else _waiting_lines(r)
    lines += ["ruling (%s): %s" % (x["id"], x["ruling"]) for x in r["rulings"]]
    return "\n".join(lines) + "\n"


def cmd_hand(args) -> int:
    from hostd.cli.common import hand_answer
    from hostd.hand import analyse

    if args.hand_command == "score":
        from hostd.cli.hand_score import cmd_score

        return cmd_score(args)

    def run(backs):
        return analyse(" ".join(args.hand), mixed_deck=args.mixed_deck,
                       completable=args.completable, backs=backs, calls=args.call)

    return hand_answer(args, run, text_report)

