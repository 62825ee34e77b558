"""The standard riichi yaku and yakuman of a reading (docs/HANDS.md "Yaku").

    Facts(hand, win, options)                  # what every reading of the hand shares
    yaku_of(reading, facts) -> (yaku, yakuman)  # [(id, han)], [(id, count)]

``YAKU``: id -> (name, closed han, open han or 0 when closed only); ``YAKUMAN``: id ->
(name, count, closed only); the double yakuman count 2 with the ``double_yakuman``
option. Sets are counted as sets: with Mixed Deck two triplets of one dragon are two
yakuhai (ruling ``yakuhai-each-set``).
"""
from __future__ import annotations

from bisect import bisect_left
from itertools import compress

from hostd.hand.readings import KANSAI_PAIRS, UNRELATED
from hostd.hand.shapes import SETS, SEVEN_PAIRS, THIRTEEN_ORPHANS

YAKU = {
    "riichi": ("Riichi", 1, 0), "double_riichi": ("Double riichi", 2, 0),
    "open_riichi": ("Open riichi", 2, 0), "double_open_riichi": ("Double open riichi", 3, 0),
    "ippatsu": ("Ippatsu", 1, 0), "menzen_tsumo": ("Menzen tsumo", 1, 0),
    "pinfu": ("Pinfu", 1, 0), "tanyao": ("Tanyao", 1, 1), "iipeikou": ("Iipeikou", 1, 0),
    "haitei": ("Haitei raoyue", 1, 1), "houtei": ("Houtei raoyui", 1, 1),
    "rinshan": ("Rinshan kaihou", 1, 1), "chankan": ("Chankan", 1, 1),
    "haku": ("Yakuhai: white dragon", 1, 1), "hatsu": ("Yakuhai: green dragon", 1, 1),
    "chun": ("Yakuhai: red dragon", 1, 1), "seat_wind": ("Yakuhai: seat wind", 1, 1),
    "round_wind": ("Yakuhai: round wind", 1, 1),
    "sanshoku": ("Sanshoku doujun", 2, 1), "ittsu": ("Ittsu", 2, 1),
    "chanta": ("Chanta", 2, 1), "chiitoitsu": ("Chiitoitsu", 2, 0),
    "toitoi": ("Toitoi", 2, 2), "sanankou": ("Sanankou", 2, 2),
    "sankantsu": ("Sankantsu", 2, 2), "sanshoku_doukou": ("Sanshoku doukou", 2, 2),
    "shousangen": ("Shousangen", 2, 2), "honroutou": ("Honroutou", 2, 2),
    "honitsu": ("Honitsu", 3, 2), "junchan": ("Junchan", 3, 2),
    "ryanpeikou": ("Ryanpeikou", 3, 0), "chinitsu": ("Chinitsu", 6, 5),
    "renhou": ("Renhou", 5, 0),
}
YAKUMAN = {
    "kokushi": ("Kokushi musou", 1, True),
    "kokushi_13": ("Kokushi musou, 13-sided wait", 2, True),
    "chuuren": ("Chuuren poutou", 1, True),
    "chuuren_9": ("Junsei chuuren poutou, 9-sided wait", 2, True),
    "suuankou": ("Suuankou", 1, True), "suuankou_tanki": ("Suuankou tanki", 2, True),
    "daisangen": ("Daisangen", 1, False), "shousuushi": ("Shousuushii", 1, False),
    "daisuushi": ("Daisuushii", 2, False), "ryuuiisou": ("Ryuuiisou", 1, False),
    "tsuuiisou": ("Tsuuiisou", 1, False), "chinroutou": ("Chinroutou", 1, False),
    "suukantsu": ("Suukantsu", 1, False), "tenhou": ("Tenhou", 1, True),
    "chiihou": ("Chiihou", 1, True), "renhou_yakuman": ("Renhou", 1, True),
}
ALL_FACES = range(34)
TERMINALS = frozenset((0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33))
GREEN = frozenset((19, 20, 21, 23, 25, 32))
WIND_FACES, DRAGONS = range(27, 31), (31, 32, 33)
WIND_NAMES = ("east", "south", "west", "north")
_DRAGON_YAKU = {31: "haku", 32: "hatsu", 33: "chun"}


