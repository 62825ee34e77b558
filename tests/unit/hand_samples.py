"""Random hands for the hand analyser's checks and its bench (bench/hand_bench.py,
tests/unit/test_hand_*.py), from a caller's seeded ``random.Random``: closed hands with at
most 4 copies (the ``mahjong`` library's world), open hands with 1 to 4 calls (up to 8
copies with Mixed Deck), the bench's speed sets, and their texts. Hands are lists of 34
counts (index of hostd.hand.notation.FACES); calls are ``(kind, [faces])``.
"""
from hostd.hand.notation import FACES
from hostd.hand.shapes import ORPHANS

SIZES_3N1 = (1, 4, 7, 10, 13)
SIZES_3N2 = (2, 5, 8, 11, 14)
CALL_SIZES = {"chi": 3, "pon": 3, "kan": 4, "ankan": 4}


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


# -- the bench's speed sets ------------------------------------------------------------------

def _not_complete(rng, make):
    from mahjong.agari import Agari

    while True:
        c = make()
        if not Agari.is_agari(c):
            return c


def speed_hands(rng, n, size):
    """``n`` hands of ``size`` tiles, at most 4 copies, as counts, in thirds: 14 tiles,
    random draws, one tile from complete, complete; 13 tiles, random draws, tenpai (a
    complete hand less a tile), one tile from tenpai (the same with a tile swapped)."""
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
