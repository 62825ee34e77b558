"""The Mixed Deck split is fair: deck A is the first deck's worth of one uniform seeded
permutation of both sets (the whole stack, firmware and host included, takes exactly
those tiles), and those permutations give the hypergeometric law (mean 68, sd ~4.13)."""
import asyncio
import math

from hostd.cli.demo import run_demo
from hw_sim import rng as R


class Args:
    ruleset, mixed_deck, hands, fault = "riichi", True, 0, []
    firmware_runtime, transport, table_stacks = "cpython", "inprocess", None

    def __init__(self, seed):
        self.seed = seed


def first_deck_blue(seed):
    tiles = [0] * 136 + [1] * 136  # 0 = blue set, 1 = green set, in the mixer's load order
    R.Rng(seed, R.MIX).shuffle(tiles)
    return 136 - sum(tiles[:136])


def test_the_table_builds_deck_a_from_the_first_tiles_of_the_mix():
    for seed in (1, 2, 3, 17, 99):
        out, ok = asyncio.run(run_demo(Args(seed)))
        assert ok
        assert out["decks"]["A"]["backs"]["blue"] == first_deck_blue(seed)


def test_the_mix_gives_the_hypergeometric_law():
    n = 6000
    xs = [first_deck_blue(seed) for seed in range(1, n + 1)]
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    law_sd = math.sqrt(136 * 0.25 * 136 / 271)  # 4.13
    assert abs(mean - 68) < 4 * law_sd / math.sqrt(n)
    assert abs(sd - law_sd) < 0.15
    # tails: P(|x - 68| >= 9) is about 3.0 % under the law
    tail = sum(1 for x in xs if abs(x - 68) >= 9) / n
    law_tail = sum(math.comb(136, k) * math.comb(136, 136 - k) for k in range(137)
                   if abs(k - 68) >= 9) / math.comb(272, 136)
    assert abs(tail - law_tail) < 0.01
