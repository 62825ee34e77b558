"""A session after the daemon restarted (layer: session): restored from the journal as it
was committed, then carried on from where the table is (docs/FAULTS.md "Daemon
killed").  Walls inside are trusted only if the same boot of the table built them.

Journals written before the one state (schema 3 and older phases: ``resplit_pending``,
``swap_pending`` ...) are read too: :func:`state_from_journal` turns an old phase into
the state it meant.
"""
from hostd.rules.dice import announcement
from hostd.core.state import DECKS, UNKNOWN, Stage, State, other
from hostd.errors import NotReady
from hostd.table.client import TableFault
from protocol.messages import F_RESET


def state_from_journal(phase, data):
    """The state a journalled phase stands for (``data``: its phase_data)."""
    if isinstance(data.get("state"), dict):
        return State.from_dict(data["state"])
    hand, top, inside = data.get("hand", 0), data.get("top"), data.get("inside")
    game = data.get("game", 1)
    if phase == "preparing":
        return State("preparing", {"game": game, "stage": Stage.START,
                                   "before": data.get("where") or {d: UNKNOWN for d in DECKS}})
    if phase == "building":
        return State("building", {"deck": inside or "A", "top": top, "hand": hand, "game": game,
                                  "stage": Stage.BUILD})
    if phase == "built":
        return State("built", {"deck": inside or "A", "top": top, "hand": hand, "game": game})
    if phase == "hand_over":
        return State("hand_over", {"raising": inside, "dropping": top, "hand": hand,
                                   "game": game, "stage": Stage.RAISE})
    if phase == "resplit_pending":
        return State("recovering", {"kind": "resplit",
                                    "stage": Stage.WAITING if top else Stage.RESPLIT,
                                    "top": top, "hand": hand, "game": game,
                                    "faults": list(data.get("faults") or ())})
    if phase == "swap_pending":
        stage = data.get("stage", Stage.RAISE)
        ready = bool(data.get("ready"))
        if stage == Stage.RAISE:
            stage = Stage.WAITING if ready else Stage.DRAIN
        return State("recovering", {"kind": "swap", "stage": stage, "deck": data.get("deck") or "A",
                                    "top": top, "hand": hand, "game": game, "ready": ready,
                                    "known": data.get("known"),
                                    "faults": list(data.get("faults") or ())})
    return None  # a phase no resume knows: stopped for a person


def plan_from_state(st):
    """The plan that carries on a `preparing` state a restarted daemon found: every tile
    collected again (the walls inside come up, the centre opens), and the stray, if people
    were to find one (reason stray), still to find."""
    plan = {"raise": True, "window": True, "before": {d: UNKNOWN for d in DECKS}}
    if st.get("reason") == "stray":
        plan["stray"] = st.get("colour")
    return plan


def last_throw(s):
    """The throw of the hand in play, if it was thrown before the restart."""
    last = s.hands[-1] if s.hands else None
    if last is None or not last["dice"] or last["hand"] != s.hand:
        return None
    return announcement(s.profile, last["dice"], hand=last["hand"], by=last["dice_by"],
                        first_of_game=last["hand"] == s.game_first_hand)


def restore(s, saved):
    """Fill session `s` from `saved` (journal.open_session())."""
    s.journaled = set(saved["decks"])
    for k, v in saved["decks"].items():
        u = v["backs"].get(UNKNOWN, 0)
        s.ranges[k] = {c: [v["backs"].get(c, 0), v["backs"].get(c, 0) + u] for c in s.sets}
        s.decks[k] = {"tiles": v["tiles"], "backs": dict(v["backs"])}
    keys = ("deck", "per_track", "backs", "sim_seconds", "ok")
    s.builds = [{k: b[k] for k in keys} for b in saved["builds"] if b["ok"] is not None]
    s.hands = [{k: h.get(k) for k in ("hand", "game", "split", "deck", "by", "dice", "breaker",
                                      "dice_by", "turnaround_sim_seconds")}
               for h in saved["hands"]]
    games = saved.get("games") or []
    s.games = [{"game": g["game"], "first_hand": g["first_hand"], "decks": g["decks"]}
               for g in games[:-1]]
    s.splits = [{"game": g["game"], "split": sp["split"], "decks": sp["decks"]}
                for g in games for sp in g.get("splits", ())
                if (g["game"], sp["split"]) != (saved.get("game"), saved.get("split"))]
    if games:
        s.game, s.game_first_hand = games[-1]["game"], games[-1]["first_hand"]
    s.split = saved.get("split", 1)
    s.faults = [dict({k: f[k] for k in ("kind", "track", "build", "recovered", "message")},
                     _id=f.get("id")) for f in saved["faults"]]
    s.hand = s.hands[-1]["hand"] if s.hands else 0
    for h in s.hands:  # the seeded dice go on where they were
        if h["dice"]:
            s.dice.roll(s.profile)
    s.throw = last_throw(s)
    data = saved.get("phase_data") or {}
    st = state_from_journal(saved["phase"], data)
    if st is None:
        st = State("stopped", {"step": "resume", "kind": "unresumable", "hand": s.hand,
                               "game": s.game, "fault": {"message": (
                                   "session %s can't be resumed from phase %s"
                                   % (s.id, saved["phase"]))}})
    s.m.restore(st)
    s.saved = saved


