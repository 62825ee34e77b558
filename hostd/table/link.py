"""The host end of the serial link (layer: link).

Keeps a link to the table up for as long as the daemon runs: opens the transport, runs
the protocol's handshake (protocol.link.Link in the host role), reconnects with backoff
after an unplug, notices a firmware reset by its boot nonce, and turns the table's
RESULT events into awaited command outcomes.  Above this module nothing sees bytes.
"""
import asyncio

import structlog

from hostd.errors import JantakuError, NotReady
from hostd.table.transport import TransportLost
from protocol import link as plink
from protocol import messages as m

log = structlog.get_logger("jantaku.link")


class TableGone(NotReady):
    """The table is not connected (unplugged, resetting, or never found)."""

    def __init__(self, message):
        super().__init__(message, code="not_connected", status=503)


class CommandRejected(JantakuError):
    """The table answered a command with an error code."""

    def __init__(self, msgid, code, field, values):
        name = m.name_of(msgid)
        fields = m.lookup(msgid)[3]
        what = m.code_name(m.ERRORS, code)
        if field != m.NO_FIELD and field < len(fields):
            fname = fields[field][0]
            text = "the table refused %s: %s (field %s=%r)" % (name, what, fname, values[field])
        else:
            text = "the table refused %s: %s" % (name, what)
        super().__init__(text, code="table_" + what, status=409)
        self.msgid, self.result, self.field = msgid, code, field


#: bytes decoded per turn of the pump: then it yields to the event loop (an HTTP request, an
#: abort) whatever the line still holds; the rest waits in the port's buffer
PUMP_BYTES = 2048
#: a line fault (protocol/SPEC.md "A line that floods"): over FLOOD_BYTES_S bytes a second,
#: or at least GARBAGE_BYTES a second and not one good frame, for LINE_FAULT_S seconds on
#: end.  A table sends well under 5 KB/s (a build's tile events, heartbeats); a UART at
#: 115200 baud carries 11.5 KB/s at most, USB CDC about 1 MB/s
FLOOD_BYTES_S = 32 * 1024
GARBAGE_BYTES = 256
LINE_FAULT_S = 2
#: seconds the port stays closed after a line fault (doubling to LINE_FAULT_MAX_S while it
#: goes on): bytes sent meanwhile are thrown away when it opens again
LINE_FAULT_BACKOFF_S = (1.0, 30.0)


