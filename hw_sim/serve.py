# CPython only
#
# `jantaku sim serve`: the simulated table behind a pseudo-terminal that the
# real host daemon opens like a real table's serial port (docs/SIMULATOR.md
# "Serving a pseudo-terminal").
#
#   serve(profile, sets, seed=1, speed=10.0, faults=("unplug",))
#
# prints "PORT <path>" as its first line (flushed) and serves until killed (or
# until `stop` is set / max_s of wall time passed).  <path> is a stable symlink
# (default /tmp/jantaku-sim-<pid>/ttyJANTAKU) to the current pty: a simulated
# unplug removes it and stops moving bytes (the host sees its port vanish);
# the replug makes a new pty and points the symlink at it again.
#
# --speed X: the mechanics clock is virtual and runs X times the wall (every
# mechanism, debounce and motion timeout scales; reports stay in nominal
# seconds); the firmware's link clock is the wall (acks, retransmits,
# heartbeats).  With firmware_runtime="micropython" the firmware and the
# simulator run in a `micropython` subprocess (hw_sim/stdio_main.py) and this
# process only moves bytes and paces.
import errno
import json
import os
import select
import sys
import time
import tty

POLL_S = 0.002  # the firmware's link runs at least this often (wall)
# a server runs for days: the exit report details the last KEEP_BUILDS builds (and
# counts the ones before them), so memory does not grow with every build
KEEP_BUILDS = 64
STATE_EVERY_S = 0.05  # --state: the file is rewritten this often (wall)


class _Pty:
    def __init__(self):
        self.master, self.slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.name = os.ttyname(self.slave)
        self.dropped = 0

    def close(self):
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass

    def read(self):
        try:
            return os.read(self.master, 4096)
        except BlockingIOError:
            return b""
        except OSError as e:
            if e.errno == errno.EIO:
                return b""
            raise

    def write(self, data):
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.master, view)
            except BlockingIOError:
                # nobody reads: the bytes are lost, as a USB CDC FIFO would lose them
                self.dropped += len(view)
                return
            view = view[n:]


def _point(link, target):
    """Point the symlink `link` at `target` atomically."""
    tmp = "%s.%d.tmp" % (link, os.getpid())
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    os.symlink(target, tmp)
    os.replace(tmp, link)


def _unlink(link):
    try:
        os.unlink(link)
    except FileNotFoundError:
        pass


def default_link_path():
    return "/tmp/jantaku-sim-%d/ttyJANTAKU" % os.getpid()


