"""hostd/game/ledger.py: whole games per ruleset worked out by hand, what is refused
(and that a refusal changes nothing), and properties over random entry sequences: points
are conserved, undo is exact, replay rebuilds the same state."""
import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hostd.game.ledger import Ledger, LedgerError
from hostd.game.seats import WINDS


def points(state):
    return {p: v["points"] for p, v in state["players"].items()}


def chips(state):
    return {p: v["chips"] for p, v in state["players"].items()}


def play(led, *entries):
    state = None
    for e in entries:
        state = led.apply(e)
    return state


@pytest.fixture
def riichi():
    return Ledger(ruleset="riichi", names={"east": "Mika"})


# --------------------------------------------------------------------------- the state

def test_a_new_game(riichi):
    s = riichi.state()
    assert (s["ruleset"], s["round"], s["hand"], s["honba"], s["dealer"], s["sticks"]) == \
        ("riichi", "east", 1, 0, "east", 0)
    assert s["players"]["east"] == {"name": "Mika", "wind": "east", "points": 25000, "chips": 0}
    assert s["players"]["south"]["name"] is None
    assert not s["ended"] and s["placement"] is None and s["entries"] == 0 and s["last"] is None


def test_another_first_dealer_counts_seat_winds_from_it():
    s = Ledger("uzje", dealer="west").state()
    assert s["dealer"] == "west"
    assert {p: v["wind"] for p, v in s["players"].items()} == \
        {"west": "east", "north": "south", "east": "west", "south": "north"}


# --------------------------------------------------------------------------- riichi hanchan

