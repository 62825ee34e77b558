"""The simulated table as a process of ours (CPython only): `jantaku sim serve` started
as a child that ends with us however we end (hw_sim/lifetime.py), stopped with its
children; the in-process table for virtual time; presses through its control channel.
Used by `jantaku run --sim` and `jantaku demo`."""
import os
import signal
import subprocess
import sys

from hostd.errors import JantakuError, NotReady


def board_profile(table_stacks=None, board=None):
    """The board profile ``board`` names (an id, by the one lookup: the club's copy first,
    then the shipped profiles, hostd/boards/boardfile.locate; or a JSON path), else the
    reference one, or the long-wall one when the ruleset needs it.  ValueError saying what
    is wrong."""
    from firmware import profile as fprofile
    from hostd.boards import boardfile
    from hostd.errors import ConfigError

    name = board or ("reference-18" if not table_stacks or table_stacks <= 18 else "long-29")
    try:
        path = boardfile.locate(name)
    except ConfigError as e:
        raise ValueError(str(e)) from None
    prof = fprofile.load(path)
    if table_stacks:
        prof["max_stacks"] = int(table_stacks)
        prof = fprofile.validate(prof)
    return prof


class SimStartError(JantakuError):
    """`jantaku sim serve` did not start (it said why on stderr)."""

    code = "sim_start"
    status = 500


def spawn_sim_serve(ruleset, *, speed, seed=None, mixed_deck=False, faults=(),
                    table_stacks=None, firmware_runtime="cpython", state_path=None,
                    players="auto", colours=None, board=None):
    """`jantaku sim serve` as a child process (its own session, so it can be stopped
    with its children, and ending with this process however it ends: hw_sim/lifetime.py);
    returns (Popen, the port path it printed).  SimStartError if it did not start."""
    from hw_sim.lifetime import child_env, die_with_parent

    cmd = [sys.executable, "-m", "hostd.cli", "sim", "serve", "--ruleset", ruleset,
           "--speed", str(speed), "--firmware-runtime", firmware_runtime, "--players", players]
    if state_path:
        cmd += ["--state", state_path]
    if seed is not None:
        cmd += ["--seed", str(seed)]
    if mixed_deck:
        cmd.append("--mixed-deck")
    if colours:
        cmd += ["--colours", ",".join(colours)]
    if table_stacks:
        cmd += ["--table-stacks", str(table_stacks)]
    if board:
        cmd += ["--board", str(board)]
    for f in faults:
        cmd += ["--fault", f]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, start_new_session=True,
                            preexec_fn=die_with_parent(), env=child_env())
    line = proc.stdout.readline().decode(errors="replace").strip()
    if not line.startswith("PORT "):
        stop_sim_process(proc)
        raise SimStartError("the simulated table (`jantaku sim serve`) did not start: exit "
                            "status %s%s" % (proc.returncode,
                                             ", it printed %r" % line[:200] if line else ""))
    return proc, line[5:]


def stop_sim_process(proc, timeout=5.0):
    """End `sim serve` and whatever it started (its process group): SIGTERM, then
    SIGKILL if it is still there after ``timeout`` seconds."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout)
    if proc.stdout is not None:
        proc.stdout.close()


def watch_parent():
    """In `sim serve`: end with the process that started it (hw_sim/lifetime.py)."""
    from hw_sim.lifetime import watch_parent as watch

    return watch()


def control_press(link):
    """Press a button of `sim serve` through its control channel (hw_sim/control.py)."""
    from hw_sim.control import request

    def press(button):
        r = request(link, "press", button=button)
        if not r.get("ok"):
            raise NotReady("the simulated table did not take the press: %s" % r.get("error"))
    return press
