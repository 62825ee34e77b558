"""The table's page (hostd/web/page/, served at `/`) in a real browser: Debian's Chromium,
driven by Selenium through chromium-driver, against `jantaku run --sim`.

One daemon and one browser for the module; the tests run in order, as an evening goes:
the page loads with nothing but the daemon's own files, a session started from the CLI
fills the walls on screen, a fresh page shows the built deck at once, the hand over's
throw shows the break on the breaker's wall, the phone layout keeps everything on screen,
and a jam (injected in build 3) shows its message and what to do.

`JANTAKU_PAGE_SHOTS=1` also writes the screenshots into docs/page/ (desktop and phone;
building, built with a break, fault); a normal run writes nothing.
"""
import json
import os
import time

import httpx
import pytest

from tests.conftest import ROOT
from tests.e2e import chromium
from tests.e2e.conftest import start_daemon

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(chromium.missing() is not None,
                                 reason=chromium.missing() or "")]

SHOTS = ROOT / "docs" / "page" if os.environ.get("JANTAKU_PAGE_SHOTS") == "1" else None
PHONE = (390, 844)
DESKTOP = (1280, 900)
SEATS = ["self", "right", "across", "left"]  # counter-clockwise, seen from the thrower


@pytest.fixture(scope="module")
def table(tmp_path_factory, hil_port):
    if hil_port:
        pytest.skip("the page's browser test injects a jam: simulated table only")
    tmp = tmp_path_factory.mktemp("page")
    d = start_daemon(tmp, None, extra=["--sim-speed", "10", "--sim-mixed-deck",
                                       "--sim-fault", "jam:track=2,build=3,after=10"])
    yield d
    d.proc.kill()


@pytest.fixture(scope="module")
def browser():
    b = chromium.start(*DESKTOP)
    b.requests = []  # every URL the page asked for, over the whole module
    yield b
    b.close()


def settle(browser):
    """No console error so far, and every request went to the daemon."""
    errors = browser.console_errors()
    assert errors == [], "console errors: %s" % json.dumps(errors, indent=1)
    browser.requests += browser.requested_urls()


def wait_page(browser, script, what, timeout=20, *args):
    """Poll ``script`` (JavaScript returning a value) in the page until it is truthy."""
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        last = browser.js(script, *args)
        if last:
            return last
        time.sleep(0.05)
    raise AssertionError("the page did not show %s within %g s; it shows:\n%s"
                         % (what, timeout, browser.text("main")))


def shoot(browser, name, phone=False):
    if SHOTS is None:
        return
    SHOTS.mkdir(parents=True, exist_ok=True)
    if phone:
        browser.viewport(*PHONE, mobile=True)
    browser.js("document.activeElement && document.activeElement.blur()")
    time.sleep(0.3)  # one frame after a resize
    browser.screenshot(str(SHOTS / ("%s-%s.png" % (name, "phone" if phone else "desktop"))))
    if phone:
        browser.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


COUNTS = "return Array.from(document.querySelectorAll('#tracks .count')).map(e => e.textContent)"


def test_the_page_is_served_by_the_daemon_with_every_asset(table, browser):
    r = httpx.get(table.url + "/", timeout=10)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in r.headers["content-security-policy"]
    browser.driver.get(table.url + "/")
    wait_page(browser, "return document.getElementById('live').textContent === 'live' && "
              "document.getElementById('headline').textContent === 'No session'",
              "the event stream open, no session")
    assert "jantaku session start" in browser.text("#next")
    assert "reference-18" in browser.text("#facts")
    settle(browser)
    assert {u.split("?")[0] for u in browser.requests} >= {
        table.url + p for p in ("/", "/page/app.js", "/page/words.js", "/page/style.css",
                                "/events")}


