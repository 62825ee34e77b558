# CPython only
#
# Child processes that end with their parent, however the parent ends (SIGKILL too):
# `jantaku run --sim` and `jantaku demo --transport pty` start `jantaku sim serve`, which
# may start a `micropython` process in turn.  Nothing they start may outlive them.
#
#   subprocess.Popen(cmd, preexec_fn=die_with_parent(), env=child_env())
#       the child gets SIGTERM when the parent dies (Linux PR_SET_PDEATHSIG, set between
#       fork and exec, so no moment is left uncovered: if the parent is already gone by
#       then, the child ends itself at once);
#   stop_on_signals()   SIGTERM and SIGHUP end the process as Ctrl-C does (KeyboardInterrupt:
#       its `finally` cleans up); a repeat of either is ignored, so the clean-up that the
#       first started is not cut short (the port link, the folder in /tmp removed)
#   watch_parent()   in the child (sim serve): the same from inside (PDEATHSIG is per
#       thread of the parent, so a thread that ends does not count as the parent ending)
#       plus a thread that looks at getppid() twice a second, for a parent that ends on
#       a system without PDEATHSIG.
import ctypes
import os
import signal
import threading

PR_SET_PDEATHSIG = 1
PARENT_ENV = "JANTAKU_PARENT_PID"
WATCH_EVERY_S = 0.5


def _prctl_pdeathsig(sig):
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0
    except (OSError, AttributeError):  # not Linux
        return False


def die_with_parent(sig=signal.SIGTERM):
    """A preexec_fn for subprocess.Popen: the child gets ``sig`` when this process dies."""
    parent = os.getpid()

    def preexec():
        _prctl_pdeathsig(sig)
        if os.getppid() != parent:  # the parent died before prctl took hold
            os._exit(1)

    return preexec


def stop_on_signals(sigs=(signal.SIGTERM, signal.SIGHUP)):
    """``sigs`` raise KeyboardInterrupt in the main thread once; any later one is ignored
    (a stop asked twice, say by a service manager and by the parent's death, would
    otherwise break into the clean-up the first began).  SIGKILL still ends it."""
    asked = []

    def stop(signum, frame):
        # (a flag, not SIG_IGN: changing the handler here would turn a signal already
        # pending into "OSError: Signal 15 ignored due to race condition")
        if not asked:
            asked.append(signum)
            raise KeyboardInterrupt

    for sig in sigs:
        signal.signal(sig, stop)


def child_env(env=None):
    """The environment for a child that should watch this process (watch_parent)."""
    env = dict(os.environ if env is None else env)
    env[PARENT_ENV] = str(os.getpid())
    return env


def watch_parent(sig=signal.SIGTERM):
    """In a child started with child_env(): end (``sig`` to itself) when the parent that
    started it is gone.  Returns the parent's pid, or None when not started so."""
    try:
        parent = int(os.environ.get(PARENT_ENV, ""))
    except ValueError:
        return None
    os.environ.pop(PARENT_ENV, None)  # not for this process's own children
    _prctl_pdeathsig(sig)
    if os.getppid() != parent:
        os.kill(os.getpid(), sig)
        return parent

    def watch():
        while True:
            if os.getppid() != parent:
                os.kill(os.getpid(), sig)
                return
            threading.Event().wait(WATCH_EVERY_S)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()
    return parent
