from firmware import codes
from firmware.fakes import FakeClock, FakeHal
from firmware.reference.lift import Lift
from firmware.profile import load
from firmware.sched import Scheduler


class Ctl:
    def __init__(self):
        self.ev = []

    def on_lift_arrived(self, top):
        self.ev.append(("arrived", top))

    def on_mech_fault(self, code, track, src):
        self.ev.append(("fault", code, src))


def make(board=None):
    p = load(board)
    clock = FakeClock(0)
    hal = FakeHal(p)
    sched = Scheduler(clock)
    ctl = Ctl()
    lift = Lift(p, hal, sched, clock, ctl)
    return p, clock, hal, sched, ctl, lift


def run(clock, sched, lift, ms):
    for _ in range(ms):
        lift.service()
        sched.run()
        clock.advance(1)


def test_cycle_up_then_down():
    p, clock, hal, sched, ctl, lift = make()
    assert lift.at_bottom()
    assert lift.cycle() == 0
    assert hal.pins["lift_dir"].level == 1 and hal.level("lift_pwm") == 1
    run(clock, sched, lift, 20)
    hal.pins["lift_bottom"].set(1)
    run(clock, sched, lift, 3900)
    hal.pins["lift_top"].set(0)
    assert hal.level("lift_pwm") == 0  # stopped in the IRQ
    run(clock, sched, lift, 5)
    assert ctl.ev == [("arrived", True)]
    assert hal.pins["lift_dir"].level == 0 and hal.level("lift_pwm") == 1  # straight back down
    run(clock, sched, lift, 20)
    hal.pins["lift_top"].set(1)
    run(clock, sched, lift, 3900)
    hal.pins["lift_bottom"].set(0)
    run(clock, sched, lift, 5)
    assert ctl.ev == [("arrived", True), ("arrived", False)]
    assert not lift.cycling and lift.at_bottom() and lift.get_status()["where"] == "bottom"


def test_stall_by_current():
    p, clock, hal, sched, ctl, lift = make()
    lift.cycle()
    run(clock, sched, lift, 20)
    hal.pins["lift_bottom"].set(1)
    hal.pins["lift_current"].v = 60000
    run(clock, sched, lift, 300)
    assert len(ctl.ev) == 1 and ctl.ev[0][:2] == ("fault", codes.FAULT_LIFT_STALL)
    assert 160 <= ctl.ev[0][2] <= 200  # ms into the stroke
    assert hal.level("lift_pwm") == 0 and not lift.cycling


def test_bottom_switch_stuck_is_limit():
    p, clock, hal, sched, ctl, lift = make()
    lift.cycle()
    run(clock, sched, lift, 1100)
    assert ctl.ev == [("fault", codes.FAULT_LIMIT, 1000)]


def test_no_current_sense_on_pi_profile_still_times_out():
    p, clock, hal, sched, ctl, lift = make("pi-reference")
    assert lift.axis.current is not None  # the ADS1115 fake stands in
    lift.down()
    run(clock, sched, lift, 5)
    assert ctl.ev == [("arrived", False)]
