"""Random won hands for the scorer's cross-check and bench (tests/unit/test_hand_score_peer.py,
bench/hand_bench.py), from a caller's seeded ``random.Random``, at most 4 copies of a face
(the ``mahjong`` library's world); and both ways of scoring one: ours (``score``, from
the hand's text) and the peer's (``HandCalculator``, from 136-tile ids), with the base
ruleset's options set alike in both.

A sample is a dict: ``closed`` (34 counts, the winning tile included), ``calls`` [(kind,
faces)], ``red`` (the faces of 5m/5p/5s of which one copy is red), ``win`` (a face),
``tsumo``, ``seat``/``round`` (0-3), ``dora``/``ura`` (indicator faces) and the
situational flags.
"""
from hostd.hand.notation import FACES
from hostd.hand.shapes import ORPHANS, is_complete
from hostd.hand.scoring_rules import WINDS

FIVES = (4, 13, 22)
FLAGS = ("riichi", "double_riichi", "ippatsu", "haitei", "houtei", "rinshan", "chankan",
         "tenhou", "chiihou", "renhou")


def _set(rng, c, room, runs, suits):
    for _try in range(60):
        i = rng.choice(suits)
        blk = [i, i + 1, i + 2] if (rng.random() < runs and i < 27 and i % 9 <= 6) else [i] * 3
        if all(c[j] + blk.count(j) <= room[j] for j in blk):
            for j in blk:
                c[j] += 1
            return True
    return False


def _faces(rng):
    """The faces a hand draws from: all, or one suit (with honours or not), or the
    terminals and honours, or the simples: so that every yaku turns up."""
    r = rng.random()
    s = rng.randrange(3) * 9
    if r < 0.55:
        return list(range(34))
    if r < 0.7:
        return list(range(s, s + 9)) + list(range(27, 34))
    if r < 0.8:
        return list(range(s, s + 9))
    if r < 0.88:
        return [i for i in range(34) if i >= 27 or i % 9 in (0, 8) or rng.random() < 0.3]
    if r < 0.95:
        return [i for i in range(27) if i % 9 not in (0, 8)]
    return list(range(27, 34)) + [s, s + 8]


def _call(rng, total, faces, kinds, limit=4):
    for _try in range(60):
        kind = rng.choice(kinds)
        i = rng.choice(faces)
        fs = [i, i + 1, i + 2] if kind == "chi" else [i] * (4 if "kan" in kind else 3)
        if kind == "chi" and not (i < 27 and i % 9 <= 6):
            continue
        if all(total[j] + fs.count(j) <= limit for j in fs):
            for j in fs:
                total[j] += 1
            return kind, fs
    return None


def _patterned(rng, room):
    """Sets that make sanshoku, ittsu or junchan likely: runs of fixed ranks."""
    r = rng.random()
    if r < 0.4:
        rank = rng.randrange(7)
        return [rank, rank + 9, rank + 18]
    s = rng.randrange(3) * 9
    if r < 0.8:
        return [s, s + 3, s + 6]
    return [rng.choice((0, 6)) + rng.randrange(3) * 9 for _ in range(3)]


