# The emulated board's side of tests/mcu: MicroPython's QEMU port on the MPS2-AN385
# (a Cortex-M3), given what a real board has and that port has not.  Compiled into
# the test image beside the files `jantaku flash` stages (tests/mcu/image.py); never
# copied to a real board.
#
#   CounterClock     the wall, from the board's free-running FPGA counter
#   FlashFs          the staged files, and only those, as a board's flash filesystem at /
#   StandIn          a `machine` with Pin, PWM, ADC, I2C and WDT for the firmware alone
#   as_flashed()     the staged /main.py run as a board boots it, in a heap of a given size
#
# MicroPython only (uctypes, vfs, the port's memory map).
import gc
import io
import sys

import uctypes
import vfs
from micropython import const

# ---------------------------------------------------------------------------- the clock
# The port's own ticks count SysTick interrupts, which QEMU drops when the host is busy
# (sleep_ms(5000) took 15 s on a loaded machine: the host saw "table went silent").  The
# FPGA block's COUNTER register (0x40028018) follows QEMU's virtual clock, which keeps
# the host's wall time: 32 bits at 25 MHz.  Its top 22 bits are read as one uctypes
# bit field (a 32-bit load, a small int: no allocation); one step is 1024/25 us =
# 40.96 us and they wrap every 171.8 s, so the clock must be read more often than that
# (a firmware loop reads it every step).
COUNTER = const(0x40028018)
_FIELDS = {"c": 0 | uctypes.BFUINT32 | 10 << uctypes.BF_POS | 22 << uctypes.BF_LEN}
_M22 = const(0x3FFFFF)
_TMASK = const(0x3FFFFFFF)  # ticks wrap at 2**30, as time.ticks_* on a 32-bit board


def _wrap_add(t, d):
    """(t + d) mod 2**30 for t in 0.._TMASK, d in 0.._TMASK, in small ints only."""
    room = _TMASK - t
    if d <= room:
        return t + d
    return d - room - 1


class CounterClock:
    """ticks_ms() and ticks_us() of the wall (wrapping at 2**30, compare with
    time.ticks_diff), extended from the counter's 22-bit steps in small ints: nothing
    allocates.  reg: an object whose .c is the counter's top 22 bits (tests)."""

    def __init__(self, reg=None):
        self._reg = reg if reg is not None else uctypes.struct(COUNTER, _FIELDS)
        self._last = self._reg.c
        self._us = 0
        self._ms = 0
        self._frac = 0  # hundredths of a microsecond not yet counted
        self._sub = 0  # microseconds not yet counted into _ms

    def _update(self):
        c = self._reg.c
        d = (c - self._last) & _M22
        self._last = c
        # d steps of 40.96 us = d * 40 us + d * 96 / 100 us (d * 96 < 2**29)
        f = self._frac + d * 96
        q = f // 100
        self._frac = f - q * 100
        us = d * 40 + q
        self._us = _wrap_add(self._us, us)
        s = self._sub + us
        ms = s // 1000
        self._sub = s - ms * 1000
        self._ms = _wrap_add(self._ms, ms)

    def ticks_us(self):
        self._update()
        return self._us

    def ticks_ms(self):
        self._update()
        return self._ms


# ------------------------------------------------------------------ the board's flash
class _Stream(io.IOBase):
    """A file of the image read as a stream: no buffer protocol, so an imported .mpy is
    loaded into the heap as from a board's littlefs (a ROMFS file would run in place)."""

    def __init__(self, f):
        self._f = f

    def readinto(self, buf):
        return self._f.readinto(buf)

    def read(self, n=-1):
        return self._f.read(n)

    def readline(self):
        return self._f.readline()

    def ioctl(self, req, arg):
        if req == 4:  # MP_STREAM_CLOSE
            self._f.close()
            return 0
        if req == 11:  # MP_STREAM_GET_BUFFER_SIZE: the import reader's buffer
            return 249
        return -1

    def close(self):
        self._f.close()

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self._f.close()


