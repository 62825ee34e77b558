"""hostd.core.daemon: every operator action from the states a person meets, against the
in-process simulated table in virtual time (tests/unit/daemon_harness.py)."""
import pytest

from daemon_harness import Harness
from hostd.errors import JantakuError


@pytest.fixture
def h(tmp_path):
    harness = Harness(tmp_path, seed=3)
    yield harness
    harness.close()


def test_mixed_deck_start_collects_the_set_left_on_the_table_top(h):
    assert len(h.sim.table.top_tiles()) == 136  # loaded for the normal rotation
    answer, err = h.call(h.daemon.start_session("riichi", True))
    assert err is None and answer["next"]["code"] == "collecting"
    h.settle()
    s = h.status()["session"]
    assert s["decks"]["A"]["backs"]["blue"] and s["decks"]["A"]["backs"]["green"]
    assert {d: x["where"] for d, x in s["decks"].items()} == {"A": "inside", "B": "mixer"}
    assert h.sim.table.top_tiles() == [] and h.driven() == []


def test_a_second_start_is_refused_and_replace_ends_the_first(h):
    h.call(h.daemon.start_session("riichi", True))
    h.settle()
    _, err = h.call(h.daemon.start_session("riichi", True))
    assert err.status == 409 and err.code == "built" and "a session is open" in str(err)
    assert err.details["seq"] == h.status()["state"]["seq"]  # judged on the state people saw
    assert err.details["next"]["code"] == "press_start"
    answer, err = h.call(h.daemon.start_session("riichi", True, replace=True))
    assert err is None
    first = h.journal.ended_how(answer["id"] - 1)
    assert first["state"] == "ended" and "replaced" in first["reason"]
    h.settle()
    assert h.status()["next"]["code"] == "press_start"


def test_replace_over_a_table_fault_is_refused_before_anything_changes(tmp_path):
    """A stop whose fault the table still reports (a jam): a new session can't start over
    it (the old one ended, the state would be the table's fault and the new session's
    first step could not begin), so replace is refused, nothing changed, saying so."""
    h = Harness(tmp_path, seed=3, faults=("jam:build=1,track=2,after=40,count=0",))
    try:
        d = h.daemon
        h.call(d.start_session("riichi", True))
        h.call(d.continue_())  # (the start's push window)
        h.settle()
        before = h.status()
        assert before["state"]["name"] == "stopped" and d.table.state == "fault"
        _, err = h.call(d.start_session("riichi", True, replace=True))
        assert err.status == 409 and err.code == "stopped"
        assert "the table reports a fault" in str(err) and "then start" in str(err)
        assert h.status()["state"] == before["state"] and d.session.id == before["session"]["id"]
    finally:
        h.close()


def test_abort_mid_build_then_start_again_from_the_half_built_walls(h):
    d = h.daemon
    h.call(d.start_session("riichi", True))
    h.settle()
    h.call(d.hand_over())
    h.settle(until=lambda: d.state.name == "building" and d.state["deck"] == "B"
             and 30 < sum(d.table.per_track()) < 100)
    answer, err = h.call(d.abort())
    assert err is None and h.driven() == []
    assert h.journal.ended_how(answer["aborted"])["state"] == "aborted"
    assert d.known["where"]["B"] == "split" and d.known["where"]["A"] == "top"
    _, err = h.call(d.start_session("riichi", True))
    assert err is None
    h.settle()
    s = h.status()["session"]
    assert h.status()["state"]["name"] == "built" and [b["ok"] for b in s["builds"]] == [True]
    assert h.sim.table.mixer.count() == 136 and h.sim.table.top_tiles() == []


def test_an_abort_while_the_table_strokes_a_ramp_is_taken_once_the_stroke_ends(h):
    # a start after a fresh boot stacks what may lie on the ramps (self-test strokes,
    # during which the table answers ABORT "busy"): the abort still ends the session
    import asyncio
    from protocol import messages as m

    d = h.daemon

    async def stroke_then_abort():
        stroke = asyncio.ensure_future(d.table.self_test(m.D_PUSHER, 1))
        while d.table.state != "testing":
            await asyncio.sleep(0)
        answer = await d.abort()
        await stroke
        return answer

    answer, err = h.call(stroke_then_abort())
    assert err is None and answer["confirmed"] is True
    assert h.status()["state"]["name"] == "idle" and h.driven() == []


def test_normal_rotation_after_mixed_deck_is_refused_with_what_to_do(h):
    h.call(h.daemon.start_session("riichi", True))
    h.settle()
    h.call(h.daemon.end_session())
    _, err = h.call(h.daemon.start_session("riichi", False))
    assert err.status == 422 and err.code == "sets_not_apart"
    assert "Sort the tiles by back colour" in str(err) and "with the sets loaded" in str(err)
    assert h.daemon.session is None and h.driven() == []


