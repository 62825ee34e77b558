"""Scoring a winning hand (docs/HANDS.md "Scoring"): yaku and han, fu with its breakdown,
dora, the limit, the payments and the chips, the best reading taken; as ``jantaku hand
score --json`` and ``POST /hand/score`` give it.

    score(text, *, win, tsumo=False, seat_wind="east", round_wind="east", dora="", ura="",
          ruleset="riichi", mixed_deck=False, options=None, backs=None, calls=(),
          **situations) -> dict                       # HandError if it cannot be scored

The scorer is ours; ``mahjong`` is only its test and bench peer.
"""
from __future__ import annotations

from hostd.hand.analysis import check_backs
from hostd.hand.chips import chips_of
from hostd.hand.dora import dora_counts, indicated
from hostd.hand.fu import fu_of
from hostd.hand.limits import limit_of, payments, total_of
from hostd.hand.local_yaku import LOCAL, LOCAL_YAKUMAN, local_yaku
from hostd.hand.notation import Hand, HandError, parse_hand
from hostd.hand.readings import UNRELATED, readings
from hostd.hand.riichi_yaku import YAKU, YAKUMAN, Facts, is_pinfu, yaku_of
from hostd.hand.score_rulings import applicable
from hostd.hand.scoring_rules import WINDS, canonical_ruleset, options_for
from hostd.hand.shapes import BLOCK_TEXT
from hostd.hand.tiles import FACES
from hostd.hand.win import Win, make_win

#: The wildcard pocchi (seed 001): a tile -> when it is one (riichi, or an open hand).
POCCHI = {"5zx": "riichi", "7zx": "riichi", "6zx": "open"}


#: Every yaku's name, and the ids that are yakuman: tables made once.
NAMES = {**{y: v[0] for y, v in YAKU.items()}, **{y: v[0] for y, v in YAKUMAN.items()},
         **{y: v[0] for y, v in LOCAL.items()}}
YAKUMAN_IDS = frozenset(YAKUMAN) | LOCAL_YAKUMAN


def _names(ids) -> list[dict]:
    """Each yaku as ``{"id", "name", "han", "yakuman"}``: a yakuman's han is 0, its
    ``yakuman`` how many it counts (2 for a double); an ordinary yaku's ``yakuman`` 0."""
    return [{"id": y, "name": NAMES[y], "han": 0, "yakuman": v} if y in YAKUMAN_IDS else
            {"id": y, "name": NAMES[y], "han": v, "yakuman": 0} for y, v in ids]


def _value(reading, facts: Facts, hand: Hand, dora: dict, backs, mixed_deck: bool) -> dict:
    """One reading's han, fu, limit and points."""
    yaku, ymen = yaku_of(reading, facts)
    lyaku, lymen = local_yaku(reading, facts, hand, backs=backs, mixed_deck=mixed_deck)
    opts = facts.options
    if ymen or lymen:
        yaku, ymen = [], ymen + lymen
        count = sum([n for _, n in ymen])
        han = 13 * count
    else:
        yaku = yaku + lyaku if lyaku else yaku
        count = 0
        han = sum([h for _, h in yaku])
        if han:
            han += dora["dora"] + dora["ura"] + dora["red"] + dora["blue"]
    fu, breakdown = fu_of(reading, tsumo=facts.win.tsumo, closed=facts.closed,
                          valued=facts.valued, pinfu=is_pinfu(reading, facts),
                          options=opts)
    limit, base = limit_of(han, fu, count, options=opts) if han else (None, 0)
    w = facts.win
    return {"reading": reading, "yaku_ids": yaku, "yakuman_ids": ymen, "yakuman": count,
            "han": han, "fu": fu, "fu_breakdown": breakdown, "limit": limit, "base": base,
            "total": total_of(base, dealer=w.dealer, tsumo=w.tsumo), "dora": dora}


def _rank(v: dict) -> tuple:
    return (v["total"], bool(v["yakuman_ids"]), v["han"], v["fu"])


def _closed_hand(text, *, mixed_deck: bool, calls) -> Hand:
    hand = parse_hand(text, mixed_deck=mixed_deck, calls=calls)
    if len(hand.tiles) % 3 != 2:
        raise HandError("%d closed tiles: a won hand holds 3n+2 (14, less 3 for each call), "
                        "the winning tile included" % len(hand.tiles))
    return hand


def _with_face(hand: Hand, old: int, new: int) -> Hand:
    """The hand with one tile of face ``old`` played as face ``new`` (a wildcard)."""
    counts, total = list(hand.counts), list(hand.total)
    counts[old] -= 1
    counts[new] += 1
    total[old] -= 1
    total[new] += 1
    return Hand(hand.tiles, tuple(counts), hand.limit, hand.calls, tuple(total))


def _wildcard(hand: Hand, w: Win, opts: dict, facts_closed: bool) -> bool:
    when = POCCHI.get(w.tile) if opts["special_tiles"] and w.tsumo else None
    return (when == "riichi" and w.in_riichi) or (when == "open" and not facts_closed)


def _candidates(hand: Hand, w: Win, opts: dict):
    """(hand, win) pairs to read: the hand itself, or with a wildcard pocchi drawn, the
    hand with it played as each face that can exist."""
    closed = all(c.kind == "ankan" for c in hand.calls)
    if not _wildcard(hand, w, opts, closed):
        return [(hand, w)]
    out = []
    for f in range(34):
        if f == w.face or hand.total[f] < hand.limit:
            h = _with_face(hand, w.face, f) if f != w.face else hand
            out.append((h, _replace_face(w, f)))
    return out