class FlashFs:
    """The board's filesystem after `jantaku flash`: exactly the staged files (the image's
    /jantaku-staged.txt lists them), read-only, each read as a stream.  Writing fails as
    on a full or read-only flash (OSError): the firmware's REPL flag is best effort."""

    def __init__(self, rom, staged):
        self._rom = rom
        self._files = staged  # set of '/path'
        dirs = {"/"}
        for p in staged:
            i = p.rfind("/")
            while i > 0:
                dirs.add(p[:i])
                i = p.rfind("/", 0, i)
        self._dirs = dirs
        self._cwd = "/"

    def _abs(self, path):
        if not path.startswith("/"):
            path = self._cwd.rstrip("/") + "/" + path
        if len(path) > 1:
            path = path.rstrip("/")
        return path

    def mount(self, readonly, mkfs):
        pass

    def umount(self):
        pass

    def chdir(self, path):
        p = self._abs(path)
        if p not in self._dirs:
            raise OSError(2)
        self._cwd = p

    def getcwd(self):
        return self._cwd

    def stat(self, path):
        p = self._abs(path)
        if p in self._dirs:
            return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        if p in self._files:
            return self._rom.stat(p)
        raise OSError(2)

    def statvfs(self, path):
        return self._rom.statvfs(path)

    def ilistdir(self, path):
        p = self._abs(path)
        if p not in self._dirs:
            raise OSError(2)
        pre = "/" if p == "/" else p + "/"
        out = []
        for d in self._dirs:
            if d != p and d.startswith(pre) and "/" not in d[len(pre):]:
                out.append((d[len(pre):], 0x4000, 0))
        for f in self._files:
            if f.startswith(pre) and "/" not in f[len(pre):]:
                out.append((f[len(pre):], 0x8000, 0))
        return iter(out)

    def open(self, path, mode):
        p = self._abs(path)
        if "w" in mode or "a" in mode or "+" in mode:
            raise OSError(30)  # EROFS
        if p not in self._files:
            raise OSError(2)
        return _Stream(self._rom.open(p, mode))

    def remove(self, path):
        raise OSError(2 if self._abs(path) not in self._files else 30)

    def mkdir(self, path):
        raise OSError(30)

    def rmdir(self, path):
        raise OSError(30)

    def rename(self, a, b):
        raise OSError(30)


class _RamFile(io.IOBase):
    def __init__(self, fs, key, mode):
        self._fs = fs
        self._key = key
        self._text = "b" not in mode
        self._w = "w" in mode or "a" in mode
        self._data = bytearray(fs.files.get(key, b"")) if ("a" in mode or not self._w) else bytearray()
        self._pos = 0

    def readinto(self, buf):
        n = min(len(buf), len(self._data) - self._pos)
        buf[:n] = self._data[self._pos:self._pos + n]
        self._pos += n
        return n

    def read(self, n=-1):
        end = len(self._data) if n is None or n < 0 else min(len(self._data), self._pos + n)
        b = bytes(self._data[self._pos:end])
        self._pos = end
        return b.decode() if self._text else b

    def write(self, b):
        if not self._w:
            raise OSError(9)  # EBADF
        if isinstance(b, str):
            b = b.encode()
        self._data += b
        return len(b)

    def ioctl(self, req, arg):
        if req == 4:
            self.close()
            return 0
        return -1

    def close(self):
        if self._w:
            self._fs.files[self._key] = bytes(self._data)
            self._w = False

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()