def test_normal_rotation_carries_on_with_the_sets_where_the_last_session_left_them(h):
    d = h.daemon
    h.call(d.start_session("riichi", False))
    h.settle()
    h.call(d.hand_over())  # hand 1 on blue (A); green (B) built inside
    h.settle()
    h.call(d.end_session())
    assert d.known["where"] == {"A": "top", "B": "inside"}
    _, err = h.call(d.start_session("riichi", False))
    assert err is None
    h.settle()
    s = h.status()["session"]
    assert s["builds"] == [] and s["decks"]["A"]["backs"]["green"] == 136  # adopted
    assert h.status()["next"]["code"] == "press_start"
    h.call(d.hand_over())
    h.settle()
    assert [b["backs"] for b in h.status()["session"]["builds"]] == [{"blue": 136}]


def test_a_jam_that_stays_is_named_and_clear_fault_is_refused_until_it_is_gone(tmp_path):
    h = Harness(tmp_path, seed=3, faults=("jam:build=1,track=2,count=0",))
    try:
        d = h.daemon
        got = _events(h)
        h.call(d.start_session("riichi", True))
        h.settle()
        st = h.status()
        assert st["next"]["code"] == "stopped" and st["next"]["action"] == "clear_fault"
        assert "take the stuck tile out of track 2 by hand" in st["next"]["text"]
        assert st["fault"]["kind"] == "jam" and st["fault"]["track"] == 2
        # what `session start --wait` prints as it stops: the stop and what to do, not the
        # build it stopped ("deck A is being built inside: wait")
        failed = [e for e in got if e["type"] == "step_failed"]
        assert len(failed) == 1 and failed[0]["next"] == st["next"]
        _, err = h.call(d.hand_over())
        assert err.status == 409 and err.code == "stopped" and "track 2 is jammed" in str(err)
        _, err = h.call(d.clear_fault())
        assert err.code == "fault_remains" and "still there" in str(err)
        assert h.driven() == []
    finally:
        h.close()


def test_a_short_from_tiles_not_pushed_in_opens_the_centre_again_on_continue(tmp_path):
    h = Harness(tmp_path, seed=3, players="manual", mixed_loading=True)
    try:
        d = h.daemon
        h.call(d.start_session("riichi", True))
        h.settle()
        h.call(d.hand_over())  # hand 1: A up, B built (nothing dropped yet)
        h.settle()
        h.call(d.hand_over())  # hand 2: nobody pushes deck A in: B's rebuild... A's runs short
        h.settle()
        st = h.status()
        assert st["state"]["name"] == "stopped" and st["state"]["params"]["kind"] == "short-top"
        # people's step at the centre, not a fault of a track
        assert st["fault"] is None and st["state"]["params"]["track"] is None
        assert st["next"]["code"] == "push_missed" and st["next"]["action"] == "continue"
        assert "push the rest in while it is open again" in st["next"]["text"]
        assert "continue" in st["can"]
        rec = st["session"]["faults"][-1]
        assert rec["kind"] == "short-top" and rec["track"] is None
        assert "the centre closed before every tile of deck A went in" in rec["message"]
        h.sim.push(keep=1)  # a person pushes the played deck, not the hand in play
        _, err = h.call(d.continue_())
        assert err is None
        h.settle()
        s = h.status()["session"]
        assert h.status()["state"]["name"] == "built" and s["builds"][-1]["ok"] and s["hand"] == 2
    finally:
        h.close()


def test_motor_commands_are_refused_at_once_and_an_abort_stays_pending_while_unplugged(h):
    d = h.daemon
    h.sim.wire.unplug(h.sim.clock.now_us(), -1)
    h.settle(until=lambda: not d.link.connected, max_s=30)
    _, err = h.call(d.start_session("riichi", True), max_s=1)
    assert err.status == 503 and "not connected" in str(err)
    assert h.status()["can"] == ["abort"]  # while the table is away
    answer, err = h.call(d.abort(), max_s=1)  # always accepted: pending until the table is back
    assert err is None and answer["confirmed"] is False
    assert h.status()["state"]["name"] == "aborting"
    assert h.status()["next"]["code"] == "abort_pending" and h.status()["can"] == ["abort"]
    _, err = h.call(d.hand_over(), max_s=1)  # as docs/FAULTS.md's table says: the table away
    assert err.status == 503 and "not connected" in str(err)
    h.sim.wire.replug()
    h.settle(until=lambda: d.state.name != "aborting", max_s=30)
    assert h.status()["next"]["code"] == "start_session"


# -- games, the sets' colours, the end of the evening (issue: Mixed Deck through an evening) --
def _hands(h, n):
    for _ in range(n):
        h.settle(until=lambda: h.daemon.link.connected, max_s=30)  # (after a table restart)
        answer, err = h.call(h.daemon.hand_over())
        assert err is None, err
        h.settle()


def _inside(h):
    return sorted(t for k in range(4) for st in h.sim.table.tracks[k].wall for t in st)


def _split(h, game):
    return next(g["decks"] for g in h.journal.session_summary(h.daemon.session.id)["games"]
                if g["game"] == game)


