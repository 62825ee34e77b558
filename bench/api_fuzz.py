"""The attacks of issue 30 rerun on the real daemon (`jantaku run --sim`, loopback, no token),
and a schemathesis pass longer than `make test`'s (the same harness, tests/unit/api_fuzz.py),
with their figures:

* attacks: with 100 connections held (40 event streams, 60 `POST /dice` bodies stalled
  after their headers), `POST /abort` without a token, its status, its `aborted` key and
  how long it took; what the server made of the 100; `/history?before=2**63`; 64,000
  bytes of headers in one write; an Origin with a user; cross-site fetch metadata with
  no Origin; a SIGTERM with the 100 held (what the log says); a SIGKILL (how long until
  the simulated table's /tmp/jantaku-sim-<pid> folder is gone);
* mqtt (needs Debian's mosquitto): a 64 KiB command of distinct keys with one repeated,
  published again and again to the daemon's bridge (commands on) while `/health` is
  asked every 5 ms: the longest `/health` took, the replies; the same with commands off;
  the old duplicate check's time on that payload, for comparison;
* fuzz: schemathesis's own pass (positive and negative bodies, every check) and its
  command line's fuzzing and stateful phases with the checks issue 30 names.

    .venv/bin/python bench/api_fuzz.py [--examples 300] [--stateful 200] [--only attacks|mqtt|fuzz]

The machine's load (1-minute average, cores) is printed first: the figures depend on it.
"""
import argparse
import asyncio
import io
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "unit"))

