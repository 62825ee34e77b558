"""The daemon on an MQTT broker: one table's bridge (CPython only).

Layer: beside the HTTP API (hostd/web/api.py).  It takes events from ``Daemon.subscribe()``,
status from ``Daemon.status()``, and runs commands through the same handlers as the API
(each command row's, hostd/core/commands.py), answering with the same result or error (docs/FLEET.md "Fleet over MQTT"):

    jantaku/<id>/availability   "online" / "offline", retained; the broker's last will
                                publishes "offline" when the daemon dies
    jantaku/<id>/status         a compact summary (compact_status), retained, QoS 1, on every
                                change, at most 1/STATUS_INTERVAL_S times a second
    jantaku/<id>/events         every event of the push API (GET /events) as JSON, with a
                                "seq" (1, 2, ... from the daemon's start), QoS 1, in order
    jantaku/<id>/command/<verb> commands (VERBS), a JSON object ("{}"; an "id" makes a
                                repeated command run once); off unless commands=True;
                                a retained one is never run (the broker would hand it
                                out again at every connection): answered 400 retained;
                                nor a zero-length one (how a retained message is
                                cleared, delivered live): 400 empty_payload
    jantaku/<id>/reply          {"verb", "id", "status", "result"|"error"}: the API's answer
    homeassistant/.../config    Home Assistant's discovery (hostd/fleet/ha.py), retained, on each
                                connection, unless discovery_prefix is None

The table never waits for the broker: events go into a bounded :class:`Outbox` at once and
are sent from there, each removed only once the broker acknowledged it (QoS 1), so a broker
restart loses nothing the outbox held (a message may come twice: "seq" tells).  When the
outbox is full the oldest message is dropped, counted, logged, and reported: an
``events_dropped`` event takes the place of what was lost and the status carries the
total.  The connection is retried with a capped, jittered backoff (RETRY_MIN_S doubling to
RETRY_MAX_S, each wait taken at random between half and all of it): back within
RETRY_MAX_S of a broker's return, the tables of a room spread over it.

Client: aiomqtt (asyncio, on paho-mqtt 2.x), MQTT 3.1.1, clean session, client id
``jantaku-<id>``.
"""
import asyncio
import collections
import json
import random
import time

import structlog
from pydantic import ValidationError

from hostd.core.commands import COMMANDS
from hostd.fleet.broker import client_class, describe_error, topic
from hostd.errors import JantakuError, describe_validation
from hostd.strictjson import MAX_BODY_BYTES, BodyRefused, read_object, too_large

log = structlog.get_logger("jantaku.mqtt")

STATUS_INTERVAL_S = 0.25  # at most four status messages a second (builds change it per tile)
STATUS_CHECK_S = 1.0  # status is looked at this often even without an event
OUTBOX_LIMIT = 10000  # messages; a build is some 300 events, so more than half an hour of builds
RETRY_MIN_S = 0.5
RETRY_MAX_S = 3.0  # a table is back within this of the broker's return, however long it was away
RETRY_LOG_S = 60.0  # while the broker stays away, one warning a minute (each try at debug)
KEEPALIVE_S = 30  # the broker declares a silent daemon dead (and says "offline") in 1.5x this
PUBLISH_TIMEOUT_S = 10.0
CLOSE_TIMEOUT_S = 3.0
MAX_COMMAND_BYTES = MAX_BODY_BYTES  # as the API's bodies (hostd/strictjson.py)
TOPIC_BYTES = 1024  # what a command's packet holds besides its payload (its topic), at most
MAX_MESSAGE_BYTES = 64 * 1024  # what the bridge publishes (docs/FLEET.md's broker: 128 KiB packets)
MAX_ID_CHARS = 128
REMEMBERED_IDS = 256  # a repeated command id is answered from here without running again


class Verb:
    """An MQTT verb: the command of the one list it runs (hostd/core/commands.py)."""

    __slots__ = ("command",)

    def __init__(self, command):
        self.command = command

    @property
    def accepted(self):
        return "%s, each with an optional \"id\"" % self.command.accepted


#: the commands, by verb, made from the one list (each command with an MQTT verb): every
#: one moves motors or changes the game, so all are off unless the table's owner turns
#: them on (``jantaku run --mqtt-commands``).
VERBS = {c.mqtt: Verb(c) for c in COMMANDS if c.mqtt}
ID_ACCEPTED = "a string of 1 to %d characters or an integer" % MAX_ID_CHARS