class Server:
    """The pty server; serve() runs one until stopped.  Split out so tests can
    drive it step by step."""

    def __init__(self, profile, sets, *, seed=0, speed=1.0, faults=(), table_stacks=None,
                 firmware_runtime="cpython", port_link_path=None, mixed_deck=False, sim=None,
                 micropython=None, heapsize="4m", boot_nonces="random", players="auto",
                 firmware_profile=None):
        if speed <= 0:
            raise ValueError("speed must be > 0, got %r" % (speed,))
        if firmware_runtime not in ("cpython", "micropython"):
            raise ValueError("firmware_runtime must be cpython or micropython, got %r" % (firmware_runtime,))
        self.speed = float(speed)
        self.runtime = firmware_runtime
        if firmware_runtime == "cpython":
            from firmware.compat import RealClock
            from hw_sim.inprocess import InProcessTable

            self.table = InProcessTable(profile, sets, seed=seed, faults=faults, mixed_deck=mixed_deck,
                                        sim=sim, table_stacks=table_stacks, link_clock=RealClock(),
                                        keep_builds=KEEP_BUILDS, boot_nonces=boot_nonces,
                                        players=players, firmware_profile=firmware_profile)
        else:
            from hw_sim.stdio_client import MicroPythonTable

            self.table = MicroPythonTable(profile, sets, seed=seed, faults=faults, mixed_deck=mixed_deck,
                                          sim=sim, table_stacks=table_stacks, link_clock="wall",
                                          keep_builds=KEEP_BUILDS, players=players,
                                          micropython=micropython, heapsize=heapsize, boot_nonces=boot_nonces)
        self.link = port_link_path or default_link_path()
        d = os.path.dirname(self.link)
        if d:
            os.makedirs(d, exist_ok=True)
        self._made_dir = d if d.startswith("/tmp/jantaku-sim-") else None
        self.pty = None
        self.plug_events = []  # (virtual s, "unplug" | "replug")
        self.bytes_in = 0
        self.bytes_out = 0
        self._w0 = time.monotonic()
        self._v0 = self._now_us()
        self._open_pty()
        from hw_sim.control import Control

        self.control = Control(self.link, self.table)  # a person's hands (hw_sim/control.py)

    def _now_us(self):
        return self.table.now_us()

    def _plugged(self):
        t = self.table
        return t.wire.plugged if hasattr(t, "wire") else t.plugged

    def _open_pty(self):
        self.pty = _Pty()
        _point(self.link, self.pty.name)

    def _close_pty(self):
        _unlink(self.link)
        if self.pty is not None:
            self.pty.close()
            self.pty = None

    def virtual_target(self):
        return self._v0 + int((time.monotonic() - self._w0) * self.speed * 1e6)

    def _out(self, data):
        self.bytes_out += len(data)
        if self.pty is not None:
            self.pty.write(data)

    def step(self):
        """One pass: host bytes in, virtual time up to the wall's, bytes out,
        plug state.  Returns the wall seconds until something is due."""
        if self.pty is not None:
            data = self.pty.read()
            if data:
                self.bytes_in += len(data)
                self.table.write(data)
        target = self.virtual_target()
        if target > self._now_us():
            self.table.run_until(target, self._out)
        else:
            # no virtual time to spend: still let the firmware run its (wall-clock) link
            data = self.table.run(0)
            if data:
                self._out(data)
        self.control.poll()
        plugged = self._plugged()
        if not plugged and self.pty is not None:
            self._close_pty()
            self.plug_events.append((self._now_us() / 1e6, "unplug"))
        elif plugged and self.pty is None:
            self._open_pty()
            self.plug_events.append((self._now_us() / 1e6, "replug"))
        return POLL_S

    def wait(self, timeout):
        if self.pty is not None:
            select.select([self.pty.master], [], [], timeout)
        else:
            time.sleep(timeout)

    def report(self):
        r = self.table.report(False)
        r["speed"] = self.speed
        r["firmware_runtime"] = self.runtime
        r["pty"] = {"link": self.link, "bytes_in": self.bytes_in, "bytes_out": self.bytes_out,
                    "plug_events": list(self.plug_events),
                    "dropped": self.pty.dropped if self.pty is not None else None}
        return r

    def close(self):
        self._close_pty()
        self.control.close()
        if self.runtime == "micropython":
            self.table.close()
        if self._made_dir:
            try:
                os.rmdir(self._made_dir)
            except OSError:
                pass


def write_state(srv, path):
    """The table's physical state (Table.get_status(): motors, tiles, guard,
    safety latencies) and the port's, as JSON at path, replaced atomically so a
    reader never sees half a file."""
    st = srv.table.get_status()
    st["plugged"] = bool(srv._plugged())
    st["plug_events"] = list(srv.plug_events)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(st, f)
    os.replace(tmp, path)


def serve(profile, sets, *, seed=0, speed=1.0, faults=(), table_stacks=None, firmware_runtime="cpython",
          port_link_path=None, out=sys.stdout, mixed_deck=False, stop=None, max_s=None, report_to=None,
          state_path=None, state_every_s=STATE_EVERY_S, players="auto", sim=None, firmware_profile=None):
    """Serve the simulated table on a pty until killed.  stop: an object with
    is_set() (threading.Event) to end it; max_s: wall seconds; report_to: a
    callable given the final report dict; state_path: a file kept up to date
    (every state_every_s wall seconds) with the table's physical state."""
    srv = Server(profile, sets, seed=seed, speed=speed, faults=faults, table_stacks=table_stacks,
                 firmware_runtime=firmware_runtime, port_link_path=port_link_path, mixed_deck=mixed_deck,
                 players=players, sim=sim, firmware_profile=firmware_profile)
    out.write("PORT %s\n" % srv.link)
    out.flush()
    end = time.monotonic() + max_s if max_s else None
    next_state = 0.0
    try:
        while True:
            if stop is not None and stop.is_set():
                break
            now = time.monotonic()
            if end is not None and now >= end:
                break
            wait = srv.step()
            if state_path is not None and now >= next_state:
                write_state(srv, state_path)
                next_state = now + state_every_s
            srv.wait(wait)
    except KeyboardInterrupt:
        pass
    finally:
        try:
            if state_path is not None:
                write_state(srv, state_path)
            if report_to is not None:
                report_to(srv.report())
        finally:
            srv.close()
    return 0
