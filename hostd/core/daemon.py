"""The daemon: link + table client + session + journal, behind the API (layer: session).

One asyncio loop.  The link task pumps the serial line; session steps (bringing the tiles
together, a build, a hand over, a recovery) run as one background task at a time, so the
API answers at once and progress arrives as events.

The table's one state (hostd/core/state.py) says what the daemon accepts: every command
(hostd/core/commands.py) is judged against ``can`` under one lock before anything is
awaited, so commands are serialised; a command not in ``can`` is refused with 409 and a
code naming the state, while the table is not connected the motor commands answer 503.
Every answer, accepted or refused, carries the ``seq`` of the state it was judged in and
``next``: what happens next as a code (hostd/core/codes.py).
"""
import asyncio
import time

import structlog

from hostd.core.bus import EventBus
from hostd.rules import rulesets
from hostd.core.codes import Context, fault_of, next_step
from hostd.core.commands import can, refused_with, takes, why_not
from hostd.rules.dice import Dice, DiceError, check_dice
from hostd.core.journal import UnknownSession
from hostd.core.panel import Panel
from hostd.core.scorebook import Scorebook, export_game, journal_book, with_results
from hostd.core.session import PUSH_WINDOW_S, STUCK, Session, check_sets
from hostd.core.state import Machine, Stage, State, where
from hostd.errors import BadRequest, JantakuError, NotFound, NotNow, NotReady
from hostd.table.client import TableClient
from hostd.table.link import CommandRejected, LinkClient, TableGone

log = structlog.get_logger("jantaku.daemon")

API_VERSION = 2
KEEP_DAYS = 90  # days an ended session keeps its event detail in the journal
MAX_EMPTY_ROUNDS = 4  # drain rounds of `session end --empty` (two sets fill two rounds)
ABORT_RETRY_S = 1.0  # table seconds between two sends of an abort the table has not confirmed


DEFAULT_COLOURS = ("blue", "green")  # before a table says its own (the reference profile's)


