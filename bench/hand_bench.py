"""The hand analyser (hostd.hand) against a peer written by others, the PyPI ``mahjong``
library (pinned in the dev extra): its answers, then its speed beside the peer's.

1. Cross-check, on random hands with at most 4 copies of each face (the peer's world),
   from a fixed seed. Closed hands: uniform draws from a 136-tile wall, hands built from
   sets and a pair, the same with one tile taken away or swapped, seven-pairs-like and
   thirteen-orphans-like hands; every size from 1 to 14 tiles, mostly 13 and 14. For
   each, ours (from its mpsz text, ``completable=True``, one set) against the peer's
   ``Agari.is_agari`` (complete), ``HandDivider.divide_hand`` (every reading of a
   complete 14-tile hand), ``Shanten.calculate_shanten == 0`` (tenpai: the peer, like
   our completable ruling, does not count a wait on a 5th copy) and the faces whose
   addition ``is_agari`` accepts without a 5th copy (waits). Open hands: 1 to 4 calls
   (chi, pon, kan, ankan) and the closed rest, against ``is_agari`` on the closed part,
   a 5th copy counted across the calls (complete, waits, tenpai = some wait).
2. Speed, ``--speed`` hands a row from a fixed seed, at most 4 copies: 14 tiles (a third
   random draws, a third one tile from complete, a third complete) and 13 tiles (a
   third random, a third tenpai: a complete hand less a tile, a third one tile from
   tenpai: the same with a tile swapped; 13 tiles cannot be complete). Ours: the full
   answer (``analyse``) from the text, ``clear_caches()`` before each hand. The peer:
   the same question from the same hand's text (its per-suit strings, split before
   timing), its divider's cache cleared too: 14 tiles ``string_to_34_array``,
   ``is_agari`` and, if complete, ``divide_hand``; 13 tiles ``string_to_34_array``,
   ``calculate_shanten`` and, if tenpai, ``is_agari`` for each face that could be drawn.
   Interleaved hand by hand (which goes first alternates), in one process, over
   ``--rounds`` rounds in a fresh order each, the collector paused while timing; each
   figure is the median of the rounds' figures, with their spread [min-max]. Then
   Mixed Deck hands with 8 copies of a face (no peer: it counts at most 4).

    .venv/bin/python bench/hand_bench.py [--hands 200000] [--speed 3000] [--rounds 7]
                                         [--seed 19] [--no-check]

tests/unit/test_hand_crosscheck.py runs the cross-checks on smaller samples.
"""
import argparse
import gc
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from hostd.hand import analyse, clear_caches  # noqa: E402
from hostd.hand.notation import FACES  # noqa: E402
from hostd.hand.shapes import ORPHANS  # noqa: E402

SIZES_3N1 = (1, 4, 7, 10, 13)
SIZES_3N2 = (2, 5, 8, 11, 14)
CALL_SIZES = {"chi": 3, "pon": 3, "kan": 4, "ankan": 4}


# -- hands ------------------------------------------------------------------------------------

def _draw(rng, wall, n, c):
    """Draw ``n`` tiles at random from ``wall`` (counts left) into ``c``."""
    for _ in range(n):
        i = rng.choices(range(34), weights=wall)[0]
        wall[i] -= 1
        c[i] += 1


def _block(rng, c, room, runs=0.6):
    """Add one random set (a run with chance ``runs``, else a triplet) to ``c`` within
    ``room`` (copies each face may still take); False if 50 tries found none."""
    for _try in range(50):
        i = rng.randrange(34)
        blk = [i, i + 1, i + 2] if (rng.random() < runs and i < 27 and i % 9 <= 6) else [i] * 3
        if all(c[j] + blk.count(j) <= room[j] for j in blk):
            for j in blk:
                c[j] += 1
            return True
    return False


def _built(rng, size, limit=4, fixed=None, room=None):
    """A complete hand of ``size`` (3n+2) tiles from random sets and a pair, at most
    ``limit`` copies (or ``room``, per face); ``fixed`` = counts already placed: sets, or
    sets and the pair."""
    room = room or [limit] * 34
    while True:
        c = list(fixed) if fixed else [0] * 34
        need_pair = 0 if sum(c) % 3 == 2 else 1
        need_sets = (size - sum(c) - 2 * need_pair) // 3
        ok = all(_block(rng, c, room) for _ in range(need_sets))
        if need_pair:
            free = [i for i in range(34) if c[i] + 2 <= room[i]]
            if not free:
                continue
            c[rng.choice(free)] += 2
        if ok and sum(c) == size:
            return c


