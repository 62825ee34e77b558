"""The firmware alone, as `jantaku flash` leaves it on a board, on the emulated Cortex-M:
exactly the staged files as the filesystem at / (read into the heap on import, as from
a board's littlefs), the staged /main.py started from the raw REPL, the firmware's
protocol on the UART that was the REPL's (kbd_intr(-1)), and the host's protocol link
(CPython) on the other end: the handshake, STATUS round trips, EXIT_REPL back to the
REPL.  Once inside a heap the size of a RP2040's; once more on each of two boots, whose
boot nonces must differ."""
import json
import re

from protocol import messages as m
from tests.mcu import qemu
from tests.mcu.conftest import boot
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
    host = HostLink(b)
    hello = host.handshake()
    status, med, worst = host.status_round_trips(round_trips)
    res, _ = host.command(m.EXIT_REPL, (m.REPL_MAGIC,))
    out, err = b.finish(30)
    assert not err.strip(), "the board raised:\n%s" % err
    found = re.search(r"MCU-RESULT (\{.*\})", out)
    assert found, "no figures from the board:\n%s" % out[-2000:]
    return {"hello": hello, "status": status, "rtt": (med, worst),
            "board": json.loads(found.group(1)), "exit": res}


def test_mcu_as_flashed_runs_in_a_rp2040_heap(board, mcu):
    r = run_as_flashed(board, heap=RP2040_HEAP, round_trips=30, sample_every=4)
    ident = r["hello"]["identity"]
    about = r["hello"]["about"]
    assert ident[3] == PROFILE and ident[6] == 4 and ident[7] == 18
    assert about[0] == "micropython" and about[1] == mcu["board"]["version"] and about[2] == "blue,green"
    assert r["status"][0] == m.S_IDLE and r["status"][1] == 0  # a table at rest: idle, no fault
    assert r["exit"][2] == m.OK  # and the firmware gave the port back to the REPL
    fig = r["board"]
    assert abs(fig["start_free"] - RP2040_HEAP) <= 32, fig  # the heap was the RP2040's
    assert fig["wdt"] == 4000 and fig["resets"] == 1  # the profile's watchdog: reboot to leave
    assert fig["samples"] >= 3, fig  # the heap was measured while it ran
    print("\nfirmware as flashed in a %d-byte heap: %d bytes free while running (the least of "
          "%d collections in %d steps)" % (RP2040_HEAP, fig["min_free_running"], fig["samples"],
                                          fig["steps"]))
    assert fig["min_free_running"] >= MIN_MARGIN, fig


def test_mcu_boot_nonce_differs_across_resets(mcu):
    """Two boots of a board without a random source (QEMU's port has no os.urandom):
    the firmware's boot nonce must still differ (protocol/link.random_nonce), else a host
    could not tell that the table reset."""
    nonces = []
    for k in range(2):
        with boot(mcu) as b:
            r = run_as_flashed(b, round_trips=20 if k == 0 else 1)
            nonces.append(r["hello"]["identity"][4])
            assert r["exit"][2] == m.OK
            if k == 0:
                print("\nboot to the raw REPL %.2f s; STATUS round trip over the UART: median "
                      "%.1f ms, max %.1f ms (20)" % (b.boot_s, r["rtt"][0], r["rtt"][1]))
    assert nonces[0] != nonces[1] and 0 not in nonces, nonces


def test_mcu_image_holds_exactly_the_staged_files(mcu):
    """The image's board view is what hostd.flash.stage() made, fakes excluded."""
    staged = mcu["info"]["staged"]
    assert "main.py" in staged and "firmware/fakes.mpy" not in staged
    assert "firmware/fakes.mpy" in mcu["info"]["extras"]
    assert not set(staged) & set(mcu["info"]["extras"])
