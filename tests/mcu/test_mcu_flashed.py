"""The firmware alone, as `jantaku flash` leaves it on a board, on the emulated Cortex-M:
exactly the staged files as the filesystem at / (read into the heap on import, as from
a board's littlefs), the staged /main.py started from the raw REPL, the firmware's
protocol on the UART that was the REPL's (kbd_intr(-1)), and the host's protocol link
(CPython) on the other end: the handshake, STATUS round trips, EXIT_REPL back to the
REPL.  Once inside a heap the size of a RP2040's; once more on each of two boots, whose
boot nonces must differ."""
from protocol import messages as m
from tests.mcu.conftest import boot
from tests.mcu.flashed import MIN_MARGIN, PROFILE, RP2040_HEAP, run_as_flashed


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
    """The image's board view is what hostd.bringup.flash.stage() made, fakes excluded."""
    staged = mcu["info"]["staged"]
    assert "main.py" in staged and "firmware/fakes.mpy" not in staged
    assert "firmware/fakes.mpy" in mcu["info"]["extras"]
    assert not set(staged) & set(mcu["info"]["extras"])
