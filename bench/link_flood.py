"""A table line that floods (issue 53 point 1), on the real daemon: `jantaku run --port PTY`
on a pseudo-terminal whose far end is fed `7E 40` (a sync byte and a frame's start, the
decoder's most expensive input) as fast as it takes it, while GET /status and POST /abort
are asked from loopback.  Prints the bytes per second the daemon took from the line
before it named the fault (line_flood) and closed the port, and the answers' times beside
the budgets (STATUS_BUDGET_S, ABORT_BUDGET_S: docs/SECURITY.md).

    .venv/bin/python bench/link_flood.py [--seconds 6]
"""
import argparse
import os
import statistics
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

from api_fuzz import JANTAKU, free_port  # noqa: E402

STATUS_BUDGET_S = 0.25
ABORT_BUDGET_S = 1.0


class Flood:
    def __init__(self, master, chunk=b"\x7e\x40" * 2048):
        self.master, self.chunk = master, chunk
        self.stop = threading.Event()
        self.samples = []  # (monotonic, bytes written so far)
        self.written = 0
        self.t = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        os.set_blocking(self.master, False)
        while not self.stop.is_set():
            try:
                self.written += os.write(self.master, self.chunk)
            except BlockingIOError:
                time.sleep(0.0002)
            except OSError:
                break
            self.samples.append((time.monotonic(), self.written))


def timed(client, method, url, **kw):
    t0 = time.monotonic()
    r = client.request(method, url, timeout=30, **kw)
    return time.monotonic() - t0, r


def main():
    import subprocess

    import httpx

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=6.0)
    args = ap.parse_args()
    master, slave = os.openpty()
    path = os.ttyname(slave)
    port = free_port()
    url = "http://127.0.0.1:%d" % port
    with tempfile.TemporaryDirectory() as tmp:
        log = open(os.path.join(tmp, "daemon.log"), "wb")
        p = subprocess.Popen([JANTAKU, "run", "--port", path, "--db", os.path.join(tmp, "j.sqlite"),
                              "--api-port", str(port), "--no-view", "--log-level", "info"],
                             stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
        flood = Flood(master)
        try:
            with httpx.Client() as c:
                for _ in range(300):
                    try:
                        c.get(url + "/status", timeout=1)
                        break
                    except httpx.HTTPError:
                        time.sleep(0.1)
                flood.t.start()
                t0 = time.monotonic()
                status_s, abort_s, fault_at = [], [], None
                while time.monotonic() - t0 < args.seconds:
                    s, r = timed(c, "GET", url + "/status")
                    status_s.append(s)
                    lf = r.json()["table"].get("line_fault")
                    if lf and fault_at is None:
                        fault_at = time.monotonic() - t0
                    if len(status_s) % 10 == 5:
                        s, r = timed(c, "POST", url + "/abort")
                        abort_s.append((s, r.status_code))
                    time.sleep(0.02)
        finally:
            flood.stop.set()
            p.terminate()
            p.wait(20)
            log.close()
            os.close(master)
            os.close(slave)
    taken = [(t, n) for t, n in flood.samples if fault_at is None or t - flood.samples[0][0] <= fault_at]
    rate = (taken[-1][1] - taken[0][1]) / max(taken[-1][0] - taken[0][0], 1e-6) if len(taken) > 1 else 0
    print("line: 7E 40 on a pty as fast as the daemon takes it, %.1f s" % args.seconds)
    print("  bytes/s the daemon took before the fault   %10.0f" % rate)
    print("  line_flood named after                     %10s" % (
        "%.2f s" % fault_at if fault_at is not None else "never"))
    print("  GET /status: %d asked, median %.1f ms, max %.1f ms (budget %.0f ms) %s" % (
        len(status_s), statistics.median(status_s) * 1000, max(status_s) * 1000,
        STATUS_BUDGET_S * 1000, "ok" if max(status_s) <= STATUS_BUDGET_S else "OVER"))
    if abort_s:
        worst = max(s for s, _ in abort_s)
        print("  POST /abort: %d asked, answers %s, max %.1f ms (budget %.0f ms) %s" % (
            len(abort_s), sorted({c for _, c in abort_s}), worst * 1000, ABORT_BUDGET_S * 1000,
            "ok" if worst <= ABORT_BUDGET_S else "OVER"))


if __name__ == "__main__":
    main()
