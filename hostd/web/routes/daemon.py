"""The daemon's reads (CPython only): liveness, the one status, history, rulesets, the
table's health, and the event stream."""
import inspect
from typing import Any, AsyncIterator, Optional

import anyio
import structlog
from fastapi import FastAPI, Query, Request
from fastapi.sse import EventSourceResponse
from pydantic import BaseModel, Field

from hostd.core.daemon import API_VERSION
from hostd.core.status import Status, event_without_names, without_names
from hostd.web.guards import maybe_await, once

log = structlog.get_logger("jantaku.api")
MAX_HISTORY_ID = 2 ** 63 - 1  # SQLite's largest integer
MAX_HISTORY_LIMIT = 1000
ACCEPTED = {"/history": "?limit=1..%d (sessions, default 20) and ?before=1..%d (a session id: "
                        "the sessions below it)" % (MAX_HISTORY_LIMIT, MAX_HISTORY_ID)}


class HealthResponse(BaseModel):
    ok: bool
    version: str
    api: int
    warnings: list[str] = Field([], description="what the owner should know of how the daemon "
                                "is reached (e.g. MQTT commands over a plain, anonymous broker: "
                                "docs/SECURITY.md); the same lines are logged at start")


def add(app: FastAPI, daemon, *, version, security=None):
    """The read routes on `app`; returns end_streams(), which the server calls as it
    stops (each event stream ends after the events it has queued)."""

    @app.head("/health", response_model=HealthResponse, tags=["daemon"],
              operation_id="health_head")
    @app.get("/health", response_model=HealthResponse, tags=["daemon"],
             operation_id="health_get")
    async def health():
        """Liveness: the API answers."""
        return {"ok": True, "version": version, "api": API_VERSION,
                "warnings": list(getattr(daemon, "warnings", ()))}

    private = security.private_read() if security is not None else []

    @app.get("/status", response_model=Status, tags=["daemon"], operation_id="status")
    async def status(request: Request):
        """The one status: the table's state (`state`), what happens next (`next`), the
        commands the daemon would accept now (`can`), the open fault, the table and the
        session.  From another machine, unless paired (or the token, or `--lan-reads
        open`), what names people is left out: the session's `score` (the players' names and
        points), and its throw names its players by wind only."""
        st = await maybe_await(daemon.status())
        if security is not None and not security.may_read_private(request):
            st = without_names(st)
        return st

    @app.get("/history", response_model=dict[str, Any], tags=["daemon"], operation_id="history",
             dependencies=private)
    async def history(limit: int = Query(20, ge=1, le=MAX_HISTORY_LIMIT),
                      before: Optional[int] = Query(None, ge=1, le=MAX_HISTORY_ID)):
        """Past sessions from the journal, newest first: ruleset, how each ended, its
        games with their splits and hands (throws), builds with their times, faults.
        `before`: sessions with a lower id (the next page)."""
        return await maybe_await(daemon.history(limit, before))

    @app.get("/rulesets", response_model=list[dict[str, Any]], tags=["daemon"],
             operation_id="rulesets")
    async def rulesets():
        """The rulesets this daemon knows, each with `table`: whether the connected table
        can build it (`{"can_build": false, "why": ...}`), or null with no table."""
        return await maybe_await(daemon.rulesets())

    @app.get("/table/health", response_model=dict[str, Any], tags=["daemon"],
             operation_id="table_health")
    async def table_health():
        """The table's health over time, from the journal: misread rate, jams and sensor
        drift per track, the lift's stroke time; `flags` says what to look at."""
        return await maybe_await(daemon.table_health())

    return _add_events(app, daemon, security)


def _add_events(app, daemon, security):
    streams = set()  # the `end` of each event stream open now

    @app.get("/events", response_class=EventSourceResponse, tags=["daemon"],
             operation_id="events")
    async def events(request: Request) -> AsyncIterator[dict[str, Any]]:
        """Server-sent events.  Each event's `data:` is one JSON object with a `type`
        (`hello` first, with the status; then `state` at every change of state, and the
        daemon's other events: `build_started`, `build_done`, `hand`, `dice`, `fault`,
        `tile` ...).  Ignore types you don't know.  From another machine, unless paired
        (or the token, or `--lan-reads open`), what names people is left out as in
        `/status`: no `score` events, the throw's players by wind only (a browser that
        pairs opens its stream again)."""
        named = security is None or security.may_read_private(request)
        stream = daemon.subscribe()
        if inspect.isawaitable(stream):
            stream = await stream
        log.info("events_subscribed", client=request.client and request.client.host)
        end = getattr(stream, "end", None)  # the server's stop ends it (end_streams)
        if end is not None:
            streams.add(end)
        closer = getattr(stream, "aclose", None) or getattr(stream, "close", None)
        close_stream = once(closer) if closer is not None else None
        if close_stream is not None:  # also closed when the request ends, however (BodyGuard)
            request.scope.setdefault("jantaku.streams", []).append(close_stream)
        try:
            hello = {"type": "hello", "api": API_VERSION}
            try:
                hello["status"] = await maybe_await(daemon.status())
            except Exception:  # a hello without status beats no stream
                log.exception("events_status_failed")
            yield hello if named else event_without_names(hello)
            async for ev in stream:
                if not isinstance(ev, dict) or not isinstance(ev.get("type"), str):
                    log.warning("event_without_type_dropped", item=repr(ev)[:200])
                    continue
                if not named:
                    ev = event_without_names(ev)
                    if ev is None:
                        continue
                yield ev
        finally:
            streams.discard(end)
            if close_stream is not None:
                with anyio.CancelScope(shield=True):
                    await close_stream()
            log.info("events_unsubscribed")

    def end_streams():
        """The server stops: each event stream ends (after the events it has queued), so
        its request completes instead of holding the shutdown up (hostd/web/server.py)."""
        for end in list(streams):
            end()

    return end_streams
