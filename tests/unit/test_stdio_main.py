"""hw_sim/stdio_main.py under the real MicroPython unix port, driven by
hw_sim.stdio_client from CPython: the same table, the same firmware, the same builds."""
import pytest

from hw_sim.driver import Driver
from hw_sim.inprocess import InProcessTable
from hw_sim.stdio_client import MicroPythonTable, StdioError
from sim_helpers import SET


@pytest.fixture
def mp_table(micropython_bin):
    tables = []

    def make(**kw):
        kw.setdefault("seed", 7)
        t = MicroPythonTable("reference-18", [SET, SET], micropython=micropython_bin, **kw)
        tables.append(t)
        return t

    yield make
    for t in tables:
        t.close()


def _build(t, mixed=False):
    d = Driver(t)
    d.connect()
    if mixed:
        done = d.build(1, [34] * 4, 17, [1, 2], 0)
        assert d.hand_over()
        done2 = d.build(2, [34] * 4, 17, [1, 2], 1)
        return d, [done, done2]
    return d, [d.build(1, [34] * 4, 17, [1, 2], 1)]


def test_same_builds_on_both_runtimes(mp_table):
    """Whole builds' tiles per track for a seed are identical on CPython and MicroPython
    (firmware and simulator both running on each)."""
    mp = mp_table(mixed_deck=True)
    assert mp.info["implementation"] == "micropython"
    _, done_mp = _build(mp, mixed=True)
    cp = InProcessTable("reference-18", [SET, SET], seed=7, mixed_deck=True)
    _, done_cp = _build(cp, mixed=True)
    assert done_mp == done_cp or [list(x[1]) for x in done_mp] == [list(x[1]) for x in done_cp]
    r_mp = mp.report(True)
    r_cp = cp.report(True)
    for a, b in zip(r_mp["builds"], r_cp["builds"]):
        assert a["tiles"] == b["tiles"]
        assert a["backs"] == b["backs"]
        assert a["build_s"] == pytest.approx(b["build_s"], abs=1e-9)
        assert a["bound_s"] == pytest.approx(b["bound_s"], abs=1e-9)
    assert mp.boot_nonce == cp.boot_nonce
    assert mp.now_ms() == pytest.approx(cp.now_ms())


def test_protocol_verbs(mp_table):
    t = mp_table(faults=["unplug:after=3,ms=500"])
    assert t.run(100) == b"" or True
    assert t.refresh() == t.now_us()
    st = t.get_status()
    assert st["mixer"]["tiles"] == 136
    assert t.action("break_guard", at_ms=10, ms=20) == {"ok": True}
    t.run_until(t.now_us() + 50_000)
    assert t.report(False)["guard"]["breaks"] == 1
    assert t.action("clear_tracks") == {"tiles": 0}
    h = t.heap()
    assert h["alloc"] > 0 and h["free"] > 0
    with pytest.raises(StdioError) as e:
        t.action("fly")
    assert "unknown action" in str(e.value)
    # the wire's plug state comes back with every timed answer
    d = Driver(t)
    d.connect()
    d.command("configure_build", 1, [34] * 4, 17, [1, 2], 1)
    d.send("build", 1)
    d.wait(lambda: not t.plugged, 10000)
    assert not t.plugged
    d.run_for(1000)
    assert t.plugged


def test_stray_output_is_skipped():
    """Anything the MicroPython side prints before a response is kept apart."""
    import io
    import struct

    class FakeProc:
        stdin = io.BytesIO()
        stdout = io.BytesIO(b"debug print\n\xa5" + b"\xa5\x5aK" + struct.pack("<I", 2) + b"ok")

        def poll(self):
            return None

    t = object.__new__(MicroPythonTable)
    t.proc = FakeProc()
    t.stray = bytearray()
    assert t._call(b"N") == b"ok"
    assert bytes(t.stray) == b"debug print\n\xa5"


def test_press_and_the_light_on_micropython(mp_table):
    """A person's press (`sim press` on a MicroPython runtime) reaches the firmware's
    buttons; the firmware's light is in the status."""
    t = mp_table()
    t.press("dice")
    t.run_until(t.now_us() + 400000)
    st = t.get_status()
    assert st["guard"]["presses"] == 1 and st["guard"]["dice_button"] == 1
    assert st["firmware"]["controller"]["buttons"] == {"start": 0, "dice": 1}  # one press
    assert st["firmware"]["controller"]["light"]["shown"] == "off"  # no host
    with pytest.raises(ValueError, match="accepted: start, dice"):
        t.press("lift")