def test_a_session_started_from_the_cli_fills_the_walls_on_screen(table, browser):
    # every count the page shows, as it changes (the build takes about 2 s at --sim-speed 10)
    browser.js("""
        window.__counts = [];
        new MutationObserver(() => {
          document.querySelectorAll('#tracks .count').forEach(e => window.__counts.push(e.textContent));
        }).observe(document.getElementById('tracks'), {subtree: true, childList: true, characterData: true});
    """)
    table.cli("session", "start", "--ruleset", "riichi", "--mixed-deck", "--seed", "11", "--no-wait")
    if SHOTS is not None:  # a screenshot while the walls fill, if we catch it half-way
        try:
            wait_page(browser, COUNTS + ".some(t => { const n = +t.split('/')[0]; "
                      "return n >= 12 && n <= 24; })", "a half-built wall", 10)
            shoot(browser, "building")
        except AssertionError:
            pass
    wait_page(browser, COUNTS + ".join() === '34/34,34/34,34/34,34/34'", "four full tracks")
    wait_page(browser, "return document.getElementById('build-title').textContent"
              ".includes('Deck A built: 136 tiles')", "deck A built")
    seen = browser.js("return window.__counts")
    partial = {t for t in seen if 0 < int(t.split("/")[0]) < 34}
    assert len(partial) >= 10, "the walls did not fill tile by tile: %s" % sorted(set(seen))
    # each tile drawn in its back colour: the page's tiles by colour are deck A's backs
    status = table.wait(lambda s: s["session"]["decks"]["A"].get("tiles") == 136,
                        what="deck A counted")
    drawn = browser.js("""
        const n = {};
        document.querySelectorAll('#tracks .tile.on').forEach(t => { n[t.title] = (n[t.title] || 0) + 1; });
        return n;""")
    backs = {c: n for c, n in status["session"]["decks"]["A"]["backs"].items() if n}
    assert drawn == backs
    assert len(backs) == 2  # Mixed Deck: both sets' backs in one deck
    settle(browser)


def test_a_page_opened_on_a_built_deck_shows_it_within_seconds(table, browser):
    status = table.get("/status").json()
    assert status["session"]["phase"] == "built" and status["session"]["hand"] == 0
    t0 = time.monotonic()
    browser.driver.get(table.url + "/")
    wait_page(browser, COUNTS + ".join() === '34/34,34/34,34/34,34/34'", "four full tracks", 5)
    wait_page(browser, "return document.querySelector('#deck-list [data-deck=A] .tiles')"
              "?.textContent === '136 tiles'", "deck A's 136 tiles", 5)
    shown = time.monotonic() - t0
    text = browser.text("main")
    assert "riichi" in browser.text("#fact-ruleset")
    assert "Mixed Deck" in browser.text("#fact-ruleset")
    for d, deck in status["session"]["decks"].items():  # every deck whose count is known
        if "tiles" in deck:
            card = browser.text("#deck-list [data-deck=%s]" % d)
            assert "%d tiles" % deck["tiles"] in card
            for colour, n in deck["backs"].items():
                assert "%s %d" % (colour, n) in card
    assert "press start" in browser.text("#next")
    assert browser.text("#headline") == "Walls ready inside"
    assert shown < 5, text
    settle(browser)


def expected_dead_stacks(breaker, total, stacks, dead_tiles):
    """The dead wall's stacks as (seat, n from the right end): the ``dead_tiles`` tiles
    to the right of the break ``total`` stacks from the breaker's right end, carried on
    round the corner to the next seat's wall (counter-clockwise) near the corner."""
    dead_stacks = dead_tiles // 2
    on_breaker = list(range(max(1, total - dead_stacks + 1), min(total, stacks) + 1))
    out = {(breaker, n) for n in on_breaker}
    rest = dead_stacks - len(on_breaker)
    nxt = SEATS[(SEATS.index(breaker) + 1) % 4]
    out |= {(nxt, stacks - i) for i in range(rest)}  # from that wall's left end
    return out


