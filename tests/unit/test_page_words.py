"""The page's words (hostd/web/page/words.js), run by Node: the daemon says what happens next
as a code (hostd/core/codes.py NEXT), a fault as its kind (TODO), a refusal as an error
code; the page words each itself, in English and Japanese, naming its own buttons.

Every code and every fault kind has words in both languages, made from the parameters the
daemon really gives (codes.example_state); none names a command of the CLI; none shows a
placeholder or a Python value; the Japanese is Japanese (no English word left in it but
names); the Japanese table has every key of the English one, in the same shape."""
import json
import re
import shutil
import subprocess

import pytest

from hostd.core.codes import NEXT, TODO, Context, example_context, example_state, next_step
from hostd.core import vocabulary
from hostd.core.commands import offered_by
from tests.conftest import ROOT

NODE = shutil.which("node") or shutil.which("nodejs")
pytestmark = pytest.mark.skipif(NODE is None, reason="needs Node.js to run the page's "
                                "words.js (Debian package `nodejs`; .ci/run installs it)")
WORDS = ROOT / "hostd" / "web" / "page" / "words.js"

RUN = r"""
const vm = require("vm"), fs = require("fs");
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const ctx = { window: { localStorage: { getItem: () => input.lang } },
              navigator: { language: "en-GB" } };
vm.createContext(ctx);
vm.runInContext(fs.readFileSync(input.file, "utf8"), ctx);
const w = ctx.window, EN = w.JANTAKU_WORDS_EN, JA = w.JANTAKU_WORDS_JA, W = w.JANTAKU_WORDS;
function holes(en, ja, path, out) {  // keys of `en` that `ja` lacks or gives another shape
  Object.keys(en).forEach((k) => {
    const p = path + k;
    if (!(k in ja)) { if (!input.shared.includes(k)) out.push(p + " (missing)"); }
    else if (en[k] && typeof en[k] === "object") {
      if (!ja[k] || typeof ja[k] !== "object") out.push(p + " (not a table)");
      else holes(en[k], ja[k], p + ".", out);
    } else if (typeof en[k] !== typeof ja[k]) out.push(p + " (" + typeof ja[k] + ")");
  });
  return out;
}
const said = {};
const say = (key, f) => { try { said[key] = f(); } catch (e) { said[key] = "THROWS " + e; } };
Object.keys(input.next).forEach((code) => {
  say("next." + code, () => { const n = W.next[code](input.next[code], W); return [n.head, n.more]; });
});
input.faults.forEach((f) => {
  say("fault." + f.kind + "." + f.action, () => [W.faultTitle(f, W), W.faultTodo(f, W)]);
});
Object.keys(input.refusals).forEach((code) => {
  const ctx = Object.assign({}, input.refusals[code],
    { next: W.next.press_dice({ hand: 2, game: 1, game_hand: 2 }, W).head });
  say("refusal." + code, () => W.refusal[code]({ code: code }, W, ctx));
});
Object.keys(input.events).forEach((type) => {
  say("log." + type, () => W.log[type](input.events[type], W));
});
input.cmds.forEach((c) => say("cmd." + c, () => W.cmd[c]));
Object.keys(W.primary).forEach((c) => say("primary." + c, () => {
  const p = W.primary[c];  // (a code's own parameters, as the daemon gives them)
  return typeof p === "function" ? p(input.next[c] || {hand: 2, game: 1, game_hand: 2}, W) : p;
}));
const t = { dice: [3, 4], total: 7, breaker: "across", break_from_right: 7, unit: "stacks",
            dead_wall_tiles: 14, by: "entered" };
say("breakLine", () => W.breakLine(t, W));
say("breakLine.tiles", () => W.breakLine(Object.assign({}, t, {unit: "tiles", break_from_right: 1}), W));
say("breakWait", () => W.breakWait({hand: 3, game: 1, game_hand: 3}, W));
say("closesIn", () => W.closesIn(83.4, W));
say("safety", () => [W.safetyState({ chain: true, power: true, relay_stuck: false }),
                     W.safetyState({ chain: false, power: false, relay_stuck: false }),
                     W.safetyState({ chain: false, power: true, relay_stuck: true })]);
say("comeUpIn", () => W.comeUpIn(5, W));
say("openUntilDone", () => W.openUntilDone(W, "push_all"));
say("closesIn.short", () => W.closesIn(7.2, W));
say("buildLeft", () => [W.buildLeft(20.2, "B", W), W.buildLeft(130, "B", W)]);
say("retryIn", () => W.retryIn(4, W));
// issue 42: a fault's one button at the bottom, the rest behind "More"; what is being sent
say("faultBanner", () => [W.faultBelow, W.faultBelowWhy, W.more, W.fewer, W.cmdsMoved,
  W.trackWhere(2, 4, W), W.trackWhere(2, 4, W, { abs: "right", mine: "across" }),
  W.trackWhere(1, 4, W, { abs: "self", mine: "self" }), W.trackWhere(3, 4, W, { abs: "across", mine: null })]);
say("sendingNow", () => input.cmds.map((c) => W.sendingNow(c, "push_all", W))
  .concat([W.sendingNow("continue", "stopped", W)]));
// issue 42 point 4: the break seen from this phone's seat
say("breakSeen", () => [W.breakSeen(t, { at: "self", who: null }, W),
  W.breakSeen(t, { at: "across", who: W.playerName({ wind: "west", name: input.name }, W) }, W),
  W.breakSeen(t, { at: "left", who: null }, W),
  W.tableSvgMine(t, { at: "right", who: W.playerName({ wind: "north", name: null }, W) }, W)]);
say("seatWords", () => [W.you, W.throws, W.turnNeedsResult, W.sideLabel]
  .concat(Object.values(W.seatFromMe), Object.values(W.sideChoice)));
say("setUp", () => [W.decksAbout, W.start.mixedHelp, W.start.colourDefault("blue", W),
  W.start.colourDefault(undefined, W), W.start.colours, W.badColours]);
say("colours", () => [W.colours(["blue", "green"]), W.colours(["blue", "blue"]), W.colours([])]);
say("marks", () => ["blue", "green", "pink"].map((c) => W.mark(W, c)));
say("counted", () => W.counted(46, 136));
say("tableSvg", () => W.tableSvg(t, W));
say("deadLine", () => W.deadLine(14));
say("historyLine", () => W.historyLine({id: 3, ruleset: "riichi", mixed_deck: true, state: "aborted",
                                          games: [{hands: [1, 2]}]}, 2, W));
say("refusedAs", () => W.refusedAs(W.cmd.hand_over, W.refusal.not_connected()));
say("confirm", () => [W.confirm.abort, W.confirm.end, W.confirm.game_new(null, W), W.confirm.endEmpty,
  W.confirm.hand_over, W.confirm.notYet].concat(Object.values(W.confirm.yes)));
// the scores (docs/SCORING.md "State"): a game in East 2, South dealing, West in riichi
const P = (name, wind, points) => ({ name: name, wind: wind, points: points, chips: 0 });
const st = { ruleset: "riichi", riichiFamily: true, round: "east", hand: 2, honba: 1, sticks: 2,
  dealer: "south", ended: false, placement: null, riichi: ["west"], entries: 3, can_pass: false,
  players: { east: P(null, "north", 24000), south: P(null, "east", 31000),
             west: P("美香", "south", 21000), north: P(null, "west", 24000) },
  last: { kind: "ron", from: "west", payments: { east: 0, south: 5900, west: -4900, north: 0 },
          winners: [{ player: "south", han: 3, fu: 40 }] } };
const ended = Object.assign({}, st, { ended: true, placement: ["south", "east", "north", "west"] });
const mine = Object.assign({}, st, { me: "south" });  // a phone at South's seat
const S = W.score;
// issue 50 point 4: one name for a seat, everywhere: name, wind now, where from this phone
say("seatName", () => ["east", "south", "west", "north"].map((k) => W.seatName(mine, k, W))
  .concat(["west", "north"].map((k) => W.seatName(st, k, W)),
    ["west", "north"].map((k) => W.seatName(mine, k, W, true))));
say("score.me", () => [S.me(mine, "south", W), S.me(mine, "west", W)]);
say("score.handLine", () => [S.handLine(mine, W, "south"), S.handLine(st, W, "east"),
  S.handLine(ended, W, "east"), S.handLine(st, W, "east", (k) => W.seatName(st, k, W, true)),
  S.handLine(Object.assign({}, st, { riichiFamily: false, honba: 0, sticks: 0 }), W, null)]);
// a new game's question: the game's scores end as they stand, the sticks go to first
say("confirm.game_new", () => [
  W.confirm.game_new(Object.assign({}, mine, { game: 1, left_on_table: { sticks: 2, points: 2000,
    pot: 0, to: "south" } }), W),
  W.confirm.game_new(Object.assign({}, mine, { game: 1, left_on_table: { sticks: 1, points: 1000,
    pot: 0, to: "west" } }), W),
  W.confirm.game_new(Object.assign({}, st, { game: 2, left_on_table: null }), W),
  W.confirm.game_new(Object.assign({}, st, { game: 1, sticks: 0, left_on_table: { sticks: 0,
    points: 0, pot: 8, to: "east" } }), W)]);
const sc = { ended: true, hands: 3, placement: ["south", "east", "north", "west"], entries: 5,
  players: st.players };
say("historyGame", () => [W.historyGame({ game: 1 }, sc, W), W.historyGame({ game: 2 }, null, W),
  W.historyGame({ game: 2 }, Object.assign({}, sc, { ended: false, placement: null, hands: 1 }), W)]);
say("historyLine.scored", () => W.historyLine({ id: 3, ruleset: "riichi", mixed_deck: false,
  state: "ended", games: [{}, {}] }, 3, W));
say("walls", () => [W.wallsUp(136, W), W.drainBuilding, W.drainBuilt(144), W.inviteDone,
  S.exportTitle, S.optionsLater].concat(Object.values(S.exportAs), Object.values(S.optionLabel),
  Object.values(S.option)));
say("score.gaps", () => S.gaps([{ who: W.seatName(mine, "west", W, true), gap: 10000 },
  { who: W.seatName(mine, "north", W, true), gap: -2300 },
  { who: W.seatName(mine, "east", W, true), gap: 0 }], W));
say("score.placed", () => [1, 2, 3, 4].map((n) => S.placed(n, W)));
const lasts = [st.last, { kind: "tsumo", winners: [{ player: "east" }], payments: { east: 3000 } },
  { kind: "riichi", player: "west", payments: { west: -1000 } },
  { kind: "chombo", player: "north", payments: {} }, { kind: "draw", payments: {} },
  { kind: "abortive", payments: {} }, { kind: "pass", payments: {} }, { kind: "end", payments: {} },
  { kind: "transfer", payments: { east: 10, south: -10 } },
  { kind: "nagashi", winners: [{ player: "north" }], payments: { north: 8000 } },
  { kind: "suukantsu", winners: [{ player: "west" }], from: "east", payments: { west: 64000 } },
  { kind: "pot", player: "east", payments: { east: -8 } },
  { kind: "rules", options: { ron_pays: "all" }, payments: {} }];
say("score.last", () => lasts.map((l) => S.last(Object.assign({}, st, { last: l }), W))
  .concat([S.last(Object.assign({}, st, { last: null }), W)]));
say("score.entered", () => S.entered(st, W));
// an entry's own hand: its players named with their winds then (last.dealer)
say("score.last.dealt", () => S.last(Object.assign({}, mine, { last: Object.assign({}, st.last,
  { dealer: "east" }) }), W));
say("score.undone", () => [S.undone(st, st.last, W), S.undone(st, null, W)]);
say("score.seat", () => Object.values(W.rel).concat([S.chooseSeat, S.keptAsk(S.who(mine, "south", W)),
  S.seatLabel, S.seatNone, S.keep, S.seatOption(mine, "west", W), S.seatOption(mine, "south", W),
  S.title, S.enterTitle, S.nobody]));
say("score.final", () => S.final(ended.placement.map((k, i) => S.finalOne(i + 1, S.who(st, k, W),
  st.players[k].points, W)), W));
say("score.buttons", () => Object.values(S.btn).concat(Object.values(S.field),
  Object.values(S.mult), Object.values(S.side), Object.values(S.head),
  ["ron", "tsumo", "draw", "chombo", "nagashi", "suukantsu", "pot"].map((k) => S.send(k, W)),
  [S.yakuman(1), S.yakuman(2), S.times(3), S.patternsHelp, S.dealer, S.inRiichi]));
say("score.answers", () => Object.keys(S.refused).map((c) => S.notEntered(S.refused[c], ""))
  .concat([S.needSeat, S.needFrom, S.needPatterns, S.needFan, S.seatsTitle, S.seatsSave,
  S.seatsSaved, S.firstDealer, S.nameOf(mine, "west", W), S.nameOf(st, "west", W)]));
// the ledger's refusals by key (the API error's key and params), the message as the API
// gives it (English)
Object.keys(input.ledger).forEach((k) => say("why." + k, () => {
  const f = S.why[k];
  return S.notEntered(S.refused.bad_entry, input.ledger[k].message,
    f ? f(input.ledger[k].params, W, mine) : "");
}));
process.stdout.write(JSON.stringify({
  holes: holes(EN, JA, "", []), said: said, chosen: W.lang,
}));
"""

