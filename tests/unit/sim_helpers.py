"""Helpers for the simulator's tests (hw_sim): tables with the scripted controller or
the real firmware, and the standard tile set."""
import json
import pathlib

from hw_sim.inprocess import InProcessTable, firmware_factory, scripted_factory
from hw_sim.table import Table
from hw_sim.tiles import standard_set

ROOT = pathlib.Path(__file__).resolve().parents[2]
SET = standard_set()


def profile(**over):
    p = json.loads((ROOT / "firmware" / "boards" / "reference-18.json").read_text())
    for k, v in over.items():
        p[k] = v
    try:
        from firmware import profile as fp

        return fp.load(p)
    except ImportError:  # pragma: no cover - firmware/profile.py is there
        return p


def bare_table(seed=1, faults=(), mixed_deck=False, **kw):
    """The physics alone (no controller): drive its lines by hand (the watchdog's hold
    bridged: nothing toggles it)."""
    kw["sim"] = dict(kw.get("sim") or {}, watchdog_jumper=True)
    return Table(profile(), [SET, SET], seed=seed, faults=faults, mixed_deck=mixed_deck, **kw)


def scripted(seed=1, faults=(), mixed_deck=False, **kw):
    """The table run by hw_sim.scripted.ScriptedController."""
    return InProcessTable(profile(), [SET, SET], seed=seed, faults=faults, mixed_deck=mixed_deck,
                          firmware_factory=scripted_factory, **kw)


def run_until(t, pred, max_ms=120000, step_ms=200):
    end = t.now_ms() + max_ms
    while not pred():
        if t.now_ms() >= end:
            return False
        t.run(step_ms)
    return True


def scripted_build(t, stacks=17, max_ms=120000):
    c = t.fw
    c.build(stacks)
    assert run_until(t, lambda: not c.building, max_ms), "scripted build did not finish"
    return t.report()["builds"][-1]


def scripted_lift(t, max_ms=30000):
    c = t.fw
    n = c.lift_done
    c.raise_walls()
    assert run_until(t, lambda: c.lift_done > n, max_ms), "lift did not come back"


def scripted_hand_over(t, max_ms=30000):
    c = t.fw
    n = c.lift_done
    c.hand_over()
    assert run_until(t, lambda: c.lift_done > n and c.door_phase is None, max_ms), "hand over did not finish"


def deaf_safety_factory(profile, machine, **kw):
    """The product's firmware with its safety handler made to do nothing (a bug, a missed
    interrupt), no task-context backstop either: what the hardware chain alone must stop
    (test_sim_safety_chain.py, bench/safety_stops.py; a test reaches into the
    firmware's private handler, the simulator never does)."""
    fw = firmware_factory(profile, machine, **kw)
    g = fw.ctl.guard
    g._irq = lambda pin: None
    for name in ("guard_curtain", "lid", "interlock", "power_feedback"):
        pin = fw.hal.input(name)
        if pin is not None:
            pin.irq(g._irq, pin.IRQ_FALLING | pin.IRQ_RISING)
    g.check = lambda: False
    return fw
