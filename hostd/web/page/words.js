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
  builtGone: (deck, where) => "Deck " + deck + " was built here; now " + where,
  noBuild: "No walls built yet.",
  joined: "Faded tiles: counted by the table while this page did not see them (drawn " +
    "grouped by colour, from the table's counts).",
  unknownColour: "unknown",
  over: "extra",

  // the walls on the table top, the throw and the break
  topTitle: "On the table",
  topNone: "No walls on the table top yet: they come up at the first hand over.",
  topNoneNow: "No walls on the table top now: the next hand over raises them.",
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
    fault_recovered: () => "Fault cleared: the table carries on",
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
  forgetButton: "Forget this browser",
  forgotten: "This browser is no longer paired: type a fresh code to run the table again.",
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
  historyNone: "No earlier session.",
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
  badColours: "Type each set's back colour as one short word, e.g. blue and green (the same " +
    "word twice for two sets whose backs look alike).",
  confirmAbort: "Stop every motor and end the session?",
  confirmEnd: "End the session?",
  // the daemon's own sentences (what to do next, a fault, a refusal) are English already
  say: (text) => text,
};

// Japanese (riichi tables come from there): every key of the English table above.
window.JANTAKU_WORDS_JA = {
  lang: "ja",
  title: "雀卓",
  live: "接続中",
  offline: "再接続中…",
  pageOffline: "このページはデーモンとの接続が切れました。自動で再接続します(`jantaku run` は動いていますか?)",
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
  whyNotConnected: (error) => "理由:" + (error || "卓からまだ応答がありません"),
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
  hand: (hand, gameHand, game) => gameHand !== undefined && gameHand !== null && game
    ? "半荘" + game + "の第" + gameHand + "局(セッションの第" + hand + "局)" : "第" + hand + "局",
  tableName: (id) => id ? id.board + " · ファームウェア " + id.firmware : "不明",
  decksTitle: "デッキ",
  where: {
    top: "卓上",
    inside: "中に積まれています",
    lift: "リフトの上",
    mixer: "洗牌機の中",
    split: "中で積んでいます",
    unknown: "不明:もう一度数えてください",
  },
  deck: (d) => "デッキ " + d,
  deckTiles: (n) => n + "枚",
  deckNotSplit: "牌の数は分けて積んだときに数えます",
  backsTitle: "背の色",
  coloursUnchecked: "2組の背が同じ色です。卓はすべての牌を数えますが組を見分けられないので、" +
    "このデッキの色は確かめられません。",
  noDecks: "セッションがありません。始めるとデッキが表示されます。",
  wallsTitle: "中の山",
  track: (n) => "トラック " + n,
  count: (have, target) => have + "/" + target,
  building: (deck) => deck ? "デッキ " + deck + " を積んでいます" : "積んでいます",
  built: (deck, n, ok) => (deck ? "デッキ " + deck : "山") + " 積み上がり:" + n + "枚" +
    (ok === false ? " — 数が合いません(エラーを見てください)" : ""),
  stoppedBuild: (deck) => (deck ? "デッキ " + deck + " の" : "") + "山積みが止まりました",
  builtGone: (deck, where) => "デッキ " + deck + " はここで積まれました(今は" + where + ")",
  noBuild: "まだ山は積まれていません。",
  joined: "薄い牌:このページが見ていない間に卓が数えた牌(卓の数に基づき色ごとにまとめて表示)。",
  unknownColour: "不明",
  over: "余分",
  topTitle: "卓上",
  topNone: "卓上にはまだ山がありません。最初の局の交代で上がります。",
  topNoneNow: "いま卓上に山はありません。次の局の交代で上がります。",
  waitingDice: (hand) => "第" + hand + "局:山が上がりました。サイコロを振ってください。",
  seat: { self: "振った人", right: "振った人の下家", across: "対面", left: "振った人の上家" },
  seatShort: { self: "自分", right: "下家", across: "対面", left: "上家" },
  by: { button: "サイコロボタン", api: "プログラムから", entered: "手で振った目を入力" },
  throwLine: (t) => "第" + t.hand + "局" + (t.deck ? "(デッキ " + t.deck + ")" : "") +
    ":サイコロ " + t.dice.join(" + ") + " = " + t.total +
    (t.by ? "(" + (window.JANTAKU_WORDS.by[t.by] || t.by) + ")" : ""),
  breakLine: (t, seat) => seat + "の山を右端から" + t.break_from_right +
    (t.unit === "tiles" ? "枚" : "幢") + "目で割ります。",
  deadLine: (tiles) => "王牌:割れ目の右の" + tiles + "枚(" + tiles / 2 + "幢)。",
  doubleLine: "ゾロ目:この局の点数は倍になります。",
  breakerIsDealer: "割られた山の持ち主が親になります。",
  breakMark: "割れ目",
  deadMark: "王牌",
  tableSvg: (t, seat) => "振った人の席(下)から見た四つの山:" + seat + "の山を右端から" +
    t.break_from_right + (t.unit === "tiles" ? "枚" : "幢") + "目で割ります。",
  faultTitle: "エラー",
  whatToDo: "対処",
  faultTable: (f) => window.JANTAKU_WORDS.say(f.message) + (f.track ? "(トラック " + f.track + ")" : ""),
  logTitle: "最新",
  log: {
    session_started: (e) => "セッション " + e.session + " 開始:" + e.ruleset +
      (e.mixed_deck ? "、ミックスデッキ" : ""),
    session_resumed: (e) => "セッション " + e.session + " 再開(第" + e.hand + "局)",
    build_started: (e) => e.resumes ? "デッキ " + e.deck + ":山積みを続けます"
      : "デッキ " + e.deck + " を積んでいます",
    build_resumed: (e) => "デッキ " + e.deck + ":山積みを続けます",
    build_done: (e) => "デッキ " + e.deck + " 積み上がり:" +
      e.per_track.reduce((a, b) => a + b, 0) + "枚" + (e.ok ? "" : " — 数が合いません"),
    build_failed: (e) => "デッキ " + e.deck + " の山積みが止まりました:" + window.JANTAKU_WORDS.say(e.message),
    hand_over: (e) => "局の交代:デッキ " + e.raising + " が上がります" +
      (e.dropping ? "、デッキ " + e.dropping + " は中へ" : ""),
    hand: (e) => "第" + e.hand + "局がデッキ " + e.deck + " で始まりました" +
      (e.dice && e.dice.length ? ":サイコロ " + e.dice.join(" + ") : ":山が上がりました"),
    dice: (e) => "第" + e.hand + "局のサイコロ:" + e.dice.join(" + ") + " = " + e.total,
    table_fault: (e) => "卓のエラー:" + window.JANTAKU_WORDS.say(e.message),
    fault: (e) => window.JANTAKU_WORDS.say(e.message),
    fault_recovered: () => "エラーから復旧しました",
    stopped: (e) => "停止:" + window.JANTAKU_WORDS.say(e.message),
    ask: (e) => window.JANTAKU_WORDS.say(e.message),
    step_failed: (e) => window.JANTAKU_WORDS.say(e.message),
    session_ended: (e) => "セッション " + e.session + " " +
      ({ ended: "終了", aborted: "中止", failed: "エラーで終了" }[e.how] || e.how) +
      (e.reason ? ":" + window.JANTAKU_WORDS.say(e.reason) : ""),
    link: (e) => "卓:" + ({ connected: "接続しました", up: "接続しました", reset: "再起動しました",
      disconnected: "切断されました" }[e.what] || e.what) +
      (e.detail ? "(" + window.JANTAKU_WORDS.say(e.detail) + ")" : ""),
    abort_pending: (e) => window.JANTAKU_WORDS.say(e.message),
    abort_confirmed: (e) => window.JANTAKU_WORDS.say(e.message),
    emptied: () => "中の山は卓上にあります",
    collect: () => "牌を集めるため中の山を上げています",
    resplit: (e) => "第" + e.hand + "局:両方のデッキを分け直します",
    swap: (e) => "第" + e.hand + "局:デッキを入れ替えます",
    drain: () => "洗牌機の牌を山にして出しています",
    game: (e) => "半荘 " + e.game + " が始まりました",
    button: (e) => (e.button === "dice" ? "サイコロボタン" : "スタートボタン") + ":" +
      (e.taken ? window.JANTAKU_WORDS.say(e.did || "taken") : "拒否:" +
        window.JANTAKU_WORDS.say(e.why || "not now")),
  },
  footer: "jantaku · 卓のページ(デーモンが提供)· API: ",
  controlsTitle: "操作",
  language: "言語",
  languages: { en: "English", ja: "日本語" },
  pairLabel: "ペアリングコード",
  pairButton: "このブラウザをペアリング",
  pairNeeded: "このブラウザは卓を見られますが操作できません。卓のホストで `jantaku run`(または `jantaku pair --new`)が表示するコードを入力してください。",
  paired: "このブラウザはペアリング済みです。卓を操作できます。",
  pairedNow: "ペアリングしました。このブラウザで卓を操作できます。",
  forgetButton: "このブラウザのペアリングを解除",
  forgotten: "ペアリングを解除しました。また操作するには新しいコードを入力してください。",
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
  historyNone: "これまでのセッションはありません。",
  historyLine: (h, hands) => "セッション " + h.id + ":" + h.ruleset +
    (h.mixed_deck ? "、ミックスデッキ" : "") + " — " + ({ ended: "終了", aborted: "中止",
      failed: "エラーで終了", open: "進行中" }[h.state] || h.state) + "、半荘 " +
    (h.games || []).length + "、" + hands + "局",
  sending: (label) => label + "…",
  done: (label, next) => label + ":完了。" + (next ? "次:" + window.JANTAKU_WORDS.say(next) : ""),
  refused: (label, message) => label + ":拒否 — " + window.JANTAKU_WORDS.say(message),
  unreachable: (label) => label + ":デーモンが応答しません(`jantaku run` は動いていますか?)",
  badDice: "サイコロの目を入力してください(例 3,4)",
  badColours: "それぞれの組の背の色を短い英単語で入力してください(例 blue と green。背が同じ2組なら" +
    "同じ単語を2回)。",
  confirmAbort: "すべてのモーターを止めてセッションを終了しますか?",
  confirmEnd: "セッションを終了しますか?",
  say: null,  // below: the daemon's English sentences in Japanese
};

