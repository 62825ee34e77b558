"""hostd/table/operations.py against a fake table client: a build, a lift cycle, a door
move and a self-test stroke carry themselves on after the link's outage, and a cycle
reports its strokes."""
import asyncio

from hostd.table import operations
from hostd.table.operations import Build, DoorMove, LiftCycle, SelfTestStroke, failed
from protocol import messages as m


class FakeLink:
    def __init__(self):
        self.now = 0.0
        self.sent = []

    def mark(self):
        return self.now

    def seconds_since(self, mark):
        return self.now - mark

    async def command(self, msgid, values=()):
        self.sent.append((msgid, tuple(values)))


class FakeClient:
    def __init__(self):
        self.link = FakeLink()
        self.state = "idle"
        self.build_id = 4
        self.waits = []

    def expect(self, pred):
        fut = asyncio.get_running_loop().create_future()
        self.waits.append((pred, fut))
        return fut

    def flat_counts(self):
        return [0, 34, 0, 34, 0, 34, 0, 34]


def run(coro):
    return asyncio.run(coro)


def test_a_paused_build_is_resumed_and_a_finished_one_takes_the_tables_counts():
    async def go():
        c = FakeClient()
        b = Build(4, asyncio.get_running_loop().create_future())
        c.state = "paused"
        await b.carry_on(c)
        assert c.link.sent == [(m.BUILD, (4,))]
        c.state = "built"
        await b.carry_on(c)
        assert b.done.result() == (4, (0, 34, 0, 34, 0, 34, 0, 34), None)
        c.build_id = 5  # another build now: this one is not carried on
        other = Build(4, asyncio.get_running_loop().create_future())
        await other.carry_on(c)
        assert not other.done.done()

    run(go())


def test_a_lift_the_outage_stopped_goes_again_and_a_lost_top_event_is_taken_as_come():
    async def go():
        c = FakeClient()
        cycle = LiftCycle(c, open_door=True)
        assert cycle.door_open is not None
        assert cycle.stopped_short("lifting", "idle") and not cycle.stopped_short("idle", "idle")
        await cycle.carry_on(c)
        assert cycle.top.done() and c.link.sent == [(m.LIFT, ())]
        cycle.bottom.set_result((m.LIFT_BOTTOM,))
        await cycle.carry_on(c)  # back at the bottom: nothing more
        assert c.link.sent == [(m.LIFT, ())]
        assert not cycle.stopped_short("lifting", "idle")

    run(go())


def test_a_cycle_reports_its_strokes_once_it_reached_the_top():
    async def go():
        c = FakeClient()
        cycle = LiftCycle(c, open_door=False)
        assert cycle.door_open is None and cycle.health() is None
        c.link.now = 2.5
        cycle.at_top(c)
        cycle.strokes[m.LIFT_TOP] = (2400, 310)
        c.link.now = 4.75
        cycle.lift_done(c, m.LIFT_BOTTOM)
        return cycle.health()

    assert run(go()) == {"type": "lift_stroke", "up_s": 2.5, "down_s": 2.25, "up_ms": 2400,
                         "down_ms": None, "peak_current_up": 310, "peak_current_down": None}


def test_failed_says_a_wait_will_never_come_true():
    async def go():
        loop = asyncio.get_running_loop()
        pending, broken, cancelled = loop.create_future(), loop.create_future(), loop.create_future()
        broken.set_exception(RuntimeError("guard"))
        cancelled.cancel()
        return [failed(f) for f in (None, pending, broken, cancelled)]

    assert run(go()) == [True, False, True, True]


def test_a_door_move_the_outage_stopped_goes_again_and_a_quiet_door_counts_as_there(monkeypatch):
    monkeypatch.setattr(operations, "DOOR_QUIET_S", 0.01)

    async def go():
        c = FakeClient()
        move = DoorMove(c, opening=True)
        pred, fut = c.waits[-1]
        assert pred(m.DOOR_STATE, (m.DOOR_OPEN,)) and not pred(m.DOOR_STATE, (m.DOOR_CLOSED,))

        async def arrives():  # the table moves the door again and says so
            await asyncio.sleep(0)
            fut.set_result((m.DOOR_OPEN,))
        await asyncio.gather(move.carry_on(c), arrives())
        assert c.link.sent == [(m.DOOR, (1,))] and move.there.result() == (m.DOOR_OPEN,)
        await move.carry_on(c)  # there: nothing more
        assert c.link.sent == [(m.DOOR, (1,))]
        quiet = DoorMove(c, opening=False)  # it got there before the outage: no word comes
        await quiet.carry_on(c)
        assert c.link.sent[-1] == (m.DOOR, (0,)) and quiet.there.result() == (m.DOOR_CLOSED,)

    run(go())


def test_a_self_test_stroke_whose_result_was_lost_is_asked_again():
    async def go():
        c = FakeClient()
        stroke = SelfTestStroke(c, m.D_STACKER, 2)
        pred, _ = c.waits[-1]
        assert pred(m.SELF_TEST_RESULT, (m.D_STACKER, 2, 0, 0))
        assert not pred(m.SELF_TEST_RESULT, (m.D_STACKER, 3, 0, 0))
        await stroke.carry_on(c)
        assert c.link.sent == [(m.SELF_TEST, (m.D_STACKER, 2))]
        stroke.done.set_result((m.D_STACKER, 2, 0, 0))
        await stroke.carry_on(c)
        assert c.link.sent == [(m.SELF_TEST, (m.D_STACKER, 2))]

    run(go())
