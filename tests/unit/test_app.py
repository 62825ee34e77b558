from firmware import codes
from firmware.app import Firmware
from firmware.compat import ticks_diff
from firmware.fakes import FakeClock, FakeHal, FakePort
from firmware.profile import ProfileError, load

import pytest

from fw_host import System


class WDT:
    def __init__(self):
        self.feeds = 0

    def feed(self):
        self.feeds += 1


def test_boot_turns_every_output_off_first():
    p = load(None)
    hal = FakeHal(p)
    for name, pin in hal.pins.items():
        if pin is not None and hasattr(pin, "duty"):
            pin.duty = 65535
        elif pin is not None and name in ("gate1", "stacker2", "pusher3", "status_light"):
            pin.level = 1
    fw = Firmware(p, hal, clock=FakeClock(), link_clock=FakeClock(), port=FakePort())
    for name in ("mixer_pwm", "lift_pwm", "door_pwm", "gate1", "stacker2", "pusher3", "status_light"):
        assert hal.level(name) == 0, name
    assert hal.created[0] in ("mixer_pwm", "mixer_dir")  # all_off first, mechanisms after
    assert fw.state == codes.IDLE


def test_profile_is_validated_at_construction():
    p = load(None)
    bad = dict(p)
    bad["tracks"] = 0
    with pytest.raises(ProfileError):
        Firmware(bad, FakeHal(p), clock=FakeClock(), link_clock=FakeClock(), port=FakePort())


def test_step_feeds_the_watchdog_and_never_blocks():
    p = load(None)
    w = WDT()
    fw = Firmware(p, FakeHal(p), clock=FakeClock(), link_clock=FakeClock(), port=FakePort(), wdt=w)
    for _ in range(10):
        fw.step()
    assert w.feeds == 11


def test_next_due_us():
    s = System()
    fw = s.fw
    now = s.clock.ticks_us()
    due = fw.next_due_us()
    assert due is not None and 0 <= ticks_diff(due, now) <= 500000  # the next heartbeat at least
    s.port.feed(b"\x00")
    assert fw.next_due_us() == now  # bytes waiting: now
    s.pump(1)
    s.fw.ctl.cmd_configure(1, [2] * 4, 1, [], 0)
    s.fw.ctl.cmd_build(1)
    s.hal.pins["entry1"].set(0)
    assert fw.next_due_us() == s.clock.ticks_us()  # an IRQ to follow up
    fw.step()
    d = ticks_diff(fw.next_due_us(), s.clock.ticks_us())
    assert 0 < d <= 8000  # the colour read


def test_separate_link_clock_is_not_in_next_due():
    p = load(None)
    fw = Firmware(p, FakeHal(p), clock=FakeClock(), link_clock=FakeClock(), port=FakePort())
    fw.step()
    # idle: no mechanics timer but the watchdog's toggle and the relays' check after
    # boot (the link's are not here)
    every = p["safety"]["watchdog_toggle_ms"] * 1000
    assert fw.next_due_us() <= fw.clock.ticks_us() + every
    fw.ctl.guard.stop_watchdog()
    fw.clock.advance(every // 1000)
    fw.step()
    assert fw.next_due_us() is None


def test_get_status_and_shutdown():
    s = System()
    s.send("configure_build", 1, (2, 2, 2, 2), 1, (), 0)
    s.send("build", 1)
    st = s.fw.get_status()
    assert st["state"] == "building" and st["link"]["connected"] and st["boot_nonce"] == 0x1234
    s.fw.shutdown()
    assert s.hal.level("mixer_pwm") == 0 and s.hal.level("gate1") == 0


def test_internal_fault_from_the_board_loop():
    s = System()
    s.fw.internal_fault(RuntimeError("x"))
    assert s.fw.ctl.fault == codes.FAULT_INTERNAL


def test_a_board_loop_runs_the_link_timers_with_a_silent_host():
    # firmware/main.py and pi_main.py: one clock, the link's deadline a scheduler timer;
    # the loop steps when next_due_us() says so and nothing else wakes it (SPEC §8)
    from firmware.app import Firmware
    from firmware.compat import ticks_diff
    from firmware.fakes import FakeClock, FakeHal, FakePort
    from firmware.profile import load
    from protocol import codec, messages as m

    clock = FakeClock(1000000)
    prof = load(None)
    port = FakePort()
    fw = Firmware(prof, FakeHal(prof), clock=clock, link_clock=clock, port=port, boot_nonce=0x77)
    out = []

    def loop(ms):
        end = clock.us + ms * 1000
        while clock.us < end:
            fw.step()
            out.append((clock.us, port.take()))
            due = fw.next_due_us()
            step = ticks_diff(due, clock.ticks_us()) if due is not None else 1000
            clock.advance_us(max(1, min(step, end - clock.us)))

    def heartbeats(since):
        return [(t, f) for (t, d) in out if t >= since for f in codec.decode_frames(d) if f[1] == m.HEARTBEAT]

    t0 = clock.us
    loop(2600)
    hbs = heartbeats(t0)
    assert len(hbs) == 6 and [b[0] - a[0] for a, b in zip(hbs, hbs[1:])] == [500000] * 5
    port.feed(codec.encode_frame(0, m.CONNECT, (1, 0x4321)))
    loop(1)
    assert fw.link.session == 0x4321 and fw.ctl.link_up
    t1 = clock.us
    loop(2500)
    assert not fw.ctl.link_up and fw.link.lost  # lost after 2000 ms of a silent host
    assert len([1 for (t, f) in heartbeats(t1) if f[1] == m.HEARTBEAT]) >= 3


def test_the_step_counter_wraps_before_it_would_be_a_long_integer_on_a_board():
    """2**30 steps (12.4 days of a 1 ms loop) is where a 32-bit board's small ints stop:
    the counter wraps there instead of allocating at every step from then on."""
    p = load(None)
    clock = FakeClock()
    fw = Firmware(p, FakeHal(p), clock=clock, link_clock=clock, port=FakePort())
    fw.steps = (1 << 30) - 2
    fw.step()
    assert fw.steps == (1 << 30) - 1
    fw.step()
    assert fw.steps == 0 and fw.get_status()["steps"] == 0
