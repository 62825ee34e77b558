"""Mutation testing of the rules' edges and the link (issue 53 point 8): mutmut (pinned in
pyproject's dev extras) changes one operator or constant at a time in each file below and
runs the file's own unit tests; a change no test notices "survives".  Prints, per file, the
changes caught over those made, and every survivor with its diff and, when it is known to be
equivalent (no behaviour a user could notice changes), why (EQUIVALENT below).

Each file is run in its own copy of the project (a temporary folder: nothing is left in the
work tree), one after the other; on 2 shared cores a file takes minutes, so run it in the
background and give the files you want:

    .venv/bin/python bench/mutation.py [FILE ...] [--max-children 2] [--show-killed]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MUTMUT = os.path.join(os.path.dirname(sys.executable), "mutmut")

#: file -> the unit tests that pin its behaviour (run for each of its mutants)
TARGETS = {
    "hostd/game/payments.py": ["tests/unit/test_game_payments.py", "tests/unit/test_game_ledger.py"],
    "hostd/game/values.py": ["tests/unit/test_game_values.py", "tests/unit/test_game_payments.py",
                             "tests/unit/test_game_ledger.py", "tests/unit/test_game_entries.py"],
    "hostd/hand/fu.py": ["tests/unit/test_hand_fu.py", "tests/unit/test_hand_score.py"],
    "hostd/hand/limits.py": ["tests/unit/test_hand_limits.py", "tests/unit/test_hand_score.py"],
    # (the statistical tests of a million frames and of 10,000 commands left out: seconds
    # each, for every mutant; the others pin the same code)
    "protocol/codec.py": ["tests/unit/test_protocol_codec.py", "--deselect",
                          "tests/unit/test_protocol_codec.py::"
                          "test_a_million_corrupted_frames_none_accepted"],
    "protocol/link.py": ["tests/unit/test_protocol_link.py", "--deselect",
                         "tests/unit/test_protocol_link.py::"
                         "test_ten_thousand_commands_exactly_once_in_order_over_a_lossy_line"],
    "firmware/reference/track.py": ["tests/unit/test_track.py"],
}
COPY = ("hostd", "firmware", "protocol", "hw_sim", "tests", "docs", "pyproject.toml")

#: survivors known to be equivalent: mutant name -> why no behaviour changes
_PAO_SELF = ("pao named as the discarder is then taken as liable: the discarder pays half "
             "and the rest, the chips and the honba all the same, so every payment is equal")
_OTHERS_NONE = ("others(None) lists the winner too, who then pays itself: a payment of 0 "
                "net, every book the same")
EQUIVALENT = {
    # hostd/game/payments.py
    "hostd.game.payments.x__liable__mutmut_2": _PAO_SELF + "; and no pao stays None",
    "hostd.game.payments.x__liable__mutmut_3": _PAO_SELF + "; and no pao stays None",
    "hostd.game.payments.x__liable__mutmut_8": "every hand (WinnerHand) has a pao attribute: "
                                               "the default of getattr is never used",
    "hostd.game.payments.x__riichi_hand__mutmut_10": _PAO_SELF,
    "hostd.game.payments.x_win_payments__mutmut_54": _PAO_SELF,
    "hostd.game.payments.x__riichi_hand__mutmut_16": "total_of tests tsumo for truth: None "
                                                     "and False are the same",
    "hostd.game.payments.x__riichi_hand__mutmut_66": "seat=None lists the winner's own seat "
                                                     "among the payers: it pays itself, 0 net",
    "hostd.game.payments.x__shenyang_hand__mutmut_14": _OTHERS_NONE,
    "hostd.game.payments.x__uzje_hand__mutmut_5": _OTHERS_NONE,
    "hostd.game.payments.x__wsom_hand__mutmut_3": _OTHERS_NONE,
    "hostd.game.payments.x_chombo_payments__mutmut_2": _OTHERS_NONE,
    "hostd.game.payments.x_win_payments__mutmut_74": _OTHERS_NONE,
    "hostd.game.payments.x__wsom_hand__mutmut_6": "a discard worth exactly 25 pays 25 from "
        "each loser either way: the discarder's 3 x 25 - 50 is 25 (seed 003 line 297)",
    "hostd.game.payments.x__wsom_hand__mutmut_7": "WSOM values are multiples of 5 "
        "(values._check_patterns): none lies between 25 and 26",
    "hostd.game.payments.x_noten_payments__mutmut_8": "the book starts at 0 and each player "
                                                      "is paid once: = and += agree",
    "hostd.game.payments.x_uma_chips__mutmut_11": "the book starts at 0 and each player is "
                                                  "placed once: = and += agree",
    "hostd.game.payments.x_win_payments__mutmut_85": "with honba 0 or honba_per_payer 0 the "
                                                     "honba paid is 0 x ...: nothing moves",
    # hostd/game/values.py
    "hostd.game.values.x__check_fan__mutmut_23": "fan x 5 is never exactly 1e-6 from a "
        "whole number: > and >= agree",
    "hostd.game.values.x__check_fan__mutmut_25": "a fan of exactly 2.5 is 12.5 fifths, "
        "refused by the steps of 0.2 before the minimum is looked at",
    "hostd.game.values.x__check_patterns__mutmut_25": "481 is no multiple of 5: refused "
        "by p % 5 before the range is looked at",
    "hostd.game.values.x_check_value__mutmut_30": "every ruleset that scores han takes pao "
        "(riichi, speed-tonpuu) and the others refuse it as a foreign field: the clause "
        "never decides",
    "hostd.game.values.x_check_value__mutmut_31": "as mutmut_30: the pao clause never decides",
    "hostd.game.values.x_riichi_base__mutmut_12": "han is None only for a yakuman, whose "
        "count decides before han is looked at",
    "hostd.game.values.x_riichi_base__mutmut_14": "fu is None only at 5 han or more, a "
        "limit whose base does not look at fu",
    "hostd.game.values.x_shenyang_name__mutmut_17": "a name that is no string is refused "
        "by its repr, whatever the key: the same words",
    "hostd.game.values.x_shenyang_name__mutmut_3": "the entry's model takes multipliers as "
        "strings only (hostd/game/entries.py): the else is never taken",
    "hostd.game.values.x_uzje_points__mutmut_12": "at exactly 5,000 (12.6 fan) both "
        "branches give 5,000",
    # hostd/hand/limits.py
    "hostd.hand.limits.x_limit_of__mutmut_50": "fu x 2^(han+2) is never exactly 2000 for a "
        "fu of 25 or a multiple of 10: > and >= agree on every hand",
    # hostd/hand/fu.py
    "hostd.hand.fu.x_fu_of__mutmut_26": "valued never holds None: counting None gives 0",
    "hostd.hand.fu.x_fu_of__mutmut_29": "a reading of sets always has its pair: the else is "
                                        "never taken",
    # protocol/codec.py
    "protocol.codec.x__crc_views__mutmut_5": "a view for a LEN below 8 is never used (such a "
        "LEN is refused before the CRC is looked at): 8 more views made at start, no byte else",
    "protocol.codec.x__crc_views__mutmut_12": "a view for a LEN of 65 is never used (LEN "
        "above 64 is refused first): one more view made at start, no byte else",
    "protocol.codec.xǁDecoderǁ_parse__mutmut_18": "find from a non-sync byte at h never "
        "returns h (and h >= 0): i is -1 or above 0, so < 0 and <= 0 agree",
    "protocol.codec.xǁDecoderǁ_parse__mutmut_19": "as mutmut_18: i is -1 or above 0, so "
        "< 0 and < 1 agree",
    "protocol.codec.xǁDecoderǁfeed__mutmut_21": "when k equals what is left, k = n - pos "
        "sets k to the same value",
}


def run_target(path, tests, max_children, keep=False):
    tmp = tempfile.mkdtemp(prefix="jantaku-mutation-")
    try:
        for name in COPY:
            src = os.path.join(ROOT, name)
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(tmp, name), ignore=shutil.ignore_patterns(
                    "__pycache__", "*.pyc", "node_modules"))
            else:
                shutil.copy2(src, tmp)
        package = path.split("/")[0]
        others = [n for n in COPY if n not in (package, "pyproject.toml")]
        def listed(items):  # (setup.cfg's lists for mutmut: one item a line)
            return "".join("\n    " + x for x in items)

        with open(os.path.join(tmp, "setup.cfg"), "w") as f:
            f.write("[mutmut]\nsource_paths=%s\nonly_mutate=%s\nalso_copy=%s\n"
                    "pytest_add_cli_args_test_selection=%s\npytest_add_cli_args=%s\n"
                    % (listed([package]), listed([path]), listed(others), listed(tests),
                       listed(["-x", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"])))
        # pyproject's own pytest settings stay; its [tool.mutmut] (none) would win over setup.cfg
        t0 = time.monotonic()
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        subprocess.run([MUTMUT, "run", "--max-children", str(max_children)], cwd=tmp, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=3 * 3600)
        took = time.monotonic() - t0
        out = subprocess.run([MUTMUT, "results", "--all", "true"], cwd=tmp, env=env,
                             capture_output=True, text=True).stdout
        status = {}
        for line in out.splitlines():
            m = re.match(r"\s*(\S+__mutmut_\d+): (.+)$", line)
            if m:
                status[m.group(1)] = m.group(2).strip()
        diffs = {}
        for name, st in status.items():
            if st in ("survived", "no tests"):
                diffs[name] = subprocess.run([MUTMUT, "show", name], cwd=tmp, env=env,
                                             capture_output=True, text=True).stdout
        return status, diffs, took
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", default=list(TARGETS))
    ap.add_argument("--max-children", type=int, default=2)
    args = ap.parse_args()
    total = caught = 0
    for path in args.files:
        status, diffs, took = run_target(path, TARGETS[path], args.max_children)
        if not status or all(s == "not checked" for s in status.values()):
            print("== %s: mutmut checked nothing (its first run of the tests failed: run "
                  "them in a copy of the project to see why)" % path)
            continue
        counted = {n: s for n, s in status.items() if s not in ("skipped",)}
        killed = sum(1 for s in counted.values() if s in ("killed", "timeout", "caught by type check"))
        equivalent = [n for n in diffs if n in EQUIVALENT]
        n = len(counted) - len(equivalent)
        total += n
        caught += killed
        print("== %s: %d of %d changes caught (%.1f %%), %d equivalent left out, %.0f s"
              % (path, killed, n, 100.0 * killed / n if n else 100.0, len(equivalent), took))
        for name, diff in sorted(diffs.items()):
            why = EQUIVALENT.get(name)
            print("-- %s %s: %s" % ("equivalent" if why else "SURVIVED", name,
                                    why or status[name]))
            print("\n".join("   " + line for line in diff.strip().splitlines()
                            if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))))
    if len(args.files) > 1:
        print("== all: %d of %d changes caught (%.1f %%)" % (caught, total,
                                                               100.0 * caught / total if total else 100.0))


if __name__ == "__main__":
    main()
