"""udev/99-jantaku.rules: udev itself must accept every line, and the file must give the
port to the jantaku group only (0660), with stable names and ModemManager kept off.

udev 254+ has `udevadm verify`; older udev (Debian 12 has 252) is checked by installing
the file into /etc/udev/rules.d under a unique name (root only, removed afterwards) and
running `udevadm test --resolve-names=never` on a tty, which parses every rules file and
reports bad lines.  CI installs udev (.ci/run); skipped only when udevadm is absent.
"""
import os
import pathlib
import re
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
RULES = ROOT / "udev" / "99-jantaku.rules"
UDEVADM = shutil.which("udevadm") or next(
    (p for p in ("/usr/bin/udevadm", "/bin/udevadm", "/sbin/udevadm") if os.path.exists(p)), None)

# Lines about our file that are not complaints.
EXPECTED = [
    re.compile(r"Reading rules file"),
    # --resolve-names=never: group names are not looked up on a build machine
    re.compile(r'Resolving group name is disabled, ignoring GROUP="jantaku"'),
]


def _has_verify():
    r = subprocess.run([UDEVADM, "verify", "--help"], capture_output=True, text=True)
    return r.returncode == 0


def _tty_device():
    for name in ("tty0", "console", "ttyS0", "tty"):
        p = "/sys/class/tty/" + name
        if os.path.exists(p):
            return p
    found = sorted(pathlib.Path("/sys/class/tty").glob("*")) if os.path.isdir("/sys/class/tty") else []
    return str(found[0]) if found else None


def udev_complaints(rules_text):
    """Lines udev reports about rules_text (minus the expected ones) and whether udev
    read the file at all."""
    if _has_verify():
        d = pathlib.Path(os.environ.get("TMPDIR", "/tmp")) / ("jantaku-udev-%d" % os.getpid())
        d.mkdir(exist_ok=True)
        f = d / "99-jantaku.rules"
        try:
            f.write_text(rules_text)
            r = subprocess.run([UDEVADM, "verify", "--resolve-names=never", str(f)],
                               capture_output=True, text=True, timeout=60)
        finally:
            shutil.rmtree(d, ignore_errors=True)
        lines = (r.stdout + r.stderr).splitlines()
        mine = [l for l in lines if str(f) in l or "99-jantaku" in l]
        bad = [l for l in mine if not any(p.search(l) for p in EXPECTED)
               and not re.search(r"\bSuccess\b|: OK$", l)]
        if r.returncode != 0 and not bad:
            bad = lines or ["udevadm verify exited %d" % r.returncode]
        return bad, True
    if os.geteuid() != 0:
        pytest.fail("this udev (%s) has no `udevadm verify`; the rules test then needs root to "
                    "install the file into /etc/udev/rules.d for `udevadm test`" % UDEVADM)
    dev = _tty_device()
    assert dev, "no tty device in /sys/class/tty to run `udevadm test` on"
    target = pathlib.Path("/etc/udev/rules.d") / ("99-jantaku-selftest-%d.rules" % os.getpid())
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        target.write_text(rules_text)
        r = subprocess.run([UDEVADM, "test", "--resolve-names=never", dev],
                           capture_output=True, text=True, timeout=120)
    finally:
        target.unlink()
    lines = (r.stdout + r.stderr).splitlines()
    mine = [l for l in lines if target.name in l]
    read = any("Reading rules file" in l for l in mine)
    bad = [l for l in mine if not any(p.search(l) for p in EXPECTED)]
    bad += [l for l in lines if re.search(r"invalid", l, re.I) and target.name in l and l not in bad]
    return bad, read


needs_udevadm = pytest.mark.skipif(UDEVADM is None, reason="udevadm not installed "
                                   "(apt-get install udev; .ci/run does)")


@needs_udevadm
def test_udev_accepts_every_line():
    bad, read = udev_complaints(RULES.read_text())
    assert read, "udev did not read the rules file: the test checked nothing"
    assert bad == [], "udev complains about udev/99-jantaku.rules:\n" + "\n".join(bad)


@needs_udevadm
def test_harness_catches_bad_lines():
    broken = RULES.read_text() + '\nSUBSYSTEM=="tty", FROBNICATE{x}="1"\nMODE=="0660"\n'
    bad, read = udev_complaints(broken)
    assert read
    assert len(bad) >= 2, "a broken rules file passed the udev check: the harness is blind"


# -- the file's content ---------------------------------------------------------------------

def rules():
    out = []
    for n, line in enumerate(RULES.read_text().splitlines(), 1):
        s = line.strip()
        if s and not s.startswith("#"):
            out.append((n, s))
    return out


def pairs(line):
    return re.findall(r'([A-Z_]+(?:\{[^}]*\})?)\s*(==|!=|\+=|-=|:=|=)\s*"([^"]*)"', line)


def test_every_mode_is_0660_and_never_world_accessible():
    modes = [(n, v) for n, l in rules() for k, op, v in pairs(l) if k == "MODE"]
    assert modes, "no MODE assignment"
    for n, v in modes:
        assert v == "0660", "line %d: MODE=%s (must be 0660)" % (n, v)
        assert int(v, 8) & 0o007 == 0, "line %d: world-accessible" % n


def test_group_is_jantaku_and_no_uaccess():
    groups = [v for _, l in rules() for k, op, v in pairs(l) if k == "GROUP"]
    assert groups == ["jantaku"]
    assert "uaccess" not in RULES.read_text().replace("# ", "")  # a daemon needs a group


def test_guards_and_match():
    text = [l for _, l in rules()]
    assert text[0] == 'ACTION!="add|change", GOTO="jantaku_end"'
    assert 'SUBSYSTEM!="tty", GOTO="jantaku_end"' in text
    assert any('ATTRS{idVendor}=="2e8a"' in l and 'ATTRS{idProduct}=="0005"' in l for l in text)
    labels = {v for _, l in rules() for k, op, v in pairs(l) if k == "LABEL"}
    gotos = {v for _, l in rules() for k, op, v in pairs(l) if k == "GOTO"}
    assert gotos <= labels and labels == {"jantaku_end", "jantaku_board"}
    assert text[-1] == 'LABEL="jantaku_end"'


def test_links_and_modemmanager():
    board = RULES.read_text().split('LABEL="jantaku_board"')[1]
    assert 'SYMLINK+="jantaku"' in board
    assert 'SYMLINK+="jantaku-$env{ID_SERIAL_SHORT}"' in board
    assert 'ENV{ID_SERIAL_SHORT}=="?*"' in board  # no bare "jantaku-" link without a serial
    assert 'ENV{ID_MM_DEVICE_IGNORE}="1"' in board


def test_documented_line_for_other_boards():
    text = RULES.read_text()
    assert re.search(r'^#\s+ATTRS\{idVendor\}=="[0-9a-f]{4}", ATTRS\{idProduct\}=="[0-9a-f]{4}", '
                     r'GOTO="jantaku_board"', text, re.M)
