from firmware.fakes import FakeHal, FakeI2C, FakePin, FakePort, Rig
from firmware.profile import load


def test_fake_pin_edges():
    p = FakePin(level=1)
    seen = []
    p.irq(lambda pin: seen.append(pin.level), FakePin.IRQ_FALLING)
    p.set(0)
    p.set(1)
    p.set(1)
    assert seen == [0]


def test_fake_port_round_trip():
    port = FakePort(16)
    port.feed(b"hello")
    buf = bytearray(3)
    assert port.any() == 5 and port.readinto(buf) == 3 and bytes(buf) == b"hel"
    port.write(b"out")
    assert port.take() == b"out" and port.take() == b""


def test_fake_hal_rest_levels():
    hal = FakeHal(load(None))
    assert hal.pins["lift_bottom"].level == 0 and hal.pins["guard_curtain"].level == 1
    assert hal.pins["entry1"].level == 1 and hal.level("mixer_pwm") == 0
    i2c = FakeI2C(2)
    i2c.writeto(0x70, bytearray([2]))
    buf = bytearray(8)
    i2c.set_colour(1, 0.5, 0.25, 0.25, clear=800)
    i2c.readfrom_mem_into(0x29, 0xB4, buf)
    assert buf[0] | buf[1] << 8 == 800


def test_rig_runs():
    r = Rig()
    r.run(1000)
    assert r.ctl.state == 1
