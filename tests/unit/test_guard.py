from firmware.fakes import FakeHal
from firmware.drivers.guard import Guard
from firmware.profile import load


class Stop:
    def __init__(self):
        self.n = 0

    def halt(self):
        self.n += 1


def test_unsafe_edge_halts_everything_in_the_irq():
    p = load(None)
    hal = FakeHal(p)
    a, b = Stop(), Stop()
    g = Guard(hal, (a, b))
    assert g.safe() and not g.tripped
    hal.pins["guard_curtain"].set(0)
    assert a.n == 1 and b.n == 1 and g.tripped and g.trips == 1
    hal.pins["lid"].set(0)  # still unsafe: halted again, one trip
    assert a.n == 2 and g.trips == 1
    hal.pins["guard_curtain"].set(1)
    assert g.tripped  # the lid is still open
    hal.pins["lid"].set(1)
    assert g.changed
    g.ack()
    assert g.safe() and not g.tripped and not g.changed
    assert g.get_status() == {"safe": True, "curtain": True, "lid": True, "trips": 1}


def test_lid_optional_and_check_backstop():
    p = load("pi-reference")
    hal = FakeHal(p)
    a = Stop()
    g = Guard(hal, (a,))
    assert g.get_status()["lid"] is None
    hal.pins["guard_curtain"].level = 0  # missed edge
    assert g.check() and a.n == 1
