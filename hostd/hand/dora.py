"""Dora of a won hand (docs/HANDS.md "Dora"): the indicators' next faces, ura (with
riichi only), red fives, Speed Tonpuu's blue sevens.

    indicated(text) -> list[int]                      # faces the indicators point at; HandError
    dora_counts(hand, dora, ura, *, riichi, options) -> dict

Every tile of the hand counts, a kan's four included; a face held 8 times (Mixed Deck) is
8 dora. The next face: 9 -> 1 in a suit, East -> South -> West -> North -> East, white ->
green -> red -> white.
"""
from __future__ import annotations

from hostd.hand.errors import HandError
from hostd.hand.tiles import TILE_INDEX, read_tiles

#: Indicators one kind of dora can have: the first and one for each of four kans.
MAX_INDICATORS = 5


def next_face(i: int) -> int:
    if i < 27:
        return i - i % 9 + (i % 9 + 1) % 9
    if i < 31:
        return 27 + (i - 27 + 1) % 4
    return 31 + (i - 31 + 1) % 3


#: Each face's next face (the dora an indicator of it makes): a table made once.
NEXT = tuple(next_face(i) for i in range(34))


def indicated(text, what: str = "dora") -> list[int]:
    """The faces the indicator tiles in ``text`` make dora (``""`` or None: none)."""
    if text is None or (isinstance(text, str) and not text.strip()):
        return []
    try:
        tiles = read_tiles(text)
    except HandError as e:
        raise HandError("%s indicators: %s" % (what, e)) from None
    if len(tiles) > MAX_INDICATORS:
        raise HandError("%s indicators: %d given, at most %d (the first and one for each of "
                        "four kans)" % (what, len(tiles), MAX_INDICATORS))
    return [NEXT[TILE_INDEX[t]] for t in tiles]


def every_tile(hand) -> list[str]:
    """The hand's tiles as written, called ones too."""
    return list(hand.tiles) + [t for c in hand.calls for t in c.tiles]


def dora_counts(hand, dora, ura, *, riichi: bool, options: dict) -> dict:
    """``{"dora", "ura", "red", "blue"}``: how many of each the hand holds (ura only with
    riichi; red fives with the ``red_fives`` option; blue sevens with ``special_tiles``)."""
    total = hand.total
    written = "".join(hand.tiles) + "".join("".join(c.tiles) for c in hand.calls)
    return {  # only a red five is written with a 0, only a blue seven with a b
        "dora": sum([total[f] for f in dora]) if dora else 0,
        "ura": sum([total[f] for f in ura]) if riichi and ura else 0,
        "red": written.count("0") if options["red_fives"] else 0,
        "blue": written.count("b") if options["special_tiles"] else 0,
    }
