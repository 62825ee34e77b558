# The table's I2C bus: a TCA9548A mux (channel N-1 = track N) with a TCS34725
# colour sensor behind each channel (hw_sim/track.py ColourSensor), and
# optionally an ADS1115 ADC on the main bus for the lift current (profile
# "current_adc", boards without an ADC pin).
#
# Bus offers the machine.I2C transaction methods.  Devices speak a byte
# protocol: w_begin(), w_byte(b), r_begin(), r_byte().  A read or write to an
# address nobody answers raises OSError(ENODEV) as MicroPython's I2C does on a
# NACK.  With several mux channels selected, every selected sensor answers:
# writes reach all, reads are their wired-AND (open drain).  The transaction
# methods allocate nothing.

ENODEV = 19


class Mux:
    def __init__(self):
        self.ctrl = 0

    def w_begin(self):
        pass

    def w_byte(self, b):
        self.ctrl = b

    def r_begin(self):
        pass

    def r_byte(self):
        return self.ctrl


class Ads1115:
    """Conversion register 0 (big-endian, 15-bit positive for 0..4.096 V) reads
    the lift current sense; config register 1 is stored."""

    def __init__(self, source):
        self.source = source  # object with current_u16()
        self.ptr = 0
        self.config = 0x8583
        self._n = 0
        self._val = 0

    def w_begin(self):
        self._n = 0

    def w_byte(self, b):
        if self._n == 0:
            self.ptr = b & 3
        elif self.ptr == 1:
            if self._n == 1:
                self.config = (b << 8) | (self.config & 0xFF)
            elif self._n == 2:
                self.config = (self.config & 0xFF00) | b
        self._n += 1

    def r_begin(self):
        self._n = 0
        if self.ptr == 0:
            self._val = self.source.current_u16() >> 1
        elif self.ptr == 1:
            self._val = self.config
        else:
            self._val = 0

    def r_byte(self):
        n = self._n
        self._n += 1
        if n == 0:
            return (self._val >> 8) & 0xFF
        if n == 1:
            return self._val & 0xFF
        return 0xFF


class Bus:
    def __init__(self, *, mux_addr, sensor_addr, sensors, ads_addr=None, ads_source=None):
        self.mux_addr = mux_addr
        self.sensor_addr = sensor_addr
        self.mux = Mux()
        self.sensors = sensors  # list, index = mux channel
        self.ads_addr = ads_addr
        self.ads = Ads1115(ads_source) if ads_addr is not None else None
        self.transactions = 0
        self.nacks = 0
        self.enabled = True  # False: the bus is dead (every address NACKs)
        # the per-tile read's fast path (readfrom_mem_into): the channel of a
        # mux control byte selecting exactly one sensor (-1: none or several),
        # when every sensor offers mem_read_into (hw_sim.track.ColourSensor)
        self._one = [-1] * 256
        for ch in range(min(len(sensors), 8)):
            self._one[1 << ch] = ch
        self._fast = (sensor_addr != mux_addr and sensor_addr != ads_addr
                      and all(hasattr(x, "mem_read_into") for x in sensors))

    def _device(self, addr):
        """The single device at addr, or None (sensors handled apart)."""
        if addr == self.mux_addr:
            return self.mux
        if addr == self.ads_addr:
            return self.ads
        return None

    def _selected(self):
        return self.mux.ctrl & ((1 << len(self.sensors)) - 1)

    def _nack(self):
        self.nacks += 1
        raise OSError(ENODEV)

    # byte-level helpers over one device or all selected sensors
    def _w(self, addr, mem, buf, use_mem):
        self.transactions += 1
        if not self.enabled:
            self._nack()
        dev = self._device(addr)
        if dev is not None:
            dev.w_begin()
            if use_mem:
                dev.w_byte(mem)
            for i in range(len(buf)):
                dev.w_byte(buf[i])
            return
        if addr != self.sensor_addr:
            self._nack()
        sel = self._selected()
        if not sel:
            self._nack()
        for ch in range(len(self.sensors)):
            if sel & (1 << ch):
                s = self.sensors[ch]
                s.w_begin()
                if use_mem:
                    s.w_byte(mem)
                for i in range(len(buf)):
                    s.w_byte(buf[i])

    def _r(self, addr, buf, n):
        self.transactions += 1
        if not self.enabled:
            self._nack()
        dev = self._device(addr)
        if dev is not None:
            dev.r_begin()
            for i in range(n):
                buf[i] = dev.r_byte()
            return
        if addr != self.sensor_addr:
            self._nack()
        sel = self._selected()
        if not sel:
            self._nack()
        first = True
        for ch in range(len(self.sensors)):
            if sel & (1 << ch):
                s = self.sensors[ch]
                s.r_begin()
                if first:
                    for i in range(n):
                        buf[i] = s.r_byte()
                    first = False
                else:
                    for i in range(n):
                        buf[i] = buf[i] & s.r_byte()

    # machine.I2C API ------------------------------------------------------
    def writeto(self, addr, buf, stop=True):
        n = len(buf)
        if addr == self.mux_addr and self.enabled:
            # _w inlined for the mux (the per-tile channel select)
            self.transactions += 1
            if n:
                self.mux.ctrl = buf[n - 1]
            return n
        self._w(addr, 0, buf, False)
        return n

    def readfrom_into(self, addr, buf, stop=True):
        self._r(addr, buf, len(buf))

    def readfrom(self, addr, nbytes, stop=True):
        buf = bytearray(nbytes)
        self._r(addr, buf, nbytes)
        return bytes(buf)

    def writeto_mem(self, addr, memaddr, buf, addrsize=8):
        self._w(addr, memaddr, buf, True)

    def readfrom_mem_into(self, addr, memaddr, buf, addrsize=8):
        if addr == self.sensor_addr and self._fast and self.enabled:
            ctrl = self.mux.ctrl
            if ctrl < 256:
                ch = self._one[ctrl]
                if 0 <= ch < len(self.sensors):
                    # one sensor selected: _w + _r inlined (the per-tile read)
                    self.transactions += 2
                    self.sensors[ch].mem_read_into(memaddr, buf, len(buf))
                    return
        self._w(addr, memaddr, b"", True)
        self._r(addr, buf, len(buf))

    def readfrom_mem(self, addr, memaddr, nbytes, addrsize=8):
        buf = bytearray(nbytes)
        self.readfrom_mem_into(addr, memaddr, buf)
        return bytes(buf)

    def writevto(self, addr, vector, stop=True):
        # all buffers as one write transaction
        self.transactions += 1
        dev = self._device(addr)
        if dev is None and addr != self.sensor_addr:
            self._nack()
        targets = []
        if dev is not None:
            targets.append(dev)
        else:
            sel = self._selected()
            for ch in range(len(self.sensors)):
                if sel & (1 << ch):
                    targets.append(self.sensors[ch])
            if not targets:
                self._nack()
        n = 0
        for d in targets:
            d.w_begin()
        for buf in vector:
            for i in range(len(buf)):
                for d in targets:
                    d.w_byte(buf[i])
            n += len(buf)
        return n

    def scan(self):
        out = [self.mux_addr]
        if self._selected():
            out.append(self.sensor_addr)
        if self.ads_addr is not None:
            out.append(self.ads_addr)
        out.sort()
        return out
