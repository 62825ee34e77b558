"""hostd.core.daemon: every operator action from the states a person meets, against the
in-process simulated table in virtual time (tests/unit/daemon_harness.py)."""
import pytest

from daemon_harness import Harness


@pytest.fixture
def h(tmp_path):
    harness = Harness(tmp_path, seed=3)
    yield harness
    harness.close()


def test_mixed_deck_start_collects_the_set_left_on_the_table_top(h):
    assert len(h.sim.table.top_tiles()) == 136  # loaded for the normal rotation
    answer, err = h.call(h.daemon.start_session("riichi", True))
    assert err is None and answer["state"] == "starting"
    h.settle()
    s = h.status()["session"]
    assert s["decks"]["A"]["backs"]["blue"] and s["decks"]["A"]["backs"]["green"]
    assert {d: x["where"] for d, x in s["decks"].items()} == {"A": "inside", "B": "mixer"}
    assert h.sim.table.top_tiles() == [] and h.driven() == []


def test_a_second_start_is_refused_and_replace_ends_the_first(h):
    h.call(h.daemon.start_session("riichi", True))
    h.settle()
    _, err = h.call(h.daemon.start_session("riichi", True))
    assert err.status == 409 and err.code == "session_open" and "session end" in str(err)
    answer, err = h.call(h.daemon.start_session("riichi", True, replace=True))
    assert err is None
    first = h.journal.ended_how(answer["id"] - 1)
    assert first["state"] == "ended" and "replaced" in first["reason"]
    h.settle()
    assert h.status()["session"]["next"].startswith("deck A is built inside")


def test_abort_mid_build_then_start_again_from_the_half_built_walls(h):
    d = h.daemon
    h.call(d.start_session("riichi", True))
    h.settle()
    h.call(d.hand_over())
    h.settle(until=lambda: d.session.building == "B" and 30 < sum(d.table.per_track()) < 100)
    answer, err = h.call(d.abort())
    assert err is None and h.driven() == []
    assert h.journal.ended_how(answer["aborted"])["state"] == "aborted"
    assert d.known["where"]["B"] == "split" and d.known["where"]["A"] == "top"
    _, err = h.call(d.start_session("riichi", True))
    assert err is None
    h.settle()
    s = h.status()["session"]
    assert s["stopped"] is None and [b["ok"] for b in s["builds"]] == [True]
    assert h.sim.table.mixer.count() == 136 and h.sim.table.top_tiles() == []


def test_normal_rotation_after_mixed_deck_is_refused_with_what_to_do(h):
    h.call(h.daemon.start_session("riichi", True))
    h.settle()
    h.call(h.daemon.end_session())
    _, err = h.call(h.daemon.start_session("riichi", False))
    assert err.status == 422 and err.code == "sets_not_apart"
    assert "Sort the tiles by back colour" in str(err) and "--loaded" in str(err)
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
    assert s["next"].startswith("deck A is built inside")
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
        assert "take the stuck tile out of track 2 by hand" in st["next"]
        # what `session start --wait` prints as it stops: the stop and what to do, not the
        # build it stopped ("deck A is being built inside: wait")
        failed = [e for e in got if e["type"] == "step_failed"]
        assert len(failed) == 1 and failed[0]["next"] == st["next"]
        _, err = h.call(d.hand_over())
        assert err.status == 409 and "track 2 is jammed" in str(err)
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
        assert st["session"]["stopped"]["kind"] == "short-top"
        assert "push the rest in when the centre opens" in st["next"]
        h.sim.push(keep=1)  # a person pushes the played deck, not the hand in play
        _, err = h.call(d.continue_())
        assert err is None
        h.settle()
        s = h.status()["session"]
        assert s["stopped"] is None and s["builds"][-1]["ok"] and s["hand"] == 2
    finally:
        h.close()


def test_motor_commands_are_refused_at_once_and_an_abort_stays_pending_while_unplugged(h):
    d = h.daemon
    h.sim.wire.unplug(h.sim.clock.now_us(), -1)
    h.settle(until=lambda: not d.link.connected, max_s=30)
    _, err = h.call(d.start_session("riichi", True), max_s=1)
    assert err.status == 503 and "not connected" in str(err)
    _, err = h.call(d.abort(), max_s=1)
    assert err.status == 503 and "stays pending" in str(err)
    assert h.status()["abort_pending"] is True and "abort" in h.status()["next"]
    h.sim.wire.replug()
    h.settle(until=lambda: d.abort_pending is None, max_s=30)
    assert h.status()["next"].startswith("start a session")


