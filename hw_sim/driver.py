# A minimal host for the simulator's own tests and benches: protocol.link as
# the host over a runner (InProcessTable, or the MicroPython subprocess
# client), in the runner's virtual time.  Not the product's host (that is
# hostd, which hw_sim never imports); runs on CPython and MicroPython.
#
#   d = Driver(runner)
#   d.connect()
#   d.command("configure_build", 1, [34, 34, 34, 34], 17, [1, 2], 1)
#   d.command("build", 1)
#   d.wait_event("build_done", 60000)
from protocol import messages as _m
from protocol.link import Link

_MASK = (1 << 30) - 1


class _RunnerClock:
    def __init__(self, runner):
        self._r = runner
        # an InProcessTable's clock is read directly (its now_ms() is
        # clock.us / 1000, the same arithmetic): the link asks on every poll
        self._vc = None
        try:
            from hw_sim.inprocess import InProcessTable
        except ImportError:
            InProcessTable = None
        if InProcessTable is not None and type(runner) is InProcessTable:
            self._vc = runner.clock

    def ticks_ms(self):
        vc = self._vc
        if vc is not None:
            return (vc.us // 1000) & _MASK
        return int(self._r.now_ms()) & _MASK

    def ticks_us(self):
        vc = self._vc
        if vc is not None:
            return int(vc.us / 1000 * 1000) & _MASK
        return int(self._r.now_ms() * 1000) & _MASK


class Driver:
    def __init__(self, runner, *, nonce_seed=0x5EED, keep_events=True):
        self.r = runner
        self.clock = _RunnerClock(runner)
        self._nonce = (nonce_seed & 0x7FFFFFFF) or 1
        self.keep_events = keep_events
        self.events = []  # [t_ms, name, values]
        self.results = {}  # command seq -> (code, field)
        self.link_events = []
        self.counts = {}  # event name -> how many seen
        self.last = {}  # event name -> values of the last one
        self.on_event = None  # optional callback(name, values)
        self.link = Link(self.clock, self._write, self._on_msg, role="host", on_link=self._on_link,
                         nonce=self._next_nonce)
        # an InProcessTable hands its output to the link as it comes (run_feeding)
        self._feeding = getattr(runner, "run_feeding", None)

    def _next_nonce(self):
        # deterministic session nonces (xorshift32), never 0
        x = self._nonce
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self._nonce = x or 1
        return self._nonce

    def _write(self, buf, n):
        self.r.write(buf)  # (buf is exactly the n frame bytes; the wire copies them)

    def _on_link(self, ev):
        self.link_events.append((self.r.now_ms(), ev))

    def _on_msg(self, msgid, values):
        name = _m.name_of(msgid)
        self.counts[name] = self.counts.get(name, 0) + 1
        if msgid == _m.RESULT:
            self.results[values[0]] = (values[2], values[3])
        self.last[name] = list(values)
        if self.keep_events:
            self.events.append([self.r.now_ms(), name, list(values)])
        if self.on_event is not None:
            self.on_event(name, values)

    # -- time -------------------------------------------------------------------
    def pump(self, max_ms=50, stop=None):
        """Run the table up to max_ms virtual ms (less if the host link has
        something to do sooner); feed what the firmware wrote to the link.  With
        stop (a callable), an InProcessTable's run ends as soon as it is true."""
        link = self.link
        due = link.next_due_ms()
        if due == 0:  # (poll() does nothing before a deadline)
            link.poll()
            due = link.next_due_ms()
        if max_ms < 1:
            max_ms = 1
        if due < 1:
            due = 1
        if due > max_ms:
            due = max_ms
        feeding = self._feeding
        if feeding is not None:
            feeding(due, link.feed, stop)
            return None
        data = self.r.run(due)
        if data:
            link.feed(data)
        return data

    def wait(self, pred, timeout_ms):
        end = self.r.now_ms() + timeout_ms
        while not pred():
            left = end - self.r.now_ms()
            if left <= 0:
                return False
            self.pump(left if left < 1000 else 1000, pred)
        return True

    def run_for(self, ms):
        end = self.r.now_ms() + ms
        while True:
            left = end - self.r.now_ms()
            if left <= 0:
                return
            self.pump(left if left < 1000 else 1000)

    # -- protocol -----------------------------------------------------------------
    def connect(self, timeout_ms=3000):
        if not self.wait(lambda: self.link.connected, timeout_ms):
            raise RuntimeError("no identity from the table within %d ms" % timeout_ms)
        return self.link.identity

    def send(self, name, *values):
        e = _m.lookup(name)
        if not self.link.send(e[0], values):
            raise RuntimeError("link refused %s (window full or no session)" % name)
        return self.link.sent_seq

    def command(self, name, *values, timeout_ms=3000):
        """Send a command and wait for its result: (code, field)."""
        seq = self.send(name, *values)
        if not self.wait(lambda: seq in self.results, timeout_ms):
            raise RuntimeError("no result for %s within %d ms" % (name, timeout_ms))
        return self.results.pop(seq)

    def seen(self, name):
        return self.counts.get(name, 0)

    def find(self, name, since=0):
        """Values of every event `name` from index `since` of self.events."""
        out = []
        for i in range(since, len(self.events)):
            e = self.events[i]
            if e[1] == name:
                out.append(e[2])
        return out

    def wait_event(self, name, timeout_ms, since=None):
        """Wait for one more event `name` than seen before the call (or since
        the count `since`); returns its values (None on timeout)."""
        base = self.seen(name) if since is None else since
        ok = self.wait(lambda: self.seen(name) > base, timeout_ms)
        if not ok:
            return None
        return self.last[name]

    def faults(self):
        """[(code name, track, detail)] of every fault event seen (needs keep_events)."""
        out = []
        for e in self.events:
            if e[1] == "fault":
                v = e[2]
                out.append((_m.FAULTS[v[0]] if v[0] < len(_m.FAULTS) else v[0], v[1], v[2]))
        return out

    # -- flows --------------------------------------------------------------------
    def build(self, build_id, tiles, stacks, colours=(), empty_mixer=1, timeout_ms=90000):
        """configure_build + build, then wait for build_done (or a fault).
        Returns build_done's values or None."""
        c = self.command("configure_build", build_id, list(tiles), stacks, list(colours), empty_mixer)
        if c[0] != 0:
            raise RuntimeError("configure_build refused: %s field %d" % (_m.ERRORS[c[0]], c[1]))
        base_done = self.seen("build_done")
        base_fault = self.seen("fault")
        c = self.command("build", build_id)
        if c[0] != 0:
            raise RuntimeError("build refused: %s field %d" % (_m.ERRORS[c[0]], c[1]))
        self.wait(lambda: self.seen("build_done") > base_done or self.seen("fault") > base_fault, timeout_ms)
        if self.seen("build_done") > base_done:
            return self.last["build_done"]
        return None

    def lift(self, timeout_ms=20000):
        """LIFT: wait for lift_done bottom (or a fault); True if it came."""
        base = self.seen("lift_done")
        base_fault = self.seen("fault")
        c = self.command("lift")
        if c[0] != 0:
            raise RuntimeError("lift refused: %s" % _m.ERRORS[c[0]])
        self.wait(lambda: self._lift_down(base) or self.seen("fault") > base_fault, timeout_ms)
        return self._lift_down(base)

    def _lift_down(self, base):
        return self.seen("lift_done") > base and self.last["lift_done"][0] == _m.LIFT_BOTTOM

    def door(self, open_, timeout_ms=5000):
        base = self.seen("door_state")
        c = self.command("door", 1 if open_ else 0)
        if c[0] != 0:
            raise RuntimeError("door refused: %s" % _m.ERRORS[c[0]])
        want = _m.DOOR_OPEN if open_ else _m.DOOR_CLOSED
        self.wait(lambda: self.seen("door_state") > base and self.last["door_state"][0] == want, timeout_ms)
        return self.seen("door_state") > base and self.last["door_state"][0] == want

    def hand_over(self, timeout_ms=20000):
        """Door open and lift together (DESIGN §2 two-deck rotation), then the
        door closes.  True when the lift is back down and the door closed."""
        base = self.seen("lift_done")
        base_fault = self.seen("fault")
        base_door = self.seen("door_state")
        c1 = self.command("door", 1)
        c2 = self.command("lift")
        if c1[0] != 0 or c2[0] != 0:
            raise RuntimeError("hand over refused: door %s, lift %s" % (_m.ERRORS[c1[0]], _m.ERRORS[c2[0]]))

        def opened():
            return (self.seen("door_state") > base_door and self.last["door_state"][0] == _m.DOOR_OPEN) or self.seen("fault") > base_fault

        self.wait(opened, timeout_ms)
        self.wait(lambda: self._lift_down(base) or self.seen("fault") > base_fault, timeout_ms)
        if self.seen("fault") > base_fault:
            return False
        return self.door(False, timeout_ms)
