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

from hostd.core import rulesets
from hostd.core.dice import Dice
from hostd.errors import JantakuError, NotReady
from hostd.table.link import CommandRejected, LinkClient, TableGone
from hostd.core.session import ASK, PUSH_WINDOW_S, STUCK, Session, check_sets
from hostd.table.client import TableClient

log = structlog.get_logger("jantaku.daemon")

START = "start a session: `jantaku session start --ruleset R` (add --mixed-deck to mix both sets)"


KEEP_DAYS = 90  # days an ended session keeps its event detail in the journal
MAX_EMPTY_ROUNDS = 4  # drain rounds of `session end --empty` (two sets fill two rounds)


class Subscription:
    """One listener's events: an async iterator over its own queue (a stalled listener
    loses events, never the daemon: Daemon.publish).  ``end()`` ends the iteration after
    the events already queued (an HTTP server that stops ends its event streams so);
    ``aclose()``, or the iteration cancelled, stops the listening."""

    _END = object()

    def __init__(self, subscribers):
        self._subscribers = subscribers
        self._queue = asyncio.Queue()
        subscribers.add(self._queue)

    def __aiter__(self):
        return self

    async def __anext__(self):
        if self._queue is None:
            raise StopAsyncIteration
        try:
            ev = await self._queue.get()
        except BaseException:  # cancelled: the listener is gone
            self._stop()
            raise
        if ev is self._END:
            self._stop()
            raise StopAsyncIteration
        return ev

    def end(self):
        if self._queue is not None:
            self._queue.put_nowait(self._END)

    def _stop(self):
        if self._queue is not None:
            self._subscribers.discard(self._queue)
            self._queue = None

    async def aclose(self):
        self._stop()


