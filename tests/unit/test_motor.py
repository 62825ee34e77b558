import pytest

from firmware.drivers.motor import DCMotor
from firmware.fakes import FakePin, FakePWM


def test_starts_off_and_runs_with_direction():
    pwm, d = FakePWM(), FakePin(level=1)
    m = DCMotor(pwm, d, duty=0.5)
    assert pwm.duty == 0 and d.level == 0 and not m.running
    m.run(1)
    assert d.level == 1 and pwm.duty == 32768 and m.running
    m.run(0)
    assert d.level == 0 and pwm.duty == 32768
    m.stop()
    assert pwm.duty == 0 and not m.running
    assert m.get_status() == {"running": False, "direction": 0}


def test_reversal_goes_through_zero_duty():
    seen = []

    class P(FakePWM):
        def duty_u16(self, v=None):
            if v is not None:
                seen.append(v)
            return FakePWM.duty_u16(self, v)

    m = DCMotor(P(), FakePin(), duty=1.0)
    m.run(1)
    seen.clear()
    m.run(0)
    assert seen == [0, 65535]


def test_without_direction_pin_one_way_only():
    pwm = FakePWM()
    m = DCMotor(pwm, None, duty=0.8)
    m.run(1)
    assert pwm.duty == 52428
    with pytest.raises(ValueError):
        m.run(0)
