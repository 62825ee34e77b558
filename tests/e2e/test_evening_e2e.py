"""A whole evening run from the table's page only (issue 18), in a real browser (Debian's
Chromium through Selenium) against `jantaku run --sim`: nothing but the page's buttons
moves the table.

In order: an unpaired browser sees the table but cannot press; the browser pairs with the
code `jantaku pair --new` prints; it starts a Mixed Deck session, runs three hand overs
with throws (the table's dice, then physical dice entered, then the table's), the third
meeting a broken light curtain that pressing "Continue" gets past, a new game
(confirmed in the page) whose push window "Done: close the centre" closes, and ends the
session (confirmed); a page from another origin cannot command the table even in the
paired browser; after pairing again, a normal start is refused with what to do, a Mixed
Deck start is aborted while people are asked, and the table starts again. At every step
the page offers exactly what the daemon's `can` holds.

`JANTAKU_PAGE_SHOTS=1` also writes a screenshot of each step into docs/page/evening-*.png.
"""
import json
import os
import time

import pytest

from tests.conftest import ROOT
from tests.e2e import chromium
from tests.e2e.conftest import start_daemon

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(chromium.missing() is not None,
                                 reason=chromium.missing() or "")]

SHOTS = ROOT / "docs" / "page" if os.environ.get("JANTAKU_PAGE_SHOTS") == "1" else None


# the same evening on both mechanism families (issue 47): the reference table and the
# four-port machine (`run --sim-board fourport-24v`)
@pytest.fixture(scope="module", params=[None, "fourport-24v"], ids=["reference", "fourport"])
def table(tmp_path_factory, hil_port, request):
    if hil_port:
        pytest.skip("the evening from the page runs on the simulated table")
    # the table at 50 times the wall clock; the centre stays open 600 table seconds (12 s
    # here) unless Continue closes it; a hand's curtain breaks for 200 ms during hand
    # over 3's lift (the first lift after build 3 starts)
    d = start_daemon(tmp_path_factory.mktemp("evening"), None, extra=[
        "--sim-mixed-deck", "--sim-speed", "50", "--push-window", "600",
        "--sim-fault", "guard:build=3,during=lift"]
        + (["--sim-board", request.param] if request.param else []))
    yield d
    d.proc.kill()


@pytest.fixture(scope="module")
def browser(table):  # (one per table: a page of the other family's daemon says nothing here)
    b = chromium.start(1280, 1000)
    yield b
    b.close()


def wait_page(browser, script, what, timeout=30, *args):
    return browser.wait(script, what, timeout, *args, show=("main", "#answer"))


PAGE_COMMANDS = ["start", "hand_over", "dice", "continue", "clear_fault", "game_new", "end",
                 "abort"]


def offered(browser):
    """The commands the page offers (a visible, enabled button each), once they are the
    page's share of `can` (the page draws on its next frame)."""
    end = time.monotonic() + 3
    while True:
        got, can = browser.js("return [window.jantakuPage.offered(), "
                              "(window.jantakuPage.status || {can: []}).can]")
        if got == [c for c in PAGE_COMMANDS if c in can] or time.monotonic() > end:
            assert got == [c for c in PAGE_COMMANDS if c in can], (got, can)
            return set(got)
        time.sleep(0.05)


def visible_buttons(browser):
    return browser.js("""return Array.from(document.querySelectorAll('#primary, [data-cmd]'))
        .filter(b => b.offsetParent !== null && b.dataset.cmd)
        .map(b => [b.dataset.cmd, b.disabled, b.textContent])""")


def shown(browser, id_):
    """Drawn on screen (not only without the hidden attribute: CSS could override it)."""
    from selenium.webdriver.common.by import By

    return browser.driver.find_element(By.ID, id_).is_displayed()


BUTTON = """const cmd = arguments[0], p = document.getElementById('primary');
    return p.dataset.cmd === cmd ? p : document.getElementById('cmd-' + cmd);"""


