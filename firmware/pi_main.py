# CPython only
#
# Raspberry Pi entry point: the controller under CPython with the gpiozero
# binding (docs/FIRMWARE.md "Raspberry Pi").
#
#     python -m firmware.pi_main [profile]      # default: pi-reference
#
# The protocol port is the profile's {"kind": "serial", "path": ..., "baud": ...}
# (e.g. /dev/ttyGS0, the Pi as a USB serial gadget to the host computer), opened
# with pyserial.  No machine.WDT on a Pi: run it under systemd with WatchdogSec=
# if wanted.  SIGTERM / Ctrl-C turn every motor off before exiting.
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


def open_serial(cfg):
    import serial

    if cfg["baud"] == 1200:
        raise ValueError("never 1200 baud")
    return SerialPort(serial.Serial(cfg["path"], cfg["baud"], timeout=0, exclusive=True))


def run(src="pi-reference", *, pin_factory=None, port=None, i2c=None, max_steps=None):
    from firmware.bindings.gpiozero_hal import GpiozeroHal

    prof = _profile.load(src)
    if pin_factory is None:
        from gpiozero import Device

        pin_factory = Device.ensure_pin_factory()  # lgpio on a Pi 5, GPIOZERO_PIN_FACTORY=mock in tests
    hal = GpiozeroHal(pin_factory, prof, i2c=i2c)  # refuses a profile a Pi cannot wire
    hal.all_off()
    if port is None:
        if prof["port"]["kind"] != "serial":
            raise _profile.ProfileError("port.kind", "a Raspberry Pi needs a serial port", '{"kind": "serial", "path": ..., "baud": ...}')
        port = open_serial(prof["port"])
    clock = RealClock()
    fw = Firmware(prof, hal, clock=clock, link_clock=clock, port=port)
    stop = []

    def _term(signum, frame):
        stop.append(signum)

    old = signal.signal(signal.SIGTERM, _term)
    steps = 0
    try:
        while not stop and not fw.exit_requested:
            fw.step()
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
    argv = sys.argv[1:] if argv is None else argv
    try:
        run(argv[0] if argv else "pi-reference")
    except KeyboardInterrupt:
        pass
    except _profile.ProfileError as e:
        print("jantaku: bad board profile: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
