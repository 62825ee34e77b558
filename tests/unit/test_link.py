"""The host link client and table client against a scripted device that speaks the real
protocol (protocol.link.Link in the device role) in virtual time."""
import asyncio

import pytest

from hostd.table.link import CommandRejected, LinkClient, TableGone
from hostd.table.client import TableClient, TableFault
from hostd.table.transport import InProcessTransport
from protocol import link as plink
from protocol import messages as m


class Clock:
    def __init__(self):
        self.ms = 0

    def ticks_ms(self):
        return self.ms & ((1 << 30) - 1)


class ScriptedTable:
    """The verbs of hw_sim.inprocess.InProcessTable over a device Link whose commands
    are answered by `handler(msgid, values, dev)`."""

    def __init__(self, handler, boot_nonce=1234):
        self.clock = Clock()
        self.out = bytearray()
        self.handler = handler
        self.later = []  # (due ms, fn)
        self.boot(boot_nonce)

    def boot(self, nonce):
        self.dev = plink.Link(self.clock, self._write, self._cmd, role="device",
                              boot_nonce=nonce,
                              identity={"firmware": "test", "board": "scripted", "tracks": 4,
                                        "max_stacks": 18, "colours": 2,
                                        "implementation": "micropython", "version": "1.29.0",
                                        "colour_names": "ivory,jade"})

    def _write(self, buf, n):
        self.out += bytes(buf[:n])

    def _cmd(self, msgid, values):
        return self.handler(msgid, values, self)

    def at(self, delay_ms, fn):
        self.later.append((self.clock.ms + delay_ms, fn))

    def now_ms(self):
        return self.clock.ms

    def write(self, data):
        self.dev.feed(data)

    def run(self, max_ms):
        end = self.clock.ms + max_ms
        while self.clock.ms < end and not self.out:
            self.clock.ms += 1
            for item in sorted(self.later):
                if item[0] <= self.clock.ms:
                    self.later.remove(item)
                    item[1]()
            self.dev.poll()
        data, self.out = bytes(self.out), bytearray()
        return data


