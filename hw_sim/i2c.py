# The table's I2C bus: a TCA9548A mux (channel N-1 = track N) with a TCS34725
# colour sensor behind each channel (hw_sim/colour.py ColourSensor), and
# optionally an ADS1115 ADC on the main bus for the lift current (profile
# "current_adc", boards without an ADC pin) and MCP23017 GPIO expanders for
# slow signals (profile "expanders", boards with few pins).
#
# Bus offers the machine.I2C transaction methods.  Devices speak a byte
# protocol: w_begin(), w_byte(b), r_begin(), r_byte().  A read or write to an
# address nobody answers raises OSError(ENODEV) as MicroPython's I2C does on a
# NACK.  With several mux channels selected, every selected sensor answers:
# writes reach all, reads are their wired-AND (open drain).  The transaction
# methods allocate nothing.

from hw_sim.lines import IN

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


class Mcp23017:
    """An MCP23017 GPIO expander (IOCON.BANK = 0): IODIR, GPPU, GPIO and OLAT, A then B,
    the register pointer advancing with each byte.  Its 16 pins are the table's lines
    the profile puts on it (pins >= 256: hw_sim/table.py wires them): an input bit reads
    its line (the other way round where the profile inverts it), an output bit drives
    its line when OLAT or IODIR change.  A pin the controller configures against the
    table's wiring (an input as an output, a missing pull-up) is a wiring complaint."""

    def __init__(self, table, index):
        self.table = table
        self.index = index
        self.regs = bytearray(0x16)
        self.power_on()
        self.lines = [None] * 16  # line per pin
        self.inv = [0] * 16
        self.ptr = 0
        self._n = 0

    _outs = False  # a transaction wrote the latch or the directions
    _conf = False  # ... the directions or the pull-ups

    def power_on(self):
        """Its reset state: every pin an input, no pull-ups, the latch 0."""
        for i in range(len(self.regs)):
            self.regs[i] = 0
        self.regs[0] = self.regs[1] = 0xFF
        self.ptr = 0

    def attach(self, bit, line, inv):
        self.lines[bit] = line
        self.inv[bit] = inv

    def _iodir(self):
        return self.regs[0] | (self.regs[1] << 8)

    def _drive(self):
        iodir = self._iodir()
        olat = self.regs[0x14] | (self.regs[0x15] << 8)
        for b in range(16):
            ln = self.lines[b]
            if ln is not None and ln.kind != IN and not (iodir >> b) & 1:
                ln.drive(((olat >> b) & 1) ^ self.inv[b])

    def _check(self):
        iodir = self._iodir()
        gppu = self.regs[0x0C] | (self.regs[0x0D] << 8)
        for b in range(16):
            ln = self.lines[b]
            if ln is None:
                continue
            where = "expander %d pin %d (%s)" % (self.index, b, ln.name)
            is_in = (iodir >> b) & 1
            if ln.kind == IN and not is_in:
                self.table.complain("%s: an input on the table, configured as an output" % where)
            elif ln.kind == IN and self.table.wire_pull(ln.name) == 1 and not (gppu >> b) & 1:
                self.table.complain("%s needs its pull-up (GPPU)" % where)

    def w_begin(self):
        self._n = 0

    def w_byte(self, b):
        if self._n == 0:
            self.ptr = b % 0x16
        else:
            reg = self.ptr
            if reg == 0x12 or reg == 0x13:  # a write to GPIO writes the latch
                reg += 2
            self.regs[reg] = b
            self.ptr = (self.ptr + 1) % 0x16
            if reg <= 0x01 or reg >= 0x14:
                self._outs = True
            if reg <= 0x01 or reg == 0x0C or reg == 0x0D:
                self._conf = True
        self._n += 1

    def w_end(self):
        """The transaction's end (its stop condition): what it wrote takes effect."""
        if self._outs:
            self._outs = False
            self._drive()
        if self._conf:
            self._conf = False
            self._check()

    def r_begin(self):
        pass

    def r_byte(self):
        reg = self.ptr
        self.ptr = (self.ptr + 1) % 0x16
        if reg == 0x12 or reg == 0x13:
            v = 0
            base = 0 if reg == 0x12 else 8
            iodir = self._iodir()
            gppu = self.regs[0x0C] | (self.regs[0x0D] << 8)
            for k in range(8):
                b = base + k
                ln = self.lines[b]
                if (iodir >> b) & 1:
                    if ln is not None and ln.kind == IN:
                        lvl = ln.level ^ self.inv[b]
                    else:
                        lvl = (gppu >> b) & 1  # nothing wired: the pull-up, or low
                else:
                    lvl = (self.regs[0x14 + (reg - 0x12)] >> k) & 1
                v |= lvl << k
            return v
        return self.regs[reg]


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
        # when every sensor offers mem_read_into (hw_sim.colour.ColourSensor)
        self._one = [-1] * 256
        for ch in range(min(len(sensors), 8)):
            self._one[1 << ch] = ch
        self._fast = (sensor_addr != mux_addr and sensor_addr != ads_addr
                      and all(hasattr(x, "mem_read_into") for x in sensors))
        self.devices = {}  # addr -> another device on the main bus (the expanders)

    def _device(self, addr):
        """The single device at addr, or None (sensors handled apart)."""
        if addr == self.mux_addr:
            return self.mux
        if addr == self.ads_addr:
            return self.ads
        return self.devices.get(addr)

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
            end = getattr(dev, "w_end", None)
            if end is not None:
                end()
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
        out.extend(self.devices)
        out.sort()
        return out
