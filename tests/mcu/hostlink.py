"""The host's protocol link (protocol.link.Link, CPython) over the emulated board's UART,
for tests/mcu: the handshake, commands and their RESULTs, timed round trips."""
import statistics
import time

from protocol import messages as m
from protocol.link import Link

TRACEBACK = b"Traceback (most recent call last)"


class WallClock:
    """The host's wall (the link's ticks wrap at 2**30 like a board's)."""

    def ticks_ms(self):
        return int(time.monotonic() * 1000) & ((1 << 30) - 1)


class HostLink:
    def __init__(self, board):
        self.board = board
        self.got = []  # (msgid, values) in the order delivered
        self.seen = bytearray()  # every byte taken from the UART
        self.link = Link(WallClock(), self._write, self._on_message, role="host")

    def _write(self, buf, n):
        self.board.write(bytes(buf[:n]))

    def _on_message(self, msgid, values):
        self.got.append((msgid, values))

    def pump(self, until, timeout, what):
        end = time.monotonic() + timeout
        while not until():
            if time.monotonic() > end:
                raise AssertionError("no %s from the emulated board within %.0f s; it wrote:\n%s"
                                     % (what, timeout, bytes(self.board.log[-2000:])))
            data = self.board.read(0.002)
            if data:
                self.seen += data
                if TRACEBACK in self.seen:  # the code on the board raised: no firmware
                    self.board.read_until(b"\x04>", 10, "finish its traceback",
                                          since=self.board.log.rfind(TRACEBACK))
                    raise AssertionError("the firmware stopped on the board:\n%s" % bytes(
                        self.board.log[self.board.log.rfind(TRACEBACK):]).decode(errors="replace"))
                self.link.feed(data)
            self.link.poll()

    def first(self, msgid):
        for mid, v in self.got:
            if mid == msgid:
                return v
        return None

    def handshake(self, timeout=20.0):
        """IDENTITY and ABOUT: {'identity': values, 'about': values}."""
        self.pump(lambda: self.link.connected and self.first(m.ABOUT) is not None, timeout,
                  "identity and about (the handshake)")
        return {"identity": self.first(m.IDENTITY), "about": self.first(m.ABOUT)}

    def command(self, msgid, values=(), reply=None, timeout=10.0):
        """Send a command; (RESULT values, the reply's values or None)."""
        start = len(self.got)
        self.pump(lambda: self.link.send(msgid, values), timeout, "room to send %s" % m.name_of(msgid))

        def done():
            res = [v for mid, v in self.got[start:] if mid == m.RESULT and v[1] == msgid]
            rep = [v for mid, v in self.got[start:] if mid == reply] if reply else [None]
            return res and rep

        self.pump(done, timeout, "RESULT of %s" % m.name_of(msgid))
        res = [v for mid, v in self.got[start:] if mid == m.RESULT and v[1] == msgid][0]
        rep = [v for mid, v in self.got[start:] if mid == reply][0] if reply else None
        return res, rep

    def status_round_trips(self, n):
        """n STATUS commands one after the other: (the last STATUS_REPLY values, the
        median round trip in ms, the slowest)."""
        times = []
        rep = None
        for _ in range(n):
            t = time.perf_counter()
            res, rep = self.command(m.STATUS, (), reply=m.STATUS_REPLY)
            times.append((time.perf_counter() - t) * 1000)
            assert res[2] == m.OK, res
        return rep, statistics.median(times), max(times)
