"""The fleet at scale: N simulated tables (default 50) in this process, each the real daemon
(hostd.core.daemon.Daemon on hw_sim's in-process table) with its own MQTT bridge and its own
user on one Mosquitto (tests/mqtt_broker.py: the per-table ACL of docs/FLEET.md), each
playing hands, paced at --speed times real time.  A subscriber in a separate process
(paho, persistent session, QoS 1) takes every table's events.  Halfway, the broker is
killed (SIGKILL) and started again.  Printed:

* events per second through the broker, end to end;
* latency from the daemon's publish of an event to the subscriber (median, p99, max),
  before the broker was killed, and what the outage held back;
* how long each table took to be back on the broker once it listened again (`--outage S`
  the broker stays down: issue 30 asks for every table within 5 s after 35 s), and how
  many came back together;
* messages lost (seq accepted by the bridges and never received) and duplicated;
* the daemon's CPU (the simulator's own time measured and left out) and memory per table,
  and the broker's;
* `jantaku fleet status` over all the tables, as a command, while they play.

    nice .venv/bin/python bench/fleet_scale.py [--tables 50] [--hands 4] [--speed 4]
                                               [--restart kill|term|none] [--outage 2]
"""
import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
# the subscriber's own user: with client ids tied to users (docs/FLEET.md's broker), the
# fleet view run meanwhile as `viewer` must not share its persistent session
SUBSCRIBER = "bench-sub"


# -- the subscriber: a process of its own ---------------------------------------------------

def subscriber(port, user, password):
    """Every jantaku/+/events message: (table, seq, arrival monotonic); printed as JSON when
    stdin closes."""
    import threading

    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    got = []
    connects = [0]
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-fleet-sub",
                    clean_session=False, protocol=mqtt.MQTTv311)
    c.username_pw_set(user, password)
    c.reconnect_delay_set(0.05, 0.5)
    c.max_inflight_messages_set(100)

    def on_connect(c, userdata, flags, rc, props=None):
        connects[0] += 1
        c.subscribe("jantaku/+/events", qos=1)
        sys.stderr.write("subscribed\n")
        sys.stderr.flush()

    def on_message(c, userdata, m):
        t = time.monotonic()
        try:
            seq = json.loads(m.payload)["seq"]
        except (ValueError, KeyError, TypeError):
            return
        got.append((m.topic.split("/")[1], seq, t))

    c.on_connect = on_connect
    c.on_message = on_message
    c.connect("127.0.0.1", port, keepalive=10)
    th = threading.Thread(target=c.loop_forever, kwargs={"retry_first_connection": True},
                          daemon=True)
    th.start()
    sys.stdin.read()  # until the bench closes it
    time.sleep(0.2)
    c.disconnect()
    th.join(5)
    json.dump({"got": got, "connects": connects[0]}, sys.stdout)
    return 0


# -- the tables -------------------------------------------------------------------------------