def _error(status, code, message):
    return status, {"error": {"code": code, "message": message}}


def parse_command(verb, payload):
    """``(body, None)`` for a well-formed command, or ``(None, (status, answer))`` with the
    answer the API gives for such a body on the verb's route: the same strict JSON reader
    (hostd/strictjson.py: size first, then JSON, then an object) and the same request model
    (hostd/core/requests.py), the envelope's ``id`` aside."""
    spec = VERBS.get(verb)
    if spec is None:
        return None, _error(404, "not_found", "no command %r; the verbs are %s"
                            % (verb[:40], ", ".join(sorted(VERBS))))
    try:
        body = read_object(payload, spec.accepted, noun="payload")
    except BodyRefused as e:
        return None, (e.status, {"error": e.to_dict()})
    fields = {k: v for k, v in body.items() if k != "id"}
    try:
        spec.command.request.model_validate(fields)
    except ValidationError as e:
        return None, _error(422, "bad_request", "%s; accepted: %s"
                            % (describe_validation(e.errors()), spec.accepted))
    cid = body.get("id")
    if "id" in body and not (
            (isinstance(cid, str) and 0 < len(cid) <= MAX_ID_CHARS)
            or (isinstance(cid, int) and not isinstance(cid, bool))):
        return None, _error(422, "bad_request", "id: must be %s" % ID_ACCEPTED)
    return body, None


async def run_command(daemon, verb, body):
    """Run one command on ``daemon`` as the API does: ``(status, answer)`` where answer is
    the method's result, or ``{"error": {"code", "message"}}`` with the status the API
    gives (hostd/errors.py)."""
    spec = VERBS[verb]
    model = spec.command.request.model_validate({k: v for k, v in body.items() if k != "id"})
    try:
        return 200, await spec.command.run(daemon, model)  # the handler the API runs
    except JantakuError as e:
        return e.status, {"error": e.to_dict()}
    except Exception as e:  # as the API: a 500, the traceback in the log
        log.exception("mqtt command failed", verb=verb)
        return _error(500, "internal", "internal error (%s); see the daemon's log"
                      % type(e).__name__)


def compact_status(st):
    """What a fleet needs of ``Daemon.status()``: the one state, what happens next, what
    the table would accept, the open fault (and the last one), the table's own state,
    the session's ruleset, game, hand, where each deck is and its counts (not the builds,
    hands and faults lists)."""
    t = st.get("table") or {}
    s = st.get("session")
    fault = st.get("fault")
    if fault is not None:
        fault = {k: fault.get(k) for k in ("kind", "track", "message", "todo", "action")}
    # the session's last fault, recovered or not (Home Assistant's "last fault"), else the
    # open one
    last_fault = None
    if s and s.get("faults"):
        f = s["faults"][-1]
        last_fault = {"kind": f.get("kind"), "message": f.get("message"),
                      "recovered": bool(f.get("recovered"))}
    if fault is not None and (last_fault is None or last_fault["recovered"]):
        last_fault = {"kind": fault["kind"], "message": fault["message"], "recovered": False}
    build = t.get("build")
    state = st.get("state") or {}
    out = {
        "state": state.get("name"),
        "seq": state.get("seq"),
        "table_state": t.get("state"),
        "connected": bool(t.get("connected")),
        "error": None if t.get("connected") else t.get("error"),
        "fault": fault,
        "last_fault": last_fault,
        "next": st.get("next"),
        "can": st.get("can"),
        "session": None,
        "build": {"id": build.get("id"), "tiles": sum(build.get("per_track") or ()),
                  "of": sum(build.get("targets") or ())} if build else None,
    }
    if s:
        out["session"] = {
            "id": s.get("id"), "ruleset": s.get("ruleset"), "mixed_deck": s.get("mixed_deck"),
            "game": s.get("game"), "hand": s.get("game_hand"),
            "decks": {name: {k: d[k] for k in ("where", "tiles", "backs") if k in d}
                      for name, d in sorted((s.get("decks") or {}).items())},
        }
        if s.get("dice") is not None:
            out["session"]["dice"] = s["dice"]
        if s.get("score") is not None:  # each seat's score (Home Assistant: a sensor each)
            out["session"]["score"] = s["score"]
    return out


def _dumps(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, default=str).encode()