class Facts:
    """What every reading of one won hand shares: all its tiles' counts (``total``),
    closed or not, the win, the options, the value faces, the kans."""

    __slots__ = ("total", "closed", "win", "options", "valued", "kans", "round_winds",
                 "held", "hand_yaku", "hand_yakuman", "nine_gates")

    def __init__(self, hand, win, options):
        self.total, self.win, self.options = hand.total, win, options
        self.closed = all(c.kind == "ankan" for c in hand.calls)
        self.kans = sum(1 for c in hand.calls if c.is_kan)
        extra = options["round_winds"]
        self.round_winds = (27 + win.round,) if not extra else tuple(sorted(
            {27 + win.round} | {27 + WIND_NAMES.index(w) for w in extra}))
        self.valued = DRAGONS + (27 + win.seat,) + self.round_winds
        self.held = tuple(compress(ALL_FACES, self.total))
        self.nine_gates = self.closed and not self.kans and _nine_gates(self.total, self.held)
        #: the yaku (yakuman) of the tiles and the win alone, whatever the reading
        self.hand_yakuman: list[str] = []
        _tile_yakuman(self, self.hand_yakuman)
        self.hand_yaku: list[str] = []
        _situational(self, self.hand_yaku)
        _tile_yaku(self, self.hand_yaku)


def _situational(f: Facts, out: list) -> None:
    w = f.win
    if w.tsumo and f.closed:
        out.append("menzen_tsumo")
    if not any(w[5:]):  # no situational flag at all (Win's fields from riichi on)
        return
    if w.in_riichi:
        key = ("double_" if w.double_riichi else "") + ("open_riichi" if w.open_riichi
                                                       else "riichi")
        out.insert(0, key)
    for flag in ("ippatsu", "haitei", "houtei", "rinshan", "chankan"):
        if getattr(w, flag):
            out.append(flag)
    if w.renhou and not f.options["renhou_yakuman"]:
        out.append("renhou")


def _tile_yaku(f: Facts, out: list) -> None:
    """Yaku of the tiles alone: tanyao, honroutou, honitsu / chinitsu."""
    held = f.held
    if TERMINALS.isdisjoint(held):
        if f.closed or f.options["open_tanyao"]:
            out.append("tanyao")
    elif TERMINALS.issuperset(held):
        out.append("honroutou")
    k = bisect_left(held, 27)  # the suited faces are held[:k]
    if k and held[0] // 9 == held[k - 1] // 9:
        out.append("chinitsu" if k == len(held) else "honitsu")


