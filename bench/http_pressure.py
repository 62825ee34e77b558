"""Slow clients and a connection flood against the real daemon (issue 53 point 3):
`jantaku run --sim` on loopback, clients from several loopback addresses (127.0.0.0/8).

1. 150 connections from 127.0.0.2 that never finish their headers; GET /status from
   127.0.0.3 ten times: how many answered 200, and in how long.
2. A connection flood (threads opening and closing connections as fast as they can, from
   127.0.0.4) with and without those 150 slow clients beside it; POST /abort from
   127.0.0.5 24 times: how many answered 200, and the flood's rate.

    .venv/bin/python bench/http_pressure.py
"""
import os
import socket
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "unit"))
from raw_http import answer, request, status  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "bench"))
from api_fuzz import Daemon  # noqa: E402  (bench/api_fuzz.py, not the tests' module)


def conn(port, address, timeout=5.0):
    s = socket.socket()
    s.bind((address, 0))
    s.settimeout(timeout)
    s.connect(("127.0.0.1", port))
    return s


def slow_clients(port, n, address="127.0.0.2"):
    out = []
    for _ in range(n):
        try:
            s = conn(port, address)
            s.sendall(b"GET /status HTTP/1.1\r\nHo")
            out.append(s)
        except OSError:
            pass
    return out


def ask(port, address, method, path, timeout=5.0):
    t0 = time.monotonic()
    try:
        with conn(port, address, timeout) as s:
            s.sendall(request(method, path))
            code = status(answer(s, timeout))
    except OSError:
        code = None
    return code, time.monotonic() - t0


def _flood(port, address, stop, counter):
    n = 0
    while not stop.is_set():
        try:
            s = socket.socket()
            s.bind((address, 0))
            s.settimeout(1)
            s.connect(("127.0.0.1", port))
            s.close()
            n += 1
            if n % 50 == 0:
                with counter.get_lock():
                    counter.value += 50
        except OSError:
            time.sleep(0.001)


class ConnectionFlood:
    """Processes (not threads: the GIL would cap the flood) opening and closing
    connections as fast as they can, from one address."""

    def __init__(self, port, procs=3, address="127.0.0.4"):
        import multiprocessing as mp

        self.stop = mp.Event()
        self.counter = mp.Value("i", 0)
        self.procs = [mp.Process(target=_flood, args=(port, address, self.stop, self.counter),
                                 daemon=True) for _ in range(procs)]

    def __enter__(self):
        for p in self.procs:
            p.start()
        end = time.monotonic() + 10
        while self.counter.value < 200 and time.monotonic() < end:  # the flood is on
            time.sleep(0.01)
        self.t0, self.n0 = time.monotonic(), self.counter.value
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for p in self.procs:
            p.join(3)
            if p.is_alive():
                p.kill()
        self.rate = (self.counter.value - self.n0) / (time.monotonic() - self.t0)


def aborts(port, n=24):
    got = []
    for _ in range(n):  # over some 3 s of the flood
        got.append(ask(port, "127.0.0.5", "POST", "/abort"))
        time.sleep(0.1)
    return sum(c == 200 for c, _ in got), max(t for _, t in got)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        d = Daemon(tmp, "pressure")
        try:
            port = d.port
            held = slow_clients(port, 150)
            time.sleep(0.3)
            got = [ask(port, "127.0.0.3", "GET", "/status") for _ in range(10)]
            ok = [t for c, t in got if c == 200]
            print("150 slow connections from 127.0.0.2 (%d opened): GET /status from 127.0.0.3 "
                  "%d of 10 answered 200, median %.1f ms, max %.1f ms" % (
                      len(held), len(ok), statistics.median(ok) * 1000 if ok else 0,
                      max(ok) * 1000 if ok else 0))
            with ConnectionFlood(port) as f:
                n, worst = aborts(port, 24)
            print("connection flood %.0f/s from 127.0.0.4 beside them: POST /abort from "
                  "127.0.0.5 %d of 24 answered 200 (slowest %.0f ms)" % (f.rate, n, worst * 1000))
            for s in held:
                s.close()
            time.sleep(0.5)
            with ConnectionFlood(port) as f:
                n, worst = aborts(port, 24)
            print("connection flood %.0f/s alone: POST /abort %d of 24 answered 200 (slowest "
                  "%.0f ms)" % (f.rate, n, worst * 1000))
        finally:
            d.stop()


if __name__ == "__main__":
    main()
