"""hw_sim.lines: the signals between the table and a controller."""
from hw_sim.lines import IN, OUT, Line


class Rec:
    def __init__(self):
        self.got = []

    def sim_edge(self, level):
        self.got.append(("edge", level))

    def on_output(self, what, v):
        self.got.append(("out", what, v))


def test_input_tells_its_listener_on_change_only():
    r = Rec()
    ln = Line("entry1", IN, 1)
    ln.listener = r
    ln.set(1)
    ln.set(0)
    ln.set(0)
    ln.set(1)
    assert r.got == [("edge", 0), ("edge", 1)]
    assert ln.changes == 2


def test_output_tells_its_sink():
    r = Rec()
    ln = Line("gate1", OUT, 0, r, 7)
    ln.drive(1)
    ln.drive(1)
    ln.drive(0)
    assert r.got == [("out", 7, 1), ("out", 7, 0)]
