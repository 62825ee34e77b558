# The back-colour sensor every family reads its tiles with: a TCS34725 register model
# (docs/SIMULATOR.md "Tracks"), behind the bus's mux (hw_sim/i2c.py).  The mechanism it
# is mounted on (a reference track, a four-port side) tells it what is under it:
# `sensor_tile` (a tile id, -1 for none), `sensor_from` (the µs from which it is under
# it), `sensor_misread`, `tiles` (backs by id) and `clock`.
#
# Everything a controller can reach from its per-tile path (the sensor's I2C reads)
# allocates nothing.
from firmware.compat import MICROPYTHON
from hw_sim import rng as _rng

# TCS34725 gain by CONTROL.AGAIN
_GAINS = (1, 4, 16, 60)


class ColourSensor:
    """TCS34725 register model (command bit 0x80, type 0x20 = auto-increment).
    Data registers latch when a read starts at CDATAL (0x14)."""

    ID = 0x44

    def __init__(self, track, seed, n, colours, *, tile_per_cycle, ambient_per_cycle,
                 bias_pm=0, drift_pm=0):
        self.track = track
        self.rng = _rng.Rng(seed, _rng.SENSOR + n)
        # per-track variation (sim options sensor_bias_pm, sensor_drift_pm): a
        # fixed offset per channel and a drift per 1000 reads, per mille, drawn
        # once from a stream of their own (the noise stream is not shifted)
        self.bias = [0, 0, 0]
        self.drift = [0, 0, 0]
        if bias_pm or drift_pm:
            vr = _rng.Rng(seed, _rng.SENSOR_VARIATION + n)
            for i in range(3):
                self.bias[i] = vr.below(2 * bias_pm + 1) - bias_pm if bias_pm else 0
                self.drift[i] = vr.below(2 * drift_pm + 1) - drift_pm if drift_pm else 0
        self._varied = bool(bias_pm or drift_pm)
        self.regs = bytearray(32)
        self.regs[0x01] = 0xFF  # ATIME
        self.regs[0x03] = 0xFF  # WTIME
        self.regs[0x12] = self.ID
        self.ptr = 0
        self.auto = False
        self._first = True
        self.colours = colours.ref  # per class (0 = ambient): [r, g, b] per mille
        self.misread = colours.misread
        self.tile_pc = tile_per_cycle
        self.amb_pc = ambient_per_cycle
        self.reads = 0

    # I2C byte protocol -------------------------------------------------
    def w_begin(self):
        self._first = True

    def w_byte(self, b):
        if self._first:
            self._first = False
            if b & 0x80:
                self.ptr = b & 0x1F
                self.auto = (b & 0x60) == 0x20
            return
        p = self.ptr
        if p != 0x12 and p != 0x13 and p < 0x14:
            self.regs[p] = b
        if self.auto:
            self.ptr = (p + 1) & 0x1F

    def r_begin(self):
        if self.ptr == 0x14:
            self._sample()
        elif self.ptr == 0x13:
            self.regs[0x13] = 0x01 if (self.regs[0] & 3) == 3 else 0

    def r_byte(self):
        p = self.ptr
        v = self.regs[p]
        if self.auto:
            self.ptr = (p + 1) & 0x1F
        return v

    def mem_read_into(self, mem, buf, n):
        """w_begin(), w_byte(mem), r_begin(), then n r_byte() into buf: a
        register read as one transaction pair (Bus.readfrom_mem_into)."""
        self._first = True
        self.w_byte(mem)
        p = self.ptr
        if p == 0x14:
            self._sample()
        elif p == 0x13:
            self.regs[0x13] = 0x01 if (self.regs[0] & 3) == 3 else 0
        regs = self.regs
        if not self.auto:
            v = regs[p]
            for i in range(n):
                buf[i] = v
            return
        if not MICROPYTHON and p + n <= 32:
            buf[:n] = regs[p:p + n]
        else:
            for i in range(n):
                buf[i] = regs[(p + i) & 0x1F]
        self.ptr = (p + n) & 0x1F

    # the optics ---------------------------------------------------------
    def _sample(self):
        regs = self.regs
        if (regs[0] & 3) != 3:
            return  # not powered / not integrating: the data registers hold what they held
        self.reads += 1
        cycles = 256 - regs[1]
        gain = _GAINS[regs[0x0F] & 3]
        tr = self.track
        tile = tr.sensor_tile
        now = tr.clock.us
        rng = self.rng
        if tile >= 0 and now >= tr.sensor_from:
            base = self.tile_pc
            if tr.sensor_misread:
                ref = self.misread[tr.tiles.backs[tile]]
            else:
                ref = self.colours[tr.tiles.backs[tile]]
        else:
            base = self.amb_pc
            ref = self.colours[0]
        # one draw, a byte of noise per channel scaled by multiply-shift: the
        # clear count within -4..+4 %, each colour within -12..+12 per mille
        # (a per-read cost: four unbiased draws bought nothing a noise needs)
        if self._varied and base == self.tile_pc:
            rd = self.reads
            bi = self.bias
            dr = self.drift
            r0 = ref[0] + bi[0] + dr[0] * rd // 1000
            g0 = ref[1] + bi[1] + dr[1] * rd // 1000
            b0 = ref[2] + bi[2] + dr[2] * rd // 1000
        else:
            r0 = ref[0]
            g0 = ref[1]
            b0 = ref[2]
        v = rng.next_u32()
        c = base * cycles * gain * (960 + (((v & 0xFF) * 81) >> 8)) // 1000
        cap = 1024 * cycles
        if cap > 65535:
            cap = 65535
        if c > cap:
            c = cap
        r = c * (r0 - 12 + ((((v >> 8) & 0xFF) * 25) >> 8)) // 1000
        g = c * (g0 - 12 + ((((v >> 16) & 0xFF) * 25) >> 8)) // 1000
        b = c * (b0 - 12 + (((v >> 24) * 25) >> 8)) // 1000
        if r < 0:
            r = 0
        if g < 0:
            g = 0
        if b < 0:
            b = 0
        regs[0x14] = c & 0xFF
        regs[0x15] = c >> 8
        regs[0x16] = r & 0xFF
        regs[0x17] = r >> 8
        regs[0x18] = g & 0xFF
        regs[0x19] = g >> 8
        regs[0x1A] = b & 0xFF
        regs[0x1B] = b >> 8
