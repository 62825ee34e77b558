# Board entry point (MicroPython).  `jantaku flash` writes the board's /main.py:
#
#     import firmware.main; firmware.main.main('/firmware/boards/<id>.json')
#
# (unless /jantaku-repl exists: then it deletes it and stays at the REPL).
# Real clock, every output off first, the watchdog fed by the loop,
# micropython.kbd_intr(-1) while the protocol shares the USB REPL port.  The
# EXIT_REPL command turns every motor off, lets its RESULT leave, restores
# Ctrl-C and returns to the REPL; if the watchdog was started (it cannot be
# stopped) it instead creates /jantaku-repl and resets the board, which then
# boots to the REPL.  Hold the start button at power-up to skip the controller
# and stay at the REPL (a safe mode).  The port is never set to 1200 baud
# (profile validation refuses it).
import sys

import machine
import micropython

from firmware import profile as _profile
from firmware.compat import RealClock, sleep_ms, ticks_diff
from firmware.app import Firmware
from firmware.bootfail import BootFailed
from firmware.bindings.machine_hal import MachineHal
from firmware.ports import open_port

IDLE_SLEEP_MS = 1  # nap when nothing is due for longer than this

_kbd_intr = micropython.kbd_intr  # (a module global so a test can watch it)


def _safe_mode(hal):
    pin = hal.input("start_button")
    for e in getattr(hal, "expanders", ()):
        if e.errors:  # an expander that does not answer reads every button pressed
            print("jantaku: the I2C expander at 0x%02x does not answer" % e.addr)
            return False
    return pin is not None and pin.value() == 0


def main(src=None, *, port=None, shares_repl=False):
    """Run the controller until EXIT_REPL.  src: a board id, a path or a dict
    (default reference-18).  port: a protocol port to use instead of the
    profile's (shares_repl: it is the REPL's USB port)."""
    clock = RealClock()
    hal = None
    try:
        prof = _profile.load(src)
        # a real board: never without the safety chain (docs/SAFETY.md); the error names
        # the key and is shown on the port like any boot error
        _profile.require_safety(prof)
        hal = MachineHal(machine, prof)
        hal.all_off()  # before anything else: every motor and solenoid off
        if _safe_mode(hal):
            print("jantaku: start button held at boot: staying at the REPL")
            return None
        if port is None:
            port, shares_repl = open_port(machine, prof)
    except Exception as e:  # the firmware cannot start: say why on the USB port
        _boot_failed(e, None, clock, None, hal)
        return None
    wdt = None
    if prof["watchdog_ms"]:
        wdt = machine.WDT(timeout=prof["watchdog_ms"])
    if shares_repl:
        _kbd_intr(-1)  # 0x03 in a frame is data, not Ctrl-C
    fw = None
    try:
        try:
            fw = Firmware(prof, hal, clock=clock, link_clock=clock, port=port, wdt=wdt)
        except Exception as e:
            if shares_repl:
                _kbd_intr(3)  # Ctrl-C ends the boot error's loop
            _boot_failed(e, port, clock, wdt, hal)
            return None
        fw.endpoint.repl = True  # EXIT_REPL returns here, then to the REPL
        _profile.release()  # validated: the checks' code can go
        while not fw.exit_requested:
            try:
                fw.step()
            except Exception as e:  # a bug must not leave a motor running
                fw.internal_fault(e)
                sys.print_exception(e)
            due = fw.next_due_us()
            if due is not None and ticks_diff(due, clock.ticks_us()) > IDLE_SLEEP_MS * 1000 and not port.any():
                sleep_ms(IDLE_SLEEP_MS)
        # let the RESULT of EXIT_REPL leave before the REPL takes the port
        for _ in range(20):
            fw.step()
            sleep_ms(5)
    finally:
        if fw is not None:
            fw.shutdown()
        else:
            hal.all_off()
        if shares_repl:
            _kbd_intr(3)  # Ctrl-C works again at the REPL
        if wdt is not None:
            # machine.WDT cannot be stopped: reboot into the REPL instead of
            # returning to one the watchdog would reset mid-command
            _repl_next_boot()
            machine.reset()
    return fw


class _Stdout:
    """The USB REPL port before the profile's port is open."""

    def write(self, b):
        return sys.stdout.write(b.decode())


def _boot_failed(e, port, clock, wdt, hal):
    """Every output off, the traceback once, then the boot error's line on the port every
    2 s (firmware/bootfail.py) until Ctrl-C (mpremote, `jantaku flash`) stops it."""
    if hal is not None:
        try:
            hal.all_off()
        except Exception:
            pass
    sys.print_exception(e)
    bf = BootFailed(e, port if port is not None else _Stdout(), clock)
    try:
        while True:
            bf.step()
            if wdt is not None:
                wdt.feed()
            sleep_ms(50)
    except KeyboardInterrupt:
        pass


REPL_FLAG = "/jantaku-repl"  # the board's /main.py stays at the REPL once when this exists


def _repl_next_boot():
    try:
        with open(REPL_FLAG, "w") as f:
            f.write("exit_repl\n")
    except OSError:
        pass


if __name__ == "__main__":
    main()
