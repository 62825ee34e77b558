"""A calibration's reading on the page (issue 49), in a real browser at a phone's size: the
two sets mixed in the simulated table's mixer, `jantaku calibrate --sets pink,yellow --yes`
reads them in one pass and cannot know which is which; the paired phone then shows the two
classes, each with its swatch (the mean colour the sensors saw) and its tiles, and one
button each way ("Class 1 is pink" above, "Class 1 is yellow" below it); the right one
names them, the club's profile is written, and the page goes back to a session's start.

`JANTAKU_PAGE_SHOTS=1` also writes docs/page/phone-name-sets.png."""
import json
import os
import time

import pytest

from tests.conftest import ROOT
from tests.e2e import chromium
from tests.e2e.conftest import start_daemon, start_sim

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(chromium.missing() is not None,
                                 reason=chromium.missing() or "")]

PHONE = (390, 844)
SHOTS = ROOT / "docs" / "page" if os.environ.get("JANTAKU_PAGE_SHOTS") == "1" else None
PINK = "pink=0.45,0.25,0.30"
YELLOW = "yellow=0.40,0.42,0.18"
SHOWN = """
    const box = document.getElementById('classes');
    // drawn, and the buttons of the status the pairing brought (not the one before it)
    if (!box || box.hidden || !window.jantakuPage.offered().length) return null;
    return {swatches: Array.from(box.querySelectorAll('.swatch')).map(
              (s) => getComputedStyle(s).backgroundColor),
            lines: Array.from(box.querySelectorAll('.class-item')).map((i) => i.textContent),
            primary: document.querySelector('#primary .label').textContent,
            order: [document.getElementById('classes'), document.getElementById('primary'),
                    document.getElementById('name-other')].map((e) => e.getBoundingClientRect().top),
            other: document.getElementById('cmd-name_sets').textContent,
            offered: window.jantakuPage.offered()};"""


def rgb(hex_colour):
    return "rgb(%d, %d, %d)" % tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))


@pytest.fixture
def read_mixed(tmp_path, hil_port, monkeypatch):
    """A daemon on `sim serve` whose sets (pink, yellow) are both in the mixer, read by a
    calibration that waits for their names; the club's folder the test's own."""
    if hil_port:
        pytest.skip("the sets' true colours are the simulated table's")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    sim, port = start_sim(tmp_path, "--ruleset", "riichi", "--seed", "3", "--mixed-deck",
                          "--set-colour", PINK, "--set-colour", YELLOW)
    d = start_daemon(tmp_path, port)
    b = None
    try:
        d.wait(lambda s: s["table"]["connected"], what="the table to connect")
        r = d.cli("calibrate", "--sets", "pink,yellow", "--yes", "--json", check=False,
                  timeout=300)
        rep = json.loads(r.stdout)
        assert r.returncode == 1 and rep["ok"] and not rep["named"], r.stdout[-2000:]
        b = chromium.start(*PHONE)
        b.viewport(*PHONE, mobile=True)
        b.driver.get(d.url + "/")
        yield d, b, rep
    finally:
        if b is not None:
            b.close()
        d.proc.kill()
        sim.kill()


def test_the_phone_shows_the_readings_swatches_and_names_the_sets(read_mixed, tmp_path):
    from selenium.webdriver.common.by import By

    d, b, rep = read_mixed
    code = json.loads(d.cli("pair", "--new", "--json").stdout)["code"]
    b.driver.find_element(By.ID, "pair-code").send_keys(code.lower())
    b.driver.find_element(By.ID, "pair-button").click()
    b.wait("return window.jantakuPage.paired === true", "paired")
    shown = b.wait("return (function () {" + SHOWN + "})()", "the classes drawn")
    classes = rep["classes"]
    assert shown["swatches"] == [rgb(c["swatch"]) for c in classes]
    assert shown["lines"] == ["class %d: %d tiles" % (c["class"], c["tiles"]) for c in classes]
    assert shown["primary"] == "Class 1 is pink" and shown["other"] == "Class 1 is yellow"
    assert shown["order"] == sorted(shown["order"])  # the swatches, then a button each way
    assert shown["offered"] == ["abort", "name_sets"]  # (the start waits for the names)
    assert "Say which set each back colour is" in b.text("#headline")
    if SHOTS is not None:
        time.sleep(0.3)
        b.screenshot(str(SHOTS / "phone-name-sets.png"), full=False)
    pink_first = abs(classes[0]["mean"][1] - 0.25) < 0.05
    b.js("arguments[0].scrollIntoView({block: 'center'})",
         b.driver.find_element(By.CSS_SELECTOR, "#primary" if pink_first else "#cmd-name_sets"))
    b.driver.find_element(By.CSS_SELECTOR, "#primary" if pink_first else "#cmd-name_sets").click()
    b.wait("const s = window.jantakuPage.status; return s && s.next.code === 'start_session' "
           "&& document.getElementById('classes').hidden && document.getElementById("
           "'name-other').hidden", "the sets named")
    # (the status may come on the event stream before the command's own answer)
    b.wait("const a = window.jantakuPage.lastAnswer; return a && a.cmd === 'name_sets'",
           "the answer to naming the sets")
    assert b.js("return window.jantakuPage.lastAnswer.status") == 200
    prof = json.load(open(tmp_path / "cfg" / "jantaku" / "boards" / "reference-18.json"))
    assert abs(prof["calibration"]["refs"]["pink"][1] - 0.25) < 0.05
    assert abs(prof["calibration"]["refs"]["yellow"][1] - 0.42) < 0.05
    assert [e for e in b.console_errors()] == []
