"""systemd's sd_notify protocol, without a dependency (CPython only).

The protocol (sd_notify(3)): send one datagram of newline-separated ``KEY=value``
assignments to the unix datagram socket named by ``$NOTIFY_SOCKET`` (a path, or an
abstract socket when it starts with ``@``).  With ``Type=notify`` systemd waits for
``READY=1``; with ``WatchdogSec=`` it expects ``WATCHDOG=1`` at least every
``$WATCHDOG_USEC`` microseconds (send at half that) or it restarts the service.

Everything here is a no-op returning False when ``$NOTIFY_SOCKET`` is unset (not run by
systemd), so the daemon calls it unconditionally::

    sdnotify.ready("table connected")
    asyncio.create_task(sdnotify.watchdog_loop(healthy=daemon.is_healthy))
    ...
    sdnotify.stopping()
"""
import asyncio
import os
import socket


def _address(env):
    addr = env.get("NOTIFY_SOCKET")
    if not addr:
        return None
    if addr[0] == "@":  # abstract namespace
        return "\0" + addr[1:]
    if addr[0] != "/":  # vsock and other forms are not supported here
        return None
    return addr


def notify(state, *, env=None):
    """Send ``state`` (e.g. ``"READY=1\\nSTATUS=ok"``); True when sent, False when there
    is no $NOTIFY_SOCKET.  A socket error is raised as OSError only for a set but
    unreachable socket (systemd has gone or the path is wrong)."""
    env = os.environ if env is None else env
    addr = _address(env)
    if addr is None:
        return False
    data = state.encode("utf-8") if isinstance(state, str) else bytes(state)
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as s:
        s.connect(addr)
        s.sendall(data)
    return True


def ready(status=None, *, env=None):
    """Tell systemd start-up is complete (READY=1), optionally with a STATUS line."""
    msg = "READY=1"
    if status:
        msg += "\nSTATUS=" + _one_line(status)
    return notify(msg, env=env)


def status(text, *, env=None):
    """Free-form status shown by ``systemctl status``."""
    return notify("STATUS=" + _one_line(text), env=env)


def watchdog(*, env=None):
    """Keep-alive ping for ``WatchdogSec=``."""
    return notify("WATCHDOG=1", env=env)


def stopping(status=None, *, env=None):
    msg = "STOPPING=1"
    if status:
        msg += "\nSTATUS=" + _one_line(status)
    return notify(msg, env=env)


def _one_line(text):
    return " ".join(str(text).splitlines())


def watchdog_usec(*, env=None):
    """The watchdog timeout systemd set for this process in microseconds, or None (no
    watchdog, or $WATCHDOG_PID names another process)."""
    env = os.environ if env is None else env
    usec = env.get("WATCHDOG_USEC")
    if not usec:
        return None
    pid = env.get("WATCHDOG_PID")
    if pid and pid.strip() != str(os.getpid()):
        return None
    try:
        value = int(usec)
    except ValueError:
        return None
    return value if value > 0 else None


def watchdog_interval(*, env=None):
    """Seconds between WATCHDOG=1 pings: half the timeout (as sd_watchdog_enabled(3)
    advises), or None when no watchdog is expected."""
    usec = watchdog_usec(env=env)
    return None if usec is None else usec / 2e6


async def watchdog_loop(*, healthy=None, env=None, interval=None):
    """Run as an asyncio task: ping the watchdog every half timeout while ``healthy()``
    (if given) returns true.  A stuck event loop stops the pings, so systemd restarts
    the daemon.  Returns at once when no watchdog is configured."""
    interval = watchdog_interval(env=env) if interval is None else interval
    if interval is None:
        return
    while True:
        if healthy is None or healthy():
            watchdog(env=env)
        await asyncio.sleep(interval)
