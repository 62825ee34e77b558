# The serial line between the host and the controller (docs/SIMULATOR.md
# "Wire"): two byte FIFOs in preallocated rings.
#
# wire.device is the controller's port (docs/ARCHITECTURE.md §6: any(),
# readinto(buf) -> n or None, write(buf) -> n, like machine.UART); the host
# side is wire.host_write(data) / wire.host_read().  Seeded noise flips bits
# at a bit error rate (each direction its own stream); while unplugged, bytes
# written on either side vanish (and what was in flight is lost).  The
# device-side methods allocate nothing: the controller calls them from its
# per-tile path.
from firmware.compat import MICROPYTHON
from hw_sim import rng as _rng


class _Ring:
    def __init__(self, size):
        self.buf = bytearray(size)
        self.size = size
        self.r = 0
        self.n = 0
        self.dropped = 0  # overflow
        self.total = 0

    def put_from(self, src, count, noise):
        """Copy count bytes of src in (noise: a _Noise or None); returns count."""
        buf = self.buf
        size = self.size
        room = size - self.n
        if count > room:
            self.dropped += count - room
            count = room
        w = self.r + self.n
        if w >= size:
            w -= size
        if noise is None and not MICROPYTHON and w + count <= size:
            buf[w:w + count] = src if len(src) == count else src[:count]
        else:
            for i in range(count):
                b = src[i]
                if noise is not None:
                    b = noise.apply(b)
                buf[w] = b
                w += 1
                if w == size:
                    w = 0
        self.n += count
        self.total += count
        return count

    def get_into(self, dst, count):
        if count > self.n:
            count = self.n
        buf = self.buf
        size = self.size
        r = self.r
        if not MICROPYTHON and r + count <= size:
            dst[:count] = buf[r:r + count]
            r += count
            if r == size:
                r = 0
        else:
            for i in range(count):
                dst[i] = buf[r]
                r += 1
                if r == size:
                    r = 0
        n = self.n - count
        self.n = n
        # an emptied ring starts again at 0: the next write needs no wrap
        self.r = r if n else 0
        return count

    def get_all(self):
        out = bytearray(self.n)
        self.get_into(out, self.n)
        return bytes(out)

    def clear(self):
        self.r = 0
        self.n = 0


class _Noise:
    """Bit errors: the gap (in bits) to the next error is uniform in
    1..2/BER-1, so errors come at the given rate on average; integer only."""

    def __init__(self, seed, stream):
        self.rng = _rng.Rng(seed, stream)
        self.mean = 0
        self.gap = 0
        self.flips = 0

    def set(self, ber):
        if ber <= 0:
            self.mean = 0
            return
        self.mean = int(1 / ber + 0.5)
        if self.mean < 1:
            self.mean = 1
        self.gap = self._draw()

    def _draw(self):
        m = self.mean
        if m <= 1:
            return 1
        return 1 + self.rng.below(2 * m - 1)

    def apply(self, b):
        if not self.mean:
            return b
        g = self.gap
        if g > 8:
            self.gap = g - 8
            return b
        while g <= 8:
            b ^= 1 << (g - 1)
            self.flips += 1
            g += self._draw()
        self.gap = g - 8
        return b


class Port:
    """The controller's end of the wire (machine.UART-like)."""

    def __init__(self, wire):
        self._w = wire
        self._down = wire.down  # the ring is never replaced (clear() empties it)

    def any(self):
        return self._down.n

    def readinto(self, buf, nbytes=-1):
        n = self._w.down.n
        if n == 0:
            return None
        m = len(buf)
        if 0 <= nbytes < m:
            m = nbytes
        return self._w.down.get_into(buf, m)

    def read(self, nbytes=-1):
        n = self._w.down.n
        if n == 0:
            return None
        if 0 <= nbytes < n:
            n = nbytes
        out = bytearray(n)
        self._w.down.get_into(out, n)
        return bytes(out)

    def write(self, buf):
        w = self._w
        n = len(buf)
        if not w.plugged:
            w.lost_up += n
            return n
        w.up.put_from(buf, n, w.noise_up if w.noise_up.mean else None)
        return n

    def flush(self):
        pass

    def txdone(self):
        return True

    def init(self, *a, **kw):
        pass

    def deinit(self):
        pass


class Wire:
    def __init__(self, *, seed=0, size=4096):
        self.down = _Ring(size)  # host -> device
        self.up = _Ring(size)  # device -> host
        self.noise_down = _Noise(seed, _rng.WIRE_DOWN)
        self.noise_up = _Noise(seed, _rng.WIRE_UP)
        self.plugged = True
        self.replug_us = -1
        self.unplugs = 0
        self.lost_down = 0
        self.lost_up = 0
        self.ber = 0.0
        self.device = Port(self)

    def set_noise(self, ber):
        self.ber = ber
        self.noise_down.set(ber)
        self.noise_up.set(ber)

    def unplug(self, now_us, dur_us):
        """Unplugged from now for dur_us (dur_us < 0: until replug())."""
        self.plugged = False
        self.unplugs += 1
        self.replug_us = now_us + dur_us if dur_us >= 0 else -1
        self.lost_down += self.down.n
        self.lost_up += self.up.n
        self.down.clear()
        self.up.clear()

    def replug(self):
        self.plugged = True
        self.replug_us = -1

    def poll(self, now_us):
        """Replug when the unplug time is over; True if the plug state changed."""
        if not self.plugged and self.replug_us >= 0 and now_us >= self.replug_us:
            self.replug()
            return True
        return False

    def host_write(self, data):
        n = len(data)
        if not self.plugged:
            self.lost_down += n
            return n
        self.down.put_from(data, n, self.noise_down if self.noise_down.mean else None)
        return n

    def host_read(self):
        if not self.up.n:
            return b""
        return self.up.get_all()

    def host_pending(self):
        return self.up.n

    def get_status(self):
        return {
            "plugged": self.plugged,
            "ber": self.ber,
            "bit_flips": self.noise_down.flips + self.noise_up.flips,
            "bytes_down": self.down.total,
            "bytes_up": self.up.total,
            "lost_down": self.lost_down,
            "lost_up": self.lost_up,
            "overflow": self.down.dropped + self.up.dropped,
            "unplugs": self.unplugs,
        }
