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


def test_the_watchdog_is_pinged_only_where_systemd_watches_it(tmp_path):
    """WatchdogSec= under systemd: WATCHDOG=1 every half period to NOTIFY_SOCKET, and
    nothing where this process is not the one watched (WATCHDOG_PID) or none is set."""
    import os
    import socket
    import time

    path = str(tmp_path / "notify")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    srv.bind(path)
    srv.setblocking(False)
    try:
        dog = pi_main.Watchdog({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000",
                                "WATCHDOG_PID": str(os.getpid())})
        assert dog.every_s == 0.1
        dog.notify("READY=1")
        dog.tick()
        dog.tick()  # too soon: one ping
        time.sleep(0.12)
        dog.tick()
        got = []
        while True:
            try:
                got.append(srv.recv(64))
            except BlockingIOError:
                break
        assert got == [b"READY=1", b"WATCHDOG=1", b"WATCHDOG=1"] and dog.pings == 2
        other = pi_main.Watchdog({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000", "WATCHDOG_PID": "1"})
        assert other.every_s is None
        other.tick()
        assert pi_main.Watchdog({}).every_s is None
        pi_main.Watchdog({}).notify("READY=1")  # no socket: nothing, no error
    finally:
        srv.close()


def test_pty_port_carries_bytes_both_ways():
    import os

    p = pi_main.PtyPort()
    try:
        fd = os.open(p.path, os.O_RDWR | os.O_NOCTTY)
        os.write(fd, b"\x7e\x03\x00")
        import time

        time.sleep(0.05)
        assert p.any() == 1
        buf = bytearray(8)
        assert p.readinto(buf) == 3 and bytes(buf[:3]) == b"\x7e\x03\x00"
        assert p.readinto(buf) is None
        assert p.write(b"ok") == 2 and os.read(fd, 8) == b"ok"
        os.close(fd)
    finally:
        p.close()


def _pi(tmp_path, **pins):
    import json

    from tests.conftest import ROOT

    raw = json.loads((ROOT / "firmware" / "boards" / "pi-reference.json").read_text())
    raw["pins"].update(pins)
    if any(isinstance(v, dict) and "expander" in v for v in pins.values()):
        raw["expanders"] = [{"kind": "mcp23017", "addr": 32}]
    path = tmp_path / "pi.json"
    path.write_text(json.dumps(raw))
    return str(path)


def test_a_pin_the_pi_cannot_drive_is_named_before_the_port_is(factory, capsys, monkeypatch,
                                                               tmp_path):
    """GPIO 40 (the header has 0..27): refused naming the signal, exit 2, no PORT line (a
    daemon never connects to a firmware that is about to fail), every pin let go."""
    from gpiozero import Device

    monkeypatch.setattr(Device, "pin_factory", factory)
    assert pi_main.main(["--pty", _pi(tmp_path, status_light=40)]) == 2
    out = capsys.readouterr()
    assert "PORT" not in out.out
    assert "pins.status_light: GPIO 40" in out.err and "MCP23017" in out.err
    assert factory.pin(12).state == 0  # what it had claimed is off


def test_an_expander_pin_on_the_pi_starts_and_a_missing_i2c_bus_says_how_to_enable_it(
        factory, monkeypatch, tmp_path):
    from firmware.bindings import gpiozero_hal

    path = _pi(tmp_path, door_closed={"expander": 0, "pin": 8, "pull": "up"})
    fw = pi_main.run(path, pin_factory=factory, port=FakePort(), i2c=FakeI2C(4), max_steps=20)
    assert fw.steps == 20 and fw.hal.expanders and fw.hal.input("door_closed") is not None
    factory.reset()

    class NoBus:
        def __init__(self, bus):
            raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setitem(__import__("sys").modules, "smbus2",
                        type("smbus2", (), {"SMBus": NoBus, "i2c_msg": None}))
    from firmware import profile as fprofile

    hal = gpiozero_hal.GpiozeroHal(factory, fprofile.load(path))  # on a Pi: smbus2's bus
    with pytest.raises(gpiozero_hal.ProfileError, match="I2C bus 1 cannot be opened .*raspi-config "
                                                        "nonint do_i2c 0"):
        hal.claim_all()


def test_no_pin_library_is_one_line_and_exit_1(monkeypatch, capsys):
    from gpiozero import BadPinFactory, Device

    def none():
        raise BadPinFactory("Unable to load any default pin factory!")

    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setattr(Device, "ensure_pin_factory", staticmethod(none))
    assert pi_main.main(["pi-reference"]) == 1
    err = capsys.readouterr().err
    assert "no GPIO pin library" in err and "python3-lgpio" in err
