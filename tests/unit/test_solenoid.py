from firmware.drivers.solenoid import Solenoid
from firmware.fakes import FakeClock, FakePin
from firmware.sched import Scheduler


def test_energise_release():
    p = FakePin(level=1)
    s = Solenoid(p)
    assert p.level == 0
    s.energise()
    assert p.level == 1 and s.on
    s.release()
    assert p.level == 0 and not s.on
    s.set(1)
    assert p.level == 1


def test_pulse_ends_by_timer_and_calls_back():
    clock = FakeClock()
    sched = Scheduler(clock)
    done = []
    p = FakePin()
    s = Solenoid(p, sched, lambda: done.append(clock.us))
    s.pulse(120)
    assert p.level == 1 and s.busy() and s.pulses == 1
    clock.advance(119)
    sched.run()
    assert p.level == 1
    clock.advance(1)
    sched.run()
    assert p.level == 0 and done == [120000] and not s.busy()


def test_cancel_releases_without_callback():
    clock = FakeClock()
    sched = Scheduler(clock)
    done = []
    p = FakePin()
    s = Solenoid(p, sched, lambda: done.append(1))
    s.pulse(50)
    s.cancel()
    clock.advance(100)
    sched.run()
    assert p.level == 0 and done == []
