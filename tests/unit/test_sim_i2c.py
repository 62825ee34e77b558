"""hw_sim.i2c: the TCA9548A mux, wired-AND of several selected sensors, NACKs, ADS1115."""
import pytest

from hw_sim.i2c import ENODEV
from sim_helpers import bare_table, profile
from hw_sim.table import Table
from sim_helpers import SET


def test_mux_select_and_readback():
    tab = bare_table()
    bus = tab.bus
    bus.writeto(0x70, bytes([0b0100]))
    assert bus.readfrom(0x70, 1) == bytes([0b0100])
    assert bus.scan() == [0x29, 0x70]
    bus.writeto(0x70, b"\x00")
    assert bus.scan() == [0x70]


def test_no_channel_or_unknown_address_nacks():
    tab = bare_table()
    with pytest.raises(OSError) as e:
        tab.bus.readfrom_mem_into(0x29, 0xB4, bytearray(8))
    assert e.value.args[0] == ENODEV
    with pytest.raises(OSError):
        tab.bus.writeto(0x42, b"\x01")
    tab.bus.enabled = False
    with pytest.raises(OSError):
        tab.bus.writeto(0x70, b"\x01")
    assert tab.bus.nacks == 3


def test_sensor_id_and_registers():
    tab = bare_table()
    bus = tab.bus
    bus.writeto(0x70, b"\x01")
    assert bus.readfrom_mem(0x29, 0x80 | 0x12, 1) == b"\x44"  # TCS34725 ID
    bus.writeto_mem(0x29, 0x80 | 0x01, b"\xf6")
    assert bus.readfrom_mem(0x29, 0x80 | 0x01, 1) == b"\xf6"
    assert tab.tracks[1].sensor.regs[1] == 0xFF  # channel 2 untouched
    # plain write of the command byte, then a read (no memaddr)
    bus.writeto(0x29, bytes([0x80 | 0x20 | 0x00]))
    assert bus.readfrom(0x29, 2) == bytes([0x00, 0xF6])


def test_several_channels_wired_and():
    tab = bare_table()
    bus = tab.bus
    bus.writeto(0x70, b"\x03")  # tracks 1 and 2 at once
    bus.writeto_mem(0x29, 0x81, b"\xf0")  # a write reaches both
    assert tab.tracks[0].sensor.regs[1] == 0xF0 == tab.tracks[1].sensor.regs[1]
    tab.tracks[0].sensor.regs[0x12] = 0x0F
    assert bus.readfrom_mem(0x29, 0x92, 1) == bytes([0x44 & 0x0F])


def test_ads1115_reads_the_lift_current():
    p = profile()
    p["pins"]["lift_current"] = None
    p["current_adc"] = {"kind": "ads1115", "addr": 0x48, "channel": 0}
    tab = Table(p, [SET, SET], seed=1, sim={"watchdog_jumper": True})  # no controller toggles it
    bus = tab.bus
    bus.writeto_mem(0x48, 0x01, bytes([0xC3, 0xE3]))
    assert bus.readfrom_mem(0x48, 0x01, 2) == bytes([0xC3, 0xE3])
    raw = bus.readfrom_mem(0x48, 0x00, 2)
    v = (raw[0] << 8 | raw[1]) << 1
    assert v < 5000  # idle
    tab.lines["lift_dir"].drive(1)
    tab.lines["lift_pwm"].drive(65535)
    raw = bus.readfrom_mem(0x48, 0x00, 2)
    assert 15000 < ((raw[0] << 8 | raw[1]) << 1) < 30000


def test_writevto():
    tab = bare_table()
    tab.bus.writeto(0x70, b"\x08")
    assert tab.bus.writevto(0x29, [bytes([0x81]), bytes([0xAB])]) == 2
    assert tab.tracks[3].sensor.regs[1] == 0xAB
