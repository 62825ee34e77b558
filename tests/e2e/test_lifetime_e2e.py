"""Nothing left behind: `jantaku run --sim` and `jantaku demo` end every process they
started (children and theirs) within 2 s of ending, however they end, SIGKILL included,
and remove the temporary folders they made."""
import glob
import json
import os
import signal
import subprocess
import tempfile
import time

import pytest

from tests import procs
from tests.conftest import ROOT, tool
from tests.e2e.conftest import start_daemon

pytestmark = pytest.mark.e2e


def sim_dirs():
    return set(glob.glob(os.path.join(tempfile.gettempdir(), "jantaku-sim-*")))


def demo_dirs():
    return set(glob.glob(os.path.join(tempfile.gettempdir(), "jantaku-demo-*")))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL, signal.SIGHUP])
def test_run_sim_leaves_nothing_behind(tmp_path, sig, hil_port):
    if hil_port:
        pytest.skip("--sim only")
    before = sim_dirs()
    d = start_daemon(tmp_path, None)
    pid = d.proc.p.pid
    tree = procs.descendants(pid)
    assert tree, "run --sim started no simulated table"
    assert any("sim serve" in procs.cmdline(p) for p in tree)
    assert sim_dirs() - before  # the sim's port folder
    os.kill(pid, sig)  # the daemon alone, not its process group
    rc = d.proc.p.wait(10)
    left = procs.wait_gone(tree, 2.0)
    assert left == [], "still running 2 s after the daemon ended: %s" % [
        procs.cmdline(p) for p in left]
    if sig != signal.SIGKILL:
        assert rc == 0, d.proc.log()  # handled as Ctrl-C: a clean exit
        assert "Traceback" not in d.proc.log()
    time.sleep(0.3)
    assert sim_dirs() - before == set()
    d.proc.kill()


def test_demo_pty_leaves_nothing_and_reports_the_guard(hil_port):
    if hil_port:
        pytest.skip("the demo drives the simulated table only")
    before = demo_dirs() | sim_dirs()
    r = subprocess.run([tool("jantaku"), "demo", "--json", "--ruleset", "riichi", "--hands", "1",
                        "--seed", "3", "--transport", "pty", "--fault", "guard:during=lift"],
                       capture_output=True, text=True, timeout=300, cwd=str(ROOT))
    out = json.loads(r.stdout)
    assert out["safety"]["guard_stop_ms_max"] is not None, r.stderr
    assert out["safety"]["guard_stop_ms_max"] <= 5
    assert (demo_dirs() | sim_dirs()) - before == set()


def test_demo_removes_its_temporary_folder_but_keeps_db(tmp_path):
    before = demo_dirs()
    r = subprocess.run([tool("jantaku"), "demo", "--ruleset", "riichi", "--hands", "1"],
                       capture_output=True, text=True, timeout=300, cwd=str(ROOT))
    assert r.returncode == 0, r.stderr
    assert demo_dirs() - before == set()
    db = tmp_path / "kept.sqlite"
    r = subprocess.run([tool("jantaku"), "demo", "--ruleset", "riichi", "--hands", "1",
                        "--db", str(db)], capture_output=True, text=True, timeout=300, cwd=str(ROOT))
    assert r.returncode == 0 and db.exists()
    assert demo_dirs() - before == set()


def test_demo_pty_killed_leaves_no_sim(tmp_path):
    p = subprocess.Popen([tool("jantaku"), "demo", "--ruleset", "riichi", "--hands", "50",
                          "--transport", "pty"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, cwd=str(ROOT))
    end = time.monotonic() + 30
    tree = []
    while time.monotonic() < end and not any("sim serve" in procs.cmdline(c) for c in tree):
        time.sleep(0.1)
        tree = procs.descendants(p.pid)
    assert tree, "the demo started no simulated table"
    p.kill()
    p.wait(10)
    assert procs.wait_gone(tree, 2.0) == []
