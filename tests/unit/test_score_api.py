"""The game's ledger over the API (hostd/web/routes/score.py) on the real daemon and the
simulated table in virtual time: entered while the table builds, refused with nothing
changed, kept across a restart, a game each, in the history, exported; the worked games
end where the seeds' rules say."""
import csv
import io

import httpx
import pytest

from daemon_harness import Harness
from hostd.web.api import create_app

BASE = "http://127.0.0.1:8737"


class Api:
    def __init__(self, h):
        self.h = h

    def __call__(self, method, path, body=None, headers=None):
        async def go():
            app = create_app(self.h.daemon)
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                         base_url=BASE) as c:
                return await c.request(method, path, json=body, headers=headers)
        return self.h.run(go())

    def score(self, **q):
        r = self("GET", "/score" + ("?" + "&".join("%s=%s" % kv for kv in q.items()) if q else ""))
        assert r.status_code == 200, r.text
        return r.json()

    def enter(self, body, status=200):
        r = self("POST", "/score", body)
        assert r.status_code == status, r.text
        return r.json()


@pytest.fixture
def riichi(tmp_path):
    h = Harness(tmp_path, seed=3)
    yield h, Api(h)
    h.close()


def points(st):
    return {k: p["points"] for k, p in st["players"].items()}


def test_without_a_session_there_is_no_ledger(riichi):
    h, api = riichi
    r = api("GET", "/score")
    assert r.status_code == 409 and r.json()["error"]["code"] == "no_session"
    r = api("POST", "/score", {"kind": "undo"})
    assert r.status_code == 409 and "start a session" in r.json()["error"]["message"]


def test_a_browser_must_be_paired_to_enter_a_result(riichi):
    h, api = riichi
    h.run(h.daemon.start_session("riichi"))
    r = api("POST", "/score", {"kind": "riichi", "player": "east"},
            headers={"Origin": BASE})
    assert r.status_code == 401 and r.json()["error"]["code"] == "not_paired"
    assert api.score()["entries"] == 0


def test_results_are_taken_while_the_table_builds_and_kept_across_a_restart(riichi):
    h, api = riichi
    h.run(h.daemon.start_session("riichi"))
    assert h.daemon.state.name in ("preparing", "building")  # entries are not gated by it
    assert points(api.score()) == dict.fromkeys(("east", "south", "west", "north"), 25000)
    api.enter({"kind": "seats", "names": {"west": "Mika"}})
    api.enter({"kind": "riichi", "player": "south"})
    st = api.enter({"kind": "ron", "winner": "west", "from": "south", "han": 3, "fu": 30})
    assert points(st) == {"east": 25000, "south": 20100, "west": 29900, "north": 25000}
    assert st["dealer"] == "south" and st["players"]["west"]["name"] == "Mika"
    assert h.daemon.status()["session"]["score"]["players"]["west"]["points"] == 29900

    h.settle()
    h.restart()  # the daemon again, on the same journal: nothing entered is lost
    assert api.score() == st


def test_an_impossible_entry_is_refused_and_changes_nothing(riichi):
    h, api = riichi
    h.run(h.daemon.start_session("riichi"))
    api.enter({"kind": "riichi", "player": "north"})
    before = api.score()
    for body, status, words, key in (
            ({"kind": "ron", "winner": "west", "from": "west", "han": 2, "fu": 30}, 400,
             "own discard", ("own_discard", {"player": "west"})),
            ({"kind": "ron", "winner": "west", "from": "south", "han": 2}, 400, "fu",
             ("fu_missing", {"han": 2})),
            ({"kind": "riichi", "player": "north"}, 409, "riichi",
             ("riichi_again", {"player": "north"})),
            ({"kind": "score", "player": "north"}, 400, "kind", None),
            ({"kind": "tsumo", "winner": "east", "patterns": 30}, 400, "patterns",
             ("field_foreign", {"fields": ["patterns"]}))):
        r = api("POST", "/score", body)
        assert r.status_code == status, (body, r.text)
        err = r.json()["error"]
        assert words in err["message"], r.text
        # the refusal's translation key, for the page's words in its own language
        assert (None if key is None else (err["key"], err["params"])) == key, err
    assert api.score() == before


