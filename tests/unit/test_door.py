from firmware import codes
from firmware.reference.door import Door
from firmware.fakes import FakeClock, FakeHal
from protocol import messages as m
from firmware.profile import load
from firmware.sched import Scheduler


class Ctl:
    def __init__(self):
        self.ev = []

    def on_door_arrived(self, opened):
        self.ev.append(("arrived", opened))

    def on_mech_fault(self, code, track, src):
        self.ev.append(("fault", code, src))


def make(board=None):
    p = load(board)
    clock = FakeClock(0)
    hal = FakeHal(p)
    sched = Scheduler(clock)
    ctl = Ctl()
    return clock, hal, sched, ctl, Door(p, hal, sched, clock, ctl)


def run(clock, sched, door, ms):
    for _ in range(ms):
        door.service()
        sched.run()
        clock.advance(1)


def test_open_and_close_with_switches():
    clock, hal, sched, ctl, door = make()
    assert door.state() == m.DOOR_CLOSED and door.closed()
    door.open()
    assert door.state() == m.DOOR_MOVING and hal.pins["door_dir"].level == 1
    run(clock, sched, door, 10)
    hal.pins["door_closed"].set(1)
    run(clock, sched, door, 580)
    hal.pins["door_open"].set(0)
    run(clock, sched, door, 2)
    assert door.state() == m.DOOR_OPEN and ctl.ev == [("arrived", True)]
    door.close()
    run(clock, sched, door, 10)
    hal.pins["door_open"].set(1)
    run(clock, sched, door, 580)
    hal.pins["door_closed"].set(0)
    run(clock, sched, door, 2)
    assert door.state() == m.DOOR_CLOSED and ctl.ev[-1] == ("arrived", False)
    assert door.get_status()["state"] == "closed"


def test_timed_open_without_open_switch():
    clock, hal, sched, ctl, door = make("pi-reference")
    door.open()
    run(clock, sched, door, 10)
    hal.pins["door_closed"].set(1)
    run(clock, sched, door, 700)
    assert ctl.ev == [("arrived", True)] and hal.level("door_pwm") == 0
    assert door.state() == m.DOOR_OPEN


def test_door_timeout_is_door_fault():
    clock, hal, sched, ctl, door = make()
    door.open()
    run(clock, sched, door, 10)
    hal.pins["door_closed"].set(1)
    run(clock, sched, door, 2000)
    assert ctl.ev == [("fault", codes.FAULT_DOOR, 1500)] and hal.level("door_pwm") == 0
