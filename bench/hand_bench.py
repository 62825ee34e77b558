"""The hand analyser (hostd.hand) against a peer written by others, the PyPI ``mahjong``
library (pinned in the dev extra), and its speed beside the peer's.

1. Cross-check: random closed hands with at most 4 copies of each face (the peer's
   world), from a fixed seed: uniform draws from a 136-tile wall, hands built from sets
   and a pair, the same with one tile taken away or swapped, seven-pairs-like and
   thirteen-orphans-like hands; every size from 1 to 14 tiles (3n+1 and 3n+2), mostly
   13 and 14. For each hand, ours (from its mpsz text, ``completable=True``, one set)
   against the peer's ``Agari.is_agari`` (complete), ``Shanten.calculate_shanten == 0``
   (tenpai: the peer, like our completable ruling, does not count a wait on a 5th copy)
   and the faces whose addition ``is_agari`` accepts without a 5th copy (waits); also
   our shape waits against every face ``is_agari`` accepts.
2. Speed: median time to analyse one 14-tile hand with 8 copies of a face (Mixed Deck),
   half of them complete; the same for 14-tile hands with at most 4 copies, ours and the
   peer's (``is_agari``, and ``HandDivider.divide_hand`` for the complete ones: the same
   questions, complete and every decomposition); and 13-tile hands' waits.

    .venv/bin/python bench/hand_bench.py [--hands 200000] [--speed 3000] [--seed 19]

tests/unit/test_hand_crosscheck.py runs :func:`cross_check` on a smaller sample.
"""
import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from hostd.hand import analyse  # noqa: E402
from hostd.hand.notation import FACES  # noqa: E402
from hostd.hand.shapes import ORPHANS  # noqa: E402

SIZES_3N1 = (1, 4, 7, 10, 13)
SIZES_3N2 = (2, 5, 8, 11, 14)


# -- hands ------------------------------------------------------------------------------------

def _draw(rng, wall, n, c):
    """Draw ``n`` tiles at random from ``wall`` (counts left) into ``c``."""
    for _ in range(n):
        i = rng.choices(range(34), weights=wall)[0]
        wall[i] -= 1
        c[i] += 1


def _built(rng, size, limit=4, fixed=None):
    """A complete hand of ``size`` (3n+2) tiles from random sets and a pair, at most
    ``limit`` copies; ``fixed`` = counts already placed: sets, or sets and the pair."""
    while True:
        c = list(fixed) if fixed else [0] * 34
        ok = True
        need_pair = 0 if sum(c) % 3 == 2 else 1
        need_sets = (size - sum(c) - 2 * need_pair) // 3
        for _ in range(need_sets):
            for _try in range(50):
                i = rng.randrange(34)
                blk = [i, i + 1, i + 2] if (rng.random() < 0.6 and i < 27 and i % 9 <= 6) else [i] * 3
                if all(c[j] + blk.count(j) <= limit for j in blk):
                    for j in blk:
                        c[j] += 1
                    break
            else:
                ok = False
        if need_pair:
            free = [i for i in range(34) if c[i] + 2 <= limit]
            if not free:
                continue
            c[rng.choice(free)] += 2
        if ok and sum(c) == size:
            return c


def _remove_one(rng, c):
    i = rng.choice([k for k in range(34) if c[k]])
    c[i] -= 1
    return c


def _swap_one(rng, c, limit=4):
    _remove_one(rng, c)
    i = rng.choice([k for k in range(34) if c[k] < limit])
    c[i] += 1
    return c


def sample_hand(rng):
    """One random hand, at most 4 copies of a face (the peer's world), as counts."""
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


# -- the two views ----------------------------------------------------------------------------

def peer_view(c):
    """The peer's answer for counts ``c``: (complete, tenpai, waits, shape waits). The
    shape waits include faces that would be a 5th copy: the peer's ``is_agari`` is not
    made for 5 copies (it answers wrongly both ways), so they are not cross-checked,
    only counted (tests/unit/test_hand_waits.py checks ours against our own shapes)."""
    from mahjong.agari import Agari
    from mahjong.shanten import Shanten

    n = sum(c)
    if n % 3 == 2:
        return Agari.is_agari(c), False, [], []
    shape = []
    for f in range(34):
        c[f] += 1
        if Agari.is_agari(c):
            shape.append(f)
        c[f] -= 1
    waits = [f for f in shape if c[f] < 4]
    return False, Shanten().calculate_shanten(c) == 0, waits, shape


def our_view(c, text):
    r = analyse(text, completable=True)
    return (r["complete"], r["tenpai"], [FACES.index(f) for f in r["waits"]],
            [FACES.index(f) for f in r["shape_waits"]])


