"""The daemon: link + table client + session + journal, behind the API (layer: session).

One asyncio loop.  The link task pumps the serial line; session steps (bringing the tiles
together, a build, a hand over, a recovery) run as one background task at a time, so the
API answers at once and progress arrives as events.

Every operator command (start, hand over, continue, clear fault, end, abort) is taken
under one lock before anything is awaited, so commands are serialised; each either
starts its step and answers, or is refused with the reason and the next step (a
JantakuError: the API's status and message, the CLI's exit status 1).  While the table is
not connected, commands that move motors are refused at once (503).  `status()` always
carries `next`: what happens next, or what a person must do.
"""
import asyncio

import structlog

from hostd import rulesets
from hostd.dice import Dice
from hostd.errors import BadRequest, JantakuError, NotReady
from hostd.link import CommandRejected, LinkClient, TableGone
from hostd.session import ASK, INSIDE, PUSH_WINDOW_S, STUCK, Session
from hostd.table import TableClient

log = structlog.get_logger("jantaku.daemon")

START = "start a session: `jantaku session start --ruleset R` (add --mixed-deck to mix both sets)"


class Daemon:
    def __init__(self, *, transport, journal, colours=("blue", "green"), seed=None, resume=True,
                 push_window=PUSH_WINDOW_S):
        self.journal = journal
        self.colours = tuple(colours)
        self.seed = seed  # dice from a seed (demos, the simulator) or None: cryptographic
        self.resume = resume  # carry on the journal's open session (a real table)
        self.push_window = push_window
        self.link = LinkClient(transport, on_event=self._on_table_event,
                               on_change=self._on_link_change)
        self.table = TableClient(self.link, colours=self.colours, on_event=self.publish)
        self.session = None
        self.known = None  # where the last session left the tiles, for the next start
        self.abort_pending = None  # {"session": id} while an abort waits for the table
        self.last_end = None  # how the last session ended: {"id", "how", "reason"}
        self._step = None  # the running step (task)
        self._step_name = None
        self._subscribers = set()
        self._tasks = []
        self._lock = asyncio.Lock()  # one operator command at a time

    # -- plumbing -------------------------------------------------------------------------
    def _on_table_event(self, msgid, values):
        self.table.on_event(msgid, values)

    def _on_link_change(self, what, detail):
        self.table.link_changed(what, detail)  # it asks the table where it is
        self.publish({"type": "link", "what": what,
                      "detail": detail if isinstance(detail, str) else None})
        if what in ("connected", "up", "reset") and self.abort_pending is not None:
            self._tasks.append(asyncio.create_task(self._send_pending_abort()))

    def publish(self, event):
        for q in list(self._subscribers):
            if q.qsize() < 1000:  # a stalled client loses events, never the daemon
                q.put_nowait(event)
        kind = event.get("type")
        if kind not in ("tile", "build_progress") and self.session is not None and self.session.id:
            self.journal.event(self.session.id, kind, **{k: v for k, v in event.items()
                                                         if k not in ("type", "session")})

    async def subscribe(self):
        q = asyncio.Queue()
        self._subscribers.add(q)
        try:
            while True:
                yield await q.get()
        finally:
            self._subscribers.discard(q)

    async def start(self):
        self._tasks.append(asyncio.create_task(self.link.run(), name="link"))
        saved = self.journal.open_session()
        if saved is not None and not self.resume:
            self.journal.end_session(saved["id"], "aborted",
                                     reason="the simulated table started afresh")
        elif saved is not None:
            self._restore(saved)
        if self.session is None and self.resume:
            last = self.journal.last_session()
            if last is not None:
                self.known = {"mixed_deck": last["mixed_deck"], "sets": last["sets"],
                              "where": (last.get("phase_data") or {}).get("where")}

    def _restore(self, saved):
        """The session the journal says is open: restore it and, once the table answers,
        carry on where the table is (a restart after a crash, kill -9 or power cut)."""
        try:
            profile = rulesets.get_ruleset(saved["ruleset"])
        except Exception as e:
            self.journal.end_session(saved["id"], "failed", reason="cannot restore: %s" % e)
            return
        self.session = Session.restore(saved, table=self.table, journal=self.journal,
                                       profile=profile, dice=Dice(saved.get("seed")),
                                       on_event=self.publish)
        self.session.push_window = self.push_window
        log.info("resuming session", session=saved["id"], phase=saved["phase"])

        async def resume():
            await self.link.wait_connected()
            await self.table.query_status()
            return await self.session.resume()

        self._run_step("resume", resume())

    async def close(self):
        self.link.stop()
        if self._step is not None:
            self._step.cancel()
        for t in self._tasks:
            t.cancel()
        await asyncio.gather(*self._tasks, *([self._step] if self._step else []),
                             return_exceptions=True)
        await self.table.close()
        self.journal.close()

    # -- what a person sees -----------------------------------------------------------------
    def rulesets(self):
        """Every ruleset, each with ``table``: whether the connected table can build it
        (``{"can_build": false, "why": "..."}``), or None while no table is connected."""
        ident = self.table.identity if self.link.connected else None
        out = []
        for p in rulesets.list_rulesets():
            item = p.summary()
            item["table"] = None
            if ident is not None:
                try:
                    rulesets.check_fits(p, ident["max_stacks"], ident["tracks"])
                    item["table"] = {"can_build": True, "why": None}
                except (rulesets.TableFitError, ValueError) as e:
                    item["table"] = {"can_build": False, "why": str(e)}
            out.append(item)
        return out

    def status(self):
        s = self.session
        sess = None
        nxt = self.next_step()
        if s is not None:
            summ = s.summary()
            where = s.where()
            decks = {d: dict(summ["decks"].get(d, {}), where=where[d]) for d in sorted(where)}
            sess = {"id": summ["id"], "ruleset": summ["ruleset"], "mixed_deck": summ["mixed_deck"],
                    "hand": summ["hand"], "decks": decks, "builds": summ["builds"],
                    "hands": summ["hands"], "faults": summ["faults"],
                    "busy": self._step_name if self._busy() else None,
                    "phase": s.phase, "asking": s.asking, "stopped": s.stopped, "next": nxt}
        return {"table": self.table.get_status(), "session": sess, "next": nxt,
                "busy": self._step_name if self._busy() else None,
                "abort_pending": self.abort_pending is not None, "last_end": self.last_end}

    def next_step(self):
        """What happens next, or what a person must do: one sentence, never empty."""
        t = self.table
        if self.abort_pending is not None:
            return ("the abort is not confirmed yet: it is sent again as soon as the table is "
                    "connected (%s)" % (self.link.error or "reconnecting"))
        if not self.link.connected:
            return ("the table is not connected (%s): check its cable and power; the daemon "
                    "reconnects by itself" % (self.link.error or "waiting for it"))
        s = self.session
        if s is None:
            if self._busy():
                return "bringing the walls inside up to the table top: wait"
            if self.known and self._step_name == "empty" and not self._step.cancelled():
                return ("the walls are on the table top: take the tiles out, or " + START)
            if t.state == "fault" and t.fault:
                what = ASK.get(t.fault["kind"], "fix it, then `jantaku clear-fault`")
                return "the table reports a fault: %s: %s" % (t.fault["message"], what.format(
                    deck="?", track=t.fault.get("track") or "?"))
            return START
        if s.asking:
            return s.asking
        if s.stopped:
            return "%s: %s" % (s.stopped["message"], s.stopped["ask"])
        progress = " (%d of %d tiles)" % (sum(t.per_track()), sum(t.targets)) if t.targets else ""
        playing = "hand %d is being played; " % s.hand if s.hand and s.top else ""
        if self._busy():
            if s.phase == "preparing":
                return "bringing every tile into the mixer: wait"
            if s.phase == "building":
                return "%sdeck %s is being built inside%s: wait" % (playing, s.building or "?",
                                                                  progress)
            if s.phase == "hand_over":
                return "raising the walls for hand %d: wait" % (s.hand + 1)
            if s.phase is None:
                return "getting the table ready for the session: wait"
            return "the table is busy (%s): wait" % self._step_name
        if s.phase == "built" and s.inside:
            if s.hand == 0:
                return ("deck %s is built inside: press start (`jantaku hand-over`) to raise it "
                        "and begin hand 1" % s.inside)
            return ("%sdeck %s is built inside: when the hand ends, push the played tiles into "
                    "the centre and press start (`jantaku hand-over`)" % (playing, s.inside))
        if s.phase in ("resplit_pending", "swap_pending"):
            return ("%sthe walls inside are not trusted after a table restart: press start "
                    "(`jantaku hand-over`) when the hand ends; the table sorts it out"
                    % playing)
        return "session %s is %s: `jantaku abort` ends it" % (s.id, s.phase)

    # -- the steps --------------------------------------------------------------------------
    def _busy(self):
        return self._step is not None and not self._step.done()

    def _run_step(self, name, coro):
        async def step():
            try:
                return await coro
            except asyncio.CancelledError:
                raise
            except Exception as e:  # reported, never silent: status says what to do
                s = self.session
                if s is not None:
                    s.on_stopped(name, e)
                if isinstance(e, JantakuError):
                    log.warning("step stopped", step=name, error=str(e))
                else:
                    log.exception("step failed", step=name)
                self.publish({"type": "step_failed", "step": name, "message": str(e),
                              "next": self.next_step()})

        self._step_name = name
        self._step = asyncio.create_task(step(), name=name)
        return self._step

    async def _cancel_step(self):
        if self._busy():
            self._step.cancel()
            await asyncio.gather(self._step, return_exceptions=True)

    async def bench_step(self, name, work):
        """A self-test or a calibration (hostd/bringup.py): only with no session open and
        nothing running; it runs as the daemon's step (status says busy) and answers with
        its report.  work(daemon) is the coroutine function."""
        async with self._lock:
            self._require_table()
            if self.session is not None:
                raise NotReady("session %s is open: end it first (`jantaku session end`), then %s"
                               % (self.session.id, name), code="session_open")
            self._refuse_busy("wait for it to finish")
            self._step_name = name
            self._step = asyncio.create_task(work(self), name=name)
            step = self._step
        return await asyncio.shield(step)  # a client that leaves does not stop a motion half-way

    def table_health(self):
        """Trends per track and of the lift, from the journal (hostd/health.py), against
        the connected board's profile."""
        from hostd import boardfile, health

        profile = None
        ident = self.table.identity
        if ident is not None:
            try:
                profile = boardfile.load(ident["board"])[0]
            except JantakuError:
                profile = None
        return health.table_health(self.journal, profile)

    def _require_table(self):
        if not self.link.connected:
            raise TableGone("the table is not connected (%s): nothing can move until it is; "
                            "check its cable and power" % (self.link.error or "waiting for it"))

    def _refuse_busy(self, what):
        if self._busy():
            raise NotReady("the table is busy (%s): %s" % (self._step_name, what), code="busy")

    def _ended(self, s, how, reason):
        where = s.where()
        try:
            self.journal.phase(s.id, "ended", where=where)
        except JantakuError:
            pass  # already ended
        self.journal.end_session(s.id, how, reason=reason)
        self.known = {"mixed_deck": s.mixed_deck, "sets": list(s.sets), "where": where}
        self.last_end = {"id": s.id, "how": how, "reason": reason}
        if self.session is s:
            self.session = None
        self.publish({"type": "session_ended", "session": s.id, "how": how, "reason": reason})

    @staticmethod
    def _open_fault(s):
        if s.stopped:
            return s.stopped["message"]
        left = [f for f in s.faults if not f["recovered"]]
        return left[-1]["message"] if left else None

    # -- the API's verbs --------------------------------------------------------------------
    async def start_session(self, ruleset, mixed_deck=False, seed=None, *, replace=False,
                            loaded=False):
        profile = rulesets.get_ruleset(ruleset)  # BadRequest naming what is accepted
        async with self._lock:
            if self.abort_pending is not None:
                raise NotReady(self.next_step(), code="abort_pending", status=503)
            self._require_table()
            prev = self.session
            if prev is not None and not replace:
                raise NotReady(
                    "session %s (%s%s) is open: end it with `jantaku session end`, abort it "
                    "with `jantaku abort`, or replace it (`session start --replace`)"
                    % (prev.id, prev.profile.name, ", Mixed Deck" if prev.mixed_deck else ""),
                    code="session_open")
            if prev is None:
                self._refuse_busy("wait for it to finish, or `jantaku abort`")
            s = Session(table=self.table, journal=self.journal, profile=profile,
                        mixed_deck=mixed_deck, sets=self.colours,
                        dice=Dice(seed if seed is not None else self.seed),
                        on_event=self.publish, push_window=self.push_window)
            s._check_table()  # refuse (naming both numbers) before ending anything
            known = self.known
            if prev is not None:
                known = {"mixed_deck": prev.mixed_deck, "sets": list(prev.sets),
                         "where": prev.where()}
            plan = s.plan_start(known, loaded=loaded)  # a refusal says what people must do
            if prev is not None:
                await self._cancel_step()
                await self._abort_table()
                how = "failed" if self._open_fault(prev) else "ended"
                self._ended(prev, how, "replaced by a new session" + (
                    ": %s" % self._open_fault(prev) if how == "failed" else ""))
            s.open()  # journals the session: nothing moves before
            self.session = s
            self._run_step("start", s.begin(plan))
            return {"id": s.id, "ruleset": profile.name, "mixed_deck": bool(mixed_deck),
                    "state": "starting", "next": self.next_step()}

    async def hand_over(self):
        async with self._lock:
            s = self.session
            if s is None:
                raise NotReady("no session: " + START, code="no_session")
            self._require_table()
            if s.lift_stopped():
                return await self._recover(s)  # pressed again once the cause is gone: go on
            if s.stopped:
                raise NotReady("the hand over must wait: " + self.next_step(), code="stopped")
            self._refuse_busy("the hand over can come once it is done: " + self.next_step())
            s.check_hand_over()
            self._run_step("hand_over", s.hand_over())
            return {"id": s.id, "hand": s.hand + 1, "state": "hand_over"}

    async def continue_(self):
        """People did what they were asked: close the open centre, or carry on with the
        step that stopped (clearing the table's fault first)."""
        async with self._lock:
            s = self.session
            if s is not None and s.tell_continue():
                return {"continued": "the centre closes", "next": self.next_step()}
            self._require_table()
            if s is None or s.stopped is None:
                if self.table.state == "fault":
                    return await self._clear_table_fault(s)
                raise NotReady("nothing waits for people: " + self.next_step(),
                               code="nothing_to_continue")
            return await self._recover(s)

    async def clear_fault(self):
        """A person fixed the table's fault: clear it, and carry on with what it stopped."""
        async with self._lock:
            self._require_table()
            s = self.session
            if self.table.state != "fault":
                if s is not None and s.stopped is not None:
                    return await self._recover(s)
                raise NotReady("the table has no fault to clear: " + self.next_step(),
                               code="no_fault")
            return await self._clear_table_fault(s)

    async def _clear_table_fault(self, s):
        fault = (self.table.fault or {}).get("message", "its fault")
        try:
            await self.table.clear_fault()
        except CommandRejected:
            ask = (s.stopped or {}).get("ask") if s is not None else None
            raise NotReady("the table keeps its fault: %s is still there%s" % (
                fault, ": " + ask if ask else ""), code="fault_remains") from None
        if s is not None and s.stopped is not None and not self._busy():
            return await self._recover(s)
        return {"cleared": fault, "next": self.next_step()}

    async def _recover(self, s):
        self._refuse_busy("wait for it to finish")
        why = s.can_recover()
        if why:
            raise NotReady(why, code="cannot_continue")
        if self.table.state == "fault":
            await self._clear_table_fault(None)
        step = s.stopped["step"]
        self._run_step(step, s.recover())
        return {"continued": step, "next": self.next_step()}

    async def end_session(self, *, empty=False):
        """End the session normally (failed, with the fault, if one is open); `empty`
        also brings the walls inside up to the table top, so people can take them out."""
        async with self._lock:
            s = self.session
            if s is None and not empty:
                raise NotReady("no session is open: " + START, code="no_session")
            self._refuse_busy("wait for it to finish, or `jantaku abort`")
            if empty:
                self._require_table()
            ended = None
            if s is not None:
                fault = self._open_fault(s)
                how = "failed" if fault else "ended"
                self._ended(s, how, fault or "ended by request")
                ended = {"id": s.id, "how": how}
            if empty:
                self._run_step("empty", self._empty())
            return {"ended": ended, "emptying": bool(empty), "next": self.next_step()}

    async def _empty(self):
        t = self.table
        if t.state == "fault":
            await t.clear_fault()
        await t.query_status()
        known = (self.known or {}).get("where") or {}
        if t.walls_inside() or not known or any(p in STUCK for p in known.values()):
            if t.state == "paused":
                await t.abort()
            await t.bring_walls_up()
        if self.known is not None:
            self.known["where"] = {d: ("top" if p in INSIDE else p) for d, p in known.items()}
        self.publish({"type": "emptied"})

    async def abort(self):
        """Stop every motor and end the session; answers only once the table confirmed
        (an unconfirmed abort stays pending and is sent again when the table is back)."""
        async with self._lock:
            s = self.session
            await self._cancel_step()
            await self._abort_table(pending_for=s)
            if s is not None:
                self._ended(s, "aborted", "aborted by request" + (
                    " (%s)" % self._open_fault(s) if self._open_fault(s) else ""))
            return {"aborted": s.id if s is not None else None, "next": self.next_step()}

    async def _abort_table(self, pending_for=None):
        try:
            if not self.link.connected:
                raise TableGone(self.link.error or "not connected")
            await self.table.abort()
        except TableGone as e:
            self.abort_pending = {"session": pending_for.id if pending_for else None}
            self.publish({"type": "abort_pending", "message": str(e)})
            raise TableGone("the abort is not confirmed by the table (%s): it stays pending and "
                            "is sent again as soon as the table is back; `jantaku status` "
                            "shows it" % e) from None

    async def _send_pending_abort(self):
        async with self._lock:
            if self.abort_pending is None:
                return
            try:
                await self.link.wait_connected(timeout=10)
                await self.table.abort()
            except JantakuError as e:
                log.warning("the pending abort was not confirmed yet", error=str(e))
                return
            self.abort_pending = None
            s = self.session
            if s is not None:
                self._ended(s, "aborted", "aborted by request (confirmed when the table came back)")
            self.publish({"type": "abort_confirmed"})


def default_seed_or(value):
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise BadRequest("seed must be an integer, got %r" % (value,)) from None