# -- games, the sets' colours, the end of the evening (issue: Mixed Deck through an evening) --
def _hands(h, n):
    for _ in range(n):
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
    assert s["next"].endswith("to raise it and begin hand 1 of game 2")
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
        assert err is None and answer["game"] == 2 and answer["state"] == "playing"
        assert not d._busy() and h.driven() == []
        _hands(h, 1)
        s = h.status()["session"]
        assert (s["game"], s["game_hand"], s["hand"]) == (2, 1, 2)
        assert s["decks"]["A"]["backs"]["blue"] == 136  # the decks went on
    finally:
        h.close()


def test_a_new_game_waits_for_the_build_and_needs_a_session(h):
    d = h.daemon
    _, err = h.call(d.new_game())
    assert err.code == "no_session"
    h.call(d.start_session("riichi", True))
    h.settle(until=lambda: sum(d.table.per_track()) > 20)
    _, err = h.call(d.new_game())
    assert err.status == 409 and err.code == "busy" and "wait" in str(err)


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
    assert err.status == 422 and err.code == "unknown_colour"
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
    assert h.status()["next"].startswith("the walls are on the table top")


def test_session_end_empty_takes_two_rounds_for_both_sets_in_the_mixer(tmp_path):
    h = Harness(tmp_path, seed=6, mixed_loading=True)
    try:
        asked = []
        h.daemon._subscribers.add(_Recorder(asked))
        assert h.sim.table.mixer.count() == 272
        answer, err = h.call(h.daemon.end_session(empty=True))
        assert err is None and answer["ended"] is None
        h.settle(max_s=600)
        assert h.sim.table.mixer.count() == 0 and len(h.sim.table.top_tiles()) == 272
        emptied = [e for e in asked if e["type"] == "emptied"]
        assert emptied and emptied[0]["from_mixer"] == [144, 128]
        assert any(e["type"] == "ask" and "table top out" in e["message"] for e in asked)
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
    d._subscribers.add(_Next(seen, d))
    h.call(d.hand_over())
    h.settle()
    said = {}
    for kind, text in seen:  # the first thing said at each kind of event
        said.setdefault(kind, text)
    assert said["hand_over"] == "raising the walls for hand 2: wait"
    # the walls are up: hand 2 has begun while the lift comes down, and its throw is due
    assert said["hand"] == ("hand 2: press dice for the throw (`jantaku dice`); the lift "
                            "goes back down: wait")
    assert said["build_started"].startswith("hand 2: press dice for the throw (`jantaku "
                                            "dice`); deck A is being built inside")


def test_a_restart_during_the_new_game_collect_carries_on_with_that_game(h):
    d = h.daemon
    h.call(d.start_session("riichi", True))
    h.settle()
    _hands(h, 1)
    h.call(d.new_game())
    h.settle(until=lambda: d.session.asking is not None)  # the centre open for people
    h.restart()
    h.settle()
    s = h.status()["session"]
    assert (s["game"], s["game_hand"], s["stopped"]) == (2, 0, None)
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
    h.daemon._subscribers.add(_Recorder(got))
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
        assert "press dice" in h.status()["next"] or s["decks"]["B"]["where"] == "inside"
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
        assert refused and "thrown already" in refused[-1]["why"]
        taken = [e for e in got if e["type"] == "button" and e["taken"]]
        assert [e["button"] for e in taken] == ["start", "dice"]
    finally:
        h.close()


def test_a_start_press_while_the_table_moves_is_refused_and_one_while_it_asks_continues(h):
    got = _events(h)
    d = h.daemon
    h.call(d.start_session("riichi", True))
    h.settle(until=lambda: d.session.asking is not None)  # the centre open for people
    h.sim.press("start")
    h.wait_s(0.3)
    assert d.session.asking is None  # the press closed the centre: people are done
    h.settle(until=lambda: sum(d.table.per_track()) > 10)  # deck A building
    h.sim.press("start")
    h.wait_s(0.3)
    h.settle()
    presses = [e for e in got if e["type"] == "button"]
    assert presses[0]["taken"] and presses[0]["did"] == "continue"
    assert not presses[1]["taken"] and "busy" in presses[1]["why"]
    assert h.status()["session"]["hand"] == 0  # the refused press did nothing


def test_entered_dice_are_checked_against_the_ruleset_and_announced(tmp_path):
    h = Harness(tmp_path, seed=9, ruleset="uzje")
    try:
        d = h.daemon
        _, err = h.call(d.throw_dice([3, 4]))
        assert err.code == "no_session"
        h.call(d.start_session("uzje", True))
        h.settle()
        _, err = h.call(d.throw_dice([3, 4]))
        assert err.code == "no_hand" and "press start first" in str(err)
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
    h.settle(until=lambda: d.session.asking is not None)
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
