# The wasm32 tier's board side (tests/wasm32): MicroPython's WebAssembly port under
# Node (tests/wasm32/run.mjs), its stdin/stdout bridged to a pseudo-terminal as a
# board's USB REPL port.  Compiled beside the staged files; never copied to a board.
#
#   as_flashed(levels)   the staged /main.py as a board boots it, the `machine` of
#                        tests/mcu/board/mcu_board.StandIn (inputs at rest), the heap
#                        measured while it runs; the figures said as one WASM32-RESULT
#   serve(speed)         the simulated table on the staged firmware's pins, the
#                        firmware's protocol on the port (tests/mcu/board/mcu_table.serve),
#                        the heap said as WASM32-HEAP lines while it runs
#
# What the board says to the test goes through `wasmhost.say` (a line on Node's
# stdout): its port's bytes are the protocol's.  MicroPython only.
import gc
import json
import sys

import wasmhost

HEAP_EVERY_MS = 1000  # serve(): the heap measured this often (wall)


def _live():
    gc.collect()
    return gc.mem_alloc()


def as_flashed(levels, sample_every=4):
    """Boot the firmware as a board does after `jantaku flash`: the stand-in machine,
    then the staged /main.py from the filesystem's root (only the staged files are
    there: the test's own modules live under /t).  Says WASM32-RESULT {figures}:
    base (the heap's live bytes before main.py), max_running (the most seen after a
    collection every sample_every steps), samples, steps, resets, wdt."""
    import os

    import mcu_board

    m = mcu_board.StandIn(levels, sample_every)
    sys.modules["machine"] = m
    os.chdir("/")
    with open("/main.py") as f:
        code = compile(f.read(), "main.py", "exec")
    sys.path[:] = ["", "/lib"]  # the board's own path: the firmware sees the staged files only
    base = _live()
    exec(code, {"__name__": "__main__"})
    after = _live()
    wasmhost.say("WASM32-RESULT " + json.dumps({
        "base": base, "max_running": m.max_alloc, "samples": m.samples, "after": after,
        "resets": m.resets, "wdt": None if m.wdt is None else m.wdt.timeout,
        "steps": 0 if m.wdt is None else m.wdt.feeds}))


class _HeapWatch:
    """The live heap, measured every HEAP_EVERY_MS of the wall: the simulator's share
    is taken once, as the firmware is about to be made (``base``); every later figure
    counts the simulator's growth against the firmware too (so the firmware's share
    said is an upper bound)."""

    def __init__(self, clock):
        self._clock = clock
        self.base = None
        self.max = 0
        self.samples = 0
        self._last = clock.ticks_ms()

    def before_firmware(self):
        if self.base is None:
            self.base = _live()

    def tick(self):
        import time

        now = self._clock.ticks_ms()
        if time.ticks_diff(now, self._last) < HEAP_EVERY_MS:
            return
        self._last = now
        live = _live()
        self.samples += 1
        if live > self.max:
            self.max = live
        wasmhost.say("WASM32-HEAP %d %d %d %d" % (self.base, live, self.max, self.samples))


def serve(speed=20, seed=7, profile="reference-18"):
    """The simulated table and the staged firmware on its pins, the protocol on the
    port, until the runtime is ended."""
    from firmware.compat import RealClock

    import mcu_table

    wall = RealClock()  # this port's ticks follow the host's wall (performance.now)
    watch = _HeapWatch(wall)
    wasmhost.say("WASM32-SERVING")
    mcu_table.serve(speed=speed, seed=seed, profile=profile, wall=wall, nap=wasmhost.sleep_ms,
                    before_firmware=watch.before_firmware, every=watch.tick)
