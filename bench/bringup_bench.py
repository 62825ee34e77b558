"""Bring-up figures (docs/FIRMWARE.md §3.4): the real stack in-process (daemon -> table
client -> protocol -> firmware -> the simulated table) in virtual time.

* self-test: how long a whole self-test takes on the table (table seconds), devices;
* calibration of pink / yellow backs for several per-track sensor biases: the smallest
  separation over the tracks, the radii, the table seconds; and pink / salmon (too close);
* health: with a drifting sensor, the build at which `health` flags the track against the
  build at which it first misreads a back (the warning's lead).

    .venv/bin/python bench/bringup_bench.py [--seed 5]
"""
import argparse
import asyncio
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

PINK = [0.45, 0.25, 0.30]
YELLOW = [0.40, 0.42, 0.18]
SALMON = [0.44, 0.27, 0.29]


class Bench:
    made = 0

    def __init__(self, folder, seed, sim=None, colours=("blue", "green")):
        from hostd.core.daemon import Daemon
        from hostd.table.sim import board_profile
        from hostd.cli.demo import sim_sets
        from hostd.core.journal import Journal
        from hostd.rules.rulesets import get_ruleset
        from hostd.table.transport import InProcessTransport
        from hw_sim.inprocess import InProcessTable

        self.loop = asyncio.new_event_loop()
        self.sim = InProcessTable(board_profile(), sim_sets(get_ruleset("riichi")), seed=seed,
                                  keep_builds=2, sim=sim)
        Bench.made += 1
        self.journal = Journal(os.path.join(folder, "journal-%d.sqlite" % Bench.made))
        self.daemon = Daemon(transport=InProcessTransport(self.sim), journal=self.journal,
                             seed=seed, push_window=1.0, colours=colours)
        self.run(self.daemon.start())
        self.wait(lambda: self.daemon.link.connected)

    def run(self, coro):
        return self.loop.run_until_complete(coro)

    def wait(self, pred, max_s=600):
        async def go():
            t0 = self.sim.now_ms()
            while not pred():
                if self.sim.now_ms() - t0 > max_s * 1000:
                    raise RuntimeError("still waiting after %d table s" % max_s)
                await asyncio.sleep(0)
        self.run(go())

    def timed(self, coro):
        t0 = self.sim.now_ms()
        out = self.run(coro)
        return out, (self.sim.now_ms() - t0) / 1000.0

    def close(self):
        self.run(self.daemon.close())
        self.journal.close()
        self.loop.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    from hostd.core import bench as bringup
    from hostd import logging as jlog

    jlog.configure("warning", stream=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="jantaku-bringup-bench-") as folder:
        os.environ["XDG_CONFIG_HOME"] = folder
        b = Bench(folder, args.seed)
        rep, s = b.timed(b.daemon.bench_step("selftest", bringup.selftest()))
        print("selftest: %d devices, %d failed, %.1f table s (lift up %d ms, door open %d ms)"
              % (len(rep["devices"]), rep["failed"], s, rep["measured"]["lift_stroke_ms"],
                 rep["measured"]["door_move_ms"]))
        b.close()
        for name, other, bias in (("yellow", YELLOW, 0), ("yellow", YELLOW, 20),
                                  ("yellow", YELLOW, 40), ("salmon", SALMON, 0)):
            sim = {"set_colours": [["pink", PINK], [name, other]], "sensor_bias_pm": bias}
            b = Bench(folder, args.seed, sim=sim, colours=("pink", name))
            rep, s = b.timed(b.daemon.bench_step("calibrate", bringup.calibration(["pink", name])))
            seps = [t["separation"] for t in rep["tracks"]]
            radii = [t["max_distance"] for t in rep["tracks"]]
            print("calibrate pink/%s, sensor bias +-%d per mille: separation min %.2f max %.2f "
                  "(>= 2.0 needed), radius %.3f..%.3f, %s, %.1f table s"
                  % (name, bias, min(seps), max(seps), min(radii), max(radii),
                     "ok" if rep["ok"] else "REFUSED", s))
            b.close()
            for f in os.listdir(os.path.join(folder, "jantaku", "boards")) if os.path.isdir(
                    os.path.join(folder, "jantaku", "boards")) else []:
                os.unlink(os.path.join(folder, "jantaku", "boards", f))
        # health: a drifting sensor
        for drift in (400, 150):
            health_lead(folder, args.seed, drift)


def health_lead(folder, seed, drift):
    b = Bench(folder, seed, sim={"sensor_drift_pm": drift})
    d = b.daemon
    worst = max(range(4), key=lambda k: sum(x * x for x in b.sim.table.tracks[k].sensor.drift))
    b.run(d.start_session("riichi", False))
    b.wait(lambda: not d._busy())
    flagged = misread = None
    for n in range(2, 80):
        b.run(d.hand_over())
        b.wait(lambda: not d._busy())
        b.journal.flush()
        h = d.table_health()
        t = h["tracks"][worst]
        if flagged is None and any(f.startswith("drift") for f in t["flags"]):
            flagged = n
        if t["unknown"] and misread is None:
            misread = n
        if misread is not None or d.session is None or d.state.name == "stopped":
            break
    print("health, sensor drift up to %d per mille per 1000 reads: track %d flagged at "
          "build %s, first misread at build %s (lead %s builds)"
          % (drift, worst + 1, flagged, misread,
             misread - flagged if flagged and misread else "?"))
    b.close()


if __name__ == "__main__":
    main()