def good_table(msgid, values, t):
    if msgid == m.CONFIGURE_BUILD:
        t.targets = list(values[1])
        return 0
    if msgid == m.BUILD:
        bid = values[0]

        def finish():
            # 4 tracks x (unknown, blue, green)
            counts = []
            for n in t.targets:
                counts += [0, n // 2, n - n // 2]
            for i in range(1, 4):
                t.dev.send(m.TILE, (bid, 1, i, 1, 100, 20, 30, 50))
            t.dev.send(m.BUILD_DONE, (bid, counts, 1))

        t.at(20000, finish)
        return 0
    if msgid == m.LIFT:
        t.at(4000, lambda: t.dev.send(m.LIFT_DONE, (m.LIFT_TOP,)))
        t.at(8000, lambda: t.dev.send(m.LIFT_DONE, (m.LIFT_BOTTOM,)))
        return 0
    if msgid == m.DOOR:
        state = m.DOOR_OPEN if values[0] else m.DOOR_CLOSED
        t.at(600, lambda: t.dev.send(m.DOOR_STATE, (state,)))
        return 0
    if msgid == m.STOP:
        return m.E_NOT_ALLOWED
    return 0


async def connected(table):
    tr = InProcessTransport(table)
    holder = {}
    client = LinkClient(tr, on_event=lambda i, v: holder["t"].on_event(i, v),
                        on_change=lambda w, d: holder["t"].link_changed(w, d))
    tc = holder["t"] = TableClient(client)
    task = asyncio.create_task(client.run())
    await client.wait_connected(timeout=5)
    return client, tc, task


def test_handshake_build_and_hand_over_in_virtual_time():
    async def go():
        table = ScriptedTable(good_table)
        client, tc, task = await connected(table)
        assert tc.identity["max_stacks"] == 18 and tc.identity["tracks"] == 4
        # the handshake's `about`: runtime and the table's own colour names
        assert client.about["implementation"] == "micropython"
        assert tc.identity["colours"] == ["ivory", "jade"]
        assert tc.identity["runtime"] == "micropython 1.29.0"
        res = await tc.build(1, [34] * 4, stacks=17, expect_empty=True)
        assert res["per_track"] == [34] * 4
        assert res["backs"] == {"ivory": 68, "jade": 68}
        assert 19.9 <= res["seconds"] <= 20.2  # virtual seconds, whatever the host's speed
        # the status: each track's count by back colour (the page draws from it), from
        # build_done's counts although only 3 of the 136 tile events came
        build = tc.get_status()["build"]
        assert build["per_track"] == [34] * 4
        assert build["backs"] == [{"ivory": 17, "jade": 17}] * 4
        turnaround = await tc.raise_walls(open_door=True)
        assert 3.99 <= turnaround <= 4.1
        await tc.settle()
        assert tc.lift == "bottom" and tc.door == "closed"
        client.stop()
        task.cancel()

    asyncio.run(go())


def test_a_build_done_the_table_dropped_is_learnt_from_its_status():
    """SPEC §10: the table's window was full and build_done was dropped (counted in the
    heartbeat's `dropped`): the host asks the table's status and the build ends there,
    instead of waiting for an event that will never come."""
    def table(msgid, values, t):
        if msgid == m.CONFIGURE_BUILD:
            t.targets, t.state = list(values[1]), m.S_IDLE
            return 0
        if msgid == m.BUILD:
            def finish():
                t.state = m.S_BUILT
                t.dev.dropped += 1  # build_done refused: the window was full

            t.state = m.S_BUILDING
            t.at(20000, finish)
            return 0
        if msgid == m.STATUS:
            counts = []
            for n in t.targets:
                counts += [0, n // 2, n - n // 2]
            t.at(1, lambda: t.dev.send(m.STATUS_REPLY, (
                getattr(t, "state", m.S_IDLE), 0, 1, 0, t.dev.dropped, t.targets, counts)))
            return 0
        return 0

    async def go():
        client, tc, task = await connected(ScriptedTable(table))
        try:
            res = await asyncio.wait_for(tc.build(1, [34] * 4, stacks=17, expect_empty=True), 5)
            assert res["per_track"] == [34] * 4
            assert res["backs"] == {"ivory": 68, "jade": 68}
            assert tc.state == "built"
        finally:
            client.stop()
            task.cancel()

    asyncio.run(go())


def test_a_fault_the_table_dropped_is_learnt_from_its_status_and_ends_the_build():
    """The FAULT event was among those dropped (a busy line): the status says the table
    is in fault, and the build waiting for its end fails as if the event had come."""
    def table(msgid, values, t):
        if msgid == m.CONFIGURE_BUILD:
            t.targets, t.state = list(values[1]), m.S_IDLE
            return 0
        if msgid == m.BUILD:
            def jam():
                t.state = m.S_FAULT
                t.dev.dropped += 1  # the FAULT event refused: the window was full

            t.state = m.S_BUILDING
            t.at(3000, jam)
            return 0
        if msgid == m.STATUS:
            t.at(1, lambda: t.dev.send(m.STATUS_REPLY, (
                getattr(t, "state", m.S_IDLE), m.F_JAM if getattr(t, "state", 0) == m.S_FAULT
                else 0, 1, 1, t.dev.dropped, t.targets, [0] * 12)))
            return 0
        return 0

    async def go():
        seen = []
        client, tc, task = await connected(ScriptedTable(table))
        tc._emit = seen.append
        try:
            with pytest.raises(TableFault) as e:
                await asyncio.wait_for(tc.build(1, [34] * 4, stacks=17, expect_empty=True), 5)
            assert e.value.kind == "jam"
            assert tc.get_status()["fault"]["kind"] == "jam"
            assert [ev["kind"] for ev in seen if ev["type"] == "table_fault"] == ["jam"]
        finally:
            client.stop()
            task.cancel()

    asyncio.run(go())


def test_rejected_command_names_the_error():
    async def go():
        client, tc, task = await connected(ScriptedTable(good_table))
        with pytest.raises(CommandRejected) as e:
            await tc.stop()
        assert "refused stop: not_allowed" in str(e.value)
        client.stop()
        task.cancel()

    asyncio.run(go())


def test_fault_event_fails_the_build_with_a_players_message():
    def jams(msgid, values, t):
        if msgid == m.BUILD:
            t.at(3000, lambda: t.dev.send(m.FAULT, (m.F_JAM, 2, 0)))
            return 0
        return good_table(msgid, values, t)

    async def go():
        client, tc, task = await connected(ScriptedTable(jams))
        with pytest.raises(TableFault) as e:
            await tc.build(1, [34] * 4, stacks=17, expect_empty=True)
        assert str(e.value) == "track 2 is jammed"
        assert e.value.kind == "jam" and e.value.track == 2
        assert tc.get_status()["fault"]["message"] == "track 2 is jammed"
        client.stop()
        task.cancel()

    asyncio.run(go())


def test_firmware_reset_is_noticed_by_its_boot_nonce():
    async def go():
        table = ScriptedTable(good_table, boot_nonce=1111)
        client, tc, task = await connected(table)
        first = client.identity["boot_nonce"]
        table.boot(2222)  # power cut: a new firmware instance
        for _ in range(200):
            await asyncio.sleep(0)
            if client.resets:
                break
        await client.wait_connected(timeout=5)
        for _ in range(200):
            if client.identity["boot_nonce"] != first:
                break
            await asyncio.sleep(0)
        assert client.identity["boot_nonce"] == 2222
        assert client.resets == 1
        client.stop()
        task.cancel()

    asyncio.run(go())


def test_command_without_a_table_says_so():
    async def go():
        class Absent:
            def now_ms(self):
                return 0

            def run(self, ms):
                return b""

            def write(self, data):
                pass

        client = LinkClient(InProcessTransport(Absent()), on_event=lambda i, v: None)
        with pytest.raises(TableGone) as e:
            await client.command(m.STATUS)
        assert "no table connected" in str(e.value)

    asyncio.run(go())


def test_a_boot_error_line_is_read_in_pieces_among_noise():
    """The line a board that cannot start says (firmware/bootfail.py) is recognised however
    the port cuts it, after garbage, and becomes why the table is not connected."""
    c = LinkClient(None, on_event=lambda i, v: None)
    line = b"jantaku: boot error: ProfileError: pins.gate2: pin 3 is already used by gate1\r\n"
    noise = bytes(range(0, 256, 7)) * 3
    data = noise + line + noise
    for i in range(0, len(data), 5):
        c._look_for_boot_error(data[i:i + 5])
    assert c.boot_error == "ProfileError: pins.gate2: pin 3 is already used by gate1"
    assert c.error == "the table's firmware cannot start: " + c.boot_error
    assert len(c._text) < 100  # what is kept stays small
    c._look_for_boot_error(b"jantaku: boot error: " + b"x" * 700)  # no line end: not taken
    assert c.boot_error.startswith("ProfileError")


def test_a_command_cancelled_as_its_result_comes_is_cancelled():
    # the daemon closing (or an abort) cancels a step whose command's RESULT is resolved
    # in the same loop pass: the step must stop there, not carry on to wait for an event
    # from a link that is gone (held-out sweep: daemon.close() hung after
    # extra-tile:build=2,count=3 with reset:build=3,after=55, seed 812)
    async def go():
        client, tc, task = await connected(ScriptedTable(good_table))
        cmd = asyncio.create_task(client.command(m.STATUS))
        for _ in range(100):
            await asyncio.sleep(0)
            if client._pending:
                break
        (fut, _, _), = client._pending.values()
        fut.set_result(None)  # the RESULT, and in the same pass the cancel
        cmd.cancel()
        with pytest.raises(asyncio.CancelledError):
            await cmd
        client.stop()
        task.cancel()

    asyncio.run(go())


def test_a_command_the_table_never_answers_times_out():
    async def go():
        client, tc, task = await connected(ScriptedTable(good_table))
        client._timeout = 0.05
        cmd = asyncio.create_task(client.command(m.STATUS))
        for _ in range(100):
            await asyncio.sleep(0)
            if client._pending:
                break
        client._pending.clear()  # its RESULT is lost: nothing resolves the future
        with pytest.raises(TableGone) as e:
            await cmd
        assert "did not answer status within" in str(e.value)
        client.stop()
        task.cancel()

    asyncio.run(go())


def test_a_motion_refused_while_the_guard_is_broken_is_the_guard_not_a_refusal():
    """The curtain broke while nothing moved (only its state is reported, no fault): the
    table refuses the next LIFT or DOOR open.  The step stops on the guard (clear it, then
    continue), not on a bare refusal that `continue` could only repeat (held-out sweep:
    guard:build=3,during=lift,at=2015,input=curtain with reset:build=3,during=door,at=300,
    seed 677: the curtain broke while the table rebooted)."""
    def table(msgid, values, t):
        if msgid in (m.LIFT, m.DOOR) and (msgid == m.LIFT or values[0]):
            return m.E_NOT_ALLOWED if getattr(t, "unsafe", False) else 0
        if msgid == m.STATUS:  # (at once: ScriptedTable.at can't hold two at one instant)
            t.dev.send(m.STATUS_REPLY, (m.S_IDLE, 0, 0, 0, 0, [], []))
            return 0
        return good_table(msgid, values, t)

    async def go():
        t = ScriptedTable(table)
        client, tc, task = await connected(t)
        try:
            t.unsafe = True
            t.dev.send(m.GUARD, (0, 1))  # the curtain broken, the lid closed
            for _ in range(200):
                await asyncio.sleep(0)
                if not tc.guard["curtain"]:
                    break
            with pytest.raises(TableFault) as e:
                await asyncio.wait_for(tc.open_door(), 5)
            assert e.value.kind == "guard" and e.value.detail == 1
            assert str(e.value) == "the light curtain is broken: the table will not move"
            t.dev.send(m.GUARD, (1, 1))  # the table said it is safe: a refusal is a refusal
            for _ in range(200):
                await asyncio.sleep(0)
                if tc.guard["curtain"]:
                    break
            with pytest.raises(CommandRejected):
                await asyncio.wait_for(tc.open_door(), 5)
        finally:
            client.stop()
            task.cancel()

    asyncio.run(go())