class LineFault(Exception):
    """The table's line floods or carries no frames (``code``: line_flood, line_garbage)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


#: commands in a row without a RESULT within their timeout (10 s; the table answers one in
#: milliseconds, its long work comes as events) while the table is heard,
#: before the host makes a new session (protocol/SPEC.md §6 "Out of step")
RESYNC_AFTER_TIMEOUTS = 1

BOOT_MARKER = b"jantaku: boot error: "  # firmware/bootfail.py MARKER
#: the commands that start (or allow) motion: sent only once the host's journal holds what
#: led to them (STOP, ABORT, STATUS, LIGHT and the like never wait)
MOTION = (m.MIX, m.BUILD, m.LIFT, m.DOOR, m.SELF_TEST, m.CALIBRATE, m.CLEAR_FAULT,
          m.CONFIGURE_BUILD, m.PIN_PULSE)


class LinkClient:
    """Owns the transport and the protocol Link; one task (`run`) pumps both."""

    def __init__(self, transport, *, on_event, on_change=None, backoff=(0.2, 5.0),
                 command_timeout=10.0, before_motion=None):
        self.transport = transport
        # awaited before a command that starts motion (MOTION) is sent: the daemon's
        # journal committing what led to it (hostd/core/journal/writer.py); a stop never waits
        self._before_motion = before_motion
        self._on_event = on_event  # (msgid, values) for every event but RESULT
        self._on_change = on_change or (lambda what, detail: None)
        self._backoff = backoff
        self._timeout = command_timeout
        self.link = None
        self.identity = None  # dict, once the handshake is done
        self.about = None  # runtime and colour names (ABOUT, right after IDENTITY)
        self.connected = False
        self.error = None  # why we are not connected, in words
        self.resets = 0  # firmware resets noticed (boot nonce changed)
        self.line_fault = None  # {"code", "message", ...}: a LineFault not followed by a session
        self.line_faults = 0  # LineFaults on end (the port's closed time doubles with them)
        self._pending = {}  # command seq -> (future, msgid, values)
        self._deadlines = {}  # command seq -> (link clock ms when it times out, future)
        self._timeouts = 0  # commands in a row that got no RESULT in time
        self.resyncs = 0  # new sessions made because the link was out of step
        self._up = asyncio.Event()
        self._about = asyncio.Event()
        self._stop = False
        self._logged_why = None
        self.boot_error = None  # the line a board that cannot start says (firmware/bootfail.py)
        self._text = bytearray()  # the port's last bytes, looked through for that line

    # -- the pump -------------------------------------------------------------------------
    async def run(self):
        delay = self._backoff[0]
        while not self._stop:
            try:
                await self.transport.open()
            except TransportLost as e:
                self._down(str(e))
                await asyncio.sleep(delay)
                delay = min(delay * 2, self._backoff[1])
                continue
            delay = self._backoff[0]
            self.link = plink.Link(self.transport.clock, self._write, self._on_message,
                                   role="host", on_link=self._on_link, on_bad=self._on_bad)
            fault = None
            try:
                await self._pump()
            except TransportLost as e:
                self._down("link lost: %s" % e)
            except LineFault as e:
                fault = e
            finally:
                self.transport.close()
                self.link = None
            if fault is not None:
                await self._line_fault(fault)

    async def _line_fault(self, fault):
        """The port closed for a while after a LineFault: the daemon (its table, a thread
        of its event loop) is not a line's to starve.  Said as the reason the table is not
        connected, in `status` and `health` (table.line_fault)."""
        self.line_faults += 1
        hold = min(LINE_FAULT_BACKOFF_S[0] * 2 ** min(self.line_faults - 1, 8),
                   LINE_FAULT_BACKOFF_S[1])
        self.line_fault = {"code": fault.code, "message": str(fault), "count": self.line_faults,
                           "port_closed_s": hold}
        log.error("table line fault", fault=fault.code, why=str(fault), port_closed_s=hold)
        self._down("%s (table fault %s): the port is closed for %g s, then opened again"
                   % (fault, fault.code, hold))
        await asyncio.sleep(hold)

    async def _pump(self):
        link = self.link
        dropped = None  # the table's count of events it could not send (SPEC §10)
        clock = self.transport.clock
        window = clock.ticks_ms()  # this second of the line's: its bytes and frames
        got, frames = 0, link.decoder.frames
        flood = garbage = 0  # seconds on end the line flooded, or sent no frame
        virtual = getattr(self.transport, "virtual", False)
        while not self._stop:
            link.poll()
            self._expire_due()
            data = await self.transport.read(min(link.next_due_ms(), 50))
            # bounded: PUMP_BYTES decoded, then a turn of the event loop's for the rest of
            # the daemon, every turn (a read that always has bytes never waits: without the
            # turn a flooding line would leave /status and an abort unanswered)
            # (the in-process table's read gives its turns itself, before virtual time moves)
            for i in range(0, len(data), PUMP_BYTES):
                part = data[i:i + PUMP_BYTES]
                link.feed(part)
                if not self.connected:
                    self._look_for_boot_error(part)
                if not virtual or i + PUMP_BYTES < len(data):
                    await asyncio.sleep(0)
            got += len(data)
            ms = plink.ticks_diff(clock.ticks_ms(), window)
            if ms >= 1000:
                made, frames = link.decoder.frames - frames, link.decoder.frames
                rate = got * 1000 // ms
                flood = flood + 1 if rate > FLOOD_BYTES_S else 0
                garbage = garbage + 1 if rate >= GARBAGE_BYTES and not made else 0
                window, got = clock.ticks_ms(), 0
                if flood >= LINE_FAULT_S:
                    raise LineFault("line_flood", "the table's line floods: %d bytes/s for %d s "
                                    "(a table sends under %d; is something else on its port?)"
                                    % (rate, flood, FLOOD_BYTES_S))
                if garbage >= LINE_FAULT_S:
                    raise LineFault("line_garbage", "the table's line carries %d bytes/s and not "
                                    "one frame for %d s (a wrong baud rate, another device or "
                                    "program on the port?)" % (rate, garbage))
            hb = link.peer_heartbeat
            if hb is not None and hb[4] != dropped:
                if dropped is not None and hb[4] > dropped:
                    # events were lost (its window was full): the table client asks
                    # the table where it is, as after a reconnect
                    log.warning("the table dropped events", dropped=hb[4] - dropped)
                    self._on_event(m.HEARTBEAT, hb)
                dropped = hb[4]

    def _look_for_boot_error(self, data):
        """A board whose firmware cannot start says so as a text line, not a frame
        (protocol/SPEC.md "Boot errors"): kept as the reason the table is not connected."""
        t = self._text
        t += data
        i = t.find(BOOT_MARKER)
        if i < 0:
            del t[:max(0, len(t) - len(BOOT_MARKER))]
            return
        j = t.find(b"\n", i)
        if j < 0:
            if len(t) - i > 600:  # no line end in sight: not the line
                del t[:]
            else:
                del t[:i]
            return
        said = bytes(t[i + len(BOOT_MARKER):j]).decode(errors="replace").strip()
        del t[:j + 1]
        if said != self.boot_error:
            log.error("the table cannot start its firmware", said=said)
        self.boot_error = said
        self._down("the table's firmware cannot start: %s" % said)

    def stop(self):
        self._stop = True
        self.transport.close()

    def _write(self, buf, n):
        self.transport.write(bytes(buf[:n]))

    # -- link callbacks ---------------------------------------------------------------------
    def _on_message(self, msgid, values):
        if msgid == m.RESULT:
            self._timeouts = 0
            seq, cmd, code, field = values
            pending = self._pending.pop(seq, None)
            if pending is not None and not pending[0].done():
                fut, sent_id, sent_values = pending
                if code == m.OK:
                    fut.set_result(None)
                else:
                    fut.set_exception(CommandRejected(sent_id, code, field, sent_values))
            return
        if msgid == m.IDENTITY:
            self.identity = dict(zip(m.field_names(m.IDENTITY), values))
        elif msgid == getattr(m, "ABOUT", -1):
            self.about = dict(zip(m.field_names(msgid), values))
            self._about.set()
        self._on_event(msgid, values)

    def _on_link(self, ev):
        link = self.link
        if ev == plink.NEW:
            self.line_fault, self.line_faults = None, 0
            self._about.clear()
            self.boot_error = None
            if link.identity is not None:  # the IDENTITY that made the session
                self.identity = dict(zip(m.field_names(m.IDENTITY), link.identity))
            rebooted = link.peer_rebooted
            if rebooted:
                self.resets += 1
            self.connected, self.error = True, None
            self._up.set()
            log.info("table connected", board=self.identity and self.identity["board"],
                     firmware=self.identity and self.identity["firmware"], rebooted=rebooted)
            self._on_change("reset" if rebooted else "connected", self.identity)
        elif ev == plink.UP:
            self.connected, self.error = True, None
            self._up.set()
            self._on_change("up", None)
        elif ev == plink.LOST:
            self._down("the table went silent")
        elif ev == plink.PEER_RESET:
            self._down("the table restarted; reconnecting", reset=True)
        elif ev == plink.RESYNC:
            self._resynced("the table acknowledged behind what it had acknowledged (a forged "
                           "or corrupt ack)")
        elif ev == plink.INCOMPATIBLE:
            self._down(link.error or "the table speaks another protocol version")
            log.error("protocol version mismatch", error=self.error)

    def _resynced(self, why):
        """The link was out of step and a new session is being made: what waited fails as
        after a lost link, and the table client carries on once the session is up (the
        table's state is untouched by a new session)."""
        self.resyncs += 1
        log.warning("table link out of step: connecting again", why=why)
        self._down("out of step with the table (%s): connecting again, the operation kept"
                   % why)

    def _on_bad(self, msgid, code, field):
        log.warning("bad frame from table", msgid=m.name_of(msgid),
                    error=m.code_name(m.ERRORS, code), field=field)

    def _down(self, why, reset=False):
        was = self.connected
        self.connected, self.error = False, why
        self._up.clear()
        for fut, _, _ in self._pending.values():
            if not fut.done():
                fut.set_exception(TableGone("command lost: %s" % why))
        self._pending.clear()
        if was or reset:
            log.warning("table disconnected", why=why)
            self._on_change("reset" if reset else "disconnected", why)
        elif why != self._logged_why:  # why it cannot connect, said once per new reason
            log.warning("table not connected", why=why)
        self._logged_why = why

    # -- commands ---------------------------------------------------------------------------
    async def wait_connected(self, timeout=None):
        try:
            await asyncio.wait_for(self._up.wait(), timeout)
        except asyncio.TimeoutError:
            raise TableGone("no table connected: %s" % (self.error or "waiting for the handshake")) from None
        try:  # `about` follows `identity` at once (older firmware may not send it)
            await asyncio.wait_for(self._about.wait(), 1.0)
        except asyncio.TimeoutError:
            pass

    async def command(self, msgid, values=(), *, timeout=None):
        """Send a command and wait for the table's RESULT; raises CommandRejected or
        TableGone.  Exactly-once delivery is the protocol's job."""
        if msgid in MOTION and self._before_motion is not None:
            await self._before_motion()
        if not self.connected or self.link is None:
            raise TableGone("no table connected: %s" % (self.error or "not yet"))
        link = self.link
        while not link.send(msgid, values):
            if not self.connected:
                raise TableGone("no table connected: %s" % self.error)
            await asyncio.sleep(0.005)  # window full: the pump drains it
        seq = link.sent_seq
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self._pending[seq] = (fut, msgid, tuple(values))
        # the future itself is awaited, its timeout a deadline on the link's clock that
        # the pump looks at every turn (virtual time in-process: a table that never answers
        # is noticed after 10 table seconds, not wall seconds): asyncio.wait_for (Python
        # 3.11) returns the result of a future done in the same loop pass as a cancel
        # and drops the cancel, so a step cancelled (an abort, the daemon closing) as a
        # RESULT came went on to wait for an event from a link that was gone
        clock = self.transport.clock
        self._deadlines[seq] = (plink.ticks_add(clock.ticks_ms(),
                                                int((timeout or self._timeout) * 1000)), fut)
        try:
            return await fut
        except asyncio.TimeoutError:
            self._pending.pop(seq, None)
            self._timeouts += 1
            if self._timeouts >= RESYNC_AFTER_TIMEOUTS and self.link is link and self.connected:
                self._timeouts = 0
                link.connect()  # heard, yet deaf to our commands: a new session
                self._resynced("%s got no result within %.0f s while the table was heard"
                               % (m.name_of(msgid), timeout or self._timeout))
            raise TableGone("the table did not answer %s within %.0f s"
                            % (m.name_of(msgid), timeout or self._timeout)) from None
        finally:
            if self._deadlines.get(seq, (0, None))[1] is fut:
                del self._deadlines[seq]

    def _expire_due(self):
        """Commands whose RESULT did not come by their deadline (the link's clock)."""
        if not self._deadlines:
            return
        now = self.transport.clock.ticks_ms()
        for seq, (due, fut) in list(self._deadlines.items()):
            if plink.ticks_diff(now, due) >= 0:
                del self._deadlines[seq]
                _expire(fut)

    def mark(self):
        """An instant on the link clock, for `seconds_since`."""
        return self.transport.clock.ticks_ms()

    def seconds_since(self, mark):
        """Table seconds since `mark` (virtual time in-process; the wall times the
        simulator's speed on a sped-up pseudo-terminal)."""
        ms = plink.ticks_diff(self.transport.clock.ticks_ms(), mark)
        return ms / 1000.0 * self.transport.time_scale

    def get_status(self):
        st = {"connected": self.connected, "error": self.error, "resets": self.resets,
              "resyncs": self.resyncs,
              "line_fault": self.line_fault}
        if self.link is not None:
            st["link"] = self.link.stats()
        return st


def _expire(fut):
    """A command's RESULT did not come in time (Link.command's timer)."""
    if not fut.done():
        fut.set_exception(asyncio.TimeoutError())