def wait_offered(browser, cmd, what, timeout=60):
    """The table can take ``cmd`` (status), and the page draws its button (the primary or
    one of the rows), enabled and saying what it does."""
    wait_page(browser, "const b = (function () {" + BUTTON + "}).apply(null, arguments); "
              "return window.jantakuPage.offered().includes(arguments[0]) && "
              "!window.jantakuPage.sending && b && b.offsetParent !== null && !b.disabled && "
              "b.textContent.length > 3", what, timeout, cmd)


def press(browser, cmd, confirm=False):
    """Click the command's button (`confirm`: and say yes in the page's own dialog)."""
    browser.last = browser.js("return window.jantakuPage.answers || 0")
    button = browser.js("return (function () {" + BUTTON + "}).apply(null, arguments)", cmd)
    browser.js("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    if confirm:
        wait_page(browser, "return document.getElementById('confirm').open", "the question", 5)
        browser.js("document.getElementById('confirm-yes').click()")


def tap(browser, id_):
    """Click #id_ as a person would: scrolled to where it can be seen (clear of the page's
    sticky top and of a fault's banner), then clicked."""
    from selenium.webdriver.common.by import By

    e = browser.driver.find_element(By.ID, id_)
    browser.js("arguments[0].scrollIntoView({block: 'center'})", e)
    e.click()


def people_done_then_built(browser, what, check=None):
    """The centre open for people (the start's or a new game's push window): its button
    closes it once they are done (`check()` first looks at the page), then deck A is
    built inside and the hand over is offered."""
    wait_offered(browser, "continue", "the push window (%s)" % what, 60)
    if check is not None:
        check()
    press(browser, "continue")
    answered(browser, "the centre closed (%s)" % what)
    wait_offered(browser, "hand_over", "deck A built (%s)" % what, 120)


def answered(browser, what, ok=True):
    """The table's answer to the last press, once it came: its words (as the page showed
    them under the buttons)."""
    a = wait_page(browser, "const a = window.jantakuPage.lastAnswer; return a && "
                  "!window.jantakuPage.sending && a.n > arguments[0] && a", what, 30,
                  getattr(browser, "last", 0))
    assert (a["status"] == 200) == ok, a
    return a["text"]


def shoot(browser, name):
    if SHOTS is None:
        return
    SHOTS.mkdir(parents=True, exist_ok=True)
    time.sleep(0.3)
    browser.screenshot(str(SHOTS / ("evening-%s.png" % name)))


def no_console_errors(browser, meant=(401, 403)):
    # a refused command is logged by Chromium as a failed load: those are meant
    errors = [e for e in browser.console_errors()
              if not any("status of %d" % n in e["message"] for n in meant)]
    assert errors == [], json.dumps(errors, indent=1)


def test_an_unpaired_browser_sees_the_table_but_cannot_press(table, browser):
    browser.driver.get(table.url + "/")
    wait_page(browser, "return document.getElementById('live').textContent === 'live' && "
              "document.getElementById('headline').textContent === 'Start a session' && "
              "window.jantakuPage.paired === false", "the table, not paired")
    assert "cannot press" in browser.text("#pair-note")
    assert browser.text("#history-list") == "No earlier session."
    assert shown(browser, "pair-form") and shown(browser, "start-form")
    assert browser.js("return document.getElementById('primary').disabled") is True
    assert browser.js("return window.jantakuPage.offered()") == []
    # even a request made by hand from the page is refused: the daemon wants pairing
    r = browser.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch('/session', {method: 'POST', headers: {'Content-Type': 'application/json'},
                           body: JSON.stringify({ruleset: 'riichi'})})
          .then(r => r.json().then(j => done([r.status, j.error.code])));""")
    assert r == [401, "not_paired"]
    assert table.status()["session"] is None
    shoot(browser, "1-unpaired")
    no_console_errors(browser)


def test_a_wrong_code_is_refused_and_the_right_one_pairs(table, browser):
    from selenium.webdriver.common.by import By

    code = json.loads(table.cli("pair", "--new", "--json").stdout)["code"]
    assert len(code) == 9
    box = browser.driver.find_element(By.ID, "pair-code")
    box.send_keys("ZZZZ-0000")
    tap(browser, "pair-button")
    text = wait_page(browser, "return document.getElementById('answer').className === 'refused'"
                     " && document.getElementById('answer').textContent", "a refusal")
    # it says where a fresh code comes from, and names no command (issue 42)
    assert "not right" in text and "Pair another phone" in text and "jantaku" not in text
    box.send_keys(code.lower())  # as typed on a phone
    tap(browser, "pair-button")
    wait_page(browser, "return window.jantakuPage.paired === true && document.getElementById("
              "'pair-note').textContent.includes('is paired')", "paired")  # (drawn next frame)
    assert not shown(browser, "pair-form")
    # the cookie is invisible to the page's scripts; no secret in the address
    assert browser.js("return document.cookie") == ""
    assert browser.driver.current_url == table.url + "/"
    assert code not in table.proc.log()  # never in the daemon's log
    shoot(browser, "2-paired")
    no_console_errors(browser)


def test_start_a_mixed_deck_session_from_the_page(table, browser):
    from selenium.webdriver.support.ui import Select
    from selenium.webdriver.common.by import By

    wait_offered(browser, "start", "the start form")
    Select(browser.driver.find_element(By.ID, "ruleset")).select_by_value("riichi")
    tap(browser, "mixed")
    wait_page(browser, "return document.getElementById('primary').textContent === "
              "'Start: Riichi (base), Mixed Deck'", "the start button saying what it starts")
    # the backs: chosen among the colours the table knows (no free text), blank its own
    known = table.status()["table"]["identity"]["colours"]
    for box in ("colour-a", "colour-b"):
        values = [o.get_attribute("value") for o in
                  Select(browser.driver.find_element(By.ID, box)).options]
        assert values[0] == "" and set(values[1:]) == set(known) - {"unknown"}, values
    Select(browser.driver.find_element(By.ID, "colour-a")).select_by_value("blue")
    Select(browser.driver.find_element(By.ID, "colour-b")).select_by_value("green")
    shoot(browser, "3-start")
    press(browser, "start")
    answered(browser, "the session started")
    # the table does not know where the tiles are: the centre opens for people to push
    # any on the top in, until they say they are done
    people_done_then_built(browser, "the start")
    s = table.status()["session"]
    assert s["ruleset"] == "riichi" and s["mixed_deck"] is True and s["hand"] == 0
    assert s["sets"] == ["blue", "green"]
    assert "Mixed Deck" in browser.text("#fact-ruleset")
    assert browser.text("#fact-safety").startswith("closed")  # the chain as the table reads it
    # only what the table can take: no dice before a hand, no session start twice
    assert offered(browser) == {"hand_over", "end", "abort"}
    assert {b[0] for b in visible_buttons(browser)} == {"hand_over", "end", "abort"}
    assert browser.text("#primary") == "Hand over"
    assert not shown(browser, "start-form") and not shown(browser, "pair-form")
    shoot(browser, "4-built")
    no_console_errors(browser)


@pytest.mark.parametrize("hand,throw", [(1, "dice"), (2, "3,4"), (3, "dice")])
def test_a_hand_over_and_its_throw_from_the_page(table, browser, hand, throw):
    from selenium.webdriver.common.by import By

    wait_offered(browser, "hand_over", "the hand over", 90)
    # after the first hand its tiles are on the top: the page asks whether they went in
    press(browser, "hand_over", confirm=hand > 1)
    answered(browser, "the hand over taken")
    if hand == 3:  # someone reached in while the lift moved: the fault, then the lift again
        wait_page(browser, "const f = document.getElementById('fault'); return f && "
                  "f.dataset.kind === 'guard'", "the guard fault", 60)
        assert "dice" not in offered(browser)
        assert browser.text("#fault-title") == ("Fault: Someone reached over the table's edge, "
                                                "or the lid opened")
        assert browser.text("#fault-todo") == ("Keep hands and things clear of the sensor over "
                                               "the table's edge and close the lid, then press "
                                               "“Continue”.")
        assert browser.text("#fault-do") == "Continue"  # the button the banner names, in it
        assert table.status()["fault"]["kind"] == "guard"
        assert {"continue", "hand_over"} <= set(table.status()["can"])  # start again works too
        shoot(browser, "5-hand-3-fault")
        browser.last = browser.js("return window.jantakuPage.answers || 0")
        browser.js("document.getElementById('fault-do').click()")
        answered(browser, "the lift again")
        wait_page(browser, "return !document.getElementById('fault')", "the fault gone", 30)
    wait_offered(browser, "dice", "hand %d's walls up, the dice" % hand, 60)
    assert table.status()["session"]["hand"] == hand
    if throw == "dice":
        press(browser, "dice")
    else:
        browser.driver.find_element(By.ID, "dice-faces").send_keys(throw)
        press(browser, "dice_entered")
    answered(browser, "the throw taken")
    text = wait_page(browser, "const b = document.getElementById('break'); return b && b.textContent",
                     "hand %d's throw" % hand)
    dice = table.status()["session"]["dice"]
    assert dice["hand"] == hand
    assert text.startswith("%s = %d · break " % ("+".join(map(str, dice["dice"])), dice["total"]))
    if throw == "dice":
        assert dice["by"] == "api"
    else:
        assert dice["dice"] == [3, 4] and dice["by"] == "entered"
        wait_page(browser, "return document.getElementById('log').textContent.includes("
                  "'Dice for hand 2 of game 1: 3 + 4 = 7 (your dice, entered)')", "the throw logged")
    assert "dice" not in offered(browser)  # one throw a hand
    shoot(browser, "5-hand-%d" % hand)
    no_console_errors(browser)


def test_a_new_game_from_the_page(table, browser):
    wait_offered(browser, "game_new", "a new game", 90)
    assert shown(browser, "apart")  # the ending commands sit apart from the everyday ones
    press(browser, "game_new", confirm=True)
    assert answered(browser, "the new game taken") == "New game: done."
    # the walls inside come up and the centre opens: people push everything in, then say so
    wait_offered(browser, "continue", "the push window", 60)
    assert browser.text("#headline") == "Push every tile into the centre"
    assert browser.text("#primary") == "Done: close the centre"
    assert table.status()["next"]["code"] == "push_all"
    # the last walls built inside went up to the table top: the panel says so
    wait_page(browser, "return document.getElementById('build-title').textContent === "
              "'Deck B was built here; now on the table top' && "
              "document.getElementById('tracks').classList.contains('gone')", "the walls gone up")
    shoot(browser, "6-push")
    press(browser, "continue")
    answered(browser, "the centre closed")
    st = table.wait(lambda s: s["session"]["game"] == 2 and s["state"]["name"] == "built",
                    timeout=120, what="game 2's deck built")
    assert st["session"]["hand"] == 3  # hands count on over the session
    wait_offered(browser, "hand_over", "game 2's first hand over", 30)
    wait_page(browser, "return document.getElementById('fact-game').textContent.startsWith('2')",
              "game 2")
    shoot(browser, "7-new-game")
    no_console_errors(browser)


@pytest.fixture
def other_site():
    """Another web site on this host (another port: another origin, the same site for
    cookies): a plain page, served from a thread."""
    import http.server
    import threading

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = b"<!doctype html><p>another site</p>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield "http://127.0.0.1:%d" % server.server_address[1]
    server.shutdown()
    server.server_close()
    thread.join(5)


def test_a_page_of_another_origin_cannot_command_the_table(table, browser, other_site):
    """The paired browser on another site's page: its request reaches the daemon (a simple
    POST needs no preflight; another port is the same site, so even the cookie goes) and
    is refused for its Origin."""
    main = browser.driver.current_window_handle
    before = table.proc.log().count("cross_origin_refused")
    browser.driver.switch_to.new_window("tab")
    try:
        browser.driver.get(other_site + "/")
        r = browser.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            fetch(arguments[0] + '/abort', {method: 'POST', mode: 'no-cors', credentials: 'include'})
              .then(r => done('sent ' + r.type), e => done('error ' + e));""", table.url)
        assert r == "sent opaque", r
        end = time.monotonic() + 5
        while table.proc.log().count("cross_origin_refused") == before:
            assert time.monotonic() < end, table.proc.log()[-2000:]
            time.sleep(0.05)
        st = table.status()
        assert st["session"] is not None and st["session"]["game"] == 2  # not aborted
    finally:
        browser.driver.close()
        browser.driver.switch_to.window(main)
    browser.console_errors()  # the other page's refused request is its own


