# MicroPython half of bench/sim_bench.py (run by it with the micropython binary):
#   micropython -X heapsize=1m bench/mp/sim_bench_mp.py heap BUILDS
#   micropython -X heapsize=1m bench/mp/sim_bench_mp.py speed BUILDS
# Prints one JSON line "RESULT {...}".  The speed run has no metering (gc.mem_alloc()
# walks the heap: metering every step would dominate the time).
#
# How the firmware's heap is told apart from the simulator's (and the host's):
# - code: gc.mem_alloc() deltas around importing firmware+protocol, then hw_sim+driver
#   (bytecode compiled from .py lives in the heap on the unix port; on a board the
#   firmware is frozen into flash);
# - static: the delta around constructing Firmware(...), after the simulated table,
#   the wire and the host are built (gc.collect() before each reading);
# - live after N builds: at the end, gc.mem_alloc() before and after dropping every
#   reference to the firmware (its pins' IRQ handlers included) and collecting;
# - transient: each Firmware.step() runs with the collector disabled and the
#   mem_alloc() delta across it is the most one step allocates (the simulator code a
#   step calls allocates nothing: tests/mpy/sim_heap_lock.py runs it under heap_lock);
# - peak = live + the largest transient.
# The simulator's own history is bounded (keep_builds=1) so the total heap after each
# build shows whether anything grows.
import gc
import sys
import time

gc.collect()
m0 = gc.mem_alloc()
from firmware.app import Firmware  # noqa: E402
from firmware.bindings.machine_hal import MachineHal  # noqa: E402
import protocol.link  # noqa: E402,F401

gc.collect()
m1 = gc.mem_alloc()
from hw_sim.driver import Driver  # noqa: E402
from hw_sim.inprocess import InProcessTable  # noqa: E402
from hw_sim.tiles import standard_set  # noqa: E402

gc.collect()
m2 = gc.mem_alloc()

MODE = sys.argv[1] if len(sys.argv) > 1 else "heap"
BUILDS = int(sys.argv[2]) if len(sys.argv) > 2 else 1
METER = MODE == "heap"


class Metered:
    def __init__(self):
        self.fw = None
        self.max_step = 0
        self.steps = 0
        self.ready = False

    def step(self):
        if self.fw is None:
            return
        if not METER:
            self.fw.step()
            return
        gc.disable()
        a = gc.mem_alloc()
        self.fw.step()
        b = gc.mem_alloc()
        gc.enable()
        d = b - a
        if d > self.max_step:
            self.max_step = d
        self.steps += 1

    def next_due_us(self):
        if self.fw is None:
            return None
        return self.fw.next_due_us()

    def get_status(self):
        return self.fw.get_status()


M = Metered()
ARGS = []


def factory(profile, machine, **kw):
    ARGS.append((profile, machine, kw))
    return M


S = standard_set()
t = InProcessTable("reference-18", [S, S], seed=1, firmware_factory=factory, keep_builds=1, wire_size=1024)
gc.collect()
m3 = gc.mem_alloc()
profile, machine, kw = ARGS[0]
M.fw = Firmware(profile, MachineHal(machine, profile), **kw)
gc.collect()
m4 = gc.mem_alloc()
d = Driver(t, keep_events=False)
d.connect()

# the bench's own records are preallocated: nothing of ours grows per build
totals = [0] * BUILDS
eff_min = [1.0]
wall_ms = 0
sim_ms = 0
for n in range(1, BUILDS + 1):
    t0 = t.now_ms()
    w0 = time.ticks_ms()
    done = d.build(n, [34, 34, 34, 34], 17, [1, 2], 1)
    if done is None:
        print("RESULT {\"error\": \"build %d failed\"}" % n)
        sys.exit(1)
    wall_ms += time.ticks_diff(time.ticks_ms(), w0)
    sim_ms += t.now_ms() - t0
    b = t.table.builds[-1]
    e = t.table.bound_us(b) / (b.last_mech_us - b.start_us)
    if e < eff_min[0]:
        eff_min[0] = e
    if not d.hand_over():
        print("RESULT {\"error\": \"hand over %d failed\"}" % n)
        sys.exit(1)
    if METER:
        gc.collect()
        totals[n - 1] = gc.mem_alloc()

gc.collect()
before = gc.mem_alloc()
t.machine.detach()
M.fw = None
gc.collect()
after = gc.mem_alloc()
live = before - after

print("RESULT {\"builds\": %d, \"code_firmware\": %d, \"code_sim\": %d, \"fw_static\": %d, \"fw_live_end\": %d, "
      "\"fw_step_max\": %d, \"steps\": %d, \"total_after_first\": %d, \"total_after_last\": %d, "
      "\"total_min\": %d, \"total_max\": %d, \"sim_s\": %.3f, \"wall_s\": %.3f, \"eff_min\": %.5f, "
      "\"heap_total\": %d, \"totals\": %s}" % (
          BUILDS, m1 - m0, m2 - m1, m4 - m3, live, M.max_step, M.steps, totals[0], totals[-1],
          min(totals), max(totals), sim_ms / 1000, wall_ms / 1000, eff_min[0], gc.mem_alloc() + gc.mem_free(), totals[:3] + totals[-3:]))
