# Ports for the protocol endpoint (docs/ARCHITECTURE.md §6): any(),
# readinto(buf) -> n or None, write(buf).  A machine.UART is one already; the
# USB CDC stdio of a MicroPython board is wrapped by StdioPort.
import sys


class StdioPort:
    """The board's USB CDC REPL port as a protocol port (binary).

    Polls stdin with select.poll and reads one byte at a time (the portable
    way: a larger read can block on some ports).  Run with
    micropython.kbd_intr(-1) so 0x03 in a frame is data, not Ctrl-C."""

    def __init__(self, stdin=None, stdout=None):
        import select

        self._in = stdin if stdin is not None else sys.stdin.buffer
        self._out = stdout if stdout is not None else sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(stdin if stdin is not None else sys.stdin, select.POLLIN)
        self._one = bytearray(1)
        self._ipoll = getattr(self._poll, "ipoll", None)

    def _ready(self):
        if self._ipoll is not None:
            for _ in self._ipoll(0):  # ipoll: no list allocated (MicroPython)
                return True
            return False
        return bool(self._poll.poll(0))

    def any(self):
        return 1 if self._ready() else 0

    def readinto(self, buf):
        n = 0
        one = self._one
        size = len(buf)
        while n < size and self._ready():
            k = self._in.readinto(one)
            if not k:
                break
            buf[n] = one[0]
            n += 1
        return n if n else None

    def write(self, buf):
        return self._out.write(buf)


def open_port(machine, profile):
    """(port, shares_repl) for the profile's "port" on a MicroPython board."""
    cfg = profile["port"]
    kind = cfg["kind"]
    if kind == "usb":
        return StdioPort(), True
    if kind == "uart":
        P = machine.Pin
        u = machine.UART(cfg["id"], baudrate=cfg["baud"], tx=P(cfg["tx"]), rx=P(cfg["rx"]),
                         timeout=0, rxbuf=1024, txbuf=1024)
        return u, False
    raise ValueError('port kind "%s" is for CPython (firmware/pi_main.py)' % kind)