def test_a_riichi_hanchan_by_hand(riichi):
    s = play(riichi,
             # E1: south riichi (24000, 1 stick); west rons east 3 han 30 fu: 3900 + the stick
             {"kind": "riichi", "player": "south"},
             {"kind": "ron", "winner": "west", "from": "east", "han": 3, "fu": 30})
    assert points(s) == {"east": 21100, "south": 24000, "west": 29900, "north": 25000}
    assert (s["dealer"], s["hand"], s["honba"], s["sticks"]) == ("south", 2, 0, 0)
    assert s["last"]["payments"] == {"east": -3900, "south": 0, "west": 4900, "north": 0}
    # E2: dealer south tsumo 2 han 30 fu: 1000 all -> renchan, honba 1
    s = play(riichi, {"kind": "tsumo", "winner": "south", "han": 2, "fu": 30})
    assert (s["dealer"], s["honba"], s["can_pass"]) == ("south", 1, True)
    # E2-1: draw, south and north tenpai: east and west pay 1500 each; renchan, honba 2
    s = play(riichi, {"kind": "draw", "tenpai": ["south", "north"]})
    assert points(s) == {"east": 18600, "south": 28500, "west": 27400, "north": 25500}
    assert (s["dealer"], s["honba"]) == ("south", 2)
    # E2-2: north rons east 1 han 30 fu: 1000 + 2 x 300 honba; the deal passes, honba 0
    s = play(riichi, {"kind": "ron", "winner": "north", "from": "east", "han": 1, "fu": 30})
    assert points(s)["north"] == 27100 and points(s)["east"] == 17000
    assert (s["dealer"], s["hand"], s["honba"]) == ("west", 3, 0)
    # E3: abortive: dealer keeps, honba 1
    s = play(riichi, {"kind": "abortive"})
    assert (s["dealer"], s["honba"]) == ("west", 1)
    # E3-1: east riichi (16000, 1 stick); draw, only east tenpai: +3000; west (dealer)
    # noten: the deal passes, honba 2, the stick stays on the table
    s = play(riichi, {"kind": "riichi", "player": "east"}, {"kind": "draw", "tenpai": ["east"]})
    assert points(s) == {"east": 19000, "south": 27500, "west": 26400, "north": 26100}
    assert (s["dealer"], s["hand"], s["honba"], s["sticks"]) == ("north", 4, 2, 1)
    # E4-2: west tsumo mangan (non-dealer: dealer north 4000, others 2000) + 200 from each
    # + the stick: west +9600; north -4200, east and south -2200
    s = play(riichi, {"kind": "tsumo", "winner": "west", "han": 5})
    assert points(s) == {"east": 16800, "south": 25300, "west": 36000, "north": 21900}
    assert (s["round"], s["dealer"], s["hand"], s["honba"], s["sticks"]) == \
        ("south", "east", 1, 0, 0)
    # S1: dealer east rons south 4 han 30 fu: 1920 x 6 = 11520 -> 11600; renchan
    s = play(riichi, {"kind": "ron", "winner": "east", "from": "south", "han": 4, "fu": 30})
    assert (points(s)["east"], points(s)["south"], s["honba"]) == (28400, 13700, 1)
    # S1-1: double ron on west's discard: south 2 han 30 fu (2000), north 3 han 30 fu
    # (3900) + the honba (north plays first after west); east not winning: deal passes
    s = play(riichi, {"kind": "ron", "from": "west", "winners": [
        {"player": "south", "han": 2, "fu": 30}, {"player": "north", "han": 3, "fu": 30}]})
    assert points(s) == {"east": 28400, "south": 15700, "west": 29800, "north": 26100}
    assert (s["dealer"], s["honba"]) == ("south", 0)
    # S2: chombo by west: reversed mangan, dealer south +4000, the others +2000; replayed
    s = play(riichi, {"kind": "chombo", "player": "west"})
    assert points(s) == {"east": 30400, "south": 19700, "west": 21800, "north": 28100}
    assert (s["round"], s["dealer"], s["hand"], s["honba"]) == ("south", "south", 2, 0)
    # S2: north tsumo 3 han 40 fu: base 1280, dealer 2600, others 1300
    s = play(riichi, {"kind": "tsumo", "winner": "north", "han": 3, "fu": 40})
    assert points(s) == {"east": 29100, "south": 17100, "west": 20500, "north": 33300}
    # S3: south rons east 2 han 30 fu (2000); S4: a draw, nobody tenpai, dealer north
    # noten: the deal would pass after South 4: the game ends
    s = play(riichi, {"kind": "ron", "winner": "south", "from": "east", "han": 2, "fu": 30},
             {"kind": "draw", "tenpai": []})
    assert s["ended"] and (s["round"], s["hand"], s["dealer"]) == ("south", 4, "north")
    assert points(s) == {"east": 27100, "south": 19100, "west": 20500, "north": 33300}
    assert s["placement"] == ["north", "east", "west", "south"]
    assert sum(points(s).values()) == 100000
    with pytest.raises(LedgerError) as e:
        riichi.apply({"kind": "riichi", "player": "east"})
    assert e.value.status == 409 and "ended" in e.value.message


def _to_south_4(led):
    """Draws where nobody is tenpai, up to South 4 (dealer north)."""
    while (led.state()["round"], led.state()["dealer"]) != ("south", "north"):
        led.apply({"kind": "draw", "tenpai": []})
    assert (led.state()["round"], led.state()["dealer"]) == ("south", "north")


def test_riichi_agariyame_by_the_last_dealer_in_first_place(riichi):
    _to_south_4(riichi)
    with pytest.raises(LedgerError):  # nothing won yet: no pass
        riichi.apply({"kind": "pass"})
    s = play(riichi, {"kind": "tsumo", "winner": "north", "han": 5}, {"kind": "pass"})
    assert s["ended"] and s["placement"][0] == "north" and "passed" in s["ended_by"]


def test_riichi_no_pass_before_the_last_hand_nor_when_not_first(riichi):
    riichi.apply({"kind": "tsumo", "winner": "east", "han": 5})
    with pytest.raises(LedgerError) as e:
        riichi.apply({"kind": "pass"})
    assert e.value.status == 422 and "South 4" in e.value.message
    led = Ledger("riichi")
    led.apply({"kind": "ron", "winner": "south", "from": "north", "han": 6})  # south 37000
    _to_south_4(led)
    led.apply({"kind": "tsumo", "winner": "north", "han": 1, "fu": 30})
    with pytest.raises(LedgerError):
        led.apply({"kind": "pass"})


