# Runs under the MicroPython unix port (tests/unit/test_micropython.py).
# The status light (firmware/drivers/light.py) on the real runtime: every pattern's
# steps over time, the one-shot, the precedence, and its timer callback (and
# the host's and the firmware's changes of pattern) under
# micropython.heap_lock(): no allocation.  Then a controller on fakes whose
# light runs a pattern through its own scheduler under the lock.
import sys

import micropython

from firmware.drivers import light as L
from firmware.fakes import FakeClock, FakePin, Rig
from firmware.sched import Scheduler
from protocol import messages as m
import gc  # noqa: E402

gc.collect()


def check(name, cond):
    if not cond:
        print("FAIL", name)
        sys.exit(1)
    print("OK", name)


clock = FakeClock(1000000)
sched = Scheduler(clock)
pin = FakePin("status_light")
light = L.Light(pin, sched)

# a preallocated trace: the level every ms, written without allocating
N = 3000
trace = bytearray(N)


def run_ms(n):
    i = 0
    while i < n:
        clock.advance(1)
        sched.run()
        trace[i] = pin.level
        i += 1


def runs(n):
    """[(level, ms)] of the first n ms of the trace (after the lock: this allocates)."""
    out = []
    for i in range(n):
        v = trace[i]
        if out and out[-1][0] == v:
            out[-1][1] += 1
        else:
            out.append([v, 1])
    return [tuple(r) for r in out]


def want(steps, first_on_ms_seen):
    out = []
    lvl = 1
    for i in range(len(steps)):
        ms = steps[i] - (1 if i == 0 else 0) if first_on_ms_seen else steps[i]
        out.append((lvl, ms))
        lvl ^= 1
    return out


# warm-up: every path once before the lock (first calls may intern or allocate)
light.show_own(L.READY)
for p in (L.PEOPLE, L.DICE, L.REFUSED, L.AUTO):
    light.set_host(p)
    run_ms(1000)
for p in (L.BUILDING, L.MOTION, L.FAULT, L.HOLD, L.OFF, L.READY):
    light.show_own(p)
    run_ms(300)
light.host_gone()
gc.collect()

results = []
ok = True
# every global the locked block assigns exists before it: a new name could grow the
# module's globals dict, an allocation of the test's own (on the wasm32 port, run as
# __main__, it did), not the light's
people_ok = False
micropython.heap_lock()
try:
    # each pattern for one period (the first ms of its first step was shown at set time)
    light.set_host(L.PEOPLE)
    run_ms(1500)
    people_ok = pin.level == 1
    light.set_host(L.DICE)
    run_ms(1500)
    light.set_host(L.REFUSED)
    run_ms(900)
    light.show_own(L.BUILDING)
    run_ms(2000)
    light.show_own(L.MOTION)
    run_ms(500)
    light.show_own(L.FAULT)
    run_ms(2000)
    light.show_own(L.READY)
    light.host_gone()
    run_ms(10)
except MemoryError:
    ok = False
micropython.heap_unlock()
check("patterns change and run under heap_lock", ok)
check("people: on again after one 1.5 s period", people_ok)
check("ready after the host is gone", light.shown == L.READY and pin.level == 1)

# the trace of each pattern, checked after the lock
light.show_own(L.OFF)
light.set_host(L.AUTO)
light.show_own(L.READY)
light.set_host(L.PEOPLE)
run_ms(1500)
check("people: a double blink", runs(1500) == want(L.STEPS[L.PEOPLE], True) + [(1, 1)])
light.set_host(L.DICE)
run_ms(1500)
check("dice: long on, a short wink", runs(1500) == want(L.STEPS[L.DICE], True) + [(1, 1)])
light.set_host(L.REFUSED)
run_ms(900 + 1200)
check("refused: three flashes, then dice again",
      runs(2100) == want(L.STEPS[L.REFUSED], True) + [(1, 1200), (0, 1)])
light.show_own(L.BUILDING)
run_ms(2000)
check("building over the host: a slow blink", runs(2000) == want(L.STEPS[L.BUILDING], True) + [(1, 1)])
light.show_own(L.MOTION)
run_ms(500)
check("motion: a fast blink", runs(500) == want(L.STEPS[L.MOTION], True) + [(1, 1)])
light.show_own(L.FAULT)
run_ms(160)
check("fault: a flicker", runs(160) == want(L.STEPS[L.FAULT], True) + [(1, 1)])
light.set_host(L.REFUSED)
run_ms(160)
check("no flash over a fault", not light.flashing and runs(160) == want(L.STEPS[L.FAULT], True) + [(1, 1)])
light.show_own(L.READY)
check("the host's pattern after the fault", light.shown == L.DICE)
light = None
sched = None
gc.collect()

# a controller on fakes: its light blinks (building) through its own scheduler
r = Rig()
r.ctl.on_link_up(True)
r.run(10)
check("controller: ready with a host", r.hal.level("status_light") == 1)
r.ctl.cmd_light(m.LIGHT_PEOPLE)
r.ctl.cmd_mix(8000)
r.run(2500)
gc.collect()
seen = bytearray(2)
ok = True
micropython.heap_lock()
try:
    i = 0
    while i < 40:
        r.clock.advance(100)
        r.sched.run()
        seen[r.hal.level("status_light")] = 1
        i += 1
except MemoryError:
    ok = False
micropython.heap_unlock()
check("controller: the building blink runs under heap_lock", ok and seen[0] == 1 and seen[1] == 1)
check("controller: building shown over the host's people",
      r.ctl.light.shown == L.BUILDING and r.ctl.light.host == L.PEOPLE)