class Daemon:
    def __init__(self, *, transport, journal, colours=("blue", "green"), seed=None, resume=True,
                 push_window=PUSH_WINDOW_S, keep_days=KEEP_DAYS, journal_max_bytes=None):
        self.journal = journal
        self.colours = tuple(colours)
        self.seed = seed  # dice from a seed (demos, the simulator) or None: cryptographic
        self.resume = resume  # carry on the journal's open session (a real table)
        self.push_window = push_window
        self.keep_days = keep_days  # the journal's retention (Journal.prune)
        self.journal_max_bytes = journal_max_bytes
        self.link = LinkClient(transport, on_event=self._on_table_event,
                               on_change=self._on_link_change)
        self.table = TableClient(self.link, colours=self.colours, on_event=self.publish,
                                 on_button=self._pressed)
        self.session = None
        self.known = None  # where the last session left the tiles, for the next start
        self.abort_pending = None  # {"session": id} while an abort waits for the table
        self.last_end = None  # how the last session ended: {"id", "how", "reason"}
        self.asking = None  # what people are asked while no session is open (emptying)
        self._people_done = asyncio.Event()  # `continue` while they are asked
        self._step = None  # the running step (task)
        self._step_name = None
        self._subscribers = set()
        self._tasks = []
        self._lock = asyncio.Lock()  # one operator command at a time
        self._light_shown = "auto"  # the host pattern last sent to the status light
        self.reporters = {}  # name -> get_status(): more parts of status() (e.g. "mqtt")

    # -- plumbing -------------------------------------------------------------------------
    def _on_table_event(self, msgid, values):
        self.table.on_event(msgid, values)

    def _light_wanted(self):
        """The status light's host pattern (docs/FIRMWARE.md "The status light"): people
        are asked, or the hand's walls are up without a throw; else the firmware's own."""
        s = self.session
        if s is None:
            return "auto"
        if s.asking or s.stopped:
            return "people"
        if s.hands and s.throw is None and s.top == s.hands[-1]["deck"] and s.hand:
            return "dice"
        return "auto"

    def _light(self, pattern=None):
        """Send the light's pattern when it changes (`refused`: a one-shot, always)."""
        want = pattern or self._light_wanted()
        if want == self._light_shown and want != "refused":
            return
        if want != "refused":
            self._light_shown = want
        if not self.link.connected:
            return  # the table client sends the last pattern again when it is back
        self._spawn(self._send_light(want))

    async def _send_light(self, pattern):
        try:
            await self.table.set_light(pattern)
        except JantakuError as e:  # the light is a courtesy: never a step's failure
            log.info("the status light was not set", pattern=pattern, error=str(e))

    def _pressed(self, button):
        """The table's start or dice button was pressed: one press, one action."""
        self._spawn(self._on_button(button))

    def _spawn(self, coro):
        """A task of the daemon's (cancelled by close()); finished ones are let go."""
        self._tasks = [t for t in self._tasks if not t.done()]
        self._tasks.append(asyncio.create_task(coro))

    def _on_link_change(self, what, detail):
        self.table.link_changed(what, detail)  # it asks the table where it is
        self.publish({"type": "link", "what": what,
                      "detail": detail if isinstance(detail, str) else None})
        if what in ("connected", "up", "reset") and self.abort_pending is not None:
            self._tasks.append(asyncio.create_task(self._send_pending_abort()))

    def publish(self, event):
        if event.get("type") not in ("tile", "build_progress"):
            self._light()
        for q in list(self._subscribers):
            if q.qsize() < 1000:  # a stalled client loses events, never the daemon
                q.put_nowait(event)
        kind = event.get("type")
        if kind not in ("tile", "build_progress") and self.session is not None and self.session.id:
            self.journal.event(self.session.id, kind, **{k: v for k, v in event.items()
                                                         if k not in ("type", "session")})

    def subscribe(self):
        """The daemon's events from now on, in order, for one listener (`async for`)."""
        return Subscription(self._subscribers)

    async def start(self):
        self._tasks.append(asyncio.create_task(self.link.run(), name="link"))
        self._tasks.append(asyncio.create_task(self._prune_every(), name="prune"))
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

    async def _prune_every(self, hours=6.0):
        """The journal's retention, at start and every few hours (docs/ARCHITECTURE.md
        "Journal retention"): an SD card's journal does not grow without bound."""
        while True:
            try:
                removed = self.journal.prune(keep_days=self.keep_days,
                                             max_bytes=self.journal_max_bytes)
                if removed["events"] or removed["sessions"]:
                    log.info("journal pruned", **removed)
            except JantakuError as e:
                log.warning("journal not pruned", error=str(e))
            await asyncio.sleep(hours * 3600)

    def history(self, limit=20, before=None):
        """Past sessions from the journal, newest first (Journal.history)."""
        return {"sessions": self.journal.history(limit=limit, before=before),
                "keep_days": self.keep_days}

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
            decks = {d: dict(summ["decks"].get(d, {}), where=where[d],
                             colours_checked=summ["colours_checked"]) for d in sorted(where)}
            sess = {"id": summ["id"], "ruleset": summ["ruleset"], "mixed_deck": summ["mixed_deck"],
                    "sets": summ["sets"], "colours_checked": summ["colours_checked"],
                    "game": summ["game"], "game_hand": summ["game_hand"], "games": summ["games"],
                    "hand": summ["hand"], "decks": decks, "builds": summ["builds"],
                    "hands": summ["hands"], "faults": summ["faults"], "dice": summ["dice"],
                    "busy": self._step_name if self._busy() else None,
                    "phase": s.phase, "asking": s.asking, "stopped": s.stopped, "next": nxt}
        out = {"table": self.table.get_status(), "session": sess, "next": nxt,
               "busy": self._step_name if self._busy() else None,
               "abort_pending": self.abort_pending is not None, "last_end": self.last_end}
        out.update((name, get()) for name, get in self.reporters.items())
        return out

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
            if self.asking:
                return self.asking
            if self._busy():
                return "bringing the tiles up to the table top: wait"
            if self.known and self._step_name == "empty" and not self._step.cancelled():
                return ("the walls are on the table top: take the tiles out, or " + START)
            if t.state == "fault" and t.fault:
                what = ASK.get(t.fault["kind"], "fix it, then `jantaku clear-fault`")
                return "the table reports a fault: %s: %s" % (t.fault["message"], what.format(
                    deck="?", track=t.fault.get("track") or "?"))
            return START
        if s.asking:
            return s.asking
        if s.stopped and not self._recovering():
            return "%s: %s" % (s.stopped["message"], s.stopped["ask"])
        progress = " (%d of %d tiles)" % (sum(t.per_track()), sum(t.targets)) if t.targets else ""
        playing = "hand %d is being played; " % s.hand if s.hand and s.top else ""
        if playing and s.throw is None and s.hands and s.hands[-1]["deck"] == s.top:
            playing = "hand %d: press dice for the throw (`jantaku dice`); " % s.hand
        elif playing and s.throw is not None:
            playing = "hand %d is being played (dice %s); " % (
                s.hand, "+".join(str(v) for v in s.throw["dice"]))
        if self._busy():
            if s.phase == "preparing":
                return "bringing every tile into the mixer%s: wait" % (
                    " for game %d" % s.game if s.game > 1 else "")
            if s.phase == "building":
                return "%sdeck %s is being built inside%s: wait" % (playing, s.building or "?",
                                                                  progress)
            if s.phase == "hand_over" and s.raising:
                return "raising the walls for hand %d: wait" % (s.hand + 1)
            if s.phase == "hand_over":  # the walls are up: the hand has begun
                return "%sthe lift goes back down: wait" % playing
            if s.phase is None:
                return "getting the table ready for the session: wait"
            if self._step_name == "new_game":  # (about to bring the walls up)
                return "bringing every tile into the mixer: wait"
            return "the table is busy (%s): wait" % self._step_name
        if s.phase == "built" and s.inside:
            if s.game_hand() == 0 and not s.top:
                return ("deck %s is built inside: press start (`jantaku hand-over`) to raise it "
                        "and begin hand 1%s" % (s.inside, " of game %d" % s.game if s.game > 1
                                                else ""))
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

    def _recovering(self):
        """A step runs while the session is stopped: the recovery, which says what now
        happens.  (Not the step that stopped, which reports its stop before it ends.)"""
        if not self._busy():
            return False
        try:
            return self._step is not asyncio.current_task()
        except RuntimeError:  # no loop runs here (a test's look between its steps)
            return True

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
        """A self-test or a calibration (hostd/bringup/steps.py): only with no session open and
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
        """Trends per track and of the lift, from the journal (hostd/bringup/health.py), against
        the connected board's profile."""
        from hostd.bringup import boardfile
        from hostd.bringup import health

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
                            loaded=False, colours=None):
        """Open a session; `colours`: the two sets' back colours (default: `run
        --colours`), each a colour class the table knows, the same twice for identical
        backs."""
        profile = rulesets.get_ruleset(ruleset)  # BadRequest naming what is accepted
        sets = check_sets(self.colours if colours is None else colours)
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
                        mixed_deck=mixed_deck, sets=sets,
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
                    "sets": list(s.sets), "state": "starting", "next": self.next_step()}

    async def hand_over(self, by="api"):
        """End the hand being played (or begin the first); `by`: the start button or the
        API, journalled with the hand."""
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
            self._run_step("hand_over", s.hand_over(by))
            return {"id": s.id, "hand": s.hand + 1, "state": "hand_over", "by": by}

    async def throw_dice(self, values=None, by="api"):
        """The hand's throw: the ruleset's dice from the daemon's random source (the dice
        button, the API), or `values` people threw with physical dice (`entered`).
        Nothing moves: it is taken while the next deck is built."""
        async with self._lock:
            s = self.session
            if s is None:
                raise NotReady("no session: " + START, code="no_session")
            if values is not None:
                by = "entered"
            info = s.throw_dice(values, by)
            return dict(info, next=self.next_step())

    async def new_game(self):
        """End the game and begin the next: Mixed Deck collects every tile and splits
        them afresh; the normal rotation's decks go on (nothing moves)."""
        async with self._lock:
            s = self.session
            if s is None:
                raise NotReady("no session: " + START, code="no_session")
            if s.stopped:
                raise NotReady("the new game must wait: " + self.next_step(), code="stopped")
            if not s.mixed_deck:  # nothing moves: allowed while the next deck is built
                await s.new_game()
                return {"id": s.id, "game": s.game, "state": "playing", "next": self.next_step()}
            self._require_table()
            self._refuse_busy("the new game can begin once it is done: " + self.next_step())
            s.check_new_game()
            self._run_step("new_game", s.new_game())
            return {"id": s.id, "game": s.game + 1, "state": "new_game", "next": self.next_step()}

    async def continue_(self):
        """People did what they were asked: close the open centre, or carry on with the
        step that stopped (clearing the table's fault first)."""
        async with self._lock:
            s = self.session
            if s is not None and s.tell_continue():
                return {"continued": "the centre closes", "next": self.next_step()}
            if s is None and self.asking:
                self._people_done.set()
                return {"continued": "the next walls come up", "next": self.next_step()}
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
            raise NotReady("the fault is still there: %s%s" % (
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
        """Every tile where people can take it out: the walls inside up to the table top,
        then what the mixer holds built into walls and brought up too, a round at a time
        (a round holds full walls), with the table top cleared by people in between."""
        t = self.table
        if t.state == "fault":
            await t.clear_fault()
        await t.query_status()
        known = (self.known or {}).get("where") or {}
        raised = 0
        if t.walls_inside() or not known or any(p in STUCK for p in known.values()):
            if t.state == "paused":
                await t.abort()
            raised = sum(t.per_track())
            await t.bring_walls_up()
        ident = t.identity or {}
        stacks = ident.get("max_stacks") or 18
        rounds = []
        for _ in range(MAX_EMPTY_ROUNDS):
            n, emptied = await t.drain(t.build_id + 1, stacks)
            if n:
                await self._ask_people("take the tiles on the table top out: %d more come up "
                                       "from the mixer" % n)
                await t.bring_walls_up()
                rounds.append(n)
            if emptied or not n:
                break
        if self.known is not None:
            self.known["where"] = {d: "top" for d in known} or {"A": "top", "B": "top"}
        self.publish({"type": "emptied", "raised": raised, "from_mixer": rounds,
                      "mixer_empty": True})

    async def _ask_people(self, what):
        """Ask people (no session open) and wait `push_window` table seconds or until
        `continue`."""
        self._people_done.clear()
        self.asking = "%s (in %g s; `jantaku continue` when the top is clear)" % (
            what, self.push_window)
        self.publish({"type": "ask", "message": self.asking})
        try:
            await self.table.pause(self.push_window, stop=self._people_done)
        finally:
            self.asking = None

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

    # -- the table's buttons -------------------------------------------------------------------
    async def _on_button(self, name):
        """A press of the table's start or dice button does what the table waits for
        (docs/FAULTS.md "Buttons"); a press it cannot take is refused, and says why."""
        try:
            if name == "dice":
                did = "throw: %s" % (await self.throw_dice(by="button"))["text"]
            else:
                did = await self._press_start()
        except JantakuError as e:
            self._light("refused")  # the light says the press was not taken
            self.publish({"type": "button", "button": name, "taken": False, "why": str(e),
                          "next": self.next_step()})
            return
        self.publish({"type": "button", "button": name, "taken": True, "did": did})

    async def _press_start(self):
        s = self.session
        if s is None:
            raise NotReady("no session: " + START, code="no_session")
        if s.asking or (s.stopped and not s.lift_stopped()):
            await self.continue_()  # people are done: the centre closes, the step goes on
            return "continue"
        await self.hand_over(by="button")
        return "hand over"

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
