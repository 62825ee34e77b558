"""hw_sim.inprocess: the in-process runner (virtual time) around the real firmware."""
import pytest

from firmware import compat
from hw_sim.clock import PERIOD
from hw_sim.driver import Driver
from hw_sim.inprocess import InProcessTable, load_profile, scripted_factory
from hw_sim.machine import WDT_RESET
from sim_helpers import SET, profile, scripted


def fw_table(seed=1, **kw):
    return InProcessTable("reference-18", [SET, SET], seed=seed, **kw)


def test_load_profile_by_id_dict_and_stacks():
    p = load_profile("reference-18")
    assert p["id"] == "reference-18" and p["max_stacks"] == 18
    assert load_profile(p, table_stacks=12)["max_stacks"] == 12
    assert p["max_stacks"] == 18


def test_run_returns_at_max_ms_when_nothing_is_written():
    t = scripted()
    assert t.run(1234) == b""
    assert t.now_ms() == 1234


def test_run_returns_what_the_firmware_writes():
    t = fw_table()
    data = t.run(1000)
    assert data  # the first heartbeat (a table with no session announces itself)
    assert t.now_ms() < 1000
    assert t.run(0) == b""


def test_connect_and_a_build_through_the_wire():
    t = fw_table(seed=2)
    d = Driver(t)
    ident = d.connect()
    assert ident[3] == "reference-18" and ident[4] == t.boot_nonce
    done = d.build(1, [34] * 4, 17, [1, 2], 1)
    assert done is not None and list(done[1]) == [0, 34, 0] * 4
    r = t.report()
    b = r["builds"][0]
    assert b["tiles_per_track"] == [34] * 4 and b["efficiency"] > 0.98
    assert r["wiring"] == [] and r["boots"] == 1 and r["irq_alloc_errors"] == 0
    assert d.seen("tile") == 136 and d.seen("track_full") == 4


def _summary(t):
    r = t.report()
    b = r["builds"][0]
    return (b["tiles"], b["build_s"], t.boot_nonce)


def test_deterministic_for_a_seed():
    runs = []
    for _ in range(2):
        t = fw_table(seed=5)
        d = Driver(t)
        d.connect()
        d.build(1, [34] * 4, 17, [1, 2], 1)
        runs.append(_summary(t))
    assert runs[0] == runs[1]
    t = fw_table(seed=6)
    d = Driver(t)
    d.connect()
    d.build(1, [34] * 4, 17, [1, 2], 1)
    assert _summary(t)[0] != runs[0][0]


def test_reset_fault_reboots_with_a_new_nonce_and_motors_off():
    t = fw_table(seed=3, faults=("reset:after=30",))
    d = Driver(t)
    d.connect()
    first = t.boot_nonce
    d.command("configure_build", 1, [34] * 4, 17, [1, 2], 1)
    d.command("build", 1)
    assert d.wait(lambda: t.boots == 2, 30000)
    assert t.boot_nonce != first and t.resets[0][1] == 2
    tab = t.table
    assert not tab.mixer.running and not tab.lift.motor_on and not tab.door.motor_on
    assert all(tab.lines["gate%d" % k].level == 0 for k in range(1, 5))
    # the host notices (a heartbeat with the new boot nonce) and gets a new session
    assert d.wait(lambda: d.link.identity is not None and d.link.identity[4] == t.boot_nonce, 5000)


def test_watchdog_resets_an_unfed_controller():
    t = InProcessTable(profile(watchdog_ms=500), [SET, SET], seed=1, firmware_factory=scripted_factory,
                       watchdog=True)
    t.run(400)
    assert t.boots == 1
    t.run(200)
    assert t.boots == 2 and t.resets[0][1] == WDT_RESET


def test_a_firmware_that_spins_is_caught(monkeypatch):
    import hw_sim.inprocess as ip

    class Spinner:
        def __init__(self, clock):
            self.clock = clock

        def step(self):
            pass

        def next_due_us(self):
            return self.clock.ticks_us()

    monkeypatch.setattr(ip, "SPIN_LIMIT", 50)
    t = InProcessTable("reference-18", [SET, SET], firmware_factory=lambda p, m, **kw: Spinner(kw["clock"]))
    with pytest.raises(RuntimeError) as e:
        t.run(10)
    assert "spins" in str(e.value)


def test_builds_across_the_ticks_wrap():
    t = fw_table(seed=4, start_us=PERIOD - 5_000_000)
    d = Driver(t)
    d.connect()
    done = d.build(1, [34] * 4, 17, [1, 2], 1)
    assert done is not None and t.now_us() > PERIOD
    assert t.report()["builds"][0]["efficiency"] > 0.98


def test_status_includes_the_firmware():
    t = fw_table()
    s = t.get_status()
    assert s["firmware"]["state"] in ("idle", "boot", 0, 1) or "state" in s["firmware"]
    assert s["mixer"]["tiles"] == 136


def test_report_is_plain_json():
    import json

    t = fw_table(seed=2, faults=("guard:at=100", "misread:rate=0.1", "unplug:after=100,ms=100"))
    d = Driver(t)
    d.connect()
    d.build(1, [34] * 4, 17, [1, 2], 1)
    d.lift()
    r = json.loads(json.dumps(t.report()))
    assert r["builds"][0]["tiles_per_track"] == [34] * 4
    assert {f["kind"] for f in r["faults"]} == {"guard", "misread", "unplug"}
    assert r["safety"][0]["latency_ms"] == 0.0 and r["sim_s"] > 20


class _Wall:
    """A link clock of its own (as sim serve's wall clock), moved by hand."""

    def __init__(self):
        self.ms = 0

    def ticks_ms(self):
        return self.ms & ((1 << 30) - 1)


def _heartbeats(data):
    from protocol import codec, messages as m

    return [f for f in codec.decode_frames(data) if f[1] == m.HEARTBEAT]


def test_a_link_on_its_own_clock_runs_its_timers_with_a_silent_host_and_idle_mechanics():
    # issue 13: under sim serve the link's clock is the wall; with no motor running and
    # no host byte the firmware never stepped, so no heartbeat and no link loss came
    wall = _Wall()
    t = fw_table(link_clock=wall)
    got = []
    for _ in range(300):  # 3 s of the wall in 10 ms passes, as sim serve's loop
        wall.ms += 10
        got.append(t.run(10))
    hbs = _heartbeats(b"".join(got))
    assert 5 <= len(hbs) <= 7, len(hbs)  # one at boot, then every 500 ms of the wall


def test_random_boot_nonces_leave_the_builds_as_the_seed_makes_them():
    runs = []
    nonces = []
    for mode in ("seed", "random", "random"):
        t = fw_table(seed=5, boot_nonces=mode)
        d = Driver(t)
        d.connect()
        d.build(1, [34] * 4, 17, [1, 2], 1)
        runs.append(_summary(t)[:2])  # the tiles of the build and its time
        nonces.append(t.boot_nonce)
    assert runs[0] == runs[1] == runs[2]
    assert nonces[1] != nonces[2]
    assert fw_table(seed=5).boot_nonce == nonces[0]  # "seed" (the default): the seed's nonce
    with pytest.raises(ValueError):
        fw_table(boot_nonces="fixed")