def _peikou(runs, out: list) -> None:
    same = sum(runs.count(r) // 2 for r in set(runs))
    if same >= 2:
        out.append("ryanpeikou")
    elif same == 1:
        out.append("iipeikou")


def _three_suits(faces, out: list, key: str) -> None:
    ranks = {i % 9 for i in faces if i < 27}
    for r in ranks:
        if r in faces and r + 9 in faces and r + 18 in faces:
            out.append(key)
            return


def _run_yaku(reading, runs, f: Facts, out: list) -> None:
    if not runs:
        return
    if f.closed and len(runs) >= 2:
        _peikou(runs, out)
    starts = set(runs)
    if len(runs) >= 3:
        _three_suits(starts, out, "sanshoku")
        for s in (0, 9, 18):
            if s in starts and s + 3 in starts and s + 6 in starts:
                out.append("ittsu")
                break
    pair = reading.pair
    if pair in TERMINALS and all(i % 9 in (0, 6) for i in runs) and \
            all(i in TERMINALS for i, _, _ in reading.trips):
        honours = pair >= 27 or any(i >= 27 for i, _, _ in reading.trips)
        out.append("chanta" if honours else "junchan")


def _triplet_yaku(reading, trips, f: Facts, out: list) -> None:
    if not trips:
        return
    faces = [i for i, _, _ in trips]
    if len(trips) == 4:
        out.append("toitoi")
    if len(trips) >= 3:
        if sum(1 for _, c, _ in trips if c) == 3:
            out.append("sanankou")
        _three_suits(set(faces), out, "sanshoku_doukou")
    if f.kans == 3:
        out.append("sankantsu")
    if _little_three(reading.pair, faces, DRAGONS):
        out.append("shousangen")
    for i in faces:
        if i in _DRAGON_YAKU:
            out.append(_DRAGON_YAKU[i])
        if i == 27 + f.win.seat:
            out.append("seat_wind")
        if i in f.round_winds:
            out.append("round_wind")


def _little_three(pair, faces, group) -> bool:
    """Shousangen's and shousuushii's shape: every face of ``group`` (the three dragons,
    the four winds) but one held as a triplet, and the pair that missing face. With Mixed
    Deck a pair may be a 4th-8th copy of a triplet's face (seed 000 lines 15-16: 5 to 8
    copies of a face): ``55555z666z`` holds no red dragon, so it is not shousangen (the
    scoring ruling ``little-three-missing-face``)."""
    held = {i for i in faces if i in group}
    return len(held) == len(group) - 1 and pair in group and pair not in held


def is_pinfu(reading, f: Facts) -> bool:
    """The pinfu shape: closed, four runs, a pair of no value, a ryanmen wait (so its fu,
    tsumo too, are the base alone)."""
    return (reading.wait == "ryanmen" and f.closed and not reading.trips
            and reading.form == SETS and reading.pair not in f.valued)


def _set_yaku(reading, f: Facts, out: list) -> None:
    runs, trips = reading.runs, reading.trips
    if not trips and is_pinfu(reading, f):
        out.append("pinfu")
    _run_yaku(reading, runs, f, out)
    _triplet_yaku(reading, trips, f, out)


def _yakuman_sets(reading, f: Facts, out: list) -> None:
    trips = reading.trips
    if len(trips) >= 3:
        faces = {i for i, _, _ in trips}
        if len(trips) == 4 and all(c for _, c, _ in trips):
            out.append("suuankou_tanki" if reading.wait == "tanki" else "suuankou")
        if all(d in faces for d in DRAGONS):
            out.append("daisangen")
        if all(w in faces for w in WIND_FACES):
            out.append("daisuushi")
        elif _little_three(reading.pair, faces, WIND_FACES):
            out.append("shousuushi")
    if f.kans == 4:
        out.append("suukantsu")
    if f.nine_gates:
        out.append("chuuren_9" if f.total[f.win.face] in (2, 4) else "chuuren")


def _nine_gates(total, held) -> bool:
    if held[-1] >= 27 or held[0] // 9 != held[-1] // 9 or sum(total) != 14:
        return False
    s = held[0] // 9 * 9
    need = (3, 1, 1, 1, 1, 1, 1, 1, 3)
    extra = [total[s + r] - need[r] for r in range(9)]
    return min(extra) >= 0 and sum(extra) == 1


def _tile_yakuman(f: Facts, out: list) -> None:
    held = f.held
    if held[0] >= 27:
        out.append("tsuuiisou")
    elif held[-1] < 27 and TERMINALS.issuperset(held):
        out.append("chinroutou")
    if GREEN.issuperset(held):
        out.append("ryuuiisou")
    for flag in ("tenhou", "chiihou"):
        if getattr(f.win, flag):
            out.append(flag)
    if f.win.renhou and f.options["renhou_yakuman"]:
        out.append("renhou_yakuman")


def yakuman_of(reading, f: Facts) -> list[str]:
    """The yakuman ids of a reading (before the double ones are counted)."""
    out: list[str] = []
    if reading.form == THIRTEEN_ORPHANS:
        out.append("kokushi_13" if f.total[f.win.face] == 2 else "kokushi")
    elif reading.form == SETS:
        _yakuman_sets(reading, f, out)
    return out + f.hand_yakuman if f.hand_yakuman else out


def yaku_of(reading, f: Facts) -> tuple[list, list]:
    """``([(id, han)], [(id, yakuman count)])``: the yakuman (if any) stand alone."""
    if reading.form == UNRELATED:
        return [], []  # not a complete hand: only its local yakuman (local_yaku)
    ymen = yakuman_of(reading, f)
    if ymen:
        double = f.options["double_yakuman"]
        return [], [(y, YAKUMAN[y][1] if double else 1) for y in ymen]
    ids = list(f.hand_yaku)
    if reading.form == SETS:
        _set_yaku(reading, f, ids)
    elif reading.form in (SEVEN_PAIRS, KANSAI_PAIRS):
        ids.append("chiitoitsu")
    k = 1 if f.closed else 2
    return [(y, YAKU[y][k]) for y in ids if YAKU[y][k]], []