JANTAKU = os.path.join(os.path.dirname(sys.executable), "jantaku")
HELD_STREAMS, HELD_DICE = 40, 60


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Daemon:
    """`jantaku run --sim` in its own process group, its log (JSON lines) in a file."""

    def __init__(self, folder, name, extra=(), env=None):
        self.port = free_port()
        self.log_path = os.path.join(folder, name + ".log")
        self._log = open(self.log_path, "wb")
        self.p = subprocess.Popen(
            [JANTAKU, "run", "--sim", "--sim-speed", "20", "--db",
             os.path.join(folder, name + ".sqlite"), "--api-port", str(self.port)] + list(extra),
            stdout=subprocess.DEVNULL, stderr=self._log, start_new_session=True,
            env=dict(os.environ, **(env or {})))
        self.url = "http://127.0.0.1:%d" % self.port
        try:
            self._wait_up()
        except BaseException:  # nothing left behind, whatever stopped the wait
            self.stop()
            raise

    def _wait_up(self):
        end = time.monotonic() + 60
        while time.monotonic() < end:
            if self.p.poll() is not None:
                raise RuntimeError("jantaku run exited:\n" + self.log()[-3000:])
            try:
                if get(self.url + "/status")["table"]["connected"]:
                    return
            except Exception:  # not listening yet (httpx's errors), or no status yet
                pass
            time.sleep(0.1)
        raise RuntimeError("jantaku run did not come up:\n" + self.log()[-3000:])

    def log(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def lines(self):
        out = []
        for line in self.log().splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                out.append({"event": line, "level": "?"})
        return out

    def stop(self, sig=signal.SIGTERM):
        if self.p.poll() is None:
            try:
                os.killpg(self.p.pid, sig)
                self.p.wait(15)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(self.p.pid, signal.SIGKILL)
                self.p.wait(15)
        self._log.close()


def get(url):
    import httpx

    return httpx.get(url, timeout=5).json()


def raw(port, data, timeout=5.0):
    """Send ``data`` on a new connection; (status, body bytes) of the answer."""
    from raw_http import exchange, status

    got = exchange(port, data, timeout)
    return status(got), got.partition(b"\r\n\r\n")[2]


def request(method, path, headers=(), body=b""):
    lines = ["%s %s HTTP/1.1" % (method, path), "Host: 127.0.0.1", "Connection: close"]
    lines += list(headers) + ["Content-Length: %d" % len(body)] if method == "POST" else \
        list(headers)
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


# -- the attacks -------------------------------------------------------------------------------

def hold(port, n_streams=HELD_STREAMS, n_dice=HELD_DICE):
    """Event streams and POST /dice bodies stalled after their headers: the sockets, and
    what the server made of them half a second later."""
    streams, dice = [], []
    for _ in range(n_streams):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(request("GET", "/events")[:-4].replace(b"Connection: close", b"X: y")
                  + b"\r\n\r\n")
        streams.append(s)
    for _ in range(n_dice):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"POST /dice HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                  b"\r\nContent-Length: 10\r\n\r\n")
        dice.append(s)
    time.sleep(0.5)
    return streams, dice, {"streams": [_first(s) for s in streams],
                           "dice": [_first(s) for s in dice]}


def _first(s):
    """What a held connection got so far: its status, 'closed', or 'held' (nothing)."""
    s.settimeout(0.05)
    try:
        got = s.recv(200)
    except socket.timeout:
        return "held"
    except ConnectionResetError:
        return "closed"
    if not got:
        return "closed"
    return int(got.split(b" ", 2)[1]) if got.startswith(b"HTTP/1.1 ") else "?"


def _count(xs):
    out = {}
    for x in xs:
        out[str(x)] = out.get(str(x), 0) + 1
    return ", ".join("%s %d" % kv for kv in sorted(out.items()))


def aborts(port, n=5):
    """n aborts one after another: [(status, has 'aborted', seconds)]."""
    out = []
    for _ in range(n):
        t0 = time.monotonic()
        status, body = raw(port, request("POST", "/abort"))
        took = time.monotonic() - t0
        try:
            has = "aborted" in json.loads(body)
        except ValueError:
            has = False
        out.append((status, has, took))
    return out


def probes(port):
    big = request("GET", "/health", ["X-Pad: " + "a" * 64000])
    return [
        ("GET /history?before=2**63", raw(port, request("GET", "/history?before=%d" % 2 ** 63))),
        ("64,000 bytes of headers in one write", raw(port, big)),
        ("POST /abort, Origin: http://evil@127.0.0.1:%d" % port, raw(port, request(
            "POST", "/abort", ["Origin: http://evil@127.0.0.1:%d" % port]))),
        ("POST /abort, no Origin, Sec-Fetch-Site: cross-site", raw(port, request(
            "POST", "/abort", ["Sec-Fetch-Site: cross-site", "Cookie: jantaku_session=x"]))),
    ]


def attacks(tmp):
    d = Daemon(tmp, "attacks")
    held = []
    try:
        print("== attacks on `jantaku run --sim` (loopback, no token), %s" % d.url)
        for what, (status, body) in probes(d.port):
            code = _code(body)
            print("  %-52s %s%s" % (what, status, " (%s)" % code if code else ""))
        streams, dice, seen = hold(d.port)
        held = streams + dice
        print("  held: %d event streams (%s), %d POST /dice stalled after their headers (%s)"
              % (HELD_STREAMS, _count(seen["streams"]), HELD_DICE, _count(seen["dice"])))
        got = aborts(d.port)
        print("  POST /abort meanwhile, 5 times: %s; 'aborted' in each: %s; %.0f to %.0f ms"
              % (_count(s for s, _, _ in got), all(h for _, h, _ in got),
                 1000 * min(t for _, _, t in got), 1000 * max(t for _, _, t in got)))
        status, body = raw(d.port, request("GET", "/health"))
        print("  GET /health meanwhile: %s (%s)" % (status, _code(body)))
        _, worse, seen = hold(d.port, 0, 120)  # every connection served, and more
        held += worse
        got = aborts(d.port)
        status, body = raw(d.port, request("GET", "/health"))
        print("  then 120 more POST /dice stalled (%s): POST /abort 5 times: %s, 'aborted' in "
              "each: %s, %.0f to %.0f ms; GET /health: %s (%s)" % (
                  _count(seen["dice"]), _count(s for s, _, _ in got),
                  all(h for _, h, _ in got), 1000 * min(t for _, _, t in got),
                  1000 * max(t for _, _, t in got), status, _code(body)))
        t0 = time.monotonic()
        d.stop(signal.SIGTERM)
        took = time.monotonic() - t0
        lines = d.lines()
        cancelled = [x for x in lines if x.get("event") == "requests_cancelled"]
        errors = [x for x in lines if x.get("level") in ("error", "critical")]
        print("  SIGTERM with them held: exit %s in %.1f s; %s; error lines %d, tracebacks %d"
              % (d.p.returncode, took, ", ".join("requests_cancelled n=%s (%s)" % (
                  x.get("n"), x.get("level")) for x in cancelled) or "no requests_cancelled line",
                 len(errors), d.log().count("Traceback") + d.log().count("Exception in ASGI")))
    finally:
        for s in held:
            s.close()
        d.stop()
    sigkill(tmp)


def _code(body):
    try:
        return json.loads(body)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None


def sigkill(tmp):
    from tests import procs

    d = Daemon(tmp, "sigkill")
    sims = [p for p in procs.descendants(d.p.pid) if "sim serve" in procs.cmdline(p)]
    folders = ["/tmp/jantaku-sim-%d" % p for p in sims]
    t0 = time.monotonic()
    os.kill(d.p.pid, signal.SIGKILL)
    while any(os.path.exists(f) for f in folders) and time.monotonic() < t0 + 10:
        time.sleep(0.005)
    took = time.monotonic() - t0
    left = procs.wait_gone(sims, 2.0)
    print("  SIGKILL: the simulated table's %s gone %.2f s after; processes left: %d"
          % (", ".join(folders) or "(no folder!)", took, len(left)))
    d.stop()


# -- MQTT ----------------------------------------------------------------------------------------

def dense_command():
    from test_strictjson import wide_object

    return wide_object()  # (bytes, distinct keys): as many as fit 64 KiB, the last repeated


def old_check_seconds(payload):
    """The duplicate check the bridge had (keys.count per key), on ``payload``."""
    def no_duplicates(pairs):
        keys = [k for k, _ in pairs]
        for k in keys:
            if keys.count(k) > 1:
                raise ValueError("the key %r is given twice" % k[:40])
        return dict(pairs)

    t0 = time.perf_counter()
    try:
        json.loads(payload.decode(), object_pairs_hook=no_duplicates)
    except ValueError:
        pass
    return time.perf_counter() - t0


async def health(port):
    """GET /health on a new connection: seconds until the whole answer came."""
    t0 = time.perf_counter()
    r, w = await asyncio.open_connection("127.0.0.1", port)
    w.write(request("GET", "/health"))
    got = await r.read()
    w.close()
    assert got.startswith(b"HTTP/1.1 200"), got[:100]
    return time.perf_counter() - t0


async def flood_and_watch(d, broker_url, env, table_id, payload, times=5):
    """Publish ``payload`` ``times`` times on the table's dice verb while GET /health is
    asked every 5 ms (each on a new connection, as the CLI does): (health latencies in s,
    replies)."""
    import aiomqtt

    from hostd.fleet.broker import parse

    b = parse(broker_url, env=env)
    lat, replies = [], []
    async with aiomqtt.Client(**b.client_kwargs()) as c:
        await c.subscribe("jantaku/%s/reply" % table_id, qos=1)

        async def watch():
            while True:
                lat.append(await health(d.port))
                await asyncio.sleep(0.005)

        async def read():
            async for m in c.messages:
                replies.append(json.loads(m.payload))
                if len(replies) == times:
                    return

        w = asyncio.create_task(watch())
        await asyncio.sleep(0.3)
        reader = asyncio.create_task(read())
        for _ in range(times):
            await c.publish("jantaku/%s/command/dice" % table_id, payload, qos=1)
            await asyncio.sleep(0.1)
        await asyncio.wait_for(reader, 30)
        await asyncio.sleep(0.3)
        w.cancel()
    return lat, replies


def mqtt(tmp):
    from tests.mqtt_broker import MISSING, USERS, TestBroker

    if MISSING:
        print("== mqtt: skipped: " + MISSING)
        return
    broker = TestBroker(os.path.join(tmp, "broker"))
    broker.start()
    payload, keys = dense_command()
    print("== MQTT: a %d-byte command of %d distinct keys with the last repeated, on "
          "jantaku/t1/command/dice, 5 times; GET /health every 5 ms meanwhile" % (
              len(payload), keys))
    print("  the old duplicate check (keys.count per key) on it: %.2f s; the strict reader: "
          "%.1f ms" % (old_check_seconds(payload), 1000 * _reader_seconds(payload)))
    try:
        for table_id, on in (("t1", True), ("t2", False)):
            user = "table-" + table_id
            d = Daemon(tmp, "mqtt-" + table_id, ["--mqtt", broker.url(user), "--table-id",
                                                 table_id] + (["--mqtt-commands"] if on else []),
                       env={"JANTAKU_MQTT_PASSWORD": USERS[user]})
            try:
                end = time.monotonic() + 20
                while not (get(d.url + "/status").get("mqtt") or {}).get("connected"):
                    if time.monotonic() > end:
                        raise RuntimeError("the bridge did not connect")
                    time.sleep(0.1)
                lat, replies = asyncio.run(flood_and_watch(
                    d, broker.url("operator"), {"JANTAKU_MQTT_PASSWORD": USERS["operator"]},
                    table_id, payload))
            finally:
                d.stop()
            lat.sort()
            print("  commands %s: replies %s; GET /health %d times: median %.1f ms, "
                  "max %.1f ms" % (
                      "on" if on else "off",
                      _count("%s %s" % (r["status"], r["error"]["code"]) for r in replies),
                      len(lat), 1000 * statistics.median(lat), 1000 * lat[-1]))
    finally:
        broker.stop()


def _reader_seconds(payload):
    from hostd.strictjson import BodyRefused, read_object

    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        try:
            read_object(payload, "{}")
        except BodyRefused:
            pass
        best = min(best, time.perf_counter() - t0)
    return best


# -- schemathesis ---------------------------------------------------------------------------------

def fuzz(tmp, examples, stateful):
    from hostd import logging as jlog
    from tests.unit.api_fuzz import STATEFUL_CHECKS, TOKEN, run_cli, run_pass

    log = io.StringIO()
    jlog.configure("debug", stream=log, json=True)
    t0 = time.monotonic()
    figures = run_pass(examples)
    seconds = time.monotonic() - t0
    text = log.getvalue()
    jlog.unconfigure()
    print("== schemathesis over /openapi.json: %d operations, %d examples (%s), %.1f s"
          % (figures["operations"], figures["examples"],
             ", ".join("%s %d" % kv for kv in figures["by_mode"].items()), seconds))
    print("  responses by status: %s" % json.dumps(figures["statuses"]))
    print("  integers written as floats (42.0), refused by the strict API: %d"
          % figures["integer_as_float_refused"])
    print("  log lines: %d; with the token: %d; error level: %d" % (
        len(text.splitlines()), text.count(TOKEN),
        sum('"level": "error"' in line for line in text.splitlines())))
    print("  failures: %d" % len(figures["failures"]))
    for f in figures["failures"]:
        print("--- %s (%s)\n%s" % (f["operation"], f["check"], f["message"]))
    issues = False
    for phases, mode in (("fuzzing", "all"), ("stateful", "all"), ("stateful", "positive")):
        folder = os.path.join(tmp, "schemathesis-%s-%s" % (phases, mode))
        os.makedirs(folder)
        jlog.configure("debug", stream=io.StringIO(), json=True)  # the server's lines: not here
        cli = run_cli(stateful, folder, phases=phases, mode=mode, timeout=1800)
        jlog.unconfigure()
        issues = issues or cli["issues"]
        print("== `schemathesis run --phases %s --mode %s --checks %s --max-examples %d`: "
              "exit %d, %.0f s" % (phases, mode, ",".join(STATEFUL_CHECKS), stateful, cli["exit"],
                                   cli["seconds"]))
        print("  %stest cases %s generated, %s passed; %s" % (
            "scenarios %s, links covered %s of %s, " % (
                (cli["scenarios"] or ("?",))[0], *(cli["links"] or ("?", "?")))
            if phases == "stateful" else "", *(cli["cases"] or ("?", "?")),
            "issues found:\n" + cli["report"] if cli["issues"] else "no issues found"))
    return bool(figures["failures"]) or issues or TOKEN in text


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=300,
                    help="schemathesis examples per operation and mode (default 300)")
    ap.add_argument("--stateful", type=int, default=200,
                    help="examples per operation of the command line's run (default 200)")
    ap.add_argument("--only", choices=("attacks", "mqtt", "fuzz"))
    args = ap.parse_args()
    load = os.getloadavg()[0]
    print("machine: %d cores, load %.2f (1 min) at the start" % (os.cpu_count(), load))
    failed = False
    with tempfile.TemporaryDirectory(prefix="jantaku-api-bench-") as tmp:
        if args.only in (None, "attacks"):
            attacks(tmp)
        if args.only in (None, "mqtt"):
            mqtt(tmp)
        if args.only in (None, "fuzz"):
            failed = fuzz(tmp, args.examples, args.stateful)
    print("machine: load %.2f (1 min) at the end" % os.getloadavg()[0])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
