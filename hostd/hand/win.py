"""How a hand was won (docs/HANDS.md "Scoring"): the winning tile, ron or tsumo, the
winds, riichi and the situational wins; checked together, so that a combination that
cannot happen is refused with what was wrong.

    make_win(win="5p", tsumo=False, seat_wind="east", ...) -> Win   # HandError
"""
from __future__ import annotations

from typing import NamedTuple

from hostd.hand.errors import HandError
from hostd.hand.scoring_rules import WINDS
from hostd.hand.tiles import TILE_INDEX, read_tiles

class Win(NamedTuple):
    """A win: its tile (as written, ``face`` its analysed index), tsumo or ron, the
    seat and round winds (indexes 0-3: east..north) and the situational flags."""

    tile: str
    face: int
    tsumo: bool
    seat: int
    round: int
    riichi: bool = False
    double_riichi: bool = False
    open_riichi: bool = False
    ippatsu: bool = False
    haitei: bool = False
    houtei: bool = False
    rinshan: bool = False
    chankan: bool = False
    tenhou: bool = False
    chiihou: bool = False
    renhou: bool = False

    @property
    def dealer(self) -> bool:
        return self.seat == 0

    @property
    def in_riichi(self) -> bool:
        return self.riichi or self.double_riichi


#: The situational flags a win may carry (:class:`Win`'s, from riichi on), in the order
#: they are checked and listed; the API's body (hostd/hand/score_api.py) and the CLI's
#: options are made from it.
SITUATIONS = tuple(Win.__annotations__)[tuple(Win.__annotations__).index("riichi"):]

_WIND_INDEX = {w: k for k, w in enumerate(WINDS)}


def _wind(name: str, what: str) -> int:
    k = _WIND_INDEX.get(name) if isinstance(name, str) else None
    if k is not None:
        return k
    if isinstance(name, str) and name.lower() in WINDS:
        return WINDS.index(name.lower())
    raise HandError("%s %r: one of %s" % (what, name, ", ".join(WINDS)))


def _win_tile(text: str) -> tuple[str, int]:
    tiles = read_tiles(text) if isinstance(text, str) else []
    if len(tiles) != 1:
        raise HandError("win %r: the winning tile is one tile in mpsz, e.g. 5p (it is also "
                        "among the hand's closed tiles)" % (text,))
    return tiles[0], TILE_INDEX[tiles[0]]


#: (flag, the flag it needs or refuses, why) -- checked in order, the first that fails
#: is the message.
_NEEDS = (
    ("ippatsu", lambda w: w.in_riichi, "ippatsu needs riichi (or double riichi)"),
    ("open_riichi", lambda w: w.in_riichi, "open riichi needs riichi (or double riichi)"),
    ("rinshan", lambda w: w.tsumo, "rinshan (a win on a kan's replacement tile) is a tsumo"),
    ("haitei", lambda w: w.tsumo, "haitei (a win on the last draw) is a tsumo; a win on "
                                  "the last discard is houtei"),
    ("houtei", lambda w: not w.tsumo, "houtei (a win on the last discard) is a ron"),
    ("chankan", lambda w: not w.tsumo, "chankan (robbing a kan) is a ron"),
    ("haitei", lambda w: not w.rinshan, "haitei and rinshan cannot both be: the replacement "
                                        "tile is not the last draw"),
    ("chankan", lambda w: not w.houtei, "chankan and houtei cannot both be"),
    ("tenhou", lambda w: w.tsumo and w.dealer, "tenhou is the dealer's (seat east) tsumo on "
                                               "the first draw"),
    ("chiihou", lambda w: w.tsumo and not w.dealer, "chiihou is a non-dealer's tsumo on the "
                                                    "first draw"),
    ("renhou", lambda w: not w.tsumo and not w.dealer, "renhou is a non-dealer's ron before "
                                                       "their first draw"),
)


def check_win(w: Win, *, calls) -> None:
    """Refuse a combination of flags that cannot happen, naming it."""
    if not any(w[5:]) and not calls:
        return  # no flag, no call: nothing can clash
    for flag, ok, why in _NEEDS:
        if getattr(w, flag) and not ok(w):
            raise HandError(why)
    if w.rinshan and not any(c.is_kan for c in calls):
        raise HandError("rinshan is a win on a kan's replacement tile: give the kan among "
                        "the calls (kan:TILES or ankan:TILES)")
    if not calls:
        return
    open_calls = [c.text for c in calls if c.kind != "ankan"]
    if w.in_riichi and open_calls:
        raise HandError("riichi needs a closed hand (a closed kan is allowed); called: %s"
                        % ", ".join(open_calls))
    first = [f for f in ("tenhou", "chiihou", "renhou") if getattr(w, f)]
    if first and calls:
        raise HandError("%s is a win before any call; the hand has calls" % first[0])


def make_win(*, win: str, tsumo: bool = False, seat_wind: str = "east",
             round_wind: str = "east", calls=(), **flags) -> Win:
    """A checked :class:`Win`; ``flags`` are :data:`SITUATIONS` (booleans)."""
    for k in flags:
        if k not in SITUATIONS:
            raise HandError("no situation %r; accepted: %s" % (k, ", ".join(SITUATIONS)))
    tile, face = _win_tile(win)
    w = Win(tile, face, bool(tsumo), _wind(seat_wind, "seat_wind"),
            _wind(round_wind, "round_wind"), **{k: bool(v) for k, v in flags.items()})
    check_win(w, calls=calls)
    return w
