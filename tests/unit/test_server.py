"""The API's server (hostd/web/server.py, hostd/web/guards.py) under the attacks of issue 30,
on a real socket: an abort always gets through a full server, event streams are capped,
bodies have a deadline, headers a size however they arrive, a caller who may not press is
answered before its body is read, and a shutdown cancels what still runs with one info
line and no traceback.  Limits are made small here (the same code, fewer sockets);
bench/api_fuzz.py measures the daemon's own (100 connections held)."""
import asyncio
import json
import signal
import socket
import time

import pytest

from api_fuzz import ServerThread
from raw_http import port_of, connect, request, answer, first_status, status, body_of
from fake_daemon import FakeDaemon
from hostd.web import guards, server
from hostd.web.api import create_app

TOKEN = "server-token-0123456789-abcdef"


class Daemon(FakeDaemon):
    async def abort(self):
        self.calls.append(("abort", {}))
        return {"aborted": None, "confirmed": True, "seq": 7, "next": self.st["next"]}

    async def hand_over(self):  # a step that takes longer than the shutdown waits
        self.calls.append(("hand_over", {}))
        await asyncio.sleep(60)


@pytest.fixture
def small(monkeypatch):
    """A server that keeps 6 connections, 3 of them event streams, and 2 for an abort."""
    monkeypatch.setattr(server.GuardedH11Protocol, "max_connections", 6)
    monkeypatch.setattr(server.GuardedH11Protocol, "abort_reserve", 2)
    monkeypatch.setattr(guards, "MAX_EVENT_STREAMS", 3)
    monkeypatch.setattr(guards, "BODY_TIMEOUT_S", 1.0)


