"""udev/jantaku.service: systemd accepts it (systemd-analyze verify) and it has what the
daemon needs: notify + watchdog, restart, a state directory for the journal, the serial
port through the jantaku group and DeviceAllow, and hardening that does not hide it; and
udev/jantaku-pi.service, the one-Raspberry-Pi variant (`jantaku run --pi`)."""
import os
import pathlib
import re
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
UNIT = ROOT / "udev" / "jantaku.service"
ANALYZE = shutil.which("systemd-analyze")
EXEC = "/opt/jantaku/.venv/bin/jantaku"

# Complaints expected on a build machine, and only these: the installed binary and the
# service user don't exist here.
EXPECTED = [
    re.compile(r"^jantaku(-pi)?\.service: Command %s is not executable: No such file or directory$"
               % re.escape(EXEC)),
    re.compile(r"^jantaku(-pi)?\.service: .*(user|group) .*(jantaku|gpio|i2c).*(not found|No such|does not exist)",
               re.I),
]


PI_UNIT = ROOT / "udev" / "jantaku-pi.service"


def verify(unit_text, tmp_path, name="jantaku.service"):
    d = tmp_path / "unit"
    d.mkdir()
    f = d / name
    f.write_text(unit_text)
    r = subprocess.run([ANALYZE, "verify", "--man=no", str(f)], capture_output=True, text=True,
                       timeout=120, cwd=str(d), env=dict(os.environ, SYSTEMD_LOG_COLOR="0"))
    lines = [l.strip() for l in (r.stdout + r.stderr).splitlines() if l.strip()]
    return [l for l in lines if not any(p.search(l) for p in EXPECTED)], r.returncode


needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze not installed")


@needs_analyze
def test_systemd_analyze_verify(tmp_path):
    bad, rc = verify(UNIT.read_text(), tmp_path)
    assert bad == [], "systemd-analyze verify complains:\n" + "\n".join(bad)


@needs_analyze
def test_harness_catches_mistakes(tmp_path):
    broken = UNIT.read_text().replace("WatchdogSec=20s", "WatchdogSec=soon\nFrobnicate=yes")
    bad, rc = verify(broken, tmp_path)
    assert any("WatchdogSec" in l or "sec value" in l for l in bad), bad
    assert any("Frobnicate" in l for l in bad), bad


def settings(unit=UNIT):
    section, out = None, {}
    for line in unit.read_text().splitlines():
        s = line.strip()
        if not s or s.startswith(("#", ";")):
            continue
        if s.startswith("["):
            section = s.strip("[]")
            continue
        k, _, v = s.partition("=")
        out.setdefault((section, k.strip()), []).append(v.strip())
    return out


def one(key, section="Service"):
    vals = settings().get((section, key))
    assert vals, "%s= missing in [%s]" % (key, section)
    return vals[-1]


def test_notify_watchdog_restart():
    assert one("Type") == "notify"
    assert re.fullmatch(r"\d+s?", one("WatchdogSec"))
    assert one("Restart") == "on-failure"


def test_exec_start_and_journal_in_state_directory():
    assert one("ExecStart") == ("%s run --port /dev/jantaku --db /var/lib/jantaku/journal.sqlite"
                                % EXEC)
    assert one("StateDirectory") == "jantaku"


def test_user_group_and_device():
    assert one("User") == "jantaku"
    assert "jantaku" in one("SupplementaryGroups").split()
    assert one("DevicePolicy") == "closed"
    assert "/dev/jantaku rw" in settings()[("Service", "DeviceAllow")]
    assert settings().get(("Service", "PrivateDevices"), ["no"])[-1] in ("no", "false")


def test_hardening():
    for key, val in [("ProtectSystem", "strict"), ("ProtectHome", "yes"),
                     ("NoNewPrivileges", "yes"), ("PrivateTmp", "yes")]:
        assert one(key) == val, key
    fams = one("RestrictAddressFamilies").split()
    assert set(fams) == {"AF_UNIX", "AF_INET", "AF_INET6"}
    assert one("CapabilityBoundingSet") == ""
    assert one("WantedBy", "Install") == "multi-user.target"


@needs_analyze
def test_the_one_pi_unit_is_accepted(tmp_path):
    bad, rc = verify(PI_UNIT.read_text(), tmp_path, "jantaku-pi.service")
    assert bad == [], "systemd-analyze verify complains:\n" + "\n".join(bad)


def test_the_one_pi_unit_runs_the_firmware_with_its_devices():
    s = settings(PI_UNIT)
    assert s[("Service", "ExecStart")][-1] == "%s run --pi pi-reference --db /var/lib/jantaku/journal.sqlite" % EXEC
    assert s[("Service", "Type")][-1] == "notify" and s[("Service", "Restart")][-1] == "always"
    assert {"jantaku", "gpio", "i2c"} <= set(s[("Service", "SupplementaryGroups")][-1].split())
    assert s[("Service", "DevicePolicy")][-1] == "closed"
    allow = s[("Service", "DeviceAllow")]
    assert {"char-gpiochip rw", "char-i2c rw", "/dev/ptmx rw", "char-pts rw"} <= set(allow)
    assert "JANTAKU_CONFIG_DIR=/var/lib/jantaku" in s[("Service", "Environment")]