class Outbox:
    """Messages waiting for the broker, oldest first, at most ``limit``.  A full outbox
    drops its oldest message not being sent (counted; the events' ``seq`` range kept for
    the ``events_dropped`` event that takes their place)."""

    def __init__(self, limit=OUTBOX_LIMIT):
        if limit < 1:
            raise ValueError("the outbox holds at least one message")
        self.limit = limit
        self._q = collections.deque()
        self._ready = asyncio.Event()
        self.sending = None  # the message being sent (kept until the broker acknowledged it)
        self.dropped = 0  # every message dropped since the start
        self.gap = None  # {"count", "first_seq", "last_seq", "replies"} not reported yet

    def __len__(self):
        return len(self._q)

    def put(self, topic_, payload, seq=None):
        if len(payload) > MAX_MESSAGE_BYTES:  # the broker would disconnect the table for it
            log.warning("mqtt message too large: dropped (counted and reported)",
                        topic=topic_, bytes=len(payload), most=MAX_MESSAGE_BYTES)
            self._count_drop(seq, why=None)
            return
        if len(self._q) >= self.limit:
            at = 1 if (self._q and self._q[0] is self.sending) else 0
            if at < len(self._q):
                _, _, lost = self._q[at]
                del self._q[at]
                self._count_drop(lost)
            else:  # limit 1 and that one is in flight: the new message is the one lost
                self._count_drop(seq)
                return
        self._q.append((topic_, payload, seq))
        self._ready.set()

    def _count_drop(self, seq, why="full"):
        self.dropped += 1
        if self.gap is None and why:
            log.warning("mqtt outbox full: dropping the oldest messages (counted and reported "
                        "when the broker is back)", limit=self.limit)
        self.restore_gap({"count": 0 if seq is None else 1, "first_seq": seq, "last_seq": seq,
                          "replies": 1 if seq is None else 0})

    def take_gap(self):
        """What was dropped and not reported yet (None if nothing): report it, or give it
        back with :meth:`restore_gap`."""
        gap, self.gap = self.gap, None
        return gap

    def restore_gap(self, g):
        if self.gap is None:
            self.gap = dict(g)
            return
        mine = self.gap
        for k in ("count", "replies"):
            mine[k] += g[k]
        seqs = [x for x in (mine["first_seq"], g["first_seq"]) if x is not None]
        mine["first_seq"] = min(seqs) if seqs else None
        seqs = [x for x in (mine["last_seq"], g["last_seq"]) if x is not None]
        mine["last_seq"] = max(seqs) if seqs else None

    async def head(self):
        """The oldest message (waits for one); it stays until :meth:`done`."""
        while not self._q:
            self._ready.clear()
            await self._ready.wait()
        self.sending = self._q[0]
        return self.sending

    def done(self, item):
        """The broker acknowledged ``item``."""
        if self._q and self._q[0] is item:
            self._q.popleft()
        if self.sending is item:
            self.sending = None