def test_a_new_mixed_deck_game_collects_everything_and_splits_afresh(h):
    d = h.daemon
    h.call(d.start_session("riichi", True))
    h.settle()
    _hands(h, 2)  # deck B on the table top, deck A built inside
    walls_before = _inside(h)
    answer, err = h.call(d.new_game())
    assert err is None and answer["game"] == 2
    h.settle()
    s = h.status()["session"]
    assert (s["game"], s["game_hand"], s["hand"]) == (2, 0, 2)
    nxt = h.status()["next"]
    assert nxt["code"] == "press_start" and (nxt["params"]["game"], nxt["params"]["game_hand"]) == (2, 1)
    assert nxt["text"].endswith("to raise it and begin hand 1 of game 2.")
    assert {x: y["where"] for x, y in s["decks"].items()} == {"A": "inside", "B": "mixer"}
    first, second = _split(h, 1), _split(h, 2)
    for split in (first, second):  # each game's decks partition both sets by colour
        assert split["A"]["backs"]["blue"] + split["B"]["backs"]["blue"] == 136
        assert split["A"]["tiles"] == split["B"]["tiles"] == 136
    walls_after = _inside(h)
    assert walls_after != walls_before and h.sim.table.top_tiles() == []
    _hands(h, 2)  # the new game's hands play on its decks, checked against its split
    s = h.status()["session"]
    assert (s["game"], s["game_hand"]) == (2, 2) and s["faults"] == []
    assert [(x["hand"], x["game"]) for x in s["hands"]] == [(1, 1), (2, 1), (3, 2), (4, 2)]
    assert [b["ok"] for b in s["builds"]] == [True] * len(s["builds"])


def test_a_new_game_of_the_normal_rotation_moves_nothing(tmp_path):
    h = Harness(tmp_path, seed=4)
    try:
        d = h.daemon
        h.call(d.start_session("riichi", False, loaded=True))
        h.settle()
        _hands(h, 1)
        answer, err = h.call(d.new_game())
        assert err is None and answer["game"] == 2 and answer["next"]["code"] == "press_start"
        assert answer["next"]["text"].endswith("begin hand 1 of game 2.")  # the last hand is over
        assert not d.busy() and h.driven() == []
        _hands(h, 1)
        s = h.status()["session"]
        assert (s["game"], s["game_hand"], s["hand"]) == (2, 1, 2)
        assert s["decks"]["A"]["backs"]["blue"] == 136  # the decks went on
    finally:
        h.close()


def test_a_new_game_waits_for_the_build_and_needs_a_session(h):
    d = h.daemon
    _, err = h.call(d.new_game())
    assert err.status == 409 and err.code == "idle"
    h.call(d.start_session("riichi", True))
    h.settle(until=lambda: sum(d.table.per_track()) > 20)
    _, err = h.call(d.new_game())
    assert err.status == 409 and err.code == "building" and "wait" in str(err)


def test_identical_backs_split_by_count_and_say_the_colours_cannot_be_checked(tmp_path):
    h = Harness(tmp_path, seed=5, colours=("blue", "blue"), faults=("misread:track=2,rate=0.2",))
    try:
        d = h.daemon
        answer, err = h.call(d.start_session("riichi", True))
        assert err is None and answer["sets"] == ["blue", "blue"]
        h.settle()
        _hands(h, 2)
        s = h.status()["session"]
        assert s["colours_checked"] is False and s["faults"] == []
        assert s["decks"]["A"]["backs"] == s["decks"]["B"]["backs"] == {"blue": 136}
        assert all(x["colours_checked"] is False for x in s["decks"].values())
        assert all(b["per_track"] == [34] * 4 for b in s["builds"])
    finally:
        h.close()


def test_a_colour_the_table_does_not_know_is_refused_before_anything_moves(h):
    _, err = h.call(h.daemon.start_session("riichi", True, colours=["red", "blue"]))
    assert err.status == 400 and err.code == "unknown_colour"
    assert "red" in str(err) and "blue, green" in str(err)
    _, err = h.call(h.daemon.start_session("riichi", True, colours=["blue"]))
    assert err.code == "bad_colours" and "blue,blue" in str(err)
    assert h.daemon.session is None and h.driven() == []


def test_session_end_empty_brings_every_tile_out_of_the_mixer(h):
    d = h.daemon
    h.call(d.start_session("riichi", True))
    h.settle()
    assert h.sim.table.mixer.count() == 136  # deck B, waiting to be built
    answer, err = h.call(d.end_session(empty=True))
    assert err is None and answer["emptying"] is True
    h.settle(max_s=600)
    assert h.sim.table.mixer.count() == 0 and len(h.sim.table.top_tiles()) == 272
    assert not h.daemon.table.walls_inside() and h.driven() == []
    assert h.status()["next"]["code"] == "take_tiles_out"


def test_session_end_empty_takes_two_rounds_for_both_sets_in_the_mixer(tmp_path):
    h = Harness(tmp_path, seed=6, mixed_loading=True)
    try:
        asked = []
        h.daemon.bus.subscribers.add(_Recorder(asked))
        assert h.sim.table.mixer.count() == 272
        answer, err = h.call(h.daemon.end_session(empty=True))
        assert err is None and answer["ended"] is None
        h.settle(max_s=600)
        assert h.sim.table.mixer.count() == 0 and len(h.sim.table.top_tiles()) == 272
        emptied = [e for e in asked if e["type"] == "emptied"]
        assert emptied and emptied[0]["from_mixer"] == [144, 128]
        assert any(e["type"] == "state" and e["next"]["code"] == "clear_top"
                   and "table top out" in e["next"]["text"] for e in asked)
    finally:
        h.close()


