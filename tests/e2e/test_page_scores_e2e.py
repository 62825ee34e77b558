"""The game's scores on the table's page (issue #40 point 5, "Where players look"), in
Chromium at a phone's size against `jantaku run` on the simulated table.

A phone pairs, starts a session (Mixed Deck: the table then waits for people to push the
tiles in, and stays there: entries do not wait on the table), chooses its player (South),
enters a riichi and a ron from the page and sees its own score and the dealer change; a
refused entry (a ron from oneself) says why next to the button pressed and changes
nothing; undo says what it undid and restores; an entry from elsewhere comes in live
through the `score` event; a reload keeps the seat and shows the last payments (GET
/score); the table view at 1280x800 shows all four players' scores without scrolling.

`JANTAKU_PAGE_SHOTS=1` also writes docs/page/phone-score.png, phone-score-entry.png and
table-view-scores.png.
"""
import json

import pytest

from tests.e2e import chromium
from tests.e2e.conftest import start_daemon, start_sim, wait_table_connected
from tests.e2e.test_page_e2e import (  # noqa: F401 - browser: the phone, a fixture
    IN_VIEW, PHONE, browser, in_view, press, settle, shoot, wait_page)

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(chromium.missing() is not None,
                                 reason=chromium.missing() or "")]


class Table:
    def __init__(self, tmp):
        self.link = str(tmp / "table")
        self.sim, _ = start_sim(tmp, "--ruleset", "riichi", "--mixed-deck", "--seed", "5",
                                "--players", "manual", "--link", self.link, speed=10)
        # (the centre stays open until people say they are done)
        self.d = start_daemon(tmp, self.link, extra=("--push-window", "600", "--no-view"))
        self.proc, self.url = self.d.proc, self.d.url
        wait_table_connected(self.d)

    def score(self):
        return self.d.get("/score").json()

    def close(self):
        self.proc.kill()
        self.sim.kill()


@pytest.fixture(scope="module")
def table(tmp_path_factory, hil_port):
    if hil_port:
        pytest.skip("the scores' page test runs on the simulated table")
    t = Table(tmp_path_factory.mktemp("scores"))
    yield t
    t.close()


def strip(browser):
    return browser.js("return ['strip-me', 'strip-hand', 'strip-gaps'].map(i => "
                      "document.getElementById(i).textContent)")


def strip_says(browser, text, what, timeout=10):
    return wait_page(browser, "const t = ['strip-me', 'strip-hand', 'strip-gaps'].map(i => "
                     "document.getElementById(i).textContent).join(' | '); "
                     "return t.includes(arguments[0]) && t", what, timeout, text)


def score_answer(browser, since):
    """The answer to the last entry, once it came, and the control it sits next to."""
    a = wait_page(browser, "const a = window.jantakuPage.lastScoreAnswer; return a && "
                  "!window.jantakuPage.scoreSending && a.n > arguments[0] && a",
                  "the entry's answer", 15, since)
    wait_page(browser, "return document.getElementById('score-answer').textContent === "
              "arguments[0]", "the answer drawn", 5, a["text"])
    node = browser.js("const a = document.getElementById('score-answer'); return [a.textContent, "
                      "a.previousElementSibling && a.previousElementSibling.id, "
                      "a.getBoundingClientRect().height > 0]")
    return a, node


def answers(browser):
    return browser.js("return window.jantakuPage.scoreAnswers || 0")


def choose(browser, css, value):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    e = browser.driver.find_element(By.CSS_SELECTOR, css)
    browser.js("arguments[0].scrollIntoView({block: 'center'})", e)
    Select(e).select_by_value(value)


def test_a_phone_pairs_and_starts_a_session_and_the_strip_asks_for_its_seat(table, browser):
    from selenium.webdriver.common.by import By

    browser.driver.get(table.url + "/")
    wait_page(browser, "return window.jantakuPage.live && window.jantakuPage.paired === false "
              "&& !document.body.classList.contains('loading')", "the page, not paired")
    assert browser.js("return document.getElementById('score-strip').hidden") is True  # no session
    code = json.loads(table.d.cli("pair", "--new", "--json").stdout)["code"]
    browser.driver.find_element(By.ID, "pair-code").send_keys(code)
    press(browser, "#pair-button")
    wait_page(browser, "return window.jantakuPage.paired === true && "
              "!document.getElementById('primary').disabled", "paired, the start offered")
    browser.js("document.getElementById('offer').hidden = true")
    press(browser, "#mixed")
    press(browser, "#primary")  # Start: riichi, Mixed Deck
    wait_page(browser, "const s = window.jantakuPage.status; return s && s.session && "
              "s.next.code === 'push_all'", "the session open, the centre open", 30)
    strip_says(browser, "Scores: tap to choose which player you are", "the strip")
    assert in_view(browser, "score-strip")
    assert "East 1 · 0 honba · 0 riichi sticks · East deals" in in_view(browser, "score-strip")
    settle(browser)