def test_the_dead_wall_for_every_throw(table, browser):
    """Every total of 2d6 on 17-stack walls (Riichi: stacks, 14 tiles), and 3d6 on 21-stack
    walls counted in tiles (Ùzje: 16 tiles, a break that may fall mid-stack)."""
    for breaker in SEATS:
        for total in range(2, 13):
            t = {"breaker": breaker, "break_from_right": total, "unit": "stacks",
                 "dead_wall_tiles": 14}
            got = {tuple(x.split(":")) for x in browser.js(
                "return window.jantakuPage.deadStacks(arguments[0], 17)", t)}
            assert {(s, int(n)) for s, n in got} == expected_dead_stacks(breaker, total, 17, 14)
        for total in range(3, 19):
            t = {"breaker": breaker, "break_from_right": total, "unit": "tiles",
                 "dead_wall_tiles": 16}
            got = {(s, int(n)) for s, n in (x.split(":") for x in browser.js(
                "return window.jantakuPage.deadStacks(arguments[0], 21)", t))}
            # tiles total-15 .. total from the right end; past the end, the next wall's
            want = set()
            nxt = SEATS[(SEATS.index(breaker) + 1) % 4]
            for p in range(total - 15, total + 1):
                want.add((breaker, (p + 1) // 2) if p >= 1 else (nxt, 21 - (-p) // 2))
            assert got == want, (breaker, total)


def test_the_throw_shows_the_break_on_the_breakers_wall(table, browser):
    if SHOTS is not None:  # the phone's screenshot of the next build, while it fills
        browser.viewport(*PHONE, mobile=True)
    table.cli("hand-over", "--no-wait")
    if SHOTS is not None:
        try:
            wait_page(browser, COUNTS + ".some(t => { const n = +t.split('/')[0]; "
                      "return n >= 12 && n <= 24; })", "a half-built wall", 10)
            browser.screenshot(str(SHOTS / "building-phone.png"))
        except AssertionError:
            pass
        browser.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    table.wait(lambda s: s["session"]["hand"] == 1, what="hand 1's walls up")
    # the walls are up; nobody threw yet: the page says so, and draws no break
    wait_page(browser, "return document.getElementById('throw').textContent === "
              "'Hand 1: the walls are up; throw the dice.'", "the walls up, no throw")
    assert browser.js("return document.querySelectorAll('#table-top .break-line').length") == 0
    assert browser.js("return document.querySelectorAll('#table-top .stack-top').length") == 68
    table.cli("dice", "2,3")  # physical dice, entered: the dead wall turns the corner
    status = table.wait(lambda s: s["session"]["hand"] == 1 and s["session"]["phase"] == "built"
                        and s["session"]["dice"], what="hand 1 thrown, deck B built inside")
    s = status["session"]
    dice, breaker = s["dice"]["dice"], s["dice"]["breaker"]
    assert dice == [2, 3] and s["dice"]["by"] == "entered"
    total = sum(dice)
    wait_page(browser, "return document.querySelector('#table-top g.breaker')", "the break")
    wait_page(browser, COUNTS + ".join() === '34/34,34/34,34/34,34/34'", "deck B built")
    walls = browser.js("""
        return Array.from(document.querySelectorAll('#table-top g.wall-top')).map(g => ({
          seat: g.dataset.seat, breaker: g.classList.contains('breaker'),
          brk: g.dataset.breakFromRight || null, lines: g.querySelectorAll('.break-line').length,
          stacks: g.querySelectorAll('.stack-top').length,
          dead: Array.from(g.querySelectorAll('.stack-top.dead')).map(r => +r.dataset.stack)}));""")
    assert [w["seat"] for w in walls] == SEATS
    assert [w["seat"] for w in walls if w["breaker"]] == [breaker]
    (bw,) = [w for w in walls if w["breaker"]]
    assert bw["brk"] == str(total) and bw["lines"] == 1
    assert all(w["stacks"] == 17 for w in walls)
    dead = {(w["seat"], n) for w in walls for n in w["dead"]}
    assert dead == expected_dead_stacks(breaker, total, 17, 14)
    seat_words = {"self": "the thrower", "right": "the thrower's right",
                  "across": "the player across", "left": "the thrower's left"}
    assert browser.text("#throw") == "Hand 1 (deck A): dice 2 + 3 = 5 (physical dice, entered)"
    assert browser.text("#break") == ("Break the wall of %s, %d stacks from its right end."
                                      % (seat_words[breaker], total))
    assert "14 tiles (7 stacks)" in browser.text("#dead")
    # the hand over shows: the hand, where the decks went, the latest events
    assert browser.text("#fact-hand") == "1 of game 1 (hand 1 of the session)"
    assert browser.text("#fact-game") == "1"
    assert browser.text("#fact-deck-A") == "on the table top"
    assert browser.text("#fact-deck-B") == "built inside"
    log = browser.text("#log")
    assert "Hand over: deck A comes up" in log
    assert "Hand 1 began on deck A: the walls are up" in log
    assert "Dice for hand 1: 2 + 3 = 5" in log
    shoot(browser, "built-break")
    shoot(browser, "built-break", phone=True)
    settle(browser)


def test_the_phone_layout_shows_everything_without_scrolling_sideways(table, browser):
    browser.viewport(*PHONE, mobile=True)
    try:
        time.sleep(0.3)
        width = browser.js("return [document.documentElement.scrollWidth, window.innerWidth]")
        assert width == [PHONE[0], PHONE[0]], "the page is %d px wide on a %d px phone" % (
            width[0], width[1])
        boxes = browser.js("""
            return Array.from(document.querySelectorAll('main > section:not([hidden]), '
                + '#tracks .track, #tracks .count, #table-top svg, #deck-list .deck')).map(e => {
              const r = e.getBoundingClientRect();
              return [e.id || e.className, r.left, r.right, r.width, r.height]; });""")
        assert len(boxes) >= 5 + 4 + 4 + 1 + 2
        for name, left, right, w, h in boxes:
            assert left >= 0 and right <= PHONE[0] and w > 0 and h > 0, (name, left, right)
        # the things a player reads are big enough to read
        size = browser.js("return parseFloat(getComputedStyle(document.getElementById('next')).fontSize)")
        assert size >= 16
    finally:
        browser.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    settle(browser)


def test_the_page_is_keyboard_reachable(table, browser):
    from selenium.webdriver.common.keys import Keys

    body = browser.driver.find_element("css selector", "body")
    body.send_keys(Keys.TAB)
    focused = browser.js("return document.activeElement.tagName + ' ' + "
                         "document.activeElement.id")
    assert focused == "INPUT pair-code"  # an unpaired browser's first control: the code
    assert browser.js("return document.activeElement.labels[0].textContent") == "Pairing code"
    outline = browser.js("return getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"  # focus is visible
    # every section is labelled by its heading (a screen reader lists them)
    labels = browser.js("""return Array.from(document.querySelectorAll('main > section')).map(
        s => document.getElementById(s.getAttribute('aria-labelledby')).textContent)""")
    assert labels[:2] == [browser.text("#headline"), "Fault"]
    assert "Walls inside" in labels and "On the table" in labels and "Decks" in labels


def test_a_jam_shows_its_message_and_what_to_do(table, browser):
    table.cli("hand-over", "--no-wait")  # hand 2; deck A is rebuilt inside: build 3 jams
    table.wait(lambda s: s["session"]["hand"] == 2, what="hand 2's walls up")
    table.cli("dice")  # the table throws, as the dice button does
    status = table.wait(lambda s: s["session"] and s["session"]["stopped"],
                        what="the jam to stop the build", timeout=60)
    stopped = status["session"]["stopped"]
    assert stopped["kind"] == "jam"
    wait_page(browser, "return !document.getElementById('fault').hidden && "
              "document.getElementById('headline').textContent === 'Fault'", "the fault")
    assert browser.text("#fault-message") == stopped["message"].replace("`", "")
    assert browser.text("#fault-todo") == stopped["ask"].replace("`", "")
    assert "track 2" in browser.text("#fault-message").lower()
    said = stopped["message"].replace("`", "")
    log = browser.text("#log")
    assert log.count(said) == 1, log  # one fault, said once (not once per event)
    assert not browser.js("return document.getElementById('next').hidden === false")
    # the walls show where it stopped: track 2 short of its 34
    counts = browser.js(COUNTS)
    assert counts[1] != "34/34"
    shoot(browser, "fault")
    shoot(browser, "fault", phone=True)
    settle(browser)


def test_a_paired_page_offers_what_a_fault_allows_and_shows_the_refusal(table, browser):
    """With the jam above: a paired page offers only what a fault allows (continue, fault
    fixed, abort); "fault fixed" while the jam is still there shows the table's refusal
    and what to do."""
    code = json.loads(table.cli("pair", "--new", "--json").stdout)["code"]
    assert browser.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch('/pair', {method: 'POST', headers: {'Content-Type': 'application/json'},
                        body: JSON.stringify({code: arguments[0]})}).then(r => done(r.status));""",
        code) == 200
    browser.js("window.location.reload()")
    wait_page(browser, "return window.jantakuPage.paired === true && "
              "!document.getElementById('cmd-clear-fault').disabled && "
              "document.getElementById('cmd-clear-fault').offsetParent !== null", "fault fixed")
    assert set(browser.js("return window.jantakuPage.offered()")) == {
        "continue", "clear-fault", "abort"}
    assert browser.text("#cmd-clear-fault") == "Fault fixed: clear it"
    browser.js("document.getElementById('answer').className = '';"
               "document.getElementById('cmd-clear-fault').click()")
    text = wait_page(browser, "const a = document.getElementById('answer'); return "
                     "['done', 'refused'].includes(a.className) && a.textContent", "the answer")
    # the simulated jam stays until its tile is taken out: the table refuses, and the page
    # shows the refusal with the next step, in the daemon's words
    assert browser.js("return document.getElementById('answer').className") == "refused", text
    assert text.startswith("Fault fixed: clear it: refused — ")
    assert "take the stuck tile out of track 2 by hand" in text
    assert not browser.js("return document.getElementById('fault').hidden")
    assert table.status()["session"]["stopped"]
    browser.console_errors()  # the refusal (409) is logged by Chromium as a failed load
    settle(browser)


def test_no_request_left_the_daemons_origin(table, browser):
    settle(browser)
    assert browser.requests, "the network log is empty: the test cannot see requests"
    elsewhere = sorted({u for u in browser.requests
                        if not (u.startswith(table.url + "/") or u == "about:blank")})
    assert elsewhere == []


def test_a_page_whose_daemon_stopped_says_so(table, browser):
    table.proc.kill()  # the daemon ends (and its simulated table with it)
    wait_page(browser, "return document.getElementById('headline').textContent === "
              "'Page not connected'", "that the daemon is gone")
    assert "reconnects by itself" in browser.text("#why")
    assert browser.text("#live") == "reconnecting…"
