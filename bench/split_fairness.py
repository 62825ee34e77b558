"""Is the Mixed Deck split fair?  Over many seeds, the blue count of deck A should follow
the hypergeometric law: 136 tiles drawn from 136 blue + 136 green, mean 68, standard
deviation sqrt(136 * 1/2 * 1/2 * 136/271) ~= 4.13.

Each seed runs the real stack in-process (host session -> protocol -> firmware -> the
simulated table) for the split's first build only.  Prints the mean, the standard
deviation and a chi-square of the observed counts against the law.

    .venv/bin/python bench/split_fairness.py [--seeds 200] [--jobs 2]
"""
import argparse
import asyncio
import math
import multiprocessing
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def deck_a_blue(seed):
    from hostd import logging as jlog
    from hostd.cli.demo import run_demo

    jlog.configure("warning", stream=sys.stderr)
    class A:
        pass

    a = A()
    a.ruleset, a.mixed_deck, a.hands, a.seed = "riichi", True, 0, seed
    a.fault, a.firmware_runtime, a.transport, a.table_stacks = [], "cpython", "inprocess", None
    out, ok = asyncio.run(run_demo(a))
    assert ok, out["faults"]
    return out["decks"]["A"]["backs"]["blue"]


def hypergeom_pmf(k, n=136, K=136, N=272):
    return math.comb(K, k) * math.comb(N - K, n - k) / math.comb(N, n)


def chi_square(counts, total):
    """Chi-square of observed blue counts against the law, bins merged to expect >= 5."""
    bins, obs_acc, exp_acc = [], 0, 0.0
    for k in range(0, 137):
        obs_acc += counts.get(k, 0)
        exp_acc += total * hypergeom_pmf(k)
        if exp_acc >= 5:
            bins.append((obs_acc, exp_acc))
            obs_acc, exp_acc = 0, 0.0
    if bins and exp_acc:
        o, e = bins.pop()
        bins.append((o + obs_acc, e + exp_acc))
    chi = sum((o - e) ** 2 / e for o, e in bins)
    return chi, len(bins) - 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    with multiprocessing.Pool(args.jobs) as pool:
        blues = pool.map(deck_a_blue, range(1, args.seeds + 1))
    n = len(blues)
    mean = sum(blues) / n
    sd = math.sqrt(sum((b - mean) ** 2 for b in blues) / (n - 1))
    counts = {}
    for b in blues:
        counts[b] = counts.get(b, 0) + 1
    chi, dof = chi_square(counts, n)
    print("split fairness over %d seeds (%.1f s wall, %d jobs)" % (n, time.monotonic() - t0, args.jobs))
    print("  deck A blue: mean %.2f (law 68.00), sd %.2f (law %.2f)" % (
        mean, sd, math.sqrt(136 * 0.25 * 136 / 271)))
    print("  standard error of the mean %.2f; mean off by %.1f standard errors" % (
        sd / math.sqrt(n), (mean - 68) / (sd / math.sqrt(n))))
    print("  chi-square %.1f on %d degrees of freedom (5%% critical value ~%.1f)" % (
        chi, dof, dof + 1.645 * math.sqrt(2 * dof)))


if __name__ == "__main__":
    main()
