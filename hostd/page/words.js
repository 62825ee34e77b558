"use strict";
// Every word the page shows a person, in one place (a translation replaces this file).
// Functions take the event's or the status's fields; app.js never writes a sentence itself.
window.JANTAKU_WORDS = {
  lang: "en",
  title: "jantaku table",
  live: "live",
  offline: "reconnecting…",
  pageOffline: "This page has lost the daemon: it reconnects by itself (is `jantaku run` still running?)",

  // what the table is doing, one or two words, then what happens next (the daemon's sentence)
  activity: {
    connecting: "Connecting…",
    page_offline: "Page not connected",
    disconnected: "Table not connected",
    abort_pending: "Stopping",
    fault: "Fault",
    people: "Waiting for people",
    door: "Centre open",
    boot: "Starting up",
    mixing: "Mixing",
    building: "Building walls",
    paused: "Paused",
    lifting: "Raising the walls",
    testing: "Self-test",
    hand_over: "Hand over",
    preparing: "Getting ready",
    ready: "Walls ready inside",
    playing: "Hand in play",
    no_session: "No session",
    idle: "Idle",
  },
  whyNotConnected: (error) => "Why: " + (error || "no answer from the table yet"),
  next: "Next",

  facts: {
    ruleset: "Ruleset",
    mixed: "Mixed Deck",
    normal: "two sets, normal rotation",
    game: "Game",
    hand: "Hand",
    noHand: "not started",
    table: "Table",
    session: "Session",
    noSession: "none",
  },
  game: (g) => {
    if (g === null || g === undefined) return "";
    if (typeof g !== "object") return String(g);
    const n = g.number !== undefined ? g.number : (g.game !== undefined ? g.game : g.id);
    const kind = g.kind || g.name || g.length || "";
    return [n !== undefined ? "game " + n : "", kind].filter(Boolean).join(", ");
  },
  hand: (hand, gameHand, game) => gameHand !== undefined && gameHand !== null && game
    ? gameHand + " of game " + game + " (hand " + hand + " of the session)" : String(hand),
  tableName: (id) => id ? id.board + " · firmware " + id.firmware : "unknown",

  decksTitle: "Decks",
  // where a deck is
  where: {
    top: "on the table top",
    inside: "built inside",
    lift: "on the lift",
    mixer: "in the mixer",
    split: "being built inside",
    unknown: "unknown: count it again",
  },
  deck: (d) => "Deck " + d,
  deckTiles: (n) => n + " tiles",
  deckNotSplit: "tiles counted once the split is built",
  backsTitle: "Backs",
  coloursUnchecked: "Both sets have the same backs: the table counts every tile, " +
    "but it cannot tell the sets apart, so this deck's colours cannot be checked.",
  noDecks: "No session: start one to see the decks.",

  // the walls being built inside
  wallsTitle: "Walls inside",
  track: (n) => "Track " + n,
  count: (have, target) => have + "/" + target,
  building: (deck) => deck ? "Deck " + deck + " is being built" : "Building",
  built: (deck, n, ok) => (deck ? "Deck " + deck : "Walls") + " built: " + n + " tiles" +
    (ok === false ? " — the count is wrong (see the fault)" : ""),
  stoppedBuild: (deck) => (deck ? "Deck " + deck : "The build") + " stopped",
  noBuild: "No walls built yet.",
  joined: "Faded tiles: counted by the table while this page did not see them (drawn " +
    "grouped by colour, from the table's counts).",
  unknownColour: "unknown",
  over: "extra",

  // the walls on the table top, the throw and the break
  topTitle: "On the table",
  topNone: "No walls on the table top yet: they come up at the first hand over.",
  waitingDice: (hand) => "Hand " + hand + ": the walls are up; throw the dice.",
  seat: {
    self: "the thrower",
    right: "the thrower's right",
    across: "the player across",
    left: "the thrower's left",
  },
  seatShort: { self: "thrower", right: "right", across: "across", left: "left" },
  by: { button: "the dice button", api: "thrown from a program", entered: "physical dice, entered" },
  throwLine: (t) => "Hand " + t.hand + (t.deck ? " (deck " + t.deck + ")" : "") +
    ": dice " + t.dice.join(" + ") + " = " + t.total +
    (t.by ? " (" + (window.JANTAKU_WORDS.by[t.by] || t.by) + ")" : ""),
  breakLine: (t, seat) => "Break the wall of " + seat + ", " + t.break_from_right + " " +
    (t.break_from_right === 1 ? t.unit.replace(/s$/, "") : t.unit) + " from its right end.",
  deadLine: (tiles) => "Dead wall: the " + tiles + " tiles (" + tiles / 2 +
    " stacks) to the right of the break.",
  doubleLine: "A double: the hand's value doubles.",
  breakerIsDealer: "The wall's owner becomes the dealer.",
  breakMark: "break",
  deadMark: "dead wall",
  tableSvg: (t, seat) => "The four walls seen from the thrower's seat (bottom): the wall of " +
    seat + " breaks " + t.break_from_right + " " + t.unit + " from its right end.",

  // faults
  faultTitle: "Fault",
  whatToDo: "What to do",
  faultTable: (f) => f.message + (f.track ? " (track " + f.track + ")" : ""),

  // the latest events, in words
  logTitle: "Latest",
  log: {
    session_started: (e) => "Session " + e.session + " started: " + e.ruleset +
      (e.mixed_deck ? ", Mixed Deck" : ""),
    session_resumed: (e) => "Session " + e.session + " resumed (hand " + e.hand + ")",
    build_started: (e) => e.resumes ? "Deck " + e.deck + ": the build goes on"
      : "Building deck " + e.deck,
    build_resumed: (e) => "Deck " + e.deck + ": the build goes on",
    build_done: (e) => "Deck " + e.deck + " built: " +
      e.per_track.reduce((a, b) => a + b, 0) + " tiles" + (e.ok ? "" : " — count wrong"),
    build_failed: (e) => "Building deck " + e.deck + " stopped: " + e.message,
    hand_over: (e) => "Hand over: deck " + e.raising + " comes up" +
      (e.dropping ? ", deck " + e.dropping + " goes in" : ""),
    hand: (e) => "Hand " + e.hand + " began on deck " + e.deck +
      (e.dice && e.dice.length ? ": dice " + e.dice.join(" + ") : ": the walls are up"),
    dice: (e) => "Dice for hand " + e.hand + ": " + e.dice.join(" + ") + " = " + e.total,
    table_fault: (e) => "Table fault: " + e.message,
    fault: (e) => e.message,
    fault_recovered: () => "A fault was recovered from",
    stopped: (e) => "Stopped: " + e.message,
    ask: (e) => e.message,
    step_failed: (e) => e.message,
    session_ended: (e) => "Session " + e.session + " " + e.how +
      (e.reason ? ": " + e.reason : ""),
    link: (e) => "Table " + e.what + (e.detail ? ": " + e.detail : ""),
    abort_pending: (e) => e.message,
    abort_confirmed: (e) => e.message,
    emptied: () => "The walls inside are on the table top",
    collect: () => "Raising the walls inside to collect the tiles",
    resplit: (e) => "Hand " + e.hand + ": both decks are split again",
    swap: (e) => "Hand " + e.hand + ": the decks are swapped",
    drain: () => "Draining the mixer into walls",
    game: (e) => "Game " + e.game + " began",
    button: (e) => (e.button === "dice" ? "Dice button" : "Start button") + ": " +
      (e.taken ? e.did || "taken" : "refused: " + (e.why || "not now")),
  },
  footer: "jantaku · the table's own page, served by its daemon · API: ",

  // the controls: each button says what it will do; the table's answer is the daemon's sentence
  controlsTitle: "Controls",
  language: "Language",
  languages: { en: "English", ja: "日本語" },
  pairLabel: "Pairing code",
  pairButton: "Pair this browser",
  pairNeeded: "This browser sees the table but cannot press its buttons: type the code " +
    "shown by `jantaku run` (or `jantaku pair --new`) on the table's host.",
  paired: "This browser is paired: it may run the table.",
  pairedNow: "Paired: this browser may now run the table.",
  start: {
    ruleset: "Ruleset",
    mixed: "Mixed Deck",
    colours: "The two sets' backs (blank: the daemon's)",
    loaded: "Sets sorted: the first in the mixer, the second on the table top",
    loadedHelp: "For the normal rotation after the sets were mixed (Mixed Deck, or tiles of " +
      "unknown origin): tick this once people have sorted the tiles by back colour and " +
      "loaded them so.",
    button: "Start the session",
  },
  cmd: {
    "hand-over": "Hand over: raise the next walls",
    "dice": "Throw the dice",
    "dice-entered": "Enter our throw",
    "continue": "Continue: done what the table asked",
    "clear-fault": "Fault fixed: clear it",
    "game": "New game",
    "end": "End the session",
    "abort": "Abort: stop the table",
  },
  historyTitle: "Earlier sessions",
  historyNone: "No session yet.",
  // one past session (GET /history): its number, ruleset, how it ended, games and hands
  historyLine: (h, hands) => "Session " + h.id + ": " + h.ruleset +
    (h.mixed_deck ? ", Mixed Deck" : "") + " — " + ({ ended: "ended", aborted: "aborted",
      failed: "ended by a fault", open: "open" }[h.state] || h.state) + ", " +
    (h.games || []).length + " game" + ((h.games || []).length === 1 ? "" : "s") + ", " +
    hands + " hand" + (hands === 1 ? "" : "s"),
  sending: (label) => label + "…",
  done: (label, next) => label + ": done." + (next ? " Next: " + next : ""),
  refused: (label, message) => label + ": refused — " + message,
  unreachable: (label) => label + ": the daemon did not answer (is `jantaku run` up?)",
  badDice: "Type the faces of the dice, e.g. 3,4",
  confirmAbort: "Stop every motor and end the session?",
  confirmEnd: "End the session?",
};

