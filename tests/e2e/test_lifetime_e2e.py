"""Nothing left behind: `jantaku run --sim` and `jantaku demo` end every process they
started (children and theirs) within 2 s of ending, however they end, SIGKILL included,
and remove the temporary folders they made."""
import json
import os
import signal
import subprocess
import time

import pytest

from tests import procs
from tests.conftest import ROOT, tool
from tests.e2e.conftest import start_daemon

pytestmark = pytest.mark.e2e


def sim_dir(pid):
    """The folder `sim serve` (pid) offers its port in (hw_sim.serve.default_link_path):
    other test runs on the machine make their own, so only ours are looked at."""
    return "/tmp/jantaku-sim-%d" % pid


def sim_pids(tree):
    return [p for p in tree if "sim serve" in procs.cmdline(p)]


def run_sim(tmp_path, hil_port, extra=()):
    """`jantaku run --sim` -> (daemon, its process tree, the `sim serve` pids in it)."""
    if hil_port:
        pytest.skip("--sim only")
    d = start_daemon(tmp_path, None, extra=extra)
    tree = procs.descendants(d.proc.p.pid)
    sims = sim_pids(tree)
    assert sims, "run --sim started no simulated table"
    assert all(os.path.isdir(sim_dir(p)) for p in sims)  # the sim's port folder
    return d, tree, sims


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL, signal.SIGHUP])
def test_run_sim_leaves_nothing_behind(tmp_path, sig, hil_port):
    d, tree, sims = run_sim(tmp_path, hil_port)
    pid = d.proc.p.pid
    os.kill(pid, sig)  # the daemon alone, not its process group
    rc = d.proc.p.wait(10)
    ended = time.monotonic()
    left = procs.wait_gone(tree, 2.0)
    assert left == [], "still running 2 s after the daemon ended: %s" % [
        procs.cmdline(p) for p in left]
    if sig != signal.SIGKILL:
        assert rc == 0, d.proc.log()  # handled as Ctrl-C: a clean exit
        assert "Traceback" not in d.proc.log()
    # sim serve cleans up after itself even when the daemon was killed (it gets SIGTERM):
    # its /tmp/jantaku-sim-<pid> folder is gone within 2 s (issue 30)
    while [p for p in sims if os.path.exists(sim_dir(p))] and time.monotonic() < ended + 2.0:
        time.sleep(0.02)
    assert not [p for p in sims if os.path.exists(sim_dir(p))]
    d.proc.kill()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_stop_while_requests_are_answered_still_stops_the_daemon(tmp_path, sig, hil_port):
    """A stop signal that comes while the API answers (pages polling, a CLI) ends the
    daemon cleanly: it is never taken for an error of the request it arrived in (which
    swallowed it: a SIGHUP left the daemon running for ever)."""
    import threading

    import httpx

    d, tree, sims = run_sim(tmp_path, hil_port)
    stop = threading.Event()

    def poll():
        with httpx.Client(base_url=d.url, timeout=2) as c:
            while not stop.is_set():
                try:
                    c.get("/status")
                except httpx.HTTPError:
                    pass

    pollers = [threading.Thread(target=poll) for _ in range(4)]
    for t in pollers:
        t.start()
    try:
        time.sleep(0.5)
        os.kill(d.proc.p.pid, sig)
        try:
            rc = d.proc.p.wait(10)
        except subprocess.TimeoutExpired:
            rc = "still running 10 s after the signal"
    finally:
        stop.set()
        for t in pollers:
            t.join()
        log = d.proc.log()
        d.proc.kill()
    assert rc == 0 and "Traceback" not in log and "Exception in ASGI" not in log, (rc, log)
    assert procs.wait_gone(tree, 2.0) == []
    assert not [p for p in sims if os.path.exists(sim_dir(p))]


def test_run_sim_asked_to_stop_again_and_again_still_cleans_up(tmp_path, hil_port):
    """A stop that comes more than once (systemd's SIGTERM to every process of the service,
    then the daemon's own to its simulated table) does not cut short the clean-up the
    first began: the sim's port folder goes, and the daemon exits 0."""
    d, tree, sims = run_sim(tmp_path, hil_port)
    pid = d.proc.p.pid
    os.kill(pid, signal.SIGTERM)
    end = time.monotonic() + 10
    while time.monotonic() < end and any(procs.alive(p) for p in sims):
        for p in sims:  # again and again until it is gone
            try:
                os.kill(p, signal.SIGTERM)
            except ProcessLookupError:
                pass
    rc = d.proc.p.wait(10)
    assert procs.wait_gone(tree, 2.0) == []
    assert not [p for p in sims if os.path.exists(sim_dir(p))]
    assert rc == 0 and "Traceback" not in d.proc.log(), (rc, d.proc.log())
    d.proc.kill()


