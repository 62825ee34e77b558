"""Bring-up of a table through the CLI: `jantaku selftest` and `jantaku calibrate` against
`jantaku sim serve` over a real pseudo-terminal (issue 22's acceptance): the club's own sets
(pink and yellow backs) misread before calibration and count exactly after it; a dead gate
fails the self-test on its track; sets too close in colour are refused."""
import json

import pytest

from tests.e2e.conftest import start_daemon, start_sim

pytestmark = pytest.mark.e2e

PINK = "pink=0.45,0.25,0.30"
YELLOW = "yellow=0.40,0.42,0.18"


@pytest.fixture
def bench(tmp_path, monkeypatch):
    """(daemon, sim) for the given sim serve arguments; the club's profile copy in tmp."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    procs = []

    def start(sim_args):
        sim, port = start_sim(tmp_path, "--ruleset", "riichi", "--seed", "7", *sim_args)
        procs.append(sim)
        d = start_daemon(tmp_path, port)
        procs.append(d.proc)
        d.wait(lambda s: s["table"]["connected"], what="the table to connect")
        return d

    yield start
    for p in reversed(procs):
        p.kill()


def test_selftest_reports_a_dead_gate_on_its_track(bench):
    d = bench(["--fault", "dead-gate:track=3"])
    r = d.cli("selftest", "--json", check=False, timeout=300)
    assert r.returncode == 1, r.stderr
    rep = json.loads(r.stdout)
    assert set(rep) >= {"devices"}
    for dev in rep["devices"]:
        assert {"device", "track", "result"} <= set(dev) and dev["result"] in (
            "ok", "failed", "absent", "pulsed")
    failed = [(x["device"], x["track"]) for x in rep["devices"] if x["result"] == "failed"]
    assert failed == [("gate", 3)]
    r = d.cli("selftest", "--device", "gate", "--track", "2", timeout=300)
    assert r.returncode == 0 and "gate 2" in r.stdout and "all ok" in r.stdout
    r = d.cli("selftest", "--device", "gate", "--track", "6", check=False)
    assert r.returncode == 2 and "1..4" in r.stderr


def test_sets_too_close_in_colour_are_refused_with_the_separation(bench, tmp_path):
    d = bench(["--set-colour", PINK, "--set-colour", "salmon=0.44,0.27,0.29"])
    r = d.cli("calibrate", "--sets", "pink,salmon", "--yes", "--json", check=False, timeout=300)
    assert r.returncode == 1
    rep = json.loads(r.stdout)
    assert not rep["ok"] and "separation" in rep["refused"]
    assert all(t["separation"] < 2.0 for t in rep["tracks"])
    assert not (tmp_path / "cfg").exists()  # nothing written
    r = d.cli("calibrate", "--sets", "pink,salmon", "--yes", check=False, timeout=300)
    assert r.returncode == 1 and "REFUSED" in r.stdout and "identical-backs" in r.stdout


def test_selftest_on_the_table_under_test_then_its_sets_count_exactly(daemon):
    """The bring-up against the suite's table, the real one with --hil-port too: the
    self-test passes (every device ok or absent), then a Mixed Deck split counts the two
    sets the table names (its handshake's colour classes: the sets DEPLOY.md §5 says to
    load) exactly by colour."""
    st = daemon.wait(lambda s: s["table"]["connected"], what="the table to connect")
    sets = st["table"]["identity"]["colours"][:2]
    r = daemon.cli("selftest", "--json", check=False, timeout=300)
    assert r.stdout.strip(), r.stderr
    rep = json.loads(r.stdout)
    assert r.returncode == 0 and rep["ok"], rep
    assert {d["result"] for d in rep["devices"]} <= {"ok", "absent", "pulsed"}
    assert {d["device"] for d in rep["devices"] if d["result"] == "pulsed"} <= {
        "pusher", "status_light"}  # nothing senses them: pulsed, not confirmed
    daemon.cli("session", "start", "--ruleset", "riichi", "--mixed-deck", "--wait", timeout=300)
    s = daemon.status()["session"]
    assert s["sets"] == sets
    for c in sets:
        assert s["decks"]["A"]["backs"].get(c, 0) + s["decks"]["B"]["backs"].get(c, 0) == 136


@pytest.fixture
def one_set_in_the_mixer(tmp_path, hil_port, monkeypatch):
    """A table loaded as a two-pass calibration wants it: the first set in the mixer, the
    second on the table top.  The simulator is loaded so; on a real table (--hil-port) an
    operator is asked on the terminal.  The daemon keeps the club's profile under the
    test's own JANTAKU_CONFIG_DIR."""
    from tests.e2e.conftest import leave_ready

    monkeypatch.setenv("JANTAKU_CONFIG_DIR", str(tmp_path / "club"))
    if hil_port:
        port, sim = hil_port, None
    else:
        sim, port = start_sim(tmp_path, "--ruleset", "riichi", "--seed", "11")
    d = start_daemon(tmp_path, port)
    st = d.wait(lambda s: s["table"]["connected"], what="the table to connect")
    sets = st["table"]["identity"]["colours"][:2]
    if hil_port:
        try:
            with open("/dev/tty", "r+") as tty:
                tty.write("\njantaku HIL: put the %s set in the mixer and the %s set on the table "
                          "top, then press Enter " % (sets[0], sets[1]))
                tty.flush()
                tty.readline()
        except OSError:
            pytest.skip("no terminal to ask the operator to load the sets")
    yield d, sets
    problem = leave_ready(d, port) if d.proc.p.poll() is None else None
    d.proc.kill()
    if sim is not None:
        sim.kill()
    assert problem is None, problem


