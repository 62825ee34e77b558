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
3. Scoring (hostd.hand.score): random won hands (tests/unit/score_samples.py: closed and
   open, ron and tsumo, riichi, winds, dora and ura, red fives, kans, the situational
   wins), scored by ours and by the peer's ``HandCalculator.estimate_hand_value`` with
   the base ruleset's options set alike (open tanyao, red fives, no kiriage, counted
   yakuman, double yakuman): ``--score-hands`` of them cross-checked (han, fu, points),
   then ``--speed`` of them timed as above. Ours scores from the hand's text and keyword
   arguments (reading the text, the calls, the indicators, the options, the win inside the
   timing); the peer from the same hand as its per-suit strings (split before the timing,
   which favours it, as for the analyser's rows): its ``string_to_136_array`` for the
   hand, each meld, the winning tile and the indicators, its Meld objects and HandConfig
   (the win's flags and winds, its options), and ``estimate_hand_value``, as a user of it
   goes from a hand to its score (tests/unit/test_hand_score_peer.py checks that this way
   scores as the cross-check's). Then Mixed Deck won hands of 5 to 8 copies (no peer).

    .venv/bin/python bench/hand_bench.py [--hands 200000] [--speed 3000] [--rounds 7]
                                         [--score-hands 20000] [--seed 19] [--no-check]

The hands come from tests/unit/hand_samples.py and score_samples.py;
tests/unit/test_hand_crosscheck.py and test_hand_score_peer.py run the cross-checks on
smaller samples.
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
from hostd.hand.score import score  # noqa: E402
from tests.unit.hand_samples import (call_text, eight_copy_hands, open_hand,  # noqa: E402
                                     sample_hand, speed_hands, suit_strings, text_of)
from tests.unit.score_samples import (many_copy_hand, our_score, ours_args,  # noqa: E402
                                      peer_from_strings, peer_score, peer_strings, won_hands)


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


def score_check(n, seed=19):
    """Cross-check ``n`` won hands: (hands, agreeing, no-yaku hands, yakuman hands,
    first disagreements)."""
    hands = won_hands(random.Random("hand-score-check:%s" % seed), n)
    agree, none, ymen, bad = 0, 0, 0, []
    for s in hands:
        ours, peer = our_score(s, score), peer_score(s)
        agree += ours == peer
        none += peer[0] == 0
        ymen += isinstance(peer[0], int) and peer[0] >= 13 and (peer[2] or 0) >= 32000
        if ours != peer and len(bad) < 5:
            bad.append((ours_args(s), ours, peer))
    return len(hands), agree, none, ymen, bad


def _our_score(a):
    return score(a[0], **a[1])


def score_rows(n, rounds, seed=19):
    """Scoring rows: won hands at most 4 copies, ours vs the peer; Mixed Deck ours only."""
    hands = won_hands(random.Random("hand-score-speed:%s" % seed), n)
    items = [(ours_args(s), peer_strings(s)) for s in hands]
    rows = [("scoring won hands, at most 4 copies", timed(items, _our_score, peer_from_strings,
                                                          rounds, seed), None)]
    rng = random.Random("hand-score-mixed:%s" % seed)
    mixed = []
    for _ in range(n):
        text, kw = ours_args(many_copy_hand(rng))
        mixed.append(((text, dict(kw, mixed_deck=True)), None))
    rows.append(("scoring won hands, 5-8 copies (Mixed Deck)", timed(
        mixed, _our_score, None, rounds, seed), 500))
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
    ap.add_argument("--score-hands", type=int, default=20000,
                    help="won hands cross-checked by score")
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
        t0 = time.perf_counter()
        n, agree, none, ymen, bad = score_check(args.score_hands, args.seed)
        print("cross-check, scoring: %d won hands in %.0f s (%d without a yaku, %d yakuman); "
              "han, fu and points agree on %d / %d" % (n, time.perf_counter() - t0, none, ymen,
                                                      agree, n))
        for b in bad:
            print("  DISAGREE %r: ours %s, mahjong %s" % b)
        ok = ok and agree == n
    print_speed(speed_rows(args.speed, args.rounds, args.seed) +
                score_rows(args.speed, args.rounds, args.seed), args.speed, args.rounds)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