# what the Japanese may keep in Latin letters: names (rulesets, the board, colours a
# person typed) and the one command of the pairing help
NAMES = {"riichi", "jantaku", "pair", "blue", "green", "csv", "json"}
SHARED = ["colourName", "languages", "faultTitle", "faultTodo", "clock", "rulesetLabel",
          "sendingNow", "relOf", "asDealt"]  # helpers
# that compose a language's own words, and the languages' own names


def daemon_next():
    """Each code's params as the daemon gives them (hostd/core/codes.py's examples)."""
    out = {}
    for code in NEXT:
        state, connected, table_fault = example_state(code)
        n = next_step(state, Context(connected=connected, **example_context(code)),
                      table_fault=table_fault)
        assert n["code"] == code
        out[code] = n["params"]
    return out


def faults():
    out = [{"kind": k, "track": 2, "deck": "B", "action": action} for k, (action, _) in TODO.items()]
    out.append({"kind": "guard", "track": None, "deck": None, "action": "hand_over"})
    return out


EVENTS = {
    "session_started": {"session": 4, "ruleset": "riichi", "mixed_deck": True},
    "session_resumed": {"session": 4, "state": "built", "hand": 3},
    "build_started": {"build": 2, "deck": "B", "targets": [34] * 4, "resumes": None},
    "build_resumed": {"build": 2, "deck": "B"},
    "build_done": {"build": 2, "deck": "B", "per_track": [34, 34, 34, 33], "ok": False},
    "build_failed": {"build": 2, "deck": "B", "message": "deck B: counted 46 of 136"},
    "hand_over": {"hand": 2, "raising": "B", "dropping": "A"},
    "hand": {"hand": 2, "game": 1, "game_hand": 2, "deck": "B"},
    "dice": {"hand": 2, "game": 1, "game_hand": 2, "dice": [3, 4], "total": 7},
    "fault": {"kind": "jam", "track": 2, "message": "track 2 is jammed"},
    "fault_recovered": {"id": 1},
    "stopped": {"step": "hand_over", "kind": "guard", "message": "the guard was broken"},
    "step_failed": {"step": "start", "message": "the table refused build: not_allowed"},
    "session_ended": {"session": 4, "how": "failed", "reason": "ended by request"},
    "link": {"what": "reset", "detail": None},
    "abort_pending": {"message": "not connected"},
    "abort_confirmed": {},
    "emptied": {"raised": 136, "from_mixer": [], "mixer_empty": True},
    "collect": {"step": "raise"},
    "resplit": {"hand": 4, "game": 1, "game_hand": 4},
    "swap": {"hand": 4, "game": 1, "game_hand": 4},
    "drain": {"build": 5, "targets": [34] * 4},
    "game": {"game": 2, "first_hand": 5},
    "button": {"button": "dice", "taken": False, "why": "not now"},
}
REFUSALS = {code: {"known": ["blue", "green", "pink"], "sets": ["blue", "green"],
                   "fault": {"kind": "jam", "track": 2, "deck": "A", "action": "clear_fault"}}
            for code in vocabulary.REFUSALS}  # (every refusal the page words)