def test_undo_returns_to_the_previous_ledger_exactly_and_to_the_start(riichi):
    h, api = riichi
    h.run(h.daemon.start_session("riichi"))
    start = api.score()
    first = api.enter({"kind": "draw", "tenpai": ["south"]})
    api.enter({"kind": "tsumo", "winner": "north", "han": 2, "fu": 40})
    assert api.enter({"kind": "undo"}) == dict(first, entries=first["entries"])
    assert api.enter({"kind": "undo"}) == start
    r = api("POST", "/score", {"kind": "undo"})
    assert r.status_code == 409 and "nothing to undo" in r.json()["error"]["message"]


def test_each_game_has_its_ledger_and_the_history_keeps_every_games_result(riichi):
    h, api = riichi
    h.run(h.daemon.start_session("riichi"))
    h.settle()
    h.run(h.daemon.hand_over())
    h.settle()
    won = api.enter({"kind": "tsumo", "winner": "east", "han": 4, "fu": 30})
    assert points(won)["east"] == 25000 + 3 * 3900  # a dealer's 4 han 30 fu: 3,900 all
    _, err = h.call(h.daemon.new_game())
    assert err is None, err
    assert api.score()["game"] == 2 and api.score()["entries"] == 0
    first = api.score(game=1)  # ended as by `end`: the scores as they stood
    assert first["ended"] and points(first) == points(won) and first["last"]["kind"] == "end"
    r = api("GET", "/score?game=3")
    assert r.status_code == 404 and "games 1 to 2" in r.json()["error"]["message"]

    h.settle()
    h.call(h.daemon.end_session())
    games = h.daemon.history()["sessions"][0]["games"]
    assert games[0]["score"]["players"]["east"]["points"] == 36700
    assert games[1]["score"] is None  # nothing entered in game 2


def test_the_export_lists_every_entry_with_the_points_after_it(riichi):
    h, api = riichi
    h.run(h.daemon.start_session("riichi"))
    api.enter({"kind": "riichi", "player": "south"})
    api.enter({"kind": "ron", "winner": "west", "from": "south", "han": 3, "fu": 30})
    api.enter({"kind": "draw", "tenpai": []})
    api.enter({"kind": "undo"})
    doc = api("GET", "/score/export").json()
    assert doc["format"] == "jantaku-score/1" and doc["ruleset"] == "riichi"
    assert [e["entry"]["kind"] for e in doc["entries"]] == ["riichi", "ron"]
    assert doc["entries"][-1]["points"] == points(doc["final"])
    r = api("GET", "/score/export?format=csv")
    assert r.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert [(x["kind"], x["west_points"], x["south_paid"]) for x in rows] == [
        ("riichi", "25000", "-1000"), ("ron", "29900", "-3900")]


def test_the_break_names_the_player_who_takes_it(riichi):
    h, api = riichi
    h.run(h.daemon.start_session("riichi"))
    h.settle()
    api.enter({"kind": "seats", "names": {"east": "Aki", "south": "Ben", "west": "Mika",
                                          "north": "Noa"}})
    h.run(h.daemon.hand_over())
    h.settle()
    h.run(h.daemon.throw_dice([3, 4]))  # 7: across the thrower (the dealer, East) breaks
    dice = h.daemon.status()["session"]["dice"]
    assert dice["breaker"] == "across"
    assert dice["breaker_player"] == {"player": "west", "wind": "west", "name": "Mika"}
    assert dice["text"].endswith("break in front of West (Mika)")


