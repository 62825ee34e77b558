"""Soak: one Mixed Deck (or, with --normal, normal rotation) session of many hands
in-process, with random recoverable faults injected all along (guard breaks mid-lift,
firmware resets mid-build and mid-lift, unplugged cable, line noise, misreads, jams that
clear).  Checks that it never gets stuck, that every
rebuild matched its deck's composition, that every guard break and reset is in the
journal and recovered, and that memory does not grow; prints the figures.

    .venv/bin/python bench/soak.py [--hands 1000] [--seed 1] [--every 4] [--normal] [--trace]
"""
import argparse
import asyncio
import gc
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
import tracemalloc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

KINDS = ("guard", "reset", "unplug", "noise", "misread", "jam")


def fault_plan(hands, seed, every):
    """A fault on about one build in `every`, of a random recoverable kind."""
    rng = random.Random("soak:%d" % seed)
    builds = hands + 1
    specs = []
    for b in range(3, builds + 1):
        if rng.random() >= 1.0 / every:
            continue
        kind = rng.choice(KINDS)
        after = rng.randint(5, 120)
        if kind == "guard":
            specs.append("guard:build=%d,during=%s" % (b, rng.choice(("lift", "door"))))
        elif kind == "reset":  # mid-build, or mid-lift / mid-door at a hand over
            when = rng.choice(("build", "build", "lift", "door"))
            if when == "build":
                specs.append("reset:build=%d,after=%d" % (b, after))
            else:
                specs.append("reset:build=%d,during=%s,at=%d" % (b, when, rng.randint(50, 3900 if when == "lift" else 550)))
        elif kind == "unplug":
            specs.append("unplug:build=%d,after=%d,ms=%d" % (b, after, rng.choice((500, 3000, 8000))))
        elif kind == "noise":
            specs.append("noise:build=%d,rate=0.001,ms=20000" % b)
        elif kind == "misread":
            specs.append("misread:build=%d,count=%d" % (b, rng.randint(1, 3)))
        else:
            specs.append("jam:build=%d,track=%d,after=%d,count=1" % (b, rng.randint(1, 4), after))
    return specs


class Args:
    ruleset, mixed_deck, firmware_runtime, transport, table_stacks = "riichi", True, "cpython", "inprocess", None


def run(hands, seed, every, db, trace=False, mixed_deck=True, board=None):
    from hostd import logging as jlog
    from hostd.cli.demo import run_demo

    jlog.configure("error", stream=sys.stderr)
    a = Args()
    a.mixed_deck = mixed_deck
    a.board = board  # None: the reference table; fourport-24v: the four-port machine
    a.hands, a.seed, a.db = hands, seed, db
    a.fault = fault_plan(hands, seed, every)
    rss = []
    snaps = {}

    def on_hand(n):
        rss.append(rss_kib())
        if trace and n in (max(1, hands // 5), hands):
            gc.collect()
            snaps[n] = tracemalloc.take_snapshot()

    if trace:
        tracemalloc.start(1)
    a.on_hand = on_hand
    t0 = time.monotonic()
    out, ok = asyncio.run(run_demo(a))
    wall = time.monotonic() - t0
    if trace:
        tracemalloc.stop()
    return a.fault, out, ok, wall, rss, snaps


def heap_growth(snaps, top=6):
    """Lines: the Python heap's growth between the two snapshots, by source file (where
    the objects still alive were allocated)."""
    (n0, s0), (n1, s1) = sorted(snaps.items())
    stats = s1.compare_to(s0, "filename")
    total = sum(st.size_diff for st in stats)
    per = 100.0 / max(1, n1 - n0)
    lines = ["  Python heap (tracemalloc), hands %d..%d: %+.1f KiB, %+.1f KiB per 100 hands; by file:"
             % (n0, n1, total / 1024, total / 1024 * per)]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for st in stats[:top]:
        name = os.path.relpath(os.path.realpath(st.traceback[0].filename), root)
        lines.append("    %+8.1f KiB per 100 hands  %s" % (st.size_diff / 1024 * per, name))
    return lines


def rss_kib():
    """Resident memory of this process (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def growth(rss):
    """KiB per 100 hands between the first tenth and the end (a leak shows as a slope)."""
    if len(rss) < 20:
        return None
    k = len(rss) // 10
    return (rss[-1] - rss[k]) * 100.0 / (len(rss) - 1 - k)


def check(specs, out, ok, db):
    """Problems found, as sentences (empty = all good)."""
    problems = []
    if not ok:
        problems.append("the session did not complete: %s" % out["faults"][-1:])
    s_hands = len(out["hands"])
    con = sqlite3.connect(db)
    j_hands = [r[0] for r in con.execute("SELECT hand FROM hands ORDER BY hand")]
    j_faults = con.execute("SELECT kind, recovered FROM faults").fetchall()
    con.close()
    if j_hands != list(range(1, s_hands + 1)):
        problems.append("journal hands %s..%s (%d) do not run 1..%d once each" % (
            j_hands[:1], j_hands[-1:], len(j_hands), s_hands))
    fired = {}
    for f in out["faults"]:
        fired[f["kind"]] = fired.get(f["kind"], 0) + 1
    unrecovered = [f for f in j_faults if not f[1]]
    if unrecovered:
        problems.append("faults left unrecovered in the journal: %s" % unrecovered)
    return problems, fired, len(j_faults)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--every", type=int, default=4, help="a fault on about one build in N")
    ap.add_argument("--normal", action="store_true",
                    help="the normal two-set rotation instead of Mixed Deck")
    ap.add_argument("--board", default=None, metavar="ID",
                    help="the simulated table's board profile (default reference-18; fourport-24v)")
    ap.add_argument("--trace", action="store_true",
                    help="also trace the Python heap (tracemalloc; about 2x slower) and print "
                         "where what stays alive was allocated")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="jantaku-soak-") as tmp:
        db = os.path.join(tmp, "journal.sqlite")
        specs, out, ok, wall, rss, snaps = run(args.hands, args.seed, args.every, db,
                                               args.trace, mixed_deck=not args.normal,
                                               board=args.board)
        problems, fired, nfaults = check(specs, out, ok, db)
    kinds = {}
    for s in specs:
        k = s.split(":")[0]
        kinds[k] = kinds.get(k, 0) + 1
    print("soak (%s, %s): %d hands, %d builds, seed %d: %.0f s simulated in %.1f s wall" % (
        "normal rotation" if args.normal else "Mixed Deck", args.board or "reference-18", len(out["hands"]),
        len(out["builds"]), args.seed, out["sim_seconds"], wall))
    print("  faults injected: %s" % json.dumps(kinds, sort_keys=True))
    print("  faults journalled: %d (%s), all recovered: %s" % (
        nfaults, json.dumps(fired, sort_keys=True), not any("unrecovered" in p for p in problems)))
    print("  builds not ok (untrusted after a reset, listed): %d" % sum(1 for b in out["builds"] if not b["ok"]))
    g = growth(rss)
    if rss:
        print("  resident memory: %.1f MiB after hand %d, %.1f MiB at the end; growth %s" % (
            rss[len(rss) // 10] / 1024, len(rss) // 10 + 1, rss[-1] / 1024,
            "n/a" if g is None else "%.0f KiB per 100 hands" % g))
    if len(snaps) == 2:
        for line in heap_growth(snaps):
            print(line)
        print("    (hostd/: the hands, builds and faults the session keeps for its summary, "
              "a few records per hand by design)")
    print("  problems: %s" % ("none" if not problems else "; ".join(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