# a refusal of every key the ledger gives: (ruleset, entries before, the refused entry)
LEDGER_REFUSALS = [
    ("riichi", [], {"kind": "ron", "winner": "east", "from": "south", "han": 3, "fu": 40, "chips": 1}),
    ("riichi", [], {"kind": "tsumo", "winner": "east", "han": 3, "fu": 40, "yakuman": 1}),
    ("riichi", [], {"kind": "tsumo", "winner": "east"}),
    ("riichi", [], {"kind": "tsumo", "winner": "east", "han": 3}),
    ("riichi", [], {"kind": "tsumo", "winner": "east", "han": 3, "fu": 35}),
    ("riichi", [], {"kind": "tsumo", "winner": "east", "han": 1, "fu": 25}),
    ("riichi", [], {"kind": "ron", "winner": "east", "from": "south", "han": 2, "fu": 20}),
    ("riichi", [], {"kind": "tsumo", "winner": "east", "han": 1, "fu": 20}),
    ("wsom", [], {"kind": "tsumo", "winner": "east"}),
    ("wsom", [], {"kind": "tsumo", "winner": "east", "patterns": [7]}),
    ("shenyang", [], {"kind": "tsumo", "winner": "east", "multipliers": ["ドラ"]}),
    ("shenyang", [], {"kind": "tsumo", "winner": "east", "multipliers": ["duiduihu", "duiduihu"]}),
    ("uzje", [], {"kind": "tsumo", "winner": "east"}),
    ("uzje", [], {"kind": "tsumo", "winner": "east", "fan": 2.5}),
    ("wsom", [], {"kind": "tsumo", "winner": "east", "han": 2, "fu": 30}),
    ("shenyang", [], {"kind": "pass"}),
    ("wsom", [], {"kind": "draw", "tenpai": ["east"]}),
    ("wsom", [], {"kind": "ron", "from": "south", "winners": [
        {"player": "east", "patterns": 10}, {"player": "west", "patterns": 10}]}),
    ("riichi", [{"kind": "end"}], {"kind": "draw"}),
    ("riichi", [], {"kind": "undo"}),
    ("riichi", [], {"kind": "ron", "winner": "south", "from": "south", "han": 2, "fu": 30}),
    ("riichi", [], {"kind": "pass"}),
    ("riichi", [{"kind": "riichi", "player": "east"}], {"kind": "riichi", "player": "east"}),
    ("riichi", [{"kind": "transfer", "payments": {"east": -24500, "south": 24500}}],
     {"kind": "riichi", "player": "east"}),
    ("shenyang", [], {"kind": "ron", "winner": "east", "from": "south", "multipliers": [],
                      "closed": ["east"]}),
    ("wsom", [], {"kind": "transfer", "payments": {"east": 10, "south": -10},
                  "chips": {"east": 1, "south": -1}}),
    ("riichi", [{"kind": "tsumo", "winner": "east", "han": 3, "fu": 30}], {"kind": "pass"}),
    ("riichi", [], {"kind": "tsumo", "winner": "east", "yakuman": 1, "pao": "east"}),
    ("wsom", [], {"kind": "tsumo", "winner": "east", "patterns": 330}),
    ("shenyang", [], {"kind": "rules"}),
    ("shenyang", [], {"kind": "rules", "ron_pays": "winner"}),
    ("shenyang", [{"kind": "draw"}], {"kind": "rules", "ron_pays": "all"}),
]