def test_a_speed_tonpuu_game_called_at_55000_ends_with_its_chips(tmp_path):
    h = Harness(tmp_path, seed=5, ruleset="speed-tonpuu")
    try:
        api = Api(h)
        h.run(h.daemon.start_session("speed-tonpuu"))
        # East's haneman tsumo: 6,000 all (43,000; the others 19,000); East deals again
        api.enter({"kind": "tsumo", "winner": "east", "han": 6})
        # a mangan tsumo with one honba, basengo: 4,000 + 500 all -> East 56,500
        st = api.enter({"kind": "tsumo", "winner": "east", "han": 5})
        assert st["ended"] is True and "55000" in st["ended_by"]
        assert points(st) == {"east": 56500, "south": 14500, "west": 14500, "north": 14500}
        # a chip from each for the called game; uma 13/3/-5/-11 by placement (ties: seat
        # order), raw points counting for nothing else
        assert st["placement"] == ["east", "south", "west", "north"]
        assert {k: p["chips"] for k, p in st["players"].items()} == {
            "east": 3 + 13, "south": -1 + 3, "west": -1 - 5, "north": -1 - 11}
        r = api("POST", "/score", {"kind": "riichi", "player": "south"})
        assert r.status_code == 409 and "ended" in r.json()["error"]["message"]
    finally:
        h.close()


def test_a_wsom_170_point_hand_pays_510_by_self_draw(tmp_path):
    h = Harness(tmp_path, seed=5, ruleset="wsom")
    try:
        api = Api(h)
        h.run(h.daemon.start_session("wsom"))
        st = api.enter({"kind": "tsumo", "winner": "south", "patterns": 170})
        assert st["last"]["payments"] == {"east": -170, "south": 510, "west": -170,
                                          "north": -170}
        api.enter({"kind": "undo"})
        st = api.enter({"kind": "ron", "winner": "south", "from": "west", "patterns": 170})
        assert st["last"]["payments"] == {"east": -25, "south": 510, "west": -460,
                                          "north": -25}
    finally:
        h.close()


# -- issue 50 ---------------------------------------------------------------------------------

