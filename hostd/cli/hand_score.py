"""``jantaku hand score HAND --win TILE [--tsumo] [--riichi] ... [--json]``: the scorer
(hostd.hand.score, docs/HANDS.md "Scoring") on the command line; hostd.cli.hand registers
it beside ``hand check``.

Exit status 0 for any hand scored (a hand without a yaku too: 0 han, and why); 2 with a
one-line message for a hand that cannot be scored (unreadable, not complete, a win that
cannot happen, a bad option).
"""
from __future__ import annotations

import json

HELP = "score a won hand: yaku, han, fu with its breakdown, dora, limit, points, chips"
#: The situational flags as options (--double-riichi for double_riichi ...), in
#: hostd.hand.win.SITUATIONS's order (a test checks): written here so that the parser is
#: made without importing the scorer (and pydantic with it).
FLAG_HELP = {
    "riichi": "the hand was in riichi", "double_riichi": "double riichi",
    "open_riichi": "open riichi (with --riichi)", "ippatsu": "ippatsu (with --riichi)",
    "haitei": "won on the last draw (tsumo)", "houtei": "won on the last discard (ron)",
    "rinshan": "won on a kan's replacement tile (tsumo)", "chankan": "robbed a kan (ron)",
    "tenhou": "the dealer's first draw", "chiihou": "a non-dealer's first draw",
    "renhou": "a non-dealer's ron before their first draw",
}


def configure_score(sub) -> None:
    c = sub.add_parser("score", help=HELP, description=HELP + " (docs/HANDS.md)")
    c.add_argument("hand", nargs="+", metavar="HAND",
                   help="closed tiles in mpsz, the winning tile included (14, less 3 for each "
                        "call); calls may follow as KIND:TILES (234m55p pon:777z ...)")
    c.add_argument("--win", required=True, metavar="TILE", help="the winning tile, e.g. 6p")
    c.add_argument("--tsumo", action="store_true", help="won by tsumo (else ron)")
    c.add_argument("--call", action="append", default=[], metavar="KIND:TILES",
                   help="a called meld or kan: chi:123m, pon:555p, kan:5555p, ankan:1111z")
    c.add_argument("--seat-wind", default="east", metavar="WIND",
                   help="east (the dealer, default), south, west or north")
    c.add_argument("--round-wind", default="east", metavar="WIND", help="default east")
    c.add_argument("--dora", default="", metavar="TILES", help="dora indicators, e.g. 4m9p")
    c.add_argument("--ura", default="", metavar="TILES", help="ura dora indicators (riichi)")
    c.add_argument("--ruleset", default="riichi", metavar="NAME",
                   help="riichi (default) or speed-tonpuu: its scoring options")
    c.add_argument("--mixed-deck", action="store_true",
                   help="two sets mixed: up to 8 copies of a face, and its yaku")
    c.add_argument("--backs", metavar="N,M",
                   help="with --mixed-deck: the hand's tiles from each set")
    c.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="override a scoring option: kiriage=true, local_yaku=[], "
                        'chips={"red": 2} (JSON values; docs/HANDS.md "Scoring options")')
    for s in FLAG_HELP:
        c.add_argument("--" + s.replace("_", "-"), dest=s, action="store_true",
                       help=FLAG_HELP[s])
    c.add_argument("--json", action="store_true",
                   help='one JSON object: "han", "fu", "fu_breakdown", "yaku", "dora", '
                        '"limit", "points", "chips", "rulings" (docs/HANDS.md)')


def parse_options(items) -> dict | None:
    """``NAME=VALUE`` words -> overrides (VALUE in JSON: true, false, [...], {...})."""
    from hostd.hand import HandError

    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise HandError("--option %r: write NAME=VALUE, e.g. kiriage=true" % item)
        try:
            out[name.strip()] = json.loads(value)
        except ValueError:
            raise HandError("--option %s: %r is not a JSON value (true, false, [\"west\"], "
                            "{\"red\": 1})" % (name, value)) from None
    return out or None


def _yaku_text(y: dict) -> str:
    if y["yakuman"]:
        return "%s (%s)" % (y["name"], "yakuman" if y["yakuman"] == 1
                            else "%dx yakuman" % y["yakuman"])
    return "%s %d" % (y["name"], y["han"])


def _value_line(r: dict) -> str:
    p = r["points"]
    shares = ", ".join("%s %d" % (x["payer"], x["points"]) for x in p["payments"])
    limit = " (%s)" % r["limit"] if r["limit"] else ""
    return "%d han %d fu%s: %d (%s)" % (r["han"], r["fu"], limit, p["total"], shares)


def text_report(r: dict) -> str:
    from hostd.hand.notation import face_text

    calls = "".join(" %s %s" % (c["kind"], face_text(c["tiles"])) for c in r["calls"])
    how = "tsumo" if r["tsumo"] else "ron"
    lines = ["hand: %s%s (win %s, %s; seat %s, round %s; %s%s)" % (
        face_text(r["tiles"]), calls, r["win"], how, r["seat_wind"], r["round_wind"],
        r["ruleset"], ", Mixed Deck" if r["mixed_deck"] else "")]
    read = r["reading"]
    lines.append("reading: %s (%s, %s wait)" % (" ".join(read["blocks"]), read["form"],
                                                 read["wait"]))
    if r["wildcard_as"]:
        lines.append("wildcard: %s played as %s" % (r["win"], r["wildcard_as"]))
    d = r["dora"]
    lines.append("dora: %d, ura %d, red %d, blue %d" % (d["dora"], d["ura"], d["red"], d["blue"]))
    if not r["han"]:
        lines.append(r["no_yaku"])
    else:
        lines.append("yaku: " + "; ".join(map(_yaku_text, r["yaku"])))
        lines.append(_value_line(r))
        lines.append("fu: " + ", ".join("%s %d" % (f["reason"], f["fu"])
                                        for f in r["fu_breakdown"]))
    if r["chips"]["items"]:
        lines.append("chips: %d%s (%s)" % (
            r["chips"]["total"], " (%d from each)" % r["chips"]["per_payer"]
            if r["chips"]["payers"] > 1 else "",
            ", ".join("%s %d" % (i["item"], i["chips"]) for i in r["chips"]["items"])))
    lines += ["ruling (%s): %s" % (x["id"], x["ruling"]) for x in r["rulings"]]
    return "\n".join(lines) + "\n"


def cmd_score(args) -> int:
    from hostd.cli.common import hand_answer
    from hostd.hand.score import score
    from hostd.hand.win import SITUATIONS

    def run(backs):
        return score(" ".join(args.hand), win=args.win, tsumo=args.tsumo,
                     seat_wind=args.seat_wind, round_wind=args.round_wind, dora=args.dora,
                     ura=args.ura, ruleset=args.ruleset, mixed_deck=args.mixed_deck,
                     options=parse_options(args.option), backs=backs, calls=args.call,
                     **{s: True for s in SITUATIONS if getattr(args, s)})

    return hand_answer(args, run, text_report)
