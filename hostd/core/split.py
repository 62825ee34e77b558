"""The Mixed Deck split (layer: session; docs/FAULTS.md "Mixed Deck"): both sets are
mixed in the mixer and the table builds deck A from them, then deck B from what is left.
What the split itself decides, besides the builds the session runs:

  the first build   proves it was a split: deck A took every tile in the mixer only when
                    the other set was not in it (``mixer_short``): its walls come up, the
                    centre opens until people say every tile is in, and A is built again
  a stray tile      a tile not of the sets went into walls already built: every tile is
                    collected, people find it on the table top and take it out, and both
                    decks are split again (another split of the game)
  a restart         of the table with walls inside (hostd/core/recovery.py): the walls go
                    back into the mixer and the decks are split again (:meth:`Split.again`)

Each split of a game is journalled (``resplit``, with the decks before it) and kept in
the session's record (``Session.new_split``); each hand says which split it was played on.
"""
from hostd.core.state import DECKS, UNKNOWN, Stage


class Split:
    """The Mixed Deck split's steps of one session, through its public methods."""

    def __init__(self, session):
        self.s = session

    def again(self, **why):
        """The decks are split again: journalled with the decks before, then a new split
        of the game in the session's record."""
        s = self.s
        s.journal.transition(s.id, "resplit", decks_before=s.decks, **why)
        s.new_split(resplit=True)

    async def finish_first(self, record, again=True):
        """The first build of a Mixed Deck split is done (and checked): if the mixer ran
        empty it was no split (False, after asking people for every tile; `again`: build A
        again then); else A is built (True)."""
        s = self.s
        if record.get("mixer_empty"):
            await self._mixer_short()
            if again:
                await s.build_first(top=None)
                return True
            return False
        s.to_state("built", deck="A", top=None, hand=s.hand)
        return True

    async def _mixer_short(self):
        s = self.s
        fid = s.record_fault("mixer-short", None, len(s.builds),
                             "deck A took every tile in the mixer: the two sets were not both "
                             "in it; its walls come up and every tile must go into the centre")
        before = {"A": "inside", "B": UNKNOWN}
        s.to_state("preparing", stage=Stage.RAISE, reason="mixer_short", before=before,
                   raise_walls=True, push_window=True)
        await s.motion(s.table.bring_walls_up)
        s.update_state(before={"A": "top", "B": UNKNOWN}, raise_walls=False)
        await s.push_in("preparing", stage=Stage.PUSH, timed=False)
        s.update_state(stage=Stage.START, before={d: "mixer" for d in DECKS},
                       push_window=False)
        s.mark_recovered(fid)

    async def resplit_stray(self, colour, fault_ids):
        """A tile not of the sets went into walls already built (a `stray` stop): the table
        can't tell which tile, so every tile is collected as for a new game (the walls
        inside come up, the centre shut), people find the stray on the table top (a face
        with a copy too many among the `colour` backs) and take it out, then push every
        tile into the centre (the one left in the mixer is of the sets: it stays), and
        both decks are split again (another split of the game, as after a restart).  The
        hand in play, if any, ends here."""
        s = self.s
        before = s.where()
        self.again(reason="stray")
        if s.table.state in ("paused", "fault"):  # the stopped build is over: forget it
            await s.table.abort()
        await s.run_plan({"raise": True, "window": True, "before": before, "stray": colour})
        if s.state.name == "built":
            for fid in fault_ids or ():
                s.mark_recovered(fid)

    async def find_stray(self, colour):
        """People's step with every tile on the table top and the centre shut: find the
        tile not of the sets (its back `colour`) and take it out, until `continue`."""
        s = self.s
        await s.await_people(stage=Stage.FIND, reason="stray", colour=colour)
        if s.state.name == "preparing" and s.state.get("stage") == Stage.FIND:
            s.update_state(stage=Stage.START, reason=None, colour=None)