// The daemon speaks English (its sentences are also the CLI's and the log's). A language
// translates them here, the way gettext keys a translation by the English text: a
// sentence is matched whole against the language's phrases (first match wins; a phrase
// may translate parts of itself again), else cut at its first ": ", "; " or ". " outside
// brackets and backticks and each part translated.  What matches nothing stays English
// and is kept in `say.missed` (tests/unit/test_page_words.py checks the daemon's
// sentences against it).
window.jantakuTranslator = function (phrases, joins) {
  const missed = new Set();
  function cut(text) {
    let depth = 0, tick = false;
    for (let i = 0; i < text.length - 2; i++) {
      const c = text[i];
      if (c === "`") tick = !tick;
      if (tick) continue;
      if (c === "(") depth++;
      else if (c === ")") depth--;
      else if (depth === 0 && text[i + 1] === " " && (c === ":" || c === ";" ||
               (c === "." && /[A-Z]/.test(text[i + 2])))) {
        return [text.slice(0, i), c, text.slice(i + 2)];
      }
    }
    return null;
  }
  function say(text) {
    text = String(text === undefined || text === null ? "" : text).trim();
    if (!text) return "";
    for (let k = 0; k < phrases.length; k++) {
      const m = phrases[k][0].exec(text);
      if (m) return phrases[k][1](m, say);
    }
    const parts = cut(text);
    if (parts) return say(parts[0]) + joins[parts[1]] + say(parts[2]);
    missed.add(text);
    return text;
  }
  say.missed = missed;
  return say;
};