def closed(sock, timeout=3.0):
    """Whether the server closed the connection (within `timeout`)."""
    sock.settimeout(timeout)
    try:
        while sock.recv(65536):
            pass
        return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def hold(port, n, what):
    """`n` connections held: event streams (their headers read) or POST /dice bodies
    stalled after their headers (Content-Length 10, no byte of it)."""
    out = []
    for _ in range(n):
        s = connect(port)
        if what == "stream":
            s.sendall(request("GET", "/events"))
        else:
            s.sendall(b"POST /dice HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                      b"application/json\r\nContent-Length: 10\r\n\r\n")
        out.append(s)
    return out


def test_an_abort_is_answered_with_every_connection_held(small):
    d = Daemon()
    held = []
    with ServerThread(create_app(d)) as base:
        port = port_of(base)
        try:
            streams = hold(port, 4, "stream")  # one more than the streams kept
            refused = [s for s in streams if first_status(s) == 503]
            assert len(refused) == 1  # the fourth: 503 too_many_streams, closed
            held = streams + hold(port, 8, "dice")  # more than the connections kept
            time.sleep(0.2)
            t0 = time.monotonic()
            with connect(port) as s:
                s.sendall(request("POST", "/abort"))
                got = answer(s)
            took = time.monotonic() - t0
            assert status(got) == 200, got[:300]
            assert "aborted" in body_of(got) and took < 1.0
            # any other request on a connection kept for the abort: 503 and closed
            with connect(port) as s:
                s.sendall(request("GET", "/health"))
                got = answer(s)
                assert status(got) == 503 and b"retry-after: 5" in got.lower()
                assert body_of(got)["error"]["code"] == "abort_only"
                assert closed(s)
        finally:
            for s in held:
                s.close()
    assert ("abort", {}) in d.calls and ("throw_dice", {"dice": None}) not in d.calls


def test_silent_connections_cannot_keep_the_reserve_from_an_abort(small):
    with ServerThread(create_app(Daemon())) as base:
        port = port_of(base)
        held = hold(port, 6, "dice")
        try:
            time.sleep(0.1)
            silent = [connect(port) for _ in range(5)]  # the reserve full of nothing, twice
            held += silent
            time.sleep(0.2)
            with connect(port) as s:
                s.sendall(request("POST", "/abort"))
                assert status(answer(s)) == 200
            # the oldest silent ones made room, each for a newer one
            assert sum(closed(s, 0.5) for s in silent) >= 3
        finally:
            for s in held:
                s.close()


def test_an_abort_whose_body_stalls_does_not_keep_its_reserve_place(small, monkeypatch):
    monkeypatch.setattr(server.GuardedH11Protocol, "reserve_timeout_s", 0.5)
    with ServerThread(create_app(Daemon())) as base:
        port = port_of(base)
        held = hold(port, 6, "dice")
        try:
            time.sleep(0.1)
            with connect(port) as s:  # in the reserve: POST /abort, then nothing
                s.sendall(b"POST /abort HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\n")
                t0 = time.monotonic()
                assert closed(s, 3.0) and time.monotonic() - t0 < 2.0
        finally:
            for s in held:
                s.close()


def test_a_body_that_stalls_is_408_and_closed(small):
    with ServerThread(create_app(Daemon())) as base:
        with connect(port_of(base)) as s:
            s.sendall(b"POST /dice HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                      b"application/json\r\nContent-Length: 10\r\n\r\n{")
            t0 = time.monotonic()
            got = answer(s)
            assert status(got) == 408 and time.monotonic() - t0 < 3
            assert body_of(got)["error"]["code"] == "body_timeout"
            assert b"within 1 s" in got and closed(s)


def test_a_caller_who_may_not_press_is_answered_without_waiting_for_its_body():
    d = Daemon()
    with ServerThread(create_app(d, token=TOKEN, bind_host="0.0.0.0")) as base:
        with connect(port_of(base)) as s:  # its body never comes: answered after DRAIN_S
            s.sendall(b"POST /dice HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                      b"application/json\r\nContent-Length: 10\r\n\r\n")
            t0 = time.monotonic()
            got = answer(s, 3.0)
            assert status(got) == 401 and b"www-authenticate: bearer" in got.lower()
            assert time.monotonic() - t0 < guards.DRAIN_S + 0.5 < guards.BODY_TIMEOUT_S
            assert b"connection: close" in got.lower() and closed(s)
        with connect(port_of(base)) as s:  # its body after the headers: read, then answered
            s.sendall(b"POST /dice HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                      b"application/json\r\nContent-Length: 2\r\n\r\n")
            time.sleep(0.05)
            s.sendall(b"{}")
            assert status(answer(s, 2.0)) == 401
    assert d.calls == []


def test_event_streams_are_capped_with_retry_after(small):
    with ServerThread(create_app(Daemon())) as base:
        port = port_of(base)
        streams = hold(port, 3, "stream")
        try:
            for s in streams:
                assert first_status(s) == 200
            with connect(port) as s:
                s.sendall(request("GET", "/events"))
                got = answer(s)
                assert status(got) == 503 and b"retry-after: 10" in got.lower()
                assert body_of(got)["error"]["code"] == "too_many_streams"
            streams.pop().close()
            time.sleep(0.3)
            with connect(port) as s:  # a place again
                s.sendall(request("GET", "/events"))
                assert first_status(s) == 200
        finally:
            for s in streams:
                s.close()


@pytest.mark.parametrize("pieces", [1, 8])
def test_headers_over_16_kib_are_refused_however_they_arrive(pieces):
    big = request("GET", "/health", headers=["X-Pad: " + "a" * 64000])
    with ServerThread(create_app(Daemon())) as base:
        with connect(port_of(base)) as s:
            step = -(-len(big) // pieces)
            cut_off = False
            try:
                for i in range(0, len(big), step):
                    s.sendall(big[i:i + step])
                    time.sleep(0.01 if pieces > 1 else 0)
            except (BrokenPipeError, ConnectionResetError):
                cut_off = True  # refused (and closed) before the rest was sent
            got = answer(s)
    assert status(got) in ((431,) if pieces == 1 else (400, 431)) or (cut_off and not got), \
        got[:200]
    if pieces == 1:
        assert body_of(got)["error"]["code"] == "headers_too_large"


def test_a_shutdown_cancels_what_still_runs_with_one_info_line(log_buffer):
    d = Daemon()
    srv = ServerThread(create_app(d), timeout_graceful_shutdown=0.3)
    with srv as base:
        s = connect(port_of(base))
        s.sendall(request("POST", "/hand-over"))
        end = time.monotonic() + 5
        while ("hand_over", {}) not in d.calls and time.monotonic() < end:
            time.sleep(0.02)
    got = answer(s, 2.0)
    s.close()
    assert status(got) == 503 and body_of(got)["error"]["code"] == "stopping"
    lines = [json.loads(x) for x in log_buffer.getvalue().splitlines() if x.startswith("{")]
    cancelled = [x for x in lines if x.get("event") == "requests_cancelled"]
    assert len(cancelled) == 1 and cancelled[0]["n"] == 1 and cancelled[0]["level"] == "info"
    assert not [x for x in lines if x["level"] in ("error", "critical")], lines
    assert "Traceback" not in log_buffer.getvalue()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_that_arrives_inside_a_request_stops_the_server(sig):
    """SIGTERM (systemd) and SIGHUP (a closed terminal) only ask the server to stop while
    it runs, wherever they arrive: one that arrived inside a request used to raise there,
    where uvicorn took it for the request's error and the daemon ran on for ever. Once
    stopped, the signal reaches the handler from before (the CLI's clean-up)."""
    import os

    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    seen = []

    async def stop_here(request):
        os.kill(os.getpid(), sig)  # handled at the next bytecode: inside this request
        total = sum(range(10000))
        return JSONResponse({"total": total})

    sock = server.bind_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    srv = server.make_server(Starlette(routes=[Route("/stop", stop_here)]), "127.0.0.1", port)

    async def go():
        serving = asyncio.ensure_future(srv.serve(sockets=[sock]))
        while not srv.started:
            await asyncio.sleep(0.01)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(request("GET", "/stop"))
        await asyncio.wait_for(serving, 5)  # stopped, not serving on
        writer.close()

    before = signal.signal(sig, lambda signum, frame: seen.append(signum))
    try:
        asyncio.run(go())
    finally:
        signal.signal(sig, before)
        sock.close()
    assert seen == [sig]  # raised again for the handler from before, once stopped


def test_a_request_with_two_framings_is_400_and_its_body_never_read():
    """Issue 53 point 7: Content-Length beside Transfer-Encoding is refused (a proxy in
    front may frame the body the other way: request smuggling), the connection closed,
    and the command in it never done."""
    d = Daemon()
    with ServerThread(create_app(d)) as base:
        port = port_of(base)
        with connect(port) as s:
            s.sendall(b"POST /dice HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                      b"\r\nAuthorization: Bearer " + TOKEN.encode() + b"\r\nContent-Length: 4"
                      b"\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
            got = answer(s)
            assert status(got) == 400, got[:300]
            assert body_of(got)["error"]["code"] == "conflicting_length"
            assert b"Content-Length and Transfer-Encoding" in got
            assert closed(s)
    assert not any(c[0] == "throw_dice" for c in d.calls)


def connect_from(port, address):
    """A connection from another loopback address (127.0.0.0/8 is all this host's)."""
    s = socket.socket()
    s.bind((address, 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def test_one_address_with_many_slow_clients_cannot_hold_the_others_slots(small, monkeypatch):
    """Issue 53 point 3: 20 connections from one address that never finish their headers
    hold at most PER_ADDRESS serving slots; another address's GET /status is answered at
    once, and an abort from the flooding address itself still gets through."""
    monkeypatch.setattr(server.GuardedH11Protocol, "per_address", 3)
    with ServerThread(create_app(Daemon())) as base:
        port = port_of(base)
        slow = []
        try:
            for _ in range(20):
                s = connect_from(port, "127.0.0.2")
                s.sendall(b"GET /status HTTP/1.1\r\nHo")  # and never the rest
                slow.append(s)
            time.sleep(0.2)
            for _ in range(3):
                with connect_from(port, "127.0.0.3") as s:
                    s.sendall(request("GET", "/status"))
                    got = answer(s)
                    assert status(got) == 200, got[:300]
            with connect_from(port, "127.0.0.2") as s:
                s.sendall(request("POST", "/abort"))
                assert status(answer(s)) == 200
        finally:
            for s in slow:
                s.close()


def test_browsers_behind_one_address_are_never_refused_for_their_idle_connections(
        small, monkeypatch):
    """Four phones on one address (a club's NAT, the page's own e2e test) hold their event
    stream and keep-alive connections: at the cap, the address's next connection takes the
    place of its own oldest idle one and is served (it was answered 503 abort_only, and a
    phone's page did not load); the stream stays open."""
    monkeypatch.setattr(server.GuardedH11Protocol, "per_address", 3)
    with ServerThread(create_app(Daemon())) as base:
        port = port_of(base)
        held = []
        try:
            stream = connect_from(port, "127.0.0.4")
            stream.sendall(request("GET", "/events"))
            assert first_status(stream) == 200
            held.append(stream)
            for _ in range(2):  # two keep-alive connections, idle after their answer
                s = connect_from(port, "127.0.0.4")
                s.sendall(request("GET", "/status"))
                assert first_status(s) == 200
                held.append(s)
            time.sleep(0.2)
            for _ in range(3):
                s = connect_from(port, "127.0.0.4")
                held.append(s)
                s.sendall(request("GET", "/status"))
                got = first_status(s)
                assert got == 200, got
                time.sleep(0.1)
            assert closed(held[1], 2.0)  # the oldest idle one gave its place
            stream.settimeout(0.3)
            try:  # the stream is still open (an event or nothing, never the end)
                assert stream.recv(4096) != b""
            except socket.timeout:
                pass
        finally:
            for s in held:
                s.close()


def test_the_header_deadline_shrinks_as_the_server_fills(small, monkeypatch):
    """With every serving slot held by connections that send nothing, from several
    addresses, the deadline falls from 10 s to the minimum: they are closed within it,
    and a whole request finds a slot again."""
    monkeypatch.setattr(server.GuardedH11Protocol, "per_address", 2)
    monkeypatch.setattr(server.GuardedH11Protocol, "min_header_timeout_s", 0.5)
    assert server.GuardedH11Protocol.header_deadline(server.GuardedH11Protocol.__new__(
        server.GuardedH11Protocol), 3) == 10.0
    with ServerThread(create_app(Daemon())) as base:
        port = port_of(base)
        silent = []
        try:
            t0 = time.monotonic()
            for i in range(6):  # six slots, three addresses
                silent.append(connect_from(port, "127.0.0.%d" % (2 + i // 2)))
            time.sleep(0.1)
            assert all(closed(s, 3.0) for s in silent[:5])
            assert time.monotonic() - t0 < 3.0  # not the 10 s of a quiet server
            with connect_from(port, "127.0.0.9") as s:
                s.sendall(request("GET", "/status"))
                assert status(answer(s)) == 200
        finally:
            for s in silent:
                s.close()


def test_a_flood_of_connections_from_one_address_does_not_take_the_aborts_reserve(small):
    """Every serving slot and the reserve taken by connections from one address, and more
    of them opened all the time: an abort from another address replaces none of theirs'
    (the flooding address's oldest is replaced first), and is answered."""
    with ServerThread(create_app(Daemon())) as base:
        port = port_of(base)
        held = []
        try:
            for i in range(6):
                held.append(connect_from(port, "127.0.0.%d" % (2 + i % 3)))
            time.sleep(0.1)
            answered = 0
            for _ in range(5):
                flood = [connect_from(port, "127.0.0.5") for _ in range(4)]
                held += flood
                with connect_from(port, "127.0.0.6") as s:
                    flood2 = [connect_from(port, "127.0.0.5") for _ in range(3)]
                    held += flood2
                    s.sendall(request("POST", "/abort"))
                    answered += status(answer(s)) == 200
            assert answered == 5
        finally:
            for s in held:
                s.close()
