"""The MQTT bridge's figures against a real Mosquitto on loopback (tests/mqtt_broker.py):

* events/s from the daemon's push to a subscriber, each acknowledged by the broker (QoS 1,
  one at a time, in order) and the delay from push to arrival;
* what an event costs the daemon while the broker is away (the outbox takes it);
* `fleet status`'s collection time with 50 tables' retained messages on the broker;
* status messages published while the status changes with every event (at most 4 a second).

    .venv/bin/python bench/mqtt_bench.py [--events 5000]
"""
import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hostd import logging as jlog  # noqa: E402
from hostd.fleet.broker import parse  # noqa: E402
from hostd.cli.fleet import collect  # noqa: E402
from hostd.fleet.mqtt import Bridge  # noqa: E402
from tests.mqtt_broker import MISSING, USERS, TestBroker  # noqa: E402
from tests.unit.test_mqtt import FakeDaemon  # noqa: E402


def broker_for(b, user):
    return parse(b.url(user), env={"JANTAKU_MQTT_PASSWORD": USERS[user]})


async def throughput(b, n, rate=None):
    import aiomqtt

    d = FakeDaemon()
    bridge = Bridge(d, broker_for(b, "table-t1"), "t1")
    sent_at = {}
    got = []
    statuses = []
    async with aiomqtt.Client(**broker_for(b, "viewer").client_kwargs()) as sub:
        await sub.subscribe("jantaku/t1/#", qos=1)
        await bridge.start()
        while not bridge.connected:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.3)

        async def read():
            async for m in sub.messages:
                if str(m.topic).endswith("/events"):
                    got.append((json.loads(m.payload)["seq"], time.perf_counter()))
                    if len(got) == n:
                        return
                elif str(m.topic).endswith("/status") and not m.retain:
                    statuses.append(time.perf_counter())

        reader = asyncio.create_task(read())
        t0 = time.perf_counter()
        for i in range(n):
            sent_at[i + 1] = time.perf_counter()
            d.st["table"]["build"]["per_track"][i % 4] += 1  # the status changes per tile
            d.publish({"type": "tile", "build": 1, "track": i % 4, "index": i, "colour": "blue"})
            if rate:
                await asyncio.sleep(max(0.0, t0 + (i + 1) / rate - time.perf_counter()))
            elif i % 20 == 19:
                await asyncio.sleep(0)  # bursts of 20 events
        push_s = time.perf_counter() - t0
        await asyncio.wait_for(reader, 120)
        total_s = time.perf_counter() - t0
    await bridge.close()
    delays = sorted(t - sent_at[s] for s, t in got)
    in_order = [s for s, _ in got] == list(range(1, n + 1))
    status_rate = (sum(1 for t in statuses if t >= t0), total_s)  # while the events came
    return push_s, total_s, delays, in_order, status_rate


async def away_cost(b, n):
    d = FakeDaemon()
    bridge = Bridge(d, broker_for(b, "table-t1"), "t1", outbox_limit=n, retry=(60, 60))
    await bridge.start()
    await asyncio.sleep(0.2)
    t0 = time.perf_counter()
    for i in range(n):
        d.publish({"type": "tile", "build": 1, "track": i % 4, "index": i, "colour": "blue"})
    while len(bridge.outbox) < n:
        await asyncio.sleep(0)
    cost = time.perf_counter() - t0
    await bridge.close()
    return cost


async def fleet_time(b, tables):
    import aiomqtt

    status = {"id": "x", "state": "idle", "session": None, "next": "start a session",
              "fault": None, "at": time.time()}
    async with aiomqtt.Client(**broker_for(b, "admin").client_kwargs()) as c:
        for i in range(tables):
            await c.publish("jantaku/t%02d/availability" % i, b"online", qos=1, retain=True)
            await c.publish("jantaku/t%02d/status" % i, json.dumps(status).encode(), qos=1,
                            retain=True)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        got = await collect(broker_for(b, "viewer"))
        times.append(time.perf_counter() - t0)
        assert len(got) >= tables, len(got)  # and t1 from the first part
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=5000)
    args = ap.parse_args()
    if MISSING:
        print("mqtt_bench: skipped: " + MISSING)
        return 0
    jlog.configure("error")
    with tempfile.TemporaryDirectory(prefix="jantaku-mqtt-bench-") as tmp:
        USERS["admin"] = "pw-admin-0123456789"  # writes 50 tables' retained messages
        b = TestBroker(tmp, admins=("admin",))
        b.start()
        try:
            push_s, total_s, delays, in_order, status_rate = asyncio.run(
                throughput(b, args.events))
            _, paced_s, paced, paced_order, paced_status = asyncio.run(
                throughput(b, 1000, rate=200))
            cost = asyncio.run(away_cost(b, args.events))
            b.stop()
            b.start()
            fleet_s = asyncio.run(fleet_time(b, 50))
        finally:
            b.stop()
    n = args.events
    print("events through the bridge to a loopback Mosquitto (QoS 1, acknowledged one by one)")
    print("  %d events pushed at once: %.0f events/s end to end, in order: %s" % (
        n, n / total_s, in_order))
    print("  1000 events at 200/s (a fast simulated build): push to arrival median %.1f ms, "
          "99th percentile %.1f ms, max %.1f ms; in order: %s" % (
              1000 * statistics.median(paced), 1000 * paced[int(len(paced) * 0.99) - 1],
              1000 * paced[-1], paced_order))
    print("  %d status messages in those %.1f s, the status changing with every event (the "
          "bridge leaves 0.25 s between two)" % paced_status)
    print("the daemon's cost of an event while the broker is away: %.1f us (outbox)"
          % (1e6 * cost / n))
    print("fleet status over 50 tables' retained messages: %.2f s (median of 5; 0.3 s of it "
          "is the quiet wait)" % fleet_s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