def _remove_one(rng, c):
    i = rng.choice([k for k in range(34) if c[k]])
    c[i] -= 1
    return c


def _swap_one(rng, c, limit=4, room=None):
    _remove_one(rng, c)
    room = room or [limit] * 34
    i = rng.choice([k for k in range(34) if c[k] < room[k]])
    c[i] += 1
    return c


def sample_hand(rng):
    """One random closed hand, at most 4 copies of a face (the peer's world), as counts."""
    kind = rng.random()
    big = rng.random() < 0.8  # mostly 13/14 tiles
    if kind < 0.25:
        n = rng.choice((13, 14) if big else SIZES_3N1 + SIZES_3N2)
        c = [0] * 34
        _draw(rng, [4] * 34, n, c)
        return c
    if kind < 0.45:
        return _built(rng, 14 if big else rng.choice(SIZES_3N2))
    if kind < 0.75:
        return _remove_one(rng, _built(rng, 14 if big else rng.choice(SIZES_3N2)))
    if kind < 0.85:
        c = _built(rng, 14 if big else rng.choice(SIZES_3N2))
        return _swap_one(rng, c) if rng.random() < 0.5 else _remove_one(rng, _swap_one(rng, c))
    if kind < 0.93:  # seven pairs, sometimes a face twice (4 copies)
        c = [0] * 34
        for i in rng.sample(range(34), 7):
            c[i] += 2
        if rng.random() < 0.2:
            c[rng.choice([i for i in range(34) if c[i] == 2])] += 2
            _remove_one(rng, c), _remove_one(rng, c)
        return _remove_one(rng, c) if rng.random() < 0.6 else c
    c = [0] * 34  # thirteen orphans and neighbours
    for i in ORPHANS:
        c[i] = 1
    c[rng.choice(ORPHANS)] += 1
    r = rng.random()
    return _remove_one(rng, c) if r < 0.5 else _swap_one(rng, c) if r < 0.75 else c


def _one_call(rng, total, limit, favour=None):
    """A random call that fits ``total`` (copies held so far) within ``limit``: (kind,
    first face); ``favour`` = faces to prefer (for many copies of a face)."""
    while True:
        kind = rng.choice(("chi", "pon", "pon", "kan", "ankan"))
        i = rng.choice(favour) if favour and rng.random() < 0.7 else rng.randrange(34)
        faces = [i, i + 1, i + 2] if kind == "chi" else [i] * CALL_SIZES[kind]
        if kind == "chi" and not (i < 27 and i % 9 <= 6):
            continue
        if all(total[j] + faces.count(j) <= limit for j in faces):
            for j in faces:
                total[j] += 1
            return kind, faces


def open_hand(rng, limit=4, calls=None):
    """A random hand with ``calls`` (1 to 4, random if None) called melds and kans and
    the closed rest, at most ``limit`` copies of a face across both: (closed counts,
    [(kind, faces)]). The closed part is complete, one tile from complete, tenpai, near
    tenpai or random, 3n+2 or 3n+1 tiles."""
    k = calls if calls is not None else rng.randint(1, 4)
    favour = rng.sample(range(34), 2) if limit > 4 else None
    total, made = [0] * 34, []
    for _ in range(k):
        made.append(_one_call(rng, total, limit, favour))
    room = [limit - t for t in total]
    size = 14 - 3 * k
    kind = rng.random()
    if kind < 0.15:
        closed = [0] * 34
        _draw(rng, room, size - (rng.random() < 0.5), closed)
        return closed, made
    closed = _built(rng, size, room=room)
    if kind < 0.4:
        return closed, made
    if kind < 0.8:
        return _remove_one(rng, closed), made
    closed = _swap_one(rng, closed, room=room)
    return (closed if rng.random() < 0.5 else _remove_one(rng, closed)), made