def test_riichi_a_bust_ends_the_game_and_leftover_sticks_go_to_first(riichi):
    s = play(riichi, {"kind": "riichi", "player": "south"},
             {"kind": "ron", "winner": "west", "from": "east", "yakuman": 1})
    # west: 32000 + the stick; east: 25000 - 32000 = -7000
    assert s["ended"] and "east went below 0" in s["ended_by"]
    assert points(s) == {"east": -7000, "south": 24000, "west": 58000, "north": 25000}
    led = Ledger("riichi")
    s = play(led, {"kind": "riichi", "player": "south"}, {"kind": "end"})
    assert points(s)["east"] == 26000  # first by seat order on a tie: the stick is east's


def test_riichi_refusals(riichi):
    riichi.apply({"kind": "riichi", "player": "south"})
    with pytest.raises(LedgerError) as e:
        riichi.apply({"kind": "riichi", "player": "south"})
    assert e.value.status == 409 and "already in riichi" in e.value.message
    led = Ledger("riichi")
    led.apply({"kind": "ron", "winner": "west", "from": "east", "han": 11})  # east 1000
    led.apply({"kind": "ron", "winner": "west", "from": "south", "han": 1, "fu": 30})
    led.apply({"kind": "ron", "winner": "east", "from": "north", "han": 1, "fu": 30})
    assert led.state()["players"]["east"]["points"] == 2000
    led.apply({"kind": "ron", "winner": "west", "from": "east", "han": 1, "fu": 40})
    assert led.state()["players"]["east"]["points"] == 700
    with pytest.raises(LedgerError) as e:
        led.apply({"kind": "riichi", "player": "east"})
    assert "700 points" in e.value.message


# --------------------------------------------------------------------------- Speed Tonpuu

def test_a_speed_tonpuu_game_by_hand():
    led = Ledger("speed-tonpuu")
    # E1: dealer east tsumo 4 han 30 fu, kiriage mangan: 4000 all; 2 chips from each
    s = play(led, {"kind": "tsumo", "winner": "east", "han": 4, "fu": 30, "chips": 2})
    assert points(s)["east"] == 37000 and chips(s)["east"] == 6
    assert (s["dealer"], s["honba"], s["can_pass"]) == ("east", 1, True)
    # E1-1: east passes (agariyame): the deal moves on, honba reset (seed 001 l. 12-14)
    s = play(led, {"kind": "pass"})
    assert (s["dealer"], s["hand"], s["honba"], s["ended"]) == ("south", 2, 0, False)
    # E2: west riichi; dealer south rons north 3 han 30 fu: 5800 + the stick; 1 chip
    s = play(led, {"kind": "riichi", "player": "west"},
             {"kind": "ron", "winner": "south", "from": "north", "han": 3, "fu": 30,
              "chips": 1})
    assert points(s) == {"east": 37000, "south": 27800, "west": 20000, "north": 15200}
    # E2-1: draw, south tenpai: +3000; renchan; E2-2: south passes (tenpaiyame)
    s = play(led, {"kind": "draw", "tenpai": ["south"]}, {"kind": "pass"})
    assert points(s) == {"east": 36000, "south": 30800, "west": 19000, "north": 14200}
    assert (s["dealer"], s["honba"]) == ("west", 0)
    # E3: east tsumo haneman (non-dealer: dealer west 6000, others 3000)
    s = play(led, {"kind": "tsumo", "winner": "east", "han": 6})
    assert points(s) == {"east": 48000, "south": 27800, "west": 13000, "north": 11200}
    # E4: east rons north mangan: 56000 >= 55000, the called game: 1 chip from each
    s = play(led, {"kind": "ron", "winner": "east", "from": "north", "han": 5})
    assert s["ended"] and "called game" in s["ended_by"]
    assert points(s) == {"east": 56000, "south": 27800, "west": 13000, "north": 3200}
    assert s["placement"] == ["east", "south", "west", "north"]
    # chips: east 6 (E1) + 3 (called game) + 13 (uma); south -2 + 1 - 1 + 3;
    # west -2 - 1 - 5; north -2 - 1 - 1 - 11
    assert chips(s) == {"east": 22, "south": 1, "west": -8, "north": -15}
    assert sum(chips(s).values()) == 0


