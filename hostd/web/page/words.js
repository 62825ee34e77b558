"use strict";
// Every word the page shows a person, in one place: English, then Japanese laid over it.
//
// The daemon says what happens next as a code with parameters (`next.code`, hostd/core/
// codes.py NEXT), a fault as its kind (TODO's keys there), a refusal as an error code, and
// events as types: the page words each of them here, naming its own buttons (`cmd`), never
// a command of another front end. Functions take the code's params and the words object
// itself (`w`), so a translation's sentences use its own button names. The tables keyed
// by the daemon's keys (next, fault, todo, cmd, sendingCmd, where, refusal, log, the
// seats' seatShort, breakAt, seatFromMe, rel, and score.wind) hold exactly the keys of
// hostd/core/vocabulary.py, in each language: the CLI and Home Assistant word the same
// keys (tests/unit/test_vocabulary.py).
window.JANTAKU_WORDS = {
  lang: "en",
  title: "jantaku table",
  live: "live",
  offline: "reconnecting…",
  languages: { en: "English", ja: "日本語" },

  // the page's buttons, by the command each sends (hostd/core/commands.py, page=True)
  cmd: {
    start: "Start the session",
    hand_over: "Hand over",
    dice: "Throw the dice",
    dice_entered: "Enter our throw",
    continue: "Continue",
    clear_fault: "Fault fixed",
    game_new: "New game",
    end: "End the session",
    abort: "Abort",
    name_sets: "Name the sets",
  },
  // a button's name inside a sentence
  btn: (w, cmd) => "“" + w.cmd[cmd] + "”",
  // the big button at the top: its words for a code when they differ from the button's
  primary: {
    push_all: "Done: close the centre",
    push_rest: "Done: close the centre",
    push_missed: "Open the centre again",
    mixer_short: "Done: close the centre",
    find_stray: "Done: the stray is out",
    clear_top: "Done: the top is clear",
    playing: "Hand over",
    recovery_waits: "Hand over",
    return_test_tiles: "Done: close the centre",
    hold_test_rod: "Ready: raise the lift",
    push_other_set: "Done: close the centre",
    push_walls_back: "Done: close the centre",
    name_sets: (p, w) => w.classIs((p.colours || [])[0], w),
  },
  startAs: (ruleset, mixed) => "Start: " + ruleset + (mixed ? ", Mixed Deck" : ""),
  wait: "Nothing to press: wait",

  // -- what happens next: every code of hostd/core/codes.py NEXT ---------------------------
  // head: what people do (or wait for), one line; more: why, and how
  next: {
    table_disconnected: () => ({
      head: "The table is not connected",
      more: "Check its cable and power: the daemon reconnects by itself. Until then only " +
        "“Abort” can be sent." }),
    table_cannot_start: (p) => ({
      head: "The table's firmware cannot start",
      more: "It says: " + p.error + ". Fix what it names in the board profile (or the " +
        "board), then flash it again." }),
    abort_pending: () => ({
      head: "Stopping: the abort waits for the table",
      more: "It is sent again as soon as the table answers." }),
    start_session: (p, w) => ({
      head: "Start a session",
      more: "Choose what to play below, then press the start button above (the sets' " +
        "backs: " + w.colours(p.colours) + ")." }),
    take_tiles_out: (p, w) => ({
      head: "Take the tiles out, or start a session",
      more: "Every tile is on the table top (the sets' backs: " + w.colours(p.colours) + ")." }),
    table_fault: (p, w) => ({ head: w.faultTitle(p, w), more: "" }),
    self_test: () => ({ head: "Self-test running: wait",
      more: "The table tries each of its devices in turn." }),
    calibrating: () => ({ head: "Calibrating the colour sensors: wait",
      more: "The table reads both sets on every track." }),
    surveying: () => ({ head: "Wiring survey: watch the table",
      more: "An output moves for a moment, or the inputs are watched while a switch is pressed: say what moved where the survey asks." }),
    return_test_tiles: (p, w) => ({ head: "Push the self-test's tiles back into the centre",
      more: "The " + p.tiles + " tiles the self-test raised onto the table top (only those) go " +
        "back into the open centre; press " + w.primaryName(w, "return_test_tiles") + " when done." }),
    hold_test_rod: (p, w) => ({ head: "The stop test: hold the test rod ready",
      more: "Hold the test rod by a lift opening, out of the light curtain, and press " +
        w.primaryName(w, "hold_test_rod") + ": the lift rises, and you put the rod into the " +
        "curtain. The table measures how soon it stops." }),
    push_other_set: (p, w) => ({ head: "Push the other set into the centre",
      more: "The set on the table top (not the walls that just came up) goes into the open " +
        "centre for the calibration to read; press " + w.primaryName(w, "push_other_set") +
        " when done." }),
    push_walls_back: (p, w) => ({ head: "Push the walls back into the centre",
      more: "The walls the calibration just read go back into the open centre; press " +
        w.primaryName(w, "push_walls_back") + " when done." }),
    name_sets: (p, w) => ({ head: "Say which set each back colour is",
      more: "The calibration read two back colours (each swatch: what the colour sensors saw). " +
        "Class 1 was read first. Press the button that says which set class 1 is (" +
        w.colours(p.colours) + "); the other set is class 2. A wrong answer is put right " +
        "without reading again." }),
    emptying: (p) => ({ head: "Bringing every tile up: wait",
      more: p.round ? "Round " + p.round + ": the mixer's tiles are built into walls and " +
        "raised." : "The walls inside come up to the table top." }),
    clear_top: (p, w) => ({ head: "Take the tiles off the table top",
      more: (p.tiles ? p.tiles + " more tiles come up from the mixer next. " : "") +
        "Press " + w.primaryName(w, "clear_top") + " once the top is clear." }),
    collecting: (p) => ({ head: "Collecting every tile into the mixer: wait",
      more: "For game " + (p.game || 1) + ": the walls inside come up." }),
    push_all: (p, w) => ({ head: "Push every tile into the centre",
      more: "Every tile on the table top goes into the open centre; press " +
        w.primaryName(w, "push_all") + " when done." }),
    mixer_short: (p, w) => ({ head: "Push every tile on the table top into the centre",
      more: w.Deck(p.deck) + " took every tile in the mixer, so the other set was not in " +
        "it: push it in, then press " + w.primaryName(w, "mixer_short") + "." }),
    find_stray: (p, w) => ({ head: "Find the stray " + w.colourName(w, p.colour) +
        " tile on the table top and take it out",
      more: "A tile that is not of the sets went into the walls; every tile is up now and " +
        "the centre stays shut. Among the " + w.colourName(w, p.colour) + " backs one face has " +
        "a copy too many: take that copy out, then press " + w.primaryName(w, "find_stray") +
        ". Every tile then goes into the centre and the decks are split again." }),
    building: (p, w) => ({ head: "Building " + w.deck(p.deck) + ": wait",
      more: "Its walls are built inside for game " + (p.game || 1) + "." }),
    push_rest: (p, w) => ({ head: "Push the rest of " + w.deck(p.deck) + " into the centre",
      more: "Its tiles left on the table top go in; press " + w.primaryName(w, "push_rest") +
        " when done." }),
    push_missed: (p, w) => ({ head: "The centre closed before all of " + w.deck(p.deck) +
        " went in",
      more: "Nothing is wrong with the table: press " + w.primaryName(w, "push_missed") +
        ", push the rest in while it is open, then close it." }),
    press_start: (p, w) => ({ head: "Press " + w.btn(w, "hand_over") + " to begin " + w.hand(p),
      more: w.Deck(p.deck) + " is built inside: its walls come up." }),
    press_dice: (p, w) => ({ head: "Throw the dice for " + w.hand(p),
      more: "Press " + w.btn(w, "dice") + ", or type the faces you threw and press " +
        w.btn(w, "dice_entered") + "." }),
    // the headline says the push: a tap on "Hand over" with the played tiles still on top
    // raises the next walls under them
    playing_building: (p, w) => ({ head: w.Hand(p) + " in play: at its end, push the tiles in first",
      more: w.Deck(p.deck) + " is being built inside for the next hand. When the hand ends, " +
        "push the played tiles into the centre, then press " + w.btn(w, "hand_over") + "." }),
    playing: (p, w) => ({ head: w.Hand(p) + " in play: at its end, push the tiles in first",
      more: "When it ends, push the played tiles into the centre, then press " +
        w.btn(w, "hand_over") + ": " + w.deck(p.deck) + " is ready inside." }),
    raising: (p, w) => ({ head: "Raising the walls for " + w.hand(p) + ": wait", more: "" }),
    lift_down: (p, w) => ({ head: w.Hand(p) + " begins: the lift goes down", more: "" }),
    recovery_waits: (p, w) => ({ head: w.Hand(p) + " in play",
      more: "The table restarted, so the walls inside are not trusted: when the hand ends, " +
        "push the played tiles in and press " + w.btn(w, "hand_over") + "; the table sorts " +
        "it out." }),
    recovering: (p) => ({ head: "Sorting out the walls after a restart: wait",
      more: p.kind === "swap" ? "The deck inside is rebuilt and the decks are swapped."
        : "Both decks are split again." }),
    stopped: (p, w) => ({ head: w.faultTitle(p, w), more: "" }),
  },

  // -- faults: every kind of hostd/core/codes.py TODO ----------------------------------------
  // what happened (f: kind, track, deck)
  fault: {
    "jam": (f, w) => w.Track(f.track) + " is jammed",
    "short": (f, w) => w.Deck(f.deck) + " is short of tiles",
    "short-top": (f, w) => w.Deck(f.deck) + "'s tiles did not all go into the centre",
    "surplus": () => "Tiles were left in the mixer",
    "stray": () => "A tile that is not of the sets went into the walls",
    "overfill": (f, w) => w.Track(f.track) + " took one tile too many",
    "misread": (f, w) => w.Track(f.track) + " could not read back colours",
    "sensor": (f, w) => "The sensor of " + w.track(f.track) + " does not answer",
    "colour": (f, w) => "A tile of another back colour is in " + w.track(f.track),
    "guard": () => "Someone reached over the table's edge, or the lid opened",
    "lift-stall": () => "The lift stalled",
    "limit": () => "A lift end switch is stuck",
    "door": () => "The centre door did not reach its place",
    "build-timeout": () => "The build took too long",
    "internal": () => "The table hit an internal error",
    "count": (f, w) => "The counting sensor of " + w.track(f.track) + " counted a tile twice or missed one",
    "link-lost": () => "The table lost contact with the host",
    "composition": (f, w) => w.Deck(f.deck) + " is not the tiles it was",
    "not_connected": () => "The table was not connected",
    "reset": () => "The table restarted",
    "unresumable": () => "The session cannot carry on",
    "refused": () => "The table refused a step",
  },
  // what people do about it; b: the name of the button that carries on
  todo: {
    "jam": (f, w, b) => "Take the stuck tile out of " + w.track(f.track) + " by hand, then press " + b + ".",
    "short": (f, w, b) => "Find the missing tiles of " + w.deck(f.deck) + ", put them into the " +
      "mixer (lift the lid) and close the lid, then press " + b + ".",
    "short-top": (f, w, b) => "Press " + b + ", then push the rest of " + w.deck(f.deck) +
      "'s tiles in when the centre opens.",
    "surplus": (f, w, b) => "Take the extra tiles out of the mixer (lift the lid), then press " +
      b + ". If the two sets were mixed, press " + w.btn(w, "abort") + " and start Mixed Deck instead.",
    "stray": (f, w, b) => "Leave the tile in the mixer: it is one of the sets. When the hand " +
      "in play is over, press " + b + ": every tile comes up onto the table top to find the " +
      "stray, then the decks are split again.",
    "overfill": (f, w, b) => "Take the extra tile off " + w.track(f.track) + " by hand, then press " + b + ".",
    "misread": (f, w, b) => "Clean the colour sensor of " + w.track(f.track) + ", then press " + b + ".",
    "sensor": (f, w, b) => "Check the wiring of the sensor of " + w.track(f.track) + ", then press " + b + ".",
    "colour": (f, w, b) => "Take the tile of another back colour out of " + w.track(f.track) +
      ", then press " + b + ".",
    "guard": (f, w, b) => "Keep hands and things clear of the sensor over the table's edge and " +
      "close the lid, then press " + b + ".",
    "lift-stall": (f, w, b) => "Look for something blocking the lift, then press " + b + ".",
    "limit": (f, w, b) => "Check the lift's end switches, then press " + b + ".",
    "door": (f, w, b) => "Look for something blocking the centre door, then press " + b + ".",
    "build-timeout": (f, w, b) => "Look for a stuck tile or an empty mixer, then press " + b + ".",
    "internal": (f, w, b) => "Press " + b + "; if it comes again, restart the table.",
    "count": (f, w, b) => "Turn the counting sensor's knob on " + w.track(f.track) + " until it pulses once per tile, then press " + b + ".",
    "link-lost": (f, w, b) => "Check the table's cable, then press " + b + ".",
    "composition": (f, w, b) => "Find the missing or stray tile; or press " + b + " and start " +
      "a new Mixed Deck session, which collects every tile and splits them again.",
    "not_connected": (f, w, b) => "Check the table's cable and power, then press " + b + ".",
    "reset": (f, w, b) => "The table cannot tell the sets apart now: press " + b + ", sort " +
      "the tiles by back colour and start a new session.",
    "unresumable": (f, w, b) => "Press " + b + ", then start again.",
    "refused": (f, w, b) => "Press " + b + " to try again.",
  },
  faultTitle: (f, w) => (w.fault[f.kind] || w.fault.refused)(f, w),
  faultTodo: (f, w) => (w.todo[f.kind] || w.todo.refused)(f, w,
    f.action && w.cmd[f.action] ? w.btn(w, f.action) : w.btn(w, "continue")),
  faultLabel: "Fault",
  faultAt: "stopped here",  // the track a fault names, among the walls
  // the top while a fault is open: its button is in the banner at the bottom
  faultBelow: "Fault: its button is below",
  faultBelowWhy: "In the red box at the bottom of the screen",
  more: "More ▾",
  fewer: "Fewer ▴",
  cmdsMoved: "A fault is open: its button and the other commands are in the red box at the " +
    "bottom of the screen (“More”).",
  // where a track is: the table's tracks are the lanes inside that build the walls; side:
  // where its wall comes up ({mine: seen from this phone, or null}), when the table says
  trackWhere: (t, n, w, side) => side && side.mine ? w.Track(t) + " is the lane inside the table " +
      "under " + (side.mine === "self" ? "your wall" : "the wall " + w.fromMe[side.mine]) +
      ", marked " + t + " on the drawing of the table."
    : side ? w.Track(t) + " is the lane inside the table under the wall marked " + t +
      " on the drawing of the table."
    : w.Track(t) + " of " + n + ": the lanes inside the table that build " +
    "the walls, numbered on the table. “Walls inside” below marks it too.",
  counted: (n, of) => n + " of " + of + " tiles counted when it stopped.",

  // -- time cues -----------------------------------------------------------------------------
  closesIn: (s, w) => "The centre closes in " + w.secs(s),
  openUntilDone: (w, code) => "Open until you press " + w.primaryName(w, code),
  comeUpIn: (s, w) => "The next tiles come up in " + w.clock(s),
  buildLeft: (s, d, w) => w.Deck(d) + " is ready inside in about " + (s < 60 ?
    Math.max(1, Math.round(s)) + " s" : Math.round(s / 60) + " min"),
  buildCounting: "Timing the build…",
  clock: (s) => Math.floor(s / 60) + ":" + String(Math.floor(s % 60)).padStart(2, "0"),
  // a countdown: "8 s" under a minute, "1:23" from a minute on
  secs: (s) => s < 60 ? Math.ceil(s) + " s" : window.JANTAKU_WORDS.clock(s),

  // -- the page and the daemon ---------------------------------------------------------------
  offlineHead: "The page lost the daemon",
  offlineMore: "It reconnects by itself; the controls wait for it.",
  retryIn: (s) => "The page tries the daemon again in " + Math.max(1, Math.round(s)) + " s.",
  connecting: "Connecting…",
  why: {  // why the controls are disabled
    offline: "Disabled: the page is not connected to the daemon.",
    unpaired: "Disabled: this browser is not paired (below).",
    sending: "Sending…",
  },
  // while a command is on its way: what is being sent, by name
  sendingNow: (cmd, code, w) => ((w.sendingCmd[cmd] && typeof w.sendingCmd[cmd] === "function")
    ? w.sendingCmd[cmd](code, w) : w.sendingCmd[cmd]) || w.why.sending,
  sendingCmd: {
    start: "Starting the session…",
    hand_over: "Handing over…",
    dice: "Throwing the dice…",
    dice_entered: "Entering your throw…",
    continue: (code) => ["push_all", "push_rest", "mixer_short", "return_test_tiles",
      "push_other_set", "push_walls_back"].includes(code) ? "Closing the centre…" : "Carrying on…",
    clear_fault: "Saying the fault is fixed…",
    game_new: "Starting a new game…",
    end: "Ending the session…",
    abort: "Aborting: stopping every motor…",
    name_sets: "Naming the sets…",
  },
  // a calibration's classes: which set class 1 is, and each class in short
  classIs: (c, w) => "Class 1 is " + w.colourName(w, c),
  classLine: (c, w) => "class " + c.class + ": " + c.tiles + " tiles",

  // -- words for things ------------------------------------------------------------------------
  deck: (d) => d ? "deck " + d : "the deck being built",
  Deck: (d) => d ? "Deck " + d : "The deck being built",
  track: (t) => t ? "track " + t : "the track",
  Track: (t) => t ? "Track " + t : "A track",
  hand: (p) => p && p.game_hand ? "hand " + p.game_hand + " of game " + (p.game || 1)
    : "the first hand" + (p && p.game > 1 ? " of game " + p.game : ""),
  Hand: (p, w) => { const h = window.JANTAKU_WORDS.hand(p); return h[0].toUpperCase() + h.slice(1); },
  primaryName: (w, code) => "“" + w.primary[code] + "”",
  // back colours a table is set up for; any other stays as its name
  colour: {
    blue: "blue", green: "green", red: "red", yellow: "yellow", orange: "orange",
    black: "black", white: "white", grey: "grey", gray: "grey", purple: "purple",
    pink: "pink", brown: "brown", unknown: "unread", counted: "counted",
  },
  colourName: (w, c) => w.colour[c] || c,
  colours: function (list) {
    const w = window.JANTAKU_WORDS, names = (list || []).map((c) => w.colourName(w, c));
    if (!names.length) return "as the table is set up";
    return names[0] === names[1] ? "both " + names[0] : names.join(" and ");
  },
  // a set's mark on its tiles, beside its colour: its name's first letter
  mark: (w, c) => (w.colourName(w, c) || "?")[0].toUpperCase(),
  where: {
    top: "on the table top", inside: "built inside", lift: "on the lift", mixer: "in the mixer",
    split: "being built inside", unknown: "unknown: count it again",
  },
  rulesetNames: {},  // a translation names the rulesets; English uses their titles
  option: { "compressed-winds": "compressed winds", "flowers": "flowers", "all-tongs": "all tongs" },

  // -- the throw and the break -----------------------------------------------------------------
  seatShort: { self: "thrower", right: "right", across: "across", left: "left" },
  breakAt: { self: "break the thrower's", right: "break the right", across: "break across",
    left: "break the left" },
  units: (n, unit) => n + " " + (unit === "tiles" ? (n === 1 ? "tile" : "tiles")
    : (n === 1 ? "stack" : "stacks")),
  breakLine: (t, w) => t.dice.join("+") + " = " + t.total + " · " + (w.breakAt[t.breaker] ||
    t.breaker) + " · " + w.units(t.break_from_right, t.unit) + " from their right end",
  breakWait: (p, w) => "Walls up for " + w.hand(p) + ": throw the dice",
  noWallsUp: "No walls on the table top",
  deadLine: (tiles) => "Dead wall: the " + tiles + " tiles right of the break.",
  doubleLine: "A double: the hand's value doubles.",
  breakerIsDealer: "The wall's owner becomes the dealer.",
  by: { button: "the dice button", api: "the page or a program", entered: "your dice, entered" },
  tableSvg: (t, w) => t ? "The four walls seen from the thrower's seat (bottom): " +
    w.breakLine(t, w) + "." : "The four walls seen from the thrower's seat (bottom).",
  // the drawing turned to this phone's seat (its wall at the bottom)
  you: "you",
  throws: "throws",
  seatFromMe: { self: "you", right: "your right", across: "across", left: "your left" },
  fromMe: { right: "on your right", across: "across from you", left: "on your left" },
  wallOf: (st, k, w) => st.players[k].name || w.score.wind[st.players[k].wind],
  playerName: (p, w) => w.score.wind[p.wind] + (p.name ? " (" + p.name + ")" : ""),
  // the break from the breaker's own point of view, and where that is from this phone
  breakSeen: (t, b, w) => t.dice.join("+") + " = " + t.total + " · " + (b.at === "self"
    ? "your wall, " + w.units(t.break_from_right, t.unit) + " from your right"
    : "break in front of " + (b.who ? b.who + ", " : "the wall ") + w.fromMe[b.at] + " · " +
      w.units(t.break_from_right, t.unit) + " from their right"),
  tableSvgMine: (t, b, w) => "The four walls seen from your seat (bottom)" +
    (t && b ? ": " + w.breakSeen(t, b, w) : "") + ".",
  turnNeedsResult: "Enter the last hand's result to turn this drawing to your seat.",
  sideLabel: "Where I sit",
  // before the game's ledger places its players (no session yet): the seats as the table's
  // first thrower sees them
  sideChoice: { "": "— choose —", self: "where the first thrower sits",
    right: "the first thrower's right", across: "across from the first thrower",
    left: "the first thrower's left" },
  // One way to name a seat on every screen (issue 50): the player's name, their wind now,
  // and where they sit from this phone (once it has chosen its seat): "Mika (West, your
  // right)", "West (your right)", "Mika (West)" on the table view. `short`: the name, else
  // the wind, where a line has no room for more.
  seatName: (st, k, w, short) => {
    const p = (st && st.players && st.players[k]) || {};
    const wind = w.score.wind[p.wind || k], rel = w.relOf(st, k);
    if (short) return p.name || wind;
    if (p.name) return p.name + " (" + wind + (rel ? ", " + w.rel[rel] : "") + ")";
    return wind + (rel ? " (" + w.rel[rel] + ")" : "");
  },
  // where player k sits from this phone's player (st.me): self, right, across, left
  relOf: (st, k) => {
    const order = ["east", "south", "west", "north"];
    if (!st || !st.me || order.indexOf(st.me) < 0 || order.indexOf(k) < 0) return "";
    return ["self", "right", "across", "left"][(order.indexOf(k) - order.indexOf(st.me) + 4) % 4];
  },
  rel: { self: "you", right: "your right", across: "across", left: "your left" },
  // the game's players with their winds as in the hand ``dealer`` dealt (an entry's own
  // hand: its answer and "Last" name them as they sat then)
  asDealt: (st, dealer) => {
    const order = ["east", "south", "west", "north"];
    if (!st || !st.players || order.indexOf(dealer) < 0) return st;
    const players = {};
    Object.keys(st.players).forEach((k) => {
      players[k] = Object.assign({}, st.players[k],
        { wind: order[(order.indexOf(k) - order.indexOf(dealer) + 4) % 4] });
    });
    return Object.assign({}, st, { players: players });
  },

  // -- the cards -------------------------------------------------------------------------------
  controlsTitle: "Controls",
  howTitle: "What to do",
  topTitle: "The walls on the table top",
  apartTitle: "Ending",
  wallsTitle: "Walls inside",
  decksTitle: "Decks",
  logTitle: "Latest",
  historyTitle: "Earlier sessions",
  settingsTitle: "This browser",
  noBuild: "No walls built yet.",
  // the last walls built are no longer inside (raised, brought up at the session's end)
  wallsUp: (n, w) => "No walls inside: the last ones built (" + n + " tiles) came up to the table top.",
  // a build of no deck: the mixer's tiles built into walls to bring them up (an end that
  // empties the table)
  drainBuilding: "Building the mixer's tiles into walls, to bring them up",
  drainBuilt: (n) => "The mixer's tiles built into walls: " + n + " tiles",
  buildingDeck: (d, w) => "Building " + w.deck(d),
  builtDeck: (d, n, w) => w.Deck(d) + " built: " + n + " tiles",
  builtWrong: " — the count is wrong",
  stoppedBuild: (d, w) => w.Deck(d) + ": the build stopped",
  builtGone: (d, where, w) => w.Deck(d) + " was built here; now " + where,
  count: (have, target) => have + "/" + target,
  joined: "Faded tiles: counted while this page did not see them (drawn grouped by colour).",
  noSession: "No session: start one to see its decks.",
  decksAbout: "The table keeps two decks, A and B: while one is played on the table top, the " +
    "other is built inside, and at the hand over they change places. With Mixed Deck both " +
    "sets are mixed and split in two; otherwise each deck is one set.",
  deckTiles: (n) => n + " tiles",
  deckNotSplit: "counted once it is built",
  coloursUnchecked: "Both sets have the same backs: the table counts every tile but cannot " +
    "tell the sets apart, so this deck's colours cannot be checked.",
  facts: { ruleset: "Ruleset", mixed: "Mixed Deck", normal: "normal rotation", game: "Game",
    hand: "Hand", table: "Table", none: "none yet", safety: "Safety chain" },
  tableName: (id) => id ? id.board + " · " + id.firmware : "not connected",
  // table.safety (docs/SAFETY.md): the chain (emergency stop, lid), the lift's and door's
  // power, a relay whose contact stayed closed
  safetyState: (s) => s.relay_stuck
    ? "FAULT: the motor relay stays on with the chain open: switch the table off at the mains"
    : !s.chain ? "OPEN: the emergency stop is pressed or the lid is open; nothing moves"
      : "closed · lift and door power " + (s.power ? "on" : "off"),

  // -- the controls ----------------------------------------------------------------------------
  start: {
    ruleset: "Ruleset",
    mixed: "Mixed Deck",
    mixedHelp: "both sets mixed together",
    colourDefault: (c, w) => "as set up" + (c ? " (" + w.colourName(w, c) + ")" : ""),
    loaded: "Sets sorted: the first in the mixer, the second on the table top",
    loadedHelp: "For the normal rotation after the sets were mixed: tick this once people " +
      "have sorted the tiles by back colour and loaded them so.",
    colours: "The two sets' backs",
    colourA: "First set's back colour",
    colourB: "Second set's back colour",
  },
  diceFaces: "Faces thrown",
  confirm: {
    abort: "Stop every motor at once and end the session?",
    end: "End the session?",
    // the game's scores end as they stand, and what is left on the table goes as the
    // ruleset says (its `left_on_table`, docs/SCORING.md)
    game_new: (st, w) => !st || !st.entries ? "End this game and begin the next?"
      : "End game " + st.game + " and begin game " + (st.game + 1) + "? Game " + st.game +
        " ends with the scores as they stand" + (st.left_on_table
        ? ": " + w.confirm.left(st, st.left_on_table, w) : "") + ".",
    left: (st, l, w) => [l.sticks ? (l.sticks === 1 ? "the riichi stick" : "the " + l.sticks +
        " riichi sticks") + " on the table (" + w.score.pts(l.points) + ")" : "",
      l.pot ? "the pot (" + w.score.pts(l.pot) + ")" : ""].filter(Boolean).join(" and ") +
      " go" + (l.sticks === 1 && !l.pot || !l.sticks ? "es" : "") + " to first place, " +
      w.seatName(st, l.to, w),
    // a hand over while a hand is on the table top: its tiles must be in the centre first
    hand_over: "Are the played tiles pushed into the centre? The next walls come up under " +
      "anything left on the table top.",
    endEmpty: "Also bring every tile up to the table top",
    yes: { abort: "Abort", end: "End the session", game_new: "New game",
      hand_over: "Yes: Hand over" },
    no: "Cancel",
    notYet: "Not yet",
  },
  sending: (label) => label + "…",
  done: (label) => label + ": done.",
  refusedAs: (label, why) => label + ": not done. " + why,
  unreachable: "The daemon did not answer: the page reconnects by itself.",
  badDice: "Type the faces of the dice, for example 3,4.",
  badColours: "Choose each set's back colour among the table's (the same one twice for two " +
    "sets whose backs look alike).",

  // refusals, by the answer's error code (hostd/core/vocabulary.py REFUSALS); e: the
  // error, w: words, ctx: {status}
  refusal: {
    not_paired: () => "This browser is not paired: type the code from the table's host below.",
    invites_off: () => "The table's host makes every pairing code itself: ask there.",
    pair_refused: () => "That code is not right or too old: ask a paired phone for a fresh " +
      "one (its \"Pair another phone\"), or read the one the table's host shows.",
    pair_rate_limited: () => "Too many wrong codes: wait a minute, then type the code again.",
    cross_origin: () => "Refused: the request did not come from the table's own page.",
    bad_host: () => "Refused: the page was reached by a name the table does not answer to.",
    bad_colours: (e, w) => w.badColours,
    unknown_colour: (e, w, ctx) => "The table does not know that back colour; it knows " +
      w.colours(ctx.known) + ".",
    bad_dice: () => "Those are not this ruleset's dice: type the faces, for example 3,4.",
    bad_request: () => "The table could not take that request.",
    sets_not_apart: (e, w, ctx) => "The normal rotation needs the two sets apart, and the " +
      "table cannot sort them: sort the tiles by back colour, put the " +
      w.colourName(w, ctx.sets[0]) + " set in the mixer and the " + w.colourName(w, ctx.sets[1]) +
      " set on the table top, tick “" + w.start.loaded.split(":")[0] + "” and start again; " +
      "or play Mixed Deck, which collects every tile by itself.",
    walls_inside: () => "Walls are built inside that no session accounts for: start Mixed " +
      "Deck, which brings them up and collects every tile.",
    fault_remains: (e, w, ctx) => "The fault is still there. " + (ctx.fault ? w.faultTodo(ctx.fault, w) : ""),
    not_connected: () => "The table is not connected: nothing moves until it is.",
    no_session: () => "No session is open: start one first.",
    not_now: (e, w, ctx) => "Not possible now" + (ctx.next ? ": " + ctx.next : "."),
    composition: () => "The deck's tiles are not what they were: see the fault.",
    refused: () => "This table cannot build that ruleset's walls.",
    table: () => "The table refused it: see what happens next above.",
    internal: () => "The daemon hit an internal error: see its log on the table's host.",
    other: (e) => "Refused (`" + e.code + "`).",
  },

  // -- the game's scores (GET /score, the `score` event; docs/SCORING.md) ---------------------
  score: {
    title: "Scores",
    boardEnter: "Enter a result",  // the table view's way to the score card
    wind: { east: "East", south: "South", west: "West", north: "North" },
    // a player, in the one vocabulary (seatName)
    who: (st, k, w) => w.seatName(st, k, w),
    pts: (n) => (typeof n === "number" ? n : 0).toLocaleString("en-US"),
    gap: (n, w) => (n > 0 ? "+" : n < 0 ? "−" : "±") + w.score.pts(Math.abs(n)),
    seatLabel: "I am",
    seatNone: "— choose —",
    seatOption: (st, k, w) => w.seatName(Object.assign({}, st, { me: null }), k, w) +
      (st.dealer === k && !st.ended ? " · " + w.score.dealer : ""),
    keep: "Keep",
    // the strip under the headline
    chooseSeat: "Scores: tap to choose which player you are",
    keptAsk: (who) => "Still " + who + "? Tap to keep or change",
    me: (st, k, w) => w.score.who(st, k, w) + " · " +
      w.score.pts(st.players[k].points) + (st.dealer === k && !st.ended ? " · you deal" : ""),
    gaps: (list, w) => "You vs " + list.map((g) => g.who + " " + w.score.gap(g.gap, w)).join(" · "),
    placed: (n, w) => "Game over: you placed " + w.score.ordinal(n),
    ordinal: (n) => ["1st", "2nd", "3rd", "4th"][n - 1] || String(n),
    // where the game is: "East 2 · 1 honba · 2 riichi sticks · Mika deals"
    // (label: how a short line names the dealer)
    handLine: (st, w, me, label) => [
      w.score.wind[st.round] + " " + st.hand,
      st.riichiFamily || st.honba ? st.honba + " honba" : "",
      st.riichiFamily || st.sticks ? st.sticks + (st.sticks === 1 ? " riichi stick" : " riichi sticks") : "",
      st.ended ? "game over" : st.dealer === me ? "you deal" : (label || ((k) => w.score.who(st, k, w)))(st.dealer) + " deals",
    ].filter(Boolean).join(" · "),
    dealer: "Dealer",
    inRiichi: "Riichi",
    head: { who: "Player", wind: "Wind", points: "Points" },
    last: (st, w) => {
      const l = st.last;
      if (!l) return "No entry yet.";
      st = w.asDealt(st, l.dealer);
      const moved = Object.keys(l.payments || {}).filter((k) => l.payments[k])
        .map((k) => w.score.who(st, k, w) + " " + w.score.gap(l.payments[k], w));
      return "Last: " + w.score.what(st, l, w) + (moved.length ? " — " + moved.join(", ") : "") + ".";
    },
    // an entry in a few words (the last one, what undo took back)
    what: (st, l, w) => {
      const win = (l.winners || []).map((x) => w.score.who(st, x.player, w)).join(" and ");
      if (l.kind === "ron") return "ron by " + win + " from " + w.score.who(st, l.from, w);
      if (l.kind === "tsumo") return "tsumo by " + win;
      if (l.kind === "suukantsu") return w.score.kind.suukantsu + " by " + win +
        (l.from ? " from " + w.score.who(st, l.from, w) : "");
      if (l.kind === "nagashi") return w.score.kind.nagashi + " by " + win;
      if (["riichi", "chombo", "pot"].includes(l.kind)) return w.score.kind[l.kind] + " by " + w.score.who(st, l.player, w);
      if (l.kind === "rules") return w.score.kind.rules + ": " + Object.keys(l.options || {})
        .map((o) => w.score.option[l.options[o]] || l.options[o]).join(", ");
      return w.score.kind[l.kind] || l.kind;
    },
    kind: { riichi: "riichi", ron: "ron", tsumo: "tsumo", draw: "draw", abortive: "abortive draw",
      chombo: "chombo", pass: "pass", nagashi: "nagashi mangan", suukantsu: "special suukantsu",
      pot: "tile revealed (pot)", rules: "the game's rules", transfer: "transfer",
      end: "the game's end" },
    final: (list, w) => "Final: " + list.join(" · "),
    finalOne: (n, who, pts, w) => w.score.ordinal(n) + " " + who + " " + w.score.pts(pts),
    // the entry buttons
    btn: { riichi: "Riichi (me)", ron: "Ron", tsumo: "Tsumo", draw: "Draw", abortive: "Abortive draw",
      chombo: "Chombo", pass: "Pass (dealer)", nagashi: "Nagashi mangan",
      suukantsu: "Special suukantsu", pot: "Tile revealed (pot)", undo: "Undo last" },
    enterTitle: "Enter a result",
    field: { winner: "Winner", from: "From", han: "Han", fu: "Fu", chips: "Chips", tenpai: "Tenpai",
      player: "Player", patterns: "Pattern points", fan: "Fan", limits: "Limit hands",
      multipliers: "Multipliers", closed: "Closed hands (pay double)", pao: "Liable (pao)",
      tiles: "Tiles revealed", kanFrom: "4th kan's tile from (blank: tsumo)" },
    nobody: "— nobody —",
    patternsHelp: "170, or 400 30 for a single limit",
    yakuman: (n) => n === 1 ? "yakuman" : n + "× yakuman",
    mult: { duiduihu: "duiduihu (toitoi) ×8", dragon_kezi: "dragon_kezi (dragon triplet) ×2",
      gang: "gang (angang) ×2", gangshang_kaihua: "gangshang_kaihua (rinshan) ×2",
      gangshang_pao: "gangshang_pao ×2", qianggang: "qianggang (chankan) ×2",
      single_wait: "single_wait ×2", haidilaoyue: "haidilaoyue (haitei) ×2",
      first_turn_dragons: "first_turn_dragons ×4", first_turn_winds: "first_turn_winds ×4" },
    times: (n) => "×" + n,
    send: (kind, w) => "Enter the " + w.score.kind[kind],
    // the answers, next to the control pressed
    entered: (st, w) => "Entered: " + w.score.what(w.asDealt(st, (st.last || {}).dealer),
      st.last || {}, w) + ".",
    undone: (st, l, w) => "Undone: " + (l ? w.score.what(w.asDealt(st, l.dealer), l, w)
      : "the last entry") + ".",
    needSeat: "Choose which player you are first (above).",
    needFrom: "Choose who discarded.",
    needPatterns: "Type the pattern points, for example 170.",
    needFan: "Type the fan, for example 3, or the limit hands.",
    refused: { bad_entry: "the ledger cannot take that entry", not_now: "not now",
      ruleset_forbids: "this ruleset has no such entry", no_session: "no session is open: start one first",
      not_paired: "this browser is not paired", other: "refused" },
    // the refusal in the page's words when its key is known, else the ledger's own message
    // (English), else the code's words
    notEntered: (why, message, keyed) => "Not entered: " + (keyed || message || why) + ".",
    // the ledger's refusals by key (the API error's key and params; st: the game, to name
    // players as every screen does): English words those that name a player, the others
    // are the ledger's own message
    why: {
      riichi_again: (p, w, st) => w.seatName(st, p.player, w) + " is already in riichi this hand",
      riichi_points: (p, w, st) => w.seatName(st, p.player, w) + " has " + w.score.pts(p.points) +
        " points: a riichi needs " + w.score.pts(p.need) + " for the stick",
      own_discard: (p, w, st) => w.seatName(st, p.player, w) + " cannot win on their own discard " +
        "(a win on one's own tile is a tsumo)",
      pao_self: (p, w, st) => w.seatName(st, p.player, w) + " cannot be liable (pao) for their own win",
    },
    // the seats: names, and where the first dealer sits
    seatsTitle: "Names and seats",
    nameOf: (st, k, w) => "Name of " + w.seatName(Object.assign({}, st, { players: Object.assign(
      {}, st.players, { [k]: Object.assign({}, st.players[k], { name: null }) }) }), k, w),
    firstDealer: "Where East (the first dealer) sits, seen from who threw first",
    side: { "": "— as it is —", self: "the thrower's own seat", right: "the thrower's right",
      across: "across from the thrower", left: "the thrower's left" },
    seatsSave: "Save names and seats",
    seatsSaved: "Saved.",
    // a game's options (docs/SCORING.md "Options"): Shenyang's who pays on a ron
    optionLabel: { ron_pays: "Who pays on a ron" },
    option: { discarder: "the discarder alone (×2)", all: "everyone, the discarder ×2" },
    optionsLater: "Set before the game's first result.",
    // the game's ledger to keep (GET /score/export): the same file as the command line's
    exportTitle: "Export this game",
    exportAs: { csv: "CSV", json: "JSON" },
  },

  // -- the latest events (each event type the page tells) ------------------------------------
  log: {
    session_started: (e, w) => "Session " + e.session + " started: " + w.rulesetLabel(w, e.ruleset) +
      (e.mixed_deck ? ", Mixed Deck" : ""),
    session_resumed: (e) => "Session " + e.session + " carried on after a restart",
    build_started: (e, w) => (e.resumes ? w.Deck(e.deck) + ": the build goes on" : "Building " + w.deck(e.deck)),
    build_resumed: (e, w) => w.Deck(e.deck) + ": the build goes on",
    build_done: (e, w) => w.Deck(e.deck) + " built: " + e.per_track.reduce((a, b) => a + b, 0) +
      " tiles" + (e.ok ? "" : " — the count is wrong"),
    build_failed: (e, w) => w.Deck(e.deck) + ": the build stopped",
    hand_over: (e, w) => "Hand over: " + w.deck(e.raising) + " comes up" +
      (e.dropping ? ", " + w.deck(e.dropping) + " goes in" : ""),
    hand: (e, w) => w.Hand(e) + " began on " + w.deck(e.deck),
    dice: (e, w) => "Dice for " + w.hand(e) + ": " + e.dice.join(" + ") + " = " + e.total +
      " (" + (w.by[e.by] || w.by.api) + ")",
    fault: (e, w) => "Fault: " + w.faultTitle(e, w),
    fault_recovered: () => "Fault cleared: the table carries on",
    stopped: (e, w) => "Stopped: " + w.faultTitle(e, w),
    step_failed: () => "A step stopped: see what happens next above",
    session_ended: (e) => "Session " + e.session + " " + ({ ended: "ended", aborted: "aborted",
      failed: "ended by a fault" }[e.how] || "ended"),
    link: (e) => "Table " + ({ connected: "connected", up: "connected", reset: "restarted",
      disconnected: "disconnected", lost: "disconnected" }[e.what] || "link: " + e.what),
    abort_pending: () => "Abort: waiting for the table to confirm",
    abort_confirmed: () => "Abort confirmed by the table",
    emptied: () => "Every tile is on the table top",
    collect: () => "Collecting every tile into the mixer",
    resplit: (e, w) => "Both decks are split again before " + w.hand(e),
    swap: (e, w) => "The decks are swapped before " + w.hand(e),
    drain: () => "Building the mixer's tiles into walls",
    game: (e) => "Game " + e.game + " began",
    button: (e, w) => (e.button === "dice" ? "The table's dice button" : "The table's start button") +
      (e.taken ? ": taken" : ": not now"),
  },
  rulesetLabel: (w, name) => {
    const page = window.jantakuPage, rs = page && page.rulesets && page.rulesets[name];
    const base = (rs && rs.base) || String(name || "").split("+")[0];
    const title = w.rulesetNames[base] || (rs && rs.title) || base;
    const opts = (rs && rs.options) || String(name || "").split("+").slice(1);
    return title + (opts.length ? " (" + opts.map((o) => w.option[o] || o).join(", ") + ")" : "");
  },
  historyNone: "No earlier session.",
  // hands: the hands scored (results entered), not the table's hands
  historyLine: (h, hands, w) => "Session " + h.id + ": " + w.rulesetLabel(w, h.ruleset) +
    (h.mixed_deck ? ", Mixed Deck" : "") + " — " + ({ ended: "ended", aborted: "aborted",
      failed: "ended by a fault", open: "open" }[h.state] || "ended") + ", " +
    (h.games || []).length + " game" + ((h.games || []).length === 1 ? "" : "s") + ", " +
    (hands ? hands + " hand" + (hands === 1 ? "" : "s") + " scored" : "no scores"),
  // a game of an earlier session: its placement and points (sc: game_results)
  historyGame: (g, sc, w) => "Game " + g.game + ": " + (!sc ? "no scores" : sc.error ? sc.error
    : (sc.ended ? "final" : "not ended") + ", " + sc.hands + " hand" + (sc.hands === 1 ? "" : "s") +
      " scored — " + (sc.placement || Object.keys(sc.players)).map((k, i) => (sc.placement
        ? w.score.ordinal(i + 1) + " " : "") + w.seatName(sc, k, w) + " " +
        w.score.pts(sc.players[k].points)).join(" · ")),

  // -- this browser: language, sound, pairing --------------------------------------------------
  language: "Language",
  chime: "Sound and vibration when the table asks for people or stops",
  arm: "Tap to let this page sound",
  awake: "Keep the screen on while this page is open",
  // why the screen is or is not kept on (the Wake Lock API), by state
  awakeNote: {
    held: "The screen stays on.",
    insecure: "This browser keeps a screen on only for a page reached over https: turn off " +
      "auto-lock in the phone's settings instead.",
    unsupported: "This browser cannot keep the screen on: turn off auto-lock in the phone's " +
      "settings instead.",
    refused: "The phone did not let the page keep the screen on (battery saver?): turn off " +
      "auto-lock in its settings instead.",
  },
  offerText: "A phone lying on the table sleeps and stays silent. Let this one call you and " +
    "stay awake? (Both can be changed under \"This browser\".)",
  offerChime: "Sound and vibration",
  offerAwake: "Keep the screen on",
  offerNo: "Not now",
  pairLabel: "Pairing code",
  pairButton: "Pair this browser",
  pairNeeded: "This browser sees the table but cannot press its buttons: type a code from " +
    "a paired phone (its \"Pair another phone\") or the one the table's host shows.",
  paired: "This browser is paired: it may run the table.",
  pairedNow: "Paired: this browser may now run the table.",
  forgetButton: "Forget this browser",
  forgotten: "This browser is no longer paired.",
  inviteButton: "Pair another phone",
  inviteNote: (min) => "On the other phone, scan this code with its camera, or open this " +
    "page there and type the code. It works once, for " + min + " minutes.",
  inviteDone: "Done",
  kioskLink: "Table view (for a tablet at the table)",
  fullLink: "Whole page",
  footer: "jantaku · the table's own page, served by its daemon · API: ",
};