def test_the_phone_chooses_south_and_sees_its_score_in_the_first_screen(table, browser):
    press(browser, "#score-strip")
    wait_page(browser, "return !document.getElementById('score').hidden", "the score card")
    # the seat picker names each player as every screen does (issue 50 point 4)
    options = browser.js("return Array.from(document.querySelectorAll('#seat option'))"
                         ".map(o => o.textContent)")
    assert options == ["— choose —", "East · Dealer", "South", "West", "North"], options
    choose(browser, "#seat", "south")
    strip_says(browser, "South (you) · 25,000", "South's score")
    assert browser.js("return JSON.parse(localStorage.getItem('jantaku.seat')).player") == "south"
    assert strip(browser)[2] == "You vs West ±0 · North ±0 · East ±0"
    # the kinds of the riichi ruleset, and nothing that waits on the table
    kinds = browser.js("return Array.from(document.querySelectorAll('#score-kinds button'))"
                       ".filter(b => b.offsetParent).map(b => [b.dataset.kind, b.disabled])")
    assert kinds == [[k, False] for k in ("riichi", "ron", "tsumo", "draw", "abortive",
                                         "chombo", "nagashi", "undo")]
    # closed again, the strip fits the first screen with the headline and the big button
    press(browser, "#score-strip")
    browser.js("window.scrollTo(0, 0)")
    for id_ in ("headline", "primary", "score-strip", "diagram"):
        in_view(browser, id_)
    shoot(browser, "phone-score")
    settle(browser)


def test_a_riichi_and_a_ron_from_the_phone_change_its_score_and_the_dealer(table, browser):
    press(browser, "#score-strip")
    n = answers(browser)
    press(browser, "#sc-riichi")
    a, (text, beside, shown) = score_answer(browser, n)
    assert (a["status"], text, beside, shown) == (200, "Entered: riichi by South (you).",
                                                  "sc-riichi", True)
    strip_says(browser, "South (you) · 24,000", "the stick paid")
    assert "1 riichi stick" in strip(browser)[1]
    # Ron: the winner is this phone's player already; from East (the dealer), 3 han 30 fu
    press(browser, "#sc-ron")
    assert browser.js("return document.querySelector('#score-form [name=winner]').value") == "south"
    assert browser.js("return document.querySelector('#score-form .fu').hidden") is False
    # the form's players in the same words: South's phone sees East on its left
    froms = browser.js("return Array.from(document.querySelectorAll('#score-form [name=from] "
                       "option')).map(o => o.textContent)")
    assert froms == ["— choose —", "East (your left)", "South (you)", "West (your right)",
                     "North (across)"], froms
    choose(browser, "#score-form [name=from]", "east")
    choose(browser, "#score-form [name=han]", "3")
    choose(browser, "#score-form [name=fu]", "30")
    shoot(browser, "phone-score-entry")
    n = answers(browser)
    press(browser, "#score-send")
    a, (text, beside, shown) = score_answer(browser, n)
    # named as they sat in the hand won, though South deals now
    assert (a["status"], text, beside) == (200, "Entered: ron by South (you) from East (your "
                                           "left).", "sc-ron")
    strip_says(browser, "East (you) · 28,900 · you deal", "the ron and the deal")
    st = table.score()
    assert (st["dealer"], st["players"]["south"]["points"], st["sticks"]) == ("south", 28900, 0)
    assert strip(browser)[1] == "East 2 · 0 honba · 0 riichi sticks · you deal"
    assert strip(browser)[2] == "You vs South +3,900 · West +3,900 · North +7,800"
    wait_page(browser, "return document.getElementById('score-last').textContent === arguments[0]",
              "the ron's payments", 5,
              "Last: ron by South (you) from East (your left) — East (your left) −3,900, "
              "South (you) +4,900.")
    settle(browser)


def test_a_refused_entry_says_why_next_to_the_button_and_changes_nothing(table, browser):
    before = table.score()
    press(browser, "#sc-ron")
    choose(browser, "#score-form [name=from]", "south")  # from the winner: a ron from oneself
    n = answers(browser)
    press(browser, "#score-send")
    a, (text, beside, shown) = score_answer(browser, n)
    assert (a["status"], a["code"], beside, shown) == (400, "bad_entry", "score-send", True)
    # the refusal names the player as every screen does, not the ledger's "south"
    assert text == "Not entered: East (you) cannot win on their own discard (a win on one's " \
                   "own tile is a tsumo).", text
    assert browser.js("return document.getElementById('score-answer').className").endswith("refused")
    assert table.score() == before
    assert strip(browser)[0] == "East (you) · 28,900 · you deal"
    press(browser, "#sc-ron")  # closes the form
    settle(browser, meant=(400,))