def test_speed_tonpuu_east_only_and_the_last_dealers_pass_ends_it():
    led = Ledger("speed-tonpuu")
    s = play(led, *[{"kind": "draw", "tenpai": []}] * 3)
    assert (s["round"], s["hand"]) == ("east", 4)
    s = play(led, {"kind": "tsumo", "winner": "north", "han": 1, "fu": 30}, {"kind": "pass"})
    assert s["ended"] and s["placement"][0] == "north"
    led = Ledger("speed-tonpuu")
    s = play(led, *[{"kind": "draw", "tenpai": []}] * 4)
    assert s["ended"] and s["round"] == "east"


def test_speed_tonpuu_tobi_chip_to_each_winner():
    led = Ledger("speed-tonpuu")
    s = play(led, {"kind": "ron", "from": "east", "winners": [
        {"player": "south", "yakuman": 1}, {"player": "west", "han": 1, "fu": 30}]})
    # east: 25000 - 32000 - 1000 < 0: 1 chip to each winner; south at 57000 also calls
    # the game (1 chip from each); uma by placement south, west, north, east
    assert s["ended"] and "below 0" in s["ended_by"] and "called game" in s["ended_by"]
    assert chips(s) == {"east": -1 - 1 - 1 - 11, "south": 1 + 3 + 13, "west": 1 - 1 + 3,
                        "north": -1 - 5}


# --------------------------------------------------------------------------- WSOM

def test_a_wsom_game_by_hand():
    led = Ledger("wsom")
    s = play(led,
             {"kind": "tsumo", "winner": "north", "patterns": 170},           # N +510
             {"kind": "ron", "winner": "north", "from": "east", "patterns": 170},  # E -460
             {"kind": "ron", "winner": "west", "from": "south", "patterns": 20})  # -20 each
    assert s["dealer"] == "north"  # west dealt and won: the deal passes all the same
    s = play(led, {"kind": "tsumo", "winner": "east", "patterns": [480, 30]})  # 480: +1440
    assert s["round"] == "south" and s["dealer"] == "east" and s["round_wind"] is None
    # patterns summing to 400 are a compound hand: 320 x 3 = 960, 25 from each non-discarder
    s = play(led, {"kind": "ron", "winner": "south", "from": "west", "patterns": [200, 200]})
    assert s["last"]["payments"] == {"south": 960, "west": -910, "east": -25, "north": -25}
    assert s["dealer"] == "south"
    s = play(led, *[{"kind": "draw"}] * 10)
    assert not s["ended"] and (s["round"], s["hand"]) == ("north", 4)
    s = play(led, {"kind": "draw"})  # the 16th hand: four cycles
    # east -170 -460 -20 +1440 -25; south -170 -25 -20 -480 +960;
    # west -170 -25 +60 -480 -910; north +510 +510 -20 -480 -25
    assert s["ended"]
    assert points(s) == {"east": 765, "south": 265, "west": -1525, "north": 495}
    assert s["placement"] == ["east", "north", "south", "west"]


# --------------------------------------------------------------------------- Shenyang