def ledger_refusals():
    """key -> {params, message} of the ledger's real refusals (the API's error object)."""
    from hostd.game.errors import LedgerError
    from hostd.game.ledger import Ledger

    out = {}
    for ruleset, before, bad in LEDGER_REFUSALS:
        book = Ledger(ruleset)
        for e in before:
            book.apply(e)
        with pytest.raises(LedgerError) as got:
            book.apply(bad)
        d = got.value.to_dict()
        assert d.get("key"), (ruleset, bad, d)
        out[d["key"]] = {"params": d["params"], "message": d["message"]}
    return out


def words(lang):
    cmds = offered_by("page") + ["dice_entered"]
    r = subprocess.run([NODE, "-e", RUN], input=json.dumps({
        "file": str(WORDS), "lang": lang, "name": "美香" if lang == "ja" else "Mika", "next": daemon_next(), "faults": faults(),
        "refusals": REFUSALS, "events": EVENTS, "cmds": cmds, "shared": SHARED,
        "ledger": ledger_refusals()}),
        capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def en():
    return words("en")


@pytest.fixture(scope="module")
def ja():
    return words("ja")


def flat(value):
    return [value] if isinstance(value, str) else [x for v in value for x in flat(v)]


def test_every_event_told_is_worded_from_an_example():
    """The examples above are of every event type the registry says people are told of
    (hostd/core/vocabulary.py; tests/unit/test_vocabulary.py holds words.js to it)."""
    assert list(EVENTS) == list(vocabulary.EVENTS)


def test_the_language_is_chosen_and_japanese_has_every_english_word(en, ja):
    assert en["chosen"] == "en" and ja["chosen"] == "ja"
    assert ja["holes"] == []


def test_every_code_and_fault_kind_has_words_in_both_languages(en, ja):
    for code in NEXT:
        for out in (en, ja):
            head, more = out["said"]["next." + code]
            assert head.strip(), (code, out["chosen"])
        assert en["said"]["next." + code] != ja["said"]["next." + code], code
    for f in faults():
        key = "fault.%s.%s" % (f["kind"], f["action"])
        for out in (en, ja):
            title, todo = out["said"][key]
            assert title and todo, key
        assert en["said"][key] != ja["said"][key], key


def test_what_to_do_names_the_pages_own_button(en, ja):
    """A fault's words say which of the page's buttons carries on: the one of its action."""
    for out in (en, ja):
        cmd = {c[4:]: out["said"][c] for c in out["said"] if c.startswith("cmd.")}
        for f in faults():
            todo = out["said"]["fault.%s.%s" % (f["kind"], f["action"])][1]
            assert cmd[f["action"]] in todo, (out["chosen"], f, todo)
        push = out["said"]["next.push_all"][1]
        assert out["said"]["primary.push_all"] in push  # the button it names is the one shown


def test_no_word_shows_a_placeholder_or_a_python_value(en, ja):
    for out in (en, ja):
        for key, value in out["said"].items():
            for text in flat(value):
                assert not text.startswith("THROWS"), (key, text)
                for bad in ("undefined", "null", "None", "NaN", "[object", "{", "}"):
                    assert bad not in text, (out["chosen"], key, text)
                assert not re.search(r"(^|\s)\?($|[\s),.])", text), (key, text)  # "deck ?"


def test_no_word_names_a_cli_command(en, ja):
    """Issue 42: players pair from a paired phone; the page never asks for a command."""
    for out in (en, ja):
        for key, value in out["said"].items():
            for text in flat(value):
                assert "jantaku" not in text, (key, text)
    assert "Pair another phone" in en["said"]["refusal.pair_refused"]
    assert "別の端末をペアリング" in ja["said"]["refusal.pair_refused"]


def test_the_japanese_keeps_no_english_word(ja):
    for key, value in ja["said"].items():
        for text in flat(value):
            bare = " ".join(text.split("`")[0::2])  # a command in backticks is a command
            left = [w for w in re.findall(r"[A-Za-z]{3,}", bare) if w.lower() not in NAMES]
            assert left == [], (key, text)


def test_the_break_line_is_one_line_with_the_total(en, ja):
    assert en["said"]["breakLine"] == "3+4 = 7 · break across · 7 stacks from their right end"
    assert ja["said"]["breakLine"] == "3+4 = 7 · 対面の山を割る · 右端から7幢目"
    assert en["said"]["breakLine.tiles"].endswith("1 tile from their right end")
    assert en["said"]["closesIn"] == "The centre closes in 1:23"
    assert en["said"]["closesIn.short"] == "The centre closes in 8 s"
    assert en["said"]["buildLeft"] == ["Deck B is ready inside in about 20 s",
                                       "Deck B is ready inside in about 2 min"]
    assert ja["said"]["closesIn.short"] == "中央はあと8秒で閉じます"


def test_the_safety_chain_is_said_closed_open_or_stuck(en, ja):
    """Issue 48: the page reports the chain as the table reads it; an open chain and a
    stuck relay say what a person does (docs/SAFETY.md)."""
    closed, open_, stuck = en["said"]["safety"]
    assert closed == "closed · lift and door power on"
    assert open_.startswith("OPEN") and "emergency stop" in open_ and "lid" in open_
    assert stuck.startswith("FAULT") and "switch the table off" in stuck
    assert ja["said"]["safety"][1].startswith("開") and "非常停止" in ja["said"]["safety"][1]


def test_colour_names_and_set_marks_are_translated(en, ja):
    assert en["said"]["colours"] == ["blue and green", "both blue", "as the table is set up"]
    assert ja["said"]["colours"] == ["青と緑", "どちらも青", "卓の設定どおり"]
    assert en["said"]["marks"] == ["B", "G", "P"]
    assert ja["said"]["marks"] == ["青", "緑", "桃"]


def _subcommands():
    from hostd.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return set(sub.choices)


def test_the_pages_files_name_no_jantaku_command():
    """Issues 28 and 42: the page names its own buttons, never a command of the CLI (a new
    phone's code comes from a paired phone's "Pair another phone", or the host's screen)."""
    commands = _subcommands()
    assert {"session", "hand-over", "dice", "continue", "pair"} <= commands
    page = ROOT / "hostd" / "web" / "page"
    for path in sorted(page.iterdir()):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"jantaku[\s\u00a0]+([a-z][a-z-]*)([^`\"\n]*)", text):
            assert m.group(1) not in commands, (path.name, m.group(0))


