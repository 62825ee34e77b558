"""Byte transports under the host's link (layer: link).

A transport moves bytes and tells time; it knows nothing of frames.

    clock          object with ticks_ms(): the link's clock (wall time on a serial port,
                   the simulator's virtual time in-process)
    time_scale     table seconds per clock second (1.0 except a sped-up simulator)
    await open()   raises TransportLost while the device is absent
    await read(max_ms) -> bytes   b"" when nothing came within max_ms; TransportLost on unplug
    write(data)    raises TransportLost on unplug
    close()
"""
import asyncio
import os
import time

import serial

TICKS_MASK = (1 << 30) - 1


class TransportLost(Exception):
    """The device went away (unplugged, reset into its bootloader, port closed)."""


def open_error(path, exc):
    """Why a port did not open, in words a person can act on."""
    text = str(exc)
    errno_ = getattr(exc, "errno", None)
    if not os.path.exists(path):
        return "no such port (is the table plugged in? `ls -l %s`)" % path
    if errno_ == 13 or "Permission denied" in text:
        return "permission denied (the port's group is jantaku: `sudo usermod -aG jantaku $USER`, " \
               "then log in again)"
    if "lock" in text.lower():
        return "the port is in use by another program (another daemon, a terminal, " \
               "`jantaku flash`?): it is opened exclusively"
    if errno_ == 25 or "Inappropriate ioctl" in text or not os.path.exists(path) or \
            not _is_char_device(path):
        return "not a serial port (not a tty): give the table's port, e.g. /dev/jantaku"
    return text


def _is_char_device(path):
    import stat

    try:
        return stat.S_ISCHR(os.stat(path).st_mode)
    except OSError:
        return False


class WallClock:
    def ticks_ms(self):
        return int(time.monotonic() * 1000) & TICKS_MASK


class SerialTransport:
    """A real serial port (or the simulator's pseudo-terminal) through pyserial.

    Opened exclusively (an advisory lock, as Klipper does), so a second daemon or a
    terminal program can't interleave bytes.  The baud rate is never 1200: some
    MicroPython boards reboot into their bootloader when a port is closed at 1200.
    """

    def __init__(self, path, *, baudrate=115200, time_scale=1.0):
        if baudrate == 1200:
            raise ValueError("baud rate 1200 is refused: it resets some boards into their bootloader")
        self.path = path
        self.baudrate = baudrate
        self.clock = WallClock()
        self.time_scale = float(time_scale)
        self._ser = None
        self._ready = asyncio.Event()

    @property
    def is_open(self):
        return self._ser is not None

    async def open(self):
        try:
            ser = serial.Serial(self.path, self.baudrate, timeout=0, write_timeout=1.0,
                                exclusive=True)
        except (serial.SerialException, OSError) as e:
            raise TransportLost("cannot open %s: %s" % (self.path, open_error(self.path, e))) from e
        ser.reset_input_buffer()  # stale bytes from before we were here are not ours
        self._ser = ser
        asyncio.get_running_loop().add_reader(ser.fileno(), self._ready.set)

    async def read(self, max_ms):
        ser = self._ser
        if ser is None:
            raise TransportLost("%s is not open" % self.path)
        data = self._read_now(ser)
        if data:
            return data
        self._ready.clear()
        try:
            await asyncio.wait_for(self._ready.wait(), max(max_ms, 0) / 1000)
        except asyncio.TimeoutError:
            pass  # (still look: a late loop must not take its own delay for a quiet line, SPEC §3)
        return self._read_now(ser)

    def _read_now(self, ser):
        try:
            n = ser.in_waiting
            return ser.read(n) if n else b""
        except (serial.SerialException, OSError) as e:
            self.close()
            raise TransportLost("%s: %s" % (self.path, e)) from e

    def write(self, data):
        if self._ser is None:
            raise TransportLost("%s is not open" % self.path)
        try:
            self._ser.write(data)
        except (serial.SerialException, OSError) as e:
            self.close()
            raise TransportLost("%s: %s" % (self.path, e)) from e

    def close(self):
        ser, self._ser = self._ser, None
        if ser is None:
            return
        try:
            asyncio.get_running_loop().remove_reader(ser.fileno())
        except (RuntimeError, ValueError, OSError):
            pass
        try:
            ser.close()
        except (serial.SerialException, OSError):
            pass

    def exists(self):
        return os.path.exists(self.path)


class _TableClock:
    def __init__(self, table):
        self._table = table

    def ticks_ms(self):
        return int(self._table.now_ms()) & TICKS_MASK


class InProcessTransport:
    """The simulated table in this process (or in a MicroPython subprocess speaking the
    same verbs), in virtual time: time advances only while the host waits to read, so a
    build takes the simulated seconds it takes whatever the host's speed."""

    def __init__(self, table):
        self.table = table
        self.clock = _TableClock(table)
        self.time_scale = 1.0
        self.is_open = False
        self.virtual = True  # time moves only while the host reads

    async def open(self):
        self.is_open = True

    # Loop turns given to the rest of the daemon before virtual time moves on: a command
    # answered at instant t is followed up at t (a reply resolves a future, whose task
    # wakes and sends the next command: a few turns), not after the next slice.
    SETTLE_TURNS = 6

    async def read(self, max_ms):
        if not self.is_open:
            raise TransportLost("in-process table is closed")
        for _ in range(self.SETTLE_TURNS):
            await asyncio.sleep(0)
        return self.table.run(max(int(max_ms), 1))

    def write(self, data):
        if not self.is_open:
            raise TransportLost("in-process table is closed")
        self.table.write(bytes(data))

    def close(self):
        self.is_open = False

    def exists(self):
        return True
