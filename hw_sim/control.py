# CPython only
#
# The simulated table's control channel (docs/SIMULATOR.md "People"): a Unix socket
# beside the port's link (<link>.ctl) on which a person acts on the simulated table from
# outside, as their hands would on a real one: `jantaku sim push --link PATH`, `jantaku
# sim press start|dice --link PATH`.  One request per connection: a line of JSON
# {"op": "push"}; the answer is a line of JSON ({"ok": true, ...} or {"ok": false,
# "error": "..."}).  {"op": "push", "keep": 1} leaves the newest wall load (the hand
# being played) on the table top; {"op": "press", "button": "start" | "dice"} presses a
# button for PRESS_MS of table time, from now.  The hands that fix what a fault left
# (hw_sim.table.Table.hand): {"op": "clear-jam", "track": N}, {"op": "put-tile"} /
# {"op": "take-tile"} (optional "count", default every one), {"op": "take-stray"}
# (optional "colour", default any; "count", default every one), {"op": "clear-guard"}
# (optional "input": "curtain" | "lid", default both), {"op": "clear-lift"},
# {"op": "fix-switch"}, {"op": "plug"}.  The wiring survey's person (hw_sim.table.Table.look,
# hold): {"op": "look"} says what moved since the last look; {"op": "hold", "signal":
# "lift_top", "ms": 1000, "after_ms": 0} presses a switch (covers a sensor, breaks the
# curtain) as the table is wired.
import json
import os
import socket

from hw_sim.guard import BUTTONS, PRESS_MS
from hw_sim.table import HAND_OPS

OPS = ("push", "press", "look", "hold") + HAND_OPS


def control_path(link):
    return link + ".ctl"


class Control:
    """Non-blocking: `poll()` serves whatever requests are waiting, then returns."""

    def __init__(self, link, table):
        self.path = control_path(link)
        self.table = table
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(self.path)
        self.sock.listen(4)
        self.sock.setblocking(False)

    def fileno(self):
        return self.sock.fileno()

    def poll(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            with conn:
                conn.settimeout(1.0)
                try:
                    reply = self.handle(_read_line(conn))
                except (OSError, ValueError) as e:
                    reply = {"ok": False, "error": str(e)}
                try:
                    conn.sendall(json.dumps(reply).encode() + b"\n")
                except OSError:
                    pass

    def handle(self, line):
        try:
            req = json.loads(line)
        except ValueError:
            return {"ok": False, "error": "not JSON: %r; send {\"op\": \"push\"}" % line[:80]}
        op = req.get("op") if isinstance(req, dict) else None
        if op == "push":
            keep = req.get("keep", 0)
            if not isinstance(keep, int) or isinstance(keep, bool) or keep < 0:
                return {"ok": False, "error": "keep must be a whole number of wall loads, "
                                              "got %r" % (keep,)}
            return {"ok": True, "pushed": self.table.push(keep)}
        if op == "press":
            button = req.get("button")
            if button not in BUTTONS:
                return {"ok": False, "error": "no button %r; accepted: %s" % (button, ", ".join(BUTTONS))}
            self.table.press(button, PRESS_MS)
            return {"ok": True, "pressed": button, "ms": PRESS_MS}
        if op == "look" or op == "hold":
            t = getattr(self.table, "table", None)  # (the in-process table's physics)
            if t is None:
                return {"ok": False, "error": "%s needs the cpython firmware runtime" % op}
            if op == "look":
                return {"ok": True, "moved": t.look()}
            for key in ("ms", "after_ms"):
                v = req.get(key, 1000 if key == "ms" else 0)
                if not isinstance(v, int) or isinstance(v, bool):
                    return {"ok": False, "error": "%s must be a whole number of ms, got %r" % (key, v)}
            try:
                return dict(t.hold(str(req.get("signal")), req.get("ms", 1000),
                                   req.get("after_ms", 0)), ok=True)
            except ValueError as e:
                return {"ok": False, "error": str(e)}
        if op in HAND_OPS:
            return self._hand(op, req)
        return {"ok": False, "error": "unknown op %r; accepted: %s" % (op, ", ".join(OPS))}

    def _hand(self, op, req):
        kw = {}
        for key in ("track", "count"):
            if key in req:
                v = req[key]
                if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                    return {"ok": False, "error": "%s must be a whole number, got %r" % (key, v)}
                kw[key] = v
        if op == "clear-jam" and "track" not in kw:
            return {"ok": False, "error": "clear-jam needs the track: {\"op\": \"clear-jam\", "
                                          "\"track\": N}"}
        if "input" in req:
            kw["which"] = req["input"]
        if "colour" in req:
            if not isinstance(req["colour"], str):
                return {"ok": False, "error": "colour must be a back colour's name, got %r"
                                              % (req["colour"],)}
            kw["colour"] = req["colour"]
        try:
            done = self.table.hand(op, **kw)
        except ValueError as e:
            return {"ok": False, "error": str(e)}
        return dict(done, ok=True, op=op)

    def close(self):
        self.sock.close()
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


def _read_line(conn):
    buf = b""
    while not buf.endswith(b"\n") and len(buf) < 4096:
        chunk = conn.recv(4096)
        if not chunk:
            break
        buf += chunk
    return buf.decode("utf-8", "replace").strip()


def request(link, op, timeout=5.0, **fields):
    """Send one request to a running `sim serve` (the client side of `jantaku sim push`)."""
    path = control_path(link)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        try:
            s.connect(path)
        except (FileNotFoundError, ConnectionRefusedError):
            raise OSError("no simulated table at %s (is `jantaku sim serve --link %s` running?)"
                          % (link, link)) from None
        s.sendall(json.dumps(dict(fields, op=op)).encode() + b"\n")
        return json.loads(_read_line(s) or "{}")