def test_end_the_session_from_the_page(table, browser):
    wait_offered(browser, "end", "the end of the session", 60)
    press(browser, "end", confirm=True)
    answered(browser, "the session ended")
    table.wait(lambda s: s["session"] is None and s["state"]["name"] == "idle", what="no session")
    wait_page(browser, "return ['Start a session', 'Take the tiles out, or start a session']"
              ".includes(document.getElementById('headline').textContent)", "no session")
    wait_offered(browser, "start", "a new session may start", 30)
    sessions = json.loads(table.cli("history", "--json").stdout)["sessions"]
    # the evening is in the history: two games, three hands, the entered throw
    last = sessions[0]
    assert last["state"] == "ended" and last["mixed_deck"] is True
    assert [g["game"] for g in last["games"]] == [1, 2]
    hands = [h for g in last["games"] for h in g["hands"]]
    assert [h["hand"] for h in hands] == [1, 2, 3]
    assert hands[1]["dice"] == [3, 4] and hands[1]["dice_by"] == "entered"
    # and on the page, under "Earlier sessions"
    wait_page(browser, "const li = document.querySelector('#history-list li[data-session=\"1\"]');"
              " return li && li.textContent.includes("
              "'Session 1: Riichi (base), Mixed Deck — ended, 2 games, no scores')", "the evening's history")
    shoot(browser, "8-ended")
    no_console_errors(browser)


