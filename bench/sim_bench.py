"""Simulator benchmark (prints figures; not a test).

  .venv/bin/python bench/sim_bench.py [--quick] [--board ID]

--board: the profile the simulated table is wired as for 1, 2 (in-process) and 4 (default
reference-18; e.g. pico-18, whose slow signals are on an I2C expander).

1. a 136-tile build (firmware + simulator in-process) against its mechanical bound
2. simulated seconds per wall second: in-process on CPython (firmware, and the physics
   alone with the scripted controller), and under MicroPython (firmware + simulator in
   one `micropython` process)
3. the firmware's heap under MicroPython: peak during a build, and after 1 and after
   100 builds (how it is told apart from the simulator's: bench/mp/sim_bench_mp.py)
4. guard broken -> lift / door motor off, in simulated ms, over a lift cycle
"""
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hw_sim.driver import Driver  # noqa: E402
from hw_sim.inprocess import InProcessTable, scripted_factory  # noqa: E402
from hw_sim.tiles import standard_set  # noqa: E402

SET = standard_set()
QUICK = "--quick" in sys.argv
BOARD = sys.argv[sys.argv.index("--board") + 1] if "--board" in sys.argv else "reference-18"
ROUNDS = 3 if QUICK else 5


def reference_mops():
    """Millions of a fixed pure-Python loop's iterations per second: how fast this
    machine runs Python right now (a shared machine's speed drifts by a third and
    more from minute to minute; read the speeds below against it)."""
    best = 0.0
    for _ in range(3):
        w = time.perf_counter()
        x = 0
        for i in range(300000):
            x = (x + i * 7) & 0xFFFF
        best = max(best, 0.3 / (time.perf_counter() - w))
    return best


def firmware_build(seed, board=None):
    t = InProcessTable(board or BOARD, [SET, SET], seed=seed)
    d = Driver(t, keep_events=False)
    d.connect()
    w = time.perf_counter()
    t0 = t.now_ms()
    done = d.build(1, [34] * 4, 17, [1, 2], 1)
    wall = time.perf_counter() - w
    assert done is not None, "build failed for seed %d" % seed
    sim = (t.now_ms() - t0) / 1000
    w = time.perf_counter()
    t1 = t.now_ms()
    assert d.hand_over()
    wall2 = time.perf_counter() - w
    sim2 = (t.now_ms() - t1) / 1000
    return t.report(False)["builds"][0], sim, wall, sim2, wall2


def scripted_build(seed):
    t = InProcessTable("reference-18", [SET, SET], seed=seed, firmware_factory=scripted_factory)
    c = t.fw
    w = time.perf_counter()
    c.build(17)
    while c.building:
        t.run(1000)
    return t.now_ms() / 1000, time.perf_counter() - w


def micropython(mode, builds, heap="1m"):
    mp = pathlib.Path(sys.executable).parent / "micropython"
    if not mp.exists():
        return None
    env = dict(os.environ, MICROPYPATH="%s:.frozen" % ROOT)
    r = subprocess.run([str(mp), "-X", "heapsize=%s" % heap, str(ROOT / "bench" / "mp" / "sim_bench_mp.py"), mode,
                        str(builds)], capture_output=True, text=True, timeout=3600, env=env, cwd=str(ROOT))
    for line in r.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError("micropython bench failed:\n%s\n%s" % (r.stdout, r.stderr))


def guard_latencies():
    worst = 0.0
    n = 0
    for when in (1, 500, 2000, 3990, 4300, 6000, 7990):
        for door in (False, True):
            t = InProcessTable(BOARD, [SET, SET], seed=2)
            d = Driver(t, keep_events=False)
            d.connect()
            d.build(1, [34] * 4, 17, [1, 2], 1)
            t.table.panel.break_guard(t.now_us() + when * 1000, 100)
            if door:
                d.command("door", 1)
            d.command("lift")
            d.run_for(when + 500)
            for s in t.report(False)["safety"]:
                n += 1
                lat = s["latency_ms"]
                worst = max(worst, lat if lat is not None else float("inf"))
    return worst, n


def interpreter():
    """Which CPython this is and how its executable gets libpython: a shared
    libpython (a plain source build such as pyenv's default: no PGO either) runs this
    code measurably slower than a distribution's python3 with libpython linked in
    (Debian, Raspberry Pi OS: also built with PGO); the Makefile prefers that one."""
    try:
        with open("/proc/self/maps") as f:
            shared = "libpython" in f.read()
        how = "shared libpython" if shared else "libpython linked in"
    except OSError:
        how = "libpython: not known here"
    return "%s %s (%s)" % (sys.executable, platform.python_version(), how)


def kib(n):
    return "%.1f KiB" % (n / 1024)