class _Recorder:
    """A subscriber queue that keeps every event (for what people were asked)."""

    def __init__(self, into):
        self.into = into

    def qsize(self):
        return 0

    def put_nowait(self, ev):
        self.into.append(ev)


class _Next(_Recorder):
    """Keeps what `status` says to do next as each event is published."""

    def __init__(self, into, daemon):
        super().__init__(into)
        self.daemon = daemon

    def put_nowait(self, ev):
        self.into.append((ev["type"], self.daemon.next_step()))


def test_what_to_do_next_through_a_hand_over(h):
    d = h.daemon
    h.call(d.start_session("riichi", True))
    h.settle()
    h.call(d.hand_over())
    h.settle()
    seen = []
    d.bus.subscribers.add(_Next(seen, d))
    h.call(d.hand_over())
    h.settle()
    said = {}
    for kind, nxt in seen:  # the first thing said at each kind of event
        said.setdefault(kind, nxt)
    assert said["hand_over"]["code"] == "raising"
    assert said["hand_over"]["text"] == "Raising the walls for hand 2 of game 1: wait."
    # the walls are up: hand 2 has begun while the lift comes down, and its throw is due
    assert said["hand"]["code"] == "press_dice" and said["hand"]["action"] == "dice"
    assert said["hand"]["text"] == "Hand 2 of game 1: press dice for the throw."
    assert said["build_started"]["code"] == "press_dice"


def test_a_restart_during_the_new_game_collect_carries_on_with_that_game(h):
    d = h.daemon
    h.call(d.start_session("riichi", True))
    h.settle()
    _hands(h, 1)
    h.call(d.new_game())
    h.settle(until=lambda: d.next_step()["code"] == "push_all")  # the centre open for people
    h.restart()
    h.settle()
    s = h.status()["session"]
    assert (s["game"], s["game_hand"], h.status()["state"]["name"]) == (2, 0, "built")
    assert s["decks"]["A"]["where"] == "inside" and s["decks"]["A"]["tiles"] == 136
    _hands(h, 1)
    s = h.status()["session"]
    assert [(x["hand"], x["game"]) for x in s["hands"]] == [(1, 1), (2, 2)]
    assert s["game_hand"] == 1 and s["faults"] == []


def test_identical_backs_in_the_normal_rotation(tmp_path):
    h = Harness(tmp_path, seed=7, colours=("green", "green"))
    try:
        answer, err = h.call(h.daemon.start_session("riichi", False, loaded=True))
        assert err is None
        h.settle()
        _hands(h, 3)
        s = h.status()["session"]
        assert s["colours_checked"] is False and s["faults"] == []
        assert [b["backs"] for b in s["builds"]] == [{"green": 136}] * 4
    finally:
        h.close()


# -- the table's buttons and the throw (issue: the table's own controls) ----------------------
def _events(h):
    got = []
    h.daemon.bus.subscribers.add(_Recorder(got))
    return got


def _press(h, button):
    h.sim.press(button)
    h.wait_s(0.5)  # the press, its debounce and the daemon's answer
    h.settle()


def test_the_start_button_hands_over_and_the_dice_button_throws(tmp_path):
    h = Harness(tmp_path, seed=8, ruleset="shenyang")
    try:
        got = _events(h)
        d = h.daemon
        h.call(d.start_session("shenyang", False, loaded=True))
        h.settle()
        _press(h, "start")
        s = h.status()["session"]
        assert s["hand"] == 1 and s["hands"][0]["by"] == "button" and s["dice"] is None
        assert h.status()["next"]["code"] == "press_dice" and "dice" in h.status()["can"]
        _press(h, "dice")
        t = h.status()["session"]["dice"]
        assert t["hand"] == 1 and t["by"] == "button" and len(t["dice"]) == 2
        assert all(1 <= v <= 6 for v in t["dice"]) and t["total"] == sum(t["dice"])
        assert set(t) >= {"breaker", "break_from_right", "unit", "dead_wall_tiles", "double"}
        assert t["double"] == (t["dice"][0] == t["dice"][1])
        assert t["text"].startswith("dice %d+%d = %d: " % (t["dice"][0], t["dice"][1], t["total"]))
        hand = h.journal.session_summary(d.session.id)["hands"][0]
        assert hand["dice"] == t["dice"] and hand["dice_by"] == "button" and hand["by"] == "button"
        _press(h, "dice")  # a second throw for the same hand: Shenyang throws once
        assert h.status()["session"]["dice"] == t
        refused = [e for e in got if e["type"] == "button" and not e["taken"]]
        assert refused and "once a hand" in refused[-1]["why"]
        assert "dice" not in h.status()["can"]
        taken = [e for e in got if e["type"] == "button" and e["taken"]]
        assert [e["button"] for e in taken] == ["start", "dice"]
    finally:
        h.close()


