# Back-colour sensing: TCS34725 RGB sensors behind a TCA9548A I2C mux, one bus
# (docs/ARCHITECTURE.md §4 register model), and the integer classifier.
#
# Per read: one mux write (preallocated one-byte buffer per channel) and one
# readfrom_mem_into of 8 bytes into a preallocated buffer; classification is
# integer arithmetic on small ints.  Nothing here allocates after __init__.
from firmware.compat import const

_CMD = const(0x80)
_ENABLE = const(0x00)
_ATIME = const(0x01)
_CDATAL = const(0x14)
_AUTO_INC = const(0x20)
_PON = const(0x01)
_AEN = const(0x02)

SCALE = const(1024)  # fixed-point unit of normalised r, g, b
UNKNOWN = const(0)


def atime_for(integration_ms):
    """ATIME register value for an integration time (2.4 ms steps, 1..256 steps)."""
    steps = int(integration_ms / 2.4 + 0.5)
    if steps < 1:
        steps = 1
    if steps > 256:
        steps = 256
    return 256 - steps


class ColourBus:
    """One I2C bus with a TCA9548A at mux_addr; channel ch carries a TCS34725 at
    sensor_addr.  read(ch) leaves clear, red, green, blue in .c .r .g .b."""

    def __init__(self, i2c, *, mux_addr, sensor_addr, channels, integration_ms=3):
        self._i2c = i2c
        self._mux = mux_addr
        self._addr = sensor_addr
        self._sel = []
        for ch in range(channels):
            self._sel.append(bytearray((1 << ch,)))
        self._none = bytearray(1)  # deselect every channel
        self._buf = bytearray(8)
        self._reg = _CMD | _AUTO_INC | _CDATAL
        self._atime = atime_for(integration_ms)
        self.c = 0
        self.r = 0
        self.g = 0
        self.b = 0
        self.reads = 0
        self.errors = 0
        self.last_failed = False
        self.present = [False] * channels

    def init(self):
        """Power every sensor up; returns how many answered.  Call at start."""
        n = 0
        one = bytearray(1)
        for ch in range(len(self._sel)):
            try:
                self._i2c.writeto(self._mux, self._sel[ch])
                one[0] = self._atime
                self._i2c.writeto_mem(self._addr, _CMD | _ATIME, one)
                one[0] = _PON
                self._i2c.writeto_mem(self._addr, _CMD | _ENABLE, one)
                one[0] = _PON | _AEN
                self._i2c.writeto_mem(self._addr, _CMD | _ENABLE, one)
                self.present[ch] = True
                n += 1
            except OSError:
                self.present[ch] = False
                self.errors += 1
        return n

    def read(self, ch):
        """Read channel ch's sensor; False (and .c = 0) if the bus did not answer."""
        buf = self._buf
        try:
            self._i2c.writeto(self._mux, self._sel[ch])
            self._i2c.readfrom_mem_into(self._addr, self._reg, buf)
        except OSError:
            self.errors += 1
            self.last_failed = True
            self.c = 0
            self.r = 0
            self.g = 0
            self.b = 0
            return False
        self.last_failed = False
        self.reads += 1
        self.c = buf[0] | (buf[1] << 8)
        self.r = buf[2] | (buf[3] << 8)
        self.g = buf[4] | (buf[5] << 8)
        self.b = buf[6] | (buf[7] << 8)
        return True


class Classifier:
    """Nearest calibrated reference of normalised r, g, b, in integer arithmetic.

    refs: list of [r, g, b] (0..1, in the order of the profile's colours): class
    i+1.  A reading farther than max_distance from every reference, or with a
    clear channel under min_clear, is class 0 (unknown): never guessed."""

    def __init__(self, refs, *, max_distance, min_clear):
        self._n = len(refs)
        flat = []
        for ref in refs:
            for v in ref:
                flat.append(int(v * SCALE + 0.5))
        self._refs = flat
        m = int(max_distance * SCALE + 0.5)
        self._max2 = m * m
        self._min_clear = min_clear

    def classify(self, c, r, g, b):
        if c < self._min_clear:
            return UNKNOWN
        s = r + g + b
        if s <= 0:
            return UNKNOWN
        rn = r * SCALE // s
        gn = g * SCALE // s
        bn = b * SCALE // s
        refs = self._refs
        best = UNKNOWN
        bd = self._max2 + 1
        for i in range(self._n):
            j = 3 * i
            dr = rn - refs[j]
            dg = gn - refs[j + 1]
            db = bn - refs[j + 2]
            d2 = dr * dr + dg * dg + db * db
            if d2 < bd:
                bd = d2
                best = i + 1
        return best


def min_ref_distance(refs):
    """Smallest Euclidean distance between two references (for validation)."""
    best = None
    for i in range(len(refs)):
        for j in range(i + 1, len(refs)):
            d = 0.0
            for k in range(3):
                d += (refs[i][k] - refs[j][k]) ** 2
            d = d ** 0.5
            if best is None or d < best:
                best = d
    return best


class Ads1115:
    """One single-ended channel of an ADS1115 on the I2C bus, continuous mode,
    read as read_u16() (0..65535 for 0..4.096 V).  Used where the board has no
    ADC pin (a Raspberry Pi: profile "current_adc").

    Fail-safe: a read the bus does not answer returns 65535 (a stall reading),
    so a lost current sense stops the lift (LIFT_STALL) instead of hiding one."""

    def __init__(self, i2c, *, addr=0x48, channel=0):
        self._i2c = i2c
        self._addr = addr
        self._buf = bytearray(2)
        self.errors = 0
        cfg = ((0x4 + channel) << 12) | (1 << 9) | (7 << 5) | 3  # AINx-GND, +-4.096 V, continuous, 860 SPS
        self._cfg = bytearray((cfg >> 8, cfg & 0xFF))
        self.present = self._configure()

    def _configure(self):
        try:
            self._i2c.writeto_mem(self._addr, 0x01, self._cfg)
            return True
        except OSError:
            self.errors += 1
            return False

    def read_u16(self):
        buf = self._buf
        try:
            if not self.present:
                self.present = self._configure()
            self._i2c.readfrom_mem_into(self._addr, 0x00, buf)
        except OSError:
            self.errors += 1
            return 65535
        v = (buf[0] << 8) | buf[1]
        if v & 0x8000:
            return 0
        return v << 1
