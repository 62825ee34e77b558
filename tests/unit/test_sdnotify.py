"""hostd.sdnotify against a real unix datagram socket (path and abstract)."""
import asyncio
import os
import socket

import pytest

from hostd import sdnotify


@pytest.fixture
def sock(tmp_path):
    path = str(tmp_path / "notify.sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    s.settimeout(2)
    yield path, s
    s.close()


def recv(s):
    return s.recv(4096).decode()


def test_no_socket_is_a_no_op():
    env = {}
    assert sdnotify.ready(env=env) is False
    assert sdnotify.watchdog(env=env) is False
    assert sdnotify.status("x", env=env) is False
    assert sdnotify.watchdog_interval(env=env) is None


def test_messages_reach_the_socket(sock):
    path, s = sock
    env = {"NOTIFY_SOCKET": path}
    assert sdnotify.ready("table connected", env=env)
    assert recv(s) == "READY=1\nSTATUS=table connected"
    assert sdnotify.watchdog(env=env)
    assert recv(s) == "WATCHDOG=1"
    assert sdnotify.status("building\ndeck A", env=env)
    assert recv(s) == "STATUS=building deck A"
    assert sdnotify.stopping(env=env)
    assert recv(s) == "STOPPING=1"


def test_default_env_is_os_environ(sock, monkeypatch):
    path, s = sock
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    assert sdnotify.ready()
    assert recv(s) == "READY=1"


def test_abstract_socket():
    name = "jantaku-test-%d" % os.getpid()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind("\0" + name)
    s.settimeout(2)
    try:
        assert sdnotify.watchdog(env={"NOTIFY_SOCKET": "@" + name})
        assert recv(s) == "WATCHDOG=1"
    finally:
        s.close()


def test_watchdog_interval():
    pid = str(os.getpid())
    assert sdnotify.watchdog_interval(env={"WATCHDOG_USEC": "20000000"}) == 10.0
    assert sdnotify.watchdog_interval(env={"WATCHDOG_USEC": "20000000", "WATCHDOG_PID": pid}) == 10.0
    assert sdnotify.watchdog_interval(env={"WATCHDOG_USEC": "20000000", "WATCHDOG_PID": "1"}) is None
    assert sdnotify.watchdog_interval(env={"WATCHDOG_USEC": "0"}) is None
    assert sdnotify.watchdog_interval(env={"WATCHDOG_USEC": "junk"}) is None


def test_watchdog_loop_pings_while_healthy(sock):
    path, s = sock
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "20000"}  # ping every 10 ms
    state = {"ok": True}

    async def main():
        t = asyncio.create_task(sdnotify.watchdog_loop(healthy=lambda: state["ok"], env=env))
        await asyncio.sleep(0.1)
        state["ok"] = False
        await asyncio.sleep(0.05)
        t.cancel()

    asyncio.run(main())
    s.setblocking(False)
    got = []
    while True:
        try:
            got.append(recv(s))
        except BlockingIOError:
            break
    assert len(got) >= 3 and set(got) == {"WATCHDOG=1"}


def test_watchdog_loop_returns_without_watchdog():
    asyncio.run(asyncio.wait_for(sdnotify.watchdog_loop(env={}), 1))
