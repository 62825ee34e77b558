# Steady-state building allocates nothing per tile (MicroPython unix port): every IRQ
# handler the simulator calls runs under micropython.heap_lock() (Machine(lock_irq=True)),
# and so does every Firmware.step() unless a host frame other than an ACK is waiting (the
# steps that count, read the colour, stack, push, send the TILE / TRACK_FULL events and
# take the host's acks).  The simulator's own bookkeeping runs outside the lock.  Only the
# host's other frames (pings, commands) are decoded in unlocked steps.
# Run by tests/unit/test_sim_micropython.py.
import gc
import sys

# The port compiles every module from source into this heap, some while the simulator's
# objects already live in it: collected only when full, the survivors lie spread over the
# whole heap and a module's compile (a few KiB in one piece) may find no room, on a whim
# of layout (32 more bytes of controller bytecode failed it at 768k, not at 1024k).  A
# collection every 32 KiB allocated keeps the live objects packed.  (The per-tile path's
# proof is heap_lock's: no collection is needed where nothing is allocated.)
gc.threshold(32768)

from firmware import compat
from hw_sim.driver import Driver
from hw_sim.inprocess import InProcessTable, firmware_factory
from hw_sim.tiles import standard_set


def check(name, cond):
    if not cond:
        print("FAIL", name)
        sys.exit(1)
    print("OK", name)


def only_acks(ring):
    """True if every complete frame waiting in the wire's host->device ring is an ACK
    (msgid 0x01; protocol/SPEC.md §3 framing: 7E LEN SEQ MSGID ... CRC32)."""
    i = 0
    n = ring.n
    while i < n:
        p = (ring.r + i) % ring.size
        if ring.buf[p] != 0x7E or i + 4 > n:
            return False
        ln = ring.buf[(p + 1) % ring.size]
        if ring.buf[(p + 3) % ring.size] != 0x01:
            return False
        i += ln
    return True


class LockedSteps:
    """Wraps the firmware: step() under heap_lock while `locked` and no host frame but
    ACKs waits."""

    def __init__(self, fw):
        self.fw = fw
        self.port = None
        self.ring = None
        self.locked = False
        self.locked_steps = 0
        self.open_steps = 0

    def step(self):
        if self.locked and only_acks(self.ring):
            compat.heap_lock()
            try:
                self.fw.step()
            finally:
                compat.heap_unlock()
            self.locked_steps += 1
        else:
            self.fw.step()
            if self.locked:
                self.open_steps += 1

    def next_due_us(self):
        return self.fw.next_due_us()

    def get_status(self):
        return self.fw.get_status()


def factory(profile, machine, **kw):
    w = LockedSteps(firmware_factory(profile, machine, **kw))
    w.port = kw["port"]
    w.ring = kw["port"]._w.down
    return w


S = standard_set()
BOARD = sys.argv[1] if len(sys.argv) > 1 else "reference-18"  # (fourport-24v: issue 47)
t = InProcessTable(BOARD, [S, S], seed=5, firmware_factory=factory, lock_irq=True, wire_size=1024)
d = Driver(t, keep_events=False)
d.connect()
d.command("configure_build", 1, [34, 34, 34, 34], 17, [1, 2], 1)
d.command("build", 1)
d.wait(lambda: d.seen("tile") >= 4, 20000)  # past the build's start-up
t.fw.locked = True
try:
    d.wait(lambda: d.seen("build_done") > 0, 60000)
finally:
    t.fw.locked = False
check("build done with the per-tile path locked", d.seen("build_done") == 1 and d.seen("tile") == 136)
check("IRQ handlers never allocated", t.machine.irq_alloc_errors == 0)
print("LOCKED", t.fw.locked_steps, "OPEN", t.fw.open_steps, "EDGES", sum(p.edges for p in t.machine._pins))
# each of the 132 tiles after the first 4 takes several locked steps (count, colour
# read, stacker, pusher, the TILE event, the host's ack); the open ones had a ping
check("most steps locked", t.fw.locked_steps > 10 * t.fw.open_steps and t.fw.locked_steps > 400)
