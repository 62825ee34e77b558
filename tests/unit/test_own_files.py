"""The suite never reads the person's own files (tests/conftest.py gives it config and
state folders of its own): a builder who calibrated the table on this very computer (a
club's copy of every shipped board profile in ~/.config/jantaku/boards, calibrated for
pink and yellow sets) still sees the profile-reading tests pass, the flashed firmware on
the wasm32 tier included."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from firmware import profile as fprofile
from tests.conftest import OWN_DIRS, ROOT

PINK = [0.45, 0.25, 0.30]
YELLOW = [0.40, 0.42, 0.18]
# tests that read a board profile by its id: with the club's copy read instead, each fails
READERS = [
    "tests/wasm32/test_wasm32_flashed.py::test_wasm32_flashed_runs_within_the_heap_margin"
    "[reference-18]",
    "tests/unit/test_demo.py::test_normal_rotation_deck_a_is_blue_and_b_green",
    "tests/unit/test_demo.py::test_a_colour_the_board_does_not_know_is_a_usage_error",
]


def calibrated_copies(home):
    """~/.config/jantaku/boards/<id>.json for every shipped profile, as `jantaku calibrate
    --sets pink,yellow` leaves it, and a journal in the default state folder."""
    boards = home / ".config" / "jantaku" / "boards"
    boards.mkdir(parents=True)
    for path in sorted(pathlib.Path(fprofile.boards_dir()).glob("*.json")):
        raw = json.loads(path.read_text())
        raw["colours"] = ["pink", "yellow"]
        cal = raw["calibration"]
        cal["refs"] = {"pink": PINK, "yellow": YELLOW}
        cal["max_distance"] = 0.05
        cal["tracks"] = [{"refs": {"pink": PINK, "yellow": YELLOW}, "max_distance": 0.05}
                         for _ in range(raw["tracks"])]
        fprofile.validate(json.loads(json.dumps(raw)))  # what calibrate writes loads
        (boards / path.name).write_text(json.dumps(raw, indent=2))
    state = home / ".local" / "state" / "jantaku"
    state.mkdir(parents=True)
    (state / "journal.sqlite").write_text("not a journal: a test must never open it")
    return boards


def test_the_suite_sets_its_own_config_and_state_folders():
    own = os.environ[OWN_DIRS]
    for var in ("XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        assert os.environ[var].startswith(own), var
    assert "JANTAKU_CONFIG_DIR" not in os.environ


def test_a_calibrated_club_copy_in_the_persons_config_changes_no_test(tmp_path):
    missing = [t for t in READERS if not (ROOT / t.split("::")[0]).exists()]
    assert not missing, missing
    home = tmp_path / "home"
    boards = calibrated_copies(home)
    env = {k: v for k, v in os.environ.items()
           if k not in (OWN_DIRS, "XDG_CONFIG_HOME", "XDG_STATE_HOME", "JANTAKU_CONFIG_DIR")}
    env["HOME"] = str(home)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-p", "no:randomly", *READERS], capture_output=True, text=True,
                       cwd=str(ROOT), timeout=300, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert " passed" in r.stdout and "skipped" not in r.stdout.splitlines()[-1], r.stdout[-500:]
    # and the copies are as they were: read by nobody's write
    assert sorted(p.name for p in boards.iterdir()) == sorted(
        p.name for p in pathlib.Path(fprofile.boards_dir()).glob("*.json"))