class Bridge:
    """One table on one broker.  ``await start()`` then ``await close()``; ``get_status()``
    for the daemon's view of the link to the broker."""

    def __init__(self, daemon, broker, table_id, *, commands=False, outbox_limit=OUTBOX_LIMIT,
                 status_interval=STATUS_INTERVAL_S, retry=(RETRY_MIN_S, RETRY_MAX_S),
                 keepalive=KEEPALIVE_S, client_factory=None, discovery_prefix=None,
                 sw_version=None):
        self.daemon = daemon
        self.broker = broker
        self.table_id = table_id
        self.commands = bool(commands)
        self.outbox = Outbox(outbox_limit)
        self.status_interval = status_interval
        self.retry = retry
        self.keepalive = keepalive
        self._client_factory = client_factory
        self.discovery_prefix = discovery_prefix  # Home Assistant's (hostd/fleet/ha.py); None: off
        self.sw_version = sw_version
        self.connected = False
        self.error = None
        self.connects = 0
        self.seq = 0
        self.sent = 0
        self._answers = collections.OrderedDict()  # command id -> reply (or a future)
        self._status_changed = asyncio.Event()
        self._stop = asyncio.Event()
        self._tasks = []
        self._commands_running = set()
        self.topics = {k: topic(table_id, k) for k in ("availability", "status", "events", "reply")}
        self.topics["command"] = topic(table_id, "command", "+")

    # -- life -------------------------------------------------------------------------------
    async def start(self):
        for w in self.warnings():
            log.warning(w)
        events = self.daemon.subscribe()
        first = asyncio.ensure_future(events.__anext__())  # subscribed from now on
        await asyncio.sleep(0)
        self._tasks = [asyncio.create_task(self._pump(events, first), name="mqtt-pump"),
                       asyncio.create_task(self._run(), name="mqtt")]

    async def close(self):
        """Say ``offline`` (retained) and disconnect; nothing waits more than CLOSE_TIMEOUT_S."""
        self._stop.set()
        runner = self._tasks[1] if len(self._tasks) > 1 else None
        if runner is not None:
            try:
                await asyncio.wait_for(asyncio.shield(runner), CLOSE_TIMEOUT_S)
            except (asyncio.TimeoutError, Exception):
                pass
        for t in list(self._tasks) + list(self._commands_running):
            t.cancel()
        await asyncio.gather(*self._tasks, *self._commands_running, return_exceptions=True)

    def get_status(self):
        return {"broker": self.broker.url(), "table_id": self.table_id,
                "connected": self.connected, "error": self.error, "queued": len(self.outbox),
                "sent": self.sent, "dropped": self.outbox.dropped, "connects": self.connects,
                "commands": self.commands, "discovery": self.discovery_prefix,
                "warnings": self.warnings()}

    def warnings(self):
        """What the owner should know of how commands reach this table: with commands on, a
        broker reached without a user (anyone who reaches the broker may be able to command
        the table, as far as its ACL lets anonymous clients) or without TLS (the commands and
        the password cross the network in clear).  Said at start and in ``health``."""
        if not self.commands:
            return []
        out = []
        if self.broker.username is None:
            out.append("mqtt: commands are on over a broker reached without a user (%s): "
                       "whoever the broker lets in anonymously may move this table's motors; "
                       "give the table its own user (mqtt://USER@HOST, docs/FLEET.md's ACL)"
                       % self.broker.url())
        if not self.broker.tls:
            out.append("mqtt: commands are on over plain mqtt:// (%s): commands and the "
                       "password cross the network in clear; use mqtts:// (docs/FLEET.md)"
                       % self.broker.url())
        return out

    # -- the daemon's side ------------------------------------------------------------------
    async def _pump(self, events, first):
        """Every event into the outbox, at once (the daemon never waits for the broker)."""
        ev = await first
        while True:
            if isinstance(ev, dict) and isinstance(ev.get("type"), str):
                self.seq += 1
                self.outbox.put(self.topics["events"], _dumps(dict(ev, seq=self.seq)), self.seq)
                self._status_changed.set()
            ev = await events.__anext__()

    def status_payload(self):
        body = compact_status(self.daemon.status())
        body["id"] = self.table_id
        body["events_dropped"] = self.outbox.dropped
        return body

    # -- the broker's side ------------------------------------------------------------------
    def _client(self):
        import aiomqtt

        factory = self._client_factory or client_class()
        return factory(**self.broker.client_kwargs(), identifier="jantaku-" + self.table_id,
                       clean_session=True, keepalive=self.keepalive, timeout=PUBLISH_TIMEOUT_S,
                       will=aiomqtt.Will(self.topics["availability"], b"offline", qos=1,
                                         retain=True),
                       # a command too large is never read whole: answered 413 (or 403)
                       max_publish_bytes=MAX_COMMAND_BYTES + TOPIC_BYTES,
                       on_too_large=self._too_large)

    def retry_delay(self, failures):
        """The wait before the next try, after ``failures`` failed ones in a row: doubling
        from the shortest to the longest (RETRY_MIN_S .. RETRY_MAX_S), each taken at
        random between half and all of it.  The longest is short, so a table is back
        within it of a broker's return however long the outage was, and at random, so 50
        tables come back spread over it rather than at once."""
        shortest, longest = self.retry
        return min(longest, shortest * 2 ** min(failures, 32)) * random.uniform(0.5, 1.0)

    async def _run(self):
        failures = 0
        down = None  # (since when, the error last logged, when) while the broker is away
        while not self._stop.is_set():
            try:
                await self._connected_session()
                failures, down = 0, None
            except asyncio.CancelledError:
                raise
            except Exception as e:
                was = self.connected
                self.connected = False
                self.error = describe_error(e)
                if self._stop.is_set():
                    break
                if was:
                    failures, down = 0, None  # it was connected: again from the shortest
                delay = self.retry_delay(failures)
                failures += 1
                down = self._log_retry(was, down, failures, delay)
                try:
                    await asyncio.wait_for(self._stop.wait(), delay)
                except asyncio.TimeoutError:
                    pass
        self.connected = False

    def _log_retry(self, was, down, failures, delay):
        """A warning when the broker is lost or its error changes, then one a minute while
        it stays away (the tries between at debug level: they come every few seconds)."""
        now = time.monotonic()
        if down is None or down[1] != self.error or now - down[2] >= RETRY_LOG_S:
            log.warning("mqtt broker lost" if was else "mqtt broker not reachable",
                        broker=self.broker.url(), error=self.error, tries=failures,
                        away_s=round(now - down[0]) if down else 0,
                        retry_in_s=round(delay, 1), queued=len(self.outbox))
            return (down[0] if down else now, self.error, now)
        log.debug("mqtt broker not reachable", error=self.error, tries=failures,
                  retry_in_s=round(delay, 1))
        return down

    async def _connected_session(self):
        client = self._client()
        async with client:
            self.connected = True
            self.error = None
            self.connects += 1
            log.info("mqtt connected", broker=self.broker.url(), table_id=self.table_id,
                     commands="on" if self.commands else "off", queued=len(self.outbox))
            await client.publish(self.topics["availability"], b"online", qos=1, retain=True)
            if self.discovery_prefix:
                await self._publish_discovery(client)
            granted = await client.subscribe(self.topics["command"], qos=1)
            if any(int(getattr(g, "value", g)) >= 0x80 for g in granted):
                (log.error if self.commands else log.info)(
                    "mqtt: the broker does not let this table read its commands (its ACL)",
                    topic=self.topics["command"])
            tasks = [asyncio.create_task(self._receive(client)),
                     asyncio.create_task(self._send(client)),
                     asyncio.create_task(self._publish_status(client)),
                     asyncio.create_task(self._stop.wait())]
            try:
                done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                if tasks[-1] in done:  # stopping: what the outbox holds goes first, briefly
                    end = time.monotonic() + CLOSE_TIMEOUT_S / 2
                    while len(self.outbox) and time.monotonic() < end \
                            and not any(t.done() for t in tasks[:3]):
                        await asyncio.sleep(0.02)
            finally:
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
            for t in done:
                if not t.cancelled() and t.exception() is not None:
                    raise t.exception()
            # stopping: the last word is "offline", then a clean disconnect (no will)
            self.connected = False
            try:
                await client.publish(self.topics["availability"], b"offline", qos=1,
                                     retain=True, timeout=CLOSE_TIMEOUT_S / 2)
            except Exception as e:
                log.info("mqtt: offline not confirmed (the will says it)", error=str(e))

    async def _publish_discovery(self, client):
        """Home Assistant's discovery configs, retained, on every connection (the same
        payload again changes nothing there); the buttons removed when commands are off."""
        from hostd.fleet import ha

        for topic_, cfg in ha.configs(self.table_id, prefix=self.discovery_prefix,
                                      commands=self.commands, sw_version=self.sw_version):
            await client.publish(topic_, ha.payload(cfg), qos=1, retain=True)

    async def _send(self, client):
        """The outbox, oldest first, one message acknowledged before the next (in order)."""
        ob = self.outbox
        try:
            await self._send_all(client, ob)
        finally:
            ob.sending = None  # not sent: the oldest again, dropped first if it must be

    async def _send_all(self, client, ob):
        while True:
            gap = ob.take_gap()
            if gap is not None:  # in the place of what was lost, before what follows it
                try:
                    await client.publish(self.topics["events"],
                                         _dumps(dict(gap, type="events_dropped")), qos=1)
                except BaseException:
                    ob.restore_gap(gap)
                    raise
                self._status_changed.set()
                continue
            item = await ob.head()
            topic_, payload, _ = item
            await client.publish(topic_, payload, qos=1)
            ob.done(item)
            self.sent += 1

    async def _publish_status(self, client):
        last = None
        last_at = 0.0
        while True:
            self._status_changed.clear()
            body = self.status_payload()
            key = _dumps(body)
            if key != last:
                wait = self.status_interval - (time.monotonic() - last_at)
                if wait > 0:
                    await asyncio.sleep(wait)
                    continue  # look again: it may have changed meanwhile
                body["at"] = round(time.time(), 3)
                await client.publish(self.topics["status"], _dumps(body), qos=1, retain=True)
                last, last_at = key, time.monotonic()
            try:
                await asyncio.wait_for(self._status_changed.wait(), STATUS_CHECK_S)
            except asyncio.TimeoutError:
                pass

    async def _receive(self, client):
        """Commands; returns (raises) when the connection is lost."""
        async for msg in client.messages:
            verb = str(msg.topic).rsplit("/", 1)[-1]
            payload = msg.payload if isinstance(msg.payload, (bytes, bytearray)) else \
                str(msg.payload or "").encode()
            t = asyncio.create_task(self._command(verb, bytes(payload),
                                                 retained=bool(getattr(msg, "retain", False))))
            self._commands_running.add(t)
            t.add_done_callback(self._commands_running.discard)
        raise ConnectionError("the broker closed the connection")

    def _too_large(self, topic_, size):
        """A command whose packet was too large to be read (hostd/fleet/broker.py
        SizeGuard): answered as its payload's size says, without it."""
        verb = topic_.rsplit("/", 1)[-1]
        if not self.commands:
            status, answer = self._commands_off()
        elif verb not in VERBS:
            status, answer = parse_command(verb, b"")[1]
        else:
            e = too_large("payload", "over %d bytes (a packet of %d)" % (MAX_COMMAND_BYTES, size),
                          VERBS[verb].accepted)
            status, answer = e.status, {"error": e.to_dict()}
        log.info("mqtt command refused", verb=verb[:40], status=status,
                 code=answer["error"]["code"], bytes=size)
        self._reply(verb, None, status, answer)

    def _commands_off(self):
        return _error(403, "commands_off", "remote commands are off on table %s: its owner "
                      "turns them on with `jantaku run ... --mqtt-commands` (a hand over "
                      "from afar drops a hand in play)" % self.table_id)

    def _retained(self, verb):
        name = topic(self.table_id, "command", verb[:40])
        return _error(400, "retained", "a retained message on %s is not a command: the broker "
                      "keeps it and hands it out again at every connection, so it would run "
                      "each time; it was not run. Publish commands without retain, and clear "
                      "this one: mosquitto_pub -r -n -t %s" % (name, name))

    def _empty(self, verb):
        return _error(400, "empty_payload", "a zero-length message on %s is not a command: it is "
                      "how a retained message is cleared (mosquitto_pub -r -n), and it was not "
                      "run. A command with nothing to say is {}"
                      % topic(self.table_id, "command", verb[:40]))

    async def _command(self, verb, payload, retained=False):
        if retained:  # (the broker's stored copy, on our subscription: never a fresh command)
            body, refusal = None, self._retained(verb)
        elif not payload:  # (a retained command's clearing: delivered live to subscribers)
            body, refusal = None, self._empty(verb)
        elif not self.commands:  # nothing of the payload is read, whatever the verb
            body, refusal = None, self._commands_off()
        else:
            body, refusal = parse_command(verb, payload)
        cid = body.get("id") if body else None
        if refusal is not None:
            status, answer = refusal
            log.info("mqtt command refused", verb=verb[:40], status=status,
                     code=answer["error"]["code"])
        else:
            key = json.dumps([verb, cid]) if cid is not None else None
            known = self._answers.get(key) if key else None
            if known is not None:  # the same command again: answered, not run again
                status, answer = await asyncio.shield(known) if isinstance(known, asyncio.Future) \
                    else known
                self._reply(verb, cid, status, answer, repeat=True)
                return
            fut = None
            if key:
                fut = asyncio.get_running_loop().create_future()
                self._remember(key, fut)
            log.info("mqtt command", verb=verb, id=cid)
            try:
                status, answer = await run_command(self.daemon, verb, body)
            except BaseException:
                if key:
                    self._answers.pop(key, None)
                if fut is not None and not fut.done():
                    fut.cancel()
                raise
            if key:
                self._answers[key] = (status, answer)
                fut.set_result((status, answer))
        self._reply(verb, cid, status, answer)

    def _remember(self, key, value):
        self._answers[key] = value
        while len(self._answers) > REMEMBERED_IDS:
            self._answers.popitem(last=False)

    def _reply(self, verb, cid, status, answer, repeat=False):
        reply = {"verb": verb[:40], "id": cid, "status": status}
        if status < 400:
            reply["result"] = answer
        else:
            reply.update(answer)
        if repeat:
            reply["repeat"] = True
        self.outbox.put(self.topics["reply"], _dumps(reply))