def test_revoke_all_unpairs_and_a_scanned_code_pairs_without_staying_in_the_address(table, browser):
    """`jantaku pair --revoke-all` ends the browser's session; the QR code's address
    (`#pair=CODE`) pairs the browser at once and leaves the address bar clean."""
    out = table.cli("pair", "--revoke-all").stdout
    assert "1 browser session(s) ended" in out
    browser.driver.get(table.url + "/")
    wait_page(browser, "return window.jantakuPage.paired === false", "unpaired after revoke-all")
    wait_page(browser, "return document.getElementById('primary').disabled", "the start disabled")
    text = table.cli("pair", "--new", "--page-url", table.url + "/").stdout
    code = text.split("type the code ", 1)[1].split(" ", 1)[0]
    assert "#pair=" not in text.split("\n", 1)[0]  # the words give the code, not a URL with it
    assert "\u2588" in text or "\u2580" in text or "\u2584" in text  # the QR code's blocks
    browser.driver.get(table.url + "/#pair=" + code)
    wait_page(browser, "return window.jantakuPage.paired === true", "paired by the scanned code")
    assert browser.driver.current_url == table.url + "/"
    wait_page(browser, "return !document.getElementById('primary').disabled", "the start enabled")
    no_console_errors(browser)


def test_the_owner_sees_each_paired_browser_and_a_browser_can_forget_itself(table, browser):
    """`jantaku pair --list` names this browser (Chrome on Linux); "Forget this browser"
    ends its pairing (the list is empty again); a fresh code pairs it again."""
    from selenium.webdriver.common.by import By

    listed = json.loads(table.cli("pair", "--list", "--json").stdout)["browsers"]
    assert len(listed) == 1 and listed[0]["browser"] == "Chrome on Linux"
    assert listed[0]["address"] == "127.0.0.1"
    assert listed[0]["id"] in table.cli("pair", "--list").stdout
    wait_page(browser, "const b = document.getElementById('forget'); "
              "return b.offsetParent !== null && b.textContent === 'Forget this browser'",
              "the forget button")
    tap(browser, "forget")
    wait_page(browser, "return window.jantakuPage.paired === false && "
              "document.getElementById('answer').textContent.includes('no longer paired')",
              "unpaired by forgetting")
    assert not shown(browser, "forget") and shown(browser, "pair-form")
    wait_page(browser, "return document.getElementById('primary').disabled", "the start disabled")
    assert "no browser is paired" in table.cli("pair", "--list").stdout
    code = json.loads(table.cli("pair", "--new", "--json").stdout)["code"]
    browser.driver.find_element(By.ID, "pair-code").send_keys(code)
    tap(browser, "pair-button")
    wait_page(browser, "return window.jantakuPage.paired === true", "paired again")
    no_console_errors(browser)


