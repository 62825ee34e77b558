"""The daemon: link + table client + session + journal, behind the API (layer: session).

One asyncio loop.  The link task pumps the serial line; session steps (a build, a hand
over) run as one background task at a time, so the API answers at once and progress
arrives as events.  Everything a person may see as an error is a JantakuError.
"""
import asyncio

import structlog

from hostd import rulesets
from hostd.dice import Dice
from hostd.errors import BadRequest, NotReady
from hostd.link import LinkClient
from hostd.session import Session
from hostd.table import TableClient, TableFault

log = structlog.get_logger("jantaku.daemon")


class Daemon:
    def __init__(self, *, transport, journal, colours=("blue", "green"), seed=None, resume=True):
        self.journal = journal
        self.colours = tuple(colours)
        self.seed = seed  # dice from a seed (demos, the simulator) or None: cryptographic
        self.resume = resume  # carry on the journal's open session (a real table)
        self.link = LinkClient(transport, on_event=self._on_table_event,
                               on_change=self._on_link_change)
        self.table = TableClient(self.link, colours=self.colours, on_event=self.publish)
        self.session = None
        self._step = None  # the running session step (task)
        self._step_name = None
        self._subscribers = set()
        self._tasks = []

    # -- plumbing -------------------------------------------------------------------------
    def _on_table_event(self, msgid, values):
        self.table.on_event(msgid, values)

    def _on_link_change(self, what, detail):
        self.table.link_changed(what, detail)  # it asks the table where it is
        self.publish({"type": "link", "what": what,
                      "detail": detail if isinstance(detail, str) else None})

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
        await asyncio.gather(*self._tasks, *( [self._step] if self._step else []),
                             return_exceptions=True)
        self.journal.close()

    # -- the API's verbs --------------------------------------------------------------------
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
        if s is not None:
            summ = s.summary()
            sess = {"id": summ["id"], "ruleset": summ["ruleset"], "mixed_deck": summ["mixed_deck"],
                    "hand": summ["hand"], "decks": summ["decks"], "builds": summ["builds"],
                    "hands": summ["hands"], "faults": summ["faults"],
                    "busy": self._step_name if self._step and not self._step.done() else None}
        return {"table": self.table.get_status(), "session": sess}

    def _busy(self):
        return self._step is not None and not self._step.done()

    def _run_step(self, name, coro):
        async def step():
            try:
                return await coro
            except TableFault as e:
                log.warning("session step stopped by a fault", step=name, error=str(e))
                self.publish({"type": "step_failed", "step": name, "message": str(e)})
            except Exception as e:  # reported, never silent
                log.exception("session step failed", step=name)
                self.publish({"type": "step_failed", "step": name, "message": str(e)})

        self._step_name = name
        self._step = asyncio.create_task(step(), name=name)
        return self._step

    async def start_session(self, ruleset, mixed_deck=False, seed=None):
        profile = rulesets.get_ruleset(ruleset)  # BadRequest naming what is accepted
        if self._busy():
            raise NotReady("the table is busy (%s): wait for it to finish or abort" % self._step_name)
        await self.link.wait_connected(timeout=5)
        s = Session(table=self.table, journal=self.journal, profile=profile,
                    mixed_deck=mixed_deck, sets=self.colours,
                    dice=Dice(seed if seed is not None else self.seed),
                    on_event=self.publish)
        s._check_table()  # refuse (naming both numbers) before ending anything
        prev = self.session
        if prev is not None and prev.id:
            self.journal.end_session(prev.id, "finished", reason="a new session was started")
        s.open()  # checks the table can build it and journals the session: nothing moves before
        self.session = s
        self._run_step("build", s.build_first())
        return {"id": s.id, "ruleset": profile.name, "mixed_deck": bool(mixed_deck),
                "state": "building"}

    async def hand_over(self):
        s = self.session
        if s is None:
            raise NotReady("no session: start one with `jantaku session start --ruleset R`")
        if self._busy():
            raise NotReady("the table is busy (%s): the hand over can come once it is done"
                           % self._step_name)
        s.check_hand_over()
        self._run_step("hand_over", s.hand_over())
        return {"id": s.id, "hand": s.hand + 1, "state": "hand_over"}

    async def abort(self):
        if self._busy():
            self._step.cancel()
        try:
            await self.table.abort()
        except Exception as e:  # the table may be gone; the session still ends
            log.warning("abort not confirmed by the table", error=str(e))
        s, self.session = self.session, None
        if s is not None and s.id:
            self.journal.end_session(s.id, "aborted", reason="aborted by request")
        return {"aborted": s.id if s is not None else None}


def default_seed_or(value):
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise BadRequest("seed must be an integer, got %r" % (value,)) from None
