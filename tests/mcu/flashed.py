"""The firmware alone, as `jantaku flash` leaves it on a board, run on the emulated
Cortex-M with the host's protocol link on its UART (tests/mcu/test_mcu_flashed.py and
bench/mcu_bench.py)."""
import json
import re

from protocol import messages as m
from tests.mcu.hostlink import HostLink

PROFILE = "reference-18"
# Free heap of a Raspberry Pi Pico (RP2040, no wireless) at its REPL after a collection:
# 215,904 bytes (MicroPython v1.20, micropython/micropython#12557; the port gives the GC
# every byte of the 256 KiB main RAM left after .data/.bss).  The firmware must start and
# run in that, its objects and the code it loads from flash included.
RP2040_HEAP = 215904
# Kept free while running, at least (the margin is docs/FIRMWARE.md §8's figure)
MIN_MARGIN = 24 * 1024


def rest_levels(profile_id=PROFILE):
    """{pin: level} of every input of the board profile with the table at rest (lift
    down, door closed, guard safe, beams clear, buttons up), read from the simulator."""
    from firmware import profile as fp
    from hw_sim.lines import IN
    from hw_sim.table import Table
    from hw_sim.tiles import standard_set

    prof = fp.load(profile_id)
    tab = Table(prof, [standard_set(), standard_set()], seed=1)
    out = {}
    for name, pin in prof["pins"].items():
        ln = tab.lines.get(name)
        if pin is not None and ln is not None and ln.kind == IN:
            out[pin] = ln.level
    return out


def run_as_flashed(b, heap=None, round_trips=20, sample_every=0):
    """Start the staged /main.py on board b; handshake, STATUS, EXIT_REPL.  Returns
    {"hello": handshake, "status": STATUS_REPLY values, "rtt": (median, max) ms,
    "board": the board's MCU-RESULT figures, "exit": RESULT of EXIT_REPL}."""
    b.soft_reset()
    b.start("import mcu_board, json\nr = mcu_board.as_flashed(%r, heap=%r, sample_every=%d)\n"
            "print('MCU-RESULT', json.dumps(r))\n" % (rest_levels(), heap, sample_every))
    started = b.mark()
    host = HostLink(b)
    hello = host.handshake()
    status, med, worst = host.status_round_trips(round_trips)
    res, _ = host.command(m.EXIT_REPL, (m.REPL_MAGIC,))
    # the board's figures come once the firmware has left (its last frames before them
    # may hold any byte, the raw REPL's end marker too)
    b.read_until(b"MCU-RESULT ", 30, "print its figures after EXIT_REPL", since=started)
    out, err = b.finish(30)
    out = "MCU-RESULT " + out
    assert not err.strip(), "the board raised:\n%s" % err
    found = re.search(r"MCU-RESULT (\{.*\})", out)
    assert found, "no figures from the board:\n%s" % out[-2000:]
    return {"hello": hello, "status": status, "rtt": (med, worst),
            "board": json.loads(found.group(1)), "exit": res}
