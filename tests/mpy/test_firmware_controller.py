# Runs under the MicroPython unix port (tests/unit/test_micropython.py):
# the board profile, the scheduler and the controller's state machine on fakes.
import sys

from firmware import codes
from firmware import profile as P
from firmware.fakes import Rig
from protocol import messages as m
import gc  # noqa: E402

gc.collect()  # after the imports: the heap is 256 KB


def fresh_rig():
    """A new Rig once the previous one is garbage: one controller at a time in
    the bounded heap (the old one is dropped before the new one is built)."""
    global r
    r = None
    gc.collect()
    return Rig()


def check(name, cond):
    if not cond:
        print("FAIL", name)
        sys.exit(1)
    print("OK", name)


# ---- profiles
for b in ("reference-18", "long-29", "pi-reference"):
    p = P.load(b)
    check("board loads: " + b, p["id"] == b and p["tracks"] == 4)
d = P.load(None)
d["timings_ms"] = dict(d["timings_ms"])
d["timings_ms"]["gate_close"] = 0
try:
    P.validate(d)
    check("range error raised", False)
except P.ProfileError as e:
    check("range error names the key", e.key == "timings_ms.gate_close" and "1..200" in str(e))
d = P.load(None)
d["bogus"] = 1
try:
    P.validate(d)
    check("unknown key raised", False)
except P.ProfileError as e:
    check("unknown key named", e.key == "bogus")
d = P.load(None)
d["id"] = "club table 1"
try:
    P.validate(d)
    check("id outside the rule raised", False)
except P.ProfileError as e:
    check("id rule said", e.key == "id" and "' ' is not accepted" in str(e) and "a-z, 0-9, '-' and '_'" in e.accepted)
d = P.load(None)
d["id"] = "Club 1"
d["tracks"] = 9
try:
    P.validate(d)
    check("two problems raised", False)
except P.ProfileError as e:
    check("both problems reported", [p.key for p in e.problems] == ["tracks", "id"]
          and str(e).startswith("2 problems:\n  tracks: got 9, out of range"))
d = P.load(None)
d["timings_ms"] = dict(d["timings_ms"])
d["timeouts_ms"] = dict(d["timeouts_ms"])
del d["timings_ms"]["heartbeat"]
del d["timeouts_ms"]["link"]
d = P.validate(d)
check("link defaults filled in", d["timings_ms"]["heartbeat"] == 500 and d["timeouts_ms"]["link"] == 2000)

OK = (m.OK, m.NO_FIELD)


def offer(r, k, colour=1):
    if r.pin("gate" + str(k)).level:
        r.tile(k, colour)


# ---- a build, exact counts, colours
r = fresh_rig()
check("boot idle", r.ctl.state == codes.IDLE)
check("configure", r.ctl.cmd_configure(2, [4, 4, 4, 4], 2, [1, 2], 0) == OK)
check("build", r.ctl.cmd_build(2) == OK and r.ctl.state == codes.BUILDING)
for i in range(6):
    for k in range(1, 5):
        offer(r, k, 1 + (k + i) % 2)
    r.run(220)
r.run(2000)
check("built", r.ctl.state == codes.BUILT)
check("exact counts", [tr.count for tr in r.ctl.tracks] == [4, 4, 4, 4])
check("gates closed", all(r.pin("gate" + str(k)).level == 0 for k in range(1, 5)))
done = r.rec.named("build_done")
check("build_done counts", len(done) == 1 and done[0][2] == [0, 2, 2] * 4)

# ---- lift with a guard break: stopped in the IRQ, fault GUARD
check("lift", r.ctl.cmd_lift() == OK)
r.run(100)
r.pin("lift_bottom").set(1)
r.run(500)
r.pin("guard_curtain").set(0)
check("guard stops the lift at once", r.hal.level("lift_pwm") == 0)
r.step()
check("guard fault", r.ctl.fault == codes.FAULT_GUARD)

# ---- jam -> back-offs -> JAM fault
r = fresh_rig()
r.ctl.cmd_configure(3, [4, 4, 4, 4], 2, [], 0)
r.ctl.cmd_build(3)
r.pin("entry1").set(0)
r.run(3000)
check("jam fault on track 1", r.ctl.fault == codes.FAULT_JAM and r.ctl.fault_track == 1)
check("two back-offs", r.ctl.tracks[0].stacker.backoffs == 2)

# ---- link loss pauses, BUILD resumes
r = fresh_rig()
r.ctl.cmd_configure(4, [4, 4, 4, 4], 2, [], 0)
r.ctl.cmd_build(4)
r.tile(2)
r.ctl.on_link_lost()
check("paused on link loss", r.ctl.state == codes.PAUSED and r.ctl.tracks[1].count == 1)
check("resume", r.ctl.cmd_build(4) == OK and r.ctl.state == codes.BUILDING)

# ---- short
r.pin("mixer_empty").set(1)
r.run(3100)
check("short", r.ctl.fault == codes.FAULT_SHORT)

# ---- self-test (pulses and readings) and calibration: firmware/selftest.py through
# the controller's, the stacker's and the track's public methods
r = fresh_rig()
check("self-test pulse", r.ctl.cmd_self_test(m.D_PUSHER, 2) == OK and r.ctl.state == codes.TESTING)
r.run(200)
check("self-test pulse ends", r.ctl.state == codes.IDLE
      and r.rec.named("self_test")[-1] == ("self_test", m.D_PUSHER, 2, m.TEST_PASS, 0))
for kind in range(1, len(m.DEVICES)):
    r.ctl.cmd_self_test(kind, 1 if kind in m.TRACK_DEVICES else 0)
    r.run(200)
check("self-test of every device", r.ctl.state == codes.IDLE
      and len(r.rec.named("self_test")) == len(m.DEVICES))
r.hal.i2c().set_colour(0, 0.18, 0.30, 0.52, clear=900)
old = r.ctl.classifier
check("calibrate", r.ctl.cmd_calibrate(1, 1) == OK
      and abs(r.ctl.colour_refs()[0][2] - 0.52) < 0.01
      and r.ctl.classifier is not old)
