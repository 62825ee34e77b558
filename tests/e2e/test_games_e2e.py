"""Mixed Deck through an evening (docs/FAULTS.md "Games"): `game new` re-splits over a
real pseudo-terminal to `jantaku sim serve`, the hands of the new game play on its decks,
and `session end --empty` leaves every tile on the table top."""
import json

import pytest

from tests.e2e.conftest import sim_and_daemon
from tests.e2e.conftest import quiet

pytestmark = pytest.mark.e2e


@pytest.fixture
def table(tmp_path, hil_port):
    yield from sim_and_daemon(tmp_path, hil_port, seed=12, speed=40)


def test_game_new_resplits_and_the_new_game_plays_on_its_decks(table):
    d = table
    d.cli("session", "start", "--ruleset", "riichi", "--mixed-deck", "--wait")
    d.cli("hand-over", "--wait")
    first = {k: v["backs"] for k, v in d.status()["session"]["decks"].items()}
    r = d.cli("game", "new", "--wait")
    assert "game 2 begins" in r.stdout and "split afresh" in r.stdout
    assert "ready: Deck A is built inside: press start to raise it and begin hand 1 of game 2." in r.stderr
    s = d.status()["session"]
    assert (s["game"], s["game_hand"], s["hand"]) == (2, 0, 1)
    games = s["games"]
    assert [g["game"] for g in games] == [1, 2]
    assert {k: v["backs"] for k, v in games[0]["decks"].items()} == first
    assert s["decks"]["A"]["where"] == "inside" and d.sim_state()["table_top_tiles"] == 0
    d.cli("hand-over", "--wait")
    d.cli("hand-over", "--wait")
    s = d.status()["session"]
    assert (s["game"], s["game_hand"]) == (2, 2) and s["faults"] == []
    assert [(h["hand"], h["game"]) for h in s["hands"]] == [(1, 1), (2, 2), (3, 2)]
    second = s["games"][1]["decks"]
    for c in ("blue", "green"):  # the new split partitions both sets
        assert second["A"]["backs"][c] + second["B"]["backs"][c] == 136
    r = d.cli("status")
    assert "game 2, hand 2" in r.stdout

    r = d.cli("session", "end", "--empty")
    assert "ended" in r.stdout
    d.wait(lambda st: quiet(st) and st["next"]["code"] == "take_tiles_out",
           what="the table emptied", timeout=120)
    assert d.sim_state()["table_top_tiles"] == 272
    h = json.loads(d.cli("history", "--json").stdout)["sessions"][0]
    assert h["state"] == "ended" and h["ruleset"] == "riichi" and h["mixed_deck"] is True
    assert [len(g["hands"]) for g in h["games"]] == [1, 2]
    assert "game 2:" in d.cli("history").stdout


def test_a_colour_the_table_does_not_know_is_refused_with_the_ones_it_knows(table):
    d = table
    r = d.cli("session", "start", "--ruleset", "riichi", "--mixed-deck", "--colours", "red,blue",
              check=False)
    assert r.returncode == 2 and "does not know back colour red" in r.stderr  # bad input
    assert "blue, green" in r.stderr and d.status()["session"] is None
    assert d.sim_state()["driven"] == []
