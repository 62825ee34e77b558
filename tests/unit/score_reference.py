"""An independent reference scorer (tests only): docs/HANDS.md "Scoring" and the seeds
written out again the slow, obvious way, sharing no code with hostd.hand. Readings come
from tests/unit/hand_reference.py (brute force); every reading is tried with every block
the winning tile can complete; each yaku is a rule over the finished sets. It knows
Mixed Deck's copy yaku (up to 8 copies) and Speed Tonpuu's special tiles, Kansai chiitoi,
local yaku and wildcard pocchi, so the scorer's answers beyond the ``mahjong`` library's
world (which holds at most 4 copies and no special tiles) are checked against it; the
test checks the reference itself against ``mahjong`` on ordinary hands first.

    ref_score(tiles, calls, win, *, tsumo, seat, round, flags, dora, ura, rules) -> (han, fu, total)

``tiles``: the closed tiles as written (``"5p"``, ``"0p"``, ``"7pb"``, ``"5zx"``);
``calls``: [(kind, [tiles])]; ``win``: the winning tile as written; ``seat``/``round``
0-3; ``dora``/``ura``: indicator faces (0..33); ``rules``: "riichi" or "speed-tonpuu";
han 0 for no yaku.
"""
from tests.unit.hand_reference import FACES, ORPHANS, readings, wait_type

SPECIAL = {"0m": "5m", "0p": "5p", "0s": "5s", "7mb": "7m", "7pb": "7p", "7sb": "7s",
           "5pg": "5p", "5zx": "5z", "6zx": "6z", "7zx": "7z"}
TERMINAL_OR_HONOUR = set(ORPHANS)
GREENS = {FACES.index(f) for f in ("2s", "3s", "4s", "6s", "8s", "6z")}
DOUBLE = {"kokushi_13", "chuuren_9", "suuankou_tanki", "daisuushi"}


def face(tile):
    return FACES.index(SPECIAL.get(tile, tile))


def is_simple(f):
    return f not in TERMINAL_OR_HONOUR


def set_faces(s):
    kind, f = s[0], s[1]
    return [f, f + 1, f + 2] if kind == "run" else [f] * (4 if s[3] else 3)


# -- readings, with the final block ---------------------------------------------------------

