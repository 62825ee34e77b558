"""A person's hands on the simulated table (hw_sim.table.Table.hand): the control channel's
ops that fix what a fault left (clear-jam, put-tile, take-tile, take-stray, clear-guard,
clear-lift, fix-switch, plug), in process, over the control channel, through `jantaku sim OP`, and on
a `sim serve` (docs/SIMULATOR.md "People")."""
import os
import tempfile
import threading

import pytest

from hostd.cli import main as cli
from hw_sim.control import Control, request
from hw_sim.table import HAND_OPS
from sim_helpers import run_until, scripted, scripted_lift


@pytest.fixture
def served():
    """Control channels on simulated tables (the scripted controller, faults as asked),
    served by a thread, at short paths."""
    made = []
    stop = threading.Event()

    def serve(ctl):
        while not stop.is_set():
            ctl.poll()
            stop.wait(0.005)

    def make(*faults):
        d = tempfile.mkdtemp(prefix="jt39-")
        link = os.path.join(d, "tty")
        sim = scripted(seed=3, faults=faults)
        ctl = Control(link, sim)
        t = threading.Thread(target=serve, args=(ctl,))
        t.start()
        made.append((d, ctl, t))
        return link, sim

    try:
        yield make
    finally:
        stop.set()
        for d, ctl, t in made:
            t.join()
            ctl.close()
            os.rmdir(d)


def _build_until(sim, pred, stacks=17, max_ms=60000):
    sim.fw.build(stacks)
    assert run_until(sim, pred, max_ms), "never happened"


def test_clear_jam_frees_the_stuck_tile(served):
    link, sim = served("jam:track=2,after=10,count=0")
    tr = sim.table.tracks[1]
    _build_until(sim, lambda: tr.jammed)
    assert request(link, "clear-jam", track=2) == {"ok": True, "op": "clear-jam", "track": 2}
    sim.run(50)
    assert not tr.jammed and sim.table.line("entry2").level == 1
    assert request(link, "clear-jam", track=2) == {"ok": False, "error": "track 2 is not jammed"}
    assert request(link, "clear-jam", track=9)["error"] == "no track 9; accepted: 1..4"
    assert "needs the track" in request(link, "clear-jam")["error"]
    assert sim.table.tile_census()["odd"] == []


def test_put_tile_puts_the_missing_tiles_back_into_the_mixer(served):
    link, sim = served("missing-tile:build=1,count=2")
    t = sim.table
    _build_until(sim, lambda: len(t.lost) == 2)
    before = t.mixer.count()
    assert request(link, "put-tile", count=1) == {"ok": True, "op": "put-tile", "tiles": 1}
    assert request(link, "put-tile") == {"ok": True, "op": "put-tile", "tiles": 1}
    assert t.mixer.count() == before + 2 and t.lost == []
    assert request(link, "put-tile")["error"] == "no tile is missing from the table"
    assert t.tile_census()["odd"] == []


def test_take_tile_takes_the_surplus_out_of_the_mixer(served):
    link, sim = served("extra-tile:build=1")
    t = sim.table
    _build_until(sim, lambda: len(t.tiles) == 273)
    assert request(link, "take-tile") == {"ok": True, "op": "take-tile", "tiles": 1}
    assert len(t.taken) == 1
    c = t.tile_census()
    assert c["odd"] == [] and sum(c[k] for k in ("mixer", "top", "tracks", "lift")) == 272
    assert request(link, "take-tile")["error"] == "no surplus tile is in the mixer"
    assert "whole number" in request(link, "take-tile", count=-1)["error"]


def test_take_stray_takes_the_copy_that_went_into_the_walls_off_the_table_top(served):
    """A surplus copy built into walls (a genuine tile is left in the mixer): once its walls
    are on the table top, a person finds it (by its back and a face with a copy too many)
    and takes it out; the tile left in the mixer stays, and the sets are whole again."""
    link, sim = served("extra-tile:build=1")
    t = sim.table
    _build_until(sim, lambda: len(t.tiles) == 273)
    assert run_until(sim, lambda: not sim.fw.building, 120000)
    stray = len(t.tiles) - 1
    assert stray not in t.mixer.contents() and t.mixer.count() == 1  # (seed 3: in the walls)
    assert request(link, "take-stray")["error"] == (
        "no tile that is not of the sets is on the table top")
    scripted_lift(sim)  # the walls up onto the table top
    assert request(link, "take-stray", colour="green")["error"] == (
        "no tile that is not of the sets is on the table top with a green back")
    assert request(link, "take-stray", colour="red")["error"] == (
        "no back colour 'red'; the sets' are blue, green")
    assert "back colour's name" in request(link, "take-stray", colour=2)["error"]
    assert request(link, "take-stray", colour="blue") == {"ok": True, "op": "take-stray",
                                                          "tiles": 1}
    assert t.taken == [stray] and stray not in t.top_tiles() and t.mixer.count() == 1
    c = t.tile_census()
    assert c["odd"] == [] and sum(c[k] for k in ("mixer", "top", "tracks", "lift")) == 272


