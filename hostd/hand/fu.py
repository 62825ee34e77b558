"""Fu of a reading, with its breakdown (docs/HANDS.md "Fu").

    fu_of(reading, *, tsumo, closed, valued, pinfu, options) -> (fu, [(reason, fu), ...])

The usual counting: 20 base; 10 for a closed ron; 2 for tsumo (not with pinfu unless the
``pinfu_tsumo_fu`` option); 2 for a kanchan, penchan or tanki wait; 2 for a pair of each
value it has (a dragon, the seat wind, a round wind: a double wind pair is 4); triplets
2 (open simples), 4 (closed simples or open terminals/honours), 8 (closed
terminals/honours), a kan four times that; rounded up to 10. An open hand of 20 fu is
counted 30 (``open_pinfu_fu``). Seven pairs: 25, not rounded. Thirteen orphans: 0 (a
yakuman's fu do not count).
"""
from __future__ import annotations

from hostd.hand.readings import KANSAI_PAIRS
from hostd.hand.shapes import SETS, SEVEN_PAIRS

TERMINALS = frozenset((0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33))
#: The fu of a triplet: [terminal or honour][kan][concealed].
_TRIPLET_FU = (((2, 4), (8, 16)), ((4, 8), (16, 32)))
_TRIPLET_REASON = ((("open triplet", "closed triplet"), ("open kan", "closed kan")),
                   (("open terminal triplet", "closed terminal triplet"),
                    ("open terminal kan", "closed terminal kan")))
_WAIT_FU = {"kanchan": 2, "penchan": 2, "tanki": 2}


def _set_fu(reading, out: list) -> None:
    for kind, face, concealed, kan in reading.sets:
        if kind == "triplet":
            t = face in TERMINALS
            out.append((_TRIPLET_REASON[t][kan][concealed], _TRIPLET_FU[t][kan][concealed]))


def fu_of(reading, *, tsumo: bool, closed: bool, valued, pinfu: bool,
          options: dict) -> tuple[int, list]:
    """``valued``: the value faces, a face once per value (a double wind twice);
    ``closed``: no call but closed kans."""
    if reading.form in (SEVEN_PAIRS, KANSAI_PAIRS):
        return 25, [("seven pairs", 25)]
    if reading.form != SETS:
        return 0, []
    out = [("base", 20)]
    if closed and not tsumo:
        out.append(("closed ron", 10))
    wait = _WAIT_FU.get(reading.wait)
    if wait:
        out.append((reading.wait + " wait", wait))
    n = valued.count(reading.pair) if reading.pair is not None else 0
    if n:
        out.append(("value pair" if n == 1 else "double value pair", 2 * n))
    _set_fu(reading, out)
    if tsumo and (not pinfu or options["pinfu_tsumo_fu"]):
        out.append(("tsumo", 2))
    total = sum(f for _, f in out)
    if not closed and total == 20 and options["open_pinfu_fu"]:
        out.append(("open hand of 20 fu", 10))
        return 30, out
    return (total + 9) // 10 * 10, out