(function () {
  const STEP = { start: "開始", hand_over: "局の交代", new_game: "次の半荘", empty: "牌を出す",
                 resume: "再開", selftest: "自己診断", calibrate: "校正" };
  const SEAT = { "the thrower": "振った人", "the thrower's right": "振った人の下家",
                 "across": "対面", "the thrower's left": "振った人の上家" };
  const colours = (text) => text.replace(/(\S+) (\d+) of (\d+)/g, "$1 $3枚中$2枚")
    .replace(/(\S+) (\d+), expected (\d+)/g, "$1 $2枚(本来$3枚)")
    .replace(/, /g, "、");
  const HOW = "put the (\\S+) set in the mixer \\(through the centre\\) and the (\\S+) set on " +
    "the table top, then `jantaku session start --ruleset (\\S+) --loaded`; or play Mixed " +
    "Deck \\(--mixed-deck\\), which collects every tile by itself";
  const how = (a, b, r) => a + "の組を(中央から)洗牌機に、" + b + "の組を卓上に置き、" +
    "「牌は仕分け済み」にチェックを入れてセッションを開始してください(`jantaku session " +
    "start --ruleset " + r + " --loaded`)。またはミックスデッキで遊べば、卓がすべての牌を集めます";
  const P = (re, make) => [new RegExp("^" + re + "$"), typeof make === "string"
    ? () => make : make];
  const phrases = [
    // what to do next, and the daemon's steps
    P("start a session: `jantaku session start --ruleset R` \\(add --mixed-deck to mix both sets\\)",
      "セッションを開始してください(ルールを選び、2組を混ぜるならミックスデッキにチェック)"),
    P("no session( is open)?", "セッションがありません"),
    P("wait", "お待ちください"),
    P("wait for it to finish", "終わるまでお待ちください"),
    P("wait for it to finish, or `jantaku abort`", "終わるまで待つか、「中止」を押してください"),
    P("getting the table ready for the session", "セッションの準備をしています"),
    P("bringing every tile into the mixer(?: for game (\\d+))?", (m) =>
      (m[1] ? "半荘" + m[1] + "のため、" : "") + "すべての牌を洗牌機に入れています"),
    P("bringing the tiles up to the table top", "牌を卓上に上げています"),
    P("deck ([AB]) is being built inside(?: \\((\\d+) of (\\d+) tiles\\))?", (m) =>
      "デッキ" + m[1] + "を中で積んでいます" + (m[2] ? "(" + m[3] + "枚中" + m[2] + "枚)" : "")),
    P("raising the walls for hand (\\d+)", (m) => "第" + m[1] + "局の山を上げています"),
    P("the lift goes back down", "リフトが下がっています"),
    P("deck ([AB]) is built inside", (m) => "デッキ" + m[1] + "が中で積み上がりました"),
    P("press start \\(`jantaku hand-over`\\) to raise it and begin hand 1(?: of game (\\d+))?",
      (m) => "スタート(「局の交代」)を押すと山が上がり、" + (m[1] ? "半荘" + m[1] + "の" : "") +
        "第1局が始まります"),
    P("when the hand ends, push the played tiles into the centre and press start " +
      "\\(`jantaku hand-over`\\)", "局が終わったら、使った牌を中央に落としてスタート(「局の交代」)を押してください"),
    P("hand (\\d+) is being played(?: \\(dice ([\\d+]+)\\))?", (m) =>
      "第" + m[1] + "局 対局中" + (m[2] ? "(サイコロ " + m[2] + ")" : "")),
    P("hand (\\d+)", (m) => "第" + m[1] + "局"),
    P("deck ([AB])", (m) => "デッキ" + m[1]),
    P("press dice for the throw \\(`jantaku dice`\\)", "サイコロボタン(「サイコロを振る」)を押してください"),
    P("the walls inside are not trusted after a table restart", "卓が再起動したため、中の山は確かではありません"),
    P("press start \\(`jantaku hand-over`\\) when the hand ends", "局が終わったらスタート(「局の交代」)を押してください"),
    P("the table sorts it out", "卓が整え直します"),
    P("session (\\d+) is (\\S+)", (m) => "セッション" + m[1] + "は「" + m[2] + "」の状態です"),
    P("`jantaku abort` ends it", "「中止」で終わらせられます"),
    P("the walls are on the table top", "山は卓上にあります"),
    P("take the tiles out, or (.+)", (m, say) => "牌を取り出すか、" + say(m[1])),
    P("the table reports a fault", "卓がエラーを報告しています"),
    P("the table is not connected \\((.+)\\)", (m) => "卓が接続されていません(" + m[1] + ")"),
    P("check its cable and power", "ケーブルと電源を確認してください"),
    P("the daemon reconnects by itself", "デーモンが自動で再接続します"),
    P("the abort is not confirmed yet", "中止はまだ確認されていません"),
    P("it is sent again as soon as the table is connected \\((.+)\\)", (m) =>
      "卓が接続されしだい送り直します(" + m[1] + ")"),
    P("(.+) \\(the centre is open for ([\\d.]+) s; `jantaku continue` closes it sooner\\)",
      (m, say) => say(m[1]) + "(中央は" + m[2] + "秒間開いています。「続行」で早く閉じます)"),
    P("push every tile on the table top into the centre", "卓上の牌をすべて中央に落としてください"),
    P("push the rest of deck ([AB])'s tiles into the centre", (m) =>
      "デッキ" + m[1] + "の残りの牌を中央に落としてください"),
    P("take the tiles on the table top out: (\\d+) more come up from the mixer \\(in ([\\d.]+) " +
      "s; `jantaku continue` when the top is clear\\)", (m) => "卓上の牌を取り出してください。" +
      "洗牌機からあと" + m[1] + "枚上がってきます(" + m[2] + "秒後。卓上が空いたら「続行」)"),
    P("the table is busy \\(([a-z_]+)\\)", (m) => "卓は動作中です(" + (STEP[m[1]] || m[1]) + ")"),
    P("the hand over can come once it is done", "終わってから局の交代ができます"),
    P("the new game can begin once it is done", "終わってから次の半荘を始められます"),
    P("the hand over must wait", "局の交代はまだできません"),
    P("the new game must wait", "次の半荘はまだ始められません"),
    P("nothing waits for people", "操作を待っていることはありません"),
    P("the table has no fault to clear", "解消するエラーはありません"),
    P("the fault is still there", "エラーはまだ残っています"),
    P("session (\\d+) \\((\\S+?)(, Mixed Deck)?\\) is open", (m) =>
      "セッション" + m[1] + "(" + m[2] + (m[3] ? "、ミックスデッキ" : "") + ")が進行中です"),
    P("end it with `jantaku session end`, abort it with `jantaku abort`, or replace it " +
      "\\(`session start --replace`\\)", "「セッション終了」で終えるか、「中止」を押してください"),
    P("session (\\d+) is open", (m) => "セッション" + m[1] + "が進行中です"),
    P("end it first \\(`jantaku session end`\\), then (.+)", (m) =>
      "先に「セッション終了」で終えてから、" + m[1] + "を実行してください"),
    // the throw
    P("no walls are up for a hand yet", "まだ局の山が上がっていません"),
    P("the throw comes once the hand over raised them \\(press start first\\)",
      "局の交代で山が上がってから振ります(先にスタートを押してください)"),
    P("hand (\\d+) is thrown already \\((.+)\\); (\\S+) throws once per hand", (m, say) =>
      "第" + m[1] + "局はもう振りました(" + say(m[2]) + ")。" + m[3] + "では1局に1回だけ振ります"),
    P("dice ([\\d+]+) = (\\d+)", (m) => "サイコロ " + m[1] + " = " + m[2]),
    P("(the thrower|the thrower's right|across|the thrower's left) breaks, (\\d+) (stacks|tiles) " +
      "from the right end of their wall", (m) => SEAT[m[1]] + "の山を右端から" + m[2] +
      (m[3] === "tiles" ? "枚" : "幢") + "目で割ります"),
    P("dead wall (\\d+) tiles", (m) => "王牌 " + m[1] + "枚"),
    P("a double: the hand counts x(\\d+)", (m) => "ゾロ目:この局は" + m[1] + "倍"),
    P("the breaker is the dealer", "割られた山の持ち主が親になります"),
    P("wrong number of dice", "サイコロの数が違います"),
    P("got (\\d+) \\((.+)\\)", (m) => m[1] + "個(" + m[2] + ")"),
    P("die face (\\d+) is out of range 1\\.\\.(\\d+) \\(dice (.+)\\)", (m) => "目 " + m[1] +
      " は1〜" + m[2] + "の範囲外です(" + m[3] + ")"),
    P("(\\S+) throws (\\S+)(?: \\(or (.+)\\))?", (m) => m[1] + "では" + m[2] + "を振ります" +
      (m[3] ? "(または " + m[3] + ")" : "")),
    P("(\\d+) dice, each 1\\.\\.(\\d+)", (m) => "サイコロ" + m[1] + "個、各1〜" + m[2]),
    P("the table is recovering from a restart, which the next hand over finishes",
      "卓は再起動から復旧中です(次の局の交代で終わります)"),
    P("press hand over first, then start the new game", "先に局の交代を押してから、次の半荘を始めてください"),
    P("deck ([AB]) is not built yet", (m) => "デッキ" + m[1] + "はまだ積み上がっていません"),
    P("wait for it, then start the new game", "積み上がってから次の半荘を始めてください"),
    P("no walls are built inside yet", "中にまだ山が積まれていません"),
    P("wait for the build to finish", "積み終わるまでお待ちください"),
    // starting: the sets and their backs
    P("the table does not know back colour ([^:;]+)", (m) => "卓は背の色「" + m[1] + "」を知りません"),
    P("give exactly two back colours, e.g\\. blue,green, or the same name twice \\(blue,blue\\) " +
      "for two sets whose backs look alike \\(got (.+)\\)", (m) => "背の色をちょうど2つ入力してください" +
      "(例 blue,green。背が同じ2組なら blue,blue)。入力:" + m[1]),
    P("back colour (.+): use a short lowercase name such as blue or green", (m) =>
      "背の色 " + m[1] + ":blue や green のような短い小文字の名前にしてください"),
    P("its colour classes are (.+)", (m) => "知っている色は " + m[1].replace(/, /g, "、") + " です"),
    P("the normal rotation needs the two sets apart and the table cannot sort them",
      "通常の交代には2組の牌が分かれている必要がありますが、卓では仕分けられません"),
    P("the last session mixed the two sets \\(Mixed Deck\\)", "前のセッションで2組を混ぜました(ミックスデッキ)"),
    P("the last session's sets were (.+)", (m) => "前のセッションの牌は " + m[1] + " でした"),
    P("Sort the tiles by back colour, " + HOW, (m) => "背の色で牌を仕分け、" + how(m[1], m[2], m[3])),
    P("the table has walls inside that no session of this daemon accounts for",
      "このデーモンのどのセッションのものでもない山が中にあります"),
    P("bring them up with `jantaku session end --empty`, take them out, then " + HOW, (m) =>
      "`jantaku session end --empty` で上げて取り出し、" + how(m[1], m[2], m[3])),
    P("the normal rotation needs one set in the mixer and the other out of it, and the last " +
      "session left deck A (.+) and deck B (.+), which the table cannot sort",
      "通常の交代には1組が洗牌機の中、もう1組が外にある必要がありますが、前のセッションの牌の置き場所は卓では仕分けられません"),
    P("Bring the walls up \\(`jantaku session end --empty`\\) and sort the tiles by back colour, " +
      HOW, (m) => "山を上げて(`jantaku session end --empty`)背の色で牌を仕分け、" + how(m[1], m[2], m[3])),
    // faults (hostd/table/client.py FAULT_TEXT) and the counts that go with them
    P("track (\\S+) is jammed", (m) => "トラック" + m[1] + "が詰まっています"),
    P("the mixer ran empty before the walls were complete", "山が揃う前に洗牌機の牌がなくなりました"),
    P("tiles were left in the mixer after the walls were complete", "山が揃った後も洗牌機に牌が残っています"),
    P("track (\\S+) took one tile too many", (m) => "トラック" + m[1] + "に牌が1枚多く入りました"),
    P("back colours could not be read on track (\\S+)", (m) => "トラック" + m[1] + "で背の色を読み取れませんでした"),
    P("the lift stalled", "リフトが止まりました"),
    P("a lift limit switch is stuck", "リフトのリミットスイッチが動かなくなっています"),
    P("the guard was broken", "安全装置(ライトカーテンかふた)が遮られました"),
    P("motion stopped", "動きを止めました"),
    P("the centre door did not reach its position", "中央の扉が所定の位置まで動きませんでした"),
    P("the build took too long", "山積みに時間がかかりすぎました"),
    P("the table lost contact with the host", "卓がホストとの通信を失いました"),
    P("the table restarted", "卓が再起動しました"),
    P("a sensor on track (\\S+) does not answer", (m) => "トラック" + m[1] + "のセンサーが応答しません"),
    P("the colour sensor on track (\\S+) does not answer", (m) => "トラック" + m[1] + "の色センサーが応答しません"),
    P("the firmware hit an internal error", "ファームウェアで内部エラーが起きました"),
    P("fault (\\S+)", (m) => "エラー " + m[1]),
    P("counted (\\d+) of (\\d+)(?: tiles)?(?: \\((.+)\\))?", (m) => m[2] + "枚中" + m[1] + "枚" +
      (m[3] ? "(" + colours(m[3]) + ")" : "")),
    P("counted (.+); expected (.+) \\((.+)\\)", (m) => "数えた色 " + colours(m[1]) + "、本来 " +
      colours(m[2]) + "(" + colours(m[3]) + ")"),
    P("(\\d+) back colours? could not be read \\(at most (\\d+) accepted\\)", (m) =>
      "背の色を読み取れなかった牌が" + m[1] + "枚(許容は" + m[2] + "枚まで)"),
    P("the count can't be trusted", "この数は確かではありません"),
    P("deck ([AB]) was counted wrong and its walls are inside", (m) =>
      "デッキ" + m[1] + "の数が合わず、その山が中にあります"),
    P("the table restarted during build (\\d+)", (m) => "山積み" + m[1] + "の途中で卓が再起動しました"),
    P("the walls inside can't be accounted for", "中の山の中身は確かではありません"),
    P("both decks will be split again", "両方のデッキを分け直します"),
    // what people are asked (hostd/core/session.py ASK)
    P("take the stuck tile out of track (\\S+) by hand, then `jantaku clear-fault`", (m) =>
      "トラック" + m[1] + "に詰まった牌を手で取り除いてから「エラー解消」を押してください"),
    P("find the missing tiles of deck ([AB]), put them into the mixer \\(lift the lid\\), close " +
      "the lid, then `jantaku continue`", (m) => "デッキ" + m[1] + "の足りない牌を探し、ふたを開けて" +
      "洗牌機に入れ、ふたを閉めてから「続行」を押してください"),
    P("deck ([AB])'s tiles did not all go into the centre", (m) =>
      "デッキ" + m[1] + "の牌が全部は中央に入りませんでした"),
    P("push the rest in when the centre opens after `jantaku continue`",
      "「続行」を押すと中央が開くので、残りを落としてください"),
    P("take the extra tiles out of the mixer \\(lift the lid\\), then `jantaku continue`",
      "ふたを開けて洗牌機から余分な牌を取り出し、「続行」を押してください"),
    P("if the two sets were mixed, abort and start Mixed Deck instead",
      "2組が混ざっていたなら、中止してミックスデッキで始めてください"),
    P("take the extra tile off track (\\S+) by hand, then `jantaku clear-fault`", (m) =>
      "トラック" + m[1] + "の余分な牌を手で取り除いてから「エラー解消」を押してください"),
    P("clean the colour sensor of track (\\S+), then `jantaku clear-fault`", (m) =>
      "トラック" + m[1] + "の色センサーを掃除してから「エラー解消」を押してください"),
    P("check the wiring of track (\\S+)'s sensor, then `jantaku clear-fault`", (m) =>
      "トラック" + m[1] + "のセンサーの配線を確かめてから「エラー解消」を押してください"),
    P("a tile of another back colour is in the table", "別の背の色の牌が卓に入っています"),
    P("take it out of track (\\S+), then `jantaku clear-fault`", (m) =>
      "トラック" + m[1] + "から取り出してから「エラー解消」を押してください"),
    P("clear the light curtain and close the lid, then `jantaku continue`",
      "ライトカーテンから手や物をどけ、ふたを閉めてから「続行」を押してください"),
    P("look for something blocking the lift, then `jantaku continue`",
      "リフトを妨げている物を取り除いてから「続行」を押してください"),
    P("check the lift's end switches, then `jantaku continue`",
      "リフトの端のスイッチを点検してから「続行」を押してください"),
    P("look for something blocking the centre door, then `jantaku continue`",
      "中央の扉を妨げている物を取り除いてから「続行」を押してください"),
    P("look for a stuck tile or an empty mixer, then `jantaku clear-fault`",
      "詰まった牌や空の洗牌機がないか確かめてから「エラー解消」を押してください"),
    P("find the missing or stray tile, or abort and start a new Mixed Deck session, which " +
      "collects every tile and splits them again", "足りない牌や紛れ込んだ牌を探すか、中止して" +
      "新しいミックスデッキのセッションを始めてください(卓がすべての牌を集めて分け直します)"),
    P("push every tile on the table top into the centre, then `jantaku continue`",
      "卓上の牌をすべて中央に落としてから「続行」を押してください"),
    P("check the table's cable and power", "卓のケーブルと電源を確かめてください"),
    P("then `jantaku continue`", "その後「続行」を押してください"),
    P("`jantaku continue` tries again", "「続行」でもう一度試します"),
    // the page's own refusals (pairing)
    P("this browser is not paired: type the pairing code shown by `jantaku run` \\(or " +
      "`jantaku pair --new`\\) on the table's host", "このブラウザはペアリングされていません。" +
      "卓のホストで `jantaku run`(または `jantaku pair --new`)が表示するコードを入力してください"),
    P("that pairing code is (too old|not right)", (m) => "そのペアリングコードは" +
      (m[1] === "too old" ? "期限切れです" : "違います")),
    P("get a fresh one on the table's host with `jantaku pair --new`",
      "卓のホストで `jantaku pair --new` を実行して新しいコードを出してください"),
    P("this browser typed (\\d+) wrong pairing codes", (m) =>
      "このブラウザは間違ったペアリングコードを" + m[1] + "回入力しました"),
    P("wait a minute, then type the code again", "1分待ってからもう一度コードを入力してください"),
    P("too many wrong pairing codes on the network \\((\\d+) a minute from all browsers " +
      "together\\)", (m) => "ネットワーク全体で間違ったペアリングコードが多すぎます(全ブラウザで1分に" +
      m[1] + "回まで)"),
    P("wait a minute, or make a fresh code with `jantaku pair --new` on the table's host",
      "1分待つか、卓のホストで `jantaku pair --new` を実行して新しいコードを出してください"),
    // a button press the table took (what it did) or refused
    P("taken", "受け付けました"),
    P("not now", "今はできません"),
    P("continue", "続行"),
    P("hand over", "局の交代"),
    P("throw", "サイコロを振りました"),
    // how a session ended, the link to the table
    P("ended by request", "操作で終了"),
    P("aborted by request", "操作で中止"),
    P("aborted by request \\((.+)\\)", (m, say) => "操作で中止(" + say(m[1]) + ")"),
    P("confirmed when the table came back", "卓が戻ったときに確認"),
    P("the table went silent", "卓からの応答が途絶えました"),
    P("reconnecting", "再接続しています"),
    P("the table speaks another protocol version", "卓が別のバージョンのプロトコルを使っています"),
    P("link lost: (.+)", (m) => "通信が切れました(" + m[1] + ")"),
  ];
  window.JANTAKU_WORDS_JA.say = window.jantakuTranslator(phrases, { ":": ":", ";": "。", ".": "。" });
})();

// The language: the one chosen on the page (kept in this browser), else the browser's.
(function () {
  const EN = window.JANTAKU_WORDS, JA = window.JANTAKU_WORDS_JA;
  window.JANTAKU_WORDS_EN = EN;
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
