"""The table's page (hostd/web/page/, served at `/`) in a real browser at a phone's size:
Debian's Chromium, driven by Selenium through chromium-driver, against `jantaku run` on the
simulated table (`jantaku sim serve`, its people left to the test: `jantaku sim push`).

One simulated table, one daemon (stopped and started again half-way, on the same journal
and port) and one phone-sized browser for the module; the tests run in order, as an
evening goes. In each state (unpaired, the push window, building, thrown, a jam seen from
the bottom of the page, the daemon gone, after its restart, the table unplugged) they
check what a player sees without scrolling: `#primary`, `#break` and `#fault` inside the
viewport when they should be, and the controls offered exactly those of `can` that the
page offers. Besides: the page is light (gzipped, 304s on a reload), its layout shift
stays under 0.1 while a build fills in, a refused event stream is retried by the page
itself, and nothing leaves the daemon's origin.

`JANTAKU_PAGE_SHOTS=1` also writes the screenshots into docs/page/ (phone-*.png,
desktop-*.png, table-view.png); a normal run writes nothing.
"""
import http.client
import http.server
import json
import os
import subprocess
import threading
import time

import httpx
import pytest

from tests.conftest import ROOT, tool
from tests.e2e import chromium
from tests.e2e.conftest import Daemon, Proc, free_port, start_sim, wait_table_connected

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(chromium.missing() is not None,
                                 reason=chromium.missing() or "")]

SHOTS = ROOT / "docs" / "page" if os.environ.get("JANTAKU_PAGE_SHOTS") == "1" else None
PHONE = (390, 844)
DESKTOP = (1280, 900)
SEATS = ["self", "right", "across", "left"]  # counter-clockwise, seen from the thrower
PAGE_COMMANDS = ["start", "hand_over", "dice", "continue", "clear_fault", "game_new", "end",
                 "abort"]


class Table:
    """The simulated table and the daemon on it; the daemon can be stopped and started
    again on the same journal and API port (a restart the page must come back from)."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.link = str(tmp / "table")
        # build 4 (hand 3's rebuild) loses the table's cable for 10 s of the wall clock;
        # build 5 (hand 4's) jams on track 2 for good
        self.sim, _ = start_sim(tmp, "--ruleset", "riichi", "--mixed-deck", "--seed", "11",
                                "--players", "manual", "--link", self.link,
                                "--fault", "unplug:build=4,after=30,ms=100000",
                                "--fault", "jam:track=2,build=5,after=10", speed=10)
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        self.db = str(tmp / "journal.sqlite")
        self.runs = 0
        self.start()

    def start(self):
        self.runs += 1
        cmd = [tool("jantaku"), "run", "--port", self.link, "--db", self.db, "--api-port",
               str(self.port), "--push-window", "600", "--no-view"]
        self.proc = Proc(cmd, self.tmp / ("daemon-%d.log" % self.runs))
        self.d = Daemon(self.proc, self.url, self.db)
        wait_table_connected(self.d)

    def stop(self):
        self.proc.kill()

    def status(self):
        return self.d.get("/status").json()

    def wait(self, pred, what, timeout=60):
        return self.d.wait(pred, timeout=timeout, what=what)

    def cli(self, *args, **kw):
        return self.d.cli(*args, **kw)

    def push(self):
        """People push every tile on the table top into the centre."""
        out = subprocess.run([tool("jantaku"), "sim", "push", "--link", self.link],
                             capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr

    def close(self):
        self.stop()
        self.sim.kill()


@pytest.fixture(scope="module")
def table(tmp_path_factory, hil_port):
    if hil_port:
        pytest.skip("the page's phone test injects a jam and an unplug: simulated table only")
    t = Table(tmp_path_factory.mktemp("page"))
    yield t
    t.close()


@pytest.fixture(scope="module")
def browser():
    b = chromium.start(*PHONE)
    b.viewport(*PHONE, mobile=True)
    b.requests = []  # every URL the page asked for, over the whole module
    yield b
    b.close()


def settle(browser, meant=()):
    """No console error so far (but refusals the test meant: their HTTP status), and every
    request went to the daemon."""
    errors = [e for e in browser.console_errors()
              if not any("status of %d" % n in e["message"] for n in meant)]
    assert errors == [], "console errors: %s" % json.dumps(errors, indent=1)
    browser.requests += browser.requested_urls()


def wait_page(browser, script, what, timeout=30, *args):
    """Poll ``script`` (JavaScript returning a value) in the page until it is truthy."""
    return browser.wait(script, what, timeout, *args, show=("main", "#cue"))


def shoot(browser, name):
    if SHOTS is None:
        return
    SHOTS.mkdir(parents=True, exist_ok=True)
    browser.js("document.activeElement && document.activeElement.blur()")
    time.sleep(0.3)
    browser.screenshot(str(SHOTS / (name + ".png")), full=False)


IN_VIEW = """
    const e = document.getElementById(arguments[0]);
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height,
            shown: r.height > 0 && getComputedStyle(e).visibility !== 'hidden',
            inside: r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth,
            text: e.textContent};"""


def in_view(browser, id_):
    """#id_ is inside the viewport, drawn (its box, not only in the DOM); its text."""
    box = browser.js(IN_VIEW, id_)
    assert box is not None, "#%s is not on the page" % id_
    assert box["shown"] and box["inside"], "#%s is not inside the %dx%d viewport: %s" % (
        id_, PHONE[0], PHONE[1], box)
    return box["text"]