def test_calibration_of_the_tables_own_sets_then_they_count_exactly(one_set_in_the_mixer, tmp_path):
    """`jantaku calibrate --sets` of the two sets the table names, against the suite's table
    (the real one with --hil-port too): every track tells them apart, the club's copy of the
    profile is written (under the test's JANTAKU_CONFIG_DIR), and the next build counts the
    set in the mixer exactly by colour."""
    d, sets = one_set_in_the_mixer
    r = d.cli("calibrate", "--sets", ",".join(sets), "--yes", "--json", check=False, timeout=600)
    assert r.stdout.strip(), r.stderr
    cal = json.loads(r.stdout)
    assert r.returncode == 0 and cal["ok"], cal
    assert all(t["separation"] >= 2.0 for t in cal["tracks"])
    assert cal["profile"]["path"].startswith(str(tmp_path / "club"))
    d.cli("session", "start", "--ruleset", "riichi", "--wait", timeout=300)
    s = d.status()["session"]
    assert s["sets"] == sets and sum(s["decks"]["A"]["backs"].values()) == 136
    assert set(s["decks"]["A"]["backs"]) <= set(sets)


def test_selftest_then_calibrate_then_name_the_sets_as_a_builder_does(bench, tmp_path):
    """The club's own sets (pink and yellow backs) are refused before calibration and count
    exactly after it.  Issue 49's first finding, through the CLI on `sim serve`: the
    self-test (pink in the
    mixer, yellow on the table top; its door test opens the centre and the simulated
    people push the table top in), then `calibrate --sets pink,yellow --yes`: the
    calibration reads both sets in one pass and, the classes shown, asks which is which
    (exit 1, nothing written); `jantaku status` asks the same with `jantaku name-sets`,
    which names them; `name-sets --swap` puts a wrong answer right; the sets then count
    exactly."""
    d = bench(["--set-colour", PINK, "--set-colour", YELLOW, "--sensor-bias", "20"])
    r = d.cli("session", "start", "--ruleset", "riichi", "--mixed-deck", "--colours", "pink,yellow",
              check=False)
    assert r.returncode == 2 and "pink" in r.stderr and "blue, green" in r.stderr  # bad input
    r = d.cli("selftest", timeout=300)
    assert "pulsed (not confirmed)" in r.stdout and "pushed them back into the centre" in r.stdout
    r = d.cli("calibrate", "--sets", "pink,yellow", "--yes", check=False, timeout=300)
    assert r.returncode == 1, r.stderr
    assert "calibration (mixed" in r.stdout and "NOT NAMED" in r.stdout
    assert "class 1: " in r.stdout and "swatch #" in r.stdout
    assert not (tmp_path / "cfg").exists()  # nothing written before the names
    st = d.status()
    assert st["next"]["code"] == "name_sets" and "name_sets" in st["can"]
    out = d.cli("status").stdout
    assert "jantaku name-sets pink,yellow or yellow,pink" in out, out
    c1 = st["next"]["params"]["classes"][0]
    truth = "pink,yellow" if abs(c1["mean"][1] - 0.25) < 0.05 else "yellow,pink"
    wrong = ",".join(truth.split(",")[::-1])
    r = d.cli("name-sets", wrong)
    assert "profile written" in r.stdout and "jantaku name-sets --swap" in r.stdout
    r = d.cli("name-sets", "--swap")
    assert "the names swapped" in r.stdout
    prof = json.load(open(tmp_path / "cfg" / "jantaku" / "boards" / "reference-18.json"))
    assert abs(prof["calibration"]["refs"]["pink"][1] - 0.25) < 0.05
    d.cli("session", "start", "--ruleset", "riichi", "--mixed-deck", "--colours", "pink,yellow",
          "--wait", timeout=300)
    decks = d.status()["session"]["decks"]
    backs = [decks["A"]["backs"], decks["B"]["backs"]]
    assert backs[0].get("pink", 0) + backs[1].get("pink", 0) == 136
    assert backs[0].get("yellow", 0) + backs[1].get("yellow", 0) == 136
    assert not any("unknown" in b for b in backs)
    assert len(prof["calibration"]["tracks"]) == 4 and prof["colours"] in (["pink", "yellow"],
                                                                           ["yellow", "pink"])
    d.cli("abort")
