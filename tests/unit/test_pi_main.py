import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware import codes
from firmware import pi_main
from firmware.fakes import FakeI2C, FakePort


@pytest.fixture
def factory():
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.reset()


def test_first_line_says_cpython_only():
    with open(pi_main.__file__) as fh:
        assert fh.readline().strip() == "# CPython only"


def test_run_on_mock_pins_and_shutdown(factory):
    i2c = FakeI2C(4)
    i2c.ads[0x48] = 1000
    fw = pi_main.run("pi-reference", pin_factory=factory, port=FakePort(), i2c=i2c, max_steps=50)
    assert fw.steps == 50 and fw.ctl.state in (codes.IDLE, codes.FAULT)
    assert factory.pin(12).state == 0 and factory.pin(13).state == 0  # motors off after


def test_serial_port_adapter():
    class Ser:
        in_waiting = 3

        def readinto(self, b):
            b[0:3] = b"abc"
            return 3

        def write(self, b):
            return len(b)

    p = pi_main.SerialPort(Ser())
    buf = bytearray(8)
    assert p.any() == 3 and p.readinto(buf) == 3 and p.write(b"xy") == 2


def test_a_profile_a_pi_cannot_wire_is_refused(factory, capsys, monkeypatch):
    from gpiozero import Device

    monkeypatch.setattr(Device, "pin_factory", factory)
    assert pi_main.main(["reference-18"]) == 2  # a pin for lift_current: no ADC on a Pi
    assert "lift_current" in capsys.readouterr().err