def main():
    print("== jantaku simulator bench (hw_sim), board profile %s" % BOARD)
    seeds = [1, 2, 3] if QUICK else list(range(1, 11))
    res = [firmware_build(s) for s in seeds]
    b = res[0][0]
    print("1. a 136-tile build, firmware + simulator in-process (seed 1):")
    print("   simulated build time %.3f s, mechanical bound %.3f s, efficiency %.2f %%" % (
        b["build_s"], b["bound_s"], 100 * b["efficiency"]))
    effs = [r[0]["efficiency"] for r in res]
    print("   over %d seeds: build %.1f..%.1f s, efficiency min %.2f %% mean %.2f %% (goal: within 2 %%, ~20 s)" % (
        len(seeds), min(r[0]["build_s"] for r in res), max(r[0]["build_s"] for r in res), 100 * min(effs),
        100 * statistics.mean(effs)))
    print("   missed tiles: %d; hand over (door + lift up and down): %.2f s simulated" % (
        sum(len(r[0]["missed"]) for r in res), res[0][3]))
    if BOARD == "reference-18":
        # beside it, the four-port machine (docs/FIRMWARE.md §11): the four walls at once,
        # its bound the slowest side's feed and last cam stroke
        fp = [firmware_build(s, "fourport-24v") for s in seeds]
        b = fp[0][0]
        print("1b. the four-port machine (fourport-24v), a 136-tile build (seed 1):")
        print("   simulated build time %.3f s, mechanical bound %.3f s, efficiency %.2f %%" % (
            b["build_s"], b["bound_s"], 100 * b["efficiency"]))
        effs = [r[0]["efficiency"] for r in fp]
        print("   over %d seeds: build %.1f..%.1f s, efficiency min %.2f %% mean %.2f %% (goal: within 2 %%, "
              "inside the commercial 18-35 s)" % (
                  len(seeds), min(r[0]["build_s"] for r in fp), max(r[0]["build_s"] for r in fp), 100 * min(effs),
                  100 * statistics.mean(effs)))
        print("   missed tiles: %d; hand over (centre panel + four lifts up and down): %.2f s simulated" % (
            sum(len(r[0]["missed"]) for r in fp), fp[0][3]))
    print("2. simulated seconds per wall second (goal: in-process >= 1000x on CPython)")
    # rounds of the same builds: the median is the figure, the best and worst show
    # how much the machine itself moved (Python speed reference before and after)
    rounds = [res]
    refs = [reference_mops()]
    for _ in range(ROUNDS - 1):
        rounds.append([firmware_build(s) for s in seeds])
        refs.append(reference_mops())
    rates = []
    for rr in rounds:
        sim = sum(r[1] for r in rr)
        wall = sum(r[2] for r in rr)
        sim2 = sum(r[3] for r in rr)
        wall2 = sum(r[4] for r in rr)
        rates.append((sim / wall, sim2 / wall2, (sim + sim2) / (wall + wall2)))
    print("   CPython %s" % interpreter())
    print("   CPython, firmware + simulator + host link, %d rounds of %d builds + hand overs:" % (
        len(rounds), len(seeds)))
    for i, name in enumerate(("builds", "hand overs", "overall")):
        xs = sorted(r[i] for r in rates)
        print("     %-10s median %.0fx (rounds %.0f..%.0fx)" % (name, statistics.median(xs), xs[0], xs[-1]))
    print("     per round, overall / a fixed Python loop's M iterations/s right after it (the")
    print("     machine's own speed: a shared machine drifts by a third and more):")
    print("       " + ", ".join("%.0fx / %.1f" % (r[2], f) for r, f in zip(rates, refs)))
    ps = [scripted_build(s) for s in seeds[:3]]
    print("   CPython, physics alone (scripted pin-level controller): %.0fx" % (
        sum(p[0] for p in ps) / sum(p[1] for p in ps)))
    sp = micropython("speed", 2 if QUICK else 5)
    if sp is None:
        print("   MicroPython: the micropython binary is not installed")
    else:
        print("   MicroPython unix port, firmware + simulator + host link in one process: builds %.0fx" % (
            sp["sim_s"] / sp["wall_s"]))
    print("3. the firmware's heap under MicroPython (-X heapsize=1m; goal: peak <= 64 KiB, flat over 100 builds)")
    one = micropython("heap", 1)
    many = micropython("heap", 3 if QUICK else 100)
    if one is not None:
        print("   separated by gc.mem_alloc() deltas (gc.collect() before each reading):")
        print("     code (bytecode from .py; frozen in flash on a board): firmware+protocol %s, simulator+host %s" % (
            kib(one["code_firmware"]), kib(one["code_sim"])))
        print("     constructing Firmware(...) after the table, wire and host exist: %s" % kib(one["fw_static"]))
        print("     live after N builds = heap before - after dropping the firmware (and its IRQ handlers)")
        print("     transient = most one Firmware.step() allocates (collector off around each step;")
        print("     the simulator code a step calls allocates nothing: tests/mpy/sim_heap_lock.py)")
        print("   peak during a build: %s (the larger of construction %s and live %s, + largest step %s;" % (
            kib(max(one["fw_static"], one["fw_live_end"]) + one["fw_step_max"]), kib(one["fw_static"]),
            kib(one["fw_live_end"]), kib(one["fw_step_max"])))
        print("     construction counts the stand-in's Pin/PWM/ADC objects the binding creates, which a")
        print("     board's machine.Pin objects replace, and which stay with the stand-in when dropped)")
        print("   firmware live after 1 build: %s; after %d builds: %s" % (
            kib(one["fw_live_end"]), many["builds"], kib(many["fw_live_end"])))
        print("   whole process heap after each build (simulator history bounded, bench records preallocated):")
        print("     after build 1: %d B, after build %d: %d B (range %d..%d B)" % (
            many["total_after_first"], many["builds"], many["total_after_last"], many["total_min"], many["total_max"]))
        print("   efficiency under MicroPython: min %.2f %% over %d builds" % (100 * many["eff_min"], many["builds"]))
    worst, n = guard_latencies()
    print("4. guard broken -> motor off: worst %.3f ms simulated over %d stops (goal: <= 10 ms)" % (worst, n))


if __name__ == "__main__":
    main()
