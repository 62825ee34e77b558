"""An evening at the table as players live it (issue 42): four phones, each at its seat.

Four browser sessions at a phone's size (390x844), paired through "Pair another phone"
(the first with the host's code), each at a different seat, on a Mixed Deck evening on the
simulated table (`jantaku sim serve`, its people left to the test: `jantaku sim push`):
the push window, the first hand and its throw, a hand over stopped by someone reaching
over the table's edge (the guard), a jam, a result entered and the next throw, a new game
and the end. At each step each phone's first screen is checked as a player sees it: the
headline, the labelled countdown in the push window's own look, the one fault button in
the banner at the bottom (and that the fault's `action` is in `can`), the controls offered
equal to `can`, and the drawing turned to that phone's seat with the break said from
there. The table view fits a tablet's screen, all four walls in view.

`JANTAKU_PAGE_SHOTS=1` also writes docs/page/seats-*.png.
"""
import json
import os
import subprocess
import time

import httpx
import pytest

from tests.conftest import ROOT, tool
from tests.e2e import chromium
from tests.e2e.conftest import start_daemon, start_sim, wait_table_connected

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(chromium.missing() is not None,
                                 reason=chromium.missing() or "")]

SHOTS = ROOT / "docs" / "page" if os.environ.get("JANTAKU_PAGE_SHOTS") == "1" else None
PHONE = (390, 844)
SEATS = ["self", "right", "across", "left"]  # counter-clockwise, seen from the first thrower
PAGE_COMMANDS = ["start", "hand_over", "dice", "continue", "clear_fault", "game_new", "end",
                 "abort"]
# the four players and where each phone sits (the last chooses its side before any ledger)
PLAYERS = ["east", "south", "west", "north"]
NAMES = {"east": "Aki", "south": "Ben", "west": "Mika", "north": "Noa"}
WIND = {"east": "East", "south": "South", "west": "West", "north": "North"}
FROM_ME = {"right": "on your right", "across": "across from you", "left": "on your left"}


def turn(a, b):
    return SEATS[(SEATS.index(a) + SEATS.index(b)) % 4]


def seen_from(x, m):
    return SEATS[(SEATS.index(x) - SEATS.index(m)) % 4]


