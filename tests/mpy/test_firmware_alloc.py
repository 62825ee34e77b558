# Runs under the MicroPython unix port (tests/unit/test_micropython.py).
# Proves the per-tile path allocates nothing: entry IRQ -> count -> gate ->
# colour read -> TILE event encoded and written through the real protocol
# Link, stacker and pusher pulses, the gate closing at the target, and the
# link's heartbeats, all under micropython.heap_lock() after a warm-up.
import sys

import micropython

from firmware.app import Firmware
from firmware.fakes import FakeClock, FakeHal, FakePort
from firmware.profile import load
from protocol import link as L
from protocol import messages as m
import gc  # noqa: E402

gc.collect()  # after the imports: the heap is 256 KB


def check(name, cond):
    if not cond:
        print("FAIL", name)
        sys.exit(1)
    print("OK", name)


prof = load(None)
clock = FakeClock(1000000)
hal = FakeHal(prof)
port = FakePort()
fw = Firmware(prof, hal, clock=clock, link_clock=clock, port=port, boot_nonce=99)
got = []


def host_write(buf, n):
    port.feed(bytes(buf[:n]))


def on_msg(mid, values):
    got.append((mid, values))


host = L.Link(clock, host_write, on_msg, role="host", nonce=lambda: 5)


def host_side():
    data = port.take()
    if data:
        host.feed(data)
    host.poll()


def pump(ms):
    for _ in range(ms):
        fw.step()
        host_side()
        clock.advance(1)


pump(300)
check("session up", host.connected)
host.send(m.CONFIGURE_BUILD, (1, (36, 36, 36, 36), 18, (1, 2), 0))
pump(20)
host.send(m.BUILD, (1,))
pump(20)
check("building", fw.ctl.state == m.S_BUILDING)

i2c = hal.i2c()
refs = prof["calibration"]["refs"]
i2c.set_colour(0, refs["blue"][0], refs["blue"][1], refs["blue"][2])
i2c.set_colour(1, refs["green"][0], refs["green"][1], refs["green"][2])
entry1 = hal.pins["entry1"]
entry2 = hal.pins["entry2"]


def firmware_ms(ms):
    # the firmware side only: no host code runs inside the locked region
    for _ in range(ms):
        fw.step()
        clock.advance(1)


def one_tile(entry):
    entry.set(0)          # IRQ: debounce, count, gate
    firmware_ms(30)       # colour read at +8 ms, TILE event encoded and written
    entry.set(1)          # beam clear: stacker pulse queued
    firmware_ms(220)      # stacker / pusher pulses, heartbeats


# warm-up: a few tiles on both tracks with the host reading (acks flowing)
for _ in range(3):
    entry1.set(0)
    pump(30)
    entry1.set(1)
    pump(220)
    entry2.set(0)
    pump(30)
    entry2.set(1)
    pump(220)
check("warm-up tiles counted", fw.ctl.tracks[0].count == 3 and fw.ctl.tracks[1].count == 3)

# the locked region: 4 tiles, the host silent (its acks come after)
tiles_before = len([g for g in got if g[0] == m.TILE])
# every global the locked regions assign exists beforehand (a new global grows
# the module's dict: an allocation of the test's own)
locked_ok = False
ok = False
gate_closed = False
micropython.heap_lock()
try:
    one_tile(entry1)
    one_tile(entry2)
    one_tile(entry1)
    one_tile(entry2)
    locked_ok = True
except MemoryError:
    locked_ok = False
micropython.heap_unlock()
check("per-tile path runs under heap_lock", locked_ok)
pump(50)
tiles = [g for g in got if g[0] == m.TILE]
check("the locked tiles reached the host", len(tiles) - tiles_before == 4)
t = tiles[-1][1]
check("tile event content", t[0] == 1 and t[1] == 2 and t[2] == 5 and t[3] == 2)
check("counts by colour", fw.ctl.tracks[0].colour_counts == [0, 5, 0] and fw.ctl.tracks[1].colour_counts == [0, 0, 5])

# the count that reaches the target closes the gate inside the IRQ, under the lock
fw.ctl.tracks[2].arm(1)
entry3 = hal.pins["entry3"]
micropython.heap_lock()
try:
    entry3.set(0)
    gate_closed = hal.pins["gate3"].level == 0
    firmware_ms(30)
    entry3.set(1)
    firmware_ms(400)
    ok = True
except MemoryError:
    ok = False
micropython.heap_unlock()
check("target count closes the gate in the IRQ, allocation-free", ok and gate_closed)

