"""hostd.daemon: every operator action from the states a person meets, against the
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
        h.call(d.start_session("riichi", True))
        h.settle()
        st = h.status()
        assert "take the stuck tile out of track 2 by hand" in st["next"]
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
