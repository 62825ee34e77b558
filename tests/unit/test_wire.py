"""hw_sim.wire: the serial line as two byte FIFOs, with seeded noise and unplug."""
from hw_sim.wire import Wire


def test_both_directions():
    w = Wire(seed=1, size=64)
    port = w.device
    assert port.any() == 0 and port.readinto(bytearray(4)) is None
    w.host_write(b"hello")
    assert port.any() == 5
    buf = bytearray(3)
    assert port.readinto(buf) == 3 and buf == b"hel"
    assert port.read() == b"lo"
    assert port.write(memoryview(b"abcdef")[1:4]) == 3
    assert w.host_pending() == 3 and w.host_read() == b"bcd" and w.host_read() == b""
    assert port.readinto(bytearray(8), 0) is None


def test_ring_wraps_and_overflow_drops():
    w = Wire(size=8)
    out = bytearray()
    for i in range(10):
        w.host_write(bytes([i, i + 1, i + 2]))
        buf = bytearray(3)
        w.device.readinto(buf)
        out += buf
    assert out == bytes(b for i in range(10) for b in (i, i + 1, i + 2))
    w.host_write(bytes(20))
    assert w.down.n == 8 and w.down.dropped == 12


def test_noise_is_seeded_and_at_rate():
    def flips(seed, ber):
        w = Wire(seed=seed, size=1 << 16)
        w.set_noise(ber)
        w.host_write(bytes(40000))
        data = w.device.read()
        return sum(bin(b).count("1") for b in data), data

    n, a = flips(3, 1e-3)
    assert 200 < n < 450  # 320 expected
    n2, b = flips(3, 1e-3)
    assert a == b
    n3, c = flips(4, 1e-3)
    assert c != a
    w = Wire(seed=3)
    w.set_noise(0.01)
    w.device.write(bytes(1000))
    assert w.host_read() != bytes(1000) and w.noise_up.flips > 0


def test_unplug_loses_bytes_both_ways():
    w = Wire()
    w.host_write(b"in flight")
    w.unplug(0, 1000)
    assert w.device.any() == 0
    w.host_write(b"lost")
    w.device.write(b"lost too")
    assert w.host_read() == b"" and w.lost_down == 13 and w.lost_up == 8
    assert not w.poll(999) and w.poll(1000) and w.plugged
    w.host_write(b"ok")
    assert w.device.read() == b"ok"
    s = w.get_status()
    assert s["unplugs"] == 1 and s["plugged"]


def test_unplug_until_replug():
    w = Wire()
    w.unplug(0, -1)
    assert not w.poll(10**12)
    w.replug()
    assert w.plugged