def test_undo_says_what_it_undid_and_restores(table, browser):
    n = answers(browser)
    press(browser, "#sc-undo")
    a, (text, beside, shown) = score_answer(browser, n)
    assert (a["status"], text, beside) == (200, "Undone: ron by South (you) from East (your "
                                           "left).", "sc-undo")
    strip_says(browser, "South (you) · 24,000", "the score restored")
    st = table.score()
    assert (st["dealer"], st["sticks"], st["players"]["south"]["points"]) == ("east", 1, 24000)
    wait_page(browser, "return document.getElementById('score-last').textContent"
              ".startsWith('Last: riichi by South (you)')", "the riichi last again", 5)
    settle(browser)


def test_an_entry_from_elsewhere_comes_in_live_and_a_reload_keeps_the_seat(table, browser):
    r = table.d.post("/score", {"kind": "tsumo", "winner": "north", "han": 1, "fu": 30})
    assert r.status_code == 200, r.text
    strip_says(browser, "East (you) · 23,700 · you deal", "the tsumo through the stream")
    browser.driver.refresh()
    wait_page(browser, "return window.jantakuPage.live && window.jantakuPage.score && "
              "window.jantakuPage.score.entries === 2", "the page again, the ledger in")
    strip_says(browser, "East (you) · 23,700 · you deal", "the seat kept")
    press(browser, "#score-strip")
    wait_page(browser, "return document.getElementById('score-last').textContent"
              ".startsWith('Last: tsumo by North (across)')", "the last payments after the reload", 5)
    settle(browser)


def test_a_tsumo_with_pao_and_a_nagashi_from_the_page(table, browser):
    """Issue 50 point 7: the liable player (pao) and nagashi mangan have entries of their
    own, on the page too."""
    press(browser, "#sc-tsumo")
    choose(browser, "#score-form [name=han]", "y1")
    paos = browser.js("return Array.from(document.querySelectorAll('#score-form [name=pao] "
                      "option')).map(o => o.textContent)")
    assert paos[0] == "— nobody —" and "South (your right)" in paos, paos  # west, now South
    choose(browser, "#score-form [name=pao]", "west")
    n = answers(browser)
    press(browser, "#score-send")
    a, _ = score_answer(browser, n)
    assert a["status"] == 200, a
    last = table.score()["last"]
    assert last["winners"][0]["pao"] == "west" and last["payments"]["west"] == -48000, last
    assert {k for k, v in last["payments"].items() if v} == {"south", "west"}
    n = answers(browser)
    press(browser, "#sc-undo")
    assert score_answer(browser, n)[0]["status"] == 200
    press(browser, "#sc-nagashi")
    choose(browser, "#score-form [name=player]", "north")
    assert browser.js("return document.querySelectorAll('#score-form [name=tenpai]').length") == 4
    n = answers(browser)
    press(browser, "#score-send")
    a, (text, _, _) = score_answer(browser, n)
    assert (a["status"], text) == (200, "Entered: nagashi mangan by West (across)."), text
    assert table.score()["last"]["kind"] == "nagashi"
    n = answers(browser)
    press(browser, "#sc-undo")
    assert score_answer(browser, n)[0]["status"] == 200
    settle(browser)


def test_the_table_view_shows_all_four_scores_without_scrolling(table, browser):
    browser.viewport(1280, 800)
    try:
        browser.driver.get(table.url + "/?view=table")
        wait_page(browser, "return window.jantakuPage.live && window.jantakuPage.score && "
                  "!document.body.classList.contains('loading') && "
                  "document.querySelectorAll('#board .bp').length === 4", "the table view")
        cells = browser.js("return Array.from(document.querySelectorAll('#board .bp')).map(c => {"
                           "const r = c.getBoundingClientRect(); return [c.dataset.player, "
                           "c.classList.contains('dealer'), c.querySelector('.bp-pts').textContent, "
                           "r.top >= 0 && r.bottom <= innerHeight && r.right <= innerWidth]; })")
        st = table.score()
        assert cells == [[k, st["dealer"] == k, "{:,}".format(st["players"][k]["points"]), True]
                         for k in ("east", "south", "west", "north")]
        assert browser.js("return window.scrollY") == 0
        for id_ in ("headline", "primary", "diagram", "board"):
            box = browser.js(IN_VIEW, id_)
            assert box["shown"] and box["inside"], (id_, box)
        assert browser.text("#board-title") == "East 2 · 0 honba · 0 riichi sticks · East deals"
        # the table view names a player by their wind now and their name: no first-hand seat
        board = browser.js("return Array.from(document.querySelectorAll('#board .bp')).map(c => "
                           "[c.querySelector('.bp-wind').textContent, c.querySelector('.bp-name')"
                           ".textContent])")
        assert board == [["North", ""], ["East", ""], ["South", ""], ["West", ""]], board
        shoot(browser, "table-view-scores")
        # the table view takes results too: its board opens the same card
        assert browser.js("return document.getElementById('score').hidden") is True
        press(browser, "#board-enter")
        n = answers(browser)
        press(browser, "#sc-abortive")
        a, (text, beside, shown) = score_answer(browser, n)
        assert (a["status"], beside, shown) == (200, "sc-abortive", True), text
        assert table.score()["honba"] == 1
        wait_page(browser, "return document.getElementById('board-title').textContent"
                  ".includes('1 honba')", "the board after the entry", 5)
    finally:
        browser.viewport(*PHONE, mobile=True)
    settle(browser)


