# Portable seeded PRNG: identical sequences on CPython and MicroPython.
#
# xoshiro128** (Blackman & Vigna) on four 32-bit words, every operation masked
# to 32 bits, so no intermediate exceeds 2**36 and nothing depends on the
# runtime's integer width or float format (MicroPython small ints on a 64-bit
# unix port hold 62 bits: next_u32() allocates nothing there).  The state is
# seeded by splitmix32 from (seed, stream): each stream (mixing, offer times,
# sensor noise, faults, the wire...) is its own generator instance, so draws
# in one stream never shift another (docs/SIMULATOR.md "Streams").

M32 = 0xFFFFFFFF

# Stream ids (documented in docs/SIMULATOR.md).  Per-track streams add the
# track number (1..8) to the base.
MIX = 1
OFFER = 16  # + track
NOISE = 32
BEAM = 48  # + track: entry beam pulse widths
FAULT = 64
WIRE_DOWN = 80  # host -> device bytes
WIRE_UP = 81  # device -> host bytes
BOOT = 96
SENSOR = 112  # + track: colour sensor noise
SENSOR_VARIATION = 128  # + track: a sensor's fixed offset and drift (sim options)

try:
    _BIT_LENGTH = (5).bit_length() == 3  # CPython; not every MicroPython port has it
except AttributeError:
    _BIT_LENGTH = False


def _splitmix32(x):
    """One splitmix32 output for state x (returns (new_state, value))."""
    x = (x + 0x9E3779B9) & M32
    z = x
    z = ((z ^ (z >> 16)) * 0x85EBCA6B) & M32
    z = ((z ^ (z >> 13)) * 0xC2B2AE35) & M32
    z = z ^ (z >> 16)
    return x, z


class Rng:
    """One seeded stream.  Rng(seed, stream): seed any non-negative int (its low
    64 bits count), stream a small int naming the stream."""

    def __init__(self, seed=0, stream=0):
        if seed < 0:
            raise ValueError("seed must be >= 0")
        lo = seed & M32
        hi = (seed >> 32) & M32
        x = (lo ^ ((stream * 0x632BE5AB) & M32)) & M32
        x, a = _splitmix32(x)
        x = (x ^ hi) & M32
        x, b = _splitmix32(x)
        x = (x ^ ((stream * 0x85157AF5) & M32)) & M32
        x, c = _splitmix32(x)
        x, d = _splitmix32(x)
        if (a | b | c | d) == 0:
            a = 1
        self._s0 = a
        self._s1 = b
        self._s2 = c
        self._s3 = d

    def next_u32(self):
        s0 = self._s0
        s1 = self._s1
        s2 = self._s2
        s3 = self._s3
        r = (s1 * 5) & M32
        r = ((((r << 7) & M32) | (r >> 25)) * 9) & M32
        t = (s1 << 9) & M32
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = ((s3 << 11) & M32) | (s3 >> 21)
        self._s0 = s0
        self._s1 = s1
        self._s2 = s2
        self._s3 = s3
        return r

    def below(self, n):
        """Uniform integer in [0, n), n in 1..2**30, unbiased (mask + reject)."""
        if n <= 1:
            return 0
        m = n - 1
        if _BIT_LENGTH and m <= 0xFFFFFFFF:
            m = (1 << m.bit_length()) - 1  # the same mask, in one step (CPython)
        else:
            m |= m >> 1
            m |= m >> 2
            m |= m >> 4
            m |= m >> 8
            m |= m >> 16
            m &= 0xFFFFFFFF  # next_u32() & m: the draw has 32 bits
        # next_u32() inlined (the hottest draw: sensor noise, lift current,
        # offer intervals); the same sequence
        s0 = self._s0
        s1 = self._s1
        s2 = self._s2
        s3 = self._s3
        while True:
            r = (s1 * 5) & 0xFFFFFFFF
            # the 32-bit rotate's mask is left out: m < 2**32 keeps only low bits
            v = (((r << 7) | (r >> 25)) * 9) & m
            t = (s1 << 9) & 0xFFFFFFFF
            s2 ^= s0
            s3 ^= s1
            s1 ^= s2
            s0 ^= s3
            s2 ^= t
            s3 = ((s3 << 11) & 0xFFFFFFFF) | (s3 >> 21)
            if v < n:
                self._s0 = s0
                self._s1 = s1
                self._s2 = s2
                self._s3 = s3
                return v

    def between(self, lo, hi):
        """Uniform integer in [lo, hi] (inclusive)."""
        return lo + self.below(hi - lo + 1)

    def chance(self, p_u32):
        """True with probability p_u32 / 2**32 (an integer threshold)."""
        return self.next_u32() < p_u32

    def shuffle(self, a, lo=0, hi=None):
        """Fisher-Yates shuffle of a[lo:hi] in place."""
        if hi is None:
            hi = len(a)
        i = hi - 1
        while i > lo:
            j = lo + self.below(i - lo + 1)
            v = a[i]
            a[i] = a[j]
            a[j] = v
            i -= 1

    def state(self):
        return (self._s0, self._s1, self._s2, self._s3)


def prob_u32(p):
    """A probability 0..1 as the integer threshold chance() takes."""
    if p <= 0:
        return 0
    if p >= 1:
        return M32 + 1
    return int(p * 4294967296.0)