def test_a_start_press_while_the_table_moves_is_refused_and_one_while_it_asks_continues(h):
    got = _events(h)
    d = h.daemon
    h.call(d.start_session("riichi", True))
    h.settle(until=lambda: d.next_step()["code"] == "push_all")  # the centre open for people
    h.sim.press("start")
    h.wait_s(0.3)
    assert d.next_step()["code"] != "push_all"  # the press closed the centre: people are done
    h.settle(until=lambda: sum(d.table.per_track()) > 10)  # deck A building
    h.sim.press("start")
    h.wait_s(0.3)
    h.settle()
    presses = [e for e in got if e["type"] == "button"]
    assert presses[0]["taken"] and presses[0]["did"] == "continue"
    assert not presses[1]["taken"] and "not possible now (building)" in presses[1]["why"]
    assert h.status()["session"]["hand"] == 0  # the refused press did nothing


def test_entered_dice_are_checked_against_the_ruleset_and_announced(tmp_path):
    h = Harness(tmp_path, seed=9, ruleset="uzje")
    try:
        d = h.daemon
        _, err = h.call(d.throw_dice([3, 4]))
        assert err.status == 409 and err.code == "idle"
        h.call(d.start_session("uzje", True))
        h.settle()
        _, err = h.call(d.throw_dice([3, 4, 5]))
        assert err.status == 409 and err.code == "built" and "once a hand's walls" in str(err)
        _hands(h, 1)
        _, err = h.call(d.throw_dice([3, 4]))
        assert err.status == 400 and "3d6" in str(err)  # Ùzje throws three dice (or a d20)
        answer, err = h.call(d.throw_dice([3, 4, 5]))
        assert err is None and answer["by"] == "entered" and answer["total"] == 12
        assert answer["breaker_is_dealer"] is True and "the breaker is the dealer" in answer["text"]
        _hands(h, 1)  # the second hand: later dealers follow the results
        answer, _ = h.call(d.throw_dice())
        assert answer["by"] == "api" and answer["breaker_is_dealer"] is False
        assert "dealer" not in answer["text"]
    finally:
        h.close()


# -- the status light: what only the host knows --------------------------------------------------
def _light(h):
    return h.sim.get_status()["firmware"]["controller"]["light"]


def test_the_light_asks_for_people_for_the_dice_and_flashes_a_refused_press(h):
    d = h.daemon
    assert _light(h)["shown"] == "ready" and _light(h)["host"] == "auto"
    h.call(d.start_session("riichi", True))
    h.settle(until=lambda: d.next_step()["code"] == "push_all")
    h.wait_s(0.1)
    assert _light(h)["host"] == "people"  # the centre is open: push the tiles in
    h.settle()
    assert _light(h)["host"] == "auto" and _light(h)["shown"] == "ready"  # deck A built
    h.call(d.hand_over())
    h.settle(until=lambda: d.table.state == "building" and sum(d.table.per_track()) > 10)
    assert _light(h)["host"] == "dice" and _light(h)["shown"] == "building"  # the build wins
    h.settle()
    assert _light(h)["shown"] == "dice"  # built: press dice
    h.call(d.throw_dice())
    h.wait_s(0.1)
    assert _light(h)["host"] == "auto" and _light(h)["shown"] == "ready"
    h.sim.press("dice")  # thrown already: refused
    h.settle(until=lambda: _light(h)["shown"] == "refused", max_s=5)
    h.wait_s(2)
    assert _light(h)["shown"] == "ready"  # the one-shot played, back to the pattern


# -- the defects of "one model of the table's state", each from the awkward state a person
# met it in ------------------------------------------------------------------------------------
def test_a_mixed_deck_start_with_one_set_left_on_top_asks_for_it_and_splits_once_it_is_in(tmp_path):
    # one set in the mixer, the other on the table top, and players too slow for the push
    # window: deck A takes every tile in the mixer, which proves no split
    h = Harness(tmp_path, seed=3, players="manual", push_window=2.0)
    try:
        d = h.daemon
        h.call(d.start_session("riichi", True))
        h.settle(until=lambda: d.next_step()["code"] == "mixer_short" or not d.busy())
        st = h.status()
        assert st["next"]["code"] == "mixer_short" and st["can"] == ["continue", "end", "abort"]
        assert st["state"]["params"]["until"] is None  # waits for people, not for a clock
        # deck A's walls came up before people were asked, and nothing was journalled as A
        assert d.table.walls_inside() is False and len(h.sim.table.top_tiles()) == 272
        assert h.journal.session_summary(d.session.id)["decks"] == {}
        h.sim.push(0)  # people push everything into the open centre
        _, err = h.call(d.continue_())
        assert err is None
        h.settle()
        s = h.status()["session"]
        assert h.status()["next"]["code"] == "press_start"
        a, b = s["decks"]["A"]["backs"], s["decks"]["B"]["backs"]
        assert a["blue"] + b["blue"] == 136 and a["green"] + b["green"] == 136
        assert h.journal.session_summary(d.session.id)["decks"]["A"]["backs"] == a
        _hands(h, 1)  # and play goes on on that split: deck B is the rest of the mixer
        builds = h.status()["session"]["builds"]
        assert builds[-1]["deck"] == "B" and builds[-1]["ok"] and builds[-1]["backs"] == b
    finally:
        h.close()