def test_a_shenyang_game_by_hand():
    led = Ledger("shenyang")
    # west rons closed south: duiduihu x8, dice double x2: 2 x 8 x 2 = 32, ron x2,
    # closed x2: 128; the dealer (east) did not win: the deal passes
    s = play(led, {"kind": "ron", "winner": "west", "from": "south",
                   "multipliers": ["duiduihu"], "closed": ["south"], "dice": [3, 3]})
    assert points(s) == {"east": 0, "south": -128, "west": 128, "north": 0}
    assert s["dealer"] == "south"
    # a draw: the dealer keeps the deal; the next win doubles (seed 002 line 49)
    s = play(led, {"kind": "draw"})
    assert s["dealer"] == "south" and s["honba"] == 0
    # dealer south tsumo, two gang: 2 x 4 x 2 (after the draw) = 16, each pays x2 (dealer)
    # = 32, closed north 64
    s = play(led, {"kind": "tsumo", "winner": "south", "multipliers": ["gang", "gang"],
                   "closed": ["north"], "dice": [1, 2]})
    assert points(s) == {"east": -32, "south": 0, "west": 96, "north": -64}
    assert s["dealer"] == "south"
    # zhahu by east: 8 to each other player, the hand voided (seed 002 line 56)
    s = play(led, {"kind": "chombo", "player": "east"})
    assert points(s) == {"east": -56, "south": 8, "west": 104, "north": -56}
    assert s["dealer"] == "south" and sum(points(s).values()) == 0


def test_shenyang_dice_double_can_be_turned_off():
    led = Ledger("shenyang", dice_double=1)
    s = led.apply({"kind": "tsumo", "winner": "west", "dice": [6, 6]})
    assert s["players"]["west"]["points"] == 2 + 2 + 4
    with pytest.raises(LedgerError):
        Ledger("riichi", dice_double=2)


# --------------------------------------------------------------------------- Ùzje

def test_uzje_dealer_keeps_on_a_win_or_a_draw_and_halves():
    led = Ledger("uzje")
    s = play(led, {"kind": "tsumo", "winner": "east", "fan": 4})  # 2.5 from each
    assert points(s) == {"east": 7.5, "south": -2.5, "west": -2.5, "north": -2.5}
    assert s["dealer"] == "east"
    s = play(led, {"kind": "draw"})
    assert s["dealer"] == "east"
    s = play(led, {"kind": "ron", "winner": "south", "from": "east", "fan": 7},
             {"kind": "transfer", "payments": {"west": -10, "north": 10}})
    assert s["dealer"] == "south" and s["players"]["north"]["points"] == 7.5
    assert s["last"]["kind"] == "transfer"


# --------------------------------------------------------------------------- undo, refusals

def test_undo_restores_exactly_and_is_refused_when_empty(riichi):
    with pytest.raises(LedgerError) as e:
        riichi.undo()
    assert e.value.status == 409 and "nothing to undo" in e.value.message
    before = riichi.state()
    riichi.apply({"kind": "riichi", "player": "north"})
    assert riichi.apply({"kind": "undo"}) == before
    assert riichi.entries == []


def test_undo_after_the_end(riichi):
    riichi.apply({"kind": "ron", "winner": "west", "from": "east", "yakuman": 1})
    assert riichi.state()["ended"]
    assert not riichi.undo()["ended"]


@pytest.mark.parametrize("entry", [
    {"kind": "ron", "winner": "west", "from": "west", "han": 3, "fu": 30},
    {"kind": "ron", "winner": "west", "from": "east", "han": 1, "fu": 20},
    {"kind": "ron", "winner": "west", "from": "east", "patterns": 170},
    {"kind": "riichi", "player": "south"},
    {"kind": "pass"},
    {"kind": "transfer", "payments": {"east": 5}},
    {"kind": "undo", "x": 1},
])
def test_a_refused_entry_changes_nothing(riichi, entry):
    riichi.apply({"kind": "riichi", "player": "south"})
    state, entries = riichi.state(), riichi.entries
    with pytest.raises(LedgerError):
        riichi.apply(entry)
    assert riichi.state() == state and riichi.entries == entries


def test_the_state_and_entries_are_copies(riichi):
    riichi.apply({"kind": "riichi", "player": "south"})
    s = riichi.state()
    s["players"]["south"]["points"] = 0
    s["last"]["payments"]["south"] = 0
    riichi.entries[0]["player"] = "east"
    assert riichi.state()["players"]["south"]["points"] == 24000
    assert riichi.state()["last"]["payments"]["south"] == -1000
    assert riichi.entries[0]["player"] == "south"