// Japanese: every key of the English table above, in the same shapes.
window.JANTAKU_WORDS_JA = {
  lang: "ja",
  title: "雀卓",
  live: "接続中",
  offline: "再接続中…",
  languages: { en: "English", ja: "日本語" },
  cmd: {
    start: "セッション開始",
    hand_over: "局の交代",
    dice: "サイコロを振る",
    dice_entered: "振った目を入力",
    continue: "続行",
    clear_fault: "エラー解消",
    game_new: "次の半荘",
    end: "セッション終了",
    abort: "中止",
    name_sets: "組の名前を付ける",
  },
  btn: (w, cmd) => "「" + w.cmd[cmd] + "」",
  primary: {
    push_all: "完了:中央を閉じる",
    push_rest: "完了:中央を閉じる",
    push_missed: "中央をもう一度開く",
    mixer_short: "完了:中央を閉じる",
    find_stray: "完了:紛れ込んだ牌を取り出した",
    clear_top: "完了:卓上が空いた",
    playing: "局の交代",
    recovery_waits: "局の交代",
    return_test_tiles: "完了:中央を閉じる",
    hold_test_rod: "準備完了:リフトを上げる",
    push_other_set: "完了:中央を閉じる",
    push_walls_back: "完了:中央を閉じる",
    name_sets: (p, w) => w.classIs((p.colours || [])[0], w),
  },
  startAs: (ruleset, mixed) => "開始:" + ruleset + (mixed ? "、ミックスデッキ" : ""),
  wait: "押すボタンはありません:お待ちください",
  next: {
    table_disconnected: () => ({
      head: "卓が接続されていません",
      more: "ケーブルと電源を確かめてください。デーモンが自動で再接続します。それまで送れるのは「中止」だけです。" }),
    table_cannot_start: () => ({
      head: "卓のファームウェアが起動できません",
      more: "卓が理由を英語で示しています。ボード設定(またはボード)の該当箇所を直し、書き込み直してください。" }),
    abort_pending: () => ({
      head: "停止中:中止は卓の応答待ちです",
      more: "卓が応答しだい送り直します。" }),
    start_session: (p, w) => ({
      head: "セッションを始めてください",
      more: "下で遊び方を選び、上の開始ボタンを押してください(牌の背:" + w.colours(p.colours) + ")。" }),
    take_tiles_out: (p, w) => ({
      head: "牌を取り出すか、セッションを始めてください",
      more: "すべての牌が卓上にあります(牌の背:" + w.colours(p.colours) + ")。" }),
    table_fault: (p, w) => ({ head: w.faultTitle(p, w), more: "" }),
    self_test: () => ({ head: "自己診断中:お待ちください", more: "卓が各装置を順に動かしています。" }),
    calibrating: () => ({ head: "色センサーの校正中:お待ちください",
      more: "卓が全トラックで両方の組を読み取っています。" }),
    surveying: () => ({ head: "配線の調査中:卓を見てください",
      more: "出力を一瞬動かすか、スイッチが押されるのを見ています。調査の画面で、何が動いたかを答えてください。" }),
    return_test_tiles: (p, w) => ({ head: "自己診断の牌を中央に戻してください",
      more: "自己診断で卓上に上げた" + p.tiles + "枚(それだけ)を開いた中央に押し込み、終わったら" +
        w.primaryName(w, "return_test_tiles") + "を押してください。" }),
    hold_test_rod: (p, w) => ({ head: "停止試験:試験棒を用意してください",
      more: "試験棒をリフトの開口部のそば(ライトカーテンの外)に構え、" +
        w.primaryName(w, "hold_test_rod") + "を押してください。リフトが上がり始めたら棒をライトカーテンに入れます。" +
        "卓が停止までの時間を測ります。" }),
    push_other_set: (p, w) => ({ head: "もう一方の組を中央に押し込んでください",
      more: "卓上にある組(いま上がってきた山ではなく)を開いた中央に押し込み、終わったら" +
        w.primaryName(w, "push_other_set") + "を押してください。校正で読み取ります。" }),
    push_walls_back: (p, w) => ({ head: "読み取った山を中央に戻してください",
      more: "校正で読み取った山を開いた中央に押し込み、終わったら" +
        w.primaryName(w, "push_walls_back") + "を押してください。" }),
    name_sets: (p, w) => ({ head: "読み取った背の色がどちらの組か選んでください",
      more: "校正で2つの背の色を読み取りました(見本の色はセンサーが見た色です)。分類1が先に読んだ色です。" +
        "分類1がどちらの組(" + w.colours(p.colours) + ")かをボタンで選んでください。もう一方が分類2です。" +
        "間違えても読み直さずに直せます。" }),
    emptying: (p) => ({ head: "すべての牌を上げています:お待ちください",
      more: p.round ? "第" + p.round + "回:洗牌機の牌を山にして上げています。" : "中の山が卓上に上がります。" }),
    clear_top: (p, w) => ({ head: "卓上の牌を取り出してください",
      more: (p.tiles ? "次に洗牌機からあと" + p.tiles + "枚上がってきます。" : "") +
        "卓上が空いたら" + w.primaryName(w, "clear_top") + "を押してください。" }),
    collecting: (p) => ({ head: "すべての牌を洗牌機に集めています:お待ちください",
      more: "半荘" + (p.game || 1) + "のため、中の山を上げています。" }),
    push_all: (p, w) => ({ head: "すべての牌を中央に落としてください",
      more: "卓上の牌をすべて開いた中央に落とし、終わったら" + w.primaryName(w, "push_all") + "を押してください。" }),
    mixer_short: (p, w) => ({ head: "卓上の牌をすべて中央に落としてください",
      more: w.deck(p.deck) + "が洗牌機の牌をすべて取ったので、もう一組は中にありませんでした。落としてから" +
        w.primaryName(w, "mixer_short") + "を押してください。" }),
    find_stray: (p, w) => ({ head: "卓上から紛れ込んだ" + w.colourName(w, p.colour) + "の背の牌を取り出してください",
      more: "組にない牌が山に入りました。すべての牌が卓上にあり、中央は閉じたままです。" +
        w.colourName(w, p.colour) + "の背の牌のうち、1枚多い絵柄があります。その1枚を取り出して" +
        w.primaryName(w, "find_stray") + "を押してください。そのあとすべての牌を中央に落とし、デッキを分け直します。" }),
    building: (p, w) => ({ head: w.deck(p.deck) + "を積んでいます:お待ちください",
      more: "半荘" + (p.game || 1) + "の山を中で積んでいます。" }),
    push_rest: (p, w) => ({ head: w.deck(p.deck) + "の残りを中央に落としてください",
      more: "卓上に残った牌を落とし、終わったら" + w.primaryName(w, "push_rest") + "を押してください。" }),
    push_missed: (p, w) => ({ head: w.deck(p.deck) + "が全部入る前に中央が閉じました",
      more: "卓の故障ではありません:" + w.primaryName(w, "push_missed") +
        "を押し、開いている間に残りを落としてから閉じてください。" }),
    press_start: (p, w) => ({ head: w.btn(w, "hand_over") + "を押して" + w.hand(p) + "を始めてください",
      more: w.deck(p.deck) + "が中に積み上がっています。その山が上がります。" }),
    press_dice: (p, w) => ({ head: w.hand(p) + "のサイコロを振ってください",
      more: w.btn(w, "dice") + "を押すか、振った目を入力して" + w.btn(w, "dice_entered") + "を押してください。" }),
    playing_building: (p, w) => ({ head: w.hand(p) + " 対局中:終わったら先に牌を中央へ",
      more: "次の局のために" + w.deck(p.deck) + "を中で積んでいます。局が終わったら使った牌を中央に落としてから" +
        w.btn(w, "hand_over") + "を押してください。" }),
    playing: (p, w) => ({ head: w.hand(p) + " 対局中:終わったら先に牌を中央へ",
      more: "局が終わったら使った牌を中央に落とし、" + w.btn(w, "hand_over") + "を押してください。" +
        w.deck(p.deck) + "は中で準備できています。" }),
    raising: (p, w) => ({ head: w.hand(p) + "の山を上げています:お待ちください", more: "" }),
    lift_down: (p, w) => ({ head: w.hand(p) + "開始:リフトが下がります", more: "" }),
    recovery_waits: (p, w) => ({ head: w.hand(p) + " 対局中",
      more: "卓が再起動したため中の山は確かではありません。局が終わったら使った牌を落として" +
        w.btn(w, "hand_over") + "を押してください。卓が整え直します。" }),
    recovering: (p) => ({ head: "再起動後の山を整えています:お待ちください",
      more: p.kind === "swap" ? "中のデッキを積み直し、デッキを入れ替えます。" : "両方のデッキを分け直します。" }),
    stopped: (p, w) => ({ head: w.faultTitle(p, w), more: "" }),
  },
  fault: {
    "jam": (f, w) => w.track(f.track) + "が詰まっています",
    "short": (f, w) => w.deck(f.deck) + "の牌が足りません",
    "short-top": (f, w) => w.deck(f.deck) + "の牌が全部は中央に入りませんでした",
    "surplus": () => "洗牌機に牌が残っています",
    "stray": () => "組にない牌が山に入りました",
    "overfill": (f, w) => w.track(f.track) + "に牌が1枚多く入りました",
    "misread": (f, w) => w.track(f.track) + "で背の色を読み取れませんでした",
    "sensor": (f, w) => w.track(f.track) + "のセンサーが応答しません",
    "colour": (f, w) => w.track(f.track) + "に別の背の色の牌があります",
    "guard": () => "誰かが卓の縁の上に手を伸ばしたか、ふたが開きました",
    "lift-stall": () => "リフトが止まりました",
    "limit": () => "リフトのリミットスイッチが動かなくなっています",
    "door": () => "中央の扉が所定の位置まで動きませんでした",
    "build-timeout": () => "山積みに時間がかかりすぎました",
    "internal": () => "卓で内部エラーが起きました",
    "count": (f, w) => w.track(f.track) + "の計数センサーが牌を二重に数えたか数え損ねました",
    "link-lost": () => "卓がホストとの通信を失いました",
    "composition": (f, w) => w.deck(f.deck) + "の牌が前と違います",
    "not_connected": () => "卓が接続されていませんでした",
    "reset": () => "卓が再起動しました",
    "unresumable": () => "このセッションは続けられません",
    "refused": () => "卓が手順を拒否しました",
  },
  todo: {
    "jam": (f, w, b) => w.track(f.track) + "に詰まった牌を手で取り除いてから" + b + "を押してください。",
    "short": (f, w, b) => w.deck(f.deck) + "の足りない牌を探し、ふたを開けて洗牌機に入れ、ふたを閉めてから" + b + "を押してください。",
    "short-top": (f, w, b) => b + "を押し、中央が開いたら" + w.deck(f.deck) + "の残りの牌を落としてください。",
    "surplus": (f, w, b) => "ふたを開けて洗牌機から余分な牌を取り出し、" + b + "を押してください。2組が混ざっていたなら" +
      w.btn(w, "abort") + "を押してミックスデッキで始めてください。",
    "stray": (f, w, b) => "洗牌機の牌はそのままにしてください(組の牌です)。対局中の局が終わったら" + b +
      "を押してください。すべての牌が卓上に上がるので紛れ込んだ牌を探し、そのあとデッキを分け直します。",
    "overfill": (f, w, b) => w.track(f.track) + "の余分な牌を手で取り除いてから" + b + "を押してください。",
    "misread": (f, w, b) => w.track(f.track) + "の色センサーを掃除してから" + b + "を押してください。",
    "sensor": (f, w, b) => w.track(f.track) + "のセンサーの配線を確かめてから" + b + "を押してください。",
    "colour": (f, w, b) => w.track(f.track) + "から別の背の色の牌を取り出してから" + b + "を押してください。",
    "guard": (f, w, b) => "卓の縁の上のセンサーから手や物をどけ、ふたを閉めてから" + b + "を押してください。",
    "lift-stall": (f, w, b) => "リフトを妨げている物を取り除いてから" + b + "を押してください。",
    "limit": (f, w, b) => "リフトの端のスイッチを点検してから" + b + "を押してください。",
    "door": (f, w, b) => "中央の扉を妨げている物を取り除いてから" + b + "を押してください。",
    "build-timeout": (f, w, b) => "詰まった牌や空の洗牌機がないか確かめてから" + b + "を押してください。",
    "internal": (f, w, b) => b + "を押してください。また起きるなら卓を再起動してください。",
    "count": (f, w, b) => w.track(f.track) + "の計数センサーのつまみを牌一枚に一回数えるまで回してから" + b + "を押してください。",
    "link-lost": (f, w, b) => "卓のケーブルを確かめてから" + b + "を押してください。",
    "composition": (f, w, b) => "足りない牌や紛れ込んだ牌を探すか、" + b + "を押して新しいミックスデッキの" +
      "セッションを始めてください(卓がすべての牌を集めて分け直します)。",
    "not_connected": (f, w, b) => "卓のケーブルと電源を確かめてから" + b + "を押してください。",
    "reset": (f, w, b) => "卓はもう2組を見分けられません。" + b + "を押し、背の色で牌を仕分けて新しいセッションを始めてください。",
    "unresumable": (f, w, b) => b + "を押してから、始め直してください。",
    "refused": (f, w, b) => b + "を押すともう一度試します。",
  },
  faultLabel: "エラー",
  faultAt: "ここで停止",
  faultBelow: "エラー:ボタンは下にあります",
  faultBelowWhy: "画面の下の赤い枠の中",
  more: "ほかの操作 ▾",
  fewer: "閉じる ▴",
  cmdsMoved: "エラーが起きています。そのボタンとほかの操作は画面の下の赤い枠(「ほかの操作」)にあります。",
  trackWhere: (t, n, w, side) => side && side.mine ? w.Track(t) + "は" +
      (side.mine === "self" ? "あなたの山" : w.seatFromMe[side.mine] + "の山") +
      "の下にある卓の中のレーンです。卓の図では" + t + "の印です。"
    : side ? w.Track(t) + "は卓の図で" + t + "の印の山の下にある、卓の中のレーンです。"
    : "全" + n + "本のうちの" + w.track(t) + ":卓の中で山を積むレーンで、卓に番号が付いています。" +
    "下の「中の山」にも印があります。",
  counted: (n, of) => "止まったとき" + of + "枚中" + n + "枚を数えていました。",
  closesIn: (s, w) => "中央はあと" + w.secs(s) + "で閉じます",
  secs: (s) => s < 60 ? Math.ceil(s) + "秒" : window.JANTAKU_WORDS.clock(s),
  openUntilDone: (w, code) => w.primaryName(w, code) + "を押すまで開いています",
  comeUpIn: (s, w) => "あと" + w.clock(s) + "で次の牌が上がります",
  buildLeft: (s, d, w) => w.deck(d) + "は約" + (s < 60 ? Math.max(1, Math.round(s)) + "秒" :
    Math.round(s / 60) + "分") + "で中に積み上がります",
  buildCounting: "山積みの時間を測っています…",
  offlineHead: "ページがデーモンとの接続を失いました",
  offlineMore: "自動で再接続します。それまで操作はできません。",
  retryIn: (s) => Math.max(1, Math.round(s)) + "秒後にもう一度デーモンへの接続を試します。",
  connecting: "接続しています…",
  why: {
    offline: "操作できません:ページがデーモンに接続されていません。",
    unpaired: "操作できません:このブラウザはペアリングされていません(下)。",
    sending: "送信中…",
  },
  sendingCmd: {
    start: "セッションを始めています…",
    hand_over: "局を交代しています…",
    dice: "サイコロを振っています…",
    dice_entered: "振った目を送っています…",
    continue: (code) => ["push_all", "push_rest", "mixer_short", "return_test_tiles",
      "push_other_set", "push_walls_back"].includes(code) ? "中央を閉じています…" : "続けています…",
    clear_fault: "エラー解消を伝えています…",
    game_new: "次の半荘を始めています…",
    end: "セッションを終了しています…",
    abort: "中止:すべてのモーターを止めています…",
    name_sets: "組の名前を送っています…",
  },
  classIs: (c, w) => "分類1は" + w.colourName(w, c),
  classLine: (c, w) => "分類" + c.class + ":" + c.tiles + "枚",
  deck: (d) => d ? "デッキ" + d : "積んでいるデッキ",
  Deck: (d) => d ? "デッキ" + d : "積んでいるデッキ",
  track: (t) => t ? "トラック" + t : "トラック",
  Track: (t) => t ? "トラック" + t : "トラック",
  hand: (p) => p && p.game_hand ? "半荘" + (p.game || 1) + "の第" + p.game_hand + "局"
    : (p && p.game > 1 ? "半荘" + p.game + "の" : "") + "最初の局",
  Hand: (p) => window.JANTAKU_WORDS.hand(p),
  primaryName: (w, code) => "「" + w.primary[code] + "」",
  colour: {
    blue: "青", green: "緑", red: "赤", yellow: "黄", orange: "橙", black: "黒", white: "白",
    grey: "灰", gray: "灰", purple: "紫", pink: "桃", brown: "茶", unknown: "読めず", counted: "数えた牌",
  },
  colours: function (list) {
    const w = window.JANTAKU_WORDS, names = (list || []).map((c) => w.colourName(w, c));
    if (!names.length) return "卓の設定どおり";
    return names[0] === names[1] ? "どちらも" + names[0] : names.join("と");
  },
  mark: (w, c) => (w.colourName(w, c) || "?")[0],
  where: {
    top: "卓上", inside: "中に積み上がり", lift: "リフトの上", mixer: "洗牌機の中",
    split: "中で積んでいます", unknown: "不明:もう一度数えてください",
  },
  rulesetNames: {
    riichi: "立直麻雀", "speed-tonpuu": "スピード東風戦", shenyang: "瀋陽麻雀",
    wsom: "ワールドシリーズ・オブ・マージャン", uzje: "ウズィエ",
  },
  option: { "compressed-winds": "風牌圧縮", "flowers": "花牌あり", "all-tongs": "全トン" },
  seatShort: { self: "自分", right: "下家", across: "対面", left: "上家" },
  breakAt: { self: "振った人の山を割る", right: "下家の山を割る", across: "対面の山を割る",
    left: "上家の山を割る" },
  units: (n, unit) => n + (unit === "tiles" ? "枚" : "幢"),
  breakLine: (t, w) => t.dice.join("+") + " = " + t.total + " · " + (w.breakAt[t.breaker] ||
    t.breaker) + " · 右端から" + w.units(t.break_from_right, t.unit) + "目",
  breakWait: (p, w) => w.hand(p) + "の山が上がりました:サイコロを振ってください",
  noWallsUp: "卓上に山はありません",
  deadLine: (tiles) => "王牌:割れ目の右の" + tiles + "枚。",
  doubleLine: "ゾロ目:この局の点数は倍になります。",
  breakerIsDealer: "割られた山の持ち主が親になります。",
  by: { button: "サイコロボタン", api: "このページかプログラム", entered: "手で振った目を入力" },
  tableSvg: (t, w) => t ? "振った人の席(下)から見た四つの山:" + w.breakLine(t, w) + "。"
    : "振った人の席(下)から見た四つの山。",
  you: "あなた",
  throws: "振る",
  seatFromMe: { self: "あなた", right: "下家", across: "対面", left: "上家" },
  fromMe: { right: "あなたの下家", across: "あなたの対面", left: "あなたの上家" },
  wallOf: (st, k, w) => st.players[k].name || w.score.wind[st.players[k].wind] + "家",
  playerName: (p, w) => w.score.wind[p.wind] + "家" + (p.name ? "(" + p.name + ")" : ""),
  breakSeen: (t, b, w) => t.dice.join("+") + " = " + t.total + " · " + (b.at === "self"
    ? "あなたの山 · 右端から" + w.units(t.break_from_right, t.unit) + "目"
    : (b.who ? b.who + "(" + w.fromMe[b.at] + ")" : w.fromMe[b.at]) + "の山を割る · 右端から" +
      w.units(t.break_from_right, t.unit) + "目"),
  tableSvgMine: (t, b, w) => "あなたの席(下)から見た四つの山" + (t && b ? ":" + w.breakSeen(t, b, w) : "") + "。",
  turnNeedsResult: "前の局の結果を記録すると、この図があなたの席の向きになります。",
  sideLabel: "自分の席",
  seatName: (st, k, w, short) => {
    const p = (st && st.players && st.players[k]) || {};
    const wind = w.score.wind[p.wind || k] + "家", rel = w.relOf(st, k);
    if (short) return p.name || wind;
    if (p.name) return p.name + "(" + wind + (rel ? "・" + w.rel[rel] : "") + ")";
    return wind + (rel ? "(" + w.rel[rel] + ")" : "");
  },
  rel: { self: "自分", right: "下家", across: "対面", left: "上家" },
  sideChoice: { "": "— 選ぶ —", self: "最初にサイコロを振る人の席", right: "最初に振る人の下家",
    across: "最初に振る人の対面", left: "最初に振る人の上家" },
  controlsTitle: "操作",
  howTitle: "すること",
  topTitle: "卓上の山",
  apartTitle: "終わらせる",
  wallsTitle: "中の山",
  decksTitle: "デッキ",
  logTitle: "最新",
  historyTitle: "これまでのセッション",
  settingsTitle: "このブラウザ",
  noBuild: "まだ山は積まれていません。",
  wallsUp: (n, w) => "中に山はありません:最後に積んだ山(" + n + "枚)は卓上に上がりました。",
  drainBuilding: "洗牌機の牌を山にして上げています",
  drainBuilt: (n) => "洗牌機の牌を山にしました:" + n + "枚",
  buildingDeck: (d, w) => w.deck(d) + "を積んでいます",
  builtDeck: (d, n, w) => w.deck(d) + " 積み上がり:" + n + "枚",
  builtWrong: " — 数が合いません",
  stoppedBuild: (d, w) => w.deck(d) + ":山積みが止まりました",
  builtGone: (d, where, w) => w.deck(d) + "はここで積まれました(今は" + where + ")",
  count: (have, target) => have + "/" + target,
  joined: "薄い牌:このページが見ていない間に数えた牌(色ごとにまとめて表示)。",
  noSession: "セッションがありません。始めるとデッキが表示されます。",
  decksAbout: "卓にはデッキAとデッキBの二つがあります。一つを卓上で使う間に、もう一つを中で積み、局の交代で入れ替わります。" +
    "ミックスデッキでは2組を混ぜて二つに分け、それ以外では各デッキが1組です。",
  deckTiles: (n) => n + "枚",
  deckNotSplit: "積み上がると数えます",
  coloursUnchecked: "2組の背が同じ色です。卓はすべての牌を数えますが組を見分けられないので、" +
    "このデッキの色は確かめられません。",
  facts: { ruleset: "ルール", mixed: "ミックスデッキ", normal: "通常の交代", game: "半荘",
    hand: "局", table: "卓", none: "まだありません", safety: "安全回路" },
  tableName: (id) => id ? id.board + " · " + id.firmware : "未接続",
  safetyState: (s) => s.relay_stuck
    ? "異常:安全回路が開いているのにモーターのリレーが切れません。電源を切ってください"
    : !s.chain ? "開:非常停止ボタンが押されているか、ふたが開いています。何も動きません"
      : "閉 · 昇降と扉の電源 " + (s.power ? "入" : "切"),
  start: {
    ruleset: "ルール",
    mixed: "ミックスデッキ",
    mixedHelp: "2組を混ぜて使う",
    colourDefault: (c, w) => "設定どおり" + (c ? "(" + w.colourName(w, c) + ")" : ""),
    loaded: "牌は仕分け済み:1組目は洗牌機の中、2組目は卓上",
    loadedHelp: "2組の牌が混ざった後に通常の交代で始めるとき、背の色で牌を仕分けてそのように置いたらチェックしてください。",
    colours: "2組の牌の背の色",
    colourA: "1組目の背の色",
    colourB: "2組目の背の色",
  },
  diceFaces: "振った目",
  confirm: {
    abort: "すべてのモーターを止めてセッションを終了しますか?",
    end: "セッションを終了しますか?",
    game_new: (st, w) => !st || !st.entries ? "この半荘を終えて次の半荘を始めますか?"
      : "半荘" + st.game + "を終えて半荘" + (st.game + 1) + "を始めますか?半荘" + st.game +
        "は今の点数で終わります" + (st.left_on_table ? ":" + w.confirm.left(st, st.left_on_table, w) : "") + "。",
    left: (st, l, w) => [l.sticks ? "卓上の供託" + l.sticks + "本(" + w.score.pts(l.points) + "点)" : "",
      l.pot ? "場の罰符(" + w.score.pts(l.pot) + "点)" : ""].filter(Boolean).join("と") +
      "はトップの" + w.seatName(st, l.to, w) + "のものになります",
    hand_over: "打った牌は中央に入れましたか?卓上に残った牌の下から次の山が上がってきます。",
    notYet: "まだ",
    endEmpty: "すべての牌を卓上に上げる",
    yes: { abort: "中止する", end: "終了する", game_new: "次の半荘へ", hand_over: "入れた:局の交代" },
    no: "やめる",
  },
  sending: (label) => label + "…",
  done: (label) => label + ":完了。",
  refusedAs: (label, why) => label + ":できませんでした。" + why,
  unreachable: "デーモンが応答しません。ページは自動で再接続します。",
  badDice: "サイコロの目を入力してください(例 3,4)。",
  badColours: "それぞれの組の背の色を卓が知っている色から選んでください(背が同じ2組なら同じ色を2回)。",
  refusal: {
    not_paired: () => "このブラウザはペアリングされていません。下に卓のホストのコードを入力してください。",
    invites_off: () => "ペアリングコードは卓のホストだけが発行します。ホストで尋ねてください。",
    pair_refused: () => "そのコードは違うか期限切れです。ペアリング済みの端末の「別の端末をペアリング」で新しいコードを出すか、卓のホストに表示されたコードを入力してください。",
    pair_rate_limited: () => "間違ったコードが多すぎます。1分待ってからもう一度入力してください。",
    cross_origin: () => "拒否:卓のページ以外からの要求です。",
    bad_host: () => "拒否:卓が応答しない名前でページを開いています。",
    bad_colours: (e, w) => w.badColours,
    unknown_colour: (e, w, ctx) => "卓はその背の色を知りません。知っている色:" + w.colours(ctx.known) + "。",
    bad_dice: () => "このルールのサイコロの目ではありません(例 3,4)。",
    bad_request: () => "卓はその要求を受け付けられませんでした。",
    sets_not_apart: (e, w, ctx) => "通常の交代には2組の牌が分かれている必要がありますが、卓では仕分けられません。" +
      "背の色で牌を仕分け、" + w.colourName(w, ctx.sets[0]) + "の組を洗牌機に、" + w.colourName(w, ctx.sets[1]) +
      "の組を卓上に置き、「牌は仕分け済み」にチェックして始め直してください。またはミックスデッキで遊べば、卓がすべての牌を集めます。",
    walls_inside: () => "どのセッションのものでもない山が中にあります。ミックスデッキで始めれば、山を上げてすべての牌を集めます。",
    fault_remains: (e, w, ctx) => "エラーはまだ残っています。" + (ctx.fault ? w.faultTodo(ctx.fault, w) : ""),
    not_connected: () => "卓が接続されていません。接続されるまで何も動きません。",
    no_session: () => "セッションがありません。先に始めてください。",
    not_now: (e, w, ctx) => "今はできません" + (ctx.next ? ":" + ctx.next : "。"),
    composition: () => "デッキの牌が前と違います。エラーを見てください。",
    refused: () => "この卓ではそのルールの山を積めません。",
    table: () => "卓が拒否しました。上の次の手順を見てください。",
    internal: () => "デーモンで内部エラーが起きました。卓のホストのログを見てください。",
    other: (e) => "拒否されました(`" + e.code + "`)。",
  },
  score: {
    title: "点数",
    boardEnter: "結果を入力",
    wind: { east: "東", south: "南", west: "西", north: "北" },
    who: (st, k, w) => w.seatName(st, k, w),
    pts: (n) => (typeof n === "number" ? n : 0).toLocaleString("en-US"),
    gap: (n, w) => (n > 0 ? "+" : n < 0 ? "−" : "±") + w.score.pts(Math.abs(n)),
    seatLabel: "自分は",
    seatNone: "— 選ぶ —",
    seatOption: (st, k, w) => w.seatName(Object.assign({}, st, { me: null }), k, w) +
      (st.dealer === k && !st.ended ? " · " + w.score.dealer : ""),
    keep: "このまま",
    chooseSeat: "点数:タップして自分の席を選ぶ",
    keptAsk: (who) => "今回も" + who + "?タップしてそのままか変更",
    me: (st, k, w) => w.score.who(st, k, w) + " · " +
      w.score.pts(st.players[k].points) + "点" + (st.dealer === k && !st.ended ? " · あなたが親" : ""),
    gaps: (list, w) => "点差(自分−相手):" + list.map((g) => g.who + " " + w.score.gap(g.gap, w)).join(" · "),
    placed: (n, w) => "終局:あなたは" + w.score.ordinal(n),
    ordinal: (n) => n + "位",
    handLine: (st, w, me, label) => [
      w.score.wind[st.round] + st.hand + "局",
      st.riichiFamily || st.honba ? st.honba + "本場" : "",
      st.riichiFamily || st.sticks ? "供託" + st.sticks + "本" : "",
      st.ended ? "終局" : st.dealer === me ? "あなたが親" : "親:" + (label || ((k) => w.score.who(st, k, w)))(st.dealer),
    ].filter(Boolean).join(" · "),
    dealer: "親",
    inRiichi: "リーチ",
    head: { who: "名前", wind: "風", points: "点数" },
    last: (st, w) => {
      const l = st.last;
      if (!l) return "まだ記録はありません。";
      st = w.asDealt(st, l.dealer);
      const moved = Object.keys(l.payments || {}).filter((k) => l.payments[k])
        .map((k) => w.score.who(st, k, w) + " " + w.score.gap(l.payments[k], w));
      return "直前:" + w.score.what(st, l, w) + (moved.length ? " — " + moved.join("、") : "") + "。";
    },
    what: (st, l, w) => {
      const win = (l.winners || []).map((x) => w.score.who(st, x.player, w)).join("と");
      if (l.kind === "ron") return w.score.who(st, l.from, w) + "から" + win + "のロン";
      if (l.kind === "tsumo") return win + "のツモ";
      if (l.kind === "suukantsu") return (l.from ? w.score.who(st, l.from, w) + "から" : "") + win +
        "の" + w.score.kind.suukantsu;
      if (l.kind === "nagashi") return win + "の" + w.score.kind.nagashi;
      if (["riichi", "chombo", "pot"].includes(l.kind)) return w.score.who(st, l.player, w) + "の" + w.score.kind[l.kind];
      if (l.kind === "rules") return w.score.kind.rules + ":" + Object.keys(l.options || {})
        .map((o) => w.score.option[l.options[o]] || l.options[o]).join("、");
      return w.score.kind[l.kind] || l.kind;
    },
    kind: { riichi: "リーチ", ron: "ロン", tsumo: "ツモ", draw: "流局", abortive: "途中流局",
      chombo: "チョンボ", pass: "あがりやめ", nagashi: "流し満貫", suukantsu: "特殊四槓子",
      pot: "牌を見せた罰符", rules: "対局の設定", transfer: "点数の移動", end: "終局" },
    final: (list, w) => "最終:" + list.join(" · "),
    finalOne: (n, who, pts, w) => w.score.ordinal(n) + " " + who + " " + w.score.pts(pts) + "点",
    btn: { riichi: "リーチ(自分)", ron: "ロン", tsumo: "ツモ", draw: "流局", abortive: "途中流局",
      chombo: "チョンボ", pass: "あがりやめ(親)", nagashi: "流し満貫", suukantsu: "特殊四槓子",
      pot: "牌を見せた(罰符)", undo: "直前を取り消す" },
    enterTitle: "結果を記録",
    field: { winner: "和了者", from: "放銃者", han: "翻", fu: "符", chips: "チップ", tenpai: "聴牌",
      player: "誰が", patterns: "役の点", fan: "番", limits: "満貫の数",
      multipliers: "倍数", closed: "門前の人(倍払い)", pao: "責任払い(パオ)",
      tiles: "見せた牌の数", kanFrom: "4つ目の槓の牌を出した人(空欄:ツモ)" },
    nobody: "— なし —",
    patternsHelp: "例 170、単独の役満は 400 30",
    yakuman: (n) => n === 1 ? "役満" : n + "倍役満",
    mult: { duiduihu: "対対和 ×8", dragon_kezi: "箭刻 ×2", gang: "暗槓 ×2",
      gangshang_kaihua: "槓上開花 ×2", gangshang_pao: "槓上炮 ×2", qianggang: "搶槓 ×2",
      single_wait: "単騎待ち ×2", haidilaoyue: "海底撈月 ×2",
      first_turn_dragons: "第一巡の三元牌 ×4", first_turn_winds: "第一巡の風牌 ×4" },
    times: (n) => "×" + n,
    send: (kind, w) => w.score.kind[kind] + "を記録",
    entered: (st, w) => "記録しました:" + w.score.what(w.asDealt(st, (st.last || {}).dealer),
      st.last || {}, w) + "。",
    undone: (st, l, w) => "取り消しました:" + (l ? w.score.what(w.asDealt(st, l.dealer), l, w)
      : "直前の記録") + "。",
    needSeat: "先に自分の席を選んでください(上)。",
    needFrom: "放銃者を選んでください。",
    needPatterns: "役の点を入力してください(例 170)。",
    needFan: "番を入力するか、満貫の数を入力してください。",
    refused: { bad_entry: "その記録はできません", not_now: "今はできません",
      ruleset_forbids: "このルールにはその記録がありません", no_session: "セッションがありません。先に始めてください",
      not_paired: "このブラウザはペアリングされていません", other: "拒否されました" },
    // the ledger's refusal in these words when its key is known, else the code's words (the
    // ledger's own message is English)
    notEntered: (why, message, keyed) => "記録できません:" + (keyed || why) + "。",
    why: {
      no_chips: () => "このルールではチップを数えません",
      yakuman_alone: () => "役満は翻と符なしで入力してください",
      han_missing: () => "翻(1以上)と符、または役満を入力してください",
      fu_missing: (p) => p.han + "翻には符が要ります(5翻以上なら省けます)",
      fu_invalid: (p) => p.fu + "符はありません:符は25(七対子)か、20から110までの10の倍数です",
      fu25_han: (p) => "25符は七対子で、2翻以上です(" + p.han + "翻と入力されました)",
      fu20_ron: () => "20符はロンでは和了れません(門前ロンは30符以上)",
      fu20_han: () => "1翻20符はありません:20符は平和ツモで、2翻以上です",
      patterns_missing: () => "役の点を入力してください(例 170)",
      pattern_invalid: (p) => p.points + "点の役はありません:役の点は5の倍数(5〜480)です",
      multiplier_unknown: (p) => "「" + p.name + "」はこのルールの倍役にありません",
      multiplier_times: (p, w) => (w.score.mult[p.name] || p.name).replace(/ ×\d+$/, "") +
        "は1局に" + p.most + "回までです(" + p.got + "回)",
      fan_or_limits: () => "番(2.5を超える数)か満貫の数の、どちらか一つを入力してください",
      fan_invalid: (p) => p.fan + "番では和了れません:番は0.2刻みで数え、" + p.least + "番を超えると和了れます",
      field_foreign: (p, w) => "このルールでは" + (p.fields || []).map((f) => w.score.field[f] || f)
        .join("・") + "を数えません",
      kind_forbidden: (p, w) => "このルールに" + (w.score.kind[p.kind] || p.kind) + "の記録はありません",
      tenpai_unused: () => "このルールでは流局の聴牌は点に関係しません",
      too_many_winners: (p) => "このルールでは一つの捨て牌で和了れるのは" + p.most + "人までです",
      game_over: () => "対局は終わっています。変えるには最後の記録を取り消してください",
      nothing_to_undo: () => "取り消す記録がありません",
      pass_not_now: () => "和了止め・聴牌止めは、親が和了ったか流局で聴牌だった直後にだけできます",
      pass_last_top: () => "和了止めはオーラスでトップの親だけができます",
      riichi_again: (p, w, st) => w.seatName(st, p.player, w) + "はこの局ですでにリーチしています",
      riichi_points: (p, w, st) => w.seatName(st, p.player, w) + "は" + p.points + "点です。リーチには" +
        p.need + "点が要ります",
      own_discard: (p, w, st) => w.seatName(st, p.player, w) + "は自分の捨て牌では和了れません(自分の牌での和了はツモ)",
      winner_closed: () => "和了った人は門前の支払い者に入れられません",
      pao_self: (p, w, st) => w.seatName(st, p.player, w) + "は自分の和了の責任払い(パオ)にはなれません",
      patterns_over_limit: (p) => p.points + "点の手はありません:複合役は最高" + p.most +
        "点、単独の役満は400点か480点です(役ごとの点を並べれば上限は自動で付きます)",
      option_value: (p, w) => "この設定は" + (p.accepted || []).map((v) => w.score.option[v] || v)
        .join("・") + "のどれかです",
      option_missing: () => "どの設定を変えるかを入力してください",
      rules_not_now: () => "対局の設定は最初の記録の前にだけ変えられます",
    },
    seatsTitle: "名前と席",
    nameOf: (st, k, w) => w.seatName(Object.assign({}, st, { players: Object.assign({}, st.players,
      { [k]: Object.assign({}, st.players[k], { name: null }) }) }), k, w) + "の名前",
    firstDealer: "起家(最初の親)の席:最初にサイコロを振った人から見て",
    side: { "": "— 変えない —", self: "振った人の席", right: "振った人の右(下家)",
      across: "振った人の向かい(対面)", left: "振った人の左(上家)" },
    seatsSave: "名前と席を保存",
    seatsSaved: "保存しました。",
    optionLabel: { ron_pays: "ロンの支払い" },
    option: { discarder: "放銃者のみ(×2)", all: "全員(放銃者×2)" },
    optionsLater: "対局の最初の記録の前に設定します。",
    exportTitle: "この半荘を書き出す",
    exportAs: { csv: "CSV", json: "JSON" },
  },
  log: {
    session_started: (e, w) => "セッション" + e.session + "開始:" + w.rulesetLabel(w, e.ruleset) +
      (e.mixed_deck ? "、ミックスデッキ" : ""),
    session_resumed: (e) => "セッション" + e.session + "を再起動後に再開",
    build_started: (e, w) => (e.resumes ? w.deck(e.deck) + ":山積みを続けます" : w.deck(e.deck) + "を積んでいます"),
    build_resumed: (e, w) => w.deck(e.deck) + ":山積みを続けます",
    build_done: (e, w) => w.deck(e.deck) + " 積み上がり:" + e.per_track.reduce((a, b) => a + b, 0) + "枚" +
      (e.ok ? "" : " — 数が合いません"),
    build_failed: (e, w) => w.deck(e.deck) + ":山積みが止まりました",
    hand_over: (e, w) => "局の交代:" + w.deck(e.raising) + "が上がります" +
      (e.dropping ? "、" + w.deck(e.dropping) + "は中へ" : ""),
    hand: (e, w) => w.hand(e) + "が" + w.deck(e.deck) + "で始まりました",
    dice: (e, w) => w.hand(e) + "のサイコロ:" + e.dice.join(" + ") + " = " + e.total +
      "(" + (w.by[e.by] || w.by.api) + ")",
    fault: (e, w) => "エラー:" + w.faultTitle(e, w),
    fault_recovered: () => "エラーから復旧しました",
    stopped: (e, w) => "停止:" + w.faultTitle(e, w),
    step_failed: () => "手順が止まりました。上の次の手順を見てください",
    session_ended: (e) => "セッション" + e.session + ({ ended: "終了", aborted: "中止",
      failed: "エラーで終了" }[e.how] || "終了"),
    link: (e) => "卓:" + ({ connected: "接続しました", up: "接続しました", reset: "再起動しました",
      disconnected: "切断されました", lost: "切断されました" }[e.what] || "通信の変化"),
    abort_pending: () => "中止:卓の確認待ち",
    abort_confirmed: () => "卓が中止を確認しました",
    emptied: () => "すべての牌が卓上にあります",
    collect: () => "すべての牌を洗牌機に集めています",
    resplit: (e, w) => w.hand(e) + "の前に両方のデッキを分け直します",
    swap: (e, w) => w.hand(e) + "の前にデッキを入れ替えます",
    drain: () => "洗牌機の牌を山にしています",
    game: (e) => "半荘" + e.game + "が始まりました",
    button: (e) => (e.button === "dice" ? "卓のサイコロボタン" : "卓のスタートボタン") +
      (e.taken ? ":受け付けました" : ":今はできません"),
  },
  historyNone: "これまでのセッションはありません。",
  historyLine: (h, hands, w) => "セッション" + h.id + ":" + w.rulesetLabel(w, h.ruleset) +
    (h.mixed_deck ? "、ミックスデッキ" : "") + " — " + ({ ended: "終了", aborted: "中止",
      failed: "エラーで終了", open: "進行中" }[h.state] || "終了") + "、半荘" +
    (h.games || []).length + "回、" + (hands ? "記録" + hands + "局" : "点数の記録なし"),
  historyGame: (g, sc, w) => "半荘" + g.game + ":" + (!sc ? "点数の記録なし" : sc.error ? sc.error
    : (sc.ended ? "終局" : "途中") + "、記録" + sc.hands + "局 — " +
      (sc.placement || Object.keys(sc.players)).map((k, i) => (sc.placement
        ? w.score.ordinal(i + 1) + " " : "") + w.seatName(sc, k, w) + " " +
        w.score.pts(sc.players[k].points) + "点").join(" · ")),
  language: "言語",
  chime: "卓が人を呼ぶときや止まったときに音と振動で知らせる",
  arm: "タップして音を出せるようにする",
  awake: "このページを開いている間は画面を消さない",
  awakeNote: {
    held: "画面はつけたままになります。",
    insecure: "このブラウザが画面をつけたままにできるのは https で開いたページだけです。代わりに端末の設定で自動ロックを切ってください。",
    unsupported: "このブラウザは画面をつけたままにできません。代わりに端末の設定で自動ロックを切ってください。",
    refused: "端末が画面をつけたままにすることを許しませんでした(省電力モード?)。代わりに端末の設定で自動ロックを切ってください。",
  },
  offerText: "卓に置いた端末は画面が消え、音も鳴りません。この端末で知らせを受け、画面をつけたままにしますか?(「このブラウザ」でいつでも変えられます)",
  offerChime: "音と振動",
  offerAwake: "画面をつけたまま",
  offerNo: "今はしない",
  pairLabel: "ペアリングコード",
  pairButton: "このブラウザをペアリング",
  pairNeeded: "このブラウザは卓を見られますが操作できません。ペアリング済みの端末の「別の端末をペアリング」で出したコードか、卓のホストに表示されたコードを入力してください。",
  paired: "このブラウザはペアリング済みです。卓を操作できます。",
  pairedNow: "ペアリングしました。このブラウザで卓を操作できます。",
  forgetButton: "このブラウザのペアリングを解除",
  forgotten: "このブラウザのペアリングを解除しました。",
  inviteButton: "別の端末をペアリング",
  inviteDone: "閉じる",
  inviteNote: (min) => "別の端末のカメラでこのコードを読み取るか、その端末でこのページを開いてコードを入力してください。" +
    "有効なのは一度だけ、" + min + "分間です。",
  kioskLink: "卓の表示(卓のそばのタブレット用)",
  fullLink: "ページ全体",
  footer: "jantaku · 卓のページ(デーモンが提供)· API: ",
};

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