def test_the_phrase_tables_are_gone():
    """The daemon's English sentences are no longer translated by regular expressions."""
    text = WORDS.read_text(encoding="utf-8")
    assert "new RegExp" not in text and "say:" not in text and "jantakuTranslator" not in text


def test_in_play_the_headline_says_to_push_the_tiles_in_first(en, ja):
    """Issue 42 point 2: "push the played tiles in" was only below the fold, so a tap on
    Hand over raised the next walls under the played deck."""
    for code in ("playing", "playing_building"):
        head, more = en["said"]["next." + code]
        assert "push the tiles in first" in head and "Hand over" in more, (code, head, more)
        assert "中央" in ja["said"]["next." + code][0], code


def test_the_scores_are_worded_in_both_languages(en, ja):
    """Issue 40 point 5: a phone's own score, who deals, honba and sticks, the gaps, the last
    hand's payments and the placement; the entry buttons and their answers."""
    said = en["said"]
    assert said["score.me"] == ["East (you) · 31,000 · you deal",
                                "美香 (South, your right) · 21,000"]
    assert said["score.handLine"][:2] == [
        "East 2 · 1 honba · 2 riichi sticks · you deal",
        "East 2 · 1 honba · 2 riichi sticks · East deals"]
    assert said["score.handLine"][2].endswith("game over")
    assert said["score.handLine"][4] == "East 2 · East deals"  # no honba in other rulesets
    assert said["score.gaps"] == "You vs 美香 +10,000 · West −2,300 · North ±0"
    assert said["score.last"][0] == ("Last: ron by East from 美香 (South) — East +5,900, "
                                     "美香 (South) −4,900.")
    assert said["score.entered"] == "Entered: ron by East from 美香 (South)."
    assert said["score.undone"][0] == "Undone: ron by East from 美香 (South)."
    assert said["score.final"].startswith("Final: 1st East 31,000 · 2nd North 24,000")
    assert said["score.last"][-5:-1] == [
        "Last: nagashi mangan by West — West +8,000.",
        "Last: special suukantsu by 美香 (South) from North — 美香 (South) +64,000.",
        "Last: tile revealed (pot) by North — North −8.",
        "Last: the game's rules: everyone, the discarder ×2."]
    assert ja["said"]["score.me"][0] == "東家(自分) · 31,000点 · あなたが親"
    assert ja["said"]["score.handLine"][0] == "東2局 · 1本場 · 供託2本 · あなたが親"
    for key in [k for k in said if k.startswith("score.")]:
        assert said[key] != ja["said"][key], key


