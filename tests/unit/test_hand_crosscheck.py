"""The hand analyser agrees with a peer written by others, the PyPI ``mahjong`` library
(its agari and shanten), on random hands with at most 4 copies of each face
(bench/hand_bench.py's cross-check, on a fixed seed; the bench runs a larger sample)."""
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


def test_the_sample_covers_every_size_and_form():
    bench = load_bench()
    import random

    from hostd.hand import analyse

    rng = random.Random(7)
    sizes, forms = set(), set()
    for _ in range(3000):
        c = bench.sample_hand(rng)
        assert max(c) <= 4
        sizes.add(sum(c))
        forms.update(d["form"] for d in analyse(bench.text_of(c, rng))["decompositions"])
    assert sizes == {1, 2, 4, 5, 7, 8, 10, 11, 13, 14}
    assert forms == {"sets", "seven pairs", "thirteen orphans"}


def test_a_14_tile_hand_with_8_copies_takes_well_under_a_millisecond():
    """The issue's speed goal, with a wide margin for a loaded machine (the bench prints
    the figure: tens of microseconds)."""
    import random

    from hostd.hand import analyse

    bench = load_bench()
    hands = bench.eight_copy_hands(random.Random(8), 400)
    assert sum(analyse(h, mixed_deck=True)["complete"] for h in hands) >= 200
    assert bench.median_us(lambda h: analyse(h, mixed_deck=True), hands, cold=True) < 1000
