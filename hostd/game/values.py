"""What one winner's hand is worth, in its ruleset's own terms (docs/SCORING.md).

    check_value(hand, rules, tsumo=...)   # BadEntry naming the field and what is accepted
    riichi_base(hand, rules) -> (limit or None, base points)     # via hostd/hand/limits.py
    wsom_value(patterns) -> points        # the pattern points after the limits (not x3)
    shenyang_factor(multipliers) -> int   # the product of the hand's multipliers
    uzje_points(hand) -> points           # the amount of seed 004's table

The payments that follow from a value are hostd.game.payments'.
"""
from __future__ import annotations

import math

from hostd.game.errors import BadEntry
from hostd.hand.limits import limit_of
from hostd.hand.scoring_rules import options_for

#: The value fields each way of scoring takes (the others are refused).
FIELDS = {
    "han": ("han", "fu", "yakuman", "chips", "pao"),
    "patterns": ("patterns",),
    "multipliers": ("multipliers",),
    "fan": ("fan", "limits"),
}
_WHAT = {
    "han": "han and fu (fu may be left out at 5 han or more), or yakuman: N",
    "patterns": "patterns: the hand's pattern points (a number up to the compound limit "
                "320, or 400 or 480 for a single limit hand), or a list of each pattern's "
                "points",
    "multipliers": "multipliers: a list of the seed's names (see the error for a bad name)",
    "fan": "fan (above 2.5, in steps of 0.2), or limits: N for a limit hand",
}

# ----------------------------------------------------------------------------- riichi


def _check_han(hand, rules, tsumo: bool) -> None:
    if hand.chips is not None and not rules.win_chips:
        raise BadEntry("%s counts no chips; leave 'chips' out" % rules.name, key="no_chips")
    if hand.pao is not None and hand.pao == hand.player:
        raise BadEntry("%s cannot be liable (pao) for their own win: 'pao' is the player "
                       "who let the hand complete" % hand.player, key="pao_self",
                       player=hand.player)
    if hand.yakuman is not None:
        if hand.han is not None or hand.fu is not None:
            raise BadEntry("give yakuman: N alone (a yakuman counts no han or fu)",
                           key="yakuman_alone")
        return
    if hand.han is None:
        raise BadEntry("give han (1 or more) and fu, or yakuman: N", key="han_missing")
    if hand.fu is None:
        if hand.han < 5:
            raise BadEntry("%d han needs its fu (20, 25, 30, 40 ... 110); fu may be left "
                           "out only at 5 han or more" % hand.han, key="fu_missing", han=hand.han)
        return
    _check_fu(hand.han, hand.fu, tsumo)


def _check_fu(han: int, fu: int, tsumo: bool) -> None:
    if fu != 25 and fu % 10:
        raise BadEntry("%d fu cannot be: fu is 25 (seven pairs) or a multiple of 10 from 20 "
                       "to 110" % fu, key="fu_invalid", fu=fu)
    if fu == 25 and han < 2:
        raise BadEntry("25 fu is seven pairs, which is 2 han at least (got %d han)" % han,
                       key="fu25_han", han=han)
    if fu == 20 and not tsumo:
        raise BadEntry("20 fu cannot be won on a discard (a closed ron has 30 fu at least, "
                       "an open 20-fu hand counts 30)", key="fu20_ron")
    if fu == 20 and han < 2:
        raise BadEntry("1 han 20 fu cannot be: 20 fu is pinfu tsumo, 2 han at least",
                       key="fu20_han")


def riichi_base(hand, rules) -> tuple[str | None, int]:
    """(limit name or None, base points) for a han/fu/yakuman hand; kiriage, counted
    yakuman and the like are the ruleset's scoring options (hostd/hand/scoring_rules.py)."""
    options = options_for(rules.name)
    return limit_of(hand.han or 0, hand.fu or 0, hand.yakuman or 0, options=options)

# ----------------------------------------------------------------------------- WSOM

#: seed 003 lines 172-176
WSOM_COMPOUND_LIMIT = 320
WSOM_SINGLE_LIMITS = (400, 480)


def _check_patterns(patterns) -> None:
    items = patterns if isinstance(patterns, list) else [patterns]
    if isinstance(patterns, list) and not patterns:
        raise BadEntry("patterns: give the pattern points (e.g. 170) or a list of them",
                       key="patterns_missing")
    for p in items:
        if p < 0 or p % 5 or (isinstance(patterns, list) and not 5 <= p <= 480):
            raise BadEntry("patterns: %d cannot be; every WSOM pattern is worth a multiple "
                           "of 5 (5 to 480, seed 003 lines 183-289)" % p, key="pattern_invalid",
                           points=p)
    if isinstance(patterns, int) and patterns > WSOM_COMPOUND_LIMIT and \
            patterns not in WSOM_SINGLE_LIMITS:
        # never clamped: a number above 320 is not a hand's worth (issue 50)
        raise BadEntry("patterns: %d is no hand's worth: a hand of several patterns scores "
                       "at most %d (the compound limit), a single limit hand 400 or 480 (seed "
                       "003 lines 172-176); give the hand's worth, or each pattern's points as "
                       "a list" % (patterns, WSOM_COMPOUND_LIMIT), key="patterns_over_limit",
                       points=patterns, most=WSOM_COMPOUND_LIMIT)


