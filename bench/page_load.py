"""Load on the daemon's event stream, and the page at that rate (issue 17).

Starts `jantaku run --sim --sim-speed 50` (a build in about half a second), then runs
one Mixed Deck session of HANDS hand overs twice: once with no client, once with CLIENTS
clients reading `GET /events` (and, if Chromium is installed, the page itself in headless
Chromium besides them).  Prints:

* delivery: every client got every event, in the same order; each build's tiles on each
  track are 1..n with no gap and add up to the build's `build_done` counts (none dropped);
  the spread of one event's arrival across the clients;
* the daemon's CPU (its own process; the simulated table is a separate process) for the
  run without clients and with them, and the difference per client;
* the page: the tiles it drew against the tile events sent, the longest gap between two
  frames and the long tasks (over 50 ms) of its main thread, and Chromium's CPU; the bytes
  a first load and a reload of the page take over the network (its files gzipped, then
  304s), and the layout shift over the whole run.

    .venv/bin/python bench/page_load.py [--clients 20] [--hands 6] [--speed 50] [--no-page]
"""
import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import httpx  # noqa: E402

from tests import procs  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    """User + system CPU seconds of one process."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def tree_cpu(pid):
    total = 0.0
    for p in [pid] + procs.descendants(pid):
        try:
            total += cpu_seconds(p)
        except (FileNotFoundError, ProcessLookupError, IndexError):
            pass
    return total


class Daemon:
    def __init__(self, tmp, speed):
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        jantaku = os.path.join(os.path.dirname(sys.executable), "jantaku")
        self.log = open(os.path.join(tmp, "daemon.log"), "wb")
        self.p = subprocess.Popen(
            [jantaku, "run", "--sim", "--sim-speed", str(speed), "--push-window", "1",
             "--sim-mixed-deck", "--db", os.path.join(tmp, "journal.sqlite"),
             "--api-port", str(self.port), "--no-view", "--log-level", "warning"],
            stdout=subprocess.DEVNULL, stderr=self.log, start_new_session=True)
        end = time.monotonic() + 30
        while time.monotonic() < end:
            try:
                if httpx.get(self.url + "/status", timeout=2).json()["table"]["connected"]:
                    return
            except (httpx.HTTPError, KeyError, ValueError):
                pass
            if self.p.poll() is not None:
                break
            time.sleep(0.1)
        self.stop()
        raise SystemExit("the daemon did not come up; see its log")

    def dropped(self):
        """Events the table said it dropped (the daemon's warnings)."""
        n = 0
        self.log.flush()
        with open(self.log.name, encoding="utf-8", errors="replace") as f:
            for line in f:
                if "the table dropped events" in line:
                    try:
                        n += json.loads(line).get("dropped", 0)
                    except ValueError:
                        pass
        return n

    def stop(self):
        if self.p.poll() is None:
            os.killpg(self.p.pid, signal.SIGTERM)
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.p.pid, signal.SIGKILL)
                self.p.wait()
        self.log.close()


async def session(d, hands, seed, replace):
    """Start a Mixed Deck session and play ``hands`` hand overs, each once the walls are
    built inside.  Returns the number of builds."""
    async with httpx.AsyncClient(base_url=d.url, timeout=60) as c:
        async def built(hand):
            end = time.monotonic() + 60
            while time.monotonic() < end:
                s = (await c.get("/status")).json()
                sess = s["session"]
                if sess and s["state"]["name"] == "built" and sess["hand"] == hand:
                    return sess
                if s["fault"]:
                    raise SystemExit("the session stopped: %s" % s["fault"]["message"])
                await asyncio.sleep(0.05)
            raise SystemExit("hand %d: the walls were not built within 60 s; the daemon "
                             "says: %s" % (hand, s["next"]["text"]))

        r = await c.post("/session", json={"ruleset": "riichi", "mixed_deck": True,
                                           "seed": seed, "replace": replace})
        r.raise_for_status()
        await built(0)
        for h in range(1, hands + 1):
            (await c.post("/hand-over")).raise_for_status()
            sess = await built(h)
        return len(sess["builds"])


async def client(d, out, ready):
    """One event stream: (arrival time, event) until cancelled."""
    async with httpx.AsyncClient(base_url=d.url, timeout=None) as c:
        async with c.stream("GET", "/events") as r:
            data = []
            ready.release()
            async for line in r.aiter_lines():
                if line.startswith("data:"):
                    data.append(line[5:].lstrip(" "))
                elif line == "" and data:
                    out.append((time.monotonic(), json.loads("\n".join(data))))
                    data = []