def test_countdowns_say_what_they_count_to(en, ja):
    """Issue 42 point 5: a countdown names what comes at its end."""
    assert en["said"]["retryIn"] == "The page tries the daemon again in 4 s."
    assert en["said"]["buildLeft"][0].startswith("Deck B is ready inside")
    assert "デーモン" in ja["said"]["retryIn"]


def test_a_command_on_its_way_is_named(en, ja):
    """Issue 42 point 3: "Ending the session…", never "Hand over · Sending..." while End is
    sent."""
    said = en["said"]["sendingNow"]
    cmds = offered_by("page") + ["dice_entered"]
    assert dict(zip(cmds, said))["end"] == "Ending the session…"
    assert dict(zip(cmds, said))["continue"] == "Closing the centre…"
    assert said[-1] == "Carrying on…"
    assert len(set(said)) == len(said)  # each its own words
    assert all("Sending" not in x for x in said)
    assert dict(zip(cmds, ja["said"]["sendingNow"]))["end"] == "セッションを終了しています…"


def test_the_break_is_said_from_the_breakers_seat_and_this_phones(en, ja):
    """Issue 42 point 4: "your wall, 3 stacks from your right"; "break in front of West
    (Mika), across from you"."""
    mine, across, left, svg = en["said"]["breakSeen"]
    assert mine == "3+4 = 7 · your wall, 7 stacks from your right"
    assert across == "3+4 = 7 · break in front of West (Mika), across from you · 7 stacks from their right"
    assert left == "3+4 = 7 · break in front of the wall on your left · 7 stacks from their right"
    assert svg.startswith("The four walls seen from your seat (bottom): 3+4 = 7 · break in front of North,")
    assert ja["said"]["breakSeen"][1] == "3+4 = 7 · 西家(美香)(あなたの対面)の山を割る · 右端から7幢目"