def test_a_stop_is_not_held_up_by_someone_following_the_table(tmp_path, hil_port):
    """Event streams never end by themselves (a page open on a phone, `session start
    --wait`): stopping the daemon ends them, so it stops at once, cleanly, and the one
    following is told."""
    d, _, sims = run_sim(tmp_path, hil_port, ["--push-window", "600"])  # the start waits for people
    pid = d.proc.p.pid
    follower = subprocess.Popen([tool("jantaku"), "session", "start", "--ruleset", "riichi",
                                 "--mixed-deck", "--wait", "--api", d.url], cwd=str(ROOT),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        d.wait(lambda s: s["next"]["code"] == "push_all", what="the start asking for people")
        t0 = time.monotonic()
        os.kill(pid, signal.SIGTERM)
        try:
            rc = d.proc.p.wait(5)
        except subprocess.TimeoutExpired:
            rc = None
        took = time.monotonic() - t0
        log = d.proc.log()
        said = follower.communicate(timeout=10)[0]
    finally:
        d.proc.kill()
        if follower.poll() is None:
            follower.kill()
            follower.wait()
    assert rc == 0 and took < 3, (rc, took, log)
    assert "timeout graceful shutdown" not in log and "Traceback" not in log
    assert follower.returncode == 1 and "the daemon stopped" in said, said
    assert procs.wait_gone(sims, 2.0) == []
    assert not [p for p in sims if os.path.exists(sim_dir(p))]


def test_demo_pty_leaves_nothing_and_reports_the_guard(tmp_path, hil_port):
    if hil_port:
        pytest.skip("the demo drives the simulated table only")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    p = subprocess.Popen([tool("jantaku"), "demo", "--json", "--ruleset", "riichi", "--hands", "1",
                          "--seed", "3", "--transport", "pty", "--fault", "guard:during=lift"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(ROOT),
                         env=dict(os.environ, TMPDIR=str(tmp)))
    sims = []
    while p.poll() is None and not sims:
        sims = sim_pids(procs.descendants(p.pid))
        time.sleep(0.05)
    stdout, stderr = p.communicate(timeout=300)
    out = json.loads(stdout)
    assert out["safety"]["guard_stop_ms_max"] is not None, stderr
    assert out["safety"]["guard_stop_ms_max"] <= 5
    assert list(tmp.iterdir()) == []  # no jantaku-demo-* left
    assert sims and not [s for s in sims if os.path.exists(sim_dir(s))]


def test_demo_removes_its_temporary_folder_but_keeps_db(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp))
    r = subprocess.run([tool("jantaku"), "demo", "--ruleset", "riichi", "--hands", "1"],
                       capture_output=True, text=True, timeout=300, cwd=str(ROOT), env=env)
    assert r.returncode == 0, r.stderr
    assert list(tmp.iterdir()) == []
    db = tmp_path / "kept.sqlite"
    r = subprocess.run([tool("jantaku"), "demo", "--ruleset", "riichi", "--hands", "1",
                        "--db", str(db)], capture_output=True, text=True, timeout=300, cwd=str(ROOT),
                       env=env)
    assert r.returncode == 0 and db.exists()
    assert list(tmp.iterdir()) == []


def test_demo_pty_killed_leaves_no_sim(tmp_path):
    # a SIGKILLed demo cannot remove its temporary journal: keep it in tmp_path
    p = subprocess.Popen([tool("jantaku"), "demo", "--ruleset", "riichi", "--hands", "50",
                          "--transport", "pty"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, cwd=str(ROOT),
                         env=dict(os.environ, TMPDIR=str(tmp_path)))
    end = time.monotonic() + 30
    tree = []
    while time.monotonic() < end and not any("sim serve" in procs.cmdline(c) for c in tree):
        time.sleep(0.1)
        tree = procs.descendants(p.pid)
    assert tree, "the demo started no simulated table"
    p.kill()
    p.wait(10)
    assert procs.wait_gone(tree, 2.0) == []
