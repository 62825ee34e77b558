"""The table's firmware as our child on this computer (CPython only): one Raspberry Pi runs
the whole table, its GPIO driven by `python -m firmware.pi_main --pty PROFILE` and the
daemon on the pseudo-terminal it makes (`jantaku run --pi`, docs/DEPLOY.md "One Raspberry
Pi").  The child ends with us however we end (hw_sim/lifetime.py), its motors off; when it
ends first, we end too, so that systemd starts both again."""
import os
import signal
import subprocess
import sys
import threading

from hostd.errors import JantakuError

# what systemd gives the daemon is not the child's (its watchdog watches the daemon)
_NOT_THE_CHILDS = ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")


class FirmwareStartError(JantakuError):
    """`firmware.pi_main` did not start (it said why on stderr)."""

    code = "firmware_start"
    status = 500


def spawn_pi_firmware(board):
    """firmware.pi_main on a pseudo-terminal of its own; returns (Popen, its path)."""
    from hw_sim.lifetime import child_env, die_with_parent

    from hostd.boards import boardfile

    try:
        board = boardfile.locate(board)  # the one lookup: the club's copy first
    except JantakuError as e:
        raise FirmwareStartError(str(e)) from None
    env = child_env()
    for k in _NOT_THE_CHILDS:
        env.pop(k, None)
    cmd = [sys.executable, "-m", "firmware.pi_main", "--pty", board]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, start_new_session=True,
                            preexec_fn=die_with_parent(), env=env)
    line = proc.stdout.readline().decode(errors="replace").strip()
    if not line.startswith("PORT "):
        proc.wait(10)
        raise FirmwareStartError("the table's firmware (python -m firmware.pi_main --pty %s) did "
                                 "not start: exit status %s (its error is above)" % (board, proc.returncode))
    return proc, line[5:]


def end_with(proc, on_end):
    """Call on_end(returncode) from a thread when proc ends."""
    def wait():
        on_end(proc.wait())
    t = threading.Thread(target=wait, name="firmware-child", daemon=True)
    t.start()
    return t


def stop_when_child_ends(proc, log):
    """When the firmware ends by itself, the daemon ends (SIGTERM to itself: a clean stop)
    and says so with a non-zero exit status: ``proc.jantaku_ended`` is its status."""
    def ended(code):
        if getattr(proc, "jantaku_stopping", False):
            return  # we stopped it
        proc.jantaku_ended = code
        log.error("the table's firmware ended", returncode=code)
        os.kill(os.getpid(), signal.SIGTERM)
    return end_with(proc, ended)


def ended_by_itself(proc):
    """The one-line error of a firmware child that ended by itself, or None."""
    code = getattr(proc, "jantaku_ended", None)
    if code is None:
        return None
    return ("the table's firmware ended by itself (exit status %s; its error is above): the "
            "daemon stopped with it" % code)
