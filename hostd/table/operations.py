"""The table's operations in progress (layer: table client): each owns its progress and
its completion, so the client can carry it on after the link's outage, take it again
after a stop, or bring it to its end after the daemon restarted.

* :class:`Build`: one build; done when the table's BUILD_DONE for it comes.
* :class:`LiftCycle`: a hand over's lift cycle (the door opened with it, the walls up,
  the lift back down and the door closed), with the stroke times it measured (table
  health).  ``raise_walls`` starts it, ``settle`` ends it.
* :class:`DoorMove`: one move of the centre door (the push window's, a drop's).
* :class:`SelfTestStroke`: one SELF_TEST (a stroke that clears a ramp, a reading).

(The push window and the empty's rounds are the session's: their progress is in its
state, `until` and `round`, which the journal keeps.)

An operation's futures come from the client's ``expect`` (resolved by an event, failed
by a FAULT); ``interrupted`` marks one whose events the link may have lost, which the
client's reconcile carries on.  After a restart of the daemon no operation exists: the
journal says where the session was, and the client's ``settle`` with no cycle brings the
lift to the bottom itself.
"""
import asyncio

from protocol import messages as m

#: seconds a door move sent again waits for a word: the table reports the door only when
#: it changes, so one already there (its event lost with the link, or before a restart of
#: the daemon) is quiet
DOOR_QUIET_S = 3.0


def failed(fut):
    """A wait that will never come true: none, cancelled, or ended by a fault."""
    return fut is None or fut.cancelled() or (fut.done() and fut.exception() is not None)


class Build:
    kind = "build"

    def __init__(self, build_id, done):
        self.id = build_id
        self.done = done  # the BUILD_DONE event (its values)
        self.interrupted = False

    async def carry_on(self, client):
        """After the link came back: resume the paused build, or take the counts of one
        that finished while the link was down."""
        if client.build_id != self.id or self.done.done():
            return
        if client.state == "paused":
            await client.link.command(m.BUILD, (self.id,))
        elif client.state == "built":
            self.done.set_result((self.id, tuple(client.flat_counts()), None))



class LiftCycle:
    kind = "raise"

    def __init__(self, client, *, open_door):
        self.top = client.expect(lambda i, v: i == m.LIFT_DONE and v[0] == m.LIFT_TOP)
        self.bottom = client.expect(lambda i, v: i == m.LIFT_DONE and v[0] == m.LIFT_BOTTOM)
        self.door_open = (client.expect(lambda i, v: i == m.DOOR_STATE and v[0] == m.DOOR_OPEN)
                          if open_door else None)
        self.interrupted = False
        self.started = client.link.mark()
        self.top_at = None  # when the lift reached the top (a mark)
        self.up_s = None
        self.down_s = None
        self.strokes = {}  # LIFT_STROKE by position: (ms, peak current)

    def at_top(self, client):
        self.top_at = client.link.mark()
        self.up_s = client.link.seconds_since(self.started)

    def lift_done(self, client, position):
        if position == m.LIFT_BOTTOM and self.top_at is not None:
            self.down_s = client.link.seconds_since(self.top_at)

    def stopped_short(self, was, now):
        """The lift stopped before the bottom with no fault (the table lost the link for
        less than the host's own silence limit)."""
        return was == "lifting" and now in ("idle", "built") and not self.bottom.done()

    async def carry_on(self, client):
        """After the link came back: the top's event may be what was lost; a lift the
        outage stopped goes again."""
        if self.bottom.done():
            return
        if client.state == "idle" and not self.top.done():
            self.top.set_result((m.LIFT_TOP,))  # it got there; the event was lost
        if client.state in ("built", "idle"):
            await client.link.command(m.LIFT, ())

    def health(self):
        """The ``lift_stroke`` event of a cycle that reached the top (table health), or
        None: the daemon's stroke times and the table's own (LIFT_STROKE)."""
        if self.top_at is None:
            return None
        up_t, down_t = self.strokes.get(m.LIFT_TOP), self.strokes.get(m.LIFT_BOTTOM)
        return {"type": "lift_stroke", "up_s": round(self.up_s, 3),
                "down_s": None if self.down_s is None else round(self.down_s, 3),
                "up_ms": up_t[0] if up_t else None,
                "down_ms": down_t[0] if down_t else None,
                "peak_current_up": up_t[1] if up_t else None,
                "peak_current_down": down_t[1] if down_t else None}


class DoorMove:
    """The centre door to open or closed: done when the table reports it there."""

    kind = "door"

    def __init__(self, client, *, opening):
        self.opening = bool(opening)
        self.want = m.DOOR_OPEN if opening else m.DOOR_CLOSED
        self.there = client.expect(lambda i, v: i == m.DOOR_STATE and v[0] == self.want)
        self.interrupted = False

    async def carry_on(self, client):
        """After the link came back (its outage stopped the door): the move again; a door
        that got there before the outage is quiet, and counts as there."""
        if self.there.done():
            return
        await client.link.command(m.DOOR, (1 if self.opening else 0,))
        try:
            await asyncio.wait_for(asyncio.shield(self.there), DOOR_QUIET_S)
        except asyncio.TimeoutError:
            if not self.there.done():
                self.there.set_result((self.want,))


class SelfTestStroke:
    """One SELF_TEST of a device (index: its track, or 0): done with its result."""

    kind = "self_test"

    def __init__(self, client, device, index):
        self.device, self.index = device, index
        self.done = client.expect(lambda i, v: i == m.SELF_TEST_RESULT and v[0] == device
                                  and v[1] == index)
        self.interrupted = False

    async def carry_on(self, client):
        """After the link came back: its result may be what was lost; asked again (a
        stroke once more, or a reading)."""
        if not self.done.done():
            await client.link.command(m.SELF_TEST, (self.device, self.index))
