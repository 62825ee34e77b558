"""The daemon's events (layer: session): every event of the daemon and its parts goes to
the journal (those hostd/core/events.py says are journalled) and to the front ends'
listeners (the SSE stream, MQTT), in order, each only once the journal holds the state it
reports (docs/ARCHITECTURE.md "The journal's writer").  A listener that stalls loses
events, never the daemon."""
import asyncio

import structlog

from hostd.core import events
from hostd.errors import JantakuError

log = structlog.get_logger("jantaku.daemon")


class Subscription:
    """One listener's events: an async iterator over its own queue (a stalled listener
    loses events, never the daemon: EventBus.publish).  ``end()`` ends the iteration after
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


class EventBus:
    """The events of one daemon.  ``subscribers``: each listener's queue (an object with
    ``qsize()`` and ``put_nowait(event)``), added by :meth:`subscribe`."""

    def __init__(self, journal):
        self.journal = journal
        self.subscribers = set()
        self._outbox = []  # (journal write number, event): fanned out once it is committed
        self._fanning = None  # the task fanning the outbox out

    def publish(self, event, session_id=None):
        """Fan ``event`` out, as hostd/core/events.py declares it: to the journal for
        session ``session_id`` (but those not journalled, and none without a session), and
        to the front ends in order once the journal holds what it reports."""
        kind = event.get("type")
        drift = events.check(event)
        if drift:
            log.error("event_undeclared", problem=drift)
        if events.journalled(kind) and session_id:
            self.journal.event(session_id, kind, **{k: v for k, v in event.items()
                                                         if k not in ("type", "session")})
        if not self._outbox and not self.journal.uncommitted:
            self._fan_out(event)  # nothing waits for the disk: at once, in order
            return
        self._outbox.append((self.journal.queued, event))
        if self._fanning is None or self._fanning.done():
            self._fanning = asyncio.get_running_loop().create_task(self._fan_out_committed())

    def _fan_out(self, event):
        for q in list(self.subscribers):
            if q.qsize() < 1000:  # a stalled client loses events, never the daemon
                q.put_nowait(event)

    async def _fan_out_committed(self):
        """Events reach the front ends once the journal holds the state they report
        (hostd/core/journal/writer.py), in the order they were published."""
        while self._outbox:
            upto = self._outbox[-1][0]
            try:
                await self.journal.synced(upto)
            except JantakuError as e:
                log.error("journal_failed", error=str(e))
            batch = [ev for n, ev in self._outbox if n <= upto]
            self._outbox = self._outbox[len(batch):]
            for ev in batch:
                self._fan_out(ev)

    def subscribe(self):
        """The daemon's events from now on, in order, for one listener (`async for`)."""
        return Subscription(self.subscribers)

    async def drain(self):
        """Wait for the events still waiting for the journal to be fanned out (closing)."""
        if self._fanning is not None:
            await asyncio.gather(self._fanning, return_exceptions=True)
