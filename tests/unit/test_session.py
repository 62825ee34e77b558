"""Session logic: rotation, Mixed Deck split, composition checks — against a fake table
that models the deck contents (the real table is in the end-to-end and demo tests)."""
import asyncio
import random

import pytest

from hostd.core.codes import Context, fault_of, next_step
from hostd.core.commands import can
from hostd.rules.dice import Dice
from hostd.core.journal import Journal
from hostd.rules.rulesets import TableFitError, get_ruleset
from hostd.core.session import CompositionMismatch, Session
from hostd.core.state import Stage
from hostd.table.client import TableFault
from protocol.messages import F_SURPLUS


class FakeTable:
    """Holds tiles by back colour in the mixer; a build takes `sum(targets)` of them at
    random (seeded), like the real mixer; hand over drops the played deck back in."""

    def __init__(self, *, mixer, top, max_stacks=18, seed=1, lose=None):
        self.identity = {"tracks": 4, "max_stacks": max_stacks, "colours": ["blue", "green"]}
        self.mixer = list(mixer)
        self.top = list(top)
        self.inside = []
        self.rng = random.Random(seed)
        self.lose = lose  # (build number, colour): one tile of that colour goes missing
        self.misread = {}  # build number -> how many backs read as unknown
        self.calls = []

    async def build(self, number, targets, *, stacks, expect_empty, colours=None):
        self.calls.append(("build", number, list(targets), expect_empty))
        self.colours = colours  # the classes the build checks (None: all, []: none)
        self.rng.shuffle(self.mixer)
        n = sum(targets)
        taken, self.mixer = self.mixer[:n], self.mixer[n:]
        if self.lose and self.lose[0] == number:
            taken.remove(self.lose[1])
        self.inside = taken
        backs = {}
        unread = self.misread.get(number, 0)
        for i, c in enumerate(taken):
            if i < unread:
                c = "unknown"
            backs[c] = backs.get(c, 0) + 1
        per = [len(taken) // 4] * 4
        return {"per_track": per, "backs": backs, "seconds": 20.0}

    async def raise_walls(self, *, open_door):
        self.calls.append(("raise", open_door))
        if open_door:
            self.mixer += self.top
        self.top, self.inside = self.inside, []
        return 4.05

    async def settle(self):
        self.calls.append(("settle",))

    state = "idle"
    build_id = 0

    async def wait_ready(self):
        pass

    async def clear_fault_if_any(self):  # (never in a fault state)
        pass

    async def flush_tracks(self):
        self.calls.append(("flush",))

    async def drop_top(self):
        self.calls.append(("drop",))
        self.mixer += self.top
        self.top = []

    def per_track(self):
        return [0, 0, 0, 0]

    def backs(self):
        return {}

    def mark(self):
        return 0

    def seconds_since(self, mark):
        return 4.05


@pytest.fixture
def journal(tmp_path):
    j = Journal(str(tmp_path / "j.sqlite"))
    yield j
    j.close()


def run(coro):
    return asyncio.run(coro)


def make(journal, table, *, mixed, ruleset="riichi", seed=5):
    return Session(table=table, journal=journal, profile=get_ruleset(ruleset),
                   mixed_deck=mixed, dice=Dice(seed))


def test_normal_rotation_builds_blue_then_green_and_alternates(journal):
    table = FakeTable(mixer=["blue"] * 136, top=["green"] * 136)
    s = make(journal, table, mixed=False)

    async def go():
        await s.start()
        for _ in range(4):
            await s.hand_over()

    run(go())
    assert [b["deck"] for b in s.builds] == ["A", "B", "A", "B", "A"]
    assert s.builds[0]["backs"] == {"blue": 136}
    assert s.builds[1]["backs"] == {"green": 136}
    assert [h["deck"] for h in s.hands] == ["A", "B", "A", "B"]
    # hand 1 opens the door: the green set on the table top drops into the mixer
    assert table.calls[1] == ("raise", True)
    assert all(b["ok"] for b in s.builds)
    summary = journal.session_summary(s.id)
    assert [h["hand"] for h in summary["hands"]] == [1, 2, 3, 4]
    assert summary["decks"]["A"]["backs"] == {"blue": 136, "green": 0}


def test_mixed_deck_split_knows_both_compositions_and_checks_rebuilds(journal):
    table = FakeTable(mixer=["blue"] * 136 + ["green"] * 136, top=[], seed=9)
    s = make(journal, table, mixed=True)

    async def go():
        await s.start()
        for _ in range(3):
            await s.hand_over()

    run(go())
    a, b = s.decks["A"]["backs"], s.decks["B"]["backs"]
    assert sum(a.values()) == 136 and sum(b.values()) == 136
    assert a["blue"] + b["blue"] == 136 and a["green"] + b["green"] == 136
    assert table.calls[0] == ("build", 1, [34] * 4, False)  # the other deck stays in the mixer
    assert table.calls[1] == ("raise", False)  # nothing on the table top at hand 1
    assert [b_["deck"] for b_ in s.builds] == ["A", "B", "A", "B"]
    for rec in s.builds:
        assert rec["backs"] == s.decks[rec["deck"]]["backs"]


def test_lost_tile_is_named_with_deck_and_numbers(journal):
    table = FakeTable(mixer=["blue"] * 136 + ["green"] * 136, top=[], seed=3, lose=(3, "green"))
    s = make(journal, table, mixed=True)

    async def go():
        await s.start()
        await s.hand_over()  # builds B (2)
        await s.hand_over()  # rebuilds A (3): one green tile short

    with pytest.raises(CompositionMismatch) as e:
        run(go())
    msg = str(e.value)
    exp_green = s.decks["A"]["backs"]["green"]
    assert msg == "deck A: counted 135 of 136 tiles (green %d, expected %d)" % (exp_green - 1, exp_green)
    assert s.faults and s.faults[-1]["kind"] == "composition"
    assert journal.session_summary(s.id)["faults"][-1]["message"] == msg


def test_ruleset_that_does_not_fit_is_refused_before_anything_moves(journal):
    table = FakeTable(mixer=[], top=[], max_stacks=18)
    s = make(journal, table, mixed=False, ruleset="uzje+all-tongs")
    with pytest.raises(TableFitError) as e:
        s.open()
    assert "28" in str(e.value) and "18" in str(e.value)
    assert table.calls == []
    assert journal.open_session() is None


def test_hand_over_before_walls_are_built_is_refused(journal):
    table = FakeTable(mixer=["blue"] * 136, top=["green"] * 136)
    s = make(journal, table, mixed=False)
    s.open()
    s.to_state("building", deck="A", top="B", hand=0, stage="build")
    assert "hand_over" not in can(s.state, Context())  # the daemon refuses it: 409 building


class ResumableTable(FakeTable):
    """A FakeTable that paused build `number` (it kept its counts) while the daemon was
    away, and finishes it on resume."""

    def __init__(self, boot, **kw):
        super().__init__(**kw)
        self.identity["boot_nonce"] = boot
        self.paused_result = None

    async def build(self, number, targets, *, stacks, expect_empty, colours=None):
        if self.paused_result is not None:
            return await super().build(number, targets, stacks=stacks, expect_empty=expect_empty)
        res = await super().build(number, targets, stacks=stacks, expect_empty=expect_empty)
        self.paused_result = res
        self.build_id = number
        raise asyncio.CancelledError  # the daemon was killed mid-build

    async def resume_build(self, number):
        self.calls.append(("resume", number))
        return self.paused_result


def _killed_mid_first_build(journal, boot):
    table = ResumableTable(boot, mixer=["blue"] * 136 + ["green"] * 136, top=[], seed=4)
    s = make(journal, table, mixed=True)
    with pytest.raises(asyncio.CancelledError):
        run(s.start())
    return table, s.id


def test_restart_resumes_a_paused_build_of_the_same_table_boot(journal):
    table, sid = _killed_mid_first_build(journal, boot=77)
    saved = journal.open_session()
    assert saved["id"] == sid and saved["phase"] == "building"
    s = Session.restore(saved, table=table, journal=journal, profile=get_ruleset("riichi"),
                        dice=Dice(5))
    assert run(s.resume()) == "resumed"
    assert table.calls[-1] == ("resume", 1)
    assert s.id == sid and s.inside == "A"
    assert sum(s.decks["A"]["backs"].values()) == 136 and s.decks["B"]["tiles"] == 136
    assert journal.session_summary(sid)["builds"][0]["ok"] is True


def test_restart_after_a_table_reset_does_not_trust_the_walls(journal):
    table, sid = _killed_mid_first_build(journal, boot=77)
    table.identity["boot_nonce"] = 78  # the table rebooted meanwhile
    table.top, table.mixer = table.inside, table.mixer  # (the partial walls go up and back in)
    s = Session.restore(journal.open_session(), table=table, journal=journal,
                        profile=get_ruleset("riichi"), dice=Dice(5))
    assert run(s.resume()) == "resplit"
    assert ("resume", 1) not in table.calls
    assert [c[0] for c in table.calls[-5:]] == ["flush", "raise", "settle", "drop", "build"]
    assert [b["ok"] for b in s.builds] == [False, True]  # the untrusted build is listed
    assert s.faults[0]["kind"] == "reset" and s.faults[0]["recovered"] is True
    assert "can't be accounted for" in s.faults[0]["message"]
    assert s.inside == "A" and sum(s.decks["A"]["backs"].values()) == 136


def test_unknown_backs_are_reported_not_guessed_and_later_builds_narrow_them(journal):
    table = FakeTable(mixer=["blue"] * 136 + ["green"] * 136, top=[], seed=11)
    table.misread = {1: 3}  # three backs of the split's first build can't be read
    s = make(journal, table, mixed=True)

    async def go():
        await s.start()
        a = dict(s.decks["A"]["backs"])
        assert a["unknown"] == 3 and a["blue"] + a["green"] == 133
        assert s.builds[0]["ok"]  # under the limit: the build completes
        await s.hand_over()  # B built with every back read: A becomes exact too
        await s.hand_over()  # A rebuilt: must match exactly now

    run(go())
    assert "unknown" not in s.decks["A"]["backs"] and "unknown" not in s.decks["B"]["backs"]
    assert s.builds[2]["backs"] == s.decks["A"]["backs"]


def test_too_many_unknown_backs_fail_the_build_with_the_numbers(journal):
    table = FakeTable(mixer=["blue"] * 136, top=["green"] * 136)
    table.misread = {1: 9}
    s = make(journal, table, mixed=False)
    with pytest.raises(CompositionMismatch) as e:
        run(s.start())
    assert str(e.value) == ("deck A: 9 back colours could not be read (at most 6 accepted): "
                            "the count can't be trusted")


def test_normal_rotation_restart_after_a_reset_mid_build_stops_with_instructions(journal):
    table = ResumableTable(77, mixer=["blue"] * 136, top=["green"] * 136, seed=4)
    s = make(journal, table, mixed=False)
    with pytest.raises(asyncio.CancelledError):
        run(s.start())
    table.identity["boot_nonce"] = 78  # rebooted while the daemon was away, mid-build
    s = Session.restore(journal.open_session(), table=table, journal=journal,
                        profile=get_ruleset("riichi"), dice=Dice(5))
    with pytest.raises(TableFault) as e:  # the tracks' counts are gone: no drain possible
        run(s.resume())
    assert "sort them by back colour, load the blue set" in str(e.value)
    s.on_stopped("resume", e.value)  # (the daemon's step runner does this)
    assert journal.open_session()["phase"] == "stopped"
    assert can(s.state, Context()) == ["end", "abort"]  # people must sort the sets
    assert not any(c[0] in ("raise", "drop", "build") for c in table.calls[1:])  # nothing moved


def test_normal_rotation_restart_after_a_reset_with_walls_built_swaps_at_the_hand_over(journal):
    table = FakeTable(mixer=["blue"] * 136, top=["green"] * 136, seed=4)
    table.identity["boot_nonce"] = 77
    s = make(journal, table, mixed=False)
    run(s.start())  # deck A (blue) built inside, the green set on top
    table.identity["boot_nonce"] = 78  # the table rebooted while the daemon was away
    s = Session.restore(journal.open_session(), table=table, journal=journal,
                        profile=get_ruleset("riichi"), dice=Dice(5))
    assert run(s.resume()) == "swap"
    assert s.faults[-1]["kind"] == "reset" and not s.faults[-1]["recovered"]
    assert "deck B (blue 0, green 136) drops in" in s.faults[-1]["message"]
    assert "hand_over" in can(s.state, Context())  # the hand over is what the recovery waits for
    table.calls.clear()
    rec = run(s.hand_over())
    assert [c[0] for c in table.calls] == ["raise", "settle", "build", "drop", "raise", "settle",
                                           "build"]
    assert table.calls[0] == ("raise", True)  # A's walls up as the green set drops in
    assert rec["hand"] == 1 and rec["deck"] == "B"  # the checked deck is played
    assert s.builds[-2]["backs"] == {"green": 136} and s.builds[-1]["backs"] == {"blue": 136}
    assert s.faults[-1]["recovered"] is True


class SettleKilledTable(FakeTable):
    """The daemon is killed while the lift goes back down after a hand began."""

    kill_in_settle = False

    async def settle(self):
        await super().settle()
        if self.kill_in_settle:
            self.kill_in_settle = False
            raise asyncio.CancelledError

    async def settle_after_restart(self):
        self.calls.append(("settle_after_restart",))


@pytest.mark.parametrize("mixed", [False, True])
def test_restart_after_a_reset_once_the_hand_began_keeps_the_walls_in_play(journal, mixed):
    mixer = ["blue"] * 136 + (["green"] * 136 if mixed else [])
    table = SettleKilledTable(mixer=mixer, top=[] if mixed else ["green"] * 136, seed=4)
    table.identity["boot_nonce"] = 77
    s = make(journal, table, mixed=mixed)
    run(s.start())
    table.kill_in_settle = True
    with pytest.raises(asyncio.CancelledError):
        run(s.hand_over())  # hand 1 began (walls up, journalled), then the daemon died
    table.identity["boot_nonce"] = 78  # and the table rebooted meanwhile
    s = Session.restore(journal.open_session(), table=table, journal=journal,
                        profile=get_ruleset("riichi"), dice=Dice(5))
    table.calls.clear()
    assert run(s.resume()) == "resumed"
    # the walls in play were delivered before the reset: kept; the lift is brought down
    # and the dropped deck rebuilt inside and checked
    assert [c[0] for c in table.calls] == ["settle_after_restart", "build"]
    assert s.hand == 1 and s.top == "A" and s.inside == "B" and s.faults == []


class StrayTable(FakeTable):
    """A table with a surplus copy ("blue*": a blue back, not of the sets) in the mixer: a
    build that must empty the mixer and fills its walls with tiles left over stops
    (SURPLUS, its counts kept); the table top, the door and the lift as the collect needs."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.door = "closed"
        self.counted = ([0, 0, 0, 0], {})

    async def build(self, number, targets, *, stacks, expect_empty, colours=None):
        self.calls.append(("build", number, list(targets), expect_empty))
        n = sum(targets)  # (no shuffle: the mixer's order is the test's)
        taken, self.mixer = self.mixer[:n], self.mixer[n:]
        self.inside = taken
        backs = {}
        for c in taken:
            backs[c.rstrip("*")] = backs.get(c.rstrip("*"), 0) + 1
        self.counted = ([n // 4] * 4, backs)
        if expect_empty and self.mixer:
            self.state = "fault"
            raise TableFault(F_SURPLUS, 0, 3000)
        return {"per_track": [n // 4] * 4, "backs": backs, "seconds": 20.0}

    def per_track(self):
        return list(self.counted[0])

    def backs(self):
        return dict(self.counted[1])

    async def clear_fault_if_any(self):
        if self.state == "fault":
            self.calls.append(("clear",))
            self.state = "paused"

    async def abort(self):
        self.calls.append(("abort",))
        self.state = "idle"

    async def bring_walls_up(self):
        self.calls.append(("up",))
        self.top += self.inside
        self.inside = []

    async def open_door(self):
        self.calls.append(("open",))
        self.door = "open"
        self.mixer += self.top
        self.top = []

    async def close_door(self):
        self.door = "closed"

    def wall_seconds(self, s):
        return s

    async def pause(self, seconds, stop=None):
        return True


def test_a_stray_in_walls_built_asks_people_to_find_it_and_splits_again(journal):
    """A surplus copy went into deck A of a split and a genuine green was left over by deck
    B: the stop says leave the mixer alone (kind stray, not surplus), `continue` brings
    every tile up, people find the blue stray on the table top, and both decks are split
    again from the two sets (fault matrix: resplit-extra-tile)."""
    a = ["blue*"] + ["blue"] * 67 + ["green"] * 68  # deck A: the stray, 68 blue backs counted
    table = StrayTable(mixer=a + ["blue"] * 69 + ["green"] * 68, top=[])
    s = make(journal, table, mixed=True)

    async def go():
        await s.start()
        with pytest.raises(TableFault) as e:
            await s.hand_over()  # deck B: blue 69, green 67, and a green left in the mixer
        s.on_stopped("hand_over", e.value)  # (the daemon's step runner does this)
        st = s.state
        assert st.name == "stopped" and st["kind"] == "stray" and st["fault"]["colour"] == "blue"
        assert str(e.value) == (
            "deck B: counted 136 of 136 (blue 69, expected 68, green 67, expected 68): tiles "
            "were left in the mixer after the walls were complete: a blue tile that is not of "
            "the sets went into the walls, and what was left in the mixer is of the sets")
        f = fault_of(st)
        assert f["action"] == "continue" and f["todo"].startswith("leave the tile in the mixer")
        assert "continue" in can(st, Context())
        assert table.mixer == ["green"]
        step = asyncio.create_task(s.recover())  # continue
        for _ in range(100):
            await asyncio.sleep(0)
            if s.state.get("stage") == Stage.FIND:
                break
        st = s.state
        assert st.name == "preparing" and st["reason"] == "stray" and st["colour"] == "blue"
        n = next_step(st, Context())
        assert n["code"] == "find_stray" and n["action"] == "continue"
        assert n["params"] == {"colour": "blue"} and "centre stays shut" in n["text"]
        assert "continue" in can(st, Context()) and table.door == "closed"
        assert sorted(table.top).count("blue*") == 1 and len(table.top) == 272
        table.top.remove("blue*")  # a person takes the stray out
        s.tell_continue()
        assert s.state["stage"] == Stage.START and s.state["reason"] is None
        await step

    run(go())
    # the stopped build's fault cleared and the build forgotten, the walls up, the centre
    # open for the push (after the find), and deck A of the new split built
    assert [c[0] for c in table.calls[4:]] == ["clear", "abort", "up", "open", "build"]
    assert table.calls[-1] == ("build", 3, [34] * 4, False)  # a split: the rest stays in
    assert s.state.name == "built" and s.state["deck"] == "A" and s.state["top"] is None
    assert s.split == 2 and s.hand == 1  # another split of the game; hand 1 ended with it
    a, b = s.decks["A"]["backs"], s.decks["B"]["backs"]
    assert a["blue"] + b["blue"] == 136 and a["green"] + b["green"] == 136
    assert sorted(table.mixer + table.inside) == ["blue"] * 136 + ["green"] * 136
    assert [f["kind"] for f in s.faults] == ["stray"] and s.faults[0]["recovered"] is True


def test_a_daemon_restarted_while_people_look_for_a_stray_asks_for_it_again(journal):
    """Killed during the find step: the journalled state (preparing, find, the stray's
    colour) is where a restarted daemon carries on: the collect again, and the find step."""
    a = ["blue*"] + ["blue"] * 67 + ["green"] * 68
    table = StrayTable(mixer=a + ["blue"] * 69 + ["green"] * 68, top=[])
    s = make(journal, table, mixed=True)

    async def until_find(session):
        for _ in range(200):
            await asyncio.sleep(0)
            if session.state.get("stage") == Stage.FIND:
                return
        raise AssertionError("no find step: %r" % (session.state,))

    async def first():
        await s.start()
        with pytest.raises(TableFault) as e:
            await s.hand_over()
        s.on_stopped("hand_over", e.value)
        step = asyncio.create_task(s.recover())
        await until_find(s)
        step.cancel()  # the daemon is killed while people look
        with pytest.raises(asyncio.CancelledError):
            await step

    run(first())
    saved = journal.open_session()
    assert saved["phase"] == "preparing"
    s2 = Session.restore(saved, table=table, journal=journal, profile=get_ruleset("riichi"),
                         dice=Dice(5))

    async def second():
        step = asyncio.create_task(s2.resume())
        await until_find(s2)
        assert next_step(s2.state, Context())["params"] == {"colour": "blue"}
        table.top.remove("blue*")
        s2.tell_continue()
        await step

    run(second())
    assert s2.state.name == "built" and s2.state["deck"] == "A"
    a_, b_ = s2.decks["A"]["backs"], s2.decks["B"]["backs"]
    assert a_["blue"] + b_["blue"] == 136 and a_["green"] + b_["green"] == 136
