# The emulated board's test entry point for the tests that drive the pins (tests/mcu):
# the simulated table (hw_sim) and the firmware in this one MicroPython process, as
# under `jantaku sim serve`, but the firmware speaks the protocol on the board's own
# UART (the REPL's port: firmware.ports.StdioPort, with kbd_intr(-1) as on a board),
# so a real daemon on the host opens QEMU's pseudo-terminal as a table's serial port.
#
#   import mcu_table; mcu_table.serve(speed=10)      (from the raw REPL; never returns)
#
# tests/wasm32 runs the same loop on MicroPython's WebAssembly port, with that port's
# wall clock and a nap that really sleeps (its time.sleep_ms spins).
#
# Clocks as `sim serve --speed X`: the mechanics' clock is virtual and paced to X times
# the wall; the link's clock is the wall, here the board's FPGA counter (mcu_board.
# CounterClock), not the port's ticks, which QEMU lets fall behind on a busy host.
# MicroPython only.
import micropython
import time

from firmware.ports import StdioPort
from hw_sim.inprocess import InProcessTable, firmware_factory
from hw_sim.tiles import standard_set
from mcu_board import CounterClock

KEEP_BUILDS = 2  # the table's per-build records kept (the board's heap is small)
NAP_MS = 1  # the loop naps this long (wall) when nothing is due sooner


class _Paced:
    """Unwrapped wall microseconds since start, from CounterClock's wrapping ticks."""

    def __init__(self, clock):
        self._clock = clock
        self._last = clock.ticks_us()
        self.us = 0

    def now(self):
        t = self._clock.ticks_us()
        d = time.ticks_diff(t, self._last)
        if d > 0:
            self.us += d
            self._last = t
        return self.us


def serve(speed=10, seed=7, profile="reference-18", mixed_deck=False, *, wall=None, nap=None):
    """wall: the link's clock (default: the FPGA counter's); nap(ms): sleep (default
    time.sleep_ms)."""
    wall = wall if wall is not None else CounterClock()
    nap = nap if nap is not None else time.sleep_ms
    uart = StdioPort()

    def factory(prof, machine, *, clock, link_clock, port, boot_nonce, wdt=None):
        # the firmware's port is the board's UART, not the simulator's wire (port)
        return firmware_factory(prof, machine, clock=clock, link_clock=wall, port=uart,
                                boot_nonce=boot_nonce, wdt=wdt)

    sets = [standard_set(), standard_set()]
    t = InProcessTable(profile, sets, seed=seed, mixed_deck=mixed_deck, link_clock=wall,
                       firmware_factory=factory, boot_nonces="random", keep_builds=KEEP_BUILDS)
    micropython.kbd_intr(-1)  # 0x03 in a frame is data, as on a board's USB REPL port
    pace = _Paced(wall)
    nap_us = int(NAP_MS * 1000 * speed)  # a nap, in virtual microseconds
    v0 = t.clock.now_us()
    while True:
        target = v0 + int(pace.now() * speed)
        if target > t.clock.now_us():
            t.run_until(target)
        else:
            t.run(0)  # the link's wall-clock timers, whatever the mechanics do
        due = t.fw.next_due_us()  # on the mechanics' (virtual) clock
        if not uart.any() and (due is None or time.ticks_diff(due, t.clock.ticks_us()) > nap_us):
            nap(NAP_MS)