# --------------------------------------------------------------------------- properties

def _value(ruleset):
    if ruleset in ("riichi", "speed-tonpuu"):
        return st.one_of(
            st.fixed_dictionaries({"han": st.integers(1, 13),
                                   "fu": st.sampled_from([20, 25, 30, 30, 40, 40, 50, 110])}),
            st.fixed_dictionaries({"yakuman": st.integers(1, 2)}))
    if ruleset == "wsom":
        return st.fixed_dictionaries({"patterns": st.integers(0, 100).map(lambda k: 5 * k)})
    if ruleset == "shenyang":
        return st.fixed_dictionaries({"multipliers": st.lists(
            st.sampled_from(["gang", "duiduihu", "qianggang"]), max_size=2)})
    return st.fixed_dictionaries({"fan": st.integers(13, 100).map(lambda k: k / 5)})


def _entries(ruleset):
    """Entries of the kinds ``ruleset`` takes (and riichi and pass everywhere, refused
    where they do not belong)."""
    player = st.sampled_from(WINDS)
    win = _value(ruleset)
    kinds = set(Ledger(ruleset).rules.kinds) | {"riichi", "pass"}
    tenpai = st.lists(player, unique=True, max_size=4) if "abortive" in kinds else st.just([])
    return st.one_of(
        st.builds(lambda p: {"kind": "riichi", "player": p}, player),
        st.builds(lambda w, d, v: dict(v, kind="ron", winner=w, **{"from": d}),
                  player, player, win),
        st.builds(lambda ws, d, v: {"kind": "ron", "from": d, "winners": [
            dict(v, player=w) for w in ws]}, st.lists(player, min_size=2, max_size=2,
                                                      unique=True), player, win),
        st.builds(lambda w, v: dict(v, kind="tsumo", winner=w), player, win),
        st.builds(lambda t: {"kind": "draw", "tenpai": t}, tenpai),
        st.just({"kind": "draw"}),
        st.just({"kind": "abortive"}),
        st.builds(lambda p: {"kind": "chombo", "player": p}, player),
        st.just({"kind": "pass"}),
        st.builds(lambda p, t: {"kind": "nagashi", "player": p, "tenpai": t}
                  if "abortive" in kinds and ruleset == "riichi" else
                  {"kind": "nagashi", "player": p}, player, tenpai),
        st.builds(lambda w, d: {"kind": "suukantsu", "winner": w, "from": d} if d else
                  {"kind": "suukantsu", "winner": w}, player, st.one_of(st.none(), player)),
        st.builds(lambda p, n: {"kind": "pot", "player": p, "tiles": n}, player,
                  st.integers(1, 3)),
        st.sampled_from([{"kind": "rules", "ron_pays": "all"},
                         {"kind": "rules", "ron_pays": "discarder"}]),
        st.builds(lambda a, b, n: {"kind": "transfer", "payments": {a: -n, b: n}},
                  player, player, st.integers(1, 3000)),
        st.just({"kind": "undo"}),
    ).filter(lambda e: e["kind"] in kinds)