def scored_readings(counts, calls, win, tsumo, kansai):
    """(form, sets, pair, wait, pairs) for each reading and final block."""
    called = []
    for kind, tiles in calls:
        fs = sorted(face(t) for t in tiles)
        called.append(("run" if kind == "chi" else "triplet", fs[0], kind == "ankan",
                       kind in ("kan", "ankan")))
    out = []
    for form, blocks in readings(counts):
        if form != "sets":
            out.append((form, [], None, "tanki", [b[1] for b in blocks]))
            continue
        for k, block in enumerate(blocks):
            if win not in (block[1], block[1] + 1, block[1] + 2) if block[0] == "run" \
                    else block[1] != win:
                continue
            sets, pair = [], None
            for j, (kind, f) in enumerate(blocks):
                if kind == "pair":
                    pair = f
                else:
                    sets.append((kind, f, tsumo or j != k or kind == "run", False))
            out.append(("sets", sets + called, pair, wait_type(block, win), []))
    if kansai and not calls and sum(counts) == 14 and all(n % 2 == 0 for n in counts) \
            and max(counts) >= 4:
        pairs = [f for f in range(34) for _ in range(counts[f] // 2)]
        out.append(("kansai", [], None, "tanki", pairs))
    return out


# -- the yaku, one rule each ------------------------------------------------------------------

def standard_yaku(r, c):
    """{id: han} or {id: yakuman count} for a reading ``r`` in context ``c``."""
    form, sets, pair, wait, pairs = r
    ymen = {}
    total, closed = c["total"], c["closed"]
    held = [f for f in range(34) if total[f]]
    trips = [s for s in sets if s[0] == "triplet"]
    runs = [s for s in sets if s[0] == "run"]
    tface = [s[1] for s in trips]
    if form == "thirteen orphans":
        ymen["kokushi_13" if total[c["win"]] == 2 else "kokushi"] = 1
    if form == "sets":
        if len(trips) == 4 and all(s[2] for s in trips):
            ymen["suuankou_tanki" if wait == "tanki" else "suuankou"] = 1
        if {31, 32, 33} <= set(tface):
            ymen["daisangen"] = 1
        winds = {f for f in tface if 27 <= f <= 30}
        if len(winds) == 4:
            ymen["daisuushi"] = 1
        elif len(winds) == 3 and pair is not None and 27 <= pair <= 30 and pair not in winds:
            # the pair is the fourth wind: with Mixed Deck it may be a triplet's 4th-8th copy
            ymen["shousuushi"] = 1
        if sum(1 for s in sets if s[3]) == 4:
            ymen["suukantsu"] = 1
        if not c["calls"] and len({f // 9 for f in held}) == 1 and held[-1] < 27:
            base = held[0] // 9 * 9
            extra = [total[base + k] - (3 if k in (0, 8) else 1) for k in range(9)]
            if min(extra) >= 0:
                ymen["chuuren_9" if total[c["win"]] in (2, 4) else "chuuren"] = 1
    if all(f >= 27 for f in held):
        ymen["tsuuiisou"] = 1
    if all(f in TERMINAL_OR_HONOUR and f < 27 for f in held):
        ymen["chinroutou"] = 1
    if all(f in GREENS for f in held):
        ymen["ryuuiisou"] = 1
    for flag in ("tenhou", "chiihou"):
        if c["flags"].get(flag):
            ymen[flag] = 1
    if c["flags"].get("renhou") and c["rules"] == "speed-tonpuu":
        ymen["renhou"] = 1
    if ymen:
        return {}, ymen
    y = {}
    fl = c["flags"]
    if fl.get("riichi") or fl.get("double_riichi"):
        y["riichi"] = (2 if fl.get("double_riichi") else 1) + (1 if fl.get("open_riichi") else 0)
    for flag in ("ippatsu", "haitei", "houtei", "rinshan", "chankan"):
        if fl.get(flag):
            y[flag] = 1
    if fl.get("renhou"):
        y["renhou"] = 5
    if c["tsumo"] and closed:
        y["tsumo"] = 1
    if all(is_simple(f) for f in held):
        y["tanyao"] = 1
    if form in ("seven pairs", "kansai"):
        y["chiitoitsu"] = 2
    suits = {f // 9 for f in held if f < 27}
    if len(suits) == 1:
        y["chinitsu" if held[-1] < 27 else "honitsu"] = (6 if held[-1] < 27 else 3) - (not closed)
    if all(f in TERMINAL_OR_HONOUR for f in held) and held[0] < 27 and held[-1] >= 27:
        y["honroutou"] = 2
    if form == "sets":
        _set_rules(r, c, y, runs, trips, tface)
    return y, {}


def _set_rules(r, c, y, runs, trips, tface):
    form, sets, pair, wait, pairs = r
    closed = c["closed"]
    value = c["value"]
    if closed and not trips and wait == "ryanmen" and pair not in value:
        y["pinfu"] = 1
    starts = [s[1] for s in runs]
    if closed:
        twins = sum(starts.count(x) // 2 for x in set(starts))
        if twins >= 2:
            y["peikou"] = 3
        elif twins == 1:
            y["peikou"] = 1
    for rank in range(7):
        if all(rank + 9 * k in starts for k in range(3)):
            y["sanshoku"] = 2 - (not closed)
    for s in (0, 9, 18):
        if all(s + k in starts for k in (0, 3, 6)):
            y["ittsu"] = 2 - (not closed)
    blocks = [set_faces(s) for s in sets] + [[pair, pair]]
    if runs and all(any(f in TERMINAL_OR_HONOUR for f in b) for b in blocks):
        if any(f >= 27 for b in blocks for f in b):
            y["chanta"] = 2 - (not closed)
        else:
            y["junchan"] = 3 - (not closed)
    if len(trips) == 4:
        y["toitoi"] = 2
    if sum(1 for s in trips if s[2]) == 3:
        y["sanankou"] = 2
    if sum(1 for s in sets if s[3]) == 3:
        y["sankantsu"] = 2
    for rank in range(9):
        if all(rank + 9 * k in tface for k in range(3)):
            y["doukou"] = 2
    dragons = {f for f in tface if f >= 31}
    if len(dragons) == 2 and pair is not None and pair >= 31 and pair not in dragons:
        y["shousangen"] = 2
    n = 0
    for f in tface:
        n += (f >= 31) + (f == 27 + c["seat"]) + (f in c["rounds"])
    if n:
        y["yakuhai"] = n


def local_rules(r, c, y, ymen):
    """Mixed Deck's and Speed Tonpuu's yaku (as their seeds, and docs/HANDS.md's rulings)."""
    total, tiles = c["total"], c["tiles"]
    if c["mixed_deck"]:
        if max(total) == 8:
            ymen["eight"] = 1
        elif max(total) >= 5:
            y["copies"] = 1
    if c["rules"] != "speed-tonpuu":
        return
    if "5pg" in tiles:
        y["gold"] = 1
    if r[0] == "kansai":
        quads = sum(n // 4 for n in total)
        if quads >= 3:
            ymen["kansai3"] = 1
        else:
            y["kansai"] = {1: 1, 2: 3}[quads]
    tface = {s[1] for s in r[1] if s[0] == "triplet"}
    for f in tface:
        if f < 27 and f % 9 <= 5 and all(f + k in tface for k in range(4)):
            ymen["suurenko"] = 1
    if "suurenko" not in ymen:
        for f in tface:
            if f < 27 and f % 9 <= 6 and all(f + k in tface for k in range(3)):
                y["sanrenko"] = 2
    if len([f for f in tface if 27 <= f <= 30]) == 3:
        y["sanpuuko"] = 2
    if all(t in tiles for t in ("0m", "0p", "0s", "5pg", "7mb", "7pb", "7sb")):
        ymen["allstars"] = 1


# -- fu and points ----------------------------------------------------------------------------

def fu_of(r, c, pinfu):
    form, sets, pair, wait, pairs = r
    if form in ("seven pairs", "kansai"):
        return 25
    if form == "thirteen orphans":
        return 0
    fu = 20
    if c["closed"] and not c["tsumo"]:
        fu += 10
    if wait in ("kanchan", "penchan", "tanki"):
        fu += 2
    fu += 2 * c["value"].count(pair)
    for kind, f, concealed, kan in sets:
        if kind == "triplet":
            fu += 2 * (2 if f in TERMINAL_OR_HONOUR else 1) * (2 if concealed else 1) * \
                (4 if kan else 1)
    if c["tsumo"] and not pinfu:
        fu += 2
    if not c["closed"] and fu == 20:
        return 30
    return -(-fu // 10) * 10


def base_points(han, fu, ymen, rules):
    if ymen:
        return 8000 * min(ymen, 6)
    if han >= 13:
        return 8000
    if han >= 11:
        return 6000
    if han >= 8:
        return 4000
    if han >= 6:
        return 3000
    if han == 5 or (rules == "speed-tonpuu" and (han, fu) in ((4, 30), (3, 60))):
        return 2000
    return min(2000, fu * 2 ** (2 + han))


def total_points(base, dealer, tsumo):
    up = lambda x: -(-x // 100) * 100  # noqa: E731
    if not tsumo:
        return up(base * (6 if dealer else 4))
    return 3 * up(2 * base) if dealer else up(2 * base) + 2 * up(base)


def _value(r, c):
    y, ymen = standard_yaku(r, c)
    local_rules(r, c, y, ymen)
    if ymen:
        count = sum(2 if k in DOUBLE else 1 for k in ymen)
        han, y = 13 * count, {}
    else:
        count = 0
        han = sum(y.values())
        if han:
            han += c["dora"]
    fu = fu_of(r, c, _pinfu_shape(r, c))
    if not han:
        return (0, 0, 0, fu)
    total = total_points(base_points(han, fu, count, c["rules"]), c["seat"] == 0, c["tsumo"])
    return (total, bool(count), han, fu)


def _pinfu_shape(r, c):
    form, sets, pair, wait, _ = r
    return (form == "sets" and c["closed"] and wait == "ryanmen" and pair not in c["value"]
            and all(s[0] == "run" for s in sets))


def _thirteen_unrelated(counts):
    """14 tiles, no set or partial set: each suit's held ranks 3 or more apart, at most
    one face twice, none three times."""
    if sum(counts) != 14 or max(counts) > 2 or counts.count(2) > 1:
        return False
    for s in (0, 9, 18):
        held = [r for r in range(9) if counts[s + r]]
        for a in held:
            if any(0 < b - a < 3 for b in held):
                return False
    return True


def dora_face(indicator):
    """The face an indicator makes dora: the next in its suit (9 -> 1), winds in the order
    E S W N E, dragons white green red white."""
    if indicator < 27:
        return indicator + 1 if indicator % 9 < 8 else indicator - 8
    if indicator < 31:
        return 27 if indicator == 30 else indicator + 1
    return 31 if indicator == 33 else indicator + 1


def ref_score(tiles, calls, win, *, tsumo, seat, round, flags, dora, ura, rules,
              mixed_deck=False):
    every = list(tiles) + [t for _, ts in calls for t in ts]
    wild = rules == "speed-tonpuu" and tsumo and (
        (win in ("5zx", "7zx") and (flags.get("riichi") or flags.get("double_riichi"))) or
        (win == "6zx" and any(k != "ankan" for k, _ in calls)))
    limit = 8 if mixed_deck else 4
    best = (0, False, 0, 0)
    as_faces = range(34) if wild else [face(win)]
    for wf in as_faces:
        counts = [0] * 34
        for t in tiles:
            counts[face(t)] += 1
        counts[face(win)] -= 1
        counts[wf] += 1
        total = list(counts)
        for _, ts in calls:
            for t in ts:
                total[face(t)] += 1
        if total[wf] > limit:
            continue
        in_riichi = flags.get("riichi") or flags.get("double_riichi")
        rounds = {27 + round} | ({29} if rules == "speed-tonpuu" else set())
        d = sum(total[dora_face(f)] for f in dora)
        d += sum(total[dora_face(f)] for f in ura) if in_riichi else 0
        d += sum(1 for t in every if t[0] == "0")
        if rules == "speed-tonpuu":
            d += sum(1 for t in every if t.endswith("b"))
        c = {"total": total, "closed": all(k == "ankan" for k, _ in calls), "calls": calls,
             "win": wf, "tsumo": tsumo, "flags": flags, "seat": seat, "rules": rules,
             "rounds": rounds, "value": [31, 32, 33, 27 + seat] + sorted(rounds), "dora": d,
             "tiles": every, "mixed_deck": mixed_deck}
        found = scored_readings(tuple(counts), calls, wf, tsumo, rules == "speed-tonpuu")
        for r in found:
            best = max(best, _value(r, c))
        if not found and rules == "speed-tonpuu" and (flags.get("tenhou") or
                                                     flags.get("chiihou")):
            if _thirteen_unrelated(counts):  # shiisanpuutaa: a first-draw yakuman
                best = max(best, (total_points(8000, seat == 0, tsumo), True, 13, 0))
    total, _, han, fu = best
    return han, (fu if han else None), total
