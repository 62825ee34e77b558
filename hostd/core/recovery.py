"""A table that restarted with walls inside (layer: session): its own object, with its own
state (``recovering``: kind resplit or swap, and the stage it is at).

The walls inside are partial (or on their way up) and the firmware's counts are gone with
its memory, so they are never trusted (docs/FAULTS.md "Firmware reset").

  Mixed Deck        they go back into the mixer and, since a deck's tiles can't be told
                    apart from the other's once mixed, both decks are split again: at once
                    with nothing on the table top, else at the hand over (the played deck
                    drops with them).
  normal rotation   the untrusted deck X never goes back in while the other, Y, is there:
                    its tiles still in the mixer go onto the tracks first (a drain build),
                    and at the hand over X goes up as Y drops in, Y is built inside and
                    checked, X drops into the emptied mixer, and the hand over goes on
                    with Y (X is built and checked during that hand).
"""
from hostd.core.codes import describe_backs
from hostd.core.state import Stage, other
from hostd.table.client import TableFault
from protocol.messages import F_RESET

MAX_RESETS = 5  # resets in a row during one recovery before the session gives up
_SAME = object()


class Recovery:
    def __init__(self, session):
        self.s = session
        self.faults = []  # the reset faults this recovery answers (marked recovered at its end)

    def _describe(self, deck):
        return describe_backs(self.s.best_backs(deck))

    def _faults(self):
        st = self.s.state
        if st.name == "recovering":
            return list(st.get("faults") or ())
        return list(self.faults)

    async def after_reset(self, e, *, what=None, deck=None, drain=True, top=_SAME,
                          at_hand_over=False):
        """The table restarted while building (or raising): never trust the walls."""
        s = self.s
        number = len(s.builds)  # the failed build is listed already
        if what is None:
            what = "during build %d" % number
        msg = "the table restarted %s: the walls inside can't be accounted for" % what
        top = s.top if top is _SAME else top
        if not s.mixed_deck:
            await self._swap_after_reset(msg, number, deck, drain, top)
            return
        fid = s.record_fault("reset", None, number, msg + "; both decks will be split again")
        self.faults = self._faults() + [fid]
        stage = Stage.HAND_OVER if at_hand_over else (Stage.WAITING if top else Stage.RESPLIT)
        # (a hand over the reset cut goes on, asked for by whom it was: `by`)
        s.to_state("recovering", kind="resplit", stage=stage, deck=deck, top=top,
                   faults=list(self.faults), by=s.state.get("by"))
        if stage == Stage.RESPLIT:
            await self._resplit_now()

    async def at_hand_over(self, by=None):
        """The hand over a recovery waited for (or the one a reset cut): the recovery,
        then the hand over goes on with the deck it left inside.  `by`: who asked (kept in
        the recovering state, so a recovery a stop cut carries on with it)."""
        s = self.s
        if by is not None:
            s.update_state(by=by)
        st = s.state
        by = st.get("by", "api")
        if st["kind"] == "resplit":
            if st.get("top") is not None or st["stage"] in (Stage.WAITING, Stage.HAND_OVER):
                await self._resplit_at_hand_over()
            else:
                await self._resplit_now(raised_already=True)
        else:
            await self._swap_at_hand_over()
        if s.state.name != "built":
            return None  # a stop, or a recovery that waits again
        return await s.run_hand_over(by=by)

    async def carry_on(self, resume):
        """After a stop (the guard, a jam...) during a recovery: where it was."""
        s = self.s
        s.to_state("recovering", **resume.params)
        self.faults = list(resume.get("faults") or ())
        p = resume.params
        if p["stage"] == Stage.WAITING:
            return None  # it waits for the hand over
        if p["kind"] == "resplit":
            if p["stage"] == Stage.RESPLIT:
                return await self._resplit_now()
            return await self.at_hand_over()
        if p["stage"] == Stage.DRAIN:
            return await self._drain_until_ready(p["deck"])
        return await self.at_hand_over()

    # -- Mixed Deck: split again ---------------------------------------------------------
    async def _resplit_at_hand_over(self):
        """The hand over after a reset: drop the played deck and raise the untrusted
        walls at once, drop those too, and split everything again."""
        s = self.s
        # the state says the hand over is under way before anything is awaited: the
        # command's answer (made as soon as the step awaits) tells what is true
        s.update_state(stage=Stage.HAND_OVER)
        await s.table_ready()
        s.emit("resplit", hand=s.hand + 1)
        await s.table.flush_tracks()
        await s.motion(s.table.raise_walls, open_door=s.state.get("top") is not None)
        await s.table.settle()
        s.update_state(top=None)
        await self._resplit_now(raised_already=True)

    async def _resplit_now(self, raised_already=False):
        s = self.s
        await s.table_ready()
        if not raised_already:  # the partial walls up to the top, then into the mixer
            await s.table.flush_tracks()
            await s.motion(s.table.raise_walls, open_door=False)
            await s.table.settle()
        await s.motion(s.table.drop_top)
        s.splitter.again()  # hostd/core/split.py
        faults = list(self.faults)
        await s.build_first(top=None)  # a reset again: everything back in, split again
        if s.state.name == "built":
            for fid in faults:
                s.mark_recovered(fid)
            self.faults = []

    # -- the normal rotation: swap the decks ----------------------------------------------
    async def _swap_after_reset(self, msg, number, deck, drain, top):
        s = self.s
        x = deck or "A"
        y = other(x)
        fid = s.record_fault("reset", None, number, msg + (
            "; at the hand over they go up as deck %s (%s) drops in, deck %s is built and "
            "checked, and deck %s goes back in to be built again" % (
                y, self._describe(y), y, x)))
        self.faults = self._faults() + [fid]
        # known: what the tracks hold of X by the tile events (the cut build, then drains)
        known = list(s.builds[-1]["per_track"]) if drain and s.builds else None
        s.to_state("recovering", kind="swap", deck=x, top=top,
                   stage=Stage.DRAIN if drain else Stage.WAITING,
                   ready=not drain, known=known, faults=list(self.faults),
                   by=s.state.get("by"))
        await self._drain_until_ready(x)

    async def _drain_until_ready(self, x):
        s = self.s
        for _ in range(MAX_RESETS):
            if s.state["ready"]:
                return
            try:
                await self._drain()
            except TableFault as e:
                if e.fault != F_RESET:
                    raise
                self.faults.append(s.record_fault("reset", None, len(s.builds), (
                    "the table restarted again while its tracks took the rest of deck %s: "
                    "taking the rest again" % x)))
                s.update_state(faults=list(self.faults))
        raise TableFault(F_RESET, 0, 0, "the table restarted %d times in a row: stopped"
                         % MAX_RESETS)

    async def _drain(self):
        """Every tile of the untrusted deck still in the mixer onto the tracks: a build
        whose targets leave each track room for the tiles counted there since the reset
        (from the tile events) and two more (a tile in flight, a half stack); it ends when
        the mixer runs empty, which is the point."""
        s = self.s
        st = s.state
        known = st["known"]
        stacks = (s.table.identity or {}).get("max_stacks") or s.profile.stacks_per_wall
        targets = [max(0, 2 * stacks - n - 2) for n in known]
        await s.table_ready()
        if s.table.state in ("paused", "fault"):
            await s.table.abort()
        await s.table.flush_tracks()
        drain = len(s.builds) + 1
        s.journal.build_started(s.id, drain, st["deck"], targets)
        s.emit("drain", build=drain, targets=targets)
        cut = None
        try:
            await s.table.build(drain, targets, stacks=stacks, expect_empty=True)
        except TableFault as e:
            if e.fault != F_RESET and e.kind != "short":
                raise
            cut = e if e.fault == F_RESET else None
        per = s.table.per_track()
        rec = {"deck": st["deck"], "per_track": per, "backs": s.table.backs(),
               "sim_seconds": None, "ok": False}  # not a deck: the rest of one, untrusted
        s.builds.append(rec)
        s.journal.build_finished(s.id, drain, rec)
        s.update_state(known=[k + n for k, n in zip(known, per)])
        if cut is not None:
            raise cut
        # the drain is over: end it (its tiles stay on the tracks) and stack what is
        # left on the ramps, so the lift takes every tile at the hand over
        await s.table.query_status()
        await s.table.clear_fault_if_any()  # the SHORT that ended it: the point, not a fault
        if s.table.state != "built":  # a complete build stacked its last tile itself
            await s.table.abort()
            await s.table.flush_tracks()
        s.update_state(ready=True, stage=Stage.WAITING)

    async def _swap_at_hand_over(self, depth=0):
        """X up as Y drops in, Y built and checked, X dropped: in stages, so a hand over
        repeated after a stop (the guard, a stall) carries on where it stopped.  A reset
        on the way makes the deck inside untrusted in turn: the swap starts again with
        the roles as they are then."""
        s = self.s
        x = s.state["deck"]
        y = other(x)
        if s.state["stage"] == Stage.WAITING:  # under way at once (the answer says so)
            s.update_state(stage=Stage.RAISE)
        await s.table_ready()
        try:
            if s.state["stage"] in (Stage.WAITING, Stage.RAISE):
                s.update_state(stage=Stage.RAISE)
                s.emit("swap", hand=s.hand + 1, untrusted=x, rebuilt=y)
                # X up as Y (the played deck, or the set waiting on top) drops in
                await s.motion(s.table.raise_walls, open_door=s.state.get("top") is not None)
                await s.table.settle()
                s.update_state(top=x, stage=Stage.BUILD)
            if s.state["stage"] == Stage.BUILD:
                await s.build(y, expect_empty=True)  # checked against Y's known backs
                s.update_state(stage=Stage.DROP)
            await s.motion(s.table.drop_top)  # X into the mixer
        except TableFault as e:
            if e.fault != F_RESET or depth >= MAX_RESETS:
                raise
            stage, top = s.state["stage"], s.state.get("top")
            if stage == Stage.RAISE:  # X on its way up again: X still the untrusted one
                untrusted, drain = x, False
            else:  # Y built (or half built) by a table that restarted: Y is, now
                untrusted, drain, top = y, stage == Stage.BUILD, x
            await self.after_reset(e, what="during the recovery of deck %s" % x,
                                   deck=untrusted, drain=drain, top=top)
            return await self._swap_at_hand_over(depth + 1)
        faults = list(self.faults)
        s.to_state("built", deck=y, top=None, hand=s.hand)
        for fid in faults:
            s.mark_recovered(fid)
        self.faults = []