RULESETS = ["riichi", "speed-tonpuu", "shenyang", "wsom", "uzje"]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_properties_over_random_games(ruleset):
    @settings(max_examples=60, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(st.lists(_entries(ruleset), min_size=5, max_size=40))
    def check(entries):
        led = Ledger(ruleset)
        start = sum(points(led.state()).values())
        stick = led.rules.riichi_stick
        for e in entries:
            before, kept = led.state(), led.entries
            try:
                after = led.apply(copy.deepcopy(e))
            except LedgerError:
                assert led.state() == before and led.entries == kept  # nothing changed
                continue
            # points are conserved (riichi sticks count 1000 each, the pot its points);
            # chips too
            assert sum(points(after).values()) + after["sticks"] * stick + after["pot"] == start
            assert sum(chips(after).values()) == 0
            if e["kind"] != "undo":
                # undo restores the state exactly; apply again to go on
                assert led.undo() == before
                assert led.apply(copy.deepcopy(e)) == after
        replayed = Ledger.replay(ruleset, led.entries)
        assert replayed.state() == led.state()
    check()


def test_shenyang_a_voided_hand_keeps_the_draws_double():
    led = Ledger("shenyang")
    s = play(led, {"kind": "draw"}, {"kind": "chombo", "player": "north"},
             {"kind": "tsumo", "winner": "west"})
    # after the draw: 2 x 2 = 4 from south and north, 8 from the dealer (east)
    assert s["last"]["payments"] == {"west": 16, "south": -4, "north": -4, "east": -8}
    s = play(led, {"kind": "tsumo", "winner": "west"})
    assert s["last"]["payments"]["west"] == 2 + 2 + 4  # no draw before: no double


# --------------------------------------------------------------------------- issue 50

def test_speed_tonpuu_nagashi_mangan_is_a_haneman_win_with_honba_and_sticks():
    """Seed 001 lines 37-38: 'a special win that is worth haneman ... honba, etc. are
    applicable'."""
    led = Ledger("speed-tonpuu")
    s = play(led, {"kind": "draw", "tenpai": ["east"]}, {"kind": "riichi", "player": "west"})
    assert (s["dealer"], s["honba"], s["sticks"]) == ("east", 1, 1)
    s = play(led, {"kind": "nagashi", "player": "south"})
    # 3,000/6,000 and 500 a payer; the stick to south; east did not win: the deal passes
    assert s["last"]["payments"] == {"east": -6500, "south": 12000 + 1500 + 1000,
                                     "west": -3500, "north": -3500}
    assert (s["dealer"], s["honba"], s["sticks"]) == ("south", 0, 0)
    assert s["last"]["kind"] == "nagashi" and not s["last"].get("chips")
    with pytest.raises(LedgerError) as e:
        led.apply({"kind": "nagashi", "player": "west", "tenpai": ["west"]})
    assert e.value.key == "tenpai_unused"


def test_riichi_nagashi_mangan_is_paid_then_the_hand_is_a_draw():
    led = Ledger("riichi")
    s = play(led, {"kind": "riichi", "player": "north"},
             {"kind": "nagashi", "player": "south", "tenpai": ["east", "north"]})
    assert s["last"]["payments"] == {"east": -4000, "south": 8000, "west": -2000,
                                     "north": -2000}
    # a draw: the stick stays, honba +1, the dealer tenpai keeps the deal
    assert (s["dealer"], s["honba"], s["sticks"]) == ("east", 1, 1)
    s = play(led, {"kind": "nagashi", "player": "west"})  # the dealer noten: it passes
    assert (s["dealer"], s["honba"], s["sticks"]) == ("south", 2, 1)


def test_speed_tonpuu_special_suukantsu_a_double_yakuman_of_its_own():
    """Seed 001 lines 43-47: a tsumo after an ankan or kakan, a ron from who gave the
    daiminkan ('only 20 chips'); line 68: 5 chips each on a tsumo, for each yakuman."""
    led = Ledger("speed-tonpuu")
    s = play(led, {"kind": "suukantsu", "winner": "west"})
    assert s["last"]["payments"] == {"east": -32000, "south": -16000, "west": 64000,
                                     "north": -16000}
    assert s["last"]["chips"] == {"east": -10, "south": -10, "west": 30, "north": -10}
    assert s["ended"]  # west reached 55,000: the called game (and east's bust) ends it
    led.undo()
    s = play(led, {"kind": "suukantsu", "winner": "west", "from": "north"})
    assert s["last"]["payments"]["north"] == -64000 and s["last"]["from"] == "north"
    assert s["last"]["chips"] == {"east": 0, "south": 0, "west": 20, "north": -20}
    with pytest.raises(LedgerError) as e:
        Ledger("riichi").apply({"kind": "suukantsu", "winner": "west"})
    assert e.value.status == 422


def test_shenyang_who_pays_on_a_ron_is_an_option_set_before_the_first_result():
    led = Ledger("shenyang")
    assert led.state()["options"] == {"ron_pays": "discarder"}
    s = play(led, {"kind": "rules", "ron_pays": "all"})
    assert s["options"] == {"ron_pays": "all"}
    # 2 x 2 (one gang): the discarder south x2, the dealer east x2, north x1
    s = play(led, {"kind": "ron", "winner": "west", "from": "south", "multipliers": ["gang"],
                   "dice": [1, 2]})
    assert s["last"]["payments"] == {"east": -8, "south": -8, "west": 20, "north": -4}
    with pytest.raises(LedgerError) as e:
        led.apply({"kind": "rules", "ron_pays": "discarder"})
    assert (e.value.status, e.value.key) == (409, "rules_not_now")
    led.undo()
    assert led.undo()["options"] == {"ron_pays": "discarder"}
    with pytest.raises(LedgerError) as e:
        led.apply({"kind": "rules", "ron_pays": "everyone"})
    assert e.value.status == 400 and "discarder" in e.value.message
    with pytest.raises(LedgerError) as e:
        Ledger("riichi").apply({"kind": "rules", "ron_pays": "all"})
    assert e.value.status == 422
    replayed = Ledger.replay("shenyang", [{"kind": "rules", "ron_pays": "all"},
                                          {"kind": "tsumo", "winner": "west"}])
    assert replayed.state()["options"] == {"ron_pays": "all"}


def test_shenyang_the_pot_goes_to_the_next_winner_and_at_the_end_to_first():
    """Seed 002 line 67: 'The offender pays 4 points to the pot for each tile revealed
    (next winner takes the pot)'."""
    led = Ledger("shenyang")
    s = play(led, {"kind": "pot", "player": "south", "tiles": 2})
    assert (points(s)["south"], s["pot"]) == (-8, 8)
    assert s["left_on_table"] == {"sticks": 0, "points": 0, "pot": 8, "to": "east"}
    s = play(led, {"kind": "draw"})
    assert s["pot"] == 8  # a draw leaves it
    s = play(led, {"kind": "tsumo", "winner": "north", "dice": [1, 2]})
    # after the draw x2: 4 from west and south, 8 from the dealer east; the pot's 8
    assert s["last"]["payments"] == {"east": -8, "south": -4, "west": -4, "north": 16 + 8}
    assert (s["pot"], s["last"]["pot"]) == (0, 8)
    s = play(led, {"kind": "pot", "player": "west"}, {"kind": "end"})
    assert s["last"]["leftover_pot"] == {"north": 4} and sum(points(s).values()) == 0


def test_the_state_says_what_the_end_would_give_out():
    led = Ledger("riichi")
    assert led.state()["left_on_table"] is None
    s = play(led, {"kind": "riichi", "player": "south"})
    assert s["left_on_table"] == {"sticks": 1, "points": 1000, "pot": 0, "to": "east"}
    s = play(led, {"kind": "end"})
    assert s["left_on_table"] is None and s["last"]["leftover_sticks"] == {"east": 1000}
    assert sum(points(s).values()) == 100000


def test_hands_as_they_were_dealt():
    """Each hand's dealer as it was dealt: what names the break of a hand whose result was
    entered before its hand over (issue 50 point 2)."""
    led = Ledger("riichi")
    play(led, {"kind": "riichi", "player": "south"},
         {"kind": "ron", "winner": "west", "from": "east", "han": 1, "fu": 30},
         {"kind": "draw", "tenpai": ["south"]}, {"kind": "chombo", "player": "north"})
    assert [(h["dealer"], h["hand"], h["honba"], h["result"]) for h in led.hands()] == [
        ("east", 1, 0, "ron"), ("south", 2, 0, "draw"), ("south", 2, 1, "chombo"),
        ("south", 2, 1, None)]
