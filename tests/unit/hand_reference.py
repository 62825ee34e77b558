"""An independent, brute-force reference for the hand analyser (tests only): the rules
of docs/HANDS.md written out again the slow, obvious way, sharing no code with
hostd.hand. A hand is given as tile indexes 0..33 (1m..9m, 1p..9p, 1s..9s, 1z..7z):
its closed tiles, and its calls as (kind, [faces]).

Readings are found by removing *any* block that fits, in any order, and keeping the
distinct sorted results (no lowest-face shortcut, no greedy test, no mod-3 pruning).
"""
from functools import lru_cache

FACES = ["%d%s" % (r, s) for s in "mps" for r in range(1, 10)] + ["%dz" % r for r in range(1, 8)]
ORPHANS = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33]
SETS = [("triplet", i) for i in range(34)] + [
    ("run", i) for i in range(27) if i % 9 <= 6]


def block_faces(block):
    kind, i = block
    if kind == "run":
        return [i, i + 1, i + 2]
    return [i] * {"pair": 2, "triplet": 3, "single": 1}[kind]


def block_text(block):
    faces = block_faces(block)
    return "".join(FACES[f][0] for f in faces) + FACES[faces[0]][1]


def _minus(counts, block):
    c = list(counts)
    for f in block_faces(block):
        c[f] -= 1
        if c[f] < 0:
            return None
    return tuple(c)


@lru_cache(maxsize=None)
def set_readings(counts):
    """Every multiset of runs and triplets using up ``counts`` (a frozenset of sorted
    block tuples)."""
    if not any(counts):
        return frozenset([()])
    out = set()
    for block in SETS:
        rest = _minus(counts, block)
        if rest is not None:
            for r in set_readings(rest):
                out.add(tuple(sorted(r + (block,))))
    return frozenset(out)


def readings(counts):
    """Every reading of a closed part: (form, sorted blocks)."""
    counts = tuple(counts)
    out = set()
    for i in range(34):
        rest = _minus(counts, ("pair", i))
        if rest is not None:
            for r in set_readings(rest):
                out.add(("sets", tuple(sorted(r + (("pair", i),)))))
    if sum(counts) == 14 and sorted(counts)[-7:] == [2] * 7 and sorted(counts)[-8] == 0:
        out.add(("seven pairs", tuple(("pair", i) for i in range(34) if counts[i] == 2)))
    if sum(counts) == 14 and all(counts[i] >= 1 for i in ORPHANS) and \
            sum(counts[i] for i in ORPHANS) == 14:
        out.add(("thirteen orphans", tuple(
            ("pair" if counts[i] == 2 else "single", i) for i in ORPHANS)))
    return out


def wait_type(block, face):
    kind, i = block
    if kind in ("pair", "single"):
        return "tanki"
    if kind == "triplet":
        return "shanpon"
    rank = i % 9 + 1
    if face == i + 1:
        return "kanchan"
    if (rank == 1 and face == i + 2) or (rank == 7 and face == i):
        return "penchan"
    return "ryanmen"


def copy_yaku(total, backs=None):
    """Mixed Deck's yaku on all of a hand's tiles (docs/HANDS.md's rulings: each yaku
    once; the yakuman alone)."""
    if 8 in total:
        return [{"name": "8 copies of one face", "yakuman": True}]
    out = []
    if any(5 <= n <= 7 for n in total):
        out.append({"name": "5-7 copies of one face", "han": 1})
    if backs == (7, 7):
        out.append({"name": "7 tiles from each set", "han": 1})
    return out


def _counts(closed, calls):
    """The closed tiles' counts per face, and every tile's (the calls' too)."""
    counts = [0] * 34
    for f in closed:
        counts[f] += 1
    total = list(counts)
    for _kind, faces in calls:
        for f in faces:
            total[f] += 1
    return counts, total


def expected(closed, calls=(), *, mixed_deck=False, completable=False, backs=None):
    """What the analyser must answer, for the keys the judge compares and more."""
    counts, total = _counts(closed, calls)
    limit = 8 if mixed_deck else 4
    n = len(closed)
    out = {"complete": False, "decompositions": set(), "shape_waits": [], "waits": [],
           "wait_types": {}, "copies_left": {}, "mixed_deck_yaku": [], "wait_yaku": {}}
    if n % 3 == 2:
        rs = readings(counts)
        out["complete"] = bool(rs)
        out["decompositions"] = {(form, tuple(sorted(block_text(b) for b in blocks)))
                                 for form, blocks in rs}
        if rs and mixed_deck:
            out["mixed_deck_yaku"] = copy_yaku(total, backs)
    else:
        _waits(counts, total, limit, mixed_deck, out)
    out["tenpai"] = bool(out["waits"]) if completable else bool(out["shape_waits"])
    return out


def _waits(counts, total, limit, mixed_deck, out):
    for f in range(34):
        counts[f] += 1
        rs = readings(counts)
        counts[f] -= 1
        if not rs:
            continue
        out["shape_waits"].append(FACES[f])
        if total[f] >= limit:
            continue
        out["waits"].append(FACES[f])
        types = {wait_type(b, f) for _form, blocks in rs for b in blocks if f in block_faces(b)}
        order = ["ryanmen", "kanchan", "penchan", "shanpon", "tanki"]
        out["wait_types"][FACES[f]] = [t for t in order if t in types]
        out["copies_left"][FACES[f]] = limit - total[f]
        if mixed_deck:
            won = list(total)
            won[f] += 1
            out["wait_yaku"][FACES[f]] = copy_yaku(won)


def _copy_rulings(total, backs=None):
    eights = [n for n in total if n == 8]
    many = [n for n in total if 5 <= n <= 7]
    out = set()
    if len(eights) >= 2:
        out.add("eight-copies-once")
    if eights and (many or backs == (7, 7)):
        out.add("yakuman-stands-alone")
    if not eights and len(many) >= 2:
        out.add("copy-yaku-once")
    return out


def _pairs_like(counts):
    """14 closed tiles, every face an even number of times, one 4 or more times."""
    return sum(counts) == 14 and all(n % 2 == 0 for n in counts) and max(counts) >= 4


def expected_rulings(closed, calls=(), *, mixed_deck=False, backs=None):
    """The ids of the rulings that bear on the hand (docs/HANDS.md "Rulings")."""
    answer = expected(closed, calls, mixed_deck=mixed_deck, backs=backs)
    counts, total = _counts(closed, calls)
    ids = set()
    if mixed_deck and answer["complete"]:
        ids |= _copy_rulings(total, backs)
    if mixed_deck:
        for w in answer["waits"]:
            won = list(total)
            won[FACES.index(w)] += 1
            ids |= _copy_rulings(won)
    if _pairs_like(counts) or (len(closed) == 13 and any(
            _pairs_like([n + (i == f) for i, n in enumerate(counts)]) for f in range(34))):
        ids.add("seven-pairs-distinct")
    if backs is not None and any(kind in ("kan", "ankan") for kind, _ in calls):
        ids.add("seven-each-with-kan")
    if not mixed_deck and len(answer["waits"]) < len(answer["shape_waits"]):
        ids.add("fifth-copy-one-set")
    return sorted(ids)