def japanese_font():
    """A font with Japanese glyphs for Chromium (Debian: fonts-noto-cjk)."""
    import shutil
    import subprocess

    fc = shutil.which("fc-list")
    return bool(fc and subprocess.run([fc, ":lang=ja"], capture_output=True, text=True,
                                      timeout=30).stdout.strip())


def start_from_page(browser, *, mixed):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    wait_offered(browser, "start", "the start form")
    Select(browser.driver.find_element(By.ID, "ruleset")).select_by_value("riichi")
    box = browser.driver.find_element(By.ID, "mixed")
    if box.is_selected() != mixed:
        tap(browser, "mixed")
    press(browser, "start")


def test_a_normal_start_after_mixed_deck_is_refused_with_what_to_do(table, browser):
    """The sets were mixed by the evening's Mixed Deck: the normal rotation cannot start
    until people sort them; the page says so and the table does not move."""
    start_from_page(browser, mixed=False)
    text = wait_page(browser, "const a = document.getElementById('answer'); return "
                     "a.className === 'refused' && a.textContent", "the refusal")
    assert "sort the tiles by back colour" in text and "Mixed Deck" in text
    assert "“Sets sorted”" in text  # the page's own box, named
    assert browser.js("return window.jantakuPage.lastAnswer.code") == "sets_not_apart"
    assert shown(browser, "loaded-box")  # the page's way to say "we sorted them"
    assert table.status()["session"] is None
    shoot(browser, "9-refused")
    no_console_errors(browser, meant=(400, 422))  # the refusal, as the API answers it
    # ticked, the start says the sets are loaded apart (caught before it reaches the table,
    # which would build from tiles that are in truth still mixed)
    tap(browser, "loaded")
    # (the start's request is held back; the page's own reads meanwhile go on)
    browser.js("window.sentBody = null; window.realFetch = window.fetch; window.fetch = "
               "(url, opts) => { if (!opts || opts.method !== 'POST') "
               "return window.realFetch(url, opts); window.sentBody = [url, opts.body]; "
               "return Promise.reject(new Error('held back by the test')); };")
    try:
        press(browser, "start")
        sent = wait_page(browser, "return window.sentBody", "the start's request")
    finally:
        browser.js("window.fetch = window.realFetch;")
        tap(browser, "loaded")
    assert sent[0] == "/session"
    assert json.loads(sent[1]) == {"ruleset": "riichi", "mixed_deck": False, "loaded": True}
    assert table.status()["session"] is None