def test_the_scores_of_an_ended_session_are_exported_by_id(riichi):
    """Point 1: `/score/export` answered "no session is open" after the end. Any session the
    journal holds is exported (the open one, else the last, by default); the CLI reading
    the journal with --db writes the same bytes."""
    import subprocess
    import sys

    h, api = riichi
    r = api("GET", "/score/export")
    assert r.status_code == 409 and r.json()["error"]["code"] == "no_session"
    h.run(h.daemon.start_session("riichi"))
    api.enter({"kind": "riichi", "player": "south"})
    api.enter({"kind": "ron", "winner": "west", "from": "south", "han": 3, "fu": 30})
    live = api("GET", "/score/export?format=csv")
    h.settle()
    h.call(h.daemon.end_session())
    assert api("GET", "/score").status_code == 409  # no game in play
    ended = api("GET", "/score/export?session=1&game=1&format=csv")
    # the session's end ended the game too: its entries, then the end
    assert ended.text.startswith(live.text) and ended.text[len(live.text):].startswith("3,end,")
    for q in ("", "?session=1"):
        r = api("GET", "/score/export" + q + ("&" if "?" in q else "?") + "format=csv")
        assert r.status_code == 200 and r.content == ended.content, q
        assert r.headers["content-disposition"] == \
            'attachment; filename="jantaku-session-1-game-1.csv"'
    doc = api("GET", "/score/export?session=1").json()
    assert doc["session"] == 1 and [e["entry"]["kind"] for e in doc["entries"]] == [
        "riichi", "ron", "end"]
    assert doc["final"]["ended"] and sum(p["points"] for p in doc["final"]["players"].values()) \
        == 100000
    r = api("GET", "/score/export?session=7")
    assert r.status_code == 404 and "GET /history" in r.json()["error"]["message"]
    r = api("GET", "/score/export?session=1&game=2")
    assert r.status_code == 404 and "has game 1, not 2" in r.json()["error"]["message"]
    h.journal.flush()
    for fmt in ("json", "csv"):
        out = subprocess.run([sys.executable, "-m", "hostd.cli", "score", "export", "--db", h.db,
                              "--session", "1", "--format", fmt], capture_output=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert out.stdout == api("GET", "/score/export?session=1&format=" + fmt).content
    out = subprocess.run([sys.executable, "-m", "hostd.cli", "score", "export", "--db", h.db,
                          "--session", "9"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "no session 9" in out.stderr


def test_a_page_asking_for_its_sessions_ledger_as_the_session_ends_gets_it(riichi):
    """The page asks for the ledger of the session it shows, by id: when an abort or the
    end closes that session meanwhile, the answer is that session's last game (the page
    once got 409, a console error, in the middle of an evening), and what the page showed
    live is what it reads after."""
    h, api = riichi
    h.run(h.daemon.start_session("riichi"))
    api.enter({"kind": "riichi", "player": "south"})
    live = api.enter({"kind": "ron", "winner": "west", "from": "south", "han": 3, "fu": 30})
    assert api.score(session=1) == live
    h.settle()
    h.call(h.daemon.end_session())
    assert api("GET", "/score").status_code == 409  # no game in play
    ended = api.score(session=1)
    # the end's entry after the two entered live; the points as the page showed them
    assert ended["game"] == 1 and ended["ended"] and not live["ended"]
    assert ended["entries"] == live["entries"] + 1 and points(ended) == points(live)
    assert api.score(session=1, game=1) == ended
    r = api("GET", "/score?session=7")
    assert r.status_code == 404 and "GET /history" in r.json()["error"]["message"]
    r = api("GET", "/score?session=1&game=2")
    assert r.status_code == 404 and "not 2" in r.json()["error"]["message"]


def test_a_new_game_and_the_end_end_the_games_scores_with_the_sticks_given_out(riichi):
    """Point 5: game 1's saved totals added to 99,000 with a riichi stick on the table, and
    it was stored as not ended."""
    h, api = riichi
    h.run(h.daemon.start_session("riichi"))
    h.settle()
    h.run(h.daemon.hand_over())
    h.settle()
    api.enter({"kind": "tsumo", "winner": "south", "han": 1, "fu": 30})
    st = api.enter({"kind": "riichi", "player": "east"})
    assert st["left_on_table"] == {"sticks": 1, "points": 1000, "pot": 0, "to": "south"}
    answer, err = h.call(h.daemon.new_game())
    assert err is None, err
    assert answer["scores_ended"] == {"game": 1, "left_on_table": st["left_on_table"],
                                      "placement": ["south", "west", "north", "east"]}
    game1 = api.score(game=1)
    assert game1["ended"] and game1["last"]["leftover_sticks"] == {"south": 1000}
    assert sum(points(game1).values()) == 100000
    h.settle()
    h.run(h.daemon.hand_over())
    h.settle()
    api.enter({"kind": "riichi", "player": "north"})
    h.call(h.daemon.end_session())
    games = h.daemon.history()["sessions"][0]["games"]
    assert [g["score"]["ended"] for g in games] == [True, True]
    assert [sum(p["points"] for p in g["score"]["players"].values()) for g in games] == \
        [100000, 100000]
    assert games[0]["score"]["hands"] == 1 and games[1]["score"]["hands"] == 0


def test_the_games_options_go_on_to_the_next_game(tmp_path):
    h = Harness(tmp_path, seed=3, ruleset="shenyang")
    try:
        api = Api(h)
        h.run(h.daemon.start_session("shenyang"))
        h.settle()
        api.enter({"kind": "rules", "ron_pays": "all"})
        h.run(h.daemon.hand_over())
        h.settle()
        api.enter({"kind": "tsumo", "winner": "south"})
        _, err = h.call(h.daemon.new_game())
        assert err is None, err
        st = api.score()
        assert st["game"] == 2 and st["options"] == {"ron_pays": "all"}
        assert h.daemon.score_export(game=2)["entries"] == [{"kind": "rules", "ron_pays": "all"}]
    finally:
        h.close()
