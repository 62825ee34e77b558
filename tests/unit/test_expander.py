"""firmware/drivers/expander.py: the MCP23017 driver against a recording bus, and against
the simulator's model of the chip (hw_sim/i2c.py Mcp23017)."""
import pytest

from firmware.drivers.expander import Mcp23017


class Bus:
    """Records every transfer; answers GPIO reads with `gpio`; NACKs while `dead`."""

    def __init__(self):
        self.writes = []
        self.gpio = 0
        self.dead = False

    def writeto_mem(self, addr, reg, buf):
        if self.dead:
            raise OSError(19)
        self.writes.append((addr, reg, bytes(buf)))

    def readfrom_mem_into(self, addr, reg, buf):
        if self.dead:
            raise OSError(19)
        assert reg == 0x12 and len(buf) == 2
        buf[0] = self.gpio & 0xFF
        buf[1] = self.gpio >> 8


@pytest.fixture
def bus():
    return Bus()


def test_configure_writes_the_latch_then_pullups_then_directions(bus):
    e = Mcp23017(bus, 0x20)
    e.pin(0, output=True)
    e.pin(13, output=True, value=1)  # an inverted driver: off is high
    e.pin(8, output=False, pull_up=True)
    e.pin(12, output=False)
    assert bus.writes == []  # nothing before configure()
    bus.gpio = 0x0100
    e.configure()
    assert bus.writes == [(0x20, 0x14, b"\x00\x20"), (0x20, 0x0C, b"\x00\x01"), (0x20, 0x00, b"\xfe\xdf")]
    assert e.level == 0x0100 and e.pins[2].value() == 1 and e.pins[3].value() == 0


def test_an_output_is_written_once_per_change(bus):
    e = Mcp23017(bus, 0x21)
    p = e.pin(3, output=True)
    e.configure()
    bus.writes.clear()
    p.value(1)
    p.value(1)
    p.value(0)
    assert bus.writes == [(0x21, 0x14, b"\x08\x00"), (0x21, 0x14, b"\x00\x00")]
    assert p.value() == 0


def test_poll_calls_each_handler_on_its_edges(bus):
    e = Mcp23017(bus, 0x20)
    door = e.pin(8, output=False, pull_up=True)
    button = e.pin(10, output=False, pull_up=True)
    bus.gpio = 0x0500
    e.configure()
    seen = []
    door.irq(lambda p: seen.append(("door", p.value())), door.IRQ_FALLING)
    button.irq(lambda p: seen.append(("button", p.value())), button.IRQ_FALLING | button.IRQ_RISING)
    bus.gpio = 0x0000  # both fall
    e.poll()
    bus.gpio = 0x0500  # both rise: only the button asked for rising edges
    e.poll()
    e.poll()  # no change: nothing
    assert seen == [("door", 0), ("button", 0), ("button", 1)]
    assert e.polls == 3


def test_a_chip_that_does_not_answer_is_counted_not_raised(bus):
    e = Mcp23017(bus, 0x20)
    p = e.pin(1, output=False, pull_up=True)
    bus.dead = True
    e.configure()
    e.poll()
    assert e.errors == 5 and p.value() == 0  # three writes, two reads; the last state kept
    assert e.get_status()["errors"] == 5


def test_against_the_simulated_chip():
    """The driver and the model agree: a latch bit drives its line, a line is read back,
    the other way round where the profile inverts it."""
    from firmware import profile as fp
    from hw_sim.table import Table
    from sim_helpers import SET

    prof = fp.load("pico-18")
    tab = Table(prof, [SET, SET], seed=1)
    e = Mcp23017(tab.bus, 0x20)
    stacker1 = e.pin(0, output=True)
    door_closed = e.pin(8, output=False, pull_up=True)
    e.configure()
    assert door_closed.value() == tab.lines["door_closed"].level == 0  # closed at rest: pressed
    stacker1.value(1)
    assert tab.lines["stacker1"].level == 1
    assert tab.wiring == ["expander 0 pin 9 (door_open) needs its pull-up (GPPU)",
                          "expander 0 pin 10 (start_button) needs its pull-up (GPPU)",
                          "expander 0 pin 11 (dice_button) needs its pull-up (GPPU)"]