def test_a_start_while_the_table_reports_a_fault_is_refused_with_the_faults_own_instruction(tmp_path):
    h = Harness(tmp_path, seed=3, faults=("jam:track=2,after=40,count=0",), mixed_loading=True)
    try:
        d = h.daemon
        h.call(d.start_session("riichi", True))
        h.settle()
        answer, err = h.call(d.abort())
        assert err is None and answer["confirmed"]
        st = h.status()
        assert st["state"]["name"] == "table_fault" and st["can"] == ["clear_fault", "abort",
                                                                      "selftest", "survey"]
        assert st["next"]["action"] == "clear_fault" and st["fault"]["track"] == 2
        _, err = h.call(d.start_session("riichi", True))
        assert err.status == 409 and err.code == "table_fault"
        assert "take the stuck tile out of track 2 by hand, then clear the fault" in str(err)
        _, err = h.call(d.continue_())  # not the way out: the fault's own action is
        assert err.status == 409 and err.code == "table_fault"
        _, err = h.call(d.clear_fault())
        assert err.code == "fault_remains"
        assert d.session is None and h.driven() == []
    finally:
        h.close()


def test_after_an_end_with_walls_inside_the_self_test_takes_them_as_they_are(h):
    """A session ended with deck A built inside: the self-test is taken as the table is
    (a lift cycle raises the walls to the table top first: the table tests its devices at
    rest), and the daemon knows where they are then, for the next start."""
    d = h.daemon
    h.call(d.start_session("riichi", True))
    h.settle()
    h.call(d.end_session())
    st = h.status()
    assert st["state"]["params"]["walls_inside"] is True
    assert "selftest" in st["can"] and "start" in st["can"]
    rep, err = h.call(d.selftest("lift"), max_s=120)
    assert err is None and rep["ok"], err
    st = h.status()
    assert st["state"]["params"]["walls_inside"] is False
    assert st["state"]["params"]["where"] == {"A": "top", "B": "mixer"}  # (Mixed Deck's B)
    assert "came up to the table top first" in rep["walls"]
    answer, err = h.call(d.start_session("riichi", True))  # takes it as it is: A pushed in
    assert err is None, err
    h.settle()
    assert h.status()["state"]["name"] == "built"


def test_a_resplit_after_a_restart_is_recorded_with_the_hands_played_on_it(tmp_path):
    h = Harness(tmp_path, seed=42, faults=("reset:build=3,after=50",), mixed_loading=True)
    try:
        d = h.daemon
        h.call(d.start_session("riichi", True))
        h.settle()
        _hands(h, 4)
        sid = d.session.id
        h.call(d.end_session())
        g = h.journal.history()[0]["games"][0]
        assert [sp["split"] for sp in g["splits"]] == [1, 2]
        assert g["splits"][0]["hands"] == [1, 2] and g["splits"][1]["hands"] == [3, 4]
        assert g["splits"][0]["decks"] != g["splits"][1]["decks"]
        assert g["decks"] == g["splits"][0]["decks"]  # the game began on its first split
        hands = h.journal.session_summary(sid)["hands"]
        assert [x["split"] for x in hands] == [1, 1, 2, 2]
    finally:
        h.close()


def test_a_new_game_forgets_the_last_throw_and_a_second_one_at_once_is_refused(h):
    d = h.daemon
    h.call(d.start_session("riichi", True))
    h.settle()
    _hands(h, 1)
    h.call(d.throw_dice())
    assert h.status()["session"]["dice"] is not None
    answer, err = h.call(d.new_game())
    assert err is None
    h.settle()
    s = h.status()["session"]
    assert s["game"] == 2 and s["dice"] is None  # game 1's throw is not game 2's
    _, err = h.call(d.new_game())  # no hand of game 2 yet: an empty game, refused
    assert err.status == 409 and err.code == "built" and "game_new" not in h.status()["can"]


def test_an_end_mid_build_stops_it_and_an_end_with_empty_brings_the_tiles_up(h):
    d = h.daemon
    h.call(d.start_session("riichi", True))
    h.settle()
    h.call(d.hand_over())
    h.settle(until=lambda: d.state.name == "building" and 30 < sum(d.table.per_track()) < 100)
    answer, err = h.call(d.end_session())
    assert err is None and answer["ended"]["how"] == "ended"
    assert not d.busy() and h.driven() == []
    assert h.status()["state"]["name"] == "idle" and d.session is None
    answer, err = h.call(d.end_session(empty=True))  # then everything up to the top
    assert err is None and answer["emptying"]
    h.settle(max_s=600)
    assert h.sim.table.mixer.count() == 0 and len(h.sim.table.top_tiles()) == 272


