"""hostd/core/scorebook.py: a session's game ledgers at the table: journalled entry by
entry and restored, the players placed at the table's sides, the break named by player."""
import pytest

from hostd.core.journal import Journal
from hostd.core.scorebook import Scorebook, game_results, with_results
from hostd.errors import BadRequest, JantakuError


@pytest.fixture
def journal(tmp_path):
    j = Journal(tmp_path / "j.sqlite")
    yield j
    j.close()


def _session(journal):
    return journal.create_session(ruleset="riichi", mixed_deck=False, sets=["blue", "green"])


def _book(journal, sid, ruleset="riichi", **kw):
    return Scorebook(journal=journal, session_id=sid, ruleset=ruleset, **kw)


RON = {"kind": "ron", "winner": "west", "from": "south", "han": 3, "fu": 30}


def test_before_any_entry_the_game_is_at_the_rulesets_starting_points(journal):
    st = _book(journal, _session(journal)).state(1)
    assert st["dealer"] == "east" and st["honba"] == 0 and st["sticks"] == 0
    assert {k: p["points"] for k, p in st["players"].items()} == dict.fromkeys(
        ("east", "south", "west", "north"), 25000)
    # play goes counter-clockwise: south sits at east's right
    assert {k: p["side"] for k, p in st["players"].items()} == {
        "east": "self", "south": "right", "west": "across", "north": "left"}


def test_entries_are_journalled_and_a_restart_restores_the_same_ledger(journal):
    sid = _session(journal)
    book = _book(journal, sid)
    book.enter(1, {"kind": "seats", "names": {"west": "Mika"}})
    book.enter(1, {"kind": "riichi", "player": "south"})
    st = book.enter(1, RON)
    assert st["players"]["west"]["points"] == 29900  # 3,900 and the riichi stick
    assert st["players"]["west"]["name"] == "Mika" and st["dealer"] == "south"

    again = _book(journal, sid)
    again.restore(journal.score_entries(sid))
    assert again.state(1) == st


def test_undo_restores_the_previous_state_exactly_and_is_journalled_too(journal):
    sid = _session(journal)
    book = _book(journal, sid)
    before = book.enter(1, {"kind": "riichi", "player": "south"})
    book.enter(1, RON)
    after_undo = book.enter(1, {"kind": "undo"})
    assert {k: v for k, v in after_undo.items() if k != "last"} == {
        k: v for k, v in before.items() if k != "last"}
    assert journal.score_entries(sid)[1][-1] == {"kind": "undo"}
    again = _book(journal, sid)
    again.restore(journal.score_entries(sid))
    assert again.state(1) == after_undo


def test_a_refused_entry_changes_nothing_and_is_not_journalled(journal):
    sid = _session(journal)
    book = _book(journal, sid)
    book.enter(1, RON)
    st = book.state(1)
    for bad in ({"kind": "ron", "winner": "west", "from": "west", "han": 1, "fu": 30},
                {"kind": "riichi", "player": "nobody"},
                {"kind": "seats", "first_dealer": "under"},
                {"kind": "seats", "names": {"west": 7}},
                {"kind": "seats", "colour": "red"},
                "not an object"):
        with pytest.raises(JantakuError) as e:
            book.enter(1, bad)
        assert 400 <= e.value.status < 500
    assert book.state(1) == st
    assert len(journal.score_entries(sid)[1]) == 1


def test_seats_say_where_east_sits_and_the_sides_follow_in_the_order_of_play(journal):
    book = _book(journal, _session(journal))
    st = book.enter(1, {"kind": "seats", "first_dealer": "across"})
    assert {k: p["side"] for k, p in st["players"].items()} == {
        "east": "across", "south": "left", "west": "self", "north": "right"}
    with pytest.raises(BadRequest, match="first_dealer"):
        book.enter(1, {"kind": "seats", "first_dealer": "north"})


def test_where_the_breaker_deals_first_east_sits_at_the_first_throws_breaker(journal):
    first = {}
    book = _book(journal, _session(journal), ruleset="uzje", breaker_deals=True,
                 first_throw=lambda game: first.get(game))
    assert book.state(1)["first_dealer"] is None  # not thrown yet: nobody knows
    first[1] = {"breaker": "left", "dice": [2, 2]}
    st = book.state(1)
    assert st["first_dealer"] == "left" and st["players"]["east"]["side"] == "left"


