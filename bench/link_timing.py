"""The table's link timing on its own clock, as a host sees it (prints figures; not a test).

  .venv/bin/python bench/link_timing.py [--runs N] [--speed X] [--firmware-runtime micropython]

Runs `jantaku sim serve` and talks to it over its pseudo-terminal with the second host
written from protocol/SPEC.md alone (tests/spec_host.py), then measures:

1. the heartbeat period while the host is silent: without a session, idle in a session,
   building (the window fills, events drop, heartbeats go on), paused after link loss;
2. the link-loss detection time (from the host's last frame to the table's link marked
   lost, read from sim serve's --state file every 50 ms, so ±50 ms) idle, building and
   paused; building also to the first heartbeat saying `paused`;
3. false-sync recovery: a false sync (0x7E, LEN 8..64) right before an 8-byte command,
   the host silent after it (no retransmission, no ping): the time from the command's
   last byte to its `result`.  SPEC §8 bounds silence at 2 s, §3's gap rule at 50 ms.

Link timing is wall time (SPEC §1), so the figures include this machine's scheduling.
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.spec_host import (BUILD, CONFIGURE_BUILD, HEARTBEAT, RESULT, S_PAUSED, STATUS,  # noqa: E402
                             SpecHost)


def jantaku():
    p = pathlib.Path(sys.executable).parent / "jantaku"
    return str(p) if p.exists() else "jantaku"


class Sim:
    def __init__(self, tmp, speed, runtime, seed=7):
        self.state = os.path.join(tmp, "state-%d.json" % time.monotonic_ns())
        self.log = open(os.path.join(tmp, "sim.log"), "ab")
        self.p = subprocess.Popen([jantaku(), "sim", "serve", "--ruleset", "riichi", "--seed", str(seed),
                                   "--speed", str(speed), "--firmware-runtime", runtime, "--state", self.state],
                                  stdout=subprocess.PIPE, stderr=self.log, cwd=str(ROOT))
        line = self.p.stdout.readline().decode().strip()
        if not line.startswith("PORT "):
            self.close()
            raise SystemExit("sim serve did not start: %r" % line)
        self.host = SpecHost(line.split(" ", 1)[1])

    def link(self):
        for _ in range(50):
            try:
                with open(self.state) as f:
                    return json.load(f)["firmware"]["link"]
            except (OSError, ValueError, KeyError):
                time.sleep(0.01)
        return {}

    def close(self):
        if getattr(self, "host", None) is not None:
            self.host.close()
        self.p.terminate()
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.log.close()
        try:
            os.unlink(self.state)
        except OSError:
            pass


def periods(frames):
    return [(b.t - a.t) * 1000 for a, b in zip(frames, frames[1:])]


def silent_until_lost(sim, limit=4.0):
    """Stay silent; returns (ms from the host's last frame to lost, or None, frames since)."""
    h = sim.host
    last = h.sent_at
    k = h.mark()
    lost = None
    while h.now() - last < limit:
        h.pump(0.02)
        if lost is None and sim.link().get("lost"):
            lost = (h.now() - last) * 1000
    return lost, h.frames[k:]


def start_build(h):
    h.auto_ack = True
    assert h.call(CONFIGURE_BUILD, bytes((1, 0, 4, 34, 34, 34, 34, 17, 0, 0))) == (0, 255)
    assert h.call(BUILD, b"\x01\x00") == (0, 255)
    h.pump(0.3)
    h.auto_ack = False


def run_once(tmp, speed, runtime, out):
    # 1a. no session
    sim = Sim(tmp, speed, runtime)
    try:
        h = sim.host
        h.pump(0.3)
        k = h.mark()
        h.pump(3.0)
        out["hb_no_session"] += periods(h.heartbeats(k))
        # 1b/2a. idle in a session, then silent
        h.connect(0x1001)
        lost, frames = silent_until_lost(sim)
        out["lost_idle"].append(lost)
        out["hb_idle"] += periods([f for f in frames if f.msgid == HEARTBEAT])
        # 3. false syncs of every plausible LEN before a command (host silent after it)
        h.ping()
        h.auto_ack = True
        h.pump(0.3)
        for n in range(8, 65, 4):
            k = h.mark()
            seq = h.command(STATUS, prefix=bytes((0x7E, n)))
            sent = h.sent_at
            f = h.wait_for(lambda f: f.msgid == RESULT and f.result()[0] == seq, 3.0, k)
            out["false_sync"].append((n, None if f is None else (f.t - sent) * 1000))
            h.pump(0.1)
            h.ping()
    finally:
        sim.close()
    # 1c/2b. building, silent; 1d/2c. paused, silent
    sim = Sim(tmp, speed, runtime)
    try:
        h = sim.host
        h.connect(0x2002)
        start_build(h)
        last = h.sent_at
        lost, frames = silent_until_lost(sim)
        out["lost_building"].append(lost)
        hbs = [f for f in frames if f.msgid == HEARTBEAT]
        paused = [f for f in hbs if f.heartbeat()[2] == S_PAUSED]
        out["paused_hb_building"].append((paused[0].t - last) * 1000 if paused else None)
        out["hb_building"] += periods([f for f in hbs if f.heartbeat()[2] != S_PAUSED])
        out["hb_paused"] += periods(paused)
        # back (a ping: everything unacknowledged comes at once), then silent again, paused
        k = h.mark()
        h.ping()
        h.pump(0.2)
        ev = [f for f in h.frames[k:] if f.msgid >= 0x40]
        if ev:
            from tests.spec_host import frame

            h.rx_expected = (ev[-1].seq + 1) & 0xFF
            h.write(frame(h.rx_expected, 0x01))
        h.pump(0.1)
        lost, frames = silent_until_lost(sim)
        out["lost_paused"].append(lost)
        out["hb_paused"] += periods([f for f in frames if f.msgid == HEARTBEAT])
    finally:
        sim.close()


def fmt(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "none"
    return "n=%d  min %.0f  median %.0f  max %.0f ms" % (len(xs), min(xs), statistics.median(xs), max(xs))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--speed", type=float, default=2.0)
    ap.add_argument("--firmware-runtime", choices=("cpython", "micropython"), default="cpython")
    a = ap.parse_args(argv)
    out = {k: [] for k in ("hb_no_session", "hb_idle", "hb_building", "hb_paused", "lost_idle",
                           "lost_building", "paused_hb_building", "lost_paused", "false_sync")}
    with tempfile.TemporaryDirectory(prefix="jantaku-link-timing-") as tmp:
        for _ in range(a.runs):
            run_once(tmp, a.speed, a.firmware_runtime, out)
    print("link timing of `jantaku sim serve` (%s firmware, speed %g, %d runs), host silent:"
          % (a.firmware_runtime, a.speed, a.runs))
    print("1. heartbeat period (SPEC §8: 500 ms)")
    print("   no session        %s" % fmt(out["hb_no_session"]))
    print("   idle, session     %s" % fmt(out["hb_idle"]))
    print("   building          %s" % fmt(out["hb_building"]))
    print("   paused            %s" % fmt(out["hb_paused"]))
    print("2. link-loss detection after the host's last frame (SPEC §8: 2000 ms; state file ±50 ms)")
    print("   idle              %s" % fmt(out["lost_idle"]))
    print("   building          %s" % fmt(out["lost_building"]))
    print("     heartbeat 'paused' seen %s" % fmt(out["paused_hb_building"]))
    print("   paused            %s" % fmt(out["lost_paused"]))
    fs = out["false_sync"]
    never = [n for n, t in fs if t is None]
    print("3. false sync (LEN 8..64) before a command, host silent: command's last byte -> result")
    print("   %s%s" % (fmt([t for n, t in fs]), ("; never answered for LEN %s" % never) if never else ""))
    worst = max(fs, key=lambda x: -1 if x[1] is None else x[1])
    print("   worst: LEN %d, %s ms" % (worst[0], "never" if worst[1] is None else "%.0f" % worst[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