def test_the_guard_is_said_in_plain_words(en, ja):
    """Issue 42 point 5: no "light curtain": the sensor over the table's edge."""
    title, todo = en["said"]["fault.guard.continue"]
    assert "light curtain" not in title + todo and "table's edge" in title
    assert "sensor over the table's edge" in todo
    assert "ライトカーテン" not in "".join(ja["said"]["fault.guard.continue"])


def test_one_name_for_a_seat_on_every_screen_in_both_languages(en, ja):
    """Issue 50 point 4: the seat picker said "the first thrower's right", the score form
    "East seat (North)", the table view "West East seat", a refusal "east is already in
    riichi". Now each names a player the one way: their name, their wind now, and where
    they sit from this phone (South's phone here; the table view has no seat)."""
    assert en["said"]["seatName"] == [
        "North (your left)", "East (you)", "美香 (South, your right)", "West (across)",
        "美香 (South)", "West",  # the table view: no phone's seat
        "美香", "West"]  # a short line: the first word of it
    assert ja["said"]["seatName"] == ["北家(上家)", "東家(自分)", "美香(南家・下家)", "西家(対面)",
                                      "美香(南家)", "西家", "美香", "西家"]
    # the seat picker, the refusals, the names form use it
    assert en["said"]["score.seat"][9:11] == ["美香 (South)", "East · Dealer"]
    assert en["said"]["why.riichi_again"] == "Not entered: North (your left) is already in riichi this hand."
    assert ja["said"]["why.riichi_again"] == "記録できません:北家(上家)はこの局ですでにリーチしています。"
    assert en["said"]["score.answers"][-2:] == ["Name of South (your right)", "Name of South"]
    # an entry's answer and "Last" name the players as they sat in that entry's hand
    assert en["said"]["score.last.dealt"] == (
        "Last: ron by South (you) from 美香 (West, your right) — South (you) +5,900, "
        "美香 (West, your right) −4,900.")
    for out in (en, ja):
        for text in flat(out["said"]["score.seat"]) + flat(out["said"]["score.last"]):
            assert " seat" not in text and "開始時" not in text and "thrower" not in text, text


