# A board whose firmware cannot start (a profile it refuses, a module missing, a pin its
# `machine` refuses) says why on its port, over and over, as one text line the host
# recognises without the protocol (protocol/SPEC.md "Boot errors"):
#
#     jantaku: boot error: ProfileError: pins.gate2: pin 3 is already used by gate1; ...\r\n
#
# every EVERY_MS, so a host that opens the port later still reads it.  BootFailed stands
# where the firmware would (step(), next_due_us()): the board's main.py loops on it, the
# simulator steps it like a firmware.
from firmware.compat import const, ticks_add, ticks_diff, ticks_us

MARKER = "jantaku: boot error: "
EVERY_MS = const(2000)
MAX_CHARS = const(400)  # the line's length at most (a host keeps no more)


def line(exc):
    """The boot error's line for an exception: its name and message, on one line."""
    text = "%s: %s" % (type(exc).__name__, exc)
    text = " | ".join([p.strip() for p in text.split("\n") if p.strip()])
    if len(text) > MAX_CHARS:
        text = text[: MAX_CHARS - 3] + "..."
    return MARKER + text + "\r\n"


class BootFailed:
    def __init__(self, exc, port, clock):
        self.error = exc
        self.text = line(exc).encode()
        self._port = port
        self._clock = clock
        self._next = None
        self.said = 0
        self.exit_requested = False

    def step(self):
        now = self._clock.ticks_us()
        if self._next is None or ticks_diff(now, self._next) >= 0:
            self._port.write(self.text)
            self.said += 1
            self._next = ticks_add(now, EVERY_MS * 1000)

    def next_due_us(self):
        return self._next if self._next is not None else ticks_us()

    def get_status(self):
        return {"boot_error": self.text.decode().strip(), "said": self.said}
