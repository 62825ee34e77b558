# Runs under the MicroPython unix port (tests/unit/test_micropython.py, 256k heap): the
# simulated table alone (hw_sim.table driven through hw_sim.machine by the scripted
# pin-level controller, no firmware) builds a full 136-tile set near its mechanical
# bound; tests/unit/test_sim_micropython.py compares its DIGEST line with CPython's.
import gc
import json
import sys

# MicroPython: a collection every 32 KiB allocated keeps the live objects packed (as in
# sim_heap_lock.py: with modules compiled from source into this heap, its layout alone
# decided whether a compile or a list found room in one piece)
if hasattr(gc, "threshold"):
    gc.threshold(32768)

from hw_sim.machine import Machine
from hw_sim.scripted import ScriptedController
from hw_sim.table import Table
from hw_sim.tiles import standard_set


def check(name, cond):
    if not cond:
        print("FAIL", name)
        sys.exit(1)
    print("OK", name)


from firmware import profile as _fp

prof = _fp.load("firmware/boards/reference-18.json")  # validated: pins as numbers, defaults
_fp.release()  # the checks' code goes (as on a board)
_fp = None
gc.collect()
S = standard_set()
tab = Table(prof, [S, S], seed=1, keep_builds=1)
clock = tab.clock
c = ScriptedController(prof, Machine(tab), clock)
c.build(17)
# the runner's loop: the controller steps, time jumps to the next event
while c.building and clock.now_us() < 60000000:
    c.step()
    due = c.next_due_us()
    n = tab.next_event_us()
    if due is not None:
        d = clock.abs_us(due)
        if d < n:
            n = d
    tab.advance_to(n)
check("scripted build finished", not c.building)
b = tab.builds[-1]
check("34 tiles per track", [len(x) for x in b.tiles] == [34, 34, 34, 34])
real = b.last_mech_us - b.start_us
bound = tab.bound_us(b)
check("within 2% of the bound", bound is not None and bound <= real and real * 98 <= bound * 100)
check("nothing missed", tab.missed(b) == [])
h = 0
for k in range(4):
    for tile in b.tiles[k]:
        h = (h * 31 + tile * 7 + k) & 0xFFFFFFFF
# a club's own sets with per-track sensor bias and drift (issue 22): the same readings
# on both runtimes
del c, b
tab = None
gc.collect()
sim = {"set_colours": [["pink", [0.45, 0.25, 0.30]], ["yellow", [0.40, 0.42, 0.18]]],
       "sensor_bias_pm": 20, "sensor_drift_pm": 40}
t2 = Table(prof, [S, S], seed=3, keep_builds=1, sim=sim)
check("sets named by their colours", t2.tiles.colours == ["pink", "yellow"])
reads = []
buf = bytearray(8)
for k in range(4):
    bus = t2.bus
    bus.writeto(0x70, bytes([1 << k]))
    bus.writeto_mem(0x29, 0x81, bytes([0xFF]))
    bus.writeto_mem(0x29, 0x80, bytes([0x03]))
    t2.tracks[k].enter(t2.set_ids[1][k], t2.clock.now_us())
    t2.advance_to(t2.clock.now_us() + 8000)
    t2.tracks[k].sensor.reads += 3000  # as after 3000 tiles: the drift shows
    bus.readfrom_mem_into(0x29, 0xB4, buf)
    for i in range(8):
        reads.append(buf[i])
    h = (h * 31 + sum(reads)) & 0xFFFFFFFF
check("yellow reads yellow-ish", reads[4] + reads[5] * 256 > reads[6] + reads[7] * 256)
print("DIGEST", h, real, bound)
gc.collect()
if hasattr(gc, "mem_alloc"):
    print("heap", gc.mem_alloc(), gc.mem_free())
