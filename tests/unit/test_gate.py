from firmware.fakes import FakePin
from firmware.reference.gate import Gate


def test_open_close():
    p = FakePin(level=1)
    g = Gate(p, close_ms=15)
    assert p.level == 0 and not g.is_open
    g.open()
    g.open()
    assert p.level == 1 and g.is_open and g.opens == 1
    g.close()
    assert p.level == 0
    assert g.get_status() == {"open": False, "opens": 1}