def test_abort_while_people_are_asked_then_start_again(table, browser):
    """Start, abort, start: the sequence that once hung. The abort comes while the
    centre is open for people; the next start collects again and builds."""
    start_from_page(browser, mixed=True)
    answered(browser, "the session started")
    wait_offered(browser, "continue", "the collect's push window", 60)
    first = table.status()["session"]["id"]
    press(browser, "abort", confirm=True)
    answered(browser, "the abort")
    table.wait(lambda s: s["session"] is None and s["state"]["name"] == "idle", what="no session")
    wait_page(browser, "const li = document.querySelector('#history-list li[data-session=\"%d\"]');"
              " return li && li.textContent.includes('aborted')" % first, "the aborted session")
    start_from_page(browser, mixed=True)
    answered(browser, "the session started again")
    people_done_then_built(browser, "the start again")
    st = table.status()["session"]
    assert st["id"] == first + 1 and st["decks"]["A"]["tiles"] == 136
    # the page opened afresh: the open session is shown live above, not as an earlier one
    browser.driver.refresh()
    wait_page(browser, "const p = window.jantakuPage, q = (id) => document.querySelector("
              "'#history-list li[data-session=\"' + id + '\"]'); return p.status && "
              "p.status.session && p.status.session.id === %d && q(%d) && !q(%d)"
              % (st["id"], first, st["id"]), "the page again: the aborted session earlier, "
              "not the open one")
    wait_offered(browser, "end", "the end of the session", 30)
    press(browser, "end", confirm=True)
    answered(browser, "the session ended")
    sessions = {h["id"]: h["state"] for h in
                json.loads(table.cli("history", "--json").stdout)["sessions"]}
    assert sessions[first] == "aborted" and sessions[first + 1] == "ended"
    no_console_errors(browser)