def offered_is_can(browser, table=None):
    """The controls offered (a visible, enabled button each) are exactly the commands in
    `can` that the page offers; `table`: also the daemon's own `can` right now."""
    script = ("return [window.jantakuPage.offered(), window.jantakuPage.status.can, "
              "window.jantakuPage.status.state.seq]")
    end = time.monotonic() + 3  # (the page draws on its next frame)
    while True:
        offered, can, seq = browser.js(script)
        if offered == [c for c in PAGE_COMMANDS if c in can] or time.monotonic() > end:
            break
        time.sleep(0.05)
    assert offered == [c for c in PAGE_COMMANDS if c in can], (offered, can, seq)
    if table is not None:  # the page's `can` is the daemon's, for the same state
        end = time.monotonic() + 3
        while True:
            st = table.status()
            page_can, page_seq = browser.js("return [window.jantakuPage.status.can, "
                                            "window.jantakuPage.status.state.seq]")
            if page_seq == st["state"]["seq"] or time.monotonic() > end:
                break
            time.sleep(0.05)
        assert (page_seq, page_can) == (st["state"]["seq"], st["can"])
    return offered


def can_now(browser):
    return browser.js("return window.jantakuPage.status && (window.jantakuPage.status || {can: []}).can") or []


def press(browser, css):
    """Click it as a person would: scrolled to where it can be seen (not under the fault's
    banner), then clicked."""
    from selenium.webdriver.common.by import By

    button = browser.driver.find_element(By.CSS_SELECTOR, css)
    browser.js("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()


def answered(browser, what, since=None):
    """The answer to the last press, once it came: {cmd, status, code, text}."""
    return wait_page(browser, "const a = window.jantakuPage.lastAnswer; return a && "
                     "!window.jantakuPage.sending && a.n > arguments[0] && a", what, 30, since)


def yes_the_tiles_went_in(browser):
    """A hand over with a hand on the table top asks first (issue 50 point 6): yes."""
    wait_page(browser, "return document.getElementById('confirm').open && document.getElementById("
              "'confirm-text').textContent.startsWith('Are the played tiles')", "the question", 5)
    browser.js("document.getElementById('confirm-yes').click()")


def primary_is(browser, cmd, what, timeout=90):
    """Wait until the primary button offers ``cmd``; a throw the hand still waits for is
    made on the way (people throw before they play)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        now = browser.js("const p = document.getElementById('primary'); "
                         "return !p.disabled && !window.jantakuPage.sending && p.dataset.cmd")
        if now == cmd:
            return
        if now == "dice" and cmd != "dice":
            press(browser, "#primary")
        time.sleep(0.3)
    raise AssertionError("the primary button did not offer %s (%s): %s"
                         % (cmd, what, browser.text("#now")))


def code_is(browser, code, timeout=60):
    """The page shows what happens next as `code` (drawn: the body carries the code)."""
    wait_page(browser, "const s = window.jantakuPage.status; return window.jantakuPage.live && "
              "s && s.next.code === arguments[0] && document.body.dataset.code === arguments[0]",
              "next.code %s" % code, timeout, code)


COUNTS = "return Array.from(document.querySelectorAll('#tracks .count')).map(e => e.textContent)"


# -- before pairing ---------------------------------------------------------------------------

def test_the_page_is_served_light_and_an_unpaired_phone_sees_the_same_top(table, browser):
    r = httpx.get(table.url + "/page/app.js", headers={"Accept-Encoding": "gzip"}, timeout=10)
    assert r.headers["content-encoding"] == "gzip" and r.headers["etag"]
    assert int(r.headers["content-length"]) < len(r.content) / 2  # the largest script, gzipped
    browser.driver.get(table.url + "/")
    wait_page(browser, "return window.jantakuPage.live && window.jantakuPage.paired === false "
              "&& !document.body.classList.contains('loading')", "the page, not paired")
    assert in_view(browser, "headline") == "Start a session"
    primary = in_view(browser, "primary")
    assert "not paired" in primary  # disabled, saying why
    assert browser.js("return document.getElementById('primary').disabled") is True
    assert browser.js("return window.jantakuPage.offered()") == []
    # the pairing form lies below the top
    top = browser.js(IN_VIEW, "primary")
    form = browser.js(IN_VIEW, "pair-code")
    assert form["shown"] and form["top"] > top["bottom"]
    assert browser.js("return document.getElementById('fault')") is None
    shoot(browser, "phone-unpaired")
    settle(browser)


def test_the_phone_pairs_with_the_code_from_the_host(table, browser):
    from selenium.webdriver.common.by import By

    code = json.loads(table.cli("pair", "--new", "--json").stdout)["code"]
    browser.driver.find_element(By.ID, "pair-code").send_keys(code.lower())
    press(browser, "#pair-button")
    wait_page(browser, "return window.jantakuPage.paired === true", "paired")
    wait_page(browser, "return !document.getElementById('primary').disabled", "the start offered")
    assert offered_is_can(browser, table) == ["start", "abort"]
    settle(browser)


def test_pairing_offers_sound_and_a_screen_that_stays_on_once(table, browser):
    """Issue 42 point 7: phones lying on the table sleep and stay silent; at pairing the page
    offers, once, to sound and to keep the screen on (the Wake Lock API). Refused by the
    phone, the page says so and what to do instead."""
    offer = "document.getElementById('offer')"
    assert browser.js("return %s.offsetParent !== null && document.getElementById("
                      "'offer-text').textContent" % offer).startswith("A phone lying on the table")
    in_view(browser, "offer")
    browser.driver.execute_cdp_cmd("Browser.setPermission", {
        "permission": {"name": "screen-wake-lock"}, "setting": "granted"})
    press(browser, "#offer-awake")
    note = wait_page(browser, "return window.jantakuPage.awakeState === 'held' && "
                     "document.getElementById('awake-note').textContent", "the screen kept on", 5)
    assert note == "The screen stays on."
    assert browser.js("return document.getElementById('awake').checked && "
                      "localStorage.getItem('jantaku.awake')") == "on"
    assert browser.js("return %s.offsetParent !== null && "
                      "document.getElementById('offer-chime').offsetParent !== null" % offer)
    press(browser, "#offer-no")
    assert browser.js("return %s.hidden" % offer) is True
    assert browser.js("return document.getElementById('chime').checked") is False
    # turned off, the lock is given back; a phone that refuses it is told what to do instead
    press(browser, "#awake")
    wait_page(browser, "return window.jantakuPage.awakeState === '' && "
              "document.getElementById('awake-note').textContent === ''", "the lock released", 5)
    browser.driver.execute_cdp_cmd("Browser.setPermission", {
        "permission": {"name": "screen-wake-lock"}, "setting": "denied"})
    press(browser, "#awake")
    note = wait_page(browser, "return window.jantakuPage.awakeState === 'refused' && "
                     "document.getElementById('awake-note').textContent", "the refusal said", 5)
    assert "turn off auto-lock" in note
    browser.driver.execute_cdp_cmd("Browser.setPermission", {
        "permission": {"name": "screen-wake-lock"}, "setting": "granted"})
    settle(browser)


def test_the_chime_is_off_until_chosen_and_asks_for_a_tap_after_a_reload(table, browser):
    """Sound and vibration when the table asks for people: off by default; turned on, the
    browser remembers it; after a reload the page asks for one tap before it can sound (as
    browsers require), then the next ask sounds and vibrates."""
    from selenium.webdriver.common.by import By

    assert browser.js("return document.getElementById('chime').checked") is False
    assert not browser.driver.find_element(By.ID, "arm").is_displayed()
    press(browser, "#chime")
    assert browser.js("return localStorage.getItem('jantaku.chime')") == "on"
    browser.driver.refresh()
    wait_page(browser, "return window.jantakuPage.live && window.jantakuPage.paired === true && "
              "!document.body.classList.contains('loading')", "the page again")
    assert browser.js("return document.getElementById('chime').checked") is True
    # the screen is kept on again without a tap, and the offer is not made twice
    wait_page(browser, "return window.jantakuPage.awakeState === 'held'", "the screen kept on", 5)
    assert browser.js("return document.getElementById('offer').hidden") is True
    arm = wait_page(browser, "const a = document.getElementById('arm'); return a.offsetParent "
                    "!== null && a.textContent", "the tap it asks for", 5)
    assert arm == "Tap to let this page sound"
    in_view(browser, "arm")
    press(browser, "#arm")
    wait_page(browser, "return window.jantakuPage.audio && window.jantakuPage.audio.state === "
              "'running' && document.getElementById('arm').offsetParent === null",
              "the sound allowed", 5)
    # what it does when the table asks (the push window, next), seen through vibrate
    browser.js("window.__buzz = []; navigator.vibrate = (p) => { window.__buzz.push(p); return true; };")
    settle(browser)


# -- an evening ------------------------------------------------------------------------------

def test_the_push_window_counts_down_and_its_button_closes_it(table, browser):
    """Mixed Deck start from the page: the centre opens for people (600 table seconds: a
    minute here); the top counts down, its button says it closes the centre."""
    press(browser, "#mixed")
    wait_page(browser, "return document.getElementById('primary').textContent.includes('Mixed Deck')",
              "the start button saying what it starts", 5)
    press(browser, "#primary")
    code_is(browser, "push_all")
    wait_page(browser, "return /closes in \\d+:\\d\\d/.test(document.getElementById('cue').textContent)",
              "the countdown")
    first = in_view(browser, "cue")
    time.sleep(2.1)
    second = in_view(browser, "cue")
    left = [int(t.rsplit(" ", 1)[1].split(":")[0]) * 60 + int(t.rsplit(":", 1)[1]) for t in (first, second)]
    assert 1 <= left[0] - left[1] <= 3, (first, second)
    # counted down to the daemon's deadline (`until`, an absolute time: the host's clock)
    until = table.status()["state"]["params"]["until"]
    assert abs(left[1] - (until - time.time())) <= 2, (second, until - time.time())
    assert in_view(browser, "headline") == "Push every tile into the centre"
    assert in_view(browser, "primary") == "Done: close the centre"
    # people are asked: the chime sounded once, and the phone buzzed
    assert browser.js("return [window.jantakuPage.chimes, window.__buzz.length]") == [1, 1]
    offered_is_can(browser, table)
    assert "continue" in can_now(browser)
    shoot(browser, "phone-push")
    settle(browser)


def test_while_the_walls_are_built_the_top_says_how_long(table, browser):
    table.push()  # nothing on the top, but people do as they are asked
    press(browser, "#primary")
    code_is(browser, "building")
    cue = wait_page(browser, "const t = document.getElementById('cue').textContent; "
                    "return /Deck A is ready inside in about \\d+ s/.test(t) && t", "the time left", 20)
    assert in_view(browser, "headline") == "Building deck A: wait"
    assert "Nothing to press" in in_view(browser, "primary")  # disabled: no action
    offered_is_can(browser, table)
    left = int(cue.split()[-2])
    assert 0 < left < 60, cue
    shoot(browser, "phone-building")
    wait_page(browser, COUNTS + ".join() === '34/34,34/34,34/34,34/34'", "deck A built", 60)
    code_is(browser, "press_start")
    assert in_view(browser, "primary") == "Hand over"
    offered_is_can(browser, table)
    settle(browser)


def test_a_throw_during_the_rebuild_shows_the_break_without_scrolling(table, browser):
    """Hand over: deck A comes up, deck B is rebuilt inside; the dice are offered while it
    builds (they are in `can`); after the throw the break's line, with the total, and the
    primary button are in view at a phone's size without scrolling."""
    press(browser, "#primary")  # Hand over
    wait_page(browser, "const s = window.jantakuPage.status; return s && s.state.name === 'building'"
              " && s.can.includes('dice') && !document.getElementById('primary').disabled && "
              "document.getElementById('primary').dataset.cmd === 'dice'",
              "the dice offered during the rebuild", 60)
    offered_is_can(browser, table)
    assert in_view(browser, "headline") == "Throw the dice for hand 1 of game 1"
    assert browser.js("return document.getElementById('break')") is None  # not before the throw
    shoot(browser, "phone-dice")
    press(browser, "#primary")  # Throw the dice
    line = wait_page(browser, "const b = document.getElementById('break'); return b && b.textContent",
                     "the break")
    dice = table.status()["session"]["dice"]
    total = sum(dice["dice"])
    assert line.startswith("%s = %d · break " % ("+".join(map(str, dice["dice"])), total)), line
    assert line.endswith("stacks from their right end") or line.endswith("stack from their right end")
    assert in_view(browser, "break") == line
    in_view(browser, "primary")
    # the diagram right under the line, its breaker's wall broken at the total
    assert browser.js("return document.getElementById('break').nextElementSibling.id") == "diagram"
    g = browser.js("const g = document.querySelector('#diagram g.breaker'); return g && "
                   "[g.dataset.seat, g.dataset.breakFromRight]")
    assert g == [dice["breaker"], str(dice["break_from_right"])]
    offered_is_can(browser, table)
    assert "dice" not in can_now(browser)
    shoot(browser, "phone-thrown")
    settle(browser)


def test_the_layout_does_not_shift_as_the_page_fills_in(table, browser):
    """A fresh page while the next walls are built (hand 2's hand over, from the host): its
    layout shift, as a PerformanceObserver for `layout-shift` counts it, stays under 0.1
    over the first 10 s, at a phone's size and at a desktop's."""
    wait_page(browser, "return (window.jantakuPage.status || {can: []}).can.includes('hand_over')",
              "hand 1 in play, deck B built", 60)
    try:
        for size in (PHONE, DESKTOP):
            browser.viewport(*size, mobile=size == PHONE)
            if size == DESKTOP:  # hand 2 thrown: the break on the table top
                table.wait(lambda s: "dice" in s["can"], "hand 2's walls up")
                table.cli("dice")
            browser.driver.get(table.url + "/")
            browser.js("""window.__cls = 0; window.__shifts = [];
                new PerformanceObserver((l) => l.getEntries().forEach((e) => {
                  if (!e.hadRecentInput) { window.__cls += e.value; window.__shifts.push(
                    [Math.round(e.startTime), e.value, e.sources.map(s => [s.node && (s.node.id ||
                     String(s.node.className && s.node.className.baseVal || s.node.className)),
                     s.previousRect.y, s.currentRect.y, s.previousRect.height, s.currentRect.height])]); }
                })).observe({type: 'layout-shift', buffered: true});""")
            if size == PHONE:  # hand 2: deck B up, deck A rebuilt inside, as the page settles
                table.push()
                table.cli("hand-over", "--no-wait")
            time.sleep(10)
            cls, shifts = browser.js("return [window.__cls, window.__shifts]")
            print("layout shift at %dx%d over 10 s: %.4f" % (size[0], size[1], cls))
            assert cls < 0.1, (size, cls, shifts)
            if size == DESKTOP:
                shoot(browser, "built-break-desktop")  # (README.md shows it)
    finally:
        browser.viewport(*PHONE, mobile=True)
        browser.driver.get(table.url + "/")
    wait_page(browser, "return window.jantakuPage.live", "the page at a phone's size")
    settle(browser)


def test_an_unplugged_table_leaves_only_abort_until_it_is_back(table, browser):
    """Hand 3's rebuild (build 4) loses the table's cable for a while: the page says the
    table is not connected, and offers only what `can` holds: abort."""
    primary_is(browser, "hand_over", "hand 2 in play")
    table.push()
    before = browser.js("return window.jantakuPage.answers || 0")
    press(browser, "#primary")  # Hand over
    yes_the_tiles_went_in(browser)
    a = answered(browser, "the hand over", before)
    assert (a["cmd"], a["status"]) == ("hand_over", 200), a
    code_is(browser, "table_disconnected", 60)
    assert can_now(browser) == ["abort"]
    assert offered_is_can(browser) == ["abort"]
    assert in_view(browser, "headline") == "The table is not connected"
    assert "Nothing to press" in in_view(browser, "primary")
    assert browser.js("return document.getElementById('fault')") is None
    shoot(browser, "phone-unplugged")
    wait_page(browser, "return ((window.jantakuPage.status || {}).next || {}).code !== 'table_disconnected'",
              "the table back", 60)
    offered_is_can(browser, table)
    # the build carries on (or waits for people to say so, after the link was lost)
    end = time.monotonic() + 90
    while "hand_over" not in can_now(browser) and time.monotonic() < end:
        if browser.js("const p = document.getElementById('primary'); return !p.disabled && "
                      "p.dataset.cmd === 'continue'"):
            press(browser, "#primary")
        time.sleep(0.5)
    assert "hand_over" in can_now(browser)
    offered_is_can(browser, table)
    settle(browser, meant=(409,))


def test_a_jam_seen_from_the_bottom_of_the_page_comes_into_view(table, browser):
    """Hand 4's rebuild (build 5) jams on track 2. Before it there is no #fault; with the
    page scrolled to the bottom, the banner comes into view, names the track and what to
    do, and the track is marked among the walls."""
    from selenium.webdriver.common.by import By

    primary_is(browser, "hand_over", "hand 3 in play")
    table.push()
    browser.js("window.scrollTo(0, document.documentElement.scrollHeight)")
    assert browser.js("return window.scrollY") > 300
    assert browser.js("return document.getElementById('fault')") is None
    # the top stays in view however far down the page is: its button is pressed from there
    assert in_view(browser, "primary") == "Hand over"
    browser.driver.find_element(By.ID, "primary").click()
    yes_the_tiles_went_in(browser)
    banner = wait_page(browser, "const f = document.getElementById('fault'); return f && f.textContent",
                       "the jam", 90)
    assert "Track 2 is jammed" in banner
    assert "Take the stuck tile out of track 2 by hand, then press “Fault fixed”." in banner
    assert "Track 2 is jammed" in in_view(browser, "fault")
    # the fault's one button is in the banner, in view wherever the page is scrolled
    assert in_view(browser, "fault-do") == "Fault fixed"
    assert browser.js("return window.scrollY") > 300  # still at the bottom
    marked = browser.js("return Array.from(document.querySelectorAll('#tracks .track.fault-here'))"
                        ".map(t => [t.dataset.track, t.querySelector('.fault-at').textContent])")
    assert marked == [["2", "stopped here"]]
    offered_is_can(browser, table)
    shoot(browser, "phone-fault")
    browser.js("window.scrollTo(0, 0)")
    assert in_view(browser, "headline") == "Track 2 is jammed"
    # the big button at the top points down to the banner's
    assert in_view(browser, "primary").startswith("Fault: its button is below")
    assert browser.js("return document.getElementById('primary').disabled") is True
    settle(browser)


def test_fault_fixed_while_the_tile_is_still_stuck_says_so_in_the_pages_words(table, browser):
    before = browser.js("return window.jantakuPage.answers || 0")
    press(browser, "#fault-do")  # Fault fixed, in the banner
    a = answered(browser, "the refusal", before)
    assert (a["status"], a["code"]) == (409, "fault_remains"), a
    assert a["text"] == ("Fault fixed: not done. The fault is still there. Take the stuck tile "
                         "out of track 2 by hand, then press “Fault fixed”.")
    # said next to the button pressed, in the banner (not under the controls card)
    wait_page(browser, "const a = document.getElementById('answer'); return a.textContent === "
              "arguments[0] && a.closest('#fault')", "the refusal beside the button", 5, a["text"])
    in_view(browser, "fault")
    in_view(browser, "answer")
    settle(browser, meant=(409,))


def test_abort_is_apart_and_asks_inside_the_page(table, browser):
    """Abort sits with the other ending commands, away from the everyday ones; it asks in
    a dialog of the page (not the browser's confirm), and Cancel sends nothing. The jam
    stays on the table after it: the page says so, and offers what `can` holds."""
    # with the fault open, they are behind the banner's "More"
    press(browser, "#fault-more")
    group = wait_page(browser, "const g = Array.from(document.querySelectorAll('#apart [data-cmd]'))"
                      ".filter(b => b.offsetParent).map(b => b.dataset.cmd); return g.length && g",
                      "the commands behind More", 5)
    assert "abort" in group and "end" in group
    every = browser.js("return Array.from(document.querySelectorAll('#everyday [data-cmd]'))"
                       ".filter(b => b.offsetParent).map(b => b.dataset.cmd)")
    assert not set(every) & {"abort", "end", "game_new"}
    press(browser, "#cmd-abort")
    assert browser.js("return document.getElementById('confirm').open") is True
    assert browser.text("#confirm-text") == "Stop every motor at once and end the session?"
    press(browser, "#confirm-no")
    time.sleep(0.3)
    assert table.status()["session"] is not None
    press(browser, "#cmd-abort")
    press(browser, "#confirm-yes")
    code_is(browser, "table_fault", 30)
    wait_page(browser, "return !document.getElementById('fault-do').hidden", "the banner's button", 5)
    assert in_view(browser, "headline") == "Track 2 is jammed"
    assert offered_is_can(browser, table) == ["clear_fault", "abort"]
    settle(browser)


def test_a_page_whose_daemon_stopped_disables_everything_and_says_why(table, browser):
    table.stop()
    wait_page(browser, "return !window.jantakuPage.live && document.getElementById('headline')"
              ".textContent === 'The page lost the daemon'", "the daemon gone")
    assert browser.js("return window.jantakuPage.offered()") == []
    assert "not connected to the daemon" in in_view(browser, "primary")
    disabled = browser.js("return Array.from(document.querySelectorAll('#everyday [data-cmd], "
                          "#apart [data-cmd]')).filter(b => b.offsetParent).map(b => b.disabled)")
    assert disabled and all(disabled)
    assert browser.js("return document.getElementById('fault')") is None  # not known now
    assert browser.text("#live") == "reconnecting…"
    shoot(browser, "phone-offline")
    browser.console_errors()  # the lost stream is logged by Chromium


def test_after_the_daemon_restarts_the_phone_is_still_paired(table, browser):
    table.start()  # the same journal, the same port: the page reconnects by itself
    wait_page(browser, "return window.jantakuPage.live && window.jantakuPage.paired === true && "
              "window.jantakuPage.offered().length >= 2", "the page back, paired", 60)
    # the stream's retries while the daemon was still starting are logged by Chromium (how
    # many depends on how long the start took); anything else is an error
    down = "/events - Failed to load resource: net::ERR_CONNECTION_REFUSED"
    errors = [e for e in browser.console_errors() if down not in e["message"]]
    assert errors == [], "console errors: %s" % json.dumps(errors, indent=1)
    offered = offered_is_can(browser, table)
    assert "abort" in offered and len(offered) >= 2  # paired: more than the always-there abort
    listed = json.loads(table.cli("pair", "--list", "--json").stdout)["browsers"]
    mine = browser.driver.execute_async_script(
        "const done = arguments[arguments.length - 1]; "
        "fetch('/pair').then(r => r.json()).then(j => done(j.id));")
    assert [b["id"] for b in listed] == [mine]  # the same pairing, kept by the journal
    settle(browser)


def test_a_reload_transfers_almost_nothing(table, browser):
    """A second load asks again for each file and gets 304s with no body."""
    browser.driver.refresh()
    wait_page(browser, "return window.jantakuPage.live", "the page again")
    files = browser.js("""return performance.getEntriesByType('navigation').concat(
        performance.getEntriesByType('resource').filter(e => e.name.includes('/page/')))
        .map(e => [e.name.split('/').pop() || 'index', e.transferSize, e.encodedBodySize])""")
    names = {f[0] for f in files}
    assert names == {"index", "app.js", "commands.js", "words.js", "style.css", "icon.svg"}, files
    for name, sent, body in files:
        # revalidated: headers only came over the network (a 304), the body from the
        # browser's cache (each of these files is over 1.5 KB gzipped)
        assert 0 < sent < 600, (name, sent, body)
    assert sum(f[1] for f in files) < 3000
    settle(browser)


class Refusing(http.server.ThreadingHTTPServer):
    """The daemon behind a server at its limit: the first `refuse` event streams are
    answered 503; everything else is passed through (streams too)."""

    daemon_threads = True

    def __init__(self, target, refuse):
        self.target, self.refuse, self.events = target, refuse, []
        super().__init__(("127.0.0.1", 0), Forward)


class Forward(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/events"):
            self.server.events.append(time.monotonic())
            if len(self.server.events) <= self.server.refuse:
                body = b'{"error": {"code": "busy", "message": "too many streams"}}'
                self.send_response(503)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
        host, port = self.server.target
        c = http.client.HTTPConnection(host, port, timeout=60)
        c.request("GET", self.path, headers={"Host": "%s:%d" % (host, port),
                                             "Accept-Encoding": "identity"})
        r = c.getresponse()
        self.send_response(r.status)
        for k, v in r.getheaders():
            if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(k, v)
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            while True:
                chunk = r.read1(65536)
                if not chunk:
                    break
                self.wfile.write(chunk)
                self.wfile.flush()
        except OSError:
            pass
        finally:
            c.close()

    def log_message(self, *a):
        pass


def test_a_refused_event_stream_is_tried_again_with_a_growing_wait(table, browser):
    server = Refusing(("127.0.0.1", table.port), refuse=3)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        browser.driver.get("http://127.0.0.1:%d/" % server.server_address[1])
        wait_page(browser, "return window.jantakuPage.live", "the stream, at the fourth try", 30)
        tries = server.events[:4]
        waits = [b - a for a, b in zip(tries, tries[1:])]
        assert len(tries) == 4 and browser.js("return window.jantakuPage.retries") == 3
        # 1 s, 2 s, 4 s, each within a quarter either way
        for wait, want in zip(waits, (1, 2, 4)):
            assert 0.7 * want <= wait <= 1.3 * want + 0.3, waits
    finally:
        browser.driver.get("about:blank")
        server.shutdown()
        server.server_close()
        thread.join(5)
    browser.console_errors()  # the refusals, as Chromium logs them
    browser.requested_urls()


def test_the_table_view_is_the_top_of_the_page_large(table, browser):
    browser.viewport(1024, 768)
    try:
        browser.driver.get(table.url + "/?view=table")
        wait_page(browser, "return window.jantakuPage.live && "
                  "!document.body.classList.contains('loading')", "the table view")
        shown = browser.js("return Array.from(document.querySelectorAll('main section'))"
                           ".filter(s => s.offsetParent).map(s => s.id)")
        assert shown == ["now", "table-now", "settings"]
        size = browser.js("return parseFloat(getComputedStyle(document.getElementById('headline')).fontSize)")
        assert size >= 28  # (the top beside the walls: two columns on a landscape tablet)
        # the whole screen, no scrolling, all four walls in view
        assert browser.js("return document.documentElement.scrollHeight <= innerHeight + 1")
        shoot(browser, "table-view")
    finally:
        browser.viewport(*PHONE, mobile=True)
    settle(browser)


def test_no_request_left_the_daemons_origin(table, browser):
    settle(browser)
    assert browser.requests, "the network log is empty: the test cannot see requests"
    ours = ("http://127.0.0.1:%d/" % table.port, "http://127.0.0.1:")
    elsewhere = sorted({u for u in browser.requests
                        if not (u.startswith(ours) or u == "about:blank")})
    assert elsewhere == []


def test_a_paired_phone_pairs_another(table, browser):
    """"Pair another phone": the paired page makes a one-time code (POST /pair/invite) and
    shows it with its QR code; another browser pairs with it."""
    import httpx

    wait_page(browser, "return window.jantakuPage.paired === true", "paired")
    press(browser, "#invite")
    wait_page(browser, "return !document.getElementById('invite-box').hidden && "
              "!!document.querySelector('#invite-qr svg')", "the invitation shown")
    code = browser.driver.execute_script("return document.getElementById('invite-code').textContent")
    other = httpx.post(table.url + "/pair", json={"code": code}, headers={"Origin": table.url},
                       timeout=10)
    assert other.status_code == 200 and other.json()["paired"] is True
    settle(browser)
