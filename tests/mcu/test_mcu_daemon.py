"""The real daemon and the firmware on the emulated Cortex-M: `jantaku run --port
/dev/pts/N` opens QEMU's pseudo-terminal, the board's UART, like a table's serial port.
On the board the test entry point (tests/mcu/board/mcu_table.py) runs the simulated
table on the firmware's pins in real time, SPEED times faster (as `jantaku sim serve
--speed`), and the firmware speaks the protocol on that UART, its link on the board's
own wall clock.  `jantaku selftest` then exercises every device through the daemon."""
import json
import time

from tests.e2e.conftest import start_daemon
from tests.mcu.conftest import boot

SPEED = 20  # the mechanics' clock against the wall (the link's timers stay on the wall)


def test_mcu_daemon_selftest(mcu, tmp_path):
    with boot(mcu) as b:
        b.soft_reset()
        b.start("import mcu_table\nmcu_table.serve(speed=%d)\n" % SPEED)
        b.release_uart()  # the daemon owns the port from here
        d = start_daemon(tmp_path, b.pty)
        try:
            d.wait(lambda s: s["table"]["connected"], timeout=30, what="the emulated table to connect")
            st = d.status()
            ident = st["table"]["identity"]
            assert ident["board"] == "reference-18" and ident["runtime"].startswith("micropython"), ident
            t0 = time.monotonic()
            r = d.cli("selftest", "--json", check=False, timeout=120)
            took = time.monotonic() - t0
            assert r.returncode == 0, "selftest on the emulated board:\n%s\n%s\n--- daemon log\n%s" % (
                r.stdout, r.stderr, d.proc.log())
            rep = json.loads(r.stdout)
            results = [(x["device"], x["track"], x["result"]) for x in rep["devices"]]
            # (what nothing senses is pulsed, not confirmed: the pushers and the light)
            assert results and all(res in ("ok", "absent") or (res == "pulsed" and dev in (
                "pusher", "status_light")) for dev, _, res in results), results
            kinds = {dev for dev, _, _ in results}
            assert {"gate", "lift", "door"} <= kinds, kinds
            print("\nselftest over the emulated UART at %dx: %.1f s, %d devices" % (SPEED, took, len(results)))
            st = d.status()
            assert st["table"]["connected"] and st["table"]["state"] == "idle", st["table"]
        finally:
            d.proc.kill()
