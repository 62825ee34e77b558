"""``jantaku hand score`` (hostd.cli.hand_score): the scorer on the command line."""
import json

import pytest

from hostd.cli.main import main
from hostd.hand.score import score


def run(capsys, *argv):
    status = main(["hand", "score", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_json_is_the_scorers_answer(capsys):
    status, out, err = run(capsys, "234789m", "12345666p", "--win", "6p", "--tsumo",
                           "--riichi", "--seat-wind", "south", "--json")
    assert status == 0 and err == ""
    assert json.loads(out) == score("234789m 12345666p", win="6p", tsumo=True, riichi=True,
                                    seat_wind="south")


def test_text_for_a_person(capsys):
    status, out, _ = run(capsys, "234567m22p234s", "pon:555z", "--win", "7m", "--dora", "6m",
                         "--seat-wind", "west")
    assert status == 0
    assert "hand: 234567m22p234s pon 555z (win 7m, ron; seat west, round east; riichi)" in out
    assert "yaku: Yakuhai: white dragon 1" in out
    assert "2 han 30 fu: 2000 (discarder 2000)" in out
    assert "dora: 1, ura 0, red 0, blue 0" in out


def test_flags_options_and_rulesets(capsys):
    status, out, _ = run(capsys, "234m567p22345678s", "--win", "8s", "--riichi", "--dora", "1m",
                         "--seat-wind", "south", "--option", "kiriage=true", "--json")
    r = json.loads(out)
    assert status == 0 and r["limit"] == "kiriage mangan" and r["options"]["kiriage"] is True
    status, out, _ = run(capsys, "11223344556677z", "--win", "7z", "--ruleset", "speed-tonpuu",
                         "--seat-wind", "south")
    assert "Tsuuiisou (yakuman)" in out and "chips: 10 (yakuman_ron 10)" in out
    status, out, _ = run(capsys, "22222222p333s456s", "--win", "6s", "--mixed-deck",
                         "--double-riichi", "--ippatsu", "--json")
    assert json.loads(out)["yaku"][0]["id"] == "copies_8"


def test_no_yaku_exits_0_and_says_why(capsys):
    status, out, _ = run(capsys, "123m456p789s11z555s", "--win", "5s", "--seat-wind", "south")
    assert status == 0 and "no yaku" in out


@pytest.mark.parametrize("argv, words", [
    (["11122233345689p", "--win", "9p"], "not a winning hand"),
    (["11122233345699p", "--win", "9p", "--ippatsu"], "ippatsu needs riichi"),
    (["11122233345699p", "--win", "9p", "--option", "kiriage"], "write NAME=VALUE"),
    (["11122233345699p", "--win", "9p", "--option", "kiriage=maybe"], "is not a JSON value"),
    (["11122233345699p", "--win", "9p", "--option", "kuitan=true"],
     "no scoring option 'kuitan'"),
    (["11122233345699p", "--win", "9p", "--round-wind", "up"], "round_wind 'up'"),
])
def test_a_hand_that_cannot_be_scored_exits_2_with_one_line(capsys, argv, words):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err


def test_every_situation_is_a_flag():
    from hostd.cli.hand_score import FLAG_HELP
    from hostd.hand.win import SITUATIONS

    assert tuple(FLAG_HELP) == SITUATIONS
