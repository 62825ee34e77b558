"""Each ruleset's game rules as data: what a game starts with, how long it lasts, what a
hand pays beyond its value, who keeps the deal, how it ends (docs/SCORING.md).

    RULES[name] -> GameRules          # by canonical name (the ledger's rules_for takes any
                                      # spelling; hostd/game/ledger.py)
    options_of(rules) -> dict

Every value cites its seed in ``sources`` (seed file, line, quote), or says "ruling"
where the seed leaves the question open. ``riichi`` has no seed of its own: its values
are the usual tournament ones, each a ruling. The seeds: 001 Speed Tonpuu, 002
Shenyang, 003 WSOM, 004 Ùzje (``/work/shared/seeds``; DESIGN.md §1).
"""
from __future__ import annotations

from dataclasses import dataclass, field

#: The entry kinds every ruleset takes (undo is the ledger's own); beyond them: riichi,
#: abortive, chombo, pass, nagashi, suukantsu (the riichi family's), pot and rules
#: (Shenyang's).
COMMON_KINDS = ("ron", "tsumo", "draw", "transfer", "end", "undo")


@dataclass(frozen=True)
class GameRules:
    name: str
    #: how a win's value is entered: "han" (han/fu, riichi), "patterns" (WSOM),
    #: "multipliers" (Shenyang), "fan" (Ùzje)
    scoring: str
    kinds: tuple[str, ...]
    start_points: int
    #: rounds of dealerships (each player deals at least once per round) before the end
    rounds: int
    #: whether the seats have a round wind (WSOM: none, seed 003 line 70)
    round_wind: bool = True
    riichi_stick: int = 0
    #: honba paid by each payer per counter (a ron's discarder pays it three times)
    honba_per_payer: int = 0
    noten_total: int = 0
    #: the most winners on one discard; more is refused
    max_ron_winners: int = 1
    #: when the dealer keeps the deal: "win-or-tenpai", "win-or-draw", "win", "never"
    dealer_keeps: str = "never"
    #: a hand's result that leaves a player below 0 ends the game
    bust_ends: bool = False
    #: a player reaching this ends the game and takes ``called_game_chips`` from each other
    called_game: int | None = None
    called_game_chips: int = 0
    #: chips a player who busts pays to each winner (or each tenpai player at a draw)
    tobi_chips: int = 0
    #: chips by final placement (oka and uma), first to fourth
    uma_chips: tuple[int, ...] | None = None
    #: a win may carry chips (shuugi)
    win_chips: bool = False
    #: who may pass (agariyame / tenpaiyame): "any-dealer" or "all-last-top"; None: nobody
    pass_rule: str | None = None
    #: what a chombo costs: "mangan", "3000-all", "8-each"; None: no chombo entry
    chombo: str | None = None
    #: a win's hand may name the liable player (pao) who pays for it
    pao: bool = False
    #: how a nagashi mangan counts: "draw" (paid as a tsumo of ``nagashi_han``, then a
    #: draw), "win" (a win of ``nagashi_han``: honba and sticks to the winner); None: none
    nagashi: str | None = None
    nagashi_han: int = 5
    #: Speed Tonpuu's special suukantsu: a double yakuman of its own (seed 001 lines 43-47)
    special_suukantsu: bool = False
    #: Shenyang's pot: points a revealed tile costs, taken by the next winner (0: no pot)
    pot_per_tile: int = 0
    #: the ruleset's options a game may set with a ``rules`` entry: name -> accepted
    #: values, the default first (docs/SCORING.md "Options")
    options: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: Shenyang: who pays on a ron: "discarder" (the discarder alone, x2) or "all" (every
    #: other player, the discarder x2 and the others x1)
    ron_pays: str = "discarder"
    sources: dict[str, str] = field(default_factory=dict)


RIICHI = GameRules(
    name="riichi", scoring="han",
    kinds=COMMON_KINDS + ("riichi", "abortive", "chombo", "pass", "nagashi"),
    start_points=25000, rounds=2, riichi_stick=1000, honba_per_payer=100, noten_total=3000,
    max_ron_winners=2, dealer_keeps="win-or-tenpai", bust_ends=True,
    pass_rule="all-last-top", chombo="mangan", pao=True, nagashi="draw", nagashi_han=5,
    sources={
        "start_points": "ruling: 25,000 each; no return points (30,000) and no oka or uma: "
                        "the ledger ranks by raw points, a club settles as it likes",
        "rounds": "ruling: East and South (hanchan), no West extension",
        "scoring": "ruling: han and fu, limits and shares by hostd/hand/limits.py (no kiriage)",
        "riichi_stick": "ruling: 1,000, to the next winner; left on the table at a draw",
        "honba_per_payer": "ruling: 300 a counter, 100 from each payer on tsumo",
        "noten_total": "ruling: 3,000 split between the noten and the tenpai players",
        "max_ron_winners": "ruling: double ron pays both; three winners on one discard is "
                           "an abortive draw (enter it as abortive)",
        "head_bump": "ruling: on a double ron, honba and riichi sticks go to the winner "
                     "nearest the discarder in turn order",
        "dealer_keeps": "ruling: renchan when the dealer wins or is tenpai at a draw; an "
                        "abortive draw keeps the dealer too; honba +1 on renchan or draw",
        "bust_ends": "ruling: a player below 0 after a hand ends the game (0 plays on)",
        "pass_rule": "ruling: agariyame/tenpaiyame only by the dealer of the last hand "
                     "(South 4) who is in first place; it ends the game",
        "chombo": "ruling: a reversed mangan tsumo (non-dealer 2,000/4,000, dealer 4,000 "
                  "all); the hand is replayed, dealer and honba unchanged, riichi sticks of "
                  "the hand returned",
        "leftover_sticks": "ruling: riichi sticks left on the table at the end go to first",
        "noten_riichi": "ruling: a player in riichi who is noten at a draw pays as noten (no "
                        "chombo)",
        "placement": "ruling: ties by seat order from the first dealer",
        "pao": "ruling: a win's 'pao' names the liable player (daisangen, daisuushii and the "
               "like): on a tsumo they pay the whole hand as a ron and the honba; on a ron "
               "they pay half (rounded up to 100) and the discarder the rest and the honba",
        "nagashi": "ruling: nagashi mangan is paid as a mangan tsumo by the player who had "
                   "it and the hand is then a draw: no noten payments, riichi sticks stay on "
                   "the table, honba +1, the dealer keeps the deal if tenpai",
    },
)

SPEED_TONPUU = GameRules(
    name="speed-tonpuu", scoring="han",
    kinds=COMMON_KINDS + ("riichi", "abortive", "chombo", "pass", "nagashi", "suukantsu"),
    start_points=25000, rounds=1, riichi_stick=1000, honba_per_payer=500, noten_total=3000,
    max_ron_winners=2, dealer_keeps="win-or-tenpai", bust_ends=True,
    called_game=55000, called_game_chips=1, tobi_chips=1, uma_chips=(13, 3, -5, -11),
    win_chips=True, pass_rule="any-dealer", chombo="3000-all", pao=True, nagashi="win",
    nagashi_han=6, special_suukantsu=True,
    sources={
        "rounds": "seed 001 line 7: 'Strict Tonpuusen: East-only and no South extension.'",
        "scoring": "seed 001 line 11: 'Kiriage Mangan is on.' (hostd/hand/limits.py, option "
                   "kiriage)",
        "honba_per_payer": "seed 001 line 28: 'Basengo: honba bonus is 500 per player.' "
                           "(1,500 a counter on ron, 500 from each on tsumo)",
        "pass_rule": "seed 001 lines 12-14: 'Agariyame and tenpaiyame are on for every "
                     "dealership unconditionally ... Passing resets the honba count.' A pass "
                     "gives the deal to the next player; the last dealer's pass ends the game",
        "called_game": "seed 001 line 16: 'any player reaching 55,000 pt ends the game "
                       "instantly and received 1 chip from each other player.'",
        "win_chips": "seed 001 lines 65-68: shuugi chips; a win's 'chips' are paid by the "
                     "discarder, or by each other player on tsumo ('10 chips if ron, and 5 "
                     "chips each if tsumo')",
        "tobi_chips": "seed 001 lines 69-70: 'Tobi: 1 chip ... in the case of multi-ron and "
                      "multi-tenpai at draw, pay to all players that won/were tenpai.'",
        "uma_chips": "seed 001 lines 8, 74-76: placement-only battle; oka and uma in chips "
                     "'13/3/-5/-11'",
        "chombo": "seed 001 line 80: 'Chonbo penalty is 3000 all.' (ruling: the hand is "
                  "replayed as in riichi)",
        "abortive": "seed 001 line 10: 'Abortive draws are on.'",
        "max_ron_winners": "seed 001 line 70 speaks of multi-ron: double ron pays both "
                           "(ruling for three winners: abortive, as riichi)",
        "start_points": "ruling: 25,000 each (the seed gives none; oka 20 fits 25,000/30,000)",
        "riichi_stick": "ruling: as riichi (1,000, noten payments 3,000, bust below 0)",
        "placement": "ruling: ties by seat order from the first dealer",
        "pao": "seed 001 lines 59-61: 'pao is on for daisangen, daisuushi, suukantsu, and "
               "rinshan (in the case of rinshan, pao pays the full amount). pao is "
               "responsible for covering the full shuugi amount (i.e., pays 3x shuugi in the "
               "case of tsumo)': on a tsumo the liable player pays the whole hand as a ron, "
               "the honba and 3x the chips; on a ron (ruling) half the points, rounded up to "
               "100, and all the chips, the discarder the rest and the honba",
        "nagashi": "seed 001 lines 37-38: 'Nagashimangan is a special win that is worth "
                   "haneman. this means honba, etc. are applicable': a haneman tsumo (6,000 "
                   "all by a dealer, 3,000/6,000), honba and riichi sticks to its player, "
                   "the deal kept only if the dealer had it; no chips (as the special "
                   "suukantsu, line 45)",
        "special_suukantsu": "seed 001 lines 43-47: the 4th kan's rinshan tile not "
                             "completing the hand is 'a special double yakuman that does not "
                             "stack with anything else ... the winner gets no chips from "
                             "color tiles': a tsumo after an ankan or kakan, a ron from the "
                             "player who gave the daiminkan ('only 20 chips'); chips 10 from "
                             "each on a tsumo, 20 on a ron (line 68, for each yakuman); honba "
                             "and sticks as a win",
    },
)

SHENYANG = GameRules(
    name="shenyang", scoring="multipliers",
    kinds=COMMON_KINDS + ("chombo", "pot", "rules"),
    start_points=0, rounds=4, dealer_keeps="win-or-draw", chombo="8-each", pot_per_tile=4,
    options={"ron_pays": ("discarder", "all")},
    sources={
        "scoring": "seed 002 lines 36-51: base 2, times each multiplier the hand has",
        "dealer": "seed 002 line 37: 'Dealer always pays and wins double (x2)'",
        "closed": "seed 002 line 38: 'Player who doesn't have an open hand always pays "
                  "double (x2)' (the entry's 'closed' lists them)",
        "ron": "seed 002 line 39: 'Winning by hu (ron): x2'; who pays is the option "
               "ron_pays: 'discarder' (the default: the discarder alone pays, x2, as the "
               "seed's riichi terms read) or 'all' (every other player pays, the discarder "
               "x2 and the others x1, as many tables play it); a game sets it with a 'rules' "
               "entry before its first result",
        "tsumo": "seed 002 line 40: 'Winning by zimo (tsumo): everyone pays x1'",
        "dice": "seed 002 line 48: 'dice roll double: x2' (the table's own throw)",
        "draw_carry": "seed 002 line 49: 'last round is liuju: x2 (ryuukyoku -> next round "
                      "win becomes x2)'; ruling: one x2 however many draws in a row, and it "
                      "stacks with the dice (the local variation of line 66 is not applied); a "
                      "voided hand (zhahu) keeps it for the replayed hand",
        "dealer_keeps": "seed 002 line 60: 'if dealer wins or liuju: dealership continues; "
                        "otherwise dealership rotates. Tenpai-ness does not matter.'",
        "chombo": "seed 002 line 56: 'Zhahu (invalid win): the offender pays 8 points to "
                  "each other player immediately; the hand is voided'",
        "transfer": "seed 002 line 61: the same-discard 4 points are entered as a transfer",
        "pot": "seed 002 line 67 (a local variation): 'The offender pays 4 points to the pot "
               "for each tile revealed (next winner takes the pot)': a 'pot' entry names the "
               "player and the tiles; the next win takes it (on a draw it stays); ruling: a "
               "pot left at the game's end goes to first place, as riichi sticks do",
        "start_points": "ruling: 0 each (the seed gives none)",
        "rounds": "ruling: four rounds (the seed gives no length); 'end' stops earlier",
        "max_ron_winners": "ruling: one winner per discard, the first in turn order after "
                           "the discarder (the seed is silent)",
    },
)

WSOM = GameRules(
    name="wsom", scoring="patterns", kinds=COMMON_KINDS,
    start_points=0, rounds=4, round_wind=False, dealer_keeps="never",
    sources={
        "scoring": "seed 003 lines 293-299: patterns added, times 3; self-draw: split 3 "
                   "ways; on a discard above 25, 'the two non-discarded players each lose 25 "
                   "points, and the discarded player loses the rest'",
        "limits": "seed 003 lines 172-176: compound limit 320; a single 400 or 480 pattern "
                  "scores 400 or 480",
        "max_ron_winners": "seed 003 line 155: 'the single winner is determined as above; "
                           "this is called interception. Note that there are no exceptions'",
        "dealer_keeps": "seed 003 lines 69-70, 164: 'the deal always passes (East never "
                        "repeats the deal)'",
        "draw": "seed 003 line 23: 'the hand is a draw, and all players score zero'",
        "round_wind": "seed 003 line 70: 'the \"Prevailing Wind\" (Round Wind) is not "
                      "recognized'",
        "rounds": "ruling: four cycles of four hands (seed 003 line 68: cycles of four; the "
                 "number of hands is the tournament's); 'end' stops earlier",
        "start_points": "ruling: 0 each (seed 003 line 14: totals won and lost)",
        "chombo": "ruling: no chombo entry (seed 003 line 44 names a 'false win' but no "
                  "penalty): enter the judge's penalty as a transfer",
    },
)

UZJE = GameRules(
    name="uzje", scoring="fan", kinds=COMMON_KINDS,
    start_points=0, rounds=4, max_ron_winners=3, dealer_keeps="win-or-draw",
    sources={
        "start_points": "seed 004 line 194: 'All players start with 0 points.'",
        "scoring": "seed 004 lines 196-230: the minimum (2.5 f) is 2 points, 'each fan above "
                   "the minimum' the next 1-2-5 number, a limit (5,000) at 12.5 f and one "
                   "more every third fan beyond; ruling: the minimum stays 2.5 f and a limit "
                   "hand is entered as 'limits' (no fan counted, seed line 200)",
        "payments": "seed 004 lines 234-236: the discarder pays the amount (each winner); on "
                    "self-draw 'all other players pay exactly half'",
        "max_ron_winners": "seed 004 line 235: 'In the case where there are multiple "
                           "winners, the losing player must pay each one that amount.'",
        "dealer_keeps": "seed 004 line 181: the game orientation rotates 'whenever someone "
                        "other than the dealer goes out'; 'goulashes' (draws) or a dealer's "
                        "win add games: the dealer keeps",
        "rounds": "seed 004 lines 182-185: a match of four sets is the typical full game",
        "transfer": "ruling: what the seed does not specify (penalties, honba, riichi) is "
                    "entered as a transfer; no chombo entry",
    },
)

RULES = {r.name: r for r in (RIICHI, SPEED_TONPUU, SHENYANG, WSOM, UZJE)}



def options_of(rules: GameRules) -> dict:
    """The game's options as they are (the state's ``options``)."""
    return {name: getattr(rules, name) for name in rules.options}


def rules_table(rules: GameRules) -> str:
    """The ruleset's rules as the rows of docs/SCORING.md's table (a test keeps them so)."""
    return "\n".join("| `%s` | %s |" % kv for kv in rules.sources.items())
