from firmware.drivers.current import CurrentSense
from firmware.fakes import FakeADC


def test_threshold_and_peak():
    adc = FakeADC(1000)
    c = CurrentSense(adc, threshold_u16=52000)
    assert not c.over() and c.last == 1000
    adc.v = 60000
    assert c.over() and c.peak == 60000
    adc.v = 20000
    assert c.read() == 20000 and c.peak == 60000
    c.reset_peak()
    assert c.peak == 0
