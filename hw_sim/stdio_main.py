# The simulated table and the firmware in a `micropython` process, driven over
# stdin/stdout by a CPython parent (hw_sim/stdio_client.py, used by
# `jantaku sim serve --firmware-runtime micropython` and by tests).
#
#   MICROPYPATH=<repo> micropython -X heapsize=4m hw_sim/stdio_main.py
#
# Protocol (docs/SIMULATOR.md "The stdio protocol"), all integers little-endian:
#   request   op (1 byte) | length (u32) | payload
#   response  0xA5 0x5A | status (1 byte: 'K' ok, 'E' error) | length (u32) | payload
#
#   'C' config   JSON {"profile": {...validated dict...}, "sets": [[faces], [faces]],
#                "seed", "faults", "mixed_deck", "table_stacks", "sim", "keep_builds",
#                "link_clock": "virtual" | "wall", "lock_irq",
#                "boot_nonces": "seed" | "random"}                 -> JSON {"boot_nonce", ...}
#   'W' write    bytes for the firmware's port                    -> empty
#   'R' run      u32 max_us                                        -> u64 now_us | flags | bytes
#   'A' advance  u64 target_us (run until then, whatever is written) -> u64 now_us | flags | bytes
#   'N' now                                                        -> u64 now_us | flags
#   'P' report   1 byte: 1 = full                                  -> JSON
#   'S' status                                                     -> JSON
#   'X' action   JSON {"op": "break_guard" | "press" | "unplug" | "replug" | "clear_tracks"
#                      | "reset", ...}                             -> JSON
#   'H' heap     -> JSON {"alloc", "free"} (gc.mem_alloc / mem_free after a collect)
#   'Q' quit     -> empty, then the process exits
# flags: bit 0 = the wire is plugged.  Anything the firmware prints to stdout
# would come before a response's magic: the client skips it (and keeps it).
import gc
import json
import struct
import sys

from hw_sim.inprocess import InProcessTable

_in = sys.stdin.buffer
_out = sys.stdout.buffer


def _read(n):
    b = _in.read(n)
    if b is None or len(b) < n:
        # a short read: the parent went away
        raise SystemExit(0)
    return b


def _reply(status, payload=b""):
    _out.write(b"\xa5\x5a" + status + struct.pack("<I", len(payload)))
    if payload:
        _out.write(payload)
    _out.flush()


def _flags(t):
    return 1 if t.wire.plugged else 0


def _make(cfg):
    lc = None
    if cfg.get("link_clock") == "wall":
        from firmware.compat import RealClock

        lc = RealClock()
    return InProcessTable(
        cfg["profile"],
        cfg["sets"],
        seed=cfg.get("seed", 0),
        faults=cfg.get("faults", ()),
        mixed_deck=cfg.get("mixed_deck", False),
        sim=cfg.get("sim"),
        table_stacks=cfg.get("table_stacks"),
        keep_builds=cfg.get("keep_builds"),
        lock_irq=cfg.get("lock_irq", False),
        link_clock=lc,
        boot_nonces=cfg.get("boot_nonces", "seed"),
        players=cfg.get("players", "auto"),
    )


def _action(t, a):
    op = a.get("op")
    now = t.clock.now_us()
    if op == "break_guard":
        t.table.panel.break_guard(now + int(a.get("at_ms", 0) * 1000), a.get("ms", 200), a.get("input", "curtain"))
    elif op == "press":
        t.table.panel.press(a.get("button", "start"), now + int(a.get("at_ms", 0) * 1000), a.get("ms", 100))
    elif op == "unplug":
        t.wire.unplug(now, int(a.get("ms", -1) * 1000) if a.get("ms", -1) >= 0 else -1)
    elif op == "replug":
        t.wire.replug()
    elif op == "push":
        return {"tiles": t.push(a.get("keep", 0))}
    elif op == "hand":
        return t.table.hand(a.get("hand"), track=a.get("track", 0), count=a.get("count", 0),
                            which=a.get("which"), colour=a.get("colour"))
    elif op == "clear_tracks":
        return {"tiles": len(t.table.clear_tracks())}
    elif op == "reset":
        t.reset()
    else:
        raise ValueError("unknown action %r" % (op,))
    return {"ok": True}


def main():
    t = None
    while True:
        op = _read(1)
        n = struct.unpack("<I", _read(4))[0]
        payload = _read(n) if n else b""
        try:
            if op == b"C":
                t = _make(json.loads(payload))
                impl = sys.implementation
                _reply(b"K", json.dumps({"boot_nonce": t.boot_nonce, "implementation": impl.name,
                                         "version": "%d.%d.%d" % (impl.version[0], impl.version[1], impl.version[2])}).encode())
            elif op == b"Q":
                _reply(b"K")
                return
            elif t is None:
                _reply(b"E", b"no table: send C first")
            elif op == b"W":
                t.write(payload)
                _reply(b"K")
            elif op == b"R":
                max_us = struct.unpack("<I", payload)[0]
                data = t.run(max_us / 1000)
                _reply(b"K", struct.pack("<QB", t.clock.now_us(), _flags(t)) + data)
            elif op == b"A":
                target = struct.unpack("<Q", payload)[0]
                chunks = []
                t.run_until(target, chunks.append)
                _reply(b"K", struct.pack("<QB", t.clock.now_us(), _flags(t)) + b"".join(chunks))
            elif op == b"N":
                _reply(b"K", struct.pack("<QB", t.clock.now_us(), _flags(t)))
            elif op == b"P":
                full = bool(payload and payload[0])
                _reply(b"K", json.dumps(t.report(full)).encode())
            elif op == b"S":
                _reply(b"K", json.dumps(t.get_status()).encode())
            elif op == b"X":
                _reply(b"K", json.dumps(_action(t, json.loads(payload))).encode())
            elif op == b"H":
                gc.collect()
                _reply(b"K", json.dumps({"alloc": gc.mem_alloc(), "free": gc.mem_free()}).encode())
            else:
                _reply(b"E", b"unknown op " + op)
        except Exception as e:  # report, keep serving
            msg = "%s: %s" % (type(e).__name__, e)
            _reply(b"E", msg.encode())


if __name__ == "__main__":
    main()