async def resume(s):
    """Carry on from the restored state (the session's lock is held)."""
    saved = s.saved
    data = saved.get("phase_data") or {}
    ident = s.table.identity or {}
    same_boot = data.get("boot") is not None and data.get("boot") == ident.get("boot_nonce")
    st = s.state
    s.emit("session_resumed", state=st.name, hand=s.hand)
    if st.name == "stopped":
        return "stopped"  # what people must do has not changed
    if st.name == "preparing":  # cut while the tiles were brought together
        # whatever the state says is left, a restart may have left walls anywhere (people
        # finding a stray: they still are)
        await s.run_plan(plan_from_state(st))
        return "resumed"
    if st.name == "recovering":
        return await _resume_recovery(s, st)
    began = st.name == "hand_over" and any(h["hand"] == st["hand"] for h in s.hands)
    if not same_boot and st.name in ("building", "built", "hand_over") and not began:
        return await _untrusted(s, st, saved.get("unfinished_build"))
    if st.name == "built":
        return "ready"
    if st.name == "building":
        return await _resume_build(s, st, saved.get("unfinished_build"))
    if st.name == "hand_over":
        if not began:  # the walls may be on their way up: raise them (again)
            await s.repeat_hand_over(st)
            return "resumed"
        # the hand began: bring the lift down, close the door, rebuild inside
        raised, dropped = st["raising"], st.get("dropping")
        await s.table.settle_after_restart()
        await s.rebuild_inside(dropped if dropped is not None else other(raised), top=raised)
        return "resumed"
    raise NotReady("session %s can't be resumed from %s: abort and start again"
                   % (s.id, st.name), code="unresumable")


async def _resume_recovery(s, st):
    p = st.params
    if p["kind"] == "resplit":
        if p["stage"] == Stage.RESPLIT:
            await s.recovery.carry_on(st)
        elif p["stage"] == Stage.HAND_OVER:  # the hand over it was at is lost with the daemon
            s.to_state("recovering",
                       **dict(p, stage=Stage.WAITING if p.get("top") else Stage.RESPLIT))
            if not p.get("top"):
                await s.recovery.carry_on(s.state)
        return "resplit"
    if p["stage"] == Stage.DRAIN:  # the drain was cut: its counts are gone
        raise NotReady("session %s can't be resumed: the daemon stopped while the table's "
                       "tiles were being moved onto its tracks: abort and start again" % s.id,
                       code="unresumable")
    if p["stage"] == Stage.BUILD:
        raise NotReady("session %s can't be resumed: the daemon stopped while deck %s was "
                       "being built, with deck %s on the table top: abort and start again"
                       % (s.id, other(p["deck"]), p["deck"]), code="unresumable")
    if p["stage"] == Stage.DROP:
        await s.recovery.carry_on(st)
        return "resumed"
    if p["stage"] == Stage.RAISE:  # cut on its way up: the next hand over raises again
        s.to_state("recovering", **dict(p, stage=Stage.WAITING))
    return "swap"


async def _untrusted(s, st, unfinished):
    """Walls inside built by another boot of the table: never trusted."""
    if unfinished:
        rec = {"deck": unfinished["deck"], "per_track": [0] * len(s.targets),
               "backs": {}, "sim_seconds": None, "ok": False}
        s.builds.append(rec)
        s.journal.build_finished(s.id, unfinished["build"], rec)
    top = st.get("dropping") if st.name == "hand_over" else st.get("top")
    deck = st.get("raising") if st.name == "hand_over" else st.get("deck")
    if not s.mixed_deck and st.name == "building":
        # the tracks' counts died with the daemon and the table: no drain
        msg = ("the table restarted while the daemon was away, during a build: the walls "
               "inside can't be accounted for, and the sets can't be separated again by the "
               "table: sort them by back colour, load the %s set and start a new session"
               % s.sets[0])
        s.record_fault("reset", None, len(s.builds), msg)
        raise TableFault(F_RESET, 0, 0, msg)
    await s.recovery.after_reset(TableFault(F_RESET, 0), deck=deck, drain=False, top=top)
    return "resplit" if s.mixed_deck else "swap"


async def _resume_build(s, st, unfinished):
    deck, top = st["deck"], st.get("top")
    first_split = s.mixed_deck and not s.decks and top is None
    if unfinished and s.table.build_id == unfinished["build"]:
        record = await s.build(deck, expect_empty=not first_split, resume="paused",
                               split=first_split)
    else:  # killed before the table got the build: start it now
        if first_split or (deck == "A" and not s.hands):
            await s.build_first(top=top)
            return "resumed"
        record = await s.build(deck, expect_empty=True)
    if first_split:
        await s.splitter.finish_first(record)
    else:
        s.to_state("built", deck=deck, top=top, hand=s.hand)
    return "resumed"