def cross_check(hands, seed=19):
    """Compare on ``hands`` random hands; returns a dict of tallies and the first few
    disagreements (hand text, ours, peer's)."""
    rng = random.Random("hand-crosscheck:%s" % seed)
    tally = {"hands": 0, "complete": 0, "tenpai": 0, "waits_total": 0, "agree_complete": 0,
             "agree_tenpai": 0, "agree_waits": 0, "agree_all": 0, "karaten": 0,
             "fifth_copy_differs": 0}
    bad = []
    for _ in range(hands):
        c = sample_hand(rng)
        text = text_of(c, rng)
        ours, peer = our_view(c, text), peer_view(c)
        tally["hands"] += 1
        tally["complete"] += peer[0]
        tally["tenpai"] += peer[1]
        tally["waits_total"] += len(peer[2])
        tally["karaten"] += bool(ours[3]) and not ours[2]
        for k, key in enumerate(("agree_complete", "agree_tenpai", "agree_waits")):
            tally[key] += ours[k] == peer[k]
        if ours[:3] == peer[:3]:
            tally["agree_all"] += 1
        elif len(bad) < 5:
            bad.append((text, ours[:3], peer[:3]))
        tally["fifth_copy_differs"] += ours[3] != peer[3]
    tally["disagreements"] = bad
    return tally


# -- speed ------------------------------------------------------------------------------------

def eight_copy_hands(rng, n):
    """14-tile hands with 8 copies of one face, half complete by construction."""
    out = []
    while len(out) < n:
        x = rng.randrange(34)
        fixed = [0] * 34
        fixed[x] = 8
        if len(out) % 2 == 0:  # complete: the 8 as two triplets and the pair, + 2 sets
            c = _built(rng, 14, limit=8, fixed=fixed)
        else:
            c = list(fixed)
            _draw(rng, [8 - k for k in fixed], 6, c)
        out.append(text_of(c))
    return out


def four_copy_hands(rng, n, size=14):
    out = []
    while len(out) < n:
        if size == 14 and len(out) % 2 == 0:
            c = _built(rng, 14)
        elif size == 13 and len(out) % 2 == 0:
            c = _remove_one(rng, _built(rng, 14))
        else:
            c = [0] * 34
            _draw(rng, [4] * 34, size, c)
        out.append(text_of(c))
    return out


def median_us(fn, items, cold=False):
    """``cold``: kept for callers; the analyser keeps no cache between hands."""
    times = []
    for it in items:
        t0 = time.perf_counter_ns()
        fn(it)
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times) / 1000


def speed(n, seed=19):
    from mahjong.agari import Agari
    from mahjong.hand_calculating.divider import HandDivider
    from mahjong.shanten import Shanten
    from mahjong.tile import TilesConverter

    def peer14(text):
        t = TilesConverter.one_line_string_to_34_array(text)
        if Agari.is_agari(t):
            HandDivider.divide_hand(t)

    def peer13(text):
        t = TilesConverter.one_line_string_to_34_array(text)
        if Shanten().calculate_shanten(t) == 0:
            for f in range(34):
                if t[f] < 4:
                    t[f] += 1
                    Agari.is_agari(t)
                    t[f] -= 1

    rng = random.Random("hand-speed:%s" % seed)
    h8, h4, h13 = eight_copy_hands(rng, n), four_copy_hands(rng, n), four_copy_hands(rng, n, 13)
    for h in h8 + h4 + h13:  # warm up (and check every hand reads)
        analyse(h, mixed_deck=True)
    rows = [
        ("14 tiles, 8 copies of a face (Mixed Deck)", "ours", median_us(
            lambda h: analyse(h, mixed_deck=True), h8)),
        ("14 tiles, at most 4 copies", "ours", median_us(analyse, h4)),
        ("14 tiles, at most 4 copies", "mahjong", median_us(peer14, h4)),
        ("13 tiles (waits), at most 4 copies", "ours", median_us(analyse, h13)),
        ("13 tiles (waits), at most 4 copies", "mahjong", median_us(peer13, h13)),
    ]
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=200000, help="cross-check sample size")
    ap.add_argument("--speed", type=int, default=3000, help="hands per speed row")
    ap.add_argument("--seed", default="19")
    args = ap.parse_args(argv)
    from importlib.metadata import version

    print("hand analyser vs mahjong %s (PyPI), seed %s, %s"
          % (version("mahjong"), args.seed, sys.version.split()[0]))
    t0 = time.perf_counter()
    t = cross_check(args.hands, args.seed)
    print("cross-check: %d hands in %.0f s (%d complete, %d tenpai with %d waits in all, "
          "%d waiting only on a 5th copy)" % (t["hands"], time.perf_counter() - t0,
                                               t["complete"], t["tenpai"], t["waits_total"],
                                               t["karaten"]))
    for key in ("complete", "tenpai", "waits", "all"):
        print("  agree on %-10s %d / %d" % (key + ":", t["agree_" + key], t["hands"]))
    print("  (faces that would be a 5th copy: the peer's is_agari differs from ours on %d "
          "hands; it is not made for 5 copies)" % t["fifth_copy_differs"])
    for text, ours, peer in t["disagreements"]:
        print("  DISAGREE %s: ours %s, mahjong %s" % (text, ours, peer))
    print("speed (median per hand, %d hands per row):" % args.speed)
    for what, who, us in speed(args.speed, args.seed):
        print("  %-48s %-8s %8.1f us" % (what, who, us))
    return 0 if t["agree_all"] == t["hands"] else 1


if __name__ == "__main__":
    sys.exit(main())