class RamFs:
    """A small writable filesystem in the heap, flat, for the tests/mpy scripts that
    write a file (test_firmware_main's REPL flag); mounted at /tmp."""

    def __init__(self):
        self.files = {}

    def mount(self, readonly, mkfs):
        pass

    def umount(self):
        pass

    def chdir(self, path):
        pass

    def getcwd(self):
        return ""

    def open(self, path, mode):
        k = path.strip("/")
        if "w" not in mode and "a" not in mode and k not in self.files:
            raise OSError(2)
        return _RamFile(self, k, mode)

    def remove(self, path):
        k = path.strip("/")
        if k not in self.files:
            raise OSError(2)
        del self.files[k]

    def stat(self, path):
        k = path.strip("/")
        if not k:
            return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        if k not in self.files:
            raise OSError(2)
        return (0x8000, 0, 0, 0, 0, 0, len(self.files[k]), 0, 0, 0)

    def ilistdir(self, path):
        return iter([(k, 0x8000, 0) for k in self.files])

    def statvfs(self, path):
        return (512, 512, 64, 64, 64, 0, 0, 0, 0, 255)


def staged_files(rom_mount="/rom"):
    with open(rom_mount + "/jantaku-staged.txt") as f:
        return set(line.strip() for line in f if line.strip())


# -------------------------------------------------------------- the firmware's machine
class _PinConsts:
    """machine.Pin's constants: the firmware reads them from the class and from a pin."""
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8


class _Pin(_PinConsts):
    def __init__(self, m, n, mode=-1, pull=-1, value=None, **kw):
        self._m = m
        self.n = n
        self.level = m.levels.get(n, 0)
        if value is not None:
            self.level = 1 if value else 0
        self.handler = None

    def init(self, mode=-1, pull=-1, value=None, **kw):
        if value is not None:
            self.level = 1 if value else 0

    def value(self, v=None):
        if v is None:
            return self.level
        self.level = 1 if v else 0
        return None

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self.level = 1

    def off(self):
        self.level = 0

    def irq(self, handler=None, trigger=12, hard=False, **kw):
        self.handler = handler


class _PinClass(_PinConsts):
    def __init__(self, m):
        self._m = m

    def __call__(self, n, mode=-1, pull=-1, value=None, **kw):
        p = _Pin(self._m, n, mode, pull, value)
        self._m.pins.append(p)
        return p


class _PWM:
    def __init__(self, pin, freq=None, duty_u16=None, **kw):
        self.pin = pin
        self._freq = freq or 0
        self._duty = duty_u16 or 0

    def freq(self, f=None):
        if f is None:
            return self._freq
        self._freq = f
        return None

    def duty_u16(self, v=None):
        if v is None:
            return self._duty
        self._duty = v
        return None

    def deinit(self):
        self._duty = 0


class _ADC:
    def __init__(self, pin, **kw):
        self.pin = pin

    def read_u16(self):
        return 0  # the lift at rest: no current


class _I2C:
    """A bus with no sensor on it (their cable unplugged): every transaction NACKs, but
    for the GPIO expanders (MCP23017 at 0x20..0x27) a profile puts slow signals on, which
    read the table at rest (the levels of pins 256 + 16 x expander + pin)."""

    def __init__(self, m=None):
        self._m = m

    def _nack(self):
        raise OSError(19)  # ENODEV, as MicroPython's I2C on a NACK

    def writeto(self, addr, buf, stop=True):
        self._nack()

    def writeto_mem(self, addr, memaddr, buf, addrsize=8):
        if not 0x20 <= addr <= 0x27 or self._m is None:
            self._nack()

    def readfrom_mem_into(self, addr, memaddr, buf, addrsize=8):
        if not 0x20 <= addr <= 0x27 or self._m is None:
            self._nack()
        base = 256 + 16 * (addr - 0x20)
        lv = self._m.levels
        for i in range(len(buf)):
            v = 0
            for b in range(8):
                if lv.get(base + 8 * i + b, 1):
                    v |= 1 << b
            buf[i] = v

    def scan(self):
        return []


