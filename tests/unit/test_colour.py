import pytest

from firmware.drivers.colour import Ads1115, Classifier, ColourBus, atime_for, min_ref_distance
from firmware.fakes import FakeI2C

REFS = [[0.20, 0.30, 0.50], [0.22, 0.52, 0.26]]


def test_atime():
    assert atime_for(2) == 255
    assert atime_for(24) == 246
    assert atime_for(700) == 0
    assert atime_for(0) == 255


def test_bus_init_selects_each_channel_and_powers_up():
    i2c = FakeI2C(4)
    bus = ColourBus(i2c, mux_addr=0x70, sensor_addr=0x29, channels=4, integration_ms=2)
    assert bus.init() == 4
    for ch in range(4):
        assert i2c.regs[ch][0x00] == 0x03 and i2c.regs[ch][0x01] == 255
    i2c2 = FakeI2C(4)
    i2c2.absent[2] = True
    bus2 = ColourBus(i2c2, mux_addr=0x70, sensor_addr=0x29, channels=4)
    assert bus2.init() == 3 and bus2.present == [True, True, False, True]


def test_read_selects_channel_and_decodes_little_endian():
    i2c = FakeI2C(4)
    i2c.readings[3] = [0x1234, 300, 400, 500]
    bus = ColourBus(i2c, mux_addr=0x70, sensor_addr=0x29, channels=4)
    assert bus.read(3)
    assert i2c.ctrl == 0x08
    assert (bus.c, bus.r, bus.g, bus.b) == (0x1234, 300, 400, 500)
    i2c.absent[3] = True
    assert not bus.read(3) and bus.c == 0 and bus.errors == 1


def test_classifier_nearest_within_distance_else_unknown():
    cl = Classifier(REFS, max_distance=0.12, min_clear=200)
    assert cl.classify(1000, 200, 300, 500) == 1
    assert cl.classify(1000, 220, 520, 260) == 2
    assert cl.classify(1000, 230, 330, 440) == 1  # near blue
    # between the two: never guessed
    assert cl.classify(1000, 210, 410, 380) == 0
    # dark (no tile): unknown
    assert cl.classify(100, 20, 30, 50) == 0
    assert cl.classify(1000, 0, 0, 0) == 0
    # grey: unknown
    assert cl.classify(1000, 333, 334, 333) == 0


def test_min_ref_distance():
    assert min_ref_distance(REFS) == pytest.approx(((0.02 ** 2) + (0.22 ** 2) + (0.24 ** 2)) ** 0.5)


def test_ads1115_reads_u16():
    class Bus:
        def __init__(self):
            self.cfg = None
            self.val = bytearray(b"\x40\x00")

        def writeto_mem(self, addr, reg, buf):
            self.cfg = (addr, reg, bytes(buf))

        def readfrom_mem_into(self, addr, reg, buf):
            buf[0] = self.val[0]
            buf[1] = self.val[1]

    b = Bus()
    a = Ads1115(b, addr=0x49, channel=2)
    assert b.cfg[0] == 0x49 and b.cfg[1] == 1 and (b.cfg[2][0] >> 4) == 0x6
    assert a.read_u16() == 0x8000
    b.val = bytearray(b"\xff\xf0")
    assert a.read_u16() == 0  # negative: clamped