def _closed_part(rng, size, room, faces):
    if size == 14 and rng.random() < 0.25:
        c = [0] * 34
        for i in _patterned(rng, room):
            for j in (i, i + 1, i + 2):
                c[j] += 1
        for _try in range(100):
            d = list(c)
            if _set(rng, d, room, 0.6, faces):
                free = [i for i in faces if d[i] + 2 <= room[i]]
                if free and max(d) <= 4:
                    d[rng.choice(free)] += 2
                    return d
        return None
    runs = rng.choice((0.0, 0.5, 0.8, 0.9, 0.95, 1.0))
    for _try in range(200):
        c = [0] * 34
        if all(_set(rng, c, room, runs, faces) for _ in range(size // 3)):
            free = [i for i in faces if c[i] + 2 <= room[i]]
            if free:
                c[rng.choice(free)] += 2
                return c
    return None


def _special(rng):
    c = [0] * 34
    if rng.random() < 0.5:  # seven pairs
        for i in rng.sample(range(34), 7):
            c[i] = 2
    else:  # thirteen orphans
        for i in ORPHANS:
            c[i] = 1
        c[rng.choice(ORPHANS)] += 1
    return c


def _shape(rng, limit=4, favour=()):
    """(closed counts, calls) of a complete hand; ``favour``: faces drawn more often (with
    ``limit`` 8, for many copies of a face)."""
    faces = _faces(rng) + [f for f in favour for _ in range(12)]
    if rng.random() < 0.08 and limit == 4:
        return _special(rng), []
    while True:
        k = rng.choice((0, 0, 0, 0, 1, 1, 2, 2, 3, 4))
        kinds = rng.choice((("chi", "chi", "pon", "pon", "kan", "ankan"), ("chi",),
                            ("ankan", "kan", "pon"), ("ankan",)))
        total, calls = [0] * 34, []
        for _ in range(k):
            made = _call(rng, total, faces, kinds, limit)
            if made:
                calls.append(made)
        closed = _closed_part(rng, 14 - 3 * len(calls), [limit - t for t in total], faces)
        if closed is not None and is_complete(closed):
            return closed, calls


def _flags(rng, s, closed_hand, kans):
    t, f = s["tsumo"], {}
    if closed_hand and rng.random() < 0.5:
        f["riichi"] = True
        f["double_riichi"] = rng.random() < 0.1
        f["ippatsu"] = rng.random() < 0.25
    last = rng.random()
    if last < 0.04:
        f["haitei" if t else "houtei"] = True
    elif last < 0.08 and (kans or not t):
        f["rinshan" if t else "chankan"] = True
    if not s["calls"] and rng.random() < 0.02:
        dealer = s["seat"] == 0
        f[("tenhou" if dealer else "chiihou") if t else ("renhou" if not dealer else "x")] = True
        f.pop("x", None)
    return {k: v for k, v in f.items() if v}


def won_hand(rng) -> dict:
    """One random won hand with its situation."""
    closed, calls = _shape(rng)
    total = list(closed)
    for _, fs in calls:
        for j in fs:
            total[j] += 1
    s = {"closed": closed, "calls": calls, "win": rng.choice([i for i in range(34) if closed[i]]),
         "tsumo": rng.random() < 0.5, "seat": rng.randrange(4), "round": rng.randrange(4),
         "red": [i for i in FIVES if total[i] and (total[i] == 4 or rng.random() < 0.5)]}
    kans = sum(1 for k, _ in calls if "kan" in k)
    s["dora"] = [rng.randrange(34) for _ in range(1 + kans)]
    s["ura"] = [rng.randrange(34) for _ in range(1 + kans)]
    s.update(_flags(rng, s, all(k == "ankan" for k, _ in calls), kans))
    return s


def won_hands(rng, n):
    return [won_hand(rng) for _ in range(n)]


def _situation(rng, closed, calls):
    total = list(closed)
    for _, fs in calls:
        for j in fs:
            total[j] += 1
    s = {"closed": closed, "calls": calls, "win": rng.choice([i for i in range(34) if closed[i]]),
         "tsumo": rng.random() < 0.5, "seat": rng.randrange(4), "round": rng.randrange(4),
         "red": []}
    kans = sum(1 for k, _ in calls if "kan" in k)
    s["dora"] = [rng.randrange(34) for _ in range(1 + kans)]
    s["ura"] = [rng.randrange(34) for _ in range(1 + kans)]
    s.update(_flags(rng, s, all(k == "ankan" for k, _ in calls), kans))
    return s, total


def many_copy_hand(rng):
    """A won Mixed Deck hand holding 5 to 8 copies of some face (calls and kans too)."""
    while True:
        favour = [rng.randrange(34)]
        closed, calls = _shape(rng, limit=8, favour=favour)
        s, total = _situation(rng, closed, calls)
        if max(total) >= 5:
            s["mixed_deck"] = True
            return s


#: A special tile of Speed Tonpuu's set (seed 001) -> the face it replaces.
SPECIALS = {"0m": 4, "0p": 13, "0s": 22, "7mb": 6, "7pb": 15, "7sb": 24, "5pg": 13,
            "5zx": 31, "6zx": 32, "7zx": 33}


def _fill(rng, c):
    """Complete ``c`` (some sets placed) with random sets and a pair to 14 tiles."""
    room = [4 - n for n in c]
    while sum(c) < 12:
        if not _set(rng, c, [4] * 34, 0.6, list(range(34))):
            return None
    free = [i for i in range(34) if c[i] + 2 <= 4]
    c[rng.choice(free)] += 2
    return c if all(n <= 4 for n in c) and room else None


def _tonpuu_shape(rng):
    """Closed counts of a shape Speed Tonpuu's local yaku need: Kansai seven pairs with
    quads, consecutive triplets (sanrenko, suurenko), three wind triplets (sanpuuko)."""
    r = rng.random()
    c = [0] * 34
    if r < 0.1:  # 14 unrelated tiles (shiisanpuutaa's shape, on a first draw or not)
        ranks = [rng.choice(((0, 3, 6), (0, 3, 7), (0, 4, 8), (1, 4, 7), (2, 5, 8), (1, 5, 8)))
                 for _ in range(3)]
        faces = [9 * k + r for k in range(3) for r in ranks[k]] + list(range(27, 34))
        faces = rng.sample(faces, 14 - (rng.random() < 0.7))
        for f in faces:
            c[f] += 1
        if sum(c) < 14:
            c[rng.choice(faces)] += 1
        return c
    if r < 0.4:
        faces = rng.sample(range(34), 7)
        quads = rng.randint(1, 3)
        for k, f in enumerate(faces[:7 - quads]):
            c[f] = 4 if k < quads else 2
        return c
    if r < 0.75:
        n = rng.choice((3, 4))
        start = rng.randrange(3) * 9 + rng.randrange(10 - n)
        for k in range(n):
            c[start + k] = 3
    else:
        for f in rng.sample(range(27, 31), 3):
            c[f] = 3
    return _fill(rng, c)


def tonpuu_hand(rng):
    """A won hand of Speed Tonpuu's set: some plain tiles are its special ones (one copy
    of each at most); sometimes the winning tile is a pocchi drawn in riichi; a third of
    them have the shapes of its local yaku."""
    s = won_hand(rng)
    if rng.random() < 0.35:
        closed = _tonpuu_shape(rng)
        if closed is not None:
            s = _situation(rng, closed, [])[0]
            if max(closed) <= 2:  # 14 unrelated tiles: a first draw
                for f in ("riichi", "double_riichi", "ippatsu", "haitei", "houtei",
                          "rinshan", "chankan", "renhou"):
                    s.pop(f, None)
                s.update(tsumo=True, tenhou=s["seat"] == 0, chiihou=s["seat"] != 0)
    s["red"] = []
    tiles = [FACES[i] for i in range(34) for _ in range(s["closed"][i])]
    calls = [(k, [FACES[f] for f in fs]) for k, fs in s["calls"]]
    spots = [(None, j) for j in range(len(tiles))] + [
        (n, j) for n, (_, ts) in enumerate(calls) for j in range(len(ts))]
    rng.shuffle(spots)
    for special, plain in SPECIALS.items():
        if rng.random() < 0.6:
            for n, j in spots:
                where = tiles if n is None else calls[n][1]
                if where[j] == FACES[plain]:
                    where[j] = special
                    break
    win = FACES[s["win"]]
    every = tiles + [t for _, ts in calls for t in ts]
    pocchi = [t for t in tiles if t[:2] in ("5z", "7z") and t.endswith("x")]
    if not calls and rng.random() < 0.25 and win in tiles:  # the win a pocchi drawn in riichi
        p = rng.choice(("5zx", "7zx"))
        if p not in every and every.count(p[:2]) <= 3:
            tiles[tiles.index(win)] = p
            pocchi = [p]
            win = None
    if pocchi and not calls and (win is None or rng.random() < 0.6):
        s.update(riichi=True, tsumo=True, renhou=False, houtei=False, chankan=False)
        win = pocchi[0]
    elif win not in tiles:
        win = next(t for t in tiles if FACES[_plain(t)] == win)
    s.update(tiles=tiles, call_tiles=calls, win_tile=win)
    return s


def _plain(tile):
    return SPECIALS.get(tile, FACES.index(tile) if tile in FACES else None)


def written_args(s):
    """(text, keyword arguments) for ``score`` of a hand given tile by tile as written
    (``tiles``, ``call_tiles``, ``win_tile``: :func:`tonpuu_hand`)."""
    kw = {"win": s["win_tile"], "tsumo": s["tsumo"], "seat_wind": WINDS[s["seat"]],
          "round_wind": WINDS[s["round"]], "dora": "".join(FACES[i] for i in s["dora"]),
          "ura": "".join(FACES[i] for i in s["ura"]),
          "calls": ["%s:%s" % (k, "".join(ts)) for k, ts in s["call_tiles"]]}
    kw.update({f: True for f in FLAGS if s.get(f)})
    return "".join(s["tiles"]), kw


# -- the hand as each side reads it ------------------------------------------------------

def _text(counts, red_faces):
    out = []
    for i in range(34):
        n = counts[i]
        if n and i in red_faces:
            out.append("0" + FACES[i][1])
            n -= 1
        out.extend([FACES[i]] * n)
    return "".join(out)


def ours_args(s):
    """(text, keyword arguments) for :func:`hostd.hand.score.score`; the red copy of a
    five is in the calls if they hold the face, else in the closed tiles."""
    red_left, calls = set(s["red"]), []
    for k, fs in s["calls"]:
        red = [i for i in red_left if i in fs]
        red_left -= set(red)
        calls.append((k, _text(_counts(fs), red)))
    closed_red = sorted(red_left)
    kw = {"win": FACES[s["win"]], "tsumo": s["tsumo"], "seat_wind": WINDS[s["seat"]],
          "round_wind": WINDS[s["round"]], "calls": calls,
          "dora": "".join(FACES[i] for i in s["dora"]), "ura": "".join(FACES[i] for i in s["ura"])}
    kw.update({f: True for f in FLAGS if s.get(f)})
    return _text(s["closed"], closed_red), kw


def _counts(fs):
    c = [0] * 34
    for f in fs:
        c[f] += 1
    return c


def peer_args(s):
    """(tiles, win_tile, melds, dora, ura, config) for ``HandCalculator``."""
    return peer_objects(peer_inputs(s))


def peer_objects(inputs):
    """The peer's objects (its Meld and HandConfig) from :func:`peer_inputs`: what it
    needs made for each hand, so the bench times it with the scoring."""
    from mahjong.hand_calculating.hand_config import HandConfig, OptionalRules
    from mahjong.meld import Meld

    tiles, win, meld_ids, dora, ura, flags = inputs
    melds = [Meld(meld_type=mt, tiles=ids, opened=opened) for mt, ids, opened in meld_ids]
    config = HandConfig(**flags, options=OptionalRules(
        has_open_tanyao=True, has_aka_dora=True, has_double_yakuman=True,
        kazoe_limit=HandConfig.KAZOE_LIMITED, kiriage=False, fu_for_open_pinfu=True,
        fu_for_pinfu_tsumo=False, renhou_as_yakuman=False))
    return tiles, win, melds, dora, ura, config


def peer_inputs(s):
    """The hand in the peer's terms: 136-tile ids (a red five is its face's first id), the
    melds as (type, ids, opened), the indicators' ids and HandConfig's flags."""
    from mahjong.meld import Meld

    used = [0] * 34  # ids taken per face: a red five's copy is the face's first id
    red_left = set(s["red"])

    def take(face, red=False):
        if red:
            return face * 4
        k = used[face] + (1 if face in FIVES else 0)
        used[face] += 1
        return face * 4 + k

    melds, tiles = [], []
    for kind, fs in s["calls"]:
        ids = []
        for f in fs:
            red = f in red_left
            red_left.discard(f)
            ids.append(take(f, red))
        mt = {"chi": Meld.CHI, "pon": Meld.PON}.get(kind, Meld.KAN)
        melds.append((mt, ids, kind != "ankan"))
        tiles += ids
    win = None
    for f in range(34):
        for _ in range(s["closed"][f]):
            red = f in red_left
            red_left.discard(f)
            t = take(f, red)
            tiles.append(t)
            if f == s["win"] and win is None:
                win = t
    flags = dict(
        is_tsumo=s["tsumo"], is_riichi=bool(s.get("riichi")), is_ippatsu=bool(s.get("ippatsu")),
        is_rinshan=bool(s.get("rinshan")), is_chankan=bool(s.get("chankan")),
        is_haitei=bool(s.get("haitei")), is_houtei=bool(s.get("houtei")),
        is_daburu_riichi=bool(s.get("double_riichi")), is_tenhou=bool(s.get("tenhou")),
        is_chiihou=bool(s.get("chiihou")), is_renhou=bool(s.get("renhou")),
        player_wind=27 + s["seat"], round_wind=27 + s["round"])
    dora = [f * 4 + 3 for f in s["dora"]]
    ura = [f * 4 + 3 for f in s["ura"]]
    return tiles, win, melds, dora, ura, flags


def _suit_strings(faces, red=()):
    """The peer's per-suit strings for faces (0..33), a red five written ``0``."""
    out = {"man": "", "pin": "", "sou": "", "honors": ""}
    red = set(red)
    for f in sorted(faces):
        key = ("man", "pin", "sou", "honors")[f // 9]
        if f in red:
            out[key] += "0"
            red.discard(f)
        else:
            out[key] += str(f % 9 + 1)
    return {k: v for k, v in out.items() if v}


def peer_strings(s):
    """The hand as the peer's per-suit strings (as a user of the peer writes a hand),
    split from ours before any timing: the whole hand's, each meld's, the winning tile's,
    the indicators', and HandConfig's flags."""
    red_left, melds = set(s["red"]), []
    for kind, fs in s["calls"]:
        red = [f for f in red_left if f in fs]
        red_left -= set(red)
        melds.append((kind, _suit_strings(fs, red)))
    closed = [f for f in range(34) for _ in range(s["closed"][f])]
    all_faces = [f for _, fs in s["calls"] for f in fs] + closed
    win_red = s["win"] in red_left and s["closed"][s["win"]] == 1  # its one copy is red
    return (_suit_strings(all_faces, s["red"]), melds,
            _suit_strings([s["win"]], [s["win"]] if win_red else []),
            _suit_strings(s["dora"]), _suit_strings(s["ura"]), peer_inputs(s)[5])


def peer_from_strings(strings):
    """The peer scoring from its strings: its conversions, Meld and HandConfig objects
    and the scoring (what the bench times)."""
    from mahjong.hand_calculating.hand import HandCalculator
    from mahjong.hand_calculating.hand_config import HandConfig, OptionalRules
    from mahjong.meld import Meld
    from mahjong.tile import TilesConverter

    hand, melds, win, dora, ura, flags = strings
    to136 = TilesConverter.string_to_136_array
    tiles = to136(**hand, has_aka_dora=True)
    made = [Meld(meld_type={"chi": Meld.CHI, "pon": Meld.PON}.get(kind, Meld.KAN),
                 tiles=to136(**ts, has_aka_dora=True), opened=kind != "ankan")
            for kind, ts in melds]
    config = HandConfig(**flags, options=OptionalRules(
        has_open_tanyao=True, has_aka_dora=True, has_double_yakuman=True,
        kazoe_limit=HandConfig.KAZOE_LIMITED, kiriage=False, fu_for_open_pinfu=True,
        fu_for_pinfu_tsumo=False, renhou_as_yakuman=False))
    return HandCalculator.estimate_hand_value(
        tiles, to136(**win, has_aka_dora=True)[0], melds=made,
        dora_indicators=to136(**dora), config=config, ura_dora_indicators=to136(**ura))


def peer_score(s):
    """(han, fu, total, sorted shares) by the peer; han 0 for a hand without a yaku."""
    from mahjong.hand_calculating.hand import HandCalculator

    tiles, win, melds, dora, ura, config = peer_args(s)
    r = HandCalculator.estimate_hand_value(tiles, win, melds=melds, dora_indicators=dora,
                                           config=config, ura_dora_indicators=ura)
    if r.error == HandCalculator.ERR_NO_YAKU:
        return 0, None, 0, []
    if r.error:
        return r.error, None, None, None
    c = r.cost
    if not s["tsumo"]:
        shares = [c["main"]]
    elif s["seat"] == 0:
        shares = [c["main"]] * 3
    else:
        shares = [c["main"], c["additional"], c["additional"]]
    return r.han, r.fu, c["total"], sorted(shares)


def our_score(s, score):
    text, kw = ours_args(s)
    r = score(text, **kw)
    if not r["han"]:
        return 0, None, 0, []
    return r["han"], r["fu"], r["points"]["total"], sorted(
        p["points"] for p in r["points"]["payments"])
