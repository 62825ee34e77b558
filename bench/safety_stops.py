"""The stop, measured, per shipped profile (prints figures; not a test): docs/SAFETY.md.

  .venv/bin/python bench/safety_stops.py [--board ID] [--json]

For each profile, the firmware in-process on the simulated table (virtual time; the
simulated lift coasts the profile's safety.lift_coast_ms once its power goes):

1. firmware: the light curtain breaks 1.5 s into a lift stroke; the firmware's own
   timing (GUARD_STOP: break to its motor off, to the relay's cut) and the simulator's
   record of the lift (break to its motor off, to its last movement, its run-on in mm);
2. hardware alone: the same with the firmware's guard handler doing nothing: the
   safety relay K2 stops the lift;
3. hung firmware: the main loop stops 1.5 s into a stroke (its IRQs still run): from the
   freeze to the motors' supply dropping (the watchdog's hold and the relay) and to the
   lift's last movement, against the profile's bound (watchdog_hold_ms + relay_ms);
4. the emergency stop during a build: break to the mixer's supply off.
"""
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hw_sim.driver import Driver  # noqa: E402
from hw_sim.inprocess import InProcessTable  # noqa: E402
from hw_sim.tiles import standard_set  # noqa: E402
from tests.unit.sim_helpers import deaf_safety_factory  # noqa: E402

SET = standard_set()
BOARDS = ("reference-18", "long-29", "pico-18", "pico2-18", "pi-reference")


def table(board, factory=None):
    t = InProcessTable(board, [SET, SET], seed=1, firmware_factory=factory)
    d = Driver(t)
    d.connect()
    return t, d


def lift_midway(t, d):
    code = d.command("lift")
    if code[0]:
        raise RuntimeError("lift refused: %r" % (code,))
    d.run_for(1500)


def mm_per_ms(p):
    return p["safety"]["lift_travel_mm"] / p["timings_ms"]["lift_stroke"]


def guard_break(board, deaf):
    t, d = table(board, deaf_safety_factory if deaf else None)
    tab = t.table
    lift_midway(t, d)
    tab.panel.break_guard(tab.clock.us, 1500, "curtain")
    d.run_for(800)
    rec = tab.safety_report()[-1]
    stops = [e[2] for e in d.events if e[1] == "guard_stop"]
    out = {"motor_off_ms": rec["latency_ms"], "last_movement_ms": rec["stop_ms"],
           "run_on_mm": round(rec["run_on_ms"] * mm_per_ms(tab.profile), 2)}
    if stops:
        s = stops[-1]
        out["firmware_off_ms"] = s[3] / 1000
        out["firmware_cut_ms"] = None if s[4] == 0xFFFFFFFF else s[4] / 1000
    return out


def hung(board):
    t, d = table(board)
    tab = t.table
    sf = tab.profile["safety"]
    lift_midway(t, d)
    fw = t.fw
    fw.step = lambda: None
    fw.next_due_us = lambda: None
    t0 = tab.clock.us
    d.run_for(2000)
    drops = [x for x in tab.power.drops if x[0] >= t0]
    lf = tab.lift
    return {"power_off_ms": (drops[0][0] - t0) / 1000 if drops else None,
            "cause": drops[0][2] if drops else None,
            "last_movement_ms": (lf.stopped_us - t0) / 1000 if lf.stopped_us >= t0 else None,
            "bound_ms": sf["watchdog_hold_ms"] + sf["relay_ms"]}


def estop(board):
    t, d = table(board)
    tab = t.table
    d.command("configure_build", 1, [34] * 4, 17, [1, 2], 1)
    d.command("build", 1)
    d.run_for(3000)
    t0 = tab.clock.us
    tab.power.press_estop()
    d.run_for(200)
    off = [x for x in tab.power.drops if x[0] >= t0 and x[1] == "drive"]
    return {"drive_rail_off_ms": (off[0][0] - t0) / 1000 if off else None,
            "mixer_running": tab.mixer.running,
            "fault": [f for f in d.faults()][-1:]}


def main(argv):
    boards = [argv[argv.index("--board") + 1]] if "--board" in argv else list(BOARDS)
    out = {}
    for b in boards:
        out[b] = {"firmware": guard_break(b, False), "hardware_alone": guard_break(b, True),
                  "hung_firmware": hung(b), "emergency_stop": estop(b)}
    if "--json" in argv:
        print(json.dumps(out, indent=1))
        return 0
    print("The stop, measured in the simulator (virtual ms from the event; run-on at the "
          "profile's stroke speed)\n")
    print("%-13s | %-34s | %-26s | %-30s | %s" % (
        "profile", "firmware: off / cut / last / mm", "hardware alone: off / last / mm",
        "hung: power off / last (bound)", "e-stop: drive off"))
    for b, r in out.items():
        f, h, g, e = r["firmware"], r["hardware_alone"], r["hung_firmware"], r["emergency_stop"]
        print("%-13s | %6.2f / %5s / %6.1f / %4.2f mm | %6.1f / %6.1f / %4.2f mm | %7.1f / %6.1f (%d, %s) | %s" % (
            b, f.get("firmware_off_ms", f["motor_off_ms"]), f.get("firmware_cut_ms"),
            f["last_movement_ms"], f["run_on_mm"], h["motor_off_ms"], h["last_movement_ms"],
            h["run_on_mm"], g["power_off_ms"], g["last_movement_ms"], g["bound_ms"], g["cause"],
            e["drive_rail_off_ms"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