def test_the_page_speaks_japanese_when_chosen(table, browser):
    """In Japanese, a hand from the page: every word the page shows is Japanese (the
    daemon's codes worded by the page), the buttons it names are its own."""
    import re

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(browser.driver.find_element(By.ID, "lang")).select_by_value("ja")
    wait_page(browser, "return ['セッションを始めてください', '牌を取り出すか、セッションを始めてください']"
              ".includes(document.getElementById('headline').textContent)", "the page in Japanese")
    assert browser.text("#controls-title") == "操作"
    assert browser.js("return document.documentElement.lang") == "ja"
    start_from_page(browser, mixed=True)
    assert answered(browser, "the session started").startswith("開始:")

    def asked_in_japanese():
        assert browser.text("#headline") == "すべての牌を中央に落としてください"
        assert browser.text("#primary") == "完了:中央を閉じる"
        assert "「完了:中央を閉じる」" in browser.text("#more")

    people_done_then_built(browser, "in Japanese", check=asked_in_japanese)
    press(browser, "hand_over")
    answered(browser, "the hand over")
    wait_offered(browser, "dice", "the walls up", 60)
    press(browser, "dice")
    answered(browser, "the throw")
    line = wait_page(browser, "const b = document.getElementById('break'); return b && b.textContent",
                     "the throw in Japanese")
    assert "の山を割る" in line and "右端から" in line
    # no English word anywhere in what the page shows but names (the ruleset, the board)
    shown_text = browser.js("return document.querySelector('main').innerText")
    english = {w for w in re.findall(r"[A-Za-z]{3,}", shown_text)} - {
        "riichi", "reference", "fourport", "jantaku", "English", "uzje", "wsom", "shenyang", "speed", "tonpuu"}
    assert english == set(), english
    if japanese_font():  # (else the screenshot would show boxes; a phone has the font)
        shoot(browser, "ja")
    wait_offered(browser, "end", "the end of the session", 30)
    press(browser, "end", confirm=True)
    answered(browser, "the session ended")
    Select(browser.driver.find_element(By.ID, "lang")).select_by_value("en")
    wait_page(browser, "return document.getElementById('controls-title').textContent === "
              "'Controls'", "the page in English again")
    no_console_errors(browser)