def test_a_new_game_says_what_becomes_of_the_sticks_on_the_table(en, ja):
    """Issue 50 point 5: "End this game and begin the next?" said nothing of a riichi stick
    left on the table."""
    assert en["said"]["confirm.game_new"] == [
        "End game 1 and begin game 2? Game 1 ends with the scores as they stand: the 2 riichi "
        "sticks on the table (2,000) go to first place, East (you).",
        "End game 1 and begin game 2? Game 1 ends with the scores as they stand: the riichi "
        "stick on the table (1,000) goes to first place, 美香 (South, your right).",
        "End game 2 and begin game 3? Game 2 ends with the scores as they stand.",
        "End game 1 and begin game 2? Game 1 ends with the scores as they stand: the pot (8) "
        "goes to first place, North."]
    assert "供託2本(2,000点)はトップの東家(自分)" in ja["said"]["confirm.game_new"][0]


def test_earlier_sessions_say_each_games_placement_and_the_hands_scored(en, ja):
    """Issue 50 point 1: "ended, 2 games, 5 hands" and no points (5 counted table hands)."""
    assert en["said"]["historyGame"][:2] == [
        "Game 1: final, 3 hands scored — 1st East 31,000 · 2nd North 24,000 · 3rd West 24,000 "
        "· 4th 美香 (South) 21,000", "Game 2: no scores"]
    assert en["said"]["historyLine.scored"].endswith("— ended, 2 games, 3 hands scored")
    assert en["said"]["historyLine"].endswith("1 game, 2 hands scored")
    assert ja["said"]["historyGame"][0].startswith("半荘1:終局、記録3局 — 1位 東家 31,000点")


def test_a_ledger_refusal_is_said_in_the_pages_language(en, ja):
    """Issue 42 point 5: the Japanese page said the ledger's refusals in English brackets.
    Each refusal carries a key (and params) beside its English message; every key the
    ledger raises is met here, and Japanese words it from the key, without the English."""
    import ast

    from hostd.game.entries import KEYED

    raised = set(KEYED)  # the entry models' own (pydantic errors of that type)
    for path in sorted((ROOT / "hostd" / "game").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg == "key" and isinstance(node.value, ast.Constant):
                raised.add(node.value.value)
    keys = {k[4:] for k in ja["said"] if k.startswith("why.")}
    assert raised and raised == keys, raised ^ keys
    refusals = ledger_refusals()
    named = {"riichi_again", "riichi_points", "own_discard", "pao_self"}  # name a player
    for key in keys - named:
        assert en["said"]["why." + key] == "Not entered: %s." % refusals[key]["message"]
    for key in named:  # the player as every screen names them, not the ledger's "east"
        said = en["said"]["why." + key]
        assert said.startswith("Not entered: ") and refusals[key]["message"][:15] not in said, said
        said = ja["said"]["why." + key]
        assert said.startswith("記録できません:") and "その記録はできません" not in said, (key, said)
        assert refusals[key]["message"][:20] not in said, (key, said)
    assert ja["said"]["why.riichi_points"] == "記録できません:北家(上家)は500点です。リーチには1000点が要ります。"
    assert ja["said"]["why.fu_invalid"].startswith("記録できません:35符はありません")


def test_a_tracks_place_is_said_from_this_phones_seat(en, ja):
    """Issue 42 point 5: "Track 2" with no place: the tracks are marked on the drawing, and
    the words say under which wall, seen from this phone."""
    words = en["said"]["faultBanner"][-3:]
    assert words == [
        "Track 2 is the lane inside the table under the wall across from you, marked 2 on the "
        "drawing of the table.",
        "Track 1 is the lane inside the table under your wall, marked 1 on the drawing of the "
        "table.",
        "Track 3 is the lane inside the table under the wall marked 3 on the drawing of the table."]
    assert ja["said"]["faultBanner"][-2] == "トラック1はあなたの山の下にある卓の中のレーンです。卓の図では1の印です。"