COVERS = """const a = document.getElementById(arguments[0]).getBoundingClientRect();
    const b = document.getElementById(arguments[1]).getBoundingClientRect();
    return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;"""


def test_the_table_views_score_card_covers_nothing_and_escape_closes_it(table, browser):
    """Issue 50 point 3: the card opened over the headline, its buttons all disabled, and
    Escape did not close it."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    for size in ((1280, 800), (800, 1280)):
        browser.viewport(*size)
        try:
            browser.driver.get(table.url + "/?view=table")
            wait_page(browser, "return window.jantakuPage.live && window.jantakuPage.paired && "
                      "!document.getElementById('board-enter').hidden", "the table view")
            press(browser, "#board-enter")
            wait_page(browser, "return !document.getElementById('score').hidden", "the card", 5)
            for other in ("headline", "primary", "board"):
                assert browser.js(COVERS, "score", other) is False, (size, other)
                box = browser.js(IN_VIEW, other)
                assert box["shown"] and box["inside"], (size, other, box)
            assert browser.js("const h = document.getElementById('headline').getBoundingClientRect();"
                              " return document.elementFromPoint(h.left + h.width / 2, h.top + "
                              "h.height / 2).id") == "headline"
            buttons = browser.js("return Array.from(document.querySelectorAll('#score-kinds "
                                 "button')).filter(b => b.offsetParent).map(b => b.disabled)")
            assert buttons and not any(buttons), buttons
            # a key press as a person makes it: to whatever has the focus (the body itself
            # takes no keys from the driver when the card holds the focus)
            ActionChains(browser.driver).send_keys(Keys.ESCAPE).perform()
            wait_page(browser, "return document.getElementById('score').hidden && "
                      "document.activeElement.id === 'board-enter'", "the card closed", 5)
            assert browser.js("return document.documentElement.scrollHeight <= innerHeight + 1")
        finally:
            browser.viewport(*PHONE, mobile=True)
    browser.driver.get(table.url + "/")
    wait_page(browser, "return window.jantakuPage.live", "the phone's page again")
    settle(browser)


def test_an_unpaired_table_view_pairs_from_its_own_screen(table, browser):
    """Issue 50 point 3: Start, Throw and Hand over said "not paired (below)" with no pairing
    form on the table view, and "Enter a result" opened a card it could not use."""
    from selenium.webdriver.common.by import By

    table.d.cli("pair", "--revoke-all")
    browser.viewport(1280, 800)
    try:
        browser.driver.get(table.url + "/?view=table")
        wait_page(browser, "return window.jantakuPage.live && window.jantakuPage.paired === false "
                  "&& !document.body.classList.contains('loading')", "the table view, unpaired")
        # no control it cannot use: no "Enter a result"; the pairing form under the big button
        assert browser.js("return document.getElementById('board-enter').hidden") is True
        assert browser.js("return document.getElementById('pair-form').parentNode.id") == "now"
        assert "not paired (below)" in browser.text("#primary")
        for id_ in ("pair-form", "pair-code", "pair-button"):
            box = browser.js(IN_VIEW, id_)
            assert box["shown"] and box["inside"], (id_, box)
        code = json.loads(table.d.cli("pair", "--new", "--json").stdout)["code"]
        browser.driver.find_element(By.ID, "pair-code").send_keys(code)
        press(browser, "#pair-button")
        wait_page(browser, "return window.jantakuPage.paired === true && "
                  "!document.getElementById('board-enter').hidden && "
                  "document.getElementById('pair-form').hidden", "paired from the table view", 10)
    finally:
        browser.viewport(*PHONE, mobile=True)
    browser.driver.get(table.url + "/")
    wait_page(browser, "return window.jantakuPage.live && window.jantakuPage.paired", "the phone")
    settle(browser)