def test_clear_guard_steps_out_of_the_curtain_and_closes_the_lid(served):
    link, sim = served()
    panel = sim.table.panel
    panel.break_guard(sim.now_us(), 600000, "lid")
    panel.break_guard(sim.now_us(), 600000, "curtain")
    sim.run(10)
    assert not panel.safe()
    assert request(link, "clear-guard", input="lid") == {"ok": True, "op": "clear-guard",
                                                          "cleared": ["lid"]}
    assert request(link, "clear-guard") == {"ok": True, "op": "clear-guard",
                                            "cleared": ["curtain"]}
    sim.run(10)
    assert panel.safe()
    assert request(link, "clear-guard")["error"] == "the light curtain is clear and the lid closed"
    assert request(link, "clear-guard", input="door")["error"] == (
        "no guard input 'door'; accepted: curtain, lid")


def test_clear_lift_takes_the_obstruction_away(served):
    link, sim = served("lift-stall:build=0,at=1000")
    lift = sim.table.lift
    sim.fw.raise_walls()
    assert run_until(sim, lambda: lift.blocked(), 10000)
    assert request(link, "clear-lift") == {"ok": True, "op": "clear-lift", "lift": "free"}
    assert not lift.blocked()
    assert request(link, "clear-lift")["error"] == "nothing blocks the lift"


def test_fix_switch_frees_a_stuck_end_switch(served):
    link, sim = served("limit-stuck:build=0,switch=bottom,state=pressed")
    lift = sim.table.lift
    sim.fw.raise_walls()
    assert run_until(sim, lambda: lift.force_lo == 0, 10000)
    assert request(link, "fix-switch") == {"ok": True, "op": "fix-switch",
                                           "lift": "switches free"}
    assert lift.force_lo == -1 and lift.force_hi == -1
    assert request(link, "fix-switch")["error"] == "no lift end switch is stuck"


def test_plug_puts_the_cable_back(served):
    link, sim = served()
    sim.wire.unplug(sim.now_us(), -1)
    assert request(link, "plug") == {"ok": True, "op": "plug", "plugged": True}
    assert sim.wire.plugged
    assert request(link, "plug")["error"] == "the table's cable is plugged in"


def test_unknown_ops_name_every_op(served):
    link, _ = served()
    err = request(link, "sweep")["error"]
    assert err == "unknown op 'sweep'; accepted: push, press, look, hold, " + ", ".join(HAND_OPS)


def test_cli_sim_hands(served, capsys):
    link, sim = served("jam:track=3,after=5,count=0")
    tr = sim.table.tracks[2]
    _build_until(sim, lambda: tr.jammed)
    assert cli.main(["sim", "clear-jam", "--track", "3", "--link", link]) == 0
    assert capsys.readouterr().out == "track 3 is clear\n"
    assert cli.main(["sim", "clear-jam", "--track", "3", "--link", link]) == 1
    err = capsys.readouterr().err
    assert err == "jantaku sim clear-jam: track 3 is not jammed\n"
    sim.table.panel.break_guard(sim.now_us(), 600000, "curtain")
    sim.run(10)
    assert cli.main(["sim", "clear-guard", "--link", link]) == 0
    assert capsys.readouterr().out == "cleared the curtain\n"
    assert cli.main(["sim", "take-tile", "--count", "-1", "--link", link]) == 2
    capsys.readouterr()
    assert cli.main(["sim", "take-stray", "--colour", "blue", "--link", link]) == 1
    assert capsys.readouterr().err == ("jantaku sim take-stray: no tile that is not of the "
                                       "sets is on the table top with a blue back\n")
    assert cli.main(["sim", "plug", "--link", os.path.join(os.path.dirname(link), "x")]) == 1
    assert "no simulated table at" in capsys.readouterr().err


def test_cli_sim_hands_on_a_served_table(tmp_path, capsys):
    """The ops through `sim serve`'s own loop (hw_sim.serve.serve, a pseudo-terminal and its
    control channel), as a person trying the simulator by hand would use them."""
    from hw_sim import serve
    from hostd.cli.demo import sim_sets
    from hostd.rules.rulesets import get_ruleset
    from hostd.table.sim import board_profile

    d = tempfile.mkdtemp(prefix="jt39s-")
    link = os.path.join(d, "tty")
    stop = threading.Event()
    out = open(os.devnull, "w")
    th = threading.Thread(target=serve.serve, args=(
        board_profile(), sim_sets(get_ruleset("riichi"), ("blue", "green"))),
        kwargs=dict(seed=3, speed=1.0, port_link_path=link, out=out, stop=stop))
    th.start()
    try:
        for _ in range(200):
            if os.path.exists(link + ".ctl"):
                break
            stop.wait(0.02)
        assert cli.main(["sim", "fix-switch", "--link", link]) == 1
        assert capsys.readouterr().err == "jantaku sim fix-switch: no lift end switch is stuck\n"
        assert cli.main(["sim", "put-tile", "--link", link]) == 1
        assert "no tile is missing" in capsys.readouterr().err
    finally:
        stop.set()
        th.join()
        out.close()
        try:
            os.rmdir(d)
        except OSError:
            pass
