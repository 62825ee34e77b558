"""A table line that floods or carries no frame (issue 53 point 1): the host's link pump
decodes a bounded number of bytes per turn and yields to the event loop every turn, so
the rest of the daemon (/status, an abort) keeps its turn; a line that floods or sends
garbage for seconds is a named table fault (LineFault), its port closed a while."""
import asyncio
import os
import random
import threading
import time

import pytest

from hostd.table import link as hlink
from hostd.table.link import LinkClient
from hostd.table.transport import InProcessTransport, SerialTransport


def flood_pty(stop, chunk=b"\x7e\x40" * 2048):
    """A pseudo-terminal whose far end is fed `chunk` as fast as it takes it (a thread):
    (its path, the thread, the bytes written so far in a list)."""
    master, slave = os.openpty()
    path = os.ttyname(slave)
    written = [0]

    def feed():
        os.set_blocking(master, False)
        while not stop.is_set():
            try:
                written[0] += os.write(master, chunk)
            except BlockingIOError:
                time.sleep(0.0005)
            except OSError:
                break

    t = threading.Thread(target=feed, daemon=True)
    return path, t, written, (master, slave)


def test_a_flooding_line_leaves_the_loop_its_turns_and_becomes_a_line_fault(monkeypatch):
    """A pty fed 7E 40 as fast as it takes it: the event loop's other tasks (a timer every
    10 ms, as a request's handler) are never late by more than 100 ms, and within a few
    seconds the link says line_flood and closes the port (the writer then blocks)."""
    monkeypatch.setattr(hlink, "LINE_FAULT_BACKOFF_S", (0.5, 0.5))
    stop = threading.Event()
    path, feeder, written, fds = flood_pty(stop)

    async def go():
        client = LinkClient(SerialTransport(path), on_event=lambda i, v: None)
        task = asyncio.create_task(client.run())
        await asyncio.sleep(0.05)
        feeder.start()
        late, t0 = 0.0, time.monotonic()
        while client.line_fault is None and time.monotonic() - t0 < 8:
            before = time.monotonic()
            await asyncio.sleep(0.01)
            late = max(late, time.monotonic() - before - 0.01)
        fault = client.line_fault
        client.stop()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return late, fault, time.monotonic() - t0

    try:
        late, fault, took = asyncio.run(go())
    finally:
        stop.set()
        feeder.join(2)
        for fd in fds:
            os.close(fd)
    assert written[0] > 64 * 1024, written  # it did flood
    assert late < 0.1, "the event loop waited %.3f s for the link's pump" % late
    assert fault is not None and fault["code"] == "line_flood", fault
    assert "bytes/s" in fault["message"] and took < 5


class Garbage:
    """A table (InProcessTransport's verbs) whose line says 1 byte a millisecond of
    noise and never a frame: too slow to be a flood, never a frame."""

    def __init__(self):
        self.ms = 0
        self.rng = random.Random(53)

    def now_ms(self):
        return self.ms

    def write(self, data):
        pass

    def run(self, max_ms):
        self.ms += max_ms
        return bytes(self.rng.randrange(256) for _ in range(max_ms))


def test_a_line_of_garbage_is_named_and_the_port_closed_then_opened_again(monkeypatch):
    monkeypatch.setattr(hlink, "LINE_FAULT_BACKOFF_S", (0.01, 0.02))
    tr = InProcessTransport(Garbage())
    opened = []
    real_open = tr.open

    async def counted_open():
        opened.append(tr.table.ms)
        await real_open()

    tr.open = counted_open
    changes = []

    async def go():
        client = LinkClient(tr, on_event=lambda i, v: None,
                            on_change=lambda w, d: changes.append((w, d)))
        task = asyncio.create_task(client.run())
        t0 = time.monotonic()
        while client.line_faults < 2 and time.monotonic() - t0 < 5:
            await asyncio.sleep(0.005)
        st = client.get_status()
        client.stop()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return client, st

    client, st = asyncio.run(go())
    assert st["line_fault"]["code"] == "line_garbage", st
    assert "not one frame" in st["line_fault"]["message"]
    assert "table fault line_garbage" in st["error"]
    assert len(opened) >= 2  # opened again after the fault's pause
    assert st["line_fault"]["count"] == 2 and not st["connected"]
