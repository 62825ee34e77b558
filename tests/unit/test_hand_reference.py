"""The analyser against an independent brute-force reference (tests/unit/hand_reference.py)
on thousands of seeded random hands: open ones with called pons, chis and kans (up to 8
copies of a face across the calls, Mixed Deck; and one set), closed ones with many
copies; red fives among the closed tiles. Every key a player reads must agree: complete,
readings, tenpai (both rulings), waits, shape waits, wait types, copies left, Mixed Deck's
yaku (with backs), the yaku on each wait, and the rulings that bear."""
import random

import pytest

from hostd.hand import analyse
from tests.unit import hand_reference as ref
from tests.unit import hand_samples as samples


def write(closed, rng):
    """The closed tiles as text: grouped or tile by tile, a 5 sometimes written as its
    red five (one a suit: a set has one)."""
    counts = [0] * 34
    for f in closed:
        counts[f] += 1
    if rng.random() < 0.5:
        return samples.text_of(counts, rng)
    tiles = [ref.FACES[f] for f in sorted(closed)]
    for suit in "mps":
        if "5" + suit in tiles and rng.random() < 0.5:
            tiles[tiles.index("5" + suit)] = "0" + suit
    rng.shuffle(tiles)
    return " ".join(tiles) if rng.random() < 0.3 else "".join(tiles)


def random_backs(rng, n_tiles):
    """Backs for about a third of the hands: often 7,7 when the hand has 14 tiles."""
    r = rng.random()
    if r < 0.66:
        return None
    if n_tiles == 14 and r < 0.85:
        return (7, 7)
    k = rng.randint(0, n_tiles)
    return (k, n_tiles - k)


def compare(closed, calls, *, mixed_deck, completable, backs, text, call_texts):
    ours = analyse(text, mixed_deck=mixed_deck, completable=completable, backs=backs,
                   calls=call_texts)
    want = ref.expected(closed, calls, mixed_deck=mixed_deck, completable=completable,
                        backs=backs)
    where = "%s %s (mixed_deck=%s, completable=%s, backs=%s)" % (
        text, " ".join(call_texts), mixed_deck, completable, backs)
    for key in ("complete", "tenpai", "waits", "shape_waits", "wait_types", "copies_left",
                "mixed_deck_yaku", "wait_yaku"):
        assert ours[key] == want[key], (where, key, ours[key], want[key])
    got = {(d["form"], tuple(sorted(d["blocks"]))) for d in ours["decompositions"]}
    assert got == want["decompositions"], (where, got, want["decompositions"])
    assert len(ours["decompositions"]) == len(got), (where, "a reading listed twice")
    rulings = ref.expected_rulings(closed, calls, mixed_deck=mixed_deck, backs=backs)
    assert sorted(r["id"] for r in ours["rulings"]) == rulings, (where, ours["rulings"], rulings)
    return ours


def run_open(n, *, limit, seed):
    rng = random.Random(seed)
    tally = {"complete": 0, "tenpai": 0, "kans": 0, "many_copies": 0, "yaku": 0}
    for _ in range(n):
        counts, made = samples.open_hand(rng, limit=limit)
        closed = [f for f in range(34) for _ in range(counts[f])]
        calls = [(kind, faces) for kind, faces in made]
        n_tiles = len(closed) + sum(len(faces) for _, faces in calls)
        kans = any(kind in ("kan", "ankan") for kind, _ in calls)
        ours = compare(closed, calls, mixed_deck=limit == 8, completable=rng.random() < 0.5,
                       backs=random_backs(rng, n_tiles) if limit == 8 else None,
                       text=write(closed, rng),
                       call_texts=[samples.call_text(kind, faces) for kind, faces in made])
        tally["complete"] += ours["complete"]
        tally["tenpai"] += ours["tenpai"]
        tally["kans"] += kans
        tally["many_copies"] += max(all_counts(closed, calls)) >= 5
        tally["yaku"] += bool(ours["mixed_deck_yaku"]) or any(ours["wait_yaku"].values())
    return tally


def all_counts(closed, calls):
    total = [0] * 34
    for f in closed + [f for _, faces in calls for f in faces]:
        total[f] += 1
    return total


def test_open_mixed_deck_hands_agree_with_the_reference():
    n = 3000
    t = run_open(n, limit=8, seed=32)
    # the sample is not all easy negatives
    assert t["complete"] > n // 6 and t["tenpai"] > n // 4
    assert t["kans"] > n // 3 and t["many_copies"] > n // 4 and t["yaku"] > n // 5


def test_open_one_set_hands_agree_with_the_reference():
    n = 1500
    t = run_open(n, limit=4, seed=33)
    assert t["complete"] > n // 6 and t["tenpai"] > n // 4 and t["kans"] > n // 3


def test_closed_hands_with_many_copies_agree_with_the_reference():
    rng = random.Random(34)
    hands = samples.eight_copy_hands(rng, 300, 14) + samples.eight_copy_hands(rng, 300, 13)
    for _ in range(1200):
        c = [0] * 34
        faces = rng.sample(range(34), rng.choice([2, 3, 4, 6, 9]))
        size = rng.choice([13, 14, 10, 11, 7, 4, 2])
        while sum(c) < size:
            f = rng.choice(faces)
            c[f] += c[f] < 8
            if all(c[x] >= 8 for x in faces):
                break
        if sum(c) % 3:
            hands.append(samples.text_of(c))
    for text in hands:
        from hostd.hand.notation import parse_hand

        closed = [f for f, n in enumerate(parse_hand(text, mixed_deck=True).counts)
                  for _ in range(n)]
        for completable in (False, True):
            compare(closed, [], mixed_deck=True, completable=completable, backs=None,
                    text=text, call_texts=[])


@pytest.mark.parametrize("text, calls", [
    ("1p", [("ankan", [10] * 4), ("ankan", [10] * 4), ("kan", [11] * 4), ("kan", [11] * 4)]),
    ("33p", [("ankan", [10] * 4), ("kan", [10] * 4), ("pon", [11] * 3), ("chi", [0, 1, 2])]),
    ("1111m", [("pon", [0] * 3), ("chi", [1, 2, 3]), ("kan", [33] * 4)]),
    ("5555p", [("kan", [13] * 4), ("chi", [9, 10, 11]), ("chi", [2, 3, 4])]),
])
def test_edge_hands_agree_with_the_reference(text, calls):
    from hostd.hand.notation import parse_hand

    closed = [f for f, n in enumerate(parse_hand(text, mixed_deck=True).counts) for _ in range(n)]
    call_texts = [samples.call_text(kind, faces) for kind, faces in calls]
    for completable in (False, True):
        compare(closed, calls, mixed_deck=True, completable=completable, backs=None,
                text=text, call_texts=call_texts)
