"""The hand analyser agrees with a peer written by others, the PyPI ``mahjong`` library
(its agari, divider and shanten), on random hands with at most 4 copies of each face,
closed and with calls (bench/hand_bench.py's cross-checks, on a fixed seed; the bench
runs a larger sample). tests/unit/test_hand_reference.py checks hands beyond the peer's
world (up to 8 copies) against a brute-force reference."""
import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
HANDS = 30000


def load_bench():
    spec = importlib.util.spec_from_file_location("hand_bench", ROOT / "bench" / "hand_bench.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_agrees_with_the_mahjong_library_on_30000_random_hands():
    t = load_bench().cross_check(HANDS, seed=19)
    assert t["hands"] == HANDS
    assert t["disagreements"] == []
    assert t["agree_complete"] == t["agree_tenpai"] == t["agree_waits"] == t["agree_all"] == HANDS
    # the sample is not all easy negatives: many complete and tenpai hands, many waits
    assert t["complete"] > HANDS // 10 and t["tenpai"] > HANDS // 5
    assert t["waits_total"] > t["tenpai"]
    # every complete 14-tile hand read the same ways as the peer's divide_hand
    assert t["readings"] > HANDS // 10 and t["agree_readings"] == t["readings"]


def test_open_hands_agree_with_the_mahjong_library():
    """Calls: the closed part against the peer's is_agari, a 5th copy counted across the
    calls (a wait held four times over a pon and the closed tiles is none)."""
    n = 8000
    t = load_bench().cross_check_open(n, seed=19)
    assert t["disagreements"] == [] and t["agree_all"] == n
    assert t["complete"] > n // 6 and t["tenpai"] > n // 4 and t["karaten"] > 0


def test_the_sample_covers_every_size_and_form():
    import random

    from hostd.hand import analyse
    from tests.unit import hand_samples as bench

    rng = random.Random(7)
    sizes, forms = set(), set()
    for _ in range(3000):
        c = bench.sample_hand(rng)
        assert max(c) <= 4
        sizes.add(sum(c))
        forms.update(d["form"] for d in analyse(bench.text_of(c, rng))["decompositions"])
    assert sizes == {1, 2, 4, 5, 7, 8, 10, 11, 13, 14}
    assert forms == {"sets", "seven pairs", "thirteen orphans"}