// Japanese: the words a player meets at the table (headlines, facts, controls).  Anything
// not here is shown in English, as are the daemon's own sentences (what to do next).
window.JANTAKU_WORDS_JA = {
  lang: "ja",
  title: "雀卓",
  live: "接続中",
  offline: "再接続中…",
  activity: {
    connecting: "接続しています…",
    page_offline: "ページが切断されました",
    disconnected: "卓が接続されていません",
    abort_pending: "停止中",
    fault: "エラー",
    people: "操作待ち",
    door: "中央が開いています",
    boot: "起動中",
    mixing: "洗牌中",
    building: "山を積んでいます",
    paused: "一時停止",
    lifting: "山を上げています",
    testing: "自己診断",
    hand_over: "局の交代",
    preparing: "準備中",
    ready: "山の準備ができました",
    playing: "対局中",
    no_session: "セッションなし",
    idle: "待機中",
  },
  next: "次",
  facts: {
    ruleset: "ルール",
    mixed: "ミックスデッキ",
    normal: "2組の牌、通常の交代",
    game: "半荘",
    hand: "局",
    noHand: "未開始",
    table: "卓",
    session: "セッション",
    noSession: "なし",
  },
  decksTitle: "デッキ",
  deck: (d) => "デッキ " + d,
  deckTiles: (n) => n + "枚",
  wallsTitle: "中の山",
  track: (n) => "トラック " + n,
  topTitle: "卓上",
  faultTitle: "エラー",
  whatToDo: "対処",
  logTitle: "最新",
  controlsTitle: "操作",
  language: "言語",
  pairLabel: "ペアリングコード",
  pairButton: "このブラウザをペアリング",
  pairNeeded: "このブラウザは卓を見られますが操作できません。卓のホストで `jantaku run`(または `jantaku pair --new`)が表示するコードを入力してください。",
  paired: "このブラウザはペアリング済みです。卓を操作できます。",
  pairedNow: "ペアリングしました。このブラウザで卓を操作できます。",
  start: {
    ruleset: "ルール",
    mixed: "ミックスデッキ",
    colours: "2組の牌の背の色(空欄:デーモンの設定)",
    loaded: "牌は仕分け済み:1組目は洗牌機の中、2組目は卓上",
    loadedHelp: "2組の牌が混ざった後(ミックスデッキなど)に通常の交代で始めるとき、背の色で牌を" +
      "仕分けてそのように置いたらチェックしてください。",
    button: "セッション開始",
  },
  cmd: {
    "hand-over": "局の交代:次の山を上げる",
    "dice": "サイコロを振る",
    "dice-entered": "振った目を入力",
    "continue": "続行(指示どおりにした)",
    "clear-fault": "エラー解消",
    "game": "次の半荘",
    "end": "セッション終了",
    "abort": "中止:卓を止める",
  },
  historyTitle: "これまでのセッション",
  historyNone: "まだセッションはありません。",
  historyLine: (h, hands) => "セッション " + h.id + ":" + h.ruleset +
    (h.mixed_deck ? "、ミックスデッキ" : "") + " — " + ({ ended: "終了", aborted: "中止",
      failed: "エラーで終了", open: "進行中" }[h.state] || h.state) + "、半荘 " +
    (h.games || []).length + "、" + hands + "局",
  sending: (label) => label + "…",
  done: (label, next) => label + ":完了。" + (next ? "次:" + next : ""),
  refused: (label, message) => label + ":拒否 — " + message,
  unreachable: (label) => label + ":デーモンが応答しません(`jantaku run` は動いていますか?)",
  badDice: "サイコロの目を入力してください(例 3,4)",
  confirmAbort: "すべてのモーターを止めてセッションを終了しますか?",
  confirmEnd: "セッションを終了しますか?",
};

// The language: the one chosen on the page (kept in this browser), else the browser's.
(function () {
  const EN = window.JANTAKU_WORDS, JA = window.JANTAKU_WORDS_JA;
  let chosen = null;
  try { chosen = window.localStorage.getItem("jantaku.lang"); } catch (err) { /* private mode */ }
  const want = chosen || ((navigator.language || "en").toLowerCase().startsWith("ja") ? "ja" : "en");
  if (want !== "ja") return;
  const merge = (base, over) => {
    const out = Object.assign({}, base);
    Object.keys(over).forEach((k) => {
      out[k] = over[k] && typeof over[k] === "object" && !Array.isArray(over[k]) &&
        base[k] && typeof base[k] === "object" ? merge(base[k], over[k]) : over[k];
    });
    return out;
  };
  window.JANTAKU_WORDS = merge(EN, JA);
})();
