"""Mixed Deck's yaku on a complete closed hand (seed 000, "New Yaku"; docs/HANDS.md).

* 1 han: using 5, 6 or 7 copies of one face (once, however many faces qualify);
* yakuman: using 8 copies of one face (the 1-han yaku then do not count, as ordinary
  yaku never add to a yakuman);
* with different backs, 1 han: exactly 7 tiles from each set (``backs=(7, 7)``).

Special tiles count as the face they play as (a red 5p is a copy of 5p).

    mixed_deck_yaku(counts, backs=None) -> list[dict]   # {"name", "han"} / {"name", "yakuman": True}
"""
from __future__ import annotations

MANY_COPIES = "5-7 copies of one face"
EIGHT_COPIES = "8 copies of one face"
SEVEN_EACH = "7 tiles from each set"


def copies_faces(counts, low: int, high: int) -> list[int]:
    """Faces held ``low``..``high`` times."""
    return [i for i, c in enumerate(counts) if low <= c <= high]


def mixed_deck_yaku(counts, backs: tuple[int, int] | None = None) -> list[dict]:
    """The yaku of a complete hand with these counts (the caller checks it is complete
    and that Mixed Deck is played); ``backs`` = tiles from each set, if known."""
    if copies_faces(counts, 8, 8):
        return [{"name": EIGHT_COPIES, "yakuman": True}]
    out = []
    if copies_faces(counts, 5, 7):
        out.append({"name": MANY_COPIES, "han": 1})
    if backs is not None and tuple(backs) == (7, 7):
        out.append({"name": SEVEN_EACH, "han": 1})
    return out
