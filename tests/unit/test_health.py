"""hostd.bringup.health: table health from the journal.  A simulated table whose colour sensors
drift (sim option sensor_drift_pm) plays hand after hand; `health` flags the track that
drifts most before it misreads a single back."""
import pytest

from daemon_harness import Harness


@pytest.fixture(autouse=True)
def cfg(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))


def test_a_drifting_sensor_is_flagged_before_it_misreads(tmp_path):
    h = Harness(tmp_path, seed=5, sim={"sensor_drift_pm": 400})
    try:
        d = h.daemon
        drift = [sum(x * x for x in t.sensor.drift) for t in h.sim.table.tracks]
        worst = drift.index(max(drift)) + 1
        h.call(d.start_session("riichi", False))
        h.settle()
        flagged = None
        for _ in range(12):
            h.call(d.hand_over())
            h.settle()
            h.journal.flush()
            rep = d.table_health()
            t = rep["tracks"][worst - 1]
            if any(f.startswith("drift") for f in t["flags"]):
                flagged = rep
                break
        assert flagged is not None, "no drift flagged in 12 builds"
        t = flagged["tracks"][worst - 1]
        assert t["unknown"] == 0, "flagged only after it misread"
        assert not flagged["ok"] and any("track %d: drift" % worst in f for f in flagged["flags"])
        assert max(dd["margin_used"] for dd in t["drift"].values()) >= 0.3
        lift = flagged["lift"]
        assert lift["hand_overs"] >= 1 and 3.9 < lift["latest_up_s"] < 4.2
        # the table's own stroke reports (LIFT_STROKE): the running current, well under a stall
        assert 0 < lift["latest_peak_current"] < 0.8 * lift["stall_current"] == 0.8 * 52000
        assert not any(f.startswith("lift") for f in flagged["flags"])
        assert flagged["reference"] == "board profile reference-18"
    finally:
        h.close()


def test_a_steady_table_is_healthy_and_jams_are_counted_per_track(tmp_path):
    h = Harness(tmp_path, seed=3, faults=("jam:build=4,track=2,count=0",))
    try:
        d = h.daemon
        h.call(d.start_session("riichi", False))
        h.settle()
        for _ in range(3):  # builds 2, 3 and 4: a jam that stays stops build 4
            h.call(d.hand_over())
            h.settle()
        assert h.status()["table"]["fault"]["kind"] == "jam"
        h.journal.flush()
        rep = d.table_health()
        assert rep["builds"] == 3 and [t["track"] for t in rep["tracks"]] == [1, 2, 3, 4]
        assert [t["jams"] for t in rep["tracks"]] == [0, 1, 0, 0]
        assert all(t["misread_rate"] == 0 for t in rep["tracks"])
        assert all(dd["margin_used"] < 0.3 for t in rep["tracks"] for dd in t["drift"].values())
        assert rep["flags"] == [] and rep["ok"]
    finally:
        h.close()


def test_a_lift_that_drags_is_flagged_before_it_stalls(tmp_path):
    """The motor draws near the stall threshold on every stroke (sim current run 45000 of a
    52000 threshold): `health` says so from the table's LIFT_STROKE reports."""
    drag = {"idle": 2000, "run": 45000, "stall": 60000, "noise": 800}
    h = Harness(tmp_path, seed=4, sim={"current": drag})
    try:
        d = h.daemon
        h.call(d.start_session("riichi", False))
        h.settle()
        for _ in range(2):
            h.call(d.hand_over())
            h.settle()
        h.journal.flush()
        rep = d.table_health()
        assert rep["lift"]["latest_peak_current"] >= 0.8 * 52000
        assert any(f.startswith("lift: its stroke drew") for f in rep["flags"]) and not rep["ok"]
        assert h.status()["session"]["faults"] == []  # it still works: flagged before it stalls
    finally:
        h.close()
