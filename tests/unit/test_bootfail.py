"""firmware/bootfail.py: what a board that cannot start says on its port, and how often."""
from firmware import bootfail
from firmware.fakes import FakeClock, FakePort
from firmware.profile import ProfileError


def test_the_line_names_the_error_on_one_line():
    e = ProfileError("pins.gate2", "pin 3 is already used by gate1", "a pin number no other signal uses")
    assert bootfail.line(e) == ("jantaku: boot error: ProfileError: pins.gate2: pin 3 is already "
                                "used by gate1; accepted: a pin number no other signal uses\r\n")
    multi = bootfail.line(ValueError("2 problems:\n  a: bad\n  b: worse"))
    assert multi == "jantaku: boot error: ValueError: 2 problems: | a: bad | b: worse\r\n"
    long = bootfail.line(ImportError("x" * 1000))
    assert len(long) == len(bootfail.MARKER) + bootfail.MAX_CHARS + 2 and long.endswith("...\r\n")


def test_it_says_it_at_once_and_every_two_seconds():
    clock = FakeClock(1000000)
    port = FakePort()
    bf = bootfail.BootFailed(OSError(2), port, clock)
    bf.step()
    assert port.take() == b"jantaku: boot error: OSError: 2\r\n"
    for _ in range(19):
        clock.advance(100)
        bf.step()
    assert bf.said == 1  # 1.9 s later: not yet
    clock.advance(100)
    bf.step()
    assert bf.said == 2 and bf.get_status()["boot_error"].startswith("jantaku: boot error: OSError")
    assert bf.next_due_us() == clock.ticks_us() + 2000000