def text_of(c, rng=None):
    """mpsz text for counts, grouped (``123m``) or tile by tile (``1m2m3m``)."""
    faces = [FACES[i] for i in range(34) for _ in range(c[i])]
    if rng is not None and rng.random() < 0.5:
        return "".join(faces)
    out, suit = "", None
    for f in faces:
        if f[1] != suit and suit is not None:
            out += suit
        out, suit = out + f[0], f[1]
    return out + (suit or "")


def call_text(kind, faces):
    """``pon:555p`` for a call."""
    c = [0] * 34
    for f in faces:
        c[f] += 1
    return "%s:%s" % (kind, text_of(c))


# -- the two views ----------------------------------------------------------------------------

def _peer_readings(c):
    """The peer's readings of a complete 14-tile hand, as sorted block texts."""
    from mahjong.hand_calculating.divider import HandDivider

    out = []
    for blocks in HandDivider.divide_hand(c):
        out.append(tuple(sorted(text_of([b.count(i) for i in range(34)]) for b in blocks)))
    return sorted(out)


def _our_readings(r):
    return sorted(tuple(sorted(d["blocks"])) for d in r["decompositions"]
                  if d["form"] != "thirteen orphans")


def peer_view(c, total=None):
    """The peer's answer for closed counts ``c`` (``total``: with the calls' copies):
    (complete, tenpai, waits, shape waits). The shape waits include faces that would be
    a 5th copy: the peer's ``is_agari`` is not made for 5 copies (it answers wrongly
    both ways), so they are not cross-checked, only counted (tests/unit/test_hand_waits.py
    checks ours against our own shapes). With calls, tenpai is: some wait."""
    from mahjong.agari import Agari
    from mahjong.shanten import Shanten

    total = total or c
    if sum(c) % 3 == 2:
        return Agari.is_agari(c), False, [], []
    shape = []
    for f in range(34):
        c[f] += 1
        if Agari.is_agari(c):
            shape.append(f)
        c[f] -= 1
    waits = [f for f in shape if total[f] < 4]
    tenpai = Shanten.calculate_shanten(c) == 0 if total is c else bool(waits)
    return False, tenpai, waits, shape


def our_view(text, calls=()):
    r = analyse(text, completable=True, calls=calls)
    return (r["complete"], r["tenpai"], [FACES.index(f) for f in r["waits"]],
            [FACES.index(f) for f in r["shape_waits"]], r)


def _tally(t, bad, text, ours, peer):
    t["hands"] += 1
    t["complete"] += peer[0]
    t["tenpai"] += peer[1]
    t["waits_total"] += len(peer[2])
    t["karaten"] += bool(ours[3]) and not ours[2]
    for k, key in enumerate(("agree_complete", "agree_tenpai", "agree_waits")):
        t[key] += ours[k] == peer[k]
    if ours[:3] == peer[:3]:
        t["agree_all"] += 1
    elif len(bad) < 5:
        bad.append((text, ours[:3], peer[:3]))
    t["fifth_copy_differs"] += ours[3] != peer[3]


def _new_tally():
    return {"hands": 0, "complete": 0, "tenpai": 0, "waits_total": 0, "agree_complete": 0,
            "agree_tenpai": 0, "agree_waits": 0, "agree_all": 0, "karaten": 0,
            "fifth_copy_differs": 0, "readings": 0, "agree_readings": 0}


def cross_check(hands, seed=19):
    """Compare closed hands; returns a dict of tallies and the first few disagreements
    (hand text, ours, peer's); every complete 14-tile hand's readings too."""
    rng = random.Random("hand-crosscheck:%s" % seed)
    t, bad = _new_tally(), []
    for _ in range(hands):
        c = sample_hand(rng)
        text = text_of(c, rng)
        ours, peer = our_view(text), peer_view(c)
        _tally(t, bad, text, ours, peer)
        if peer[0] and sum(c) == 14:
            t["readings"] += 1
            same = _our_readings(ours[4]) == _peer_readings(c)
            t["agree_readings"] += same
            if not same and len(bad) < 5:
                bad.append((text, _our_readings(ours[4]), _peer_readings(c)))
    t["disagreements"] = bad
    return t


