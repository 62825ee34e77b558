"""The scoring options as data: each ruleset's defaults, and a request's overrides
(docs/HANDS.md "Scoring options").

    options_for(ruleset="riichi", overrides=None) -> dict   # HandError names a bad option
    OPTIONS: name -> (type, what it decides)                # the accepted options

The base ``riichi`` ruleset's are the common modern rules (and ``mahjong``'s settings the
cross-check uses): open tanyao, no kiriage, counted yakuman at 13 han, the double yakuman
hands, red fives as dora wherever a hand holds them. Speed Tonpuu's come from its seed
(001): kiriage, renhou as a yakuman, its special tiles, Kansai chiitoi, its local yaku,
East and West both round winds (tonshaaba) and its chips.
"""
from __future__ import annotations

from hostd.rules.rulesets import RulesetError, canonical_name
from hostd.hand.errors import HandError

#: Speed Tonpuu's local yaku (seed 001, "Yaku Changes"); the names the option lists.
LOCAL_YAKU = ("sanrenko", "sanpuuko", "suurenko", "shiisanpuutaa", "ultimate_all_stars")
#: What each chip is counted for (seed 001, "Shuugi"): a chip item -> chips.
CHIP_ITEMS = ("red", "blue", "gold", "pocchi", "ippatsu", "ura", "yakuman_ron",
              "yakuman_tsumo_each")
WINDS = ("east", "south", "west", "north")

#: name -> (type, what it decides). The types a request's value must have.
OPTIONS = {
    "open_tanyao": (bool, "all simples counts in an open hand (kuitan)"),
    "kiriage": (bool, "4 han 30 fu and 3 han 60 fu are rounded up to mangan"),
    "kazoe_yakuman": (bool, "13 han or more of ordinary yaku and dora is a (counted) yakuman; "
                            "false: sanbaiman"),
    "double_yakuman": (bool, "13-sided kokushi, 9-sided chuuren, suuankou tanki and daisuushi "
                             "are double yakuman"),
    "red_fives": (bool, "each red five (0m 0p 0s) is 1 han of dora"),
    "renhou_yakuman": (bool, "renhou is a yakuman; false: 5 han"),
    "open_pinfu_fu": (bool, "an open hand of 20 fu is counted 30 fu"),
    "pinfu_tsumo_fu": (bool, "pinfu by tsumo counts the 2 fu of tsumo (30 fu)"),
    "special_tiles": (bool, "Speed Tonpuu's special tiles: blue sevens 1 han each, the gold 5p "
                            "a 1-han yaku, pocchi wildcards"),
    "kansai_chiitoi": (bool, "seven pairs may hold a quad (two of the same pair): 1 quad +1 "
                             "han, 2 quads +3 han, 3 quads yakuman"),
    "local_yaku": (list, "local yaku in play, any of: " + ", ".join(LOCAL_YAKU)),
    "round_winds": (list, "the round winds beside the round's own (Speed Tonpuu: west too, "
                          "tonshaaba); any of: " + ", ".join(WINDS)),
    "chips": (dict, "chips counted (shuugi), item -> chips, any of: " + ", ".join(CHIP_ITEMS)
                    + "; {} for none"),
}

BASE = {
    "open_tanyao": True, "kiriage": False, "kazoe_yakuman": True, "double_yakuman": True,
    "red_fives": True, "renhou_yakuman": False, "open_pinfu_fu": True,
    "pinfu_tsumo_fu": False, "special_tiles": False, "kansai_chiitoi": False,
    "local_yaku": [], "round_winds": [], "chips": {},
}

#: Each ruleset's defaults: the base, with what its seed changes. Rulesets without a
#: scoring seed of their own (Shenyang, WSOM, Ùzje are not riichi scoring) are refused.
DEFAULTS = {
    "riichi": BASE,
    "speed-tonpuu": dict(
        BASE, kiriage=True, renhou_yakuman=True, special_tiles=True, kansai_chiitoi=True,
        local_yaku=list(LOCAL_YAKU), round_winds=["west"],
        chips={"red": 1, "blue": 2, "gold": 1, "pocchi": 1, "ippatsu": 1, "ura": 1,
               "yakuman_ron": 10, "yakuman_tsumo_each": 5}),
}


def canonical_ruleset(name: str) -> str:
    if name in DEFAULTS:
        return name
    try:
        canon = canonical_name(name)
    except RulesetError as e:
        raise HandError(str(e)) from None
    if canon not in DEFAULTS:
        raise HandError("ruleset %r: hands are scored for %s (riichi scoring); %s has its own "
                        "scoring, not scored here" % (name, ", ".join(DEFAULTS), canon))
    return canon


def _check_list(name: str, value, allowed) -> list:
    bad = [v for v in value if v not in allowed]
    if bad or not all(isinstance(v, str) for v in value):
        raise HandError("option %s: %r is not one of %s" % (name, (bad or value)[0],
                                                            ", ".join(allowed)))
    return list(value)


def _check_chips(value: dict) -> dict:
    for k, v in value.items():
        if k not in CHIP_ITEMS:
            raise HandError("option chips: no item %r; accepted: %s" % (k, ", ".join(CHIP_ITEMS)))
        if type(v) is not int or v < 0:
            raise HandError("option chips: %s must be a whole number of chips, 0 or more, "
                            "not %r" % (k, v))
    return dict(value)


def _check(name: str, value):
    if name not in OPTIONS:
        raise HandError("no scoring option %r; accepted: %s" % (name, ", ".join(OPTIONS)))
    kind = OPTIONS[name][0]
    if type(value) is not kind:
        raise HandError("option %s: %r is not %s" % (
            name, value, {bool: "true or false", list: "a list", dict: "an object"}[kind]))
    if name == "local_yaku":
        return _check_list(name, value, LOCAL_YAKU)
    if name == "round_winds":
        return _check_list(name, value, WINDS)
    if name == "chips":
        return _check_chips(value)
    return value


def options_for(ruleset: str = "riichi", overrides: dict | None = None) -> dict:
    """The ruleset's scoring options with ``overrides`` applied (each checked)."""
    base = DEFAULTS[canonical_ruleset(ruleset)]
    out = dict(base, local_yaku=list(base["local_yaku"]), round_winds=list(base["round_winds"]),
               chips=dict(base["chips"]))
    if overrides is None:
        return out
    if not isinstance(overrides, dict):
        raise HandError("options must be an object of option -> value; accepted: %s"
                        % ", ".join(OPTIONS))
    for name, value in overrides.items():
        out[name] = _check(name, value)
    return out
