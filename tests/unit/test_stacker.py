from firmware.fakes import FakeClock, FakePin
from firmware.sched import Scheduler
from firmware.reference.stacker import PULSE_MARGIN_MS, Stacker


def make():
    clock = FakeClock()
    sched = Scheduler(clock)
    st_pin, pu_pin = FakePin(), FakePin()
    log = []

    class S(FakePin):
        pass

    def watch(pin, name):
        orig = pin.value

        def value(v=None):
            if v is not None:
                log.append((clock.us // 1000, name, v))
            return orig(v)

        pin.value = value

    watch(st_pin, "stacker")
    watch(pu_pin, "pusher")
    steps = []
    s = Stacker(st_pin, pu_pin, sched, stacker_ms=120, pusher_ms=150, backoff_ms=300, on_step=lambda: steps.append(1))
    log.clear()
    return clock, sched, s, log


def run(clock, sched, ms):
    for _ in range(ms):
        clock.advance(1)
        sched.run()


def test_two_tiles_then_a_push_never_overlapping():
    clock, sched, s, log = make()
    s.add_tile()
    s.add_tile()
    run(clock, sched, 1000)
    m = PULSE_MARGIN_MS
    assert log == [
        (0, "stacker", 1), (120 + m, "stacker", 0),
        (120 + m, "stacker", 1), (240 + 2 * m, "stacker", 0),
        (240 + 2 * m, "pusher", 1), (390 + 3 * m, "pusher", 0),
    ]
    assert s.stacked == 2 and s.pushed == 1 and s.idle()


def test_odd_last_tile_pushed_on_finish():
    clock, sched, s, log = make()
    for _ in range(3):
        s.add_tile()
    s.finish()
    run(clock, sched, 2000)
    assert s.stacked == 3 and s.pushed == 2 and s.idle()
    # finish after the odd tile was stacked also pushes it
    clock, sched, s, log = make()
    s.add_tile()
    run(clock, sched, 500)
    s.finish()
    run(clock, sched, 500)
    assert s.pushed == 1


def test_even_finish_adds_nothing():
    clock, sched, s, log = make()
    s.add_tile()
    s.add_tile()
    s.finish()
    run(clock, sched, 1000)
    assert s.pushed == 1


def test_backoff_goes_first():
    clock, sched, s, log = make()
    s.add_tile()      # stacker busy now
    s.add_tile()
    s.backoff()
    run(clock, sched, 2000)
    names = [(n, v) for (_, n, v) in log if v == 1]
    assert names[0] == ("stacker", 1)
    assert names[1] == ("pusher", 1)  # the back-off, before the second tile
    assert s.backoffs == 1 and s.stacked == 2 and s.pushed == 1


def test_stop_and_reset():
    clock, sched, s, log = make()
    s.add_tile()
    s.add_tile()
    s.stop()
    run(clock, sched, 500)
    assert s.stacked == 0 and s.idle()
    s.reset()
    assert s.get_status() == {"stacked": 0, "pushed": 0, "backoffs": 0, "busy": False}
