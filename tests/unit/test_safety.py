# The safety layer as the firmware sees it (firmware/drivers/safety.py): what each input
# stops, from its IRQ; what it refuses; the watchdog's toggling from the main loop.
from firmware.fakes import FakeHal
from firmware.drivers.safety import Safety, CURTAIN, LID, CHAIN
from firmware.profile import load
from firmware.sched import Scheduler
from firmware.fakes import FakeClock as VirtualClock


class Stop:
    def __init__(self):
        self.n = 0

    def halt(self):
        self.n += 1


def _safety(board=None, **kw):
    p = load(board)
    hal = FakeHal(p)
    clock = VirtualClock()
    sched = Scheduler(clock)
    return p, hal, clock, sched, Safety(hal, sched, p, **kw)


def test_the_curtain_stops_motion_the_lid_and_the_chain_stop_the_drives_too_in_a_hard_irq():
    lift, door, mixer = Stop(), Stop(), Stop()
    p, hal, clock, sched, g = _safety(motion=(lift, door), drive=(mixer,))
    assert g.hard  # rp2's hard=True where the port has it (the fakes take it)
    assert hal.pins["guard_curtain"].hard and hal.pins["interlock"].hard
    assert g.safe() and g.may_move() and g.may_drive() and not g.tripped
    hal.pins["guard_curtain"].set(0)  # a hand in the curtain: lift and door, not the mixer
    assert (lift.n, door.n, mixer.n) == (1, 1, 0) and g.tripped and g.trips == 1
    assert g.unsafe_bits() == CURTAIN and not g.may_move() and g.may_drive()
    hal.pins["lid"].set(0)  # the lid: the mixer too; still one trip
    assert (lift.n, mixer.n) == (2, 1) and g.trips == 1
    assert not g.may_drive()
    hal.pins["guard_curtain"].set(1)
    hal.pins["lid"].set(1)
    g.ack()
    assert g.safe() and not g.tripped and not g.changed
    hal.pins["interlock"].set(0)  # the emergency stop: everything
    assert (lift.n, door.n, mixer.n) == (4, 4, 3) and g.unsafe_bits() == CHAIN and g.trips == 2
    st = g.get_status()
    assert st["chain"] is False and st["curtain"] and st["lid"] and not st["safe"]


def test_no_motion_starts_without_the_motion_supply_and_a_stuck_relay_is_noticed():
    p, hal, clock, sched, g = _safety(motion=(Stop(),))
    hal.pins["power_feedback"].set(0)  # the relay is open
    assert g.safe() and g.may_move()  # just after the start: it may still be pulling in
    clock.advance(2 * p["safety"]["relay_ms"] + 10)
    sched.run()
    assert not g.may_move() and g.may_drive() and g.get_status()["no_power"]
    hal.pins["power_feedback"].set(1)
    assert g.may_move()
    hal.pins["guard_curtain"].set(0)  # the chain opens the relay... whose feedback stays on
    g.ack()
    clock.advance(2 * p["safety"]["relay_ms"] + 10)
    sched.run()
    assert g.relay_stuck and g.get_status()["relay_stuck"]


def test_the_watchdog_toggles_from_the_loop_and_stops_when_told():
    p, hal, clock, sched, g = _safety()
    wd = hal.pins["watchdog"]
    every = p["safety"]["watchdog_toggle_ms"]
    levels = []
    for _ in range(4):
        levels.append(wd.level)
        clock.advance(every)
        sched.run()  # the main loop's scheduler: nothing toggles without it
    assert levels == [1, 0, 1, 0] and g.toggles == 5
    clock.advance(every * 10)  # a loop that does not run: no edge at all
    assert wd.level == 1 and g.toggles == 5
    g.stop_watchdog()
    sched.run()
    clock.advance(every * 3)
    sched.run()
    assert g.toggles == 5 and g.get_status()["watchdog"] is False


def test_without_the_chains_signals_the_simulators_profile_reads_safe_and_powered():
    d = dict(load(None))
    d["pins"] = dict(d["pins"], interlock=None, power_feedback=None, watchdog=None)
    d.pop("pin_options")
    p = load(d)
    hal = FakeHal(p)
    a = Stop()
    g = Safety(hal, Scheduler(VirtualClock()), p, motion=(a,))
    st = g.get_status()
    assert st["chain"] is None and st["power"] is None and st["watchdog"] is None
    assert g.may_move()
    hal.pins["guard_curtain"].level = 0  # missed edge: the task-context backstop
    assert g.check() and a.n == 1 and g.unsafe_bits() == CURTAIN


def test_lid_optional():
    p, hal, clock, sched, g = _safety("pi-reference")
    assert g.get_status()["lid"] is None and g.unsafe_bits() & LID == 0


def test_a_real_board_refuses_a_profile_without_the_chain_naming_the_key():
    """Bad input: a profile for a real board without its interlock input or watchdog pin
    is refused, the key named (firmware/main.py, firmware/pi_main.py on real pins); the
    simulator takes it (and says so: tests/unit/test_sim_safety_chain.py)."""
    import pytest
    from firmware import profile as P

    P.require_safety(load(None))  # the shipped profile has them
    for key in ("interlock", "watchdog", "power_feedback"):
        d = dict(load(None))
        d["pins"] = dict(d["pins"], **{key: None})
        d["pin_options"] = {k: v for k, v in d["pin_options"].items() if k != key}
        p = load(d)  # valid: the simulator runs it
        e = pytest.raises(P.ProfileError, P.require_safety, p).value
        assert e.key == "pins." + key and "does not start without the safety chain" in str(e)


def test_main_on_a_board_refuses_it_before_any_pin_is_made(monkeypatch):
    """firmware/main.py: the boot error names the key (on the port, as any boot error)."""
    import sys
    import types

    fake = types.ModuleType("machine")
    made = []
    fake.Pin = lambda *a, **k: made.append(a)
    monkeypatch.setitem(sys.modules, "machine", fake)
    monkeypatch.setitem(sys.modules, "micropython", types.SimpleNamespace(kbd_intr=lambda n: None))
    sys.modules.pop("firmware.main", None)
    from firmware import main as board_main

    seen = []
    monkeypatch.setattr(board_main, "_boot_failed", lambda e, *a: seen.append(e))
    d = dict(load(None))
    d["pins"] = dict(d["pins"], watchdog=None)
    assert board_main.main(d) is None
    assert seen and seen[0].key == "pins.watchdog" and made == []
    sys.modules.pop("firmware.main", None)
