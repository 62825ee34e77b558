"""The wiring survey on shuffled simulated tables (issue 47 point 4; docs/RETROFIT.md):
for each board and seed, a table wired another way than its profile says
(hw_sim/rewire.py), a simulated person answering the survey as tests/unit/test_survey.py's
does (pressing each switch when it watches, saying what moved after each pulse), the
inputs written and flashed first when they were not where the draft said; prints how
many maps came out exactly the table's (every pin, every invert but the mixer-empty
sensor's and the like, whose level at rest depends on the tiles) and the table time the
survey took.

    .venv/bin/python bench/survey_bench.py [--seeds 20] [--boards reference-18,pico-18,pi-reference]
"""
import argparse
import logging
import os
import pathlib
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    boards = "reference-18,pico-18,pi-reference"
    if (ROOT / "firmware" / "boards" / "fourport-24v.json").exists():
        boards += ",fourport-24v"  # (the four-port family, issue 47)
    ap.add_argument("--boards", default=boards)
    args = ap.parse_args(argv)
    tmp = tempfile.TemporaryDirectory(prefix="jantaku-survey-bench-")
    os.environ["XDG_CONFIG_HOME"] = os.path.join(tmp.name, "cfg")
    os.environ["XDG_STATE_HOME"] = os.path.join(tmp.name, "state")
    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    from firmware import profile as fprofile
    from tests.unit.test_survey import Person, rig

    from hostd.bringup import survey as S

    def inverts(p):
        unknown = [n for n, _, rest in S.catalogue(p)["inputs"] if rest is None]
        return {n: bool(o.get("invert")) for n, o in (p.get("pin_options") or {}).items()
                if n not in unknown and o.get("invert")}

    failures = 0
    for board in args.boards.split(","):
        exact, two_phase, table_s, wall_s, bad = 0, 0, [], [], []
        for seed in range(1, args.seeds + 1):
            d = pathlib.Path(tempfile.mkdtemp(dir=tmp.name))
            os.environ["XDG_CONFIG_HOME"] = str(d / "cfg")
            h, draft, truth = rig(d, seed, board)
            try:
                p = Person(h)
                t0, w0, boots = h.sim.now_ms(), time.monotonic(), h.sim.boots
                plan, sv = p.survey(truth)
                pins = sv.pins_map(plan["raw_pins"])
                table_s.append((h.sim.now_ms() - t0) / 1000.0)
                wall_s.append(time.monotonic() - w0)
                two_phase += h.sim.boots > boots
                found = fprofile.validate(dict(draft, pins=pins))
                if found["pins"] == truth["pins"] and inverts(found) == inverts(truth):
                    exact += 1
                else:
                    bad.append(seed)
            except Exception as e:  # reported, counted
                bad.append("%d (%s)" % (seed, str(e)[:120]))
            finally:
                h.close()
        failures += len(bad)
        n = args.seeds
        print("%-13s %2d/%d maps exact (%d with the inputs flashed first); table time per "
              "survey %.1f s (%.1f..%.1f), wall %.2f s%s"
              % (board, exact, n, two_phase, sum(table_s) / max(1, len(table_s)),
                 min(table_s or [0]), max(table_s or [0]), sum(wall_s) / max(1, len(wall_s)),
                 ("; wrong: %s" % ", ".join(str(b) for b in bad)) if bad else ""))
    tmp.cleanup()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