def cross_check_open(hands, seed=19):
    """Compare open hands (1 to 4 calls, at most 4 copies across them); the same tallies."""
    rng = random.Random("hand-crosscheck-open:%s" % seed)
    t, bad = _new_tally(), []
    for _ in range(hands):
        closed, made = open_hand(rng)
        total = list(closed)
        for _kind, faces in made:
            for f in faces:
                total[f] += 1
        text = text_of(closed, rng)
        calls = [call_text(kind, faces) for kind, faces in made]
        _tally(t, bad, "%s %s" % (text, " ".join(calls)), our_view(text, calls),
               peer_view(closed, total))
    t["disagreements"] = bad
    return t


# -- speed ------------------------------------------------------------------------------------

def _not_complete(rng, make):
    from mahjong.agari import Agari

    while True:
        c = make()
        if not Agari.is_agari(c):
            return c


def speed_hands(rng, n, size):
    """``n`` hands of ``size`` (14 or 13) tiles, at most 4 copies, in thirds (see the
    module's doc), as counts."""
    out = []
    for k in range(n):
        third = k % 3
        if third == 0:
            c = [0] * 34
            _draw(rng, [4] * 34, size, c)
        elif size == 14:
            c = _built(rng, 14) if third == 2 else _not_complete(
                rng, lambda: _swap_one(rng, _built(rng, 14)))
        else:
            c = _remove_one(rng, _built(rng, 14))
            if third == 2:
                c = _swap_one(rng, c)
        out.append(c)
    return out


def eight_copy_hands(rng, n, size=14):
    """Hands of ``size`` (14 or 13) tiles with 8 copies of one face, half built from sets
    and a pair (less a tile for 13), half the 8 and random tiles."""
    out = []
    while len(out) < n:
        fixed = [0] * 34
        fixed[rng.randrange(34)] = 8
        if len(out) % 2 == 0:  # the 8 as two triplets and the pair (or runs), + sets
            c = _built(rng, 14, limit=8, fixed=fixed)
            if size == 13:
                _remove_one(rng, c)
        else:
            c = list(fixed)
            _draw(rng, [8 - k for k in fixed], size - 8, c)
        out.append(text_of(c))
    return out


def suit_strings(c):
    """The peer's text for a hand: its per-suit strings (``man="123"``...)."""
    out = {}
    for key, base, n in (("man", 0, 9), ("pin", 9, 9), ("sou", 18, 9), ("honors", 27, 7)):
        out[key] = "".join(str(i - base + 1) * c[i] for i in range(base, base + n)) or None
    return out


def peer14(strings):
    from mahjong.agari import Agari
    from mahjong.hand_calculating.divider import HandDivider
    from mahjong.tile import TilesConverter

    t = TilesConverter.string_to_34_array(**strings)
    return HandDivider.divide_hand(t) if Agari.is_agari(t) else None


def peer13(strings):
    from mahjong.agari import Agari
    from mahjong.shanten import Shanten
    from mahjong.tile import TilesConverter

    t = TilesConverter.string_to_34_array(**strings)
    waits = []
    if Shanten.calculate_shanten(t) == 0:
        for f in range(34):
            if t[f] < 4:
                t[f] += 1
                if Agari.is_agari(t):
                    waits.append(f)
                t[f] -= 1
    return waits


def _clear_all():
    from mahjong.hand_calculating.divider import HandDivider

    clear_caches()
    HandDivider._divide_hand_impl.cache_clear()


def _one_round(items, ours, peer, rng):
    """Time every item once, both sides, interleaved; returns (ours ns, peer ns) lists."""
    a, b = [], []
    order = list(range(len(items)))
    rng.shuffle(order)
    clock = time.perf_counter_ns
    gc.collect()
    gc.disable()
    try:
        for k in order:
            text, strings = items[k]
            for side in ((0, 1) if k % 2 else (1, 0)):
                _clear_all()
                if side == 0:
                    t0 = clock()
                    ours(text)
                    a.append(clock() - t0)
                elif peer is not None:
                    t0 = clock()
                    peer(strings)
                    b.append(clock() - t0)
    finally:
        gc.enable()
    return a, b


def percentile_us(ns, q):
    s = sorted(ns)
    return s[min(len(s) - 1, int(q * len(s)))] / 1000


def timed(items, ours, peer, rounds, seed):
    """Per round: (our median, our p99, peer median, peer p99) in us."""
    rng = random.Random("hand-speed-order:%s" % seed)
    out = []
    for _ in range(rounds):
        a, b = _one_round(items, ours, peer, rng)
        out.append((percentile_us(a, 0.5), percentile_us(a, 0.99),
                    percentile_us(b, 0.5) if b else None, percentile_us(b, 0.99) if b else None))
    return out