class _WDT:
    """machine.WDT; every m.sample_every feeds (the firmware feeds it once per step; 0:
    never) it measures the heap after a collection (free and allocated): the firmware's
    objects, running."""

    def __init__(self, m, id=0, timeout=5000):
        self._m = m
        self.timeout = timeout
        self.feeds = 0
        m.wdt = self

    def feed(self):
        self.feeds += 1
        k = self._m.sample_every
        if k and self.feeds % k == 0:
            gc.collect()
            free = gc.mem_free()
            alloc = gc.mem_alloc()  # (the wasm32 port's heap grows: only this one counts there)
            m = self._m
            if m.min_free is None or free < m.min_free:
                m.min_free = free
            if m.max_alloc is None or alloc > m.max_alloc:
                m.max_alloc = alloc
            m.samples += 1


class StandIn:
    """A `machine` module for the firmware alone: inputs hold the levels the test gives
    (the table at rest, from the simulator), outputs only remember theirs, the colour
    sensors' bus answers nothing.  Pin objects live on the heap here (a RP2040's are
    static), so the firmware's heap figures come out a little high."""

    def __init__(self, levels, sample_every=0):
        self.levels = levels  # {pin number: level}
        self.sample_every = sample_every
        self.pins = []
        self.wdt = None
        self.resets = 0
        self.min_free = None
        self.max_alloc = None
        self.samples = 0
        self.Pin = _PinClass(self)

    def PWM(self, pin, freq=None, duty_u16=None, **kw):
        return _PWM(pin, freq, duty_u16)

    def ADC(self, pin, **kw):
        return _ADC(pin)

    def I2C(self, *a, **kw):
        return _I2C(self)

    def WDT(self, id=0, timeout=5000):
        return _WDT(self, id, timeout)

    def reset(self):
        self.resets += 1  # the firmware asks to reboot into the REPL: the test stays

    def reset_cause(self):
        return 1

    def unique_id(self):
        return b"\xe6\x60qemu"

    def freq(self, f=None):
        return 25000000

    def idle(self):
        pass


# ---------------------------------------------------------------------- as flashed
ballast = None  # what makes the heap the size asked for: kept for the whole run


def _rom():
    for fs, where in vfs.mount():
        if where == "/rom":
            return fs
    raise OSError("no ROMFS at /rom: load the image at 0x21000000")


def as_flashed(levels, heap=None, sample_every=0):
    """Boot the firmware as a board does after `jantaku flash`: the staged files (and
    only those) as the filesystem at /, the stand-in machine, then the staged /main.py.
    heap: make the free heap exactly that many bytes first (a RP2040's); sample_every:
    measure the heap every that many steps (a collection each time).  Returns a dict
    of figures, printed as one MCU-RESULT line by the caller."""
    global ballast
    rom = _rom()
    staged = staged_files()
    vfs.umount("/rom")
    vfs.mount(FlashFs(rom, staged), "/")
    import os

    os.chdir("/")
    sys.path[:] = ["", "/lib"]
    m = StandIn(levels, sample_every)
    sys.modules["machine"] = m
    with open("/main.py") as f:
        main_py = f.read()
    code = compile(main_py, "main.py", "exec")
    main_py = None
    gc.collect()
    before = gc.mem_free()
    if heap is not None:
        if before < heap + 64:
            raise MemoryError("this board's heap has %d bytes free, less than the %d asked"
                              % (before, heap))
        # a bytearray of n bytes takes its 16-byte object and n bytes in 16-byte blocks
        ballast = [bytearray(before - heap - 64)]
        gc.collect()
        k = gc.mem_free() - heap
        if k >= 32:
            ballast.append(bytearray(k - 16))
            gc.collect()
    start_free = gc.mem_free()
    exec(code, {"__name__": "__main__"})
    gc.collect()
    return {"start_free": start_free, "min_free_running": m.min_free, "samples": m.samples,
            "after_free": gc.mem_free(), "resets": m.resets,
            "wdt": None if m.wdt is None else m.wdt.timeout,
            "steps": 0 if m.wdt is None else m.wdt.feeds,
            "heap_total": gc.mem_free() + gc.mem_alloc()}