# the guard IRQ stops the lift and door without allocating
fw.ctl.lift.axis.motor.run(1)
fw.ctl.door.axis.motor.run(1)
micropython.heap_lock()
try:
    hal.pins["guard_curtain"].set(0)
    ok = True
except MemoryError:
    ok = False
micropython.heap_unlock()
check("guard IRQ is allocation-free and stops the motors",
      ok and hal.pins["lift_pwm"].duty == 0 and hal.pins["door_pwm"].duty == 0)
check("the safety IRQ is a hard one where the port has it", fw.ctl.guard.hard)

# the lid and the chain (the emergency stop) stop the mixer too, still allocation-free
for name in ("lid", "interlock"):
    hal.pins["guard_curtain"].set(1)
    hal.pins["lid"].set(1)
    hal.pins["interlock"].set(1)
    fw.ctl.guard.ack()
    fw.ctl.mixer.motor.run(1)
    fw.ctl.lift.axis.motor.run(1)
    gc.collect()
    micropython.heap_lock()
    try:
        hal.pins[name].set(0)
        ok = True
    except MemoryError:
        ok = False
    micropython.heap_unlock()
    check("%s IRQ is allocation-free and stops the mixer and the lift" % name,
          ok and hal.pins["mixer_pwm"].duty == 0 and hal.pins["lift_pwm"].duty == 0)
hal.pins["lid"].set(1)
hal.pins["interlock"].set(1)

# the watchdog's toggle (a scheduler timer of the main loop) allocates nothing
wd = hal.pins["watchdog"]
before = wd.writes
gc.collect()
micropython.heap_lock()
try:
    for _ in range(5):
        clock.advance(prof["safety"]["watchdog_toggle_ms"])
        fw.sched.run()
    ok = True
except MemoryError:
    ok = False
micropython.heap_unlock()
check("the watchdog toggles from the loop, allocation-free", ok and wd.writes >= before + 5)

# an inverted pin (a profile's {"pin": n, "invert": true}): a photo gate on it counts a
# tile on the wire's rising edge, and an inverted gate output is written, under the lock
from firmware.bindings.machine_hal import Inverted
from firmware.fakes import FakePin
from firmware.drivers.photo import PhotoInterrupter

wire = FakePin("entry_nc", 0)  # an active-high beam: clear is low on the wire
beam = PhotoInterrupter(Inverted(wire), clock, debounce_ms=0)
gate_wire = FakePin("gate_inv", 1)
gate = Inverted(gate_wire)
blocked = [False, False]
gc.collect()
micropython.heap_lock()
try:
    wire.set(1)  # a tile breaks the beam: the wire rises, the signal falls
    blocked[0] = beam.blocked()
    wire.set(0)
    blocked[1] = beam.blocked()
    gate.value(1)  # open: the wire low
    ok = True
except MemoryError:
    ok = False
micropython.heap_unlock()
check("an inverted beam counts on the wire's rising edge, allocation-free",
      ok and beam.count == 1 and blocked[0] and not blocked[1])
check("an inverted output drives its wire low for on", gate_wire.level == 0 and gate.value() == 1)

# an I2C expander's poll (the slow signals on a Pico: firmware/drivers/expander.py) reads
# its inputs and calls a handler on an edge without allocating, as does writing an output
from firmware.drivers.expander import Mcp23017


class XBus:
    def __init__(self):
        self.gpio = 0x0100

    def writeto_mem(self, addr, reg, buf):
        pass

    def readfrom_mem_into(self, addr, reg, buf):
        buf[0] = self.gpio & 0xFF
        buf[1] = self.gpio >> 8


class Seen:
    def __init__(self):
        self.n = 0

    def edge(self, pin):
        self.n += 1


xbus = XBus()
xp = Mcp23017(xbus, 0x20)
door_closed = xp.pin(8, output=False, pull_up=True)
solenoid = xp.pin(0, output=True)
xp.configure()
seen = Seen()
door_closed.irq(seen.edge, door_closed.IRQ_FALLING)
edge_cb = seen.edge
gc.collect()
micropython.heap_lock()
try:
    xbus.gpio = 0x0000
    xp.poll()
    xbus.gpio = 0x0100
    xp.poll()
    solenoid.value(1)
    solenoid.value(0)
    ok = True
except MemoryError:
    ok = False
micropython.heap_unlock()
check("an expander's poll and an output write allocate nothing", ok and seen.n == 1 and xp.polls == 2)
