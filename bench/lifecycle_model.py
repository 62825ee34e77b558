"""The daemon in a person's hands, model-based, for as long as asked (docs/FAULTS.md
"People and the lifecycle"): random operator actions and injected faults against the
in-process simulated table, the invariants of tests/unit/daemon_model.py checked after
every step.  Prints the sequences and steps run, how many ended back in play, how many
needed a person (and what `next` asked of them), and any falsifying sequence.  With
`--machine bring-up` (or `both`, the default: the two by turns) the builder's commands
too: self-tests, calibrations read however the table is loaded, their sets named in
either order or swapped, the wiring survey's moves (tests/unit/daemon_model.py BenchMachine).

    .venv/bin/python bench/lifecycle_model.py [--seconds 300] [--steps 12] [--machine both]
"""
import argparse
import collections
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "unit"))
sys.path.insert(0, str(ROOT))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=120.0, help="how long to run (wall)")
    ap.add_argument("--steps", type=int, default=12, help="operator actions per sequence")
    ap.add_argument("--machine", choices=("daemon", "bring-up", "both"), default="both",
                    help="the session's commands, the builder's too, or the two by turns")
    args = ap.parse_args(argv)

    import structlog
    from hypothesis import HealthCheck, settings

    import daemon_model

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    t0 = time.monotonic()
    failure = None
    machines = {"daemon": [daemon_model.DaemonMachine], "bring-up": [daemon_model.BenchMachine],
                "both": [daemon_model.DaemonMachine, daemon_model.BenchMachine]}[args.machine]
    turn = 0
    while time.monotonic() - t0 < args.seconds:
        case = machines[turn % len(machines)].TestCase
        turn += 1
        case.settings = settings(max_examples=10, stateful_step_count=args.steps, deadline=None,
                                 database=None, suppress_health_check=list(HealthCheck))
        try:
            case("runTest").runTest()
        except AssertionError as e:
            failure = "\n".join([str(e)] + list(getattr(e, "__notes__", [])))
            break
    st = daemon_model.STATS
    wall = time.monotonic() - t0
    print("lifecycle model: %.0f s, %d sequences, %d operator steps (%.1f per s)"
          % (wall, st["sequences"], st["steps"], st["steps"] / wall))
    print("  answers checked against can:       %d (%d judged on a state that had moved on)"
          % (st["judged"], st["stale"]))
    print("  refusals whose words were checked: %d" % st["refusals"])
    print("  bring-up commands:                 %d (%d self-tests, %d readings, %d namings, "
          "%d survey moves taken)" % (st["bench"], st["selftests"], st["readings"], st["named"],
                                      st["surveys"]))
    print("  back to play from the final state: %d" % st["recovered"])
    print("  a person had to act first:         %d" % st["person"])
    asks = collections.Counter()
    for faults, players, nxt in st["findings"]:
        asks[("%s, %s players" % (faults[0] if faults else "no fault", players), nxt[:110])] += 1
    for (what, nxt), n in asks.most_common(12):
        print("    %3d x %s: %s" % (n, what, nxt))
    if failure:
        print("FALSIFIED:\n" + failure)
        return 1
    print("no invariant falsified")
    return 0


if __name__ == "__main__":
    sys.exit(main())