def _replace_face(w: Win, face: int) -> Win:
    return w._replace(face=face)


def _values(hand: Hand, w: Win, opts: dict, dora_faces, ura_faces, backs, mixed_deck):
    out = []
    for h, win in _candidates(hand, w, opts):
        facts = Facts(h, win, opts)
        dora = dora_counts(h, dora_faces, ura_faces, riichi=win.in_riichi, options=opts)
        first = (win.tenhou or win.chiihou) and "shiisanpuutaa" in opts["local_yaku"]
        for r in readings(h, win.face, win.tsumo, kansai=opts["kansai_chiitoi"],
                          unrelated=first):
            v = _value(r, facts, h, dora, backs, mixed_deck)
            v["facts"], v["hand"] = facts, h
            out.append(v)
    return out


def _reading_dict(v: dict) -> dict:
    r = v["reading"]
    if r.form == UNRELATED:
        blocks = [BLOCK_TEXT[("single", i)] for i in r.pairs]
        blocks += [BLOCK_TEXT[("pair", r.pair)]] if r.pair is not None else []
        return {"form": r.form, "blocks": blocks, "wait": r.wait}
    blocks = [BLOCK_TEXT[(k, i)] for k, i, _, _ in r.sets] if r.sets else \
        [BLOCK_TEXT[("pair", i)] for i in r.pairs]
    if r.pair is not None:
        blocks.append(BLOCK_TEXT[("pair", r.pair)])
    return {"form": r.form, "blocks": blocks, "wait": r.wait}


def _points(v: dict, w: Win) -> dict:
    if not v["han"]:
        return {"total": 0, "payments": []}
    return payments(v["base"], dealer=w.dealer, tsumo=w.tsumo, seat=w.seat)


def _why(v: dict) -> str | None:
    if v["han"]:
        return None
    return "no yaku: the hand wins nothing without one (dora do not count without a yaku)"


def _answer(v, hand: Hand, w: Win, *, ruleset, mixed_deck, opts, chips, rulings) -> dict:
    wild = FACES[v["facts"].win.face] if v["facts"].win.face != w.face else None
    return {
        "tiles": list(hand.tiles), "calls": [c.as_dict() for c in hand.calls],
        "win": w.tile, "tsumo": w.tsumo, "seat_wind": WINDS[w.seat],
        "round_wind": WINDS[w.round], "ruleset": ruleset, "mixed_deck": mixed_deck,
        "options": opts, "han": v["han"], "fu": v["fu"],
        "fu_breakdown": [{"reason": r, "fu": f} for r, f in v["fu_breakdown"]],
        "yaku": _names(v["yakuman_ids"] or v["yaku_ids"]), "yakuman": v["yakuman"],
        "dora": v["dora"], "limit": v["limit"], "points": _points(v, w), "chips": chips,
        "reading": _reading_dict(v), "wildcard_as": wild, "no_yaku": _why(v),
        "rulings": rulings,
    }


def score(text, *, win, tsumo: bool = False, seat_wind: str = "east",
          round_wind: str = "east", dora="", ura="", ruleset: str = "riichi",
          mixed_deck: bool = False, options: dict | None = None, backs=None, calls=(),
          **situations) -> dict:
    """Score the won hand ``text`` (closed tiles, the winning one included; calls apart or
    written in it); :class:`HandError` says why a hand cannot be scored."""
    ruleset = canonical_ruleset(ruleset)
    opts = options_for(ruleset, options)
    hand = _closed_hand(text, mixed_deck=mixed_deck, calls=calls)
    w = make_win(win=win, tsumo=tsumo, seat_wind=seat_wind, round_wind=round_wind,
                 calls=hand.calls, **situations)
    special = w.tile != FACES[w.face]  # a red five or a special tile: named as written
    if w.tile not in hand.tiles and (special or not hand.counts[w.face]):
        raise HandError("win %s: the winning tile is one of the hand's closed tiles, and %s "
                        "is not among them%s" % (w.tile, w.tile, " (a special tile is named "
                                                 "as written)" if special else ""))
    backs = check_backs(backs, hand, mixed_deck) if backs is not None else None
    dora_faces, ura_faces = indicated(dora, "dora"), indicated(ura, "ura")
    values = _values(hand, w, opts, dora_faces, ura_faces, backs, mixed_deck)
    if not values:
        raise HandError("not a winning hand: the closed tiles are not sets and a pair (nor "
                        "seven pairs or thirteen orphans); jantaku hand check shows its waits")
    best = max(values, key=_rank) if len(values) > 1 else values[0]
    chips = chips_of(best["hand"], w, ura=best["dora"]["ura"],
                     yakuman=best["yakuman"] or int(best["limit"] == "kazoe yakuman"),
                     table=opts["chips"] if best["han"] else {})
    scored = len({_rank(v) for v in values}) if len(values) > 1 else 1
    best["chips"] = chips
    best["wildcard"] = best["facts"].win.face != w.face
    rulings = applicable(best["facts"], best, scored=scored, ura_given=bool(ura_faces),
                         hand=best["hand"], mixed_deck=mixed_deck, ruleset=ruleset)
    return _answer(best, hand, w, ruleset=ruleset, mixed_deck=mixed_deck, opts=opts,
                   chips=chips, rulings=rulings)