def test_the_break_is_named_by_player_while_the_ledger_is_at_the_hand(journal):
    book = _book(journal, _session(journal))
    book.enter(1, {"kind": "seats", "names": {"west": "Mika"}})
    throw = {"dice": [3, 6], "breaker": "across", "text": "dice 3+6 = 9: across breaks"}
    named = book.name_break(1, 1, throw)
    assert named["thrower_player"] == {"player": "east", "wind": "east", "name": None}
    assert named["breaker_player"] == {"player": "west", "wind": "west", "name": "Mika"}
    assert named["text"].endswith("break in front of West (Mika)")
    assert named["breaker"] == "across"  # the seats stay as they were

    book.enter(1, RON)  # west wins off south: south deals hand 2 and throws
    named = book.name_break(1, 2, dict(throw, breaker="right"))
    assert named["thrower_player"]["player"] == "south"
    # right of south (who sits at east's right) is west, whose wind is now south
    assert named["breaker_player"] == {"player": "west", "wind": "south", "name": "Mika"}
    # a ledger behind the table (hand 3 on the table, one result entered) names nobody
    assert "breaker_player" not in book.name_break(1, 3, throw)


@pytest.mark.parametrize("result", [
    {"kind": "tsumo", "winner": "south", "han": 3, "fu": 30},
    RON,  # west wins off south: the deal passes, every wind moves
])
def test_a_result_entered_before_hand_over_changes_nothing_about_the_walls_standing(
        journal, result):
    """Issue 50 point 2: the hand's throw stays named as the hand was dealt, its result
    entered or not; the winds are that hand's, not the ledger's next hand's."""
    book = _book(journal, _session(journal))
    book.enter(1, {"kind": "seats", "names": {"west": "Mika"}})
    book.enter(1, RON)  # hand 1: west wins off south; south deals hand 2
    throw = {"dice": [2, 2], "breaker": "right", "text": "dice 2+2 = 4: right breaks"}
    before = book.name_break(1, 2, throw)
    assert before["thrower_player"] == {"player": "south", "wind": "east", "name": None}
    assert before["breaker_player"] == {"player": "west", "wind": "south", "name": "Mika"}
    book.enter(1, result)  # hand 2's result, before its hand over
    assert book.name_break(1, 2, throw) == before
    # and hand 1's throw is still hand 1's
    first = book.name_break(1, 1, dict(throw, breaker="across"))
    assert first["breaker_player"] == {"player": "west", "wind": "west", "name": "Mika"}


def test_a_shenyang_win_counts_the_tables_own_double(journal):
    book = _book(journal, _session(journal), ruleset="shenyang")
    win = {"kind": "tsumo", "winner": "south", "multipliers": []}
    plain = book.enter(1, dict(win), throw={"dice": [2, 5]})
    book.enter(1, {"kind": "undo"})
    double = book.enter(1, dict(win), throw={"dice": [4, 4]})
    gain = lambda st: st["last"]["payments"]["south"]  # noqa: E731
    assert gain(double) == 2 * gain(plain)
    assert book.entries(1)[-1]["dice"] == [4, 4]  # what was counted is journalled


def test_history_carries_each_games_result(journal):
    sid = _session(journal)
    book = _book(journal, sid)
    book.enter(1, {"kind": "seats", "names": {"west": "Mika"}})
    book.enter(1, RON)
    res = game_results("riichi", journal.score_entries(sid)[1])
    assert res["players"]["west"] == {"name": "Mika", "wind": "south", "points": 28900,
                                      "chips": 0}
    assert res["ended"] is False and res["entries"] == 1 and res["hands"] == 1
    hist = with_results(journal.history())
    assert hist[0]["games"][0]["score"] == res
    assert game_results("riichi", []) is None


def test_an_entry_this_jantaku_no_longer_takes_is_skipped_and_the_rest_counts(journal):
    sid = _session(journal)
    journal.score_entry(sid, 1, 1, {"kind": "ron", "winner": "west", "from": "south",
                                    "han": 3, "fu": 30})
    journal.score_entry(sid, 1, 2, {"kind": "teleport"})  # (another version's)
    journal.score_entry(sid, 1, 3, {"kind": "riichi", "player": "east"})
    book = _book(journal, sid)
    book.restore(journal.score_entries(sid))
    st = book.state(1)
    assert st["entries"] == 2 and st["players"]["west"]["points"] == 28900
    assert book.entries(1)[1] == {"kind": "teleport"}  # kept as it was written
    st = book.enter(1, {"kind": "draw", "tenpai": []})  # and the game goes on
    assert journal.score_entries(sid)[1][-1] == {"kind": "draw", "tenpai": []}
