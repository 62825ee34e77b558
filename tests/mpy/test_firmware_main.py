# Runs under the MicroPython unix port (tests/unit/test_micropython.py):
# firmware/main.py, the board entry point, with a stand-in `machine` module
# (the unix port's has no Pin) and a port that carries a real host Link, in
# real time: boot with everything off, kbd_intr(-1) while the protocol shares
# the REPL port, the watchdog fed, EXIT_REPL -> motors off, Ctrl-C restored.
import sys


def check(name, cond):
    if not cond:
        print("FAIL", name)
        sys.exit(1)
    print("OK", name)


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, level):
        self.level = level
        self.handler = None

    def value(self, v=None):
        if v is None:
            return self.level
        self.level = 1 if v else 0

    def irq(self, handler=None, trigger=12):
        self.handler = handler


class PWM:
    def __init__(self, pin):
        self.duty = 12345  # garbage at power-up: the app must zero it

    def freq(self, f):
        pass

    def duty_u16(self, v):
        self.duty = v


class NoI2C:
    """A bus where nothing answers (no colour sensors: every tile would be unknown)."""

    def writeto(self, *a):
        raise OSError(19)

    writeto_mem = writeto
    readfrom_mem_into = writeto


class ADC:
    def __init__(self, pin):
        pass

    def read_u16(self):
        return 900


class FakeMachine:
    def __init__(self, start_pressed=False):
        self.pins = {}
        self.pwms = []
        self.wdt = None
        self.resets = 0
        m = self
        rest = {22: 0, 25: 0, 27: 1, 28: 1, 29: 0 if start_pressed else 1}  # bottom, door closed, guard, start

        class MPin(Pin):
            def __init__(self, n, mode=-1, pull=-1, value=None):
                Pin.__init__(self, rest.get(n, 1) if mode == 0 else 0)
                if value is not None:
                    self.level = value
                m.pins[n] = self

        class MPWM(PWM):
            def __init__(self, pin):
                PWM.__init__(self, pin)
                m.pwms.append(self)

        class WDT:
            def __init__(self, timeout=0):
                self.timeout = timeout
                self.feeds = 0
                m.wdt = self

            def feed(self):
                self.feeds += 1

        self.Pin = MPin
        self.PWM = MPWM
        self.WDT = WDT
        self.ADC = ADC
        self.I2C = lambda bus, scl=None, sda=None, freq=0: NoI2C()

    def reset(self):
        self.resets += 1


# safe mode first: the start button held at power-up keeps the REPL
machine = FakeMachine(start_pressed=True)
sys.modules["machine"] = machine

from firmware import main as fmain  # noqa: E402
from firmware.compat import RealClock  # noqa: E402
from protocol import link as L  # noqa: E402
from protocol import messages as msg  # noqa: E402

kbd = []
fmain._kbd_intr = kbd.append
FLAG = "/tmp/jantaku-repl-test-%d" % id(kbd)
fmain.REPL_FLAG = FLAG


class HostPort:
    """The device's port; behind it a host Link that connects, asks for the
    status, then sends EXIT_REPL."""

    def __init__(self):
        self.pending = bytearray()
        self.got = []
        self.stage = 0
        self.host = L.Link(RealClock(), self._hw, self._msg, role="host")

    def _hw(self, buf, n):
        self.pending.extend(bytes(buf[:n]))

    def _msg(self, mid, values):
        self.got.append((mid, values))

    def any(self):
        self.host.poll()
        if self.host.connected and self.stage == 0:
            self.host.send(msg.STATUS, ())
            self.stage = 1
        elif self.stage == 1 and any(g[0] == msg.STATUS_REPLY for g in self.got):
            self.host.send(msg.EXIT_REPL, (msg.REPL_MAGIC,))
            self.stage = 2
        return len(self.pending)

    def readinto(self, buf):
        n = min(len(buf), len(self.pending))
        if not n:
            return None
        for i in range(n):
            buf[i] = self.pending[i]
        self.pending = self.pending[n:]
        return n

    def write(self, buf):
        self.host.feed(bytes(buf))
        return len(buf)


check("start button held: stays at the REPL", fmain.main(None, port=HostPort(), shares_repl=True) is None and kbd == [])
check("and every PWM is off", all(p.duty == 0 for p in machine.pwms))

machine = None
sys.modules["machine"] = None
import gc  # noqa: E402

gc.collect()  # the heap is 256 KB: let the safe-mode boot's objects go first
machine = FakeMachine()
sys.modules["machine"] = machine
fmain.machine = machine
port = HostPort()
fw = fmain.main(None, port=port, shares_repl=True)
check("main returned its firmware after EXIT_REPL", fw is not None and fw.exit_requested)
check("kbd_intr(-1) while running, restored after", kbd == [-1, 3])
check("identity seen", any(g[0] == msg.IDENTITY for g in port.got))
about = [g[1] for g in port.got if g[0] == msg.ABOUT]
check("about: runtime and colour names", about and about[0][0] == "micropython" and about[0][2] == "blue,green")
res = [g[1] for g in port.got if g[0] == msg.RESULT and g[1][1] == msg.EXIT_REPL]
check("EXIT_REPL answered ok", res and res[0][2] == msg.OK)
check("every PWM at 0", all(p.duty == 0 for p in machine.pwms))
check("every output pin at 0", all(p.level == 0 for n, p in machine.pins.items() if n in (3, 5, 6, 7, 31)))
check("watchdog made from the profile and fed", machine.wdt is not None and machine.wdt.timeout == 4000 and machine.wdt.feeds > 10)
check("with a watchdog: REPL flag written and the board reset", machine.resets == 1 and open(FLAG).read() == "exit_repl\n")
import os  # noqa: E402

os.remove(FLAG)