def check_delivery(streams):
    """Every stream has the same events in the same order (the daemon drops events only
    for a client that falls 1000 behind, and that would differ between clients).  Returns
    (events per client, tiles per client, builds, tiles the daemon never had): the table
    may drop a `tile` event when its link window is full (protocol/SPEC.md §10; the counts
    in `build_done` and the status still have it), which shows as a gap in a track's
    indices in every stream alike."""
    seqs = [[e for _, e in s if e["type"] != "hello"] for s in streams]
    first = seqs[0]
    for i, s in enumerate(seqs[1:], 2):
        if s != first:
            n = next((k for k, (a, b) in enumerate(zip(first, s)) if a != b), min(len(first), len(s)))
            raise SystemExit("client %d differs from client 1 at event %d (%d vs %d events)"
                             % (i, n, len(s), len(first)))
    tiles, done = {}, {}
    for e in first:
        if e["type"] == "tile":
            tiles.setdefault(e["build"], {}).setdefault(e["track"], []).append(e["index"])
        elif e["type"] == "build_done":
            done[e["build"]] = e["per_track"]
    if not done:
        raise SystemExit("no build_done event: nothing was built")
    missing = 0
    for b, per_track in done.items():
        got = tiles.get(b, {})
        for k, n in enumerate(per_track, 1):
            idx = got.get(k, [])
            if idx != sorted(set(idx)) or (idx and idx[-1] > n):
                raise SystemExit("build %d track %d: tile indices out of order or past %d: %s"
                                 % (b, k, n, idx))
            missing += n - len(idx)
    return len(first), sum(len(v) for t in tiles.values() for v in t.values()), len(done), missing


def spread(streams):
    """Per event: the latest arrival minus the earliest, across clients (ms)."""
    n = min(len(s) for s in streams)
    return [1000 * (max(s[i][0] for s in streams) - min(s[i][0] for s in streams))
            for i in range(1, n)]


PAGE_PROBE = """
window.__lt = []; window.__gaps = []; window.__cls = 0;
try { new PerformanceObserver(l => l.getEntries().forEach(e => {
  if (!e.hadRecentInput) window.__cls += e.value; }))
  .observe({type: 'layout-shift', buffered: true}); } catch (e) {}
try { new PerformanceObserver(l => l.getEntries().forEach(e => window.__lt.push(e.duration)))
  .observe({type: 'longtask', buffered: true}); } catch (e) {}
let last = performance.now();
(function frame(t) { window.__gaps.push(t - last); last = t; requestAnimationFrame(frame); })(last);
window.__start = Object.assign({}, window.jantakuPage.seen);
"""


# what one load of the page took over the network: the page and its files, and the API's
# answers it asked for (not the event stream, which stays open)
LOAD_BYTES = """
const all = performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'));
const files = all.filter(e => e.entryType === 'navigation' || e.name.includes('/page/'));
const api = all.filter(e => e.entryType === 'resource' && !e.name.includes('/page/') && !e.name.endsWith('/events'));
const sum = (l, k) => l.reduce((a, e) => a + e[k], 0);
return {files: sum(files, 'transferSize'), files_decoded: sum(files, 'decodedBodySize'),
        api: sum(api, 'transferSize'), api_decoded: sum(api, 'decodedBodySize'),
        n: files.length};
"""


