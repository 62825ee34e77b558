"""One suit of a hand at a time: the fast tests and the enumeration every other module
builds on (docs/HANDS.md "Shapes").

A hand is a list of 34 counts (index of :data:`hostd.hand.notation.FACES`); a *suit* is
one of :data:`SUITS`, ``(start, end, runs)``: the faces ``start..end-1``, with runs (m,
p, s) or without (the honours). Counts go up to 8 (Mixed Deck).

    sets_only(c, suit) -> bool            # the suit's tiles are runs and triplets
    sets_and_pair(c, suit) -> bool        # the same and exactly one pair
    readings(c, suit, pair) -> list       # every multiset of blocks, each once

No cache: every answer is worked out afresh (bench/hand_bench.py times it so). The
tests are greedy and exact: of the runs that start on a face, three can always be read
as three triplets, so the runs starting there are its count (less the runs that pass
through it) modulo 3.
"""
from __future__ import annotations

from operator import mul

#: (first index, end index, runs allowed) of m, p, s and the honours.
SUITS = ((0, 9, True), (9, 18, True), (18, 27, True), (27, 34, False))
#: The suit of each face.
SUIT_OF = tuple(SUITS[i // 9] for i in range(34))
#: Blocks are ``(kind, first face)``; these are the one-block tuples, made once.
PAIR = tuple((("pair", i),) for i in range(34))
TRIPLET = tuple((("triplet", i),) for i in range(34))
RUN = tuple((("run", i),) for i in range(34))
_RANKS = range(9)


def sets_only(c, suit) -> bool:
    """True if the suit's tiles in ``c`` are all runs and triplets (none left over)."""
    start, end, runs = suit
    if not runs:
        return not any(x % 3 for x in c[start:end])
    return _runs_and_triplets(c[start:end])


def _step(state: int, x: int) -> int:
    a, b = divmod(state, 3)  # runs started one and two faces back, still to be met
    y = x - a - b
    return _FAIL if y < 0 else (y % 3) * 3 + a


#: The greedy test as a table: state (a * 3 + b, or _FAIL) x a face's count (0-9: a 9th
#: copy is tried as a shape wait) -> the next state.
_FAIL = 9
_NEXT = tuple(tuple(_FAIL if s == _FAIL else _step(s, x) for x in range(10)) for s in range(10))


def _runs_and_triplets(seg) -> bool:
    """A numbered suit's counts are runs and triplets: of the runs that start on a face,
    three can be read as three triplets, so the runs starting there are its count, less
    the runs passing through it, modulo 3 (a table of those steps: :data:`_NEXT`)."""
    state, table = 0, _NEXT
    for x in seg:
        state = table[state][x]
    return state == 0


def pair_faces(c, suit) -> list[int]:
    """The faces (indexes in ``c``) that can hold the suit's pair: held twice or more,
    and (numbered suits) in the one class mod 3 the pair must have (runs and triplets add
    0 to the sum of rank * count mod 3, a pair on rank p adds 2p)."""
    start, end, runs = suit
    if not runs:
        return [k for k in range(start, end) if c[k] % 3 == 2]
    first = start + 2 * sum(map(mul, _RANKS, c[start:end])) % 3
    return [k for k in range(first, end, 3) if c[k] >= 2]


def sets_and_pair(c, suit) -> bool:
    """True if the suit's tiles in ``c`` are runs and triplets and exactly one pair."""
    start, end, runs = suit
    if not runs:
        rems = [x % 3 for x in c[start:end]]
        return rems.count(2) == 1 and 1 not in rems
    seg = c[start:end]
    for p in pair_faces(c, suit):
        seg[p - start] -= 2
        if _runs_and_triplets(seg):
            return True
        seg[p - start] += 2
    return False


def readings(c, suit, pair: bool) -> list[tuple]:
    """Every multiset of blocks (runs, triplets and, if ``pair``, exactly one pair) that
    uses up the suit's tiles in ``c``, each once; empty if there is none. ``c`` is
    changed while it works and restored."""
    start, end, runs = suit
    if not runs:
        return _honours(c, start, end, pair)
    return _from(c, start, end, pair)


def _honours(c, start, end, pair) -> list[tuple]:
    """Honours make no runs: each face is triplets, or the pair and triplets."""
    out, pairs = (), 0
    for k in range(start, end):
        n = c[k]
        if n:
            p = n % 3
            if p == 1:
                return []
            pairs += p // 2
            out += PAIR[k] * (p // 2) + TRIPLET[k] * (n // 3)
    return [out] if pairs == (1 if pair else 0) else []


def _from(c, i, end, pair) -> list[tuple]:
    """Readings of faces ``i..end-1`` of a numbered suit. The lowest face left decides:
    every reading has some pairs (0 or 1), triplets and runs starting there, so each
    multiset comes out once. A face held once or twice with no pair to place starts
    that many runs, no choice: those are taken in a loop, the choices recursively."""
    head, undo = (), []
    while True:
        while i < end and not c[i]:
            i += 1
        if i == end:
            out = [] if pair else [head]
            break
        n = c[i]
        if n >= 3 or (pair and n == 2):
            out = _choices(c, i, end, pair, head)
            break
        if i + 2 >= end or c[i + 1] < n or c[i + 2] < n:
            out = []
            break
        c[i] = 0
        c[i + 1] -= n
        c[i + 2] -= n
        undo.append((i, n))
        head += RUN[i] * n
    for k, n in reversed(undo):
        c[k] = n
        c[k + 1] += n
        c[k + 2] += n
    return out


def _choices(c, i, end, pair, head) -> list[tuple]:
    """Readings when face ``i`` (held ``c[i]`` times) can start blocks more than one way:
    (a pair or not) x (how many triplets); the rest are runs."""
    n, out = c[i], []
    c[i] = 0
    for p in ((0, 1) if pair and n >= 2 else (0,)):
        for t in range((n - 2 * p) // 3 + 1):
            u = n - 2 * p - 3 * t
            if u and (i + 2 >= end or c[i + 1] < u or c[i + 2] < u):
                continue
            if u:
                c[i + 1] -= u
                c[i + 2] -= u
            tails = _from(c, i + 1, end, pair and not p)
            if u:
                c[i + 1] += u
                c[i + 2] += u
            if tails:
                first = head + PAIR[i] * p + TRIPLET[i] * t + RUN[i] * u
                out.extend([first + tail for tail in tails])
    c[i] = n
    return out