def rss_kb(pid="self"):
    with open("/proc/%s/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_s(pid):
    """utime + stime of a process, in seconds."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


SIM_CPU = [0.0]  # thread CPU seconds spent inside the simulated tables


def paced_transport(table, speed):
    from hostd.table.transport import InProcessTransport

    class Paced(InProcessTransport):
        """The in-process table, its virtual time kept at most `speed` x the wall's; the
        simulator's CPU time counted apart."""

        t0 = None

        async def read(self, max_ms):
            if not self.is_open:
                return await super().read(max_ms)
            if speed:
                if self.t0 is None:
                    self.t0 = time.monotonic() - self.table.now_ms() / 1000.0 / speed
                lead = self.table.now_ms() / 1000.0 / speed - (time.monotonic() - self.t0)
                if lead > 0:
                    await asyncio.sleep(lead)
                max_ms = min(max_ms, 100 * speed)  # slices of 0.1 s of the wall
            for _ in range(self.SETTLE_TURNS):
                await asyncio.sleep(0)
            t = time.thread_time()
            data = self.table.run(max(int(max_ms), 1))
            SIM_CPU[0] += time.thread_time() - t
            return data

    return Paced(table)


class Table:
    def __init__(self, i, tmp, broker, speed):
        from hostd.core.daemon import Daemon
        from hostd.table.sim import board_profile
        from hostd.cli.demo import sim_sets
        from hostd.core.journal import Journal
        from hostd.rules.rulesets import get_ruleset
        from hw_sim.inprocess import InProcessTable

        self.id = "t%02d" % i
        self.seed = 100 + i
        self.broker = broker
        colours = ("blue", "green")
        sim = InProcessTable(board_profile(), sim_sets(get_ruleset("riichi"), colours),
                             seed=self.seed, keep_builds=4)
        self.journal = Journal(os.path.join(tmp, "journal-%s.sqlite" % self.id))
        self.daemon = Daemon(transport=paced_transport(sim, speed), journal=self.journal,
                             seed=self.seed, colours=colours, resume=False)
        self.colours = colours
        self.bridge = None
        self.published = []  # the wall time of each event published after the bridge's start
        self.hands = 0
        self.error = None
        self.tasks = []

    async def start(self):
        await self.daemon.start()
        self.tasks.append(asyncio.create_task(self.journal.flush_every()))
        await self.daemon.link.wait_connected(timeout=60)

    async def start_bridge(self, user_broker, prefix):
        from hostd.fleet.mqtt import Bridge

        self.bridge = Bridge(self.daemon, user_broker, self.id, commands=False,
                             discovery_prefix=prefix, sw_version="bench")
        await self.bridge.start()
        published = self.published

        class Stamp:
            """A subscriber of the daemon that keeps only when each event was published
            (Daemon.publish puts it to every subscriber at that moment)."""

            def qsize(self):
                return 0

            def put_nowait(self, event):
                published.append(time.monotonic())

        self.daemon._subscribers.add(Stamp())

    async def _idle(self):
        d = self.daemon
        while d._busy():
            await asyncio.sleep(0.05)
        if d.state.name in ("stopped", "table_fault"):  # the one state (hostd/core/state.py)
            raise RuntimeError("table %s %s: %s" % (self.id, d.state.name,
                                                   d.next_step()["text"]))

    async def play(self, hands):
        d = self.daemon
        try:
            await d.start_session("riichi", False, self.seed, colours=self.colours)
            await self._idle()
            for _ in range(hands):
                await d.hand_over()
                await self._idle()
                await d.throw_dice(by="api")
                self.hands += 1
        except Exception as e:  # counted and printed
            self.error = "%s: %s" % (type(e).__name__, e)

    async def close(self):
        if self.bridge is not None:
            await self.bridge.close()
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.daemon.close()
        self.journal.close()


async def back_again(tables, connects, up, timeout=60):
    """{table: seconds from `up` (the broker listening again) to its bridge's next
    connection}, each seen within 20 ms."""
    back = {}
    end = time.monotonic() + timeout
    while len(back) < len(tables) and time.monotonic() < end:
        now = time.monotonic()
        for t in tables:
            if t.id not in back and t.bridge.connected and t.bridge.connects > connects[t.id]:
                back[t.id] = now - up
        await asyncio.sleep(0.02)
    return back


def herd(times, window=0.1):
    """The most of ``times`` within any ``window`` seconds."""
    times = sorted(times)
    return max((sum(1 for x in times if t <= x < t + window) for t in times), default=0)


def pct(xs, p):
    return xs[min(len(xs) - 1, max(0, int(round(p / 100.0 * len(xs))) - 1))]


async def run(args, b, tmp, report):
    from hostd.fleet.broker import parse
    from tests.mqtt_broker import USERS, table_user

    def user_broker(user):
        return parse(b.url(user), env={"JANTAKU_MQTT_PASSWORD": USERS[user]})

    base_rss = rss_kb()
    tables = [Table(i, tmp, b, args.speed) for i in range(args.tables)]
    await asyncio.gather(*(t.start() for t in tables))
    report["rss_daemons_kb"] = rss_kb() - base_rss
    before_bridges = rss_kb()
    for t in tables:
        await t.start_bridge(user_broker(table_user(t.id)), "homeassistant")
    end = time.monotonic() + 30
    while not all(t.bridge.connected for t in tables) and time.monotonic() < end:
        await asyncio.sleep(0.05)
    await asyncio.sleep(1.0)  # discovery and the first status published
    report["rss_bridges_kb"] = rss_kb() - before_bridges

    # play, measured
    cpu0, sim0, wall0 = time.process_time(), SIM_CPU[0], time.monotonic()
    broker_cpu0 = cpu_s(b.proc.pid)
    plays = [asyncio.create_task(t.play(args.hands)) for t in tables]
    fleet_runs = []
    restart = {}

    async def fleet_status():
        env = dict(os.environ, JANTAKU_MQTT_PASSWORD=USERS["viewer"])
        t0 = time.monotonic()
        p = await asyncio.create_subprocess_exec(
            os.path.join(ROOT, ".venv", "bin", "jantaku"), "fleet", "status", "--mqtt",
            b.url("viewer"), "--json", stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        out, err = await p.communicate()
        took = time.monotonic() - t0
        n = len(json.loads(out)["tables"]) if p.returncode == 0 else 0
        fleet_runs.append((took, n, p.returncode, err.decode()[-300:]))

    async def monitor():
        total = args.tables * args.hands
        while sum(t.hands for t in tables) < total // 2 and not all(p.done() for p in plays):
            await asyncio.sleep(0.2)
        for _ in range(3):
            await fleet_status()
        if args.restart == "none":
            return
        loop = asyncio.get_running_loop()
        restart["cpu_before"] = cpu_s(b.proc.pid)
        connects = {t.id: t.bridge.connects for t in tables}
        restart["at"] = time.monotonic()
        restart["queued_before"] = sum(len(t.bridge.outbox) for t in tables)
        if args.restart == "kill":
            b.proc.send_signal(signal.SIGKILL)
        else:
            b.proc.send_signal(signal.SIGTERM)
        await loop.run_in_executor(None, b.proc.wait)
        b.stop()
        await asyncio.sleep(args.outage)
        restart["queued_in_outage"] = sum(len(t.bridge.outbox) for t in tables)
        await loop.run_in_executor(None, b.start)
        restart["up"] = time.monotonic()
        restart["back"] = await back_again(tables, connects, restart["up"])
        restart["reconnected_s"] = max(restart["back"].values(), default=float("nan"))
        await fleet_status()

    mon = asyncio.create_task(monitor())
    await asyncio.gather(*plays)
    await mon
    wall = time.monotonic() - wall0
    cpu = time.process_time() - cpu0
    sim = SIM_CPU[0] - sim0
    # the outboxes drain
    end = time.monotonic() + 60
    while any(len(t.bridge.outbox) for t in tables) and time.monotonic() < end:
        await asyncio.sleep(0.05)
    report.update(wall_s=wall, cpu_s=cpu, sim_cpu_s=sim, rss_end_kb=rss_kb() - base_rss,
                  broker_cpu_s=restart.get("cpu_before", 0) - broker_cpu0 + cpu_s(b.proc.pid)
                  if restart else cpu_s(b.proc.pid) - broker_cpu0,
                  broker_rss_kb=rss_kb(b.proc.pid), fleet=fleet_runs, restart=restart)
    report["tables"] = [{
        "id": t.id, "hands": t.hands, "error": t.error, "seq": t.bridge.seq,
        "published": list(t.published), "dropped": t.bridge.outbox.dropped,
        "connects": t.bridge.connects, "queued": len(t.bridge.outbox)} for t in tables]
    await asyncio.gather(*(t.close() for t in tables))


def analyse(report, got):
    tables = {t["id"]: t for t in report["tables"]}
    arrivals = {}
    dup = 0
    for tid, seq, at in got:
        key = (tid, seq)
        if key in arrivals:
            dup += 1
        else:
            arrivals[key] = at
    accepted = sum(t["seq"] for t in tables.values())
    lost = [(tid, s) for tid, t in tables.items() for s in range(1, t["seq"] + 1)
            if (tid, s) not in arrivals]
    restart = report["restart"]
    steady, held = [], []
    for (tid, s), at in arrivals.items():
        pub = tables[tid]["published"]
        if len(pub) != tables[tid]["seq"] or s > len(pub):
            continue  # the daemon's queue to the bridge overflowed: no mapping (reported)
        t_pub = pub[s - 1]
        if restart and t_pub >= restart["at"] - 1.0:
            if t_pub <= restart["up"] + restart.get("reconnected_s", 0):
                held.append(at - t_pub)
            continue
        steady.append(at - t_pub)
    steady.sort()
    held.sort()
    first = min(arrivals.values()) if arrivals else 0
    last = max(arrivals.values()) if arrivals else 0
    return {"accepted": accepted, "received": len(arrivals), "dup": dup, "lost": lost,
            "steady": steady, "held": held, "span": last - first,
            "unmapped": [tid for tid, t in tables.items() if len(t["published"]) != t["seq"]]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--hands", type=int, default=4, help="hands each table plays (default 4)")
    ap.add_argument("--speed", type=float, default=4.0,
                    help="times real time (default 4; 0: as fast as the CPU goes)")
    ap.add_argument("--restart", choices=("kill", "term", "none"), default="kill",
                    help="what happens to the broker halfway (default kill: SIGKILL)")
    ap.add_argument("--outage", type=float, default=2.0,
                    help="seconds the broker stays down (default 2)")
    ap.add_argument("--subscriber", nargs=3, metavar=("PORT", "USER", "PASSWORD"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.subscriber:
        return subscriber(int(args.subscriber[0]), args.subscriber[1], args.subscriber[2])
    if not 1 <= args.tables <= 500 or args.hands < 1 or args.speed < 0:
        ap.error("--tables takes 1 to 500, --hands at least 1, --speed 0 or more")

    from hostd import logging as jlog
    from tests.mqtt_broker import MISSING, USERS, TestBroker

    if MISSING:
        print("fleet_scale: skipped: " + MISSING)
        return 0
    jlog.configure("error")
    load0 = os.getloadavg()[0]
    ids = ["t%02d" % i for i in range(args.tables)]
    report = {}
    with tempfile.TemporaryDirectory(prefix="jantaku-fleet-scale-") as tmp:
        # a persistent subscriber's queue while it reconnects: unbounded here (default
        # 1000 per client); persistence saved every 5 s (default 30 min)
        USERS.setdefault(SUBSCRIBER, "pw-%s-0123456789" % SUBSCRIBER)
        b = TestBroker(os.path.join(tmp, "broker"), tables=ids, admins=(SUBSCRIBER,),
                       extra_conf=["max_queued_messages 0", "autosave_interval 5"])
        b.start()
        sub = None
        try:
            sub = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "--subscriber", str(b.port),
                 SUBSCRIBER, USERS[SUBSCRIBER]], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True)
            sub.stderr.readline()  # "subscribed"
            t0 = time.monotonic()
            asyncio.run(run(args, b, tmp, report))
            total_s = time.monotonic() - t0
            time.sleep(1.0)
            out, err = sub.communicate(timeout=120)
            got = json.loads(out)
        finally:
            if sub is not None and sub.poll() is None:
                sub.kill()
                sub.wait()
            b.stop()
    a = analyse(report, got["got"])
    n = args.tables
    print("machine: %d cores; load (1 min) %.2f at the start, %.2f at the end" % (
        os.cpu_count(), load0, os.getloadavg()[0]))
    print("%d tables, %d hands each %s, one Mosquitto (per-table users and ACL), %.0f s" % (
        n, args.hands, "at %gx real time" % args.speed if args.speed else
        "as fast as the CPU goes", total_s))
    errors = [t for t in report["tables"] if t["error"]]
    print("  hands played: %d of %d%s" % (sum(t["hands"] for t in report["tables"]),
                                          n * args.hands, "; stopped: " + "; ".join(
                                              "%s %s" % (t["id"], t["error"]) for t in errors[:3])
                                          if errors else ""))
    print("events through the broker: %d accepted by the bridges, %d received, %.0f events/s "
          "end to end (%.1f per table per second)" % (
              a["accepted"], a["received"], a["received"] / a["span"],
              a["received"] / a["span"] / n))
    s = a["steady"]
    if s:
        print("latency, the daemon's publish to the subscriber (outside the broker's outage, "
              "%d events): median %.1f ms, p99 %.1f ms, max %.1f ms" % (
                  len(s), 1000 * statistics.median(s), 1000 * pct(s, 99), 1000 * s[-1]))
    r = report["restart"]
    if r:
        back = sorted(r["back"].values())
        print("broker %s halfway, down %.1f s: %d messages waited in the bridges' outboxes; "
              "%d of %d bridges back, the last %.1f s after it listened again; the events held "
              "meanwhile arrived %.1f to %.1f s late" % (
                  "killed (SIGKILL)" if args.restart == "kill" else "stopped (SIGTERM)",
                  args.outage, r["queued_in_outage"], len(back), n, r["reconnected_s"],
                  a["held"][0] if a["held"] else 0, a["held"][-1] if a["held"] else 0))
        if back:
            print("  each table back after the broker listened: first %.2f s, median %.2f s, "
                  "90th percentile %.2f s, last %.2f s; at most %d back within any 0.1 s" % (
                      back[0], statistics.median(back), pct(back, 90), back[-1], herd(back)))
    lost = a["lost"]
    print("lost: %d of the %d events the bridges accepted%s; %d duplicates (QoS 1, at least "
          "once; seq tells); dropped by the outboxes: %d" % (
              len(lost), a["accepted"], (" (%s)" % ", ".join("%s seq %d" % x for x in lost[:5]))
              if lost else "", a["dup"], sum(t["dropped"] for t in report["tables"])))
    if a["unmapped"]:
        print("  (latency not measured on %s: the daemon's queue to the bridge overflowed)"
              % ", ".join(a["unmapped"]))
    daemon_cpu = report["cpu_s"] - report["sim_cpu_s"]
    events = a["accepted"]
    print("the daemons and bridges (this process, the simulators' %.1f CPU s left out): %.1f "
          "CPU s over %.0f s = %.2f %% of a core per table, %.0f us per event" % (
              report["sim_cpu_s"], daemon_cpu, report["wall_s"],
              100 * daemon_cpu / report["wall_s"] / n, 1e6 * daemon_cpu / max(1, events)))
    print("memory per table: %.1f MB daemon + simulated table, %.2f MB its bridge; %.1f MB "
          "for all at the end" % (report["rss_daemons_kb"] / 1024 / n,
                                  report["rss_bridges_kb"] / 1024 / n,
                                  report["rss_end_kb"] / 1024))
    print("the broker: %.1f CPU s over the run (%.0f us per event), %.1f MB resident at the "
          "end" % (report["broker_cpu_s"], 1e6 * report["broker_cpu_s"] / max(1, events),
                   report["broker_rss_kb"] / 1024))
    for took, count, rc, err in report["fleet"]:
        print("`jantaku fleet status` while they play: %.2f s, %d tables%s" % (
            took, count, "" if rc == 0 else " (exit %d: %s)" % (rc, err)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
