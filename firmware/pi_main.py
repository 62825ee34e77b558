# CPython only
#
# Raspberry Pi entry point: the controller under CPython with the gpiozero
# binding (docs/FIRMWARE.md "Raspberry Pi").
#
#     python -m firmware.pi_main [--pty] [profile]      # default: pi-reference
#
# The protocol port is the profile's {"kind": "serial", "path": ..., "baud": ...}
# (e.g. /dev/ttyGS0, the Pi as a USB serial gadget to a host computer), opened with
# pyserial; or, with --pty, a pseudo-terminal it makes and names on its first line of
# output ("PORT /dev/pts/N"): the daemon on the same Pi opens that (`jantaku run
# --pi`, which starts this as its child: docs/DEPLOY.md "One Raspberry Pi").  Under
# systemd with WatchdogSec= it sends WATCHDOG=1 from its loop.  SIGTERM / Ctrl-C turn
# every motor off before exiting.  Off a Pi, GPIOZERO_PIN_FACTORY=mock runs it on
# gpiozero's mock pins (no I2C bus there: nothing answers on it).
import os
import signal
import sys
import time

from firmware import profile as _profile
from firmware.app import Firmware
from firmware.compat import RealClock, ticks_diff


class SerialPort:
    """pyserial as a protocol port (any / readinto / write)."""

    def __init__(self, ser):
        self._s = ser

    def any(self):
        return self._s.in_waiting

    def readinto(self, buf):
        n = self._s.readinto(buf)
        return n if n else None

    def write(self, buf):
        return self._s.write(buf)


class PtyPort:
    """A pseudo-terminal of its own as the protocol port: the master end here, the
    slave's path for the daemon (kept open here too, so a daemon that reconnects
    finds the line as it left it)."""

    def __init__(self):
        import tty

        self._m, self._s = os.openpty()
        tty.setraw(self._s)
        os.set_blocking(self._m, False)
        self.path = os.ttyname(self._s)

    def any(self):
        import select

        return 1 if select.select([self._m], [], [], 0)[0] else 0

    def readinto(self, buf):
        try:
            data = os.read(self._m, len(buf))
        except (BlockingIOError, OSError):
            return None
        buf[:len(data)] = data
        return len(data) or None

    def write(self, buf):
        try:
            return os.write(self._m, bytes(buf))
        except (BlockingIOError, OSError):
            return 0  # nobody reads: dropped, as a USB port does

    def close(self):
        for fd in (self._m, self._s):
            try:
                os.close(fd)
            except OSError:
                pass


class Watchdog:
    """systemd's watchdog (WatchdogSec=): WATCHDOG=1 every half its period, when this
    process is the one it watches; nothing otherwise."""

    def __init__(self, env=None):
        env = os.environ if env is None else env
        self._sock = env.get("NOTIFY_SOCKET")
        usec = env.get("WATCHDOG_USEC")
        pid = env.get("WATCHDOG_PID")
        self.every_s = int(usec) / 2e6 if usec and (not pid or pid == str(os.getpid())) else None
        self._last = 0.0
        self.pings = 0

    def notify(self, text):
        if not self._sock:
            return
        import socket

        addr = "\0" + self._sock[1:] if self._sock.startswith("@") else self._sock
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
            s.sendto(text.encode(), addr)

    def tick(self):
        if self.every_s is None or not self._sock:
            return
        now = time.monotonic()
        if now - self._last >= self.every_s:
            self._last = now
            self.notify("WATCHDOG=1")
            self.pings += 1


def open_serial(cfg):
    import serial

    if cfg["baud"] == 1200:
        raise ValueError("never 1200 baud")
    return SerialPort(serial.Serial(cfg["path"], cfg["baud"], timeout=0, exclusive=True))


class CannotStart(Exception):
    """The firmware cannot start on this computer (no GPIO pin library, a port it cannot
    open): said in one line, exit status 1."""


def _pin_factory():
    from gpiozero import Device, GPIOZeroError

    try:
        Device.ensure_pin_factory()  # lgpio on a Pi 5, GPIOZERO_PIN_FACTORY=mock in tests
    except GPIOZeroError as e:
        raise CannotStart("no GPIO pin library gpiozero can use (%s): on a Pi, sudo apt-get "
                          "install python3-lgpio (docs/DEPLOY.md \"One Raspberry Pi\"); off a "
                          "Pi, GPIOZERO_PIN_FACTORY=mock" % e) from None
    return Device.pin_factory


def run(src="pi-reference", *, pin_factory=None, port=None, i2c=None, max_steps=None, pty=False,
        out=None, watchdog=None):
    from firmware.bindings.gpiozero_hal import GpiozeroHal, NoI2C

    prof = _profile.load(src)
    if pin_factory is None:
        pin_factory = _pin_factory()
    if type(pin_factory).__name__ == "MockFactory":  # off a Pi (GPIOZERO_PIN_FACTORY=mock)
        from gpiozero.pins.mock import MockPWMPin

        pin_factory.pin_class = MockPWMPin  # the motors' PWM needs PWM-capable mock pins
        if i2c is None:
            i2c = NoI2C()  # no bus: the sensors read absent
    else:
        # real pins: never without the safety chain (docs/SAFETY.md), naming the key
        _profile.require_safety(prof)
    hal = GpiozeroHal(pin_factory, prof, i2c=i2c)  # refuses a profile a Pi cannot wire
    said = None
    try:
        hal.claim_all()  # every pin made now, all off: a pin it cannot drive names itself
        if port is None and pty:
            port = PtyPort()
            said = port.path
        elif port is None:
            if prof["port"]["kind"] != "serial":
                raise _profile.ProfileError("port.kind", "a Raspberry Pi needs a serial port",
                                            '{"kind": "serial", "path": ..., "baud": ...}')
            try:
                port = open_serial(prof["port"])
            except OSError as e:  # (pyserial's SerialException is one)
                raise CannotStart("cannot open the protocol port %s: %s"
                                  % (prof["port"]["path"], e)) from None
        clock = RealClock()
        fw = Firmware(prof, hal, clock=clock, link_clock=clock, port=port)
    except BaseException:
        hal.close()
        if said is not None:
            port.close()
        raise
    if said is not None:  # the port is named once the firmware runs: a daemon may connect
        out = out or sys.stdout
        out.write("PORT %s\n" % said)
        out.flush()
    dog = watchdog if watchdog is not None else Watchdog()
    dog.notify("READY=1")
    stop = []

    def _term(signum, frame):
        stop.append(signum)

    old = signal.signal(signal.SIGTERM, _term)
    steps = 0
    try:
        while not stop and not fw.exit_requested:
            fw.step()
            dog.tick()
            steps += 1
            if max_steps is not None and steps >= max_steps:
                break
            due = fw.next_due_us()
            if due is not None and ticks_diff(due, clock.ticks_us()) > 1000 and not port.any():
                time.sleep(0.0005)
    finally:
        fw.shutdown()
        signal.signal(signal.SIGTERM, old)
    return fw


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    pty = "--pty" in argv
    argv = [a for a in argv if a != "--pty"]
    try:
        run(argv[0] if argv else "pi-reference", pty=pty)
    except KeyboardInterrupt:
        pass
    except _profile.ProfileError as e:
        print("jantaku: bad board profile: %s" % e, file=sys.stderr)
        return 2
    except CannotStart as e:
        print("jantaku: the table's firmware cannot start: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