class Daemon:
    def __init__(self, *, transport, journal, colours=None, seed=None, resume=True,
                 push_window=PUSH_WINDOW_S, keep_days=KEEP_DAYS, journal_max_bytes=None):
        self.journal = journal
        # the sets' backs by default: `run --colours` (or the sets last calibrated) when
        # given, else the table's own colour classes, from its handshake (see colours)
        self._colours = tuple(colours) if colours else None
        self.seed = seed  # dice from a seed (demos, the simulator) or None: cryptographic
        self.resume = resume  # carry on the journal's open session (a real table)
        self.push_window = push_window
        self.keep_days = keep_days  # the journal's retention (Journal.prune)
        self.journal_max_bytes = journal_max_bytes
        self.m = Machine(on_change=self._state_changed)
        self.link = LinkClient(transport, on_event=self._on_table_event,
                               on_change=self._on_link_change,
                               before_motion=self.journal.synced)
        # the table's own controls: the status light and the start and dice buttons
        self.panel = Panel(self, spawn=self._spawn, emit=self._on)
        self.table = TableClient(self.link, colours=self._colours or DEFAULT_COLOURS,
                                 on_event=self._on, on_button=self.panel.pressed)
        self.session = None
        self.known = None  # where the last session left the tiles, for the next start
        self.last_end = None  # how the last session ended: {"id", "how", "reason"}
        self._people_done = asyncio.Event()  # `continue` while the top is being cleared
        self._step = None  # the running step (task)
        self.bus = EventBus(journal)  # the events to the journal and the front ends
        self._tasks = []
        self._lock = asyncio.Lock()  # one operator command at a time
        self._judged = None  # the seq the command being answered was judged at
        self.reporters = {}  # name -> get_status(): more parts of status() (e.g. "mqtt")
        self.warnings = []  # what `health` tells the owner of how it is reached (the MQTT bridge's)
        self._scores = None  # (session id, Scorebook): the open session's game ledgers
        self._sides = (None, None)  # ((board id, boot nonce), its track_sides): read per boot
        # the last calibration's reading (hostd/bringup/calibrate.py Reading): kept until the
        # next calibration or a restart, so its classes can be named (again) without reading
        self.reading = None

    # -- the state and what it means ----------------------------------------------------------
    @property
    def colours(self):
        """The two sets' backs a session takes by default: the ones given (`run
        --colours`, or the sets last calibrated), else the connected table's first two
        colour classes as its handshake names them (its board profile's, which `jantaku
        calibrate` rewrites), else blue and green (no table yet)."""
        if self._colours is not None:
            return self._colours
        ident = self.table.identity if self.link.connected else None
        names = ident["colours"] if ident else None
        if not names:
            return DEFAULT_COLOURS
        return (names[0], names[1]) if len(names) > 1 else (names[0], names[0])

    @colours.setter
    def colours(self, sets):
        self._colours = tuple(sets)

    @property
    def state(self):
        return self.m.state

    def context(self):
        s = self.session
        r = self.reading
        return Context(connected=self.link.connected, error=self.link.error,
                       boot_error=self.link.boot_error,
                       first_hand=s.game_first_hand if s else 1, colours=self.colours,
                       session=s.id if s else None, mixed_deck=bool(s and s.mixed_deck),
                       reading={"sets": list(r.sets), "classes": r.classes()} if r else None)

    def next_step(self):
        """What happens next: {"code", "params", "text", "action"}."""
        return next_step(self.state, self.context(), table_fault=self.table.fault)

    def can(self):
        return can(self.state, self.context())

    def fault(self):
        table_fault = self.table.fault if self.table.state == "fault" else None
        if self.state.name == "recovering" and self.session is not None:
            return self._recovery_fault()
        return fault_of(self.state, table_fault if self.link.connected else None)

    def _recovery_fault(self):
        """While a table restart is recovered from, the restart is the open fault; what
        people do is the hand over (the table sorts the rest out) or wait."""
        left = [f for f in self.session.faults if not f["recovered"] and f["kind"] == "reset"]
        if not left:
            return None
        waiting = self.state["stage"] == Stage.WAITING
        return {"kind": "reset", "track": None, "deck": self.state.get("deck"), "step": None,
                "message": left[-1]["message"],
                "todo": "nothing by hand: the table sorts it out %s" % (
                    "at the next hand over" if waiting else "now"),
                "action": "hand_over" if waiting else None}

    def _state_changed(self, state, seq):
        self.publish({"type": "state", "state": dict(state.to_dict(), seq=seq),
                      "next": self.next_step(), "can": self.can(), "fault": self.fault()})
        self.panel.show()

    def _sync(self):
        """Between sessions, the state follows the table: a fault it reports (a person
        must fix it before anything starts), or idle with its walls inside or not.  (A
        step that ends calls this from its own task: that step is not in the way.)"""
        if self.state.name not in ("idle", "table_fault"):
            return
        if self.busy() and self._step is not asyncio.current_task():
            return
        t = self.table
        if self.link.connected and t.state == "fault" and t.fault:
            self.m.set("table_fault", kind=t.fault["kind"], track=t.fault.get("track"))
        else:
            self.m.set("idle", **self._idle_params())

    def _idle_params(self, where=None):
        """idle's parameters now: the walls inside, where the last session left the decks,
        and whether a calibration's reading is kept (its classes unnamed or named)."""
        r = self.reading
        return {"walls_inside": bool(self.link.connected and self.table.walls_inside()),
                "where": where if where is not None else (self.known or {}).get("where"),
                "reading": None if r is None else ("named" if r.named else "unnamed")}

    def _to_idle(self):
        """No session and nothing running: idle (or the fault the table reports)."""
        self.m.set("idle", **self._idle_params())
        self._sync()

    def judge(self, command, **options):
        """Refuse `command` unless the daemon would accept it now (``can``, or a row of the
        list that takes it with one of ``options``, its request's fields: ``start`` with
        replace, ``end`` with empty): 503 while the table is not connected (a motor
        command), else 409 with the state's name and the row's reason.  Returns the seq it
        was judged at (every answer carries it)."""
        if takes(command, self.state, self.context(), **options):
            self._judged = self.m.seq
            return self._judged
        if refused_with(command, self.link.connected) == 503:
            raise self._gone()
        raise self._not_now(command)

    def _gone(self):
        e = TableGone("the table is not connected (%s): nothing can move until it is; "
                      "check its cable and power" % (self.link.error or "waiting for it"))
        return self._answer_error(e)

    def _not_now(self, command):
        st = self.state
        why = why_not(command, st)
        text = "%s is not possible now (%s)%s. Next: %s" % (
            command.replace("_", " "), st.name.replace("_", " "), ": " + why if why else "",
            self.next_step()["text"])
        return self._answer_error(NotNow(text, state=st.name))

    def _answer_error(self, e):
        e.details.update(seq=self.m.seq, next=self.next_step())
        return e

    async def answer(self, **data):
        """A command's answer: its data, the seq of the state it was judged in, and what
        happens next now; given once the journal holds what the command changed."""
        seq, self._judged = self._judged or self.m.seq, None
        out = dict(data, seq=seq, next=self.next_step())
        await self.journal.synced()
        return out

    # -- plumbing -------------------------------------------------------------------------
    def _on_table_event(self, msgid, values):
        self.table.on_event(msgid, values)

    def _spawn(self, coro):
        """A task of the daemon's (cancelled by close()); finished ones are let go."""
        self._tasks = [t for t in self._tasks if not t.done()]
        self._tasks.append(asyncio.create_task(coro))

    def _on_link_change(self, what, detail):
        self.table.link_changed(what, detail)  # it asks the table where it is
        self._on({"type": "link", "what": what,
                      "detail": detail if isinstance(detail, str) else None})
        self.m.bump()  # what is accepted changes with the connection
        self._sync()
        if what in ("connected", "up", "reset") and self.state.name == "aborting":
            self._pending_abort()

    def _on(self, event):
        """An event of the daemon's own parts (the table client, the session) or of its
        own: what the daemon does about it (the state follows a fault the table reports
        between sessions; the status light), then :meth:`publish`."""
        kind = event.get("type")
        if kind in ("table_state", "table_fault"):
            self._sync()
        if kind == "dice" and self.session is not None:  # the break by player, when known
            event = dict(self._named_throw(self.session, event), type="dice")
        self.publish(event)
        if kind not in ("tile", "build_progress", "state"):
            self.panel.show()

    def publish(self, event):
        """Fan ``event`` out (hostd/core/bus.py): to the journal, for the open session, and
        to the front ends once the journal holds what it reports.  Nothing else: the
        daemon's reactions are in :meth:`_on`."""
        self.bus.publish(event, self.session.id if self.session is not None else None)

    def subscribe(self):
        """The daemon's events from now on, in order, for one listener (`async for`)."""
        return self.bus.subscribe()

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
                self._sync()
        # from now on the loop never waits for the disk (docs/ARCHITECTURE.md "The
        # journal's writer").  In virtual time (the in-process simulator) a commit on the
        # loop costs no table time, and a writer thread's real time would make a seeded
        # run depend on the disk: there the journal commits in place.
        if not getattr(self.link.transport, "virtual", False):
            self.journal.start_writer()

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
                                       on_event=self._on, machine=self.m)
        self.session.push_window = self.push_window
        log.info("resuming session", session=saved["id"], state=self.state.name)

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
                removed = await asyncio.to_thread(self.journal.prune, keep_days=self.keep_days,
                                                  max_bytes=self.journal_max_bytes)
                if removed["events"] or removed["sessions"]:
                    log.info("journal pruned", **removed)
            except JantakuError as e:
                log.warning("journal not pruned", error=str(e))
            await asyncio.sleep(hours * 3600)

    def history(self, limit=20, before=None):
        """Past sessions from the journal, newest first (Journal.history)."""
        return {"sessions": with_results(self.journal.history(limit=limit, before=before)),
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
        self.journal.close()  # commits what is queued, then ends the writer thread
        await self.bus.drain()

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
        """The one status (hostd/core/status.py's model): the state, next, can, the fault,
        the table, the session."""
        st = self.state
        out = {"api": API_VERSION,
               "state": dict(st.to_dict(), seq=self.m.seq, since=self.m.changed_at),
               "next": self.next_step(), "can": self.can(), "fault": self.fault(),
               "table": dict(self.table.get_status(), track_sides=self.track_sides()),
               "session": self._session_status(),
               "last_end": self.last_end}
        out.update((name, get()) for name, get in self.reporters.items())
        return out

    def _session_status(self):
        s = self.session
        if s is None:
            return None
        summ = s.summary()
        places = where(self.state) or {d: "unknown" for d in ("A", "B")}
        decks = {d: dict(summ["decks"].get(d, {}), where=places[d],
                         colours_checked=summ["colours_checked"]) for d in sorted(places)}
        out = {k: summ[k] for k in ("id", "ruleset", "mixed_deck", "sets", "colours_checked",
                                    "game", "game_hand", "hand", "games", "builds", "hands",
                                    "faults")} | {"decks": decks, "split": s.split}
        out["score"] = None
        if s.id is not None:  # (the break is named by player once the ledger knows who deals)
            out["score"] = _score_summary(self._book()[1].state(s.game))
        out["dice"] = self._named_throw(s, summ["dice"])
        return out

    # -- the game's ledger (hostd/core/scorebook.py, docs/SCORING.md) -----------------------
    def _book(self):
        """The open session's ledgers (restored from the journal on first use)."""
        s = self.session
        if s is None:
            raise NotReady("no session is open: the table keeps the scores of a session's "
                           "games; start a session first", code="no_session")
        if self._scores is None or self._scores[0] != s.id:
            book = Scorebook(journal=self.journal, session_id=s.id, ruleset=s.profile.name,
                             breaker_deals=s.profile.break_procedure.breaker_becomes_dealer,
                             first_throw=lambda game, s=s: _first_throw(s, game))
            book.restore(self.journal.score_entries(s.id))
            self._scores = (s.id, book)
        return s, self._scores[1]

    def score(self, game=None, session=None):
        """GET /score: a game's ledger (default: the game in play), before any entry the
        ruleset's starting points.  ``session``: any session the journal keeps (a page
        that asks for its session's ledger as an abort or the end closes it gets that
        session's last game, not a refusal)."""
        if session is not None and (self.session is None or session != self.session.id):
            try:
                book, summary = journal_book(self.journal, session)
            except UnknownSession:
                raise NotFound("no session %d in the journal: GET /history lists the "
                               "sessions it keeps" % session) from None
            games = sorted({g["game"] for g in summary["games"]} | set(book.games())) or [1]
            if game is None:
                game = games[-1]
            if game not in games:
                raise NotFound("session %d has games %d to %d, not %d"
                               % (session, games[0], games[-1], game))
            return book.state(game)
        s, book = self._book()
        if game is None:
            game = s.game
        if not 1 <= game <= s.game:
            raise NotFound("session %d has games 1 to %d, not %d" % (s.id, s.game, game))
        return book.state(game)

    def score_export(self, game=None, session=None):
        """What GET /score/export writes out: the session, the game's state and its
        entries as people entered them.  ``session``: any session the journal keeps
        (default: the open one, else the last); ``game``: default the game in play, or a
        past session's last game with entries."""
        s = self.session
        if s is not None and s.id is not None and session in (None, s.id):
            s, book = self._book()
            state = self.score(game)
            return export_game(book, s.id, range(1, s.game + 1), state["game"])
        if session is None:
            last = self.journal.last_session()
            if last is None:
                raise NotReady("no session yet: the journal holds no scores to export; start "
                               "a session first", code="no_session")
            session = last["id"]
        try:
            book, summary = journal_book(self.journal, session)
        except UnknownSession:
            raise NotFound("no session %d in the journal: GET /history lists the sessions "
                           "it keeps" % session) from None
        return export_game(book, session, [g["game"] for g in summary["games"]], game)

    async def _end_game_score(self, s, *, must):
        """The game in play's ledger ended as by an ``end`` entry (journalled), when it
        has entries and has not ended: what a new game or the session's end does, so the
        game's totals add up (sticks left on the table go as the ruleset says).  What it
        gave out, or None.  ``must``: a journal that cannot keep it refuses (a new game);
        else it is logged and the session ends all the same."""
        _, book = self._book()
        st = book.state(s.game)
        if st["ended"] or not st["entries"]:
            return None
        try:
            state = book.enter(s.game, {"kind": "end"})
        except JantakuError as e:
            if must:
                raise
            log.warning("the game's scores were not ended", game=s.game, error=str(e))
            return None
        self._on({"type": "score", "game": s.game, "score": state})
        await self.journal.synced()
        return {"game": s.game, "left_on_table": st["left_on_table"],
                "placement": state["placement"]}

    def _carry_options(self, s, game):
        """A game's options (a ``rules`` entry, Shenyang's ron_pays) carried to the next."""
        _, book = self._book()
        st = book.state(s.game)
        rules = book.state(game)
        if st["options"] != rules["options"] and not rules["entries"]:
            book.enter(game, {"kind": "rules", **st["options"]})

    async def score_entry(self, body):
        """POST /score: one result (or riichi, seats, undo ...) into the game in play's
        ledger, journalled before it is answered; refused with nothing changed when it
        cannot be.  The table's mechanical state does not matter."""
        s, book = self._book()
        state = book.enter(s.game, body, throw=s.throw)
        self._on({"type": "score", "game": s.game, "score": state})
        await self.journal.synced()
        return state

    def _named_throw(self, s, throw):
        if not throw or self._scores is None or self._scores[0] != s.id:
            return throw
        return self._scores[1].name_break(s.game, s.game_hand(), throw)

    # -- the steps --------------------------------------------------------------------------
    def busy(self):
        """A step (a start, a hand over, a recovery...) is under way."""
        return self._step is not None and not self._step.done()

    async def _begin_step(self, name, coro):
        """Run a step, and let it take its first state before the command answers."""
        self._run_step(name, coro)
        await asyncio.sleep(0)

    def _run_step(self, name, coro):
        async def step():
            try:
                return await coro
            except asyncio.CancelledError:
                raise
            except Exception as e:  # reported, never silent: the state says what to do
                self._step_failed(name, e)
            finally:
                self._sync()

        self._step = asyncio.create_task(step(), name=name)
        return self._step

    def _step_failed(self, name, e):
        s = self.session
        if s is not None:
            s.on_stopped(name, e)
        if isinstance(e, JantakuError):
            log.warning("step stopped", step=name, error=str(e))
        else:
            log.exception("step failed", step=name)
        if s is None and self.state.name in ("emptying", "bench"):
            self._to_idle()
        self._on({"type": "step_failed", "step": name, "message": str(e),
                      "next": self.next_step()})

    async def _cancel_step(self):
        if self.busy():
            self._step.cancel()
            await asyncio.gather(self._step, return_exceptions=True)

    async def bench_step(self, name, work):
        """A self-test or a calibration (hostd/core/bench.py): only with no session
        open and nothing running; it runs as the daemon's step (state bench) and answers
        with its report.  work(daemon) is the coroutine function."""
        async with self._lock:
            self.judge(name)
            self.m.set("bench", what=name)

            async def run():
                try:
                    return await work(self)
                finally:
                    if self.state.name == "bench":
                        self._to_idle()

            self._step = asyncio.create_task(run(), name=name)
            step = self._step
        try:
            return await asyncio.shield(step)  # a client that leaves does not stop a motion half-way
        except JantakuError as e:  # (a table fault: the state is now the fault, its next says)
            raise self._answer_error(e) from None

    async def people_push(self, push, tiles=None):
        """A self-test or a calibration (state bench) opened the centre: people push in
        `push` (hostd/core/state.py BENCH_PUSHES; `tiles`: how many, when known), for the
        push window or until continue; the step's own state again after.  True if people
        said they were done (continue, the start button), False if the window ran out."""
        what = self.state.get("what")
        self._people_done.clear()
        until = time.time() + self.table.wall_seconds(self.push_window)
        self.m.set("bench", what=what, stage=Stage.PUSH, push=push, tiles=tiles, until=until)
        try:
            return await self.table.pause(self.push_window, stop=self._people_done)
        finally:
            if self.state.name == "bench":
                self.m.set("bench", what=what)

    def tiles_left(self, reading):
        """Where a calibration left the sets (hostd/bringup/calibrate.py read_sets), for the
        next session's start to take as it is: read one set at a time, the set read first
        in the mixer and the other on the table top; read mixed, both in the mixer."""
        from hostd.bringup.calibrate import ONE_AT_A_TIME

        if reading.mode == ONE_AT_A_TIME:
            self.known = {"mixed_deck": False, "sets": list(reading.named or reading.sets),
                          "where": {"A": "mixer", "B": "top"}}
        else:
            self.known = {"mixed_deck": True, "sets": list(reading.named or reading.sets),
                          "where": {"A": "mixer", "B": "mixer"},
                          "by": "the calibration, which read them in one pass,"}

    def walls_came_up(self):
        """A self-test's lift stroke raised the walls a session left inside: they are on
        the table top now (where the next start finds them)."""
        where = (self.known or {}).get("where")
        if where:
            self.known = dict(self.known, where={d: "top" if p == "inside" else p
                                                 for d, p in where.items()})

    async def selftest(self, device=None, track=None, write_timings=False):
        from hostd.bringup import selftest
        from hostd.core import bench as steps

        ident = self.table.identity or {}
        selftest.check_request(device, track, ident.get("tracks") or 4)  # 400 before all else
        rep = await self.bench_step("selftest", steps.selftest(device, track,
                                                               write_timings=write_timings))
        return await self.answer(**rep)

    async def survey(self, action, pin=None, hold=None, ms=None, pins=None):
        """One move of the wiring survey (hostd/core/bench.py survey): plan, pulse,
        watch or write; a bench step like the self-test's (no session open)."""
        from hostd.core import bench as steps

        work = steps.survey(action, pin=pin, hold=hold, ms=ms, pins=pins)  # 400 before all else
        rep = await self.bench_step("survey", work)
        return await self.answer(**rep)

    async def calibrate(self, sets, ruleset="riichi", ask=False):
        """Read both sets (hostd/core/bench.py calibration); the reading is kept.  Named
        at once when one set was read at a time (class 1 is the first of `sets`, the set
        in the mixer) unless `ask`; else `next` asks which is which (name_sets)."""
        from hostd.core import bench as steps

        rep = await self.bench_step("calibrate", steps.calibration(sets, ruleset, ask=ask))
        return await self._calibrated(rep)

    async def name_sets(self, names=None, swap=False):
        """Name the kept reading's two classes (class 1 first), or swap the two colours
        of the last calibration (from the club's profile): nothing moves."""
        from hostd.core import bench as steps

        if (names is None) == (not swap):
            raise BadRequest("give the names of class 1 and class 2 (names), or swap: true")
        async with self._lock:
            self.judge("name_sets", swap=swap)
            self._judged = self.m.seq
            rep = await steps.name_sets(self, names, swap=swap)
            self._sync()
        return await self._calibrated(rep)

    async def _calibrated(self, rep):
        if rep.get("ok") and rep.get("named"):  # the calibrated sets are the sessions' sets
            self.colours = tuple(rep["names"])
        self._sync()
        return await self.answer(**rep)

    def track_sides(self):
        """Which side of the table each track's wall comes up at (the connected board's
        profile, hostd/boards/boardfile.track_sides), or None: no table, or no profile of
        that board here.  Read once per boot of the table (a profile changed is flashed,
        which resets the board)."""
        from hostd.boards import boardfile

        ident = self.table.identity if self.link.connected else None
        if ident is None:
            return None
        boot = (ident["board"], ident["boot_nonce"])
        if self._sides[0] != boot:
            profile = self._board_profile(ident)
            self._sides = (boot, boardfile.track_sides(profile) if profile else None)
        return self._sides[1]

    @staticmethod
    def _board_profile(ident):
        """The connected board's profile as the host has it (hostd/boards/boardfile.py),
        or None: no table, or no profile of that board here."""
        from hostd.boards import boardfile

        if ident is None:
            return None
        try:
            return boardfile.load(ident["board"])[0]
        except JantakuError:
            return None

    def table_health(self):
        """Trends per track and of the lift, from the journal (hostd/bringup/health.py),
        against the connected board's profile."""
        from hostd.bringup import health

        return health.table_health(self.journal, self._board_profile(self.table.identity))

    def _ended(self, s, how, reason):
        places = where(self.state) if self.state.in_session else s.where()
        if self.state.name == "stopped":
            places = where(State.from_dict(self.state["resume"])) if self.state["resume"] else places
        self.journal.end_session(s.id, how, reason=reason)
        self.known = {"mixed_deck": s.mixed_deck, "sets": list(s.sets), "where": places}
        self.last_end = {"id": s.id, "how": how, "reason": reason}
        if self.session is s:
            self.session = None
        self.m.set("idle", **self._idle_params(where=places or {}))
        self._on({"type": "session_ended", "session": s.id, "how": how, "reason": reason})
        self._sync()  # a fault the table still reports is the state now, not idle

    def _open_fault(self):
        f = self.fault()
        return f["message"] if f and self.state.name == "stopped" else None

    # -- the commands (hostd/core/commands.py) -------------------------------------------------
    async def start_session(self, ruleset, mixed_deck=False, seed=None, *, replace=False,
                            loaded=False, colours=None):
        """Open a session; `colours`: the two sets' back colours (default: `run
        --colours`, or the sets last calibrated), each a colour class the table knows,
        the same twice for identical backs."""
        profile = rulesets.get_ruleset(ruleset)  # BadRequest naming what is accepted
        sets = check_sets(self.colours if colours is None else colours)
        async with self._lock:
            prev = self.session
            self.judge("start", replace=replace)
            s = Session(table=self.table, journal=self.journal, profile=profile,
                        mixed_deck=mixed_deck, sets=sets,
                        dice=Dice(seed if seed is not None else self.seed),
                        on_event=self._on, push_window=self.push_window, machine=self.m)
            s.check_table()  # refuse (naming both numbers) before ending anything
            known = self.known
            if prev is not None:
                known = {"mixed_deck": prev.mixed_deck, "sets": list(prev.sets),
                         "where": prev.where()}
            plan = s.plan_start(known, loaded=loaded)  # a refusal says what people must do
            if prev is not None and self.link.connected and self.table.state == "fault":
                # the table would still report it with the old session ended, and nothing
                # starts over a table fault: refused before anything changes
                raise self._answer_error(NotNow(
                    "start is not possible now (%s): the table reports a fault (%s): fix it "
                    "and clear it, or abort, then start. Next: %s" % (
                        self.state.name.replace("_", " "),
                        (self.table.fault or {}).get("message") or "its fault",
                        self.next_step()["text"]), state=self.state.name))
            if prev is not None:
                fault = self._open_fault()
                await self._cancel_step()
                await self._abort_table()
                self._ended(prev, "failed" if fault else "ended", "replaced by a new session"
                            + (": %s" % fault if fault else ""))
                if self.state.name != "idle":  # the table reports a fault: fixed first
                    self.judge("start")  # refused, naming it (the old session has ended)
            s.open()  # journals the session: nothing moves before
            self.session = s
            await self._begin_step("start", s.begin(plan))
            return await self.answer(id=s.id, ruleset=profile.name, mixed_deck=bool(mixed_deck),
                               sets=list(s.sets))

    async def hand_over(self, by="api"):
        """End the hand being played (or begin the first); `by`: the start button or the
        API, journalled with the hand."""
        async with self._lock:
            self.judge("hand_over")
            s = self.session
            if self.state.name == "stopped":  # a lift pressed again once the cause is gone
                return await self._recover(s, "hand_over")
            hand = s.hand + 1
            await self._begin_step("hand_over", s.hand_over(by))
            return await self.answer(id=s.id, hand=hand, game=s.game,
                               game_hand=hand - s.game_first_hand + 1, by=by)

    async def throw_dice(self, dice=None, by="api"):
        """The hand's throw: the ruleset's dice from the daemon's random source (the dice
        button, the API), or the faces people threw with physical dice (`dice`, journalled
        as `entered`).  Nothing moves: it is taken while the next deck is built."""
        values = dice
        async with self._lock:
            s = self.session
            if values is not None:
                by = "entered"
                if s is not None:
                    try:
                        check_dice(s.profile, values)
                    except DiceError as e:
                        raise BadRequest(str(e), code="bad_dice") from None
            self.judge("dice")
            info = s.throw_dice(values, by)
            return await self.answer(**info, game=s.game, game_hand=s.game_hand())

    async def new_game(self):
        """End the game and begin the next: Mixed Deck collects every tile and splits
        them afresh; the normal rotation's decks go on (nothing moves)."""
        async with self._lock:
            self.judge("game_new")
            s = self.session
            game = s.game + 1
            # the game left ends as by `end` (its totals add up) and its options go on
            ended = await self._end_game_score(s, must=True)
            self._carry_options(s, game)
            if not s.mixed_deck:  # nothing moves: allowed while the next deck is built
                await s.new_game()
                return await self.answer(id=s.id, game=s.game, scores_ended=ended)
            await self._begin_step("new_game", s.new_game())
            return await self.answer(id=s.id, game=game, scores_ended=ended)

    async def continue_(self):
        """People did what they were asked: close the open centre, or carry on with the
        step that stopped (clearing the table's fault first)."""
        async with self._lock:
            self.judge("continue")
            st = self.state
            if st.name == "emptying":
                self._people_done.set()
                self.m.set("emptying", stage=Stage.RAISE, round=st.get("round"))
                return await self.answer(continued="the next walls come up")
            if st.name in ("preparing", "building"):
                self.session.tell_continue()
                return await self.answer(continued="the centre closes")
            if st.name == "bench":  # people pushed in what the self-test or calibration asked
                self._people_done.set()
                return await self.answer(continued="the centre closes")
            return await self._recover(self.session, "continue")

    async def clear_fault(self):
        """A person fixed the table's fault: clear it, and carry on with what it stopped."""
        async with self._lock:
            self.judge("clear_fault")
            if self.state.name == "table_fault":
                cleared = await self._clear_table_fault()
                self._sync()
                return await self.answer(cleared=cleared)
            return await self._recover(self.session, "clear_fault")

    async def _clear_table_fault(self):
        fault = (self.table.fault or {}).get("message") or "its fault"
        try:
            await self.table.clear_fault()
        except CommandRejected:
            f = self.fault() or {}
            raise self._answer_error(JantakuError(
                "the fault is still there: %s: %s" % (fault, f.get("todo") or "fix it first"),
                code="fault_remains", status=409)) from None
        return fault

    async def _recover(self, s, how):
        if self.table.state == "fault":
            await self._clear_table_fault()
        elif self.state.get("kind") == "guard" and not all(self.table.guard.values()):
            # a motion refused while the guard was unsafe (no table fault to clear): the
            # step would only stop on it again, so the command says it is still there
            f = self.fault() or {}
            raise self._answer_error(JantakuError(
                "the fault is still there: %s: %s" % (
                    f.get("message") or "the guard is broken", f.get("todo") or "fix it first"),
                code="fault_remains", status=409))
        step = self.state["step"]
        await self._begin_step(step, s.recover())
        return await self.answer(continued=step)

    async def end_session(self, *, empty=False):
        """End the session (a step under way stops first; `failed`, with the fault, if
        one is open); `empty` also brings every tile up to the table top, so people can
        take them out."""
        async with self._lock:
            s = self.session
            self.judge("end", empty=empty)
            ended = None
            if s is not None:
                scores = await self._end_game_score(s, must=False)
                fault = self._open_fault()
                if self.busy():
                    await self._cancel_step()
                    await self._stop_table()
                how = "failed" if fault else "ended"
                self._ended(s, how, fault or "ended by request")
                ended = {"id": s.id, "how": how, "scores_ended": scores}
            if empty:
                self.m.set("emptying", stage=Stage.RAISE, round=0)
                await self._begin_step("empty", self._empty())
            return await self.answer(ended=ended, emptying=bool(empty))

    async def _stop_table(self):
        """A step cut short (end): every motor off; the table keeps what it counted."""
        try:
            await self.table.abort()
        except JantakuError as e:
            log.warning("the table did not confirm the stop", error=str(e))

    async def _empty(self):
        """Every tile where people can take it out: the walls inside up to the table top,
        then what the mixer holds built into walls and brought up too, a round at a time
        (a round holds full walls), with the table top cleared by people in between."""
        t = self.table
        await t.clear_fault_if_any()
        await t.query_status()
        known = (self.known or {}).get("where") or {}
        raised = 0
        if t.walls_inside() or not known or any(p in STUCK for p in known.values()):
            if t.state == "paused":
                await t.abort()
            raised = sum(t.per_track())
            await t.bring_walls_up()
        stacks = (t.identity or {}).get("max_stacks") or 18
        rounds = []
        for n_round in range(1, MAX_EMPTY_ROUNDS + 1):
            self.m.set("emptying", stage=Stage.DRAIN, round=n_round)
            n, emptied = await t.drain(t.build_id + 1, stacks)
            if n:
                await self._ask_people(n, n_round)
                await t.bring_walls_up()
                rounds.append(n)
            if emptied or not n:
                break
        self.known = dict(self.known or {}, where={d: "top" for d in known} or
                          {"A": "top", "B": "top"})
        self.m.set("idle", **self._idle_params(where=self.known["where"]))
        self._on({"type": "emptied", "raised": raised, "from_mixer": rounds,
                      "mixer_empty": True})

    async def _ask_people(self, tiles, n_round):
        """Ask people (no session open) to clear the top, for `push_window` table seconds
        or until `continue`."""
        self._people_done.clear()
        until = time.time() + self.table.wall_seconds(self.push_window)
        self.m.set("emptying", stage=Stage.CLEAR_TOP, round=n_round, tiles=tiles, until=until)
        await self.table.pause(self.push_window, stop=self._people_done)
        self.m.set("emptying", stage=Stage.RAISE, round=n_round)

    async def abort(self):
        """Stop every motor and end the session: always accepted.  Confirmed by the table,
        or (the table gone) pending: sent again as soon as it is back, and nothing else
        is accepted meanwhile."""
        async with self._lock:
            self._judged = self.m.seq  # always accepted
            s = self.session
            fault = self._open_fault()
            await self._cancel_step()
            confirmed = await self._abort_table(s)
            if s is not None:
                self._ended(s, "aborted", "aborted by request" + (" (%s)" % fault if fault else ""))
            if not confirmed:
                self.m.set("aborting", session=s.id if s is not None else None)
                self._pending_abort()
            else:
                self._to_idle()
            return await self.answer(aborted=s.id if s is not None else None, confirmed=confirmed)

    async def _abort_table(self, s=None):
        try:
            if not self.link.connected:
                raise TableGone(self.link.error or "not connected")
            await self.table.abort()
            return True
        except TableGone as e:
            self._on({"type": "abort_pending", "message": str(e)})
            return False

    def _pending_abort(self):
        """The unconfirmed abort sent again until the table confirms it (one task at a time)."""
        task = getattr(self, "_abort_task", None)
        if task is None or task.done():
            self._abort_task = asyncio.ensure_future(self._send_pending_abort())
            self._tasks.append(self._abort_task)

    async def _send_pending_abort(self):
        """Sent again and again (ABORT_RETRY_S apart, the lock let go between tries) until
        the table confirms it: a line that stalled one way past the command's timeout, or
        a link out of step, leaves no abort unconfirmed once it carries again."""
        while True:
            if self.state.name != "aborting":
                return
            if not self.link.connected:  # (waited for without the lock: other commands are
                try:  # answered meanwhile, "not connected")
                    await self.link.wait_connected(timeout=10)
                except JantakuError:
                    continue
            async with self._lock:
                if self.state.name != "aborting":
                    return
                try:
                    await self.table.abort()
                except JantakuError as e:
                    log.warning("the pending abort was not confirmed yet: sent again",
                                error=str(e), in_s=ABORT_RETRY_S)
                else:
                    self._to_idle()
                    self._on({"type": "abort_confirmed"})
                    return
            await self.table.pause(ABORT_RETRY_S)



def _first_throw(s, game):
    """Game ``game``'s first hand's throw in session ``s`` (``breaker``, ``dice``) or None."""
    first = s.game_first_hand if game == s.game else next(
        (g["first_hand"] for g in s.games if g["game"] == game), None)
    hand = next((h for h in s.hands if h["hand"] == first), None)
    return hand if hand is not None and hand.get("breaker") else None


def _score_summary(st):
    """What the status carries of the game's ledger (GET /score has it all): the dealer,
    honba, sticks (and what an end would give out of them), whether the game ended, and
    each player's name, wind, side, points and chips."""
    return {k: st[k] for k in ("game", "round", "hand", "dealer", "honba", "sticks",
                               "left_on_table", "ended", "placement", "entries")} | {
        "players": {k: {f: p.get(f) for f in ("name", "wind", "side", "points", "chips")}
                    for k, p in st["players"].items()}}