class Table:
    def __init__(self, tmp):
        self.tmp = tmp
        self.link = str(tmp / "table")
        # hand over 2's lift (the first after build 2 started): someone reaches over the
        # table's edge for 200 ms; build 3 (deck A rebuilt in hand 2) jams on track 2 for good
        self.sim, _ = start_sim(tmp, "--ruleset", "riichi", "--mixed-deck", "--seed", "5",
                                "--players", "manual", "--link", self.link,
                                "--fault", "guard:build=2,during=lift",
                                "--fault", "jam:track=2,build=3,after=10", speed=10)
        # (the centre stays open until people say they are done)
        self.d = start_daemon(tmp, self.link, extra=("--push-window", "600", "--no-view"))
        self.proc, self.url = self.d.proc, self.d.url
        wait_table_connected(self.d)

    def status(self):
        return self.d.get("/status").json()

    def sim_cli(self, *args):
        out = subprocess.run([tool("jantaku"), "sim"] + list(args) + ["--link", self.link],
                             capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr

    def push(self):
        """People push every tile on the table top into the centre."""
        self.sim_cli("push")

    def close(self):
        self.proc.kill()
        self.sim.kill()


@pytest.fixture(scope="module")
def table(tmp_path_factory, hil_port):
    if hil_port:
        pytest.skip("four phones on the simulated table (its people left to the test)")
    t = Table(tmp_path_factory.mktemp("seats"))
    # the page the daemon serves is this tree's (PYTHONPATH): the test reads its words
    assert "seatView" in httpx.get(t.url + "/page/app.js", timeout=10).text
    yield t
    t.close()


@pytest.fixture(scope="module")
def phones():
    out = []
    try:
        for k in range(4):
            b = chromium.start(*PHONE)
            b.viewport(*PHONE, mobile=True)
            b.name = "phone %d (%s)" % (k + 1, PLAYERS[k])
            out.append(b)
        yield out
    finally:
        for b in out:
            b.close()


def wait_page(browser, script, what, timeout=30, *args):
    return browser.wait(script, what, timeout, *args, show=("body",))


def all_show(phones, script, what, timeout=60, *args):
    return [wait_page(b, script, what, timeout, *args) for b in phones]


IN_VIEW = """
    const e = typeof arguments[0] === 'string' ? document.querySelector(arguments[0]) : arguments[0];
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, shown: r.height > 0 && getComputedStyle(e).visibility !== 'hidden',
            inside: r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth,
            text: e.textContent};"""


def in_view(browser, css):
    """``css`` drawn inside the first screen (the page scrolled to its top, or not at all
    for the banner fixed at the bottom); its text."""
    box = browser.js(IN_VIEW, css)
    assert box is not None, "%s: %s is not on the page" % (browser.name, css)
    assert box["shown"] and box["inside"], "%s: %s is not inside the %dx%d screen: %s" % (
        browser.name, css, PHONE[0], PHONE[1], box)
    return box["text"]


def first_screen(browser):
    browser.js("window.scrollTo(0, 0)")


def press(browser, css):
    """Tap it as a person would: scrolled to where it can be seen, then clicked."""
    from selenium.webdriver.common.by import By

    button = browser.driver.find_element(By.CSS_SELECTOR, css)
    browser.js("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()


def answers(browser):
    return browser.js("return window.jantakuPage.answers || 0")


def answered(browser, since, what):
    return wait_page(browser, "const a = window.jantakuPage.lastAnswer; return a && "
                     "!window.jantakuPage.sending && a.n > arguments[0] && a", what, 30, since)


def offered_is_can(browser):
    script = "return [window.jantakuPage.offered(), window.jantakuPage.status.can]"
    end = time.monotonic() + 3
    while True:
        offered, can = browser.js(script)
        if offered == [c for c in PAGE_COMMANDS if c in can] or time.monotonic() > end:
            break
        time.sleep(0.05)
    assert offered == [c for c in PAGE_COMMANDS if c in can], (browser.name, offered, can)
    return offered


def code_is(phones, code, timeout=60):
    all_show(phones, "const s = window.jantakuPage.status; return window.jantakuPage.live && "
             "s && s.next.code === arguments[0] && document.body.dataset.code === arguments[0]",
             "next.code %s" % code, timeout, code)


def primary_is(browser, cmd, what, timeout=60):
    wait_page(browser, "const p = document.getElementById('primary'); return !p.disabled && "
              "!window.jantakuPage.sending && p.dataset.cmd === arguments[0]", what, timeout, cmd)


def shoot(browser, name):
    if SHOTS is None:
        return
    SHOTS.mkdir(parents=True, exist_ok=True)
    browser.js("document.activeElement && document.activeElement.blur()")
    time.sleep(0.3)
    browser.screenshot(str(SHOTS / ("seats-%s.png" % name)), full=False)


def no_console_errors(phones, meant=()):
    for b in phones:
        errors = [e for e in b.console_errors()
                  if not any("status of %d" % n in e["message"] for n in meant)]
        assert errors == [], (b.name, json.dumps(errors, indent=1))


def my_side(k):
    return SEATS[k]


# -- pairing: the first phone with the host's code, the others from it ----------------------

def test_four_phones_pair_through_pair_another_phone(table, phones):
    from selenium.webdriver.common.by import By

    first = phones[0]
    first.driver.get(table.url + "/")
    wait_page(first, "return window.jantakuPage.live && window.jantakuPage.paired === false",
              "the page, not paired")
    code = json.loads(table.d.cli("pair", "--new", "--json").stdout)["code"]
    first.driver.find_element(By.ID, "pair-code").send_keys(code)
    press(first, "#pair-button")
    wait_page(first, "return window.jantakuPage.paired === true", "paired")
    # issue 50 point 6: "Pair another phone" is a button near the top of the controls, not a
    # small link at the bottom of the page, and its code comes up in view
    where = first.js("const b = document.getElementById('invite'); return [b.closest('section').id, "
                     "b.className, b.getBoundingClientRect().top + scrollY, "
                     "document.documentElement.scrollHeight]")
    assert where[:2] == ["controls", "invite"] and where[2] < where[3] / 2, where
    for other in phones[1:]:
        press(first, "#invite")
        code = wait_page(first, "const b = document.getElementById('invite-box'); "
                         "const c = document.getElementById('invite-code').textContent; "
                         "return !b.hidden && document.querySelector('#invite-qr svg') && "
                         "c !== window.__lastCode && (window.__lastCode = c)", "an invitation")
        in_view(first, "#invite-code")  # the code on the screen, as the button was pressed
        other.driver.get(table.url + "/#pair=" + code)  # as the QR code's address
        wait_page(other, "return window.jantakuPage.paired === true && window.jantakuPage.live",
                  "paired by the invitation")
        assert other.driver.current_url == table.url + "/"
    listed = json.loads(table.d.cli("pair", "--list", "--json").stdout)["browsers"]
    assert len(listed) == 4
    # point 7: each phone, just paired, is offered once to sound and to keep its screen on
    offer = "document.getElementById('offer')"
    for b in phones:
        wait_page(b, "return %s.offsetParent !== null" % offer, "the offer at pairing", 5)
    first.driver.execute_cdp_cmd("Browser.setPermission", {
        "permission": {"name": "screen-wake-lock"}, "setting": "granted"})
    press(first, "#offer-awake")
    press(first, "#offer-chime")
    wait_page(first, "return window.jantakuPage.awakeState === 'held' && %s.hidden && "
              "document.getElementById('chime').checked" % offer, "the screen on and the chime", 5)
    for b in phones[1:]:
        press(b, "#offer-no")
        assert b.js("return %s.hidden && !document.getElementById('chime').checked" % offer)
    again = phones[1]
    again.driver.refresh()  # a paired phone opened again is not asked again
    wait_page(again, "return window.jantakuPage.paired === true && window.jantakuPage.live",
              "paired after a reload")
    assert again.js("return %s.hidden" % offer) is True
    # the fourth sits at the first thrower's left before any session: it says so itself
    fourth = phones[3]
    from selenium.webdriver.support.ui import Select

    assert fourth.driver.find_element(By.ID, "side-row").is_displayed()
    Select(fourth.driver.find_element(By.ID, "side")).select_by_value("left")
    assert fourth.js("return localStorage.getItem('jantaku.side')") == "left"
    no_console_errors(phones)


# -- the start: Mixed Deck beside the start button, the push window's own look ---------------

def test_a_mixed_deck_start_and_the_push_window_as_each_phone_sees_it(table, phones):
    from selenium.webdriver.support.ui import Select
    from selenium.webdriver.common.by import By

    first = phones[0]
    primary_is(first, "start", "the start offered")
    first_screen(first)
    # Mixed Deck beside the start button, on the first screen; rulesets without codes;
    # back colours among those the table knows
    assert in_view(first, "#start-quick").strip().startswith("Mixed Deck")
    options = first.js("return Array.from(document.querySelectorAll('#ruleset option'))"
                       ".map(o => o.textContent)")
    assert options and not any(" — " in o for o in options), options
    known = table.status()["table"]["identity"]["colours"]
    colours = first.js("return Array.from(document.querySelectorAll('#colour-a option'))"
                       ".map(o => o.value)")
    assert colours[0] == "" and set(colours[1:]) == set(known) - {"unknown"}
    assert first.js("return document.getElementById('colour-a').tagName") == "SELECT"
    Select(first.driver.find_element(By.ID, "ruleset")).select_by_value("riichi")
    press(first, "#mixed")
    wait_page(first, "return document.getElementById('primary').textContent.includes('Mixed Deck')",
              "the start saying Mixed Deck")
    before = answers(first)
    press(first, "#primary")
    assert answered(first, before, "the start")["status"] == 200
    assert "Starting the session…" in first.js("return window.jantakuPage.trail")
    code_is(phones, "push_all")
    for b in phones:
        first_screen(b)
        assert in_view(b, "#headline") == "Push every tile into the centre"
        cue = wait_page(b, "const t = document.getElementById('cue').textContent; return "
                        "/^The centre closes in (\\d+ s|\\d+:\\d\\d)$/.test(t) && t", "the countdown")
        in_view(b, "#cue")
        # its own look: the calm panel with a bar of the time left, not the fault's red
        look = b.js("""const h = getComputedStyle(document.getElementById('headline')).color;
            const bad = getComputedStyle(document.documentElement).getPropertyValue('--bad').trim();
            const probe = document.createElement('i'); probe.style.color = bad;
            document.body.appendChild(probe); const red = getComputedStyle(probe).color; probe.remove();
            return [document.body.classList.contains('pushing'),
                    document.getElementById('cue').classList.contains('bar'), h !== red,
                    !document.getElementById('fault')]""")
        assert look == [True, True, True, True], (b.name, look, cue)
        assert in_view(b, "#primary") == "Done: close the centre"
        offered_is_can(b)
    shoot(phones[1], "push")
    no_console_errors(phones)


def test_each_phone_chooses_its_seat(table, phones):
    """The first three choose their player on the score strip's card; the fourth's side,
    chosen before the session, is its player now. The first enters the names."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    for k, b in enumerate(phones[:3]):
        wait_page(b, "return !document.getElementById('score-strip').hidden", "the score strip")
        press(b, "#score-strip")
        Select(b.driver.find_element(By.ID, "seat")).select_by_value(PLAYERS[k])
        assert b.js("return JSON.parse(localStorage.getItem('jantaku.seat')).player") == PLAYERS[k]
    wait_page(phones[3], "const s = JSON.parse(localStorage.getItem('jantaku.seat') || 'null');"
              " return s && s.player === 'north'", "the fourth phone at North (its side: left)")
    first = phones[0]
    for k in PLAYERS:
        box = first.driver.find_element(By.CSS_SELECTOR, "#seats-form [name='name-%s']" % k)
        box.clear()
        box.send_keys(NAMES[k])
    press(first, "#seats-send")
    wait_page(first, "return document.getElementById('score-answer').textContent === 'Saved.'",
              "the names saved")
    for b in phones[:3]:
        press(b, "#score-strip")  # closed again: the first screen as it was
    for k, b in enumerate(phones):
        wait_page(b, "return document.getElementById('strip-me').textContent.startsWith(arguments[0])",
                  "its own player on the strip", 10, NAMES[PLAYERS[k]])
        # before the walls are up, the drawing already has this phone's wall at the bottom
        assert b.js("const g = document.querySelector('#diagram g[data-at=\"self\"]'); "
                    "return g && g.classList.contains('mine') && "
                    "g.querySelector('text.seat').textContent") == "you"
        # the tracks marked on the drawing as the table numbers them (the reference
        # profile: track 1 at the front, where the first thrower sits, then counter-
        # clockwise): this phone's wall is over track k + 1
        marks = b.js("return Array.from(document.querySelectorAll('#diagram .track-mark'))"
                     ".map(m => [m.dataset.track, m.closest('g.wall-top').dataset.at])")
        assert sorted(marks) == sorted([str(j + 1), seen_from(SEATS[j], SEATS[k])]
                                       for j in range(4)), (k, marks)


def test_the_centre_closes_and_the_first_hand_begins(table, phones):
    table.push()
    second = phones[1]
    before = answers(second)
    press(second, "#primary")  # Done: close the centre
    assert answered(second, before, "the centre closed")["status"] == 200
    assert "Closing the centre…" in second.js("return window.jantakuPage.trail")
    code_is(phones, "building")
    for b in phones:
        cue = wait_page(b, "const t = document.getElementById('cue').textContent; "
                        "return /^(Deck A is ready inside in about \\d+ (s|min)|Timing the build…)$/"
                        ".test(t) && t", "the build's time left, saying what it counts to", 20)
        assert not b.js("return document.body.classList.contains('pushing')")
    code_is(phones, "press_start", 90)
    third = phones[2]
    before = answers(third)
    press(third, "#primary")  # Hand over: the first hand's walls come up (none on the top)
    assert answered(third, before, "the hand over")["status"] == 200
    assert third.js("return document.getElementById('confirm').open") is False
    primary_is(phones[0], "dice", "the dice for hand 1", 60)


def expect_break(table, k):
    """What phone k's break line says for the throw in the status (its seat, the thrower's,
    the breaker's, their name)."""
    st = table.status()
    dice, score = st["session"]["dice"], st["session"]["score"]
    thrower = "self" if st["session"]["game_hand"] == 1 else \
        score["players"][dice["thrower_player"]["player"]]["side"]
    breaker = turn(thrower, dice["breaker"])
    at = seen_from(breaker, my_side(k))
    head = "%s = %d · " % ("+".join(map(str, dice["dice"])), dice["total"])
    n = dice["break_from_right"]
    unit = "stack" if n == 1 else "stacks"
    if at == "self":
        return head + "your wall, %d %s from your right" % (n, unit), at
    # the breaker as this hand was dealt (their wind in it), not the ledger's winds now
    who = next(p for p in score["players"].values() if p["side"] == breaker)
    return head + "break in front of %s (%s), %s · %d %s from their right" % (
        WIND[dice["breaker_player"]["wind"]], who["name"], FROM_ME[at], n, unit), at


def check_the_break(table, phones, shot=None):
    for k, b in enumerate(phones):
        want, at = expect_break(table, k)
        line = wait_page(b, "const e = document.getElementById('break'); return e && "
                         "e.textContent === arguments[0] && e.textContent", "the break from its seat",
                         10, want)
        first_screen(b)
        assert in_view(b, "#break") == line
        in_view(b, "#headline")
        in_view(b, "#primary")
        drawn = b.js("""const g = (s) => document.querySelector('#diagram g' + s);
            const svg = document.querySelector('#diagram svg').getBoundingClientRect();
            return [g('.mine') && g('.mine').dataset.at, g('.breaker') && g('.breaker').dataset.at,
                    document.getElementById('diagram').dataset.turned, svg.top < innerHeight - 120]""")
        assert drawn == ["self", at, "1", True], (b.name, drawn)
        offered_is_can(b)
    if shot:
        shoot(phones[3], shot)


def test_the_throw_is_seen_from_each_phones_seat(table, phones):
    first = phones[0]
    before = answers(first)
    press(first, "#primary")  # Throw the dice
    assert answered(first, before, "the throw")["status"] == 200
    check_the_break(table, phones, "thrown")


def test_the_table_view_fits_a_tablet_with_all_four_walls(table, phones):
    b = phones[3]
    try:
        for size in ((1280, 800), (1024, 768), (800, 1280)):
            b.viewport(*size)
            b.driver.get(table.url + "/?view=table")
            wait_page(b, "return window.jantakuPage.live && document.getElementById('break') && "
                      "!document.body.classList.contains('loading')", "the table view")
            time.sleep(0.3)
            fit = b.js("""const d = document.documentElement;
                const walls = Array.from(document.querySelectorAll('#diagram g.wall-top')).map(g => {
                  const r = g.getBoundingClientRect();
                  return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; });
                const r = document.querySelector('#diagram svg').getBoundingClientRect();
                return [d.scrollHeight <= innerHeight + 1, d.scrollWidth <= innerWidth + 1, walls,
                        Math.round(r.width), Math.round(r.height)]""")
            assert fit[:3] == [True, True, [True] * 4], (size, fit)
            assert min(fit[3], fit[4]) >= 250, (size, fit)  # large enough to read at the table
            if SHOTS is not None:
                shoot(b, "table-view-%dx%d" % size)
    finally:
        b.viewport(*PHONE, mobile=True)
        b.driver.get(table.url + "/")
        wait_page(b, "return window.jantakuPage.live", "the phone's page again")


# -- faults: the one button in the banner, the rest behind "More" ----------------------------

def check_fault(table, phones, kind, action, button):
    try:
        table.d.wait(lambda st: (st["fault"] or {}).get("kind") == kind, timeout=60,
                     what="the %s fault" % kind)
    except AssertionError as e:  # what the table did instead, from its simulator's side too
        raise AssertionError("%s\n--- sim log\n%s" % (e, table.sim.log())) from None
    all_show(phones, "const f = document.getElementById('fault'); return f && f.dataset.kind === "
             "arguments[0] && !document.getElementById('fault-do').hidden", "the %s fault" % kind,
             60, kind)
    st = table.status()
    assert st["fault"]["kind"] == kind and st["fault"]["action"] == action
    assert action in st["can"]  # the banner's button is one the daemon takes
    for b in phones:
        first_screen(b)
        assert in_view(b, "#fault-do") == button
        in_view(b, "#headline")
        # the big button at the top points down to it; the other commands behind "More"
        top = b.js("const p = document.getElementById('primary'); return [p.disabled, "
                   "p.querySelector('.label').textContent]")
        assert top == [True, "Fault: its button is below"], (b.name, top)
        assert b.js("return document.getElementById('cmds').parentNode.id") == "fault-extra"
        assert in_view(b, "#fault-more") == "More ▾"
        offered = offered_is_can(b)
        assert action in offered


def test_someone_reaching_over_the_edge_stops_the_hand_over(table, phones):
    table.push()  # the played tiles go in first
    fourth = phones[3]
    primary_is(fourth, "hand_over", "hand 1 in play, deck B built", 90)
    before = answers(fourth)
    # issue 50 point 6: with hand 1's tiles on the top, Hand over asks first; "Not yet"
    # sends nothing
    press(fourth, "#primary")
    question = wait_page(fourth, "const d = document.getElementById('confirm'); return d.open && "
                         "document.getElementById('confirm-text').textContent", "the question", 5)
    assert question.startswith("Are the played tiles pushed into the centre?"), question
    assert fourth.text("#confirm-no") == "Not yet"
    fourth.js("document.getElementById('confirm-no').click()")
    time.sleep(0.5)
    assert answers(fourth) == before and table.status()["next"]["code"] == "playing"
    press(fourth, "#primary")
    wait_page(fourth, "return document.getElementById('confirm').open", "the question again", 5)
    assert fourth.text("#confirm-yes") == "Yes: Hand over"
    fourth.js("document.getElementById('confirm-yes').click()")
    assert answered(fourth, before, "the hand over")["status"] == 200
    check_fault(table, phones, "guard", "continue", "Continue")
    assert "sensor over the table's edge" in phones[0].text("#fault-todo")
    assert "light curtain" not in phones[0].text("#fault")
    # "More" opens the other commands (the ending ones among them), in the banner
    second = phones[1]
    press(second, "#fault-more")
    shown = wait_page(second, "const s = Array.from(document.querySelectorAll('#fault-extra "
                      "[data-cmd]')).filter(b => b.offsetParent).map(b => b.dataset.cmd); "
                      "return s.length && s", "the other commands", 5)
    assert {"end", "abort"} <= set(shown) and "continue" not in shown, shown
    assert second.text("#fault-more") == "Fewer ▴"
    shoot(second, "guard-more")
    press(second, "#fault-more")
    shoot(phones[0], "guard")
    first = phones[0]
    before = answers(first)
    press(first, "#fault-do")
    a = answered(first, before, "the lift again")
    assert a["status"] == 200 and a["cmd"] == "continue", a
    assert "Carrying on…" in first.js("return window.jantakuPage.trail")


def test_a_jam_and_fault_fixed_too_soon_answered_beside_its_button(table, phones):
    check_fault(table, phones, "jam", "clear_fault", "Fault fixed")
    for k, b in enumerate(phones):  # where track 2 is: in the banner, and on the drawing
        assert b.js("return Array.from(document.querySelectorAll('#fault-where .tm.here'))"
                    ".map(e => e.dataset.track)") == ["2"]
        at = seen_from("right", SEATS[k])  # track 2: the first thrower's right
        assert b.js("const m = document.querySelector('#diagram .track-mark.here'); "
                    "return m && [m.dataset.track, m.closest('g.wall-top').dataset.at]") == ["2", at]
        words = b.text("#fault-where")
        assert ("under your wall" if at == "self" else "under the wall " + FROM_ME[at]) in words, words
    third = phones[2]
    before = answers(third)
    press(third, "#fault-do")  # the tile is still stuck
    a = answered(third, before, "the refusal")
    assert (a["status"], a["code"]) == (409, "fault_remains"), a
    where = wait_page(third, "const a = document.getElementById('answer'); return a.textContent "
                      "=== arguments[0] && a.closest('#fault') && a.previousElementSibling.id", "the "
                      "refusal next to the banner's button", 5, a["text"])
    assert where == "fault-row"
    assert a["text"].startswith("Fault fixed: not done. The fault is still there. Take the stuck tile")
    in_view(third, "#answer")
    shoot(third, "jam-refused")
    table.sim_cli("clear-jam", "--track", "2")
    before = answers(third)
    press(third, "#fault-do")
    assert answered(third, before, "the fault fixed")["status"] == 200
    all_show(phones, "return !document.getElementById('fault') && "
             "document.getElementById('cmds').parentNode.id === 'controls'", "the fault gone", 30)


def test_a_result_entered_turns_the_next_throw_to_the_new_dealer(table, phones):
    """Hand 2: until hand 1's result is in the ledger the thrower is not known, and the
    drawing says so; once South's ron is entered, South deals and throws, and every phone's
    drawing turns with it."""
    first = phones[0]
    primary_is(first, "dice", "hand 2's walls up", 90)
    before = answers(first)
    press(first, "#primary")
    assert answered(first, before, "hand 2's throw")["status"] == 200
    wait_page(phones[1], "return document.getElementById('dead').textContent.includes("
              "'Enter the last hand')", "the drawing not turned yet", 10)
    table.d.cli("score", "add", "ron", "winner=south", "from=west", "han=3", "fu=30")
    st = table.d.wait(lambda s: (s["session"]["dice"] or {}).get("thrower_player"),
                      what="the throw named by player")
    assert st["session"]["dice"]["thrower_player"]["player"] == "south"
    check_the_break(table, phones, "hand-2")


def drawn(b):
    """What a phone shows of the walls standing: the break's line, the drawing's turn
    (this phone's wall, the breaker's wall, turned or not) and the line under it."""
    return b.js("""const g = (s) => document.querySelector('#diagram g' + s);
        const br = document.getElementById('break');
        return [br && br.textContent, g('.mine') && g('.mine').dataset.at,
                g('.breaker') && g('.breaker').dataset.at,
                document.getElementById('diagram').dataset.turned,
                document.getElementById('dead').textContent]""")


def test_a_result_entered_before_hand_over_changes_nothing_about_the_walls(table, phones):
    """Issue 50 point 2: a tsumo, then a ron (every wind moves), entered while hand 2's
    walls still stand: every phone keeps the drawing turned to its seat and the break said
    as this hand was dealt; none asks for the result it has."""
    seen = [drawn(b) for b in phones]
    for shown in seen:
        assert shown[3] == "1" and "Enter the last hand" not in shown[4], shown
    entries = table.d.get("/score").json()["entries"]
    for result in (["tsumo", "winner=north", "han=2", "fu=30"],
                   ["ron", "winner=west", "from=east", "han=3", "fu=30"]):
        table.d.cli("score", "add", *result)
        entries += 1
        table.d.wait(lambda s, n=entries: s["session"]["score"]["entries"] == n,
                     what="the result in the ledger")
        for k, b in enumerate(phones):
            wait_page(b, "const s = window.jantakuPage.status.session; return s.score.entries "
                      "=== arguments[0] && window.jantakuPage.score && "
                      "window.jantakuPage.score.entries === arguments[0]", "the result", 10,
                      entries)
            time.sleep(0.2)  # (a frame to draw it)
            assert drawn(b) == seen[k], (b.name, result[0], drawn(b), seen[k])
        if result[0] == "tsumo":  # taken back: the ron is hand 2's result
            table.d.cli("score", "add", "undo")
            entries -= 1
    check_the_break(table, phones)


# -- a new game and the end ------------------------------------------------------------------

def test_a_new_game_opens_the_centre_again(table, phones):
    """Issue 50 point 5: the question says what becomes of the riichi stick on the table, and
    game 1 ends as ended: its saved totals add up to the starting total."""
    fourth = phones[3]
    wait_page(fourth, "return window.jantakuPage.offered().includes('game_new')", "a new game", 90)
    table.d.cli("score", "add", "riichi", "player=west")
    left = table.d.wait(lambda s: s["session"]["score"]["sticks"] == 1,
                        what="the stick")["session"]["score"]["left_on_table"]
    st = table.d.get("/score").json()
    to = st["players"][left["to"]]
    before = answers(fourth)
    press(fourth, "#cmd-game_new")
    question = wait_page(fourth, "const d = document.getElementById('confirm'); return d.open && "
                         "document.getElementById('confirm-text').textContent", "the question", 5)
    assert question.startswith("End game 1 and begin game 2? Game 1 ends with the scores as "
                               "they stand: the riichi stick on the table (1,000) goes to first "
                               "place, %s (%s" % (to["name"], WIND[to["wind"]])), question
    fourth.js("document.getElementById('confirm-yes').click()")
    assert answered(fourth, before, "the new game")["status"] == 200
    first = table.d.get("/score?game=1").json()
    assert first["ended"] and first["sticks"] == 0
    assert sum(p["points"] for p in first["players"].values()) == 4 * 25000
    assert first["last"]["leftover_sticks"] == {left["to"]: 1000}
    assert "Starting a new game…" in fourth.js("return window.jantakuPage.trail")
    code_is(phones, "push_all")
    for b in phones:
        first_screen(b)
        wait_page(b, "return /^The centre closes in /.test(document.getElementById('cue').textContent)",
                  "the countdown")
        assert b.js("return document.body.classList.contains('pushing') && !document.getElementById('fault')")
    table.push()
    before = answers(phones[0])
    press(phones[0], "#primary")
    assert answered(phones[0], before, "the centre closed")["status"] == 200
    code_is(phones, "press_start", 90)


def test_the_end_names_what_is_sent(table, phones):
    second = phones[1]
    before = answers(second)
    press(second, "#cmd-end")
    wait_page(second, "return document.getElementById('confirm').open", "the question", 5)
    second.js("document.getElementById('confirm-empty').click()")  # every tile up too
    second.js("document.getElementById('confirm-yes').click()")
    assert answered(second, before, "the end")["status"] == 200
    trail = second.js("return window.jantakuPage.trail")
    assert "Ending the session…" in trail, trail
    for b in phones:
        said = " ".join(b.js("return window.jantakuPage.trail"))
        assert "Sending" not in said, (b.name, said)
    # the mixer's tiles are built into walls and come up once the top is clear
    code_is(phones[:1], "clear_top", 120)
    before = answers(phones[0])
    press(phones[0], "#primary")  # Done: the top is clear
    assert answered(phones[0], before, "the top clear")["status"] == 200
    all_show(phones, "return ['Start a session', 'Take the tiles out, or start a session']"
             ".includes(document.getElementById('headline').textContent)", "no session", 120)
    # issue 50 point 6: "Walls inside" says the walls came up, not "Building the deck being
    # built 0/36"
    for b in phones:
        title = wait_page(b, "const t = document.getElementById('build-title').textContent; "
                          "return t.startsWith('No walls inside') && t", "the walls up", 30)
        assert "being built" not in title, (b.name, title)
    no_console_errors(phones, meant=(409,))


def test_the_evenings_scores_stay_after_the_end(table, phones, tmp_path):
    """Issue 50 point 1: the page's "Earlier sessions" shows each game's placement and
    points and the hands scored; the export of the ended session is the same file from
    the page's link, GET /score/export and `jantaku score export` (from the daemon, and
    from its journal with --db)."""
    first = phones[0]
    li = "#history-list li[data-session='1']"
    line = wait_page(first, "const li = document.querySelector(arguments[0]); return li && "
                     "li.querySelector('.history-games') && li.textContent", "the session's "
                     "scores in Earlier sessions", 30, li)
    game1 = table.d.get("/score/export?session=1&game=1").json()["final"]
    assert game1["ended"] and sum(p["points"] for p in game1["players"].values()) == 100000
    hands = game1["hands_played"]
    assert "2 games, %d hands scored" % hands in line, line
    games = first.js("return Array.from(document.querySelectorAll(arguments[0] + ' .history-games "
                     "> li')).map(g => g.textContent)", li)
    winner = game1["players"][game1["placement"][0]]
    assert games[0].startswith("Game 1: final, %d hands scored — 1st %s (%s) %s" % (
        hands, winner["name"], WIND[winner["wind"]], "{:,}".format(winner["points"]))), games
    assert games[1] == "Game 2: no scores", games
    for fmt in ("csv", "json"):
        href = first.js("const a = document.querySelector(arguments[0] + \" .history-games "
                        "a[data-format='\" + arguments[1] + \"']\"); return a && a.href", li, fmt)
        assert href == table.url + "/score/export?session=1&game=1&format=" + fmt, href
        page = first.driver.execute_async_script(
            "const done = arguments[arguments.length - 1]; fetch(arguments[0]).then(r => "
            "r.text()).then(done)", href)
        api = table.d.get("/score/export?session=1&game=1&format=" + fmt)
        assert api.headers["content-disposition"] == \
            'attachment; filename="jantaku-session-1-game-1.%s"' % fmt
        out = tmp_path / ("cli." + fmt)
        table.d.cli("score", "export", "--session", "1", "--game", "1", "--format", fmt,
                    "-o", str(out))
        assert out.read_bytes() == api.content == page.encode("utf-8"), fmt
        offline = subprocess.run([tool("jantaku"), "score", "export", "--db", table.d.db,
                                  "--session", "1", "--game", "1", "--format", fmt],
                                 capture_output=True, timeout=60, cwd=str(ROOT))
        assert offline.returncode == 0 and offline.stdout == api.content, offline.stderr
    # the default: the last session (none is open), its last game with scores
    assert table.d.get("/score/export").content == table.d.get(
        "/score/export?session=1&game=1").content