def test_while_a_stop_waits_the_hand_in_play_can_still_be_thrown(tmp_path):
    h = Harness(tmp_path, seed=3, faults=("jam:build=2,track=1,after=30,count=0",),
                mixed_loading=True)
    try:
        d = h.daemon
        h.call(d.start_session("riichi", True))
        h.settle()
        h.call(d.hand_over())
        h.settle()
        st = h.status()
        assert st["state"]["name"] == "stopped" and "dice" in st["can"]  # hand 1 is on the table
        answer, err = h.call(d.throw_dice())
        assert err is None and "dice" not in h.status()["can"]
        assert h.status()["fault"]["kind"] == "jam"  # the stop still waits for its fix
    finally:
        h.close()


def test_a_daemon_started_on_a_table_that_reports_a_fault_says_so(tmp_path):
    h = Harness(tmp_path, seed=3, faults=("jam:track=2,after=40,count=0",), mixed_loading=True)
    try:
        d = h.daemon
        h.call(d.start_session("riichi", True))
        h.settle()
        h.call(d.abort())
        h.restart()  # the daemon again, on the table still jammed
        h.settle(until=lambda: d is not h.daemon and h.daemon.link.connected, max_s=30)
        h.wait_s(0.5)
        st = h.status()
        assert st["state"]["name"] == "table_fault" and st["can"] == ["clear_fault", "abort",
                                                                      "selftest", "survey"]
        _, err = h.call(h.daemon.start_session("riichi", True))
        assert err.status == 409 and err.code == "table_fault"
    finally:
        h.close()


def test_a_guard_break_on_the_lifts_way_down_carries_on_with_continue(tmp_path):
    """The light curtain broken while the lift goes back down after a hand over (stage
    settle): the table stops; once the curtain is clear, `continue` brings the lift to
    the bottom and closes the door (it does not wait again on what the fault ended), the
    hand goes on, and the next hand over builds the next deck exactly.  (Before: every
    `continue` answered success and the state stayed stopped with the same fault.)"""
    h = Harness(tmp_path, seed=3, faults=("guard:during=lift,build=1,at=4500",))
    try:
        h.call(h.daemon.start_session("riichi", True))
        h.settle()
        h.call(h.daemon.hand_over())
        h.settle()
        st = h.status()
        assert st["state"]["name"] == "stopped" and st["fault"]["kind"] == "guard"
        assert st["state"]["params"]["resume"]["params"]["stage"] == "settle"
        h.wait_s(1.0)  # the hand out of the curtain (the break lasts 200 ms)
        answer, err = h.call(h.daemon.continue_())
        assert err is None
        h.settle()
        st = h.status()
        assert st["state"]["name"] == "built" and st["fault"] is None, st["state"]
        assert st["next"]["code"] == "press_dice" and answer["next"]["code"] == "press_dice"
        assert st["table"]["lift"] == "bottom" and h.sim.table.lift.get_status()["bottom"]
        assert h.sim.table.door.get_status()["closed"]
        h.call(h.daemon.throw_dice())
        h.call(h.daemon.hand_over())
        h.settle()
        s = h.status()["session"]
        assert h.status()["state"]["name"] == "built" and s["hand"] == 2, (h.status()["state"], s.get("faults"))
        assert [b["per_track"] for b in s["builds"]] == [[34] * 4] * 3
        assert h.driven() == []
    finally:
        h.close()


def test_ending_a_session_on_a_fault_leaves_the_fault_and_what_clears_it(tmp_path):
    """A jam that never clears stops the build; `session end` leaves the daemon in
    table_fault (not idle) with clear_fault in `can`, and a new start is refused naming the
    fault until it is cleared."""
    h = Harness(tmp_path, seed=3, faults=("jam:track=2,build=1,after=40,count=0",))
    try:
        h.call(h.daemon.start_session("riichi", True))
        h.settle()
        assert h.status()["fault"]["kind"] == "jam"
        _, err = h.call(h.daemon.end_session())
        assert err is None
        h.settle()
        st = h.status()
        assert st["state"]["name"] == "table_fault" and st["fault"]["action"] == "clear_fault"
        assert "clear_fault" in st["can"] and "start" not in st["can"]
        _, err = h.call(h.daemon.start_session("riichi", True))
        assert err is not None and err.status == 409 and "track 2 is jammed" in str(err)
        h.sim.free_jam(2)
        _, err = h.call(h.daemon.clear_fault())
        assert err is None
        h.settle()
        assert h.status()["state"]["name"] == "idle" and "start" in h.status()["can"]
    finally:
        h.close()