def wsom_value(patterns) -> int:
    """The hand's points (seed 003 lines 172-176). A list: each pattern's points, summed
    and held to the compound limit 320, unless one is a single limit (400 or 480: the hand
    is worth that). A number: the hand's worth as the players counted it, 0 to 320 or a
    single limit's 400 or 480, taken as it is (_check_patterns refuses any other)."""
    if isinstance(patterns, list):
        single = [p for p in patterns if p in WSOM_SINGLE_LIMITS]
        if single:
            return max(single)
        return min(sum(patterns), WSOM_COMPOUND_LIMIT)
    return patterns

# ----------------------------------------------------------------------------- Shenyang

#: name -> (factor, most times in one hand, seed 002 line); seed 002 lines 41-51, 62.
SHENYANG_MULTIPLIERS = {
    "duiduihu": (8, 1, 41),
    "dragon_kezi": (2, 3, 42),
    "gang": (2, 4, 43),
    "gangshang_kaihua": (2, 1, 44),
    "gangshang_pao": (2, 1, 45),
    "qianggang": (2, 1, 46),
    "single_wait": (2, 1, 47),
    "haidilaoyue": (2, 1, 62),
    "first_turn_dragons": (4, 1, 50),
    "first_turn_winds": (4, 1, 51),
}
#: the seed's riichi words for them (seed 002 line 1: riichi terminology)
SHENYANG_ALIASES = {
    "toitoi": "duiduihu", "dragon_triplet": "dragon_kezi", "angang": "gang",
    "rinshan": "gangshang_kaihua", "chankan": "qianggang", "haitei": "haidilaoyue",
}


def shenyang_name(name: str) -> str:
    key = name.strip().lower().replace(" ", "_").replace("-", "_") if isinstance(name, str) else ""
    key = SHENYANG_ALIASES.get(key, key)
    if key not in SHENYANG_MULTIPLIERS:
        raise BadEntry("multipliers: %r is not one of seed 002's: %s (also %s)" % (
            name, ", ".join(SHENYANG_MULTIPLIERS),
            ", ".join("%s = %s" % kv for kv in SHENYANG_ALIASES.items())),
            key="multiplier_unknown", name=str(name))
    return key


def _check_multipliers(names) -> None:
    keys = [shenyang_name(n) for n in names]
    for key in set(keys):
        most = SHENYANG_MULTIPLIERS[key][1]
        if keys.count(key) > most:
            raise BadEntry("multipliers: %s counts at most %d time%s in a hand (got %d)"
                           % (key, most, "" if most == 1 else "s", keys.count(key)),
                           key="multiplier_times", name=key, most=most, got=keys.count(key))


def shenyang_factor(names) -> int:
    return math.prod(SHENYANG_MULTIPLIERS[shenyang_name(n)][0] for n in names or ())

# ----------------------------------------------------------------------------- Ùzje

#: seed 004 line 297: 'the minimum to win is 2.5 fan'; 'increments of 0.2 fan'
UZJE_MINIMUM = 2.5
UZJE_LIMIT = 5000  # seed 004 line 224: '13 ~ 15 f = 1 l => 5000 pt'


def _check_fan(hand) -> None:
    if (hand.fan is None) == (hand.limits is None):
        raise BadEntry("give fan (above 2.5) or limits: N (a limit hand counts no fan, "
                       "seed 004 line 200), one of them", key="fan_or_limits")
    if hand.fan is not None:
        fifths = hand.fan * 5
        if abs(fifths - round(fifths)) > 1e-6 or hand.fan < UZJE_MINIMUM:
            raise BadEntry("fan %s cannot win: fan come in steps of 0.2 and a win needs more than %s "
                           "(seed 004 line 297)" % (hand.fan, UZJE_MINIMUM), key="fan_invalid",
                           fan=hand.fan, least=UZJE_MINIMUM)


def _one_two_five(step: int) -> int:
    """2, 5, 10, 20, 50, 100, ... (step 0 is 2)."""
    return (2, 5, 10)[step % 3] * 10 ** (step // 3)


def uzje_points(hand) -> int:
    """Seed 004 lines 198-230: 2 points at the minimum, the next 1-2-5 number for each whole
    fan above it, capped at one limit (5,000), one more limit every third fan beyond."""
    if hand.limits is not None:
        return UZJE_LIMIT * hand.limits
    step = math.floor(round(hand.fan * 5) / 5 - UZJE_MINIMUM)
    if _one_two_five(step) < UZJE_LIMIT:
        return _one_two_five(step)
    return UZJE_LIMIT * (1 + (step - 10) // 3)

# ----------------------------------------------------------------------------- checks


def check_value(hand, rules, *, tsumo: bool) -> None:
    """Refuse a value field the ruleset does not use, and a value that cannot be."""
    given = [f for f in ("han", "fu", "yakuman", "chips", "pao", "patterns", "multipliers",
                         "fan", "limits") if getattr(hand, f) is not None]
    foreign = [f for f in given if f not in FIELDS[rules.scoring]
               or (f == "pao" and not rules.pao)]
    if foreign:
        raise BadEntry("%s is not counted in %s: a win there gives %s" % (
            ", ".join(foreign), rules.name, _WHAT[rules.scoring]), key="field_foreign",
            fields=foreign)
    if rules.scoring == "han":
        _check_han(hand, rules, tsumo)
    elif rules.scoring == "patterns":
        if hand.patterns is None:
            raise BadEntry("give patterns: the hand's pattern points (e.g. 170)",
                           key="patterns_missing")
        _check_patterns(hand.patterns)
    elif rules.scoring == "multipliers":
        _check_multipliers(hand.multipliers or [])
    else:
        _check_fan(hand)
