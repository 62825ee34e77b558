"""hostd/bringup/wiring.py: each profile's wiring as a table and a diagram, docs/WIRING.md
kept to the profiles, and `jantaku wiring` as a person uses it."""
import subprocess
import xml.etree.ElementTree as ET

import pytest

from firmware import hal
from firmware import profile as fprofile
from hostd.bringup import wiring
from tests.conftest import ROOT, tool

BOARDS = sorted(p.stem for p in (ROOT / "firmware" / "boards").glob("*.json"))


def test_docs_wiring_is_the_profiles_own():
    """docs/WIRING.md's generated sections and docs/wiring/*.svg are what the shipped
    profiles make now (else: python -m hostd.bringup.wiring --write)."""
    text = wiring.DOC.read_text(encoding="utf-8")
    assert wiring.render_doc(text) == text, "docs/WIRING.md drifted: run python -m hostd.bringup.wiring --write"
    for pid in wiring.SHIPPED:
        got = (wiring.SVG_DIR / (pid + ".svg")).read_text(encoding="utf-8")
        assert got == wiring.svg(fprofile.load(pid)), "docs/wiring/%s.svg drifted" % pid


def test_docs_safety_holds_each_profiles_power_stage():
    """docs/SAFETY.md's power stages are what the shipped profiles make now, and `jantaku
    wiring --power` prints a profile's: the lift's fuse above its stall current, a wire for
    that fuse, the relays rated for their rails, earthing and the RCD."""
    text = wiring.SAFETY_DOC.read_text(encoding="utf-8")
    assert wiring.render_safety_doc(text) == text, "docs/SAFETY.md drifted: run python -m hostd.bringup.wiring --write"
    r = subprocess.run([tool("jantaku"), "wiring", "--power", "--board", "pi-reference"],
                       capture_output=True, text=True, timeout=60, cwd=str(ROOT))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "| lift motor | running 2.5 A, stall 5.24 A (thresholds.lift_stall_a) | 7.5 A slow-blow | 1 mm²" in out
    assert "K2, the motion rail (lift, door), at least 6.2 A DC" in out
    assert "30 mA residual-current device" in out and "protective earth" in out
    # a bigger stall current: a bigger fuse, a thicker wire
    p = fprofile.load("pi-reference")
    p["thresholds"]["lift_stall_a"] = 10.0
    lift = [r for r in wiring.power_rows(p) if r[0] == "lift motor"][0]
    assert lift[2] == 15 and lift[3] == "1.5 mm² (AWG 14)"


@pytest.mark.parametrize("board", BOARDS)
def test_every_wired_signal_has_its_row_and_its_line(board):
    prof = fprofile.load(board)
    rows = wiring.rows(prof)
    wired = [n for n in hal.profile_signals(prof) if prof["pins"].get(n) is not None]
    assert [r[0] for r in rows] == wired
    root = ET.fromstring(wiring.svg(prof))
    paths = [e for e in root.iter() if e.tag.endswith("path")]
    assert len(paths) == len(wired)
    text = wiring.markdown(prof)
    for name in wired:
        assert "| `%s` |" % name in text


def test_labels_say_where_a_signal_goes_and_how():
    pico = {r[0]: r for r in wiring.rows(fprofile.load("pico-18"))}
    assert pico["gate1"][1] == "GP0 (pin 1)" and pico["lift_current"][1] == "GP26 (pin 31)"
    assert pico["door_closed"][1] == "MCP23017 #0 B0" and pico["stacker4"][1] == "MCP23017 #0 A6"
    pi = {r[0]: r for r in wiring.rows(fprofile.load("pi-reference"))}
    assert pi["mixer_pwm"][1] == "GPIO12 (pin 32)"
    raw = fprofile.load("reference-18")
    raw = dict(raw, pins=dict(raw["pins"]), pin_options=None)
    raw["pins"]["lift_top"] = {"pin": 21, "invert": True}  # normally closed
    rows = {r[0]: r for r in wiring.rows(fprofile.validate(raw))}
    assert rows["lift_top"][2] == "input, pull-up; pressed = high"
    assert rows["lift_bottom"][2] == "input, pull-up; pressed = low"


def test_jantaku_wiring_prints_the_table_and_writes_the_diagram(tmp_path):
    out = tmp_path / "pico.svg"
    r = subprocess.run([tool("jantaku"), "wiring", "--board", "pico-18", "--svg", str(out)],
                       capture_output=True, text=True, timeout=60, cwd=str(ROOT))
    assert r.returncode == 0, r.stderr
    assert "| `door_closed` | MCP23017 #0 B0 |" in r.stdout and str(out) in r.stdout
    assert ET.parse(str(out)).getroot().tag.endswith("svg")
    r = subprocess.run([tool("jantaku"), "wiring", "--board", str(tmp_path / "none.json")],
                       capture_output=True, text=True, timeout=60, cwd=str(ROOT))
    assert r.returncode == 1 and "cannot read" in r.stderr and not r.stdout
