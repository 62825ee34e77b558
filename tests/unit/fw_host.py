"""A firmware on fakes with a real host-side protocol Link talking to it over a
FakePort, in one fake clock (shared by test_endpoint.py and test_app.py)."""
from firmware.app import Firmware
from firmware.fakes import FakeClock, FakeHal, FakePort
from firmware.profile import load
from protocol import link as L
from protocol import messages as m


class System:
    def __init__(self, board=None, *, boot_nonce=0x1234, connect=True):
        self.clock = FakeClock(1000000)
        self.prof = load(board)
        self.hal = FakeHal(self.prof)
        self.port = FakePort()
        self.fw = Firmware(self.prof, self.hal, clock=self.clock, link_clock=self.clock, port=self.port,
                           boot_nonce=boot_nonce)
        self.got = []
        self.link_events = []
        self.hearing = True  # False: the host hears nothing (a cut line)
        self.host = L.Link(self.clock, self._hw, self._msg, role="host", on_link=self.link_events.append,
                           nonce=lambda: 0x77)
        if connect:
            self.pump(300)

    def _hw(self, buf, n):
        if self.hearing:
            self.port.feed(bytes(buf[:n]))

    def _msg(self, mid, values):
        self.got.append((m.name_of(mid), values))

    def pump(self, ms):
        end = self.clock.us + ms * 1000
        while self.clock.us < end:
            self.fw.step()
            data = self.port.take()
            if data and self.hearing:
                self.host.feed(data)
            self.host.poll()
            self.clock.advance(1)
        self.fw.step()
        data = self.port.take()
        if data and self.hearing:
            self.host.feed(data)

    def send(self, name, *values, ms=20):
        self.host.send(m.lookup(name)[0], values)
        self.pump(ms)

    def named(self, name):
        return [v for (n, v) in self.got if n == name]

    def result(self, name):
        """The last RESULT for command `name`: (code, field)."""
        mid = m.lookup(name)[0]
        for n, v in reversed(self.got):
            if n == "result" and v[1] == mid:
                return v[2], v[3]
        return None

    def tile(self, track, colour=1):
        refs = self.prof["calibration"]["refs"]
        r = refs[self.prof["colours"][colour - 1]] if colour else (0.33, 0.34, 0.33)
        self.hal.i2c().set_colour(track - 1, r[0], r[1], r[2], clear=900)
        e = self.hal.pins["entry" + str(track)]
        e.set(0)
        self.pump(30)
        e.set(1)
        self.pump(220)