async def run(d, clients, hands, seed, page):
    streams = [[] for _ in range(clients)]
    ready = asyncio.Semaphore(0)
    tasks = [asyncio.create_task(client(d, s, ready)) for s in streams]
    browser = None
    try:
        for _ in range(clients):
            await ready.acquire()
        await asyncio.sleep(0.3)  # every stream has its hello
        if page:
            from tests.e2e import chromium

            browser = chromium.start()
            loads = []
            for _ in range(2):  # a first load, then a reload: the bytes over the network
                browser.driver.get(d.url + "/")
                await asyncio.sleep(1.5)
                loads.append(browser.js(LOAD_BYTES))
            browser.js(PAGE_PROBE)
            browser_cpu0 = tree_cpu(browser.service.process.pid)
        cpu0, t0 = cpu_seconds(d.p.pid), time.monotonic()
        builds = await session(d, hands, seed, replace=True)
        cpu, wall = cpu_seconds(d.p.pid) - cpu0, time.monotonic() - t0
        await asyncio.sleep(1.0)  # the last events reach every client and the page
        result = {"cpu": cpu, "wall": wall, "builds": builds, "streams": streams}
        if browser is not None:
            result["page"] = browser.js(
                "return {seen: window.jantakuPage.seen, start: window.__start, lt: window.__lt,"
                " gaps: window.__gaps, cls: window.__cls, counts: Array.from("
                "document.querySelectorAll('#tracks .count')).map(e => e.textContent)}")
            result["loads"] = loads
            result["page_cpu"] = tree_cpu(browser.service.process.pid) - browser_cpu0
            result["page_errors"] = browser.console_errors()
        return result
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if browser is not None:
            browser.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--hands", type=int, default=6)
    ap.add_argument("--speed", type=float, default=50)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--no-page", action="store_true", help="no browser, event streams only")
    args = ap.parse_args()
    page = not args.no_page
    if page:
        from tests.e2e import chromium

        why = chromium.missing()
        if why:
            print("page: not measured (%s)" % why)
            page = False
    # a SIGTERM ends the bench like Ctrl-C: the daemon it started and its folder go too
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("page_load: terminated"))
    tmp = tempfile.mkdtemp(prefix="jantaku-page-load-")
    d = None
    try:
        d = Daemon(tmp, args.speed)
        print("daemon: jantaku run --sim --sim-speed %g (Mixed Deck, riichi), %d hand overs "
              "per run" % (args.speed, args.hands))
        base = asyncio.run(run(d, 1, args.hands, args.seed, False))
        loaded = asyncio.run(run(d, args.clients, args.hands, args.seed, page))
        events, tiles, builds, lost = check_delivery(loaded["streams"])
        sp = spread(loaded["streams"])
        print("delivery: %d clients x %d events (%d tiles, %d builds) in %.1f s: every event "
              "to every client, in order, none dropped" % (args.clients, events, tiles,
                                                           builds, loaded["wall"]))
        print("  tile events the table did not deliver to the daemon (its window full, "
              "SPEC §10): %d of %d (1 client: %d); the table reported %d dropped events "
              "in all (the daemon then asks its status)"
              % (lost, tiles + lost, check_delivery(base["streams"])[3], d.dropped()))
        print("  rate: %.0f events/s per client, %.0f events/s sent in all"
              % (events / loaded["wall"], args.clients * events / loaded["wall"]))
        print("  spread of one event across the clients: median %.1f ms, p99 %.1f ms, max "
              "%.1f ms" % (statistics.median(sp), sorted(sp)[int(0.99 * (len(sp) - 1))], max(sp)))
        per_build0 = base["cpu"] / base["builds"]
        per_build = loaded["cpu"] / loaded["builds"]
        print("daemon CPU: %.2f s for %d builds with 1 client (%.0f %% of a core over %.1f s);"
              " %.2f s with %d clients (%.0f %% over %.1f s)"
              % (base["cpu"], base["builds"], 100 * base["cpu"] / base["wall"], base["wall"],
                 loaded["cpu"], args.clients, 100 * loaded["cpu"] / loaded["wall"],
                 loaded["wall"]))
        extra = (per_build - per_build0) / max(args.clients - 1, 1)
        print("  per client: %.1f ms of CPU per 136-tile build (%.0f us per event), %.1f %% "
              "of a core at this rate" % (1000 * extra, 1e6 * extra / (events / builds),
                                          100 * extra * builds / loaded["wall"]))
        if "page" in loaded:
            p = loaded["page"]
            drawn = p["seen"]["tiles"] - p["start"]["tiles"]
            gaps = sorted(p["gaps"][1:]) or [0]
            print("page: drew %d of %d tiles sent (%s at the end); %d frames, longest gap "
                  "%.0f ms, p99 %.0f ms; %d long tasks (> 50 ms) totalling %.0f ms; console "
                  "errors %d" % (drawn, tiles, ",".join(p["counts"]), len(gaps), gaps[-1],
                                 gaps[int(0.99 * (len(gaps) - 1))], len(p["lt"]), sum(p["lt"]),
                                 len(loaded["page_errors"])))
            print("  Chromium CPU (all its processes): %.2f s over %.1f s (%.0f %% of a core)"
                  % (loaded["page_cpu"], loaded["wall"],
                     100 * loaded["page_cpu"] / loaded["wall"]))
            first, again = loaded["loads"]
            print("  a load: %.1f KB over the network for %.1f KB of files (%d), and %.1f KB "
                  "for %.1f KB of the API's answers; a reload: %.1f KB for the files (304s), "
                  "%.1f KB for the answers" % (
                      first["files"] / 1024, first["files_decoded"] / 1024, first["n"],
                      first["api"] / 1024, first["api_decoded"] / 1024, again["files"] / 1024,
                      again["api"] / 1024))
            print("  layout shift over the run: %.4f" % p["cls"])
            if drawn != tiles:
                raise SystemExit("the page missed tiles: %d of %d" % (drawn, tiles))
            last = [e for _, e in loaded["streams"][0] if e["type"] == "build_done"][-1]
            want = ["%d/%d" % (n, n) for n in last["per_track"]]
            if p["counts"] != want:
                raise SystemExit("the page ended at %s, the last build at %s" % (p["counts"], want))
    finally:
        if d is not None:
            d.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