def _fig(values):
    return "%.1f [%.1f-%.1f]" % (statistics.median(values), min(values), max(values))


def speed_rows(n, rounds, seed=19):
    """The rows: (name, per-round figures, target medians or None)."""
    rng = random.Random("hand-speed:%s" % seed)
    rows = []
    for size, peer in ((14, peer14), (13, peer13)):
        hands = speed_hands(rng, n, size)
        items = [(text_of(c), suit_strings(c)) for c in hands]
        rows.append(("%d tiles, at most 4 copies" % size, timed(items, analyse, peer, rounds, seed),
                     None))
    for size, target in ((14, 50), (13, 150)):
        items = [(h, None) for h in eight_copy_hands(rng, n, size)]
        rows.append(("%d tiles, 8 copies of a face (Mixed Deck)" % size, timed(
            items, lambda h: analyse(h, mixed_deck=True), None, rounds, seed), target))
    return rows


def print_speed(rows, n, rounds):
    print("speed: %d hands a row, %d rounds; us per hand, median of the rounds [min-max]"
          % (n, rounds))
    print("  %-42s %-20s %-20s %-20s %-20s %s" % ("hands", "ours median", "mahjong median",
                                                  "ours p99", "mahjong p99", "ours/mahjong"))
    for name, per_round, target in rows:
        col = list(zip(*per_round))
        if col[2][0] is None:
            verdict = "median %s %d us" % ("under" if statistics.median(col[0]) < target
                                           else "NOT under", target)
            print("  %-42s %-20s %-20s %-20s %-20s %s" % (name, _fig(col[0]), "-", _fig(col[1]),
                                                          "-", verdict))
            continue
        r50 = [o / p for o, p in zip(col[0], col[2])]
        r99 = [o / p for o, p in zip(col[1], col[3])]
        ahead = sum(1 for x, y in zip(r50, r99) if x < 1 and y < 1)
        print("  %-42s %-20s %-20s %-20s %-20s median %.2f, p99 %.2f (ahead on both in %d/%d "
              "rounds)" % (name, _fig(col[0]), _fig(col[2]), _fig(col[1]), _fig(col[3]),
                           statistics.median(r50), statistics.median(r99), ahead, len(r50)))


def print_check(title, t, seconds):
    print("%s: %d hands in %.0f s (%d complete, %d tenpai with %d waits in all, %d waiting "
          "only on a 5th copy)" % (title, t["hands"], seconds, t["complete"], t["tenpai"],
                                   t["waits_total"], t["karaten"]))
    for key in ("complete", "tenpai", "waits", "all"):
        print("  agree on %-10s %d / %d" % (key + ":", t["agree_" + key], t["hands"]))
    if t["readings"]:
        print("  agree on readings: %d / %d complete 14-tile hands (divide_hand)"
              % (t["agree_readings"], t["readings"]))
    for text, ours, peer in t["disagreements"]:
        print("  DISAGREE %s: ours %s, mahjong %s" % (text, ours, peer))
    return t["agree_all"] == t["hands"] and t["agree_readings"] == t["readings"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=200000, help="cross-check sample size")
    ap.add_argument("--speed", type=int, default=3000, help="hands per speed row")
    ap.add_argument("--rounds", type=int, default=7, help="timed rounds per row")
    ap.add_argument("--seed", default="19")
    ap.add_argument("--no-check", action="store_true", help="only the speed rows")
    args = ap.parse_args(argv)
    from importlib.metadata import version

    print("hand analyser vs mahjong %s (PyPI), seed %s, Python %s"
          % (version("mahjong"), args.seed, sys.version.split()[0]))
    ok = True
    if not args.no_check:
        for title, fn, n in (("cross-check, closed hands", cross_check, args.hands),
                             ("cross-check, open hands", cross_check_open, args.hands // 4)):
            t0 = time.perf_counter()
            t = fn(n, args.seed)
            ok = print_check(title, t, time.perf_counter() - t0) and ok
    print_speed(speed_rows(args.speed, args.rounds, args.seed), args.speed, args.rounds)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