def test_every_409_names_the_state_and_gives_its_rows_reason(h):
    """The 409's message is made from the command's row: the state's name, the row's reason
    for that state (when it has one), then what happens next."""
    from hostd.core.commands import NAMES, refused_with, why_not
    from hostd.core.tables import CASES

    d = h.daemon
    refusals = []

    async def judge_all():
        for _, state, connected, _ in CASES:
            if not connected:
                continue
            d.m.restore(state)
            for name in NAMES:
                if name in d.can() or refused_with(name, True) != 409:
                    continue
                try:
                    d.judge(name)
                except JantakuError as e:
                    refusals.append((name, state, e))

    h.run(judge_all())
    assert len(refusals) > 100
    for name, state, e in refusals:
        msg = str(e)
        assert e.status == 409 and e.code == state.name
        assert msg.startswith("%s is not possible now (%s)" % (
            name.replace("_", " "), state.name.replace("_", " ")))
        why = why_not(name, state)
        assert (": %s. Next: " % why if why else "). Next: ") in msg, (name, state, msg)


def test_a_hand_over_a_recovery_waited_for_keeps_who_asked_for_it(tmp_path):
    """Who asked for a hand over (the start button here) is in its state (`by`), through
    the recovery it waited for, and journalled with the hand."""
    h = Harness(tmp_path, seed=42, faults=("reset:build=3,after=50",), mixed_loading=True)
    try:
        d = h.daemon
        h.call(d.start_session("riichi", True))
        h.settle()
        _hands(h, 2)
        h.settle(until=lambda: d.link.connected and d.state.name == "recovering", max_s=60)
        assert d.state["stage"] == "waiting" and d.state["by"] is None
        seen = []
        h.daemon.bus.subscribers.add(_Recorder(seen))
        _press(h, "start")
        hands = h.journal.session_summary(d.session.id)["hands"]
        assert hands[-1]["hand"] == 3 and hands[-1]["by"] == "button", hands[-1]
        states = [e["state"] for e in seen if e["type"] == "state"]
        assert any(s["name"] == "hand_over" and s["params"]["by"] == "button" for s in states)
        assert any(s["name"] == "recovering" and s["params"]["by"] == "button" for s in states)
    finally:
        h.close()


def test_the_status_says_where_each_tracks_wall_comes_up(h, tmp_path, monkeypatch):
    """The page marks the tracks on its drawing from this (the board profile's track_sides;
    issue 42): the reference profile's default, a club's own copy, none without a table."""
    h.settle(max_s=2)
    assert h.status()["table"]["track_sides"] == ["front", "right", "back", "left"]
    board = h.status()["table"]["identity"]["board"]
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    from hostd.boards import boardfile

    boardfile.write(board, lambda raw: raw.update(track_sides=["back", "left", "front", "right"]))
    h.sim.reset()  # the flash resets the board: read again
    h.settle(until=lambda: (h.status()["table"]["track_sides"] or [None])[0] == "back", max_s=20)
    assert h.status()["table"]["track_sides"] == ["back", "left", "front", "right"]


def test_a_stop_while_preparing_carries_on_with_what_is_left(tmp_path):
    """The preparing state says what is still to do (raise_walls, push_window): a guard
    break while the centre opens, once the walls inside came up, carries on with the
    centre alone. (Before, the whole plan ran again: the lift a second time.)"""
    h = Harness(tmp_path, seed=3, faults=("guard:during=door,build=1",))
    try:
        h.call(h.daemon.start_session("riichi", True))
        h.settle()
        h.call(h.daemon.end_session())  # deck A stays built inside
        h.settle()
        assert h.status()["state"]["params"]["walls_inside"] is True
        answer, err = h.call(h.daemon.start_session("riichi", True))
        assert err is None
        h.settle()
        st = h.status()
        assert st["state"]["name"] == "stopped" and st["fault"]["kind"] == "guard", st["state"]
        left = st["state"]["params"]["resume"]["params"]
        assert (left["raise_walls"], left["push_window"]) == (False, True), left
        h.wait_s(1.0)  # the hand out of the curtain
        _, err = h.call(h.daemon.continue_())
        assert err is None
        h.settle()
        st = h.status()
        assert st["state"]["name"] == "built" and st["fault"] is None, st["state"]
        raised = h.journal.events(answer["id"], kinds=["collect"])
        assert len(raised) == 1, raised  # the walls came up once
        assert h.driven() == []
    finally:
        h.close()


def test_a_session_ended_on_a_surplus_leaves_the_tables_fault_to_clear(tmp_path):
    """Issue 42 point 1: the state never contradicts its fault. A surplus stop (carried on
    with continue in a session) that is ended is the table's fault to clear: its action is
    clear_fault, in can, and its words say so (before: continue, which idle refuses)."""
    h = Harness(tmp_path, seed=3, faults=("extra-tile:build=1",))
    try:
        h.call(h.daemon.start_session("riichi", False))  # the normal rotation: A by count
        h.settle()
        st = h.status()
        assert st["state"]["name"] == "stopped" and st["fault"]["kind"] == "surplus", st["state"]
        assert st["fault"]["action"] == "continue"
        h.call(h.daemon.end_session())
        h.settle(max_s=5)
        st = h.status()
        f = st["fault"]
        assert st["state"]["name"] == "table_fault", st["state"]  # the table's SURPLUS stands
        assert f["action"] == "clear_fault" and "clear_fault" in st["can"], (f, st["can"])
        assert "then clear the fault" in f["todo"] and "continue" not in f["todo"], f["todo"]
    finally:
        h.close()
