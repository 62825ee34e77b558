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
};
