import os

from firmware.ports import StdioPort, open_port
from firmware.profile import load


def test_stdio_port_over_a_pipe():
    r, w = os.pipe()
    rf = os.fdopen(r, "rb", buffering=0)
    out = []

    class Out:
        def write(self, b):
            out.append(bytes(b))
            return len(b)

    p = StdioPort(stdin=rf, stdout=Out())
    assert p.any() == 0
    buf = bytearray(8)
    assert p.readinto(buf) is None
    os.write(w, b"\x7e\x03\x00abc")
    assert p.any() == 1
    n = p.readinto(buf)
    assert n == 6 and bytes(buf[:6]) == b"\x7e\x03\x00abc"
    os.write(w, b"0123456789")
    assert p.readinto(buf) == 8 and p.readinto(buf) == 2
    assert p.write(b"xy") == 2 and out == [b"xy"]
    os.close(w)
    rf.close()


def test_open_port_uart_and_serial_refused():
    made = []

    class M:
        class Pin:
            def __init__(self, n):
                self.n = n

        def UART(self, id, **kw):
            made.append((id, kw["baudrate"], kw["tx"].n, kw["rx"].n))
            return "uart"

    p = load(None)
    p["port"] = {"kind": "uart", "id": 1, "baud": 115200, "tx": 44, "rx": 45}
    assert open_port(M(), p) == ("uart", False)
    assert made == [(1, 115200, 44, 45)]
    p["port"] = {"kind": "serial", "path": "/dev/x", "baud": 9600}
    import pytest

    with pytest.raises(ValueError):
        open_port(M(), p)
