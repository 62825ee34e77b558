# The wasm32 tier's board side (tests/wasm32): MicroPython's WebAssembly port under
# Node (tests/wasm32/run.mjs), its stdin/stdout bridged to a pseudo-terminal as a
# board's USB REPL port.  Compiled beside the staged files; never copied to a board.
#
#   prepare() ... report()   the staged /main.py as a board boots it, the `machine` of
#                        tests/mcu/board/mcu_board.StandIn (inputs at rest), its heap
#                        measured; the figures said as one WASM32-RESULT
#   serve(speed)         the simulated table on the staged firmware's pins, the
#                        firmware's protocol on the port (tests/mcu/board/mcu_table.serve)
#
# What the board says to the test goes through `wasmhost.say` (a line on Node's
# stdout): its port's bytes are the protocol's.  MicroPython only.
import gc
import json
import sys

import wasmhost


def _live():
    gc.collect()
    return gc.mem_alloc()


# This port's collector frees what a call into the runtime dropped only once that call
# has returned (inside one, gc.collect() keeps it: it scans the call's stack as a whole),
# so as_flashed runs in parts, one call each (tests/wasm32/run.mjs takes a list):
#   prepare(levels); measure("base"); run_main(); measure("after"); report()
_run = {}


def prepare(levels, sample_every=4):
    """The stand-in machine (inputs at rest) and the staged /main.py compiled; the
    board's own path from here on: the firmware sees the staged files only (the test's
    modules live under /t)."""
    import os

    import mcu_board

    m = mcu_board.StandIn(levels, sample_every)
    sys.modules["machine"] = m
    os.chdir("/")
    with open("/main.py") as f:
        _run["code"] = compile(f.read(), "main.py", "exec")
    _run["machine"] = m
    sys.path[:] = ["", "/lib"]


def measure(name):
    _run[name] = _live()


def run_main():
    """The staged /main.py, as a board boots it (until EXIT_REPL)."""
    exec(_run["code"], {"__name__": "__main__"})


def report():
    """Says WASM32-RESULT {figures}: base (live bytes before main.py), after (live bytes
    once it returned, measured in a call of its own: the firmware's code and objects,
    kept alive by the stand-in's pins), max_in_call (the most seen while it ran, which
    on this port counts the call's garbage too), samples, steps, resets, wdt."""
    m = _run["machine"]
    wasmhost.say("WASM32-RESULT " + json.dumps({
        "base": _run["base"], "after": _run["after"], "max_in_call": m.max_alloc,
        "samples": m.samples, "resets": m.resets, "wdt": None if m.wdt is None else m.wdt.timeout,
        "steps": 0 if m.wdt is None else m.wdt.feeds}))


def serve(speed=20, seed=7, profile="reference-18", mixed_deck=True):
    """The simulated table (both sets in the mixer, for a Mixed Deck split) and the
    staged firmware on its pins, the protocol on the port, until the runtime is ended."""
    from firmware.compat import RealClock

    import mcu_table

    wasmhost.say("WASM32-SERVING")
    # the link's clock: this port's ticks, which follow the host's wall (performance.now)
    mcu_table.serve(speed=speed, seed=seed, profile=profile, mixed_deck=mixed_deck, wall=RealClock(),
                    nap=wasmhost.sleep_ms)
