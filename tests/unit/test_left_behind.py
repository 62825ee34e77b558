"""The suite's own check that no test leaves a process behind (tests/conftest.py)."""
import os
import subprocess
import sys

import pytest

from tests import procs
from tests.conftest import ROOT


@pytest.mark.skipif(os.environ.get("JANTAKU_LEAK_DEMO") != "1", reason="run by the test below")
def test_leaks_a_process():
    # a process in a session of its own, as a `sim serve` whose parent forgot it
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"],
                         start_new_session=True)
    with open(os.path.join(os.environ["LEAK_PID_FILE"]), "w") as f:
        f.write(str(p.pid))


@pytest.mark.parametrize("workers", [[], ["-n", "1"]], ids=["one-process", "xdist-worker"])
def test_a_process_left_behind_fails_the_run(tmp_path, workers):
    pid_file = tmp_path / "pid"
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"] + workers +
                       ["tests/unit/test_left_behind.py::test_leaks_a_process"],
                       capture_output=True, text=True, cwd=str(ROOT), timeout=120,
                       env=dict(os.environ, JANTAKU_LEAK_DEMO="1", LEAK_PID_FILE=str(pid_file)))
    pid = int(pid_file.read_text())
    assert r.returncode == 1, r.stdout + r.stderr
    assert "processes left behind by the tests" in r.stdout and "time.sleep(120)" in r.stdout
    assert procs.wait_gone([pid], 5) == []  # and it was ended
