"use strict";
// The table's page: a live view of GET /status and GET /events (docs/API.md "The page").
// Plain JavaScript, no build step, nothing from another origin. Words: words.js.
//
// What it shows comes from the daemon's one status: `next` (a code: the headline and the
// primary button), `can` (which buttons are offered: exactly those), `fault` (the banner)
// and `state` (the time cues). The page never decides on its own what the table accepts.
(function () {
  const W = window.JANTAKU_WORDS;
  const SVG_NS = "http://www.w3.org/2000/svg";
  const LOG_KEEP = 12;
  // the page's commands and their routes, made by the daemon from its one list
  // (hostd/core/commands.py: /page/commands.js)
  const COMMANDS = window.JANTAKU_COMMANDS || {};
  const EVERYDAY = ["hand_over", "dice", "continue", "clear_fault"];
  const APART = ["game_new", "end", "abort"];  // destructive: apart, confirmed in the page
  // codes where the table asks people to do something now (the chime)
  const ASKS = new Set(["push_all", "push_rest", "mixer_short", "push_missed", "clear_top",
    "find_stray", "stopped", "table_fault", "return_test_tiles", "push_other_set",
    "push_walls_back", "name_sets", "hold_test_rod"]);
  const PUSH = new Set(["push_all", "push_rest", "mixer_short", "return_test_tiles",
    "push_other_set", "push_walls_back"]);
  // back colours drawn in shades at least 3:1 against an empty slot, blue and green apart in
  // lightness too (docs/API.md "The page"); any other CSS colour name is drawn as itself
  const SHADES = {
    light: { blue: "#163a8c", green: "#2f9450", red: "#c62828", yellow: "#8c6d00",
      orange: "#c25e0a", black: "#222222", white: "#f4f1e8", grey: "#707070", gray: "#707070",
      purple: "#7b3fb8", pink: "#c2407f", brown: "#7a4a20" },
    dark: { blue: "#5b7fe0", green: "#9ae6a8", red: "#ff7a7a", yellow: "#f2d24b",
      orange: "#ffa55c", black: "#bdbdbd", white: "#f4f1e8", grey: "#a8a8a8", gray: "#a8a8a8",
      purple: "#c39bff", pink: "#ff9ccc", brown: "#d2a272" },
  };
  // events after which GET /status is asked again (the others change nothing it shows)
  const QUIET = new Set(["tile", "build_progress", "build_health", "lift_stroke", "hello",
    "table_state"]);

  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  };
  const kiosk = new URLSearchParams(window.location.search).get("view") === "table";

  const P = {
    status: null,     // the last GET /status, with the `state` events laid over it
    seq: 0,           // the state's seq the page shows
    rulesets: {},     // name -> summary (GET /rulesets)
    live: false,      // the event stream is open
    retryAt: null,    // when the page tries the event stream again (it was refused)
    paired: null,     // GET /pair: may this browser press?
    sending: null,    // the command being sent
    answer: null,     // {text, bad, at: the seq it was shown at}
    lastAnswer: null, // {cmd, status, code, text}: for the browser tests
    build: null,      // {id, deck, targets, tracks: [[colour]], done, ok, failed, joined}
    pace: null,       // {build, t0, n0}: how fast the build in view goes
    lastRate: null,   // tiles a second of the last build seen whole
    throw: null,      // the hand's throw from its event
    skew: 0,          // the host's clock minus this browser's, seconds
    log: [],
    history: null,
    chimeOn: false,
    awakeOn: false,      // keep the screen on (this browser's choice)
    awakeState: "",      // held, refused, insecure, unsupported; "" when not asked
    wake: null,          // the screen wake lock while held
    audio: null,
    seen: { events: 0, tiles: 0 },  // what this page took in (the tests, bench/page_load.py)
  };
  window.jantakuPage = P;
  P.deadStacks = (t, S) => Array.from(deadStacks(t, S));
  P.offered = () => offered();
  P.commands = Object.keys(COMMANDS);

  // -- rendering, at most once a frame --------------------------------------------------------
  let scheduled = false;
  function render() {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      renderNow();
      renderTableNow();
      renderFault();
      renderScore();
      renderControls();
      renderBuildTitle();
      renderDecks();
      renderLog();
      renderHistory();
      renderSettings();
      reveal();
    });
  }

  // The page is drawn whole once the status and the pairing are known (or after 2 s): the
  // cards do not shift as they fill in.
  let revealed = false;
  function reveal() {
    if (revealed || !(P.status && P.paired !== null)) return;
    revealed = true;
    document.body.classList.remove("loading");
  }
  setTimeout(() => { if (!revealed) { revealed = true; document.body.classList.remove("loading"); } }, 2000);

  // Code spans in a sentence (an unknown refusal's `code`) become <code>.
  function setSentence(node, text) {
    const key = String(text || "");
    if (node.dataset.said === key) return;
    node.dataset.said = key;
    node.textContent = "";
    key.split("`").forEach((part, i) => {
      if (!part) return;
      node.appendChild(i % 2 ? el("code", null, part) : document.createTextNode(part));
    });
  }
  function setText(node, text) {
    if (node.textContent !== text) node.textContent = text;
  }

  function words() {
    const st = P.status;
    if (!st || !st.next) return { head: W.connecting, more: "" };
    const f = W.next[st.next.code];
    if (!f) return { head: st.next.code, more: "" };
    return f(st.next.params || {}, W);
  }

  function tableDown() {
    const st = P.status;
    return !!(st && st.next && (st.next.code === "table_disconnected" ||
                                st.next.code === "table_cannot_start"));
  }

  // -- the top: headline, time cue, the primary button -----------------------------------------
  function renderNow() {
    const st = P.status;
    let head = words().head;
    if (st && !P.live) head = W.offlineHead;
    setText($("headline"), head);
    const code = !P.live ? "page_offline" : (st && st.next && st.next.code) || "";
    document.body.dataset.code = code;
    // people are asked to push tiles into the open centre: a look of its own (not a fault's)
    document.body.classList.toggle("pushing", PUSH.has(code) || code === "clear_top" ||
      code === "push_missed");
    setText($("cue"), timeCue());
    paintCueBar();
    const live = $("live");
    setText(live, P.live ? W.live : W.offline);
    live.className = "badge " + (P.live ? "on" : "off");
    const arm = $("arm");
    arm.hidden = !(P.chimeOn && !(P.audio && P.audio.state === "running"));
    setText(arm, W.arm);
    renderPrimary();
    renderClasses();
  }

  // -- a calibration's reading: its two classes, and which set class 1 is (name_sets) ------
  function renderClasses() {
    const st = P.status, n = st && st.next, box = $("classes");
    const show = !!(P.live && n && n.code === "name_sets" && (st.can || []).includes("name_sets"));
    box.hidden = !show;
    $("name-other").hidden = !show;
    if (!show) return;
    const p = n.params || {}, list = $("classes-list");
    const key = JSON.stringify([p.classes, W.lang]);
    if (list.dataset.key !== key) {
      list.dataset.key = key;
      list.textContent = "";
      (p.classes || []).forEach((c) => {
        const item = el("span", "class-item");
        const sw = el("span", "swatch");
        sw.style.backgroundColor = c.swatch;  // what the colour sensors saw
        sw.setAttribute("aria-hidden", "true");
        item.append(sw, el("span", "", W.classLine(c, W)));
        list.append(item);
      });
    }
    const b = $("cmd-name_sets");
    setText(b, W.classIs((p.colours || [])[1], W));  // the primary button names the other way
    b.disabled = !!disabledWhy();
  }

  function primaryCommand() {
    const st = P.status, action = st && st.next && st.next.action;
    const cmd = action && COMMANDS[action] && (st.can || []).includes(action) ? action : null;
    // with a fault open, its one button is in the banner at the bottom (where the thumb is)
    if (cmd && cmd === faultCommand()) return null;
    return cmd;
  }

  // the open fault, as the banner shows it (none while the table or the page is away)
  function openFault() {
    const st = P.status;
    return st && P.live && !tableDown() ? st.fault || null : null;
  }

  // the command the fault's banner offers: its `action`, when the daemon takes it now
  function faultCommand() {
    const f = openFault(), st = P.status;
    const a = f && f.action;
    return a && COMMANDS[a] && (st.can || []).includes(a) ? a : null;
  }

  function primaryLabel(cmd) {
    const st = P.status, code = st && st.next && st.next.code;
    if (cmd === "start") return W.startAs(W.rulesetLabel(W, $("ruleset").value || "riichi"),
      $("mixed").checked);
    const own = W.primary[code];
    if (own && cmd === st.next.action) return typeof own === "function" ? own(st.next.params || {}, W) : own;
    return W.cmd[cmd];
  }

  function disabledWhy() {
    if (!P.live) return W.why.offline;
    if (P.paired === false) return W.why.unpaired;
    if (P.sending) return W.sendingNow(P.sending, sendingCode(), W);  // names what is sent
    return null;
  }
  function sendingCode() { return P.sendingCode || ""; }

  function renderPrimary() {
    const b = $("primary"), cmd = primaryCommand(), why = disabledWhy();
    const below = !cmd && !!openFault();  // the fault's own button is in its banner
    setText(b.querySelector(".label"), cmd ? primaryLabel(cmd) : below ? W.faultBelow : W.wait);
    setText(b.querySelector(".why"), cmd ? why || "" : below ? W.faultBelowWhy : "");
    $("start-quick").hidden = cmd !== "start";
    setText($("mixed-help"), W.start.mixedHelp);
    b.disabled = !cmd || !!why;
    b.dataset.cmd = cmd || "";
    b.classList.toggle("danger", !!cmd && APART.includes(cmd));
    // the start button submits the start form, wherever the form is
    if (cmd === "start") b.setAttribute("form", "start-form");
    else b.removeAttribute("form");
    b.type = cmd === "start" ? "submit" : "button";
  }

  // -- time cues: the push window's countdown, the build's time left --------------------------
  function hostNow() { return Date.now() / 1000 + P.skew; }

  function timeCue() {
    const st = P.status;
    const parts = [];
    if (st && P.live && st.state && st.next) {
      const p = st.state.params || {}, code = st.next.code;
      if (PUSH.has(code)) {
        parts.push(p.until ? W.closesIn(Math.max(0, p.until - hostNow()), W) : W.openUntilDone(W, code));
      } else if (code === "clear_top" && p.until) {
        parts.push(W.comeUpIn(Math.max(0, p.until - hostNow()), W));
      } else if (st.state.name === "building" && p.stage !== "push") {
        parts.push(buildLeftWords(p.deck));
      }
    }
    if (!P.live && P.status && P.retryAt) parts.push(W.retryIn((P.retryAt - Date.now()) / 1000, W));
    return parts.filter(Boolean).join(" · ");
  }

  // the push window's time left as a bar under its countdown (the share of the window left)
  function paintCueBar() {
    const st = P.status, cue = $("cue");
    const p = st && st.state && st.state.params || {}, code = st && st.next && st.next.code;
    let left = null;
    if (P.live && p.until && (PUSH.has(code) || code === "clear_top") && st.state.since) {
      const whole = p.until - st.state.since;
      if (whole > 0) left = Math.max(0, Math.min(1, (p.until - hostNow()) / whole));
    }
    cue.classList.toggle("bar", left !== null);
    cue.style.setProperty("--left", left === null ? "0" : left.toFixed(3));
  }

  function buildLeftWords(deck) {
    const b = P.build;
    deck = deck || (b && b.deck);
    if (!b || b.done || b.failed) return W.buildCounting;
    const have = b.tracks.reduce((a, t, k) => a + counted(k), 0);
    const want = b.targets.reduce((a, n) => a + n, 0);
    let rate = null;
    const pace = P.pace;
    if (pace && pace.build === b.id) {
      const dt = (Date.now() - pace.t0) / 1000, dn = have - pace.n0;
      if (dt >= 1 && dn >= 6) rate = dn / dt;
    }
    rate = rate || P.lastRate;
    if (!rate || want <= have) return W.buildCounting;
    return W.buildLeft((want - have) / rate, deck, W);
  }

  let cueTimer = null;
  function tick() {  // once a second while a time cue runs
    const cue = timeCue();
    setText($("cue"), cue);
    paintCueBar();
    if (!cue && cueTimer) { clearInterval(cueTimer); cueTimer = null; }
  }
  function cueSoon() {
    if (!cueTimer && timeCue()) cueTimer = setInterval(tick, 1000);
  }

  // -- under the top: why and how, the break and the walls on the table top -----------------
  function renderTableNow() {
    const st = P.status;
    let more = words().more;
    if (st && !P.live) more = W.offlineMore;
    setSentence($("more"), more);
    renderTop();
  }

  function sessionHand() {
    const s = P.status && P.status.session;
    return s ? { hand: s.hand, game: s.game, game_hand: s.game_hand } : {};
  }

  function renderTop() {
    const s = P.status && P.status.session, box = $("diagram");
    const onTop = !!s && Object.keys(s.decks || {}).some((d) => s.decks[d].where === "top") &&
      s.hand > 0 && s.game_hand !== 0;
    const t = onTop ? currentThrow() : null;
    const view = seatView(t);
    const line = $("break") || $("break-wait");
    // #break is there only once thrown: the one line, the diagram right under it
    line.id = t ? "break" : "break-wait";
    setText(line, t ? (view.turned ? W.breakSeen(t, view.breaker, W) : W.breakLine(t, W))
      : onTop ? W.breakWait(sessionHand(), W) : W.noWallsUp);
    const extra = t ? [W.deadLine(t.dead_wall_tiles), t.double ? W.doubleLine : "",
      t.breaker_is_dealer ? W.breakerIsDealer : "", view.mine && !view.turned ? W.turnNeedsResult : ""]
      .filter(Boolean).join(" ") : "";
    setText($("dead"), extra);
    renderSide();
    const f = P.status && P.status.fault;
    const key = JSON.stringify([t, onTop, stacksPerWall(), W.lang, view, tracksBySide(),
      f && f.track]);
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.textContent = "";
    box.appendChild(tableSvg(t, onTop, view));
    box.dataset.turned = view.turned ? "1" : "";
  }

  // -- each phone at its seat: the drawing turned so that this phone's wall is at the bottom --
  // Sides are seen from the game's first thrower (docs/SCORING.md "At the table"); a throw's
  // seats are seen from that hand's thrower. This phone's side: its player's `side` in the
  // ledger, else the side chosen before any ledger (kept in this browser).
  const SIDE_KEY = "jantaku.side";
  P.side = null;
  try { P.side = window.localStorage.getItem(SIDE_KEY) || null; } catch (err) { /* */ }
  const turn = (a, b) => SEATS[(SEATS.indexOf(a) + SEATS.indexOf(b)) % 4];      // b seen from a
  const from = (x, m) => SEATS[(SEATS.indexOf(x) - SEATS.indexOf(m) + 4) % 4];  // x seen from m

  function ledgerPlayers() {
    const st = scoreState();
    return st && st.players && WINDS.every((k) => st.players[k] && st.players[k].side) ? st : null;
  }
  function mySide() {
    const st = ledgerPlayers(), me = mySeat();
    if (st && me) return st.players[me].side;
    return SEATS.includes(P.side) ? P.side : null;
  }
  function playerAt(st, side) { return st ? WINDS.find((k) => st.players[k].side === side) : null; }

  // the hand's thrower, as a side: the game's first thrower in its first hand, else the
  // player the throw names (while the ledger is at this hand), else not known
  function throwerSide(t) {
    const st = ledgerPlayers(), s = P.status && P.status.session;
    if (t && t.thrower_player && st && st.players[t.thrower_player.player]) {
      return st.players[t.thrower_player.player].side;
    }
    if (s && s.game_hand === 1) return "self";
    return null;
  }

  // {mine: this phone's side, turned: the drawing is turned to it, shift: where the
  // thrower's wall is drawn, labels: each drawn side's words, breaker: who breaks}
  function seatView(t) {
    const mine = mySide(), st = ledgerPlayers();
    const thrower = t ? throwerSide(t) : mine;
    const view = { mine: mine, turned: !!(mine && thrower), shift: "self", labels: null, breaker: null,
      thrower: thrower || null };
    if (!view.turned) return view;
    view.shift = from(thrower, mine);
    view.labels = {};
    SEATS.forEach((at) => {  // at: a side as drawn (self: this phone's, at the bottom)
      const k = playerAt(st, turn(mine, at));
      view.labels[at] = at === "self" ? W.you : k ? W.wallOf(st, k, W) : W.seatFromMe[at];
    });
    if (t) {
      // the breaker as the daemon names them for this hand (their wind in it), never from
      // the ledger's state now: a result entered before "Hand over" moves the winds, not
      // the walls standing (docs/SCORING.md "The break by player")
      const at = from(turn(thrower, t.breaker), mine), bp = t.breaker_player;
      view.breaker = { at: at, who: bp ? W.playerName(bp, W) : null };
    }
    return view;
  }

  // The table's tracks on the drawing: the board profile's track_sides say where each
  // track's wall comes up, seen from the table's front (the side with its buttons), which
  // the page takes to be the game's first thrower's seat (docs/FIRMWARE.md §3).
  const FRONT = { front: "self", right: "right", back: "across", left: "left" };
  function tracksBySide() {  // side seen from the first thrower -> [track numbers], or null
    const tb = P.status && P.status.table, sides = tb && tb.track_sides;
    if (!sides || !sides.length) return null;
    const out = {};
    sides.forEach((s, i) => { (out[FRONT[s]] = out[FRONT[s]] || []).push(i + 1); });
    return out;
  }
  // where a track's wall is: {abs: seen from the first thrower, mine: seen from this
  // phone (null when the phone has not said where it sits)}, or null (not known)
  function trackSide(track) {
    const tb = P.status && P.status.table, sides = tb && tb.track_sides;
    const s = sides && sides[track - 1];
    if (!s) return null;
    const mine = mySide();
    return { abs: FRONT[s], mine: mine ? from(FRONT[s], mine) : null };
  }

  // Where this phone sits, until it has chosen: the players as every screen names them
  // once the game's ledger places them (the same choice as the score card's "I am"), else
  // (no session yet) the seats as the table's first thrower sees them
  function renderSide() {
    const row = $("side-row"), st = ledgerPlayers();
    row.hidden = kiosk || !!(st && mySeat());
    setText($("side-label"), W.sideLabel);
    const sel = $("side");
    const view = st ? Object.assign({}, scoreState() || st, { me: null }) : null;
    const key = JSON.stringify([W.lang, view && WINDS.map((k) => W.seatName(view, k, W))]);
    if (sel.dataset.key !== key) {
      sel.dataset.key = key;
      sel.textContent = "";
      sel.dataset.players = st ? "1" : "";
      const none = el("option", null, W.sideChoice[""]);
      none.value = "";
      sel.appendChild(none);
      (st ? WINDS : SEATS).forEach((v) => {
        const o = el("option", null, st ? W.score.seatOption(view, v, W) : W.sideChoice[v]);
        o.value = v;
        sel.appendChild(o);
      });
    }
    if (sel !== document.activeElement) sel.value = st ? "" : SEATS.includes(P.side) ? P.side : "";
  }
  function setSide(value) {
    const st = ledgerPlayers();
    if (st && WINDS.includes(value)) { setSeat(value); return; }  // a player: its seat
    P.side = SEATS.includes(value) ? value : null;
    try { window.localStorage.setItem(SIDE_KEY, P.side || ""); } catch (err) { /* */ }
    // with a ledger, the side chosen is its player's seat
    const k = P.side ? playerAt(st, P.side) : null;
    if (k) setSeat(k);
    render();
  }

  function throwFrom(x, fallbackDeck) {
    if (!x || !x.dice || !x.dice.length) return null;  // the hand's walls are up, no throw yet
    const s = P.status && P.status.session;
    const rs = s && P.rulesets[s.ruleset];
    const total = x.total !== undefined ? x.total : x.dice.reduce((a, b) => a + b, 0);
    return {
      hand: x.hand, deck: x.deck || fallbackDeck || null, dice: x.dice, total: total,
      breaker: x.breaker,
      break_from_right: x.break_from_right !== undefined ? x.break_from_right : total,
      unit: x.unit || (rs && rs.break && rs.break.unit) || "stacks",
      dead_wall_tiles: x.dead_wall_tiles !== undefined ? x.dead_wall_tiles
        : (rs ? rs.dead_wall_tiles : 14),
      double: x.double !== undefined ? x.double
        : (x.dice.length === 2 && x.dice[0] === x.dice[1] && rs && rs.dice_double_multiplier > 1),
      by: x.by || null,
      breaker_is_dealer: !!x.breaker_is_dealer,
      thrower_player: x.thrower_player || null,
      breaker_player: x.breaker_player || null,
    };
  }

  // The throw of the hand in play: status.session.dice, else the hand's dice event.
  function currentThrow() {
    const s = P.status && P.status.session;
    if (!s) return null;
    const topDeck = Object.keys(s.decks || {}).find((d) => s.decks[d].where === "top");
    if (s.dice && s.dice.hand === s.hand) return throwFrom(s.dice, topDeck);
    if (P.throw && P.throw.hand === s.hand && P.throw.session === s.id) return P.throw;
    return null;
  }

  function stacksPerWall() {
    const s = P.status && P.status.session;
    const rs = s && P.rulesets[s.ruleset];
    if (rs && rs.stacks_per_wall) return rs.stacks_per_wall;
    const b = P.build;
    return b && b.targets[0] ? Math.ceil(b.targets[0] / 2) : 17;
  }

  // Seats in the order of play (counter-clockwise seen from above), the thrower at the
  // bottom. A wall's right end (seen by the player behind it) is the end next to the
  // following seat; stacks are numbered from there (1 = rightmost).
  const SEATS = ["self", "right", "across", "left"];

  function tableSvg(t, onTop, view) {
    view = view || { turned: false, shift: "self" };
    const S = stacksPerWall(), size = 100, m = 14, len = size - 2 * m, w = len / S;
    const svg = document.createElementNS(SVG_NS, "svg");
    svg.setAttribute("viewBox", "0 0 " + size + " " + size);
    svg.setAttribute("class", "table-svg" + (onTop ? "" : " empty"));
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", view.turned ? W.tableSvgMine(t, view.breaker, W)
      : onTop ? W.tableSvg(t, W) : W.noWallsUp);
    const add = (parent, tag, attrs, text) => {
      const n = document.createElementNS(SVG_NS, tag);
      Object.keys(attrs).forEach((a) => n.setAttribute(a, attrs[a]));
      if (text !== undefined) n.textContent = text;
      parent.appendChild(n);
      return n;
    };
    add(svg, "rect", { x: 1, y: 1, width: size - 2, height: size - 2, rx: 3, class: "felt" });
    const dead = deadStacks(t, S), bySide = tracksBySide();
    const f = P.status && P.status.fault, faultTrack = f && f.track;
    SEATS.forEach((seat) => {  // seat: seen from the thrower; at: where it is drawn
      const at = turn(view.shift, seat);
      // this wall's side seen from the game's first thrower, when known: its tracks
      const abs = view.turned ? turn(view.mine, at) : view.thrower ? turn(view.thrower, seat) : null;
      const tracks = bySide && abs ? bySide[abs] || [] : [];
      const g = add(svg, "g", { class: "wall-top" + (t && t.breaker === seat ? " breaker" : "") +
        (view.turned && at === "self" ? " mine" : "") });
      g.dataset.seat = seat;
      g.dataset.at = at;
      // position of stack n (1 = right end) along this side, as [x, y, width, height]
      const pos = (n) => {
        const d = (n - 1) * w;
        if (at === "self") return [size - m - d - w, size - m + 1, w, 6];   // right end at the right
        if (at === "right") return [size - m + 1, m + d, 6, w];               // right end at the top
        if (at === "across") return [m + d, m - 7, w, 6];                     // right end at the left
        return [m - 7, size - m - d - w, 6, w];                               // left: right end at the bottom
      };
      for (let n = 1; n <= S; n++) {
        const [x, y, ww, hh] = pos(n);
        const r = add(g, "rect", { x: x + 0.25, y: y + 0.25, width: ww - 0.5, height: hh - 0.5, rx: 0.6,
          class: "stack-top" + (dead.has(seat + ":" + n) ? " dead" : "") });
        r.dataset.stack = String(n);
      }
      const lx = { self: 50, right: size - m - 3, across: 50, left: m + 3 }[at];
      const ly = { self: size - m - 3, right: 50, across: m + 5, left: 50 }[at];
      const words = view.turned ? view.labels[at] + (t && seat === "self" ? " · " + W.throws : "")
        : W.seatShort[seat];
      const label = add(g, "text", { x: lx, y: ly, class: "seat", "text-anchor": "middle",
        transform: at === "right" ? "rotate(-90 " + lx + " " + ly + ")"
          : at === "left" ? "rotate(90 " + lx + " " + ly + ")" : "" }, words);
      label.dataset.seat = seat;
      // the track(s) under this wall, numbered as on the table, inside its middle
      tracks.forEach((k, i) => {
        const d = 50 + (i - (tracks.length - 1) / 2) * 7, e = m + 15;
        const [cx, cy] = { self: [d, size - e], right: [size - e, d], across: [d, e],
          left: [e, d] }[at];
        const mark = add(g, "g", { class: "track-mark" + (k === faultTrack ? " here" : "") });
        mark.dataset.track = String(k);
        add(mark, "title", {}, W.Track(k));
        add(mark, "circle", { cx: cx, cy: cy, r: 3 });
        add(mark, "text", { x: cx, y: cy + 1.3, "text-anchor": "middle" }, String(k));
      });
      if (tracks.length) g.dataset.tracks = tracks.join(",");
      if (t && t.breaker === seat) {
        g.dataset.breakFromRight = String(t.break_from_right);
        // the break: after the n-th stack from the right end (mid-stack for an odd tile count)
        const d = m + Math.min(t.unit === "tiles" ? t.break_from_right / 2 : t.break_from_right, S) * w;
        const line = {
          self: [size - d, size - m - 1, size - d, size - m + 9],
          right: [size - m - 1, d, size - m + 9, d],
          across: [d, m + 1, d, m - 9],
          left: [m + 1, size - d, m - 9, size - d],
        }[at];
        add(g, "line", { x1: line[0], y1: line[1], x2: line[2], y2: line[3], class: "break-line" });
      }
    });
    if (t) {
      add(svg, "text", { x: 50, y: 47, class: "dice", "text-anchor": "middle" }, t.dice.join(" + "));
      add(svg, "text", { x: 50, y: 57, class: "dice-total", "text-anchor": "middle" }, "= " + t.total);
    }
    return svg;
  }

  // The dead wall's stacks as "seat:n": the tiles from the break to the right, carried on
  // to the next wall counter-clockwise (its left end) when the break is near the corner.
  function deadStacks(t, S) {
    const out = new Set();
    if (!t) return out;
    const n = t.unit === "tiles" ? t.break_from_right : 2 * t.break_from_right; // in tiles
    const seatIdx = SEATS.indexOf(t.breaker);
    if (seatIdx < 0) return out;
    for (let p = n - t.dead_wall_tiles + 1; p <= n; p++) {  // tile positions from the right end
      let wall = seatIdx, q = p;
      while (q <= 0) { wall = (wall + 1) % 4; q += 2 * S; }   // past the right end: next seat's wall
      out.add(SEATS[wall] + ":" + Math.ceil(q / 2));
    }
    return out;
  }

  // -- the fault: a banner in view however the page is scrolled, there only while open -------
  // It holds the one button for the fault's `action` (where the thumb is); the other commands
  // move behind its "More" (the controls card's buttons themselves, moved into it).
  P.faultMore = false;
  function renderFault() {
    const f = openFault();
    let box = $("fault");
    const root = document.documentElement;
    if (!f) {
      if (box) {
        homeCommands();
        box.remove();
      }
      P.faultMore = false;
      root.classList.remove("has-fault");
      return;
    }
    if (!box) {
      box = el("section", "fault");
      box.id = "fault";
      box.setAttribute("role", "alert");
      box.setAttribute("aria-labelledby", "fault-title");
      const title = el("h2");
      title.id = "fault-title";
      const todo = el("p");
      todo.id = "fault-todo";
      const where = el("div", "fault-where");
      where.id = "fault-where";
      const count = el("p", "small");
      count.id = "fault-count";
      const row = el("div", "fault-row");
      row.id = "fault-row";
      const go = el("button", "fault-do");
      go.type = "button";
      go.id = "fault-do";
      go.addEventListener("click", () => { if (go.dataset.cmd) press(go.dataset.cmd, go); });
      const more = el("button", "fault-more");
      more.type = "button";
      more.id = "fault-more";
      more.setAttribute("aria-controls", "fault-extra");
      more.addEventListener("click", () => { P.faultMore = !P.faultMore; render(); });
      row.append(go, more);
      const extra = el("div", "fault-extra");
      extra.id = "fault-extra";
      extra.hidden = true;
      box.append(title, todo, where, count, row, extra);
      document.body.appendChild(box);
      root.classList.add("has-fault");
    }
    // the other commands: the controls card's own buttons, behind "More"
    const cmds = $("cmds"), extra = $("fault-extra");
    if (cmds.parentNode !== extra) extra.appendChild(cmds);
    $("cmds-moved").hidden = false;
    setText($("cmds-moved"), W.cmdsMoved);
    box.dataset.kind = f.kind || "";
    box.dataset.track = f.track ? String(f.track) : "";
    setText($("fault-title"), W.faultLabel + ": " + W.faultTitle(f, W));
    setText($("fault-todo"), W.faultTodo(f, W));
    setText($("fault-count"), faultCount(f));
    renderTrackMap(f);
    const cmd = faultCommand(), why = disabledWhy(), go = $("fault-do");
    go.hidden = !cmd;
    go.dataset.cmd = cmd || "";
    go.disabled = !!why;
    setText(go, cmd ? (why && P.sending ? why : W.cmd[cmd]) : "");
    const others = Array.from(cmds.querySelectorAll("[data-cmd]")).some((b) => !b.hidden);
    const more = $("fault-more");
    more.hidden = !others;
    more.setAttribute("aria-expanded", String(P.faultMore));
    setText(more, P.faultMore ? W.fewer : W.more);
    extra.hidden = !P.faultMore || !others;
    // as much room below the page as the banner takes (it covers nothing for good)
    root.style.setProperty("--fault-h", Math.ceil(box.getBoundingClientRect().height) + "px");
  }

  function homeCommands() {  // the commands go back into the controls card
    const cmds = $("cmds"), answer = $("answer");
    if (answer.closest("#fault")) $("everyday").after(answer);  // it outlives the banner
    if (cmds.parentNode !== $("controls")) $("cmds-moved").after(cmds);
    $("cmds-moved").hidden = true;
  }

  // where the fault's track is: the table's tracks in a row, numbered, this one marked
  function renderTrackMap(f) {
    const box = $("fault-where"), tb = P.status && P.status.table && P.status.table.build;
    const n = (tb && tb.targets && tb.targets.length) || (P.build && P.build.targets.length) || 4;
    const side = f.track ? trackSide(f.track) : null;
    const key = JSON.stringify([f.track, n, W.lang, side]);
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.textContent = "";
    box.hidden = !f.track;
    if (!f.track) return;
    const row = el("span", "track-map");
    row.setAttribute("aria-hidden", "true");
    for (let k = 1; k <= n; k++) {
      const cell = el("span", "tm" + (k === f.track ? " here" : ""), String(k));
      cell.dataset.track = String(k);
      row.appendChild(cell);
    }
    box.append(row, el("span", "small", W.trackWhere(f.track, n, W, side)));
  }

  // how far the build had come when it stopped (the table's counts)
  function faultCount(f) {
    const tb = P.status && P.status.table && P.status.table.build;
    if (!tb || !f.step || !tb.targets || !tb.per_track) return "";
    const want = tb.targets.reduce((a, n) => a + n, 0), have = tb.per_track.reduce((a, n) => a + n, 0);
    return want > 0 && have < want ? W.counted(have, want) : "";
  }

  // -- the controls: exactly what `can` holds ------------------------------------------------
  // offered: shown and enabled, or behind the fault banner's "More" (one tap away)
  function offered() {
    const out = new Set();
    const extra = $("fault-extra"), more = $("fault-more");
    const folded = !!(extra && extra.hidden && more && !more.hidden && more.offsetParent !== null);
    document.querySelectorAll("#primary, #fault-do, #everyday [data-cmd], #apart [data-cmd], #name-other [data-cmd]").forEach((b) => {
      const cmd = b.dataset.cmd;
      if (!cmd || b.disabled || b.hidden) return;
      if (b.offsetParent === null && !(folded && b.closest("[hidden]") === extra)) return;
      out.add(cmd === "dice_entered" ? "dice" : cmd);
    });
    return Object.keys(COMMANDS).filter((c) => out.has(c));
  }

  function renderControls() {
    const st = P.status, can = new Set((st && st.can) || []), why = disabledWhy();
    const primary = primaryCommand();
    const paired = P.paired === true;
    setText($("controls-title"), W.controlsTitle);
    setText($("apart-title"), W.apartTitle);
    $("pair-form").hidden = paired || P.paired === null;
    setSentence($("pair-note"), P.paired === null ? "" : paired ? W.paired : W.pairNeeded);
    if (kiosk) {  // the table view pairs from its own screen: the form under its big button
      const form = $("pair-form"), note = $("pair-note");
      if (form.parentNode !== $("now")) $("now").append(note, form);
      note.hidden = paired;
    }
    $("start-form").hidden = !can.has("start");
    fillRulesets();
    fillColours();
    const inBanner = faultCommand();
    EVERYDAY.concat(APART).forEach((cmd) => {
      const b = $("cmd-" + cmd);
      setText(b, W.cmd[cmd]);
      b.hidden = !can.has(cmd) || cmd === primary || cmd === inBanner;
      b.disabled = !!why;
    });
    const entered = $("entered");
    entered.hidden = !can.has("dice");
    setText($("cmd-dice_entered"), W.cmd.dice_entered);
    $("cmd-dice_entered").disabled = !!why;
    $("dice-faces").disabled = !!why;
    $("apart").hidden = !APART.some((c) => can.has(c) && c !== primary && c !== inBanner);
    const a = $("answer");
    if (P.answer && P.answer.at !== undefined && P.answer.at < P.seq) P.answer = null;
    a.className = P.answer ? (P.answer.sending ? "sending" : P.answer.bad ? "refused" : "done") : "";
    setSentence(a, P.answer ? P.answer.text : "");
    placeAnswer();
  }

  // Every answer is shown next to the control that was pressed (the banner's button, the
  // big one at the top, a row's button, the pairing form), not in one place for all.
  function placeAnswer() {
    const a = $("answer"), ctl = P.answer && P.answer.control ? $(P.answer.control) : null;
    let after = null;
    if (ctl && ctl.isConnected && !ctl.hidden) {
      after = ctl.id === "fault-do" ? $("fault-row") : ctl.id === "pair-button" ? $("pair-form") : ctl;
    } else if (ctl && ctl.id === "fault-do" && $("fault-row")) {
      after = $("fault-row");
    }
    if (!after) after = $("everyday");
    if (a.previousElementSibling !== after || a.parentNode !== after.parentNode) after.after(a);
    a.dataset.at = after.id || "";
  }

  let rulesetKey = "";
  function fillRulesets() {
    const sel = $("ruleset"), names = Object.keys(P.rulesets).sort();
    const key = names.join() + W.lang;
    if (key === rulesetKey) return;
    rulesetKey = key;
    const keep = sel.value || (names.includes("riichi") ? "riichi" : names[0]);
    sel.textContent = "";
    names.forEach((n) => {
      const rs = P.rulesets[n];
      const o = el("option", null, W.rulesetLabel(W, n));
      o.value = n;
      if (rs.table && rs.table.can_build === false) o.disabled = true;
      sel.appendChild(o);
    });
    if (keep && names.includes(keep)) sel.value = keep;
  }

  // the two sets' back colours: the table's colour classes (table.identity.colours), no
  // free text; blank is the table's own default
  let coloursKey = "";
  function fillColours() {
    const st = P.status, id = st && st.table && st.table.identity;
    const known = ((id && id.colours) || []).filter((c) => c && c !== "unknown");
    const key = JSON.stringify([known, W.lang]);
    if (key === coloursKey) return;
    coloursKey = key;
    ["colour-a", "colour-b"].forEach((sid, i) => {
      const sel = $(sid), keep = sel.value;
      sel.textContent = "";
      const none = el("option", null, W.start.colourDefault(known[i], W));
      none.value = "";
      sel.appendChild(none);
      known.forEach((c) => {
        const o = el("option", null, W.colourName(W, c));
        o.value = c;
        sel.appendChild(o);
      });
      sel.value = known.includes(keep) ? keep : "";
    });
  }

  function labelOf(cmd, button) {
    if (button && button.id === "primary") return button.querySelector(".label").textContent;
    return W.cmd[cmd];
  }

  async function send(cmd, body, label, control) {
    if (P.sending) return;
    const path = COMMANDS[cmd === "dice_entered" ? "dice" : cmd];
    P.sending = cmd;
    P.sendingCode = P.status && P.status.next ? P.status.next.code : "";
    control = control || null;
    // while it is on its way, the words name the command being sent
    P.answer = { text: W.sendingNow(cmd, P.sendingCode, W), sending: true, control: control };
    trail(P.answer.text);
    render();
    let answer;
    try {
      const r = await fetch(path, {
        method: "POST", cache: "no-store", credentials: "same-origin",
        headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}),
      });
      let data = null;
      try { data = await r.json(); } catch (err) { data = null; }
      if (r.ok) {
        answer = { text: W.done(label), bad: false };
        P.lastAnswer = { cmd: cmd, status: r.status, code: null, text: answer.text };
      } else {
        const err = (data && data.error) || { code: "http_" + r.status };
        if (err.code === "not_paired") P.paired = false;
        answer = { text: W.refusedAs(label, refusal(err, r.status, body)), bad: true };
        P.lastAnswer = { cmd: cmd, status: r.status, code: err.code, text: answer.text };
      }
    } catch (err) {
      answer = { text: W.refusedAs(label, W.unreachable), bad: true };
      P.lastAnswer = { cmd: cmd, status: 0, code: "unreachable", text: answer.text };
    }
    answer.at = P.seq;  // shown until the state changes
    answer.control = control;
    P.answer = answer;
    trail(answer.text);
    P.lastAnswer.n = (P.answers = (P.answers || 0) + 1);
    P.sending = null;
    refreshStatus();
    render();
  }

  // every answer the page showed, in order (the browser tests read it)
  P.trail = [];
  function trail(text) {
    P.trail.push(text);
    if (P.trail.length > 50) P.trail.shift();
  }

  // A refusal in the page's words, from its error code (docs/API.md "Errors").
  function refusal(err, status, body) {
    const st = P.status || {};
    const code = err.code || "";
    const ctx = {
      known: (st.table && st.table.identity && st.table.identity.colours) || [],
      sets: (body && body.colours) || (st.next && st.next.params && st.next.params.colours) ||
        ["blue", "green"],
      fault: st.fault,
      next: err.next && W.next[err.next.code] ? W.next[err.next.code](err.next.params || {}, W).head : null,
    };
    let f = W.refusal[code];
    if (!f && status === 409 && err.next) f = W.refusal.not_now;  // not in `can`: the state's name
    if (!f && code.startsWith("table_")) f = W.refusal.table;
    if (!f && code.startsWith("fault_")) f = W.refusal.table;
    if (!f && (status === 400 || status === 422 || status === 413 || status === 415)) f = W.refusal.bad_request;
    if (!f && status >= 500 && code !== "not_connected") f = W.refusal.internal;
    return (f || W.refusal.other)(err, W, ctx);
  }

  // -- destructive commands: confirmed inside the page --------------------------------------
  let pending = null;
  function confirmThen(cmd, label, control) {
    pending = { cmd: cmd, label: label, control: control };
    const d = $("confirm"), q = W.confirm[cmd];
    // a new game says what becomes of the game's scores and what is left on the table
    setText($("confirm-text"), typeof q === "function" ? q(scoreState(), W) : q);
    $("confirm-empty-box").hidden = cmd !== "end";
    $("confirm-empty").checked = false;
    setText($("confirm-empty-label"), W.confirm.endEmpty);
    setText($("confirm-no"), cmd === "hand_over" ? W.confirm.notYet : W.confirm.no);
    setText($("confirm-yes"), W.confirm.yes[cmd]);
    $("confirm-yes").classList.toggle("danger", APART.includes(cmd));
    d.dataset.cmd = cmd;
    if (typeof d.showModal === "function") d.showModal();
    else d.setAttribute("open", "");
    $("confirm-no").focus();  // the safe answer is the one a stray Enter gives
  }

  function closeConfirm(yes) {
    const d = $("confirm"), p = pending;
    pending = null;
    if (typeof d.close === "function") d.close();
    else d.removeAttribute("open");
    if (!yes || !p) return;
    const body = p.cmd === "end" && $("confirm-empty").checked ? { empty: true } : {};
    send(p.cmd, body, p.label, p.control);
  }

  function press(cmd, button) {
    const label = labelOf(cmd, button), control = button && button.id ? button.id : null;
    if (cmd === "start") return startFromForm(label);
    if (cmd === "dice_entered") {
      const faces = $("dice-faces").value.split(/[\s,+]+/).filter(Boolean).map(Number);
      if (!faces.length || faces.some((n) => !Number.isInteger(n) || n < 1)) {
        P.answer = { text: W.badDice, bad: true, at: P.seq, control: control };
        render();
        return;
      }
      $("dice-faces").value = "";
      return send("dice", { dice: faces }, label, control);
    }
    if (cmd === "name_sets") {  // class 1 is the first set (the primary button) or the other
      const sets = ((P.status.next || {}).params || {}).colours || [];
      const names = button && button.id === "cmd-name_sets" ? sets.slice().reverse() : sets;
      return send(cmd, { names: names }, label, control);
    }
    if (APART.includes(cmd)) return confirmThen(cmd, label, control);
    // a hand over while a hand is on the table top: its tiles go into the centre first
    if (cmd === "hand_over" && handOnTop()) return confirmThen(cmd, label, control);
    send(cmd, {}, label, control);
  }

  // a hand is being played on the table top (its tiles are there until people push them in)
  function handOnTop() {
    const st = P.status, code = st && st.next && st.next.code;
    return !!(st && st.session && st.session.game_hand > 0 &&
      ["playing", "playing_building", "recovery_waits"].includes(code));
  }

  function startFromForm(label) {
    const body = { ruleset: $("ruleset").value, mixed_deck: $("mixed").checked };
    if (!body.mixed_deck && $("loaded").checked) body.loaded = true;
    // the back colours: chosen among those the table knows (blank: the table's own)
    const a = $("colour-a").value, b = $("colour-b").value;
    if (a || b) body.colours = [a || b, b || a];
    send("start", body, label || W.cmd.start, "primary");
  }

  // -- pairing --------------------------------------------------------------------------------
  let pairing = false;
  async function checkPaired() {
    if (pairing) return;  // the exchange under way says
    try {
      const r = await fetch("/pair", { cache: "no-store", credentials: "same-origin" });
      if (r.ok) { const p = !!(await r.json()).paired; if (!pairing) P.paired = p; }
    } catch (err) { /* the stream says the daemon is gone */ }
    render();
  }

  async function pair(code) {
    pairing = true;
    try {
      const r = await fetch("/pair", {
        method: "POST", cache: "no-store", credentials: "same-origin",
        headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code: code }),
      });
      let data = null;
      try { data = await r.json(); } catch (err) { data = null; }
      if (r.ok) {
        P.paired = true;
        P.answer = { text: W.pairedNow, bad: false, at: P.seq, control: "pair-button" };
        reopenStream();  // a stream opened unpaired leaves out what names people
        offerOnce();
      } else {
        const err = (data && data.error) || { code: "http_" + r.status };
        P.answer = { text: W.refusedAs(W.pairButton, refusal(err, r.status)), bad: true, at: P.seq,
          control: "pair-button" };
      }
    } catch (err) {
      P.answer = { text: W.refusedAs(W.pairButton, W.unreachable), bad: true, at: P.seq,
        control: "pair-button" };
    } finally {
      pairing = false;
    }
    render();
  }

  // this browser's pairing ends (a shared tablet handed back, a phone going home)
  async function forget() {
    try {
      const r = await fetch("/pair/forget", { method: "POST", cache: "no-store",
                                               credentials: "same-origin" });
      if (r.ok) {
        P.paired = false;
        P.answer = { text: W.forgotten, bad: false, at: P.seq, control: "forget" };
        reopenStream();
      }
    } catch (err) {
      P.answer = { text: W.refusedAs(W.forgetButton, W.unreachable), bad: true, at: P.seq, control: "forget" };
    }
    render();
  }

  // a paired phone makes a one-time code for the next one: shown as text and as a QR code
  // of the page's address with it (#pair=CODE), which that phone scans
  async function invite() {
    try {
      const r = await fetch("/pair/invite", { method: "POST", cache: "no-store",
                                               credentials: "same-origin" });
      let data = null;
      try { data = await r.json(); } catch (err) { data = null; }
      if (r.ok && data) {
        $("invite-code").textContent = data.code;
        const svg = new DOMParser().parseFromString(data.qr_svg, "image/svg+xml").documentElement;
        $("invite-qr").replaceChildren(document.importNode(svg, true));
        $("invite-note").textContent = W.inviteNote(Math.round(data.expires_in / 60));
        $("invite-box").hidden = false;
        // the code in view, wherever the button was
        requestAnimationFrame(() => $("invite-box").scrollIntoView({ block: "center" }));
      } else {
        const err = (data && data.error) || { code: "http_" + r.status };
        if (err.code === "invites_off") P.invitesOff = true;
        P.answer = { text: W.refusedAs(W.inviteButton, refusal(err, r.status)), bad: true, at: P.seq,
          control: "invite" };
      }
    } catch (err) {
      P.answer = { text: W.refusedAs(W.inviteButton, W.unreachable), bad: true, at: P.seq, control: "invite" };
    }
    render();
  }

  function takeFragment() {
    // a phone that scanned the host's QR code: #pair=CODE, spent at once and taken out of
    // the address bar (the code is good once: history keeps nothing usable)
    const m = /^#pair=([A-Za-z0-9-]{4,16})$/.exec(window.location.hash);
    if (window.location.hash) history.replaceState(null, "", window.location.pathname + window.location.search);
    if (m) pair(m[1]);
    return !!m;
  }

  // -- the chime: when the table asks for people, or stops ------------------------------------
  function chime() {
    if (!P.chimeOn) return;
    try { if (navigator.vibrate) navigator.vibrate([180, 90, 180]); } catch (err) { /* */ }
    const a = P.audio;
    if (!a || a.state !== "running") return;  // the page asks for a tap first (#arm)
    [0, 0.22].forEach((at, i) => {
      const o = a.createOscillator(), g = a.createGain();
      o.frequency.value = i ? 880 : 660;
      g.gain.setValueAtTime(0.0001, a.currentTime + at);
      g.gain.exponentialRampToValueAtTime(0.2, a.currentTime + at + 0.02);
      g.gain.exponentialRampToValueAtTime(0.0001, a.currentTime + at + 0.18);
      o.connect(g).connect(a.destination);
      o.start(a.currentTime + at);
      o.stop(a.currentTime + at + 0.2);
    });
    P.chimes = (P.chimes || 0) + 1;
  }

  function arm() {  // browsers let a page sound only after a tap on it
    if (!P.chimeOn) return;
    try {
      if (!P.audio) P.audio = new (window.AudioContext || window.webkitAudioContext)();
      if (P.audio.state !== "running") P.audio.resume().then(render, () => {});
    } catch (err) { /* no sound on this browser: vibration only */ }
    render();
  }

  // -- keeping the screen on (the Wake Lock API): a phone lying on the table would sleep
  // through the table's asks. Browsers drop the lock whenever the page is hidden, so it is
  // taken again each time the page is shown; they grant it only to a secure page (https,
  // or this computer's own address).
  async function keepAwake() {
    if (!P.awakeOn) {
      const held = P.wake;
      P.wake = null;
      P.awakeState = "";
      if (held) { try { await held.release(); } catch (err) { /* gone already */ } }
      render();
      return;
    }
    if (!navigator.wakeLock) {
      P.awakeState = window.isSecureContext ? "unsupported" : "insecure";
    } else if (document.visibilityState === "visible" && !P.waking && !(P.wake && !P.wake.released)) {
      P.waking = true;  // one request at a time: a second would leave a lock none releases
      try {
        const lock = await navigator.wakeLock.request("screen");
        P.wake = lock;
        P.awakeState = "held";
        lock.addEventListener("release", () => {
          if (P.wake === lock) { P.wake = null; P.awakeState = ""; render(); }
        });
        if (!P.awakeOn) keepAwake();  // turned off while it was being asked for
      } catch (err) {
        P.awakeState = "refused";
      } finally {
        P.waking = false;
      }
    }
    render();
  }

  function setAwake(on) {
    P.awakeOn = on;
    $("awake").checked = on;
    try { window.localStorage.setItem("jantaku.awake", on ? "on" : "off"); } catch (err) { /* */ }
    keepAwake();
  }

  function setChime(on) {
    P.chimeOn = on;
    $("chime").checked = on;
    try { window.localStorage.setItem("jantaku.chime", on ? "on" : "off"); } catch (err) { /* */ }
    arm();
  }

  // offered once, when this browser has just paired: sound and a screen that stays on
  function offerOnce() {
    let offered = false;
    try { offered = window.localStorage.getItem("jantaku.offered") === "1"; } catch (err) { /* */ }
    if (offered || (P.chimeOn && P.awakeOn)) return;
    try { window.localStorage.setItem("jantaku.offered", "1"); } catch (err) { /* */ }
    $("offer-chime").hidden = P.chimeOn;
    $("offer-awake").hidden = P.awakeOn;
    $("offer").hidden = false;
  }

  function offerTaken(which) {
    if (which === "chime") setChime(true);
    if (which === "awake") setAwake(true);
    $("offer-" + which).hidden = true;
    if (which === "no" || ($("offer-chime").hidden && $("offer-awake").hidden)) $("offer").hidden = true;
  }

  // -- the walls inside: one cell per tile, drawn as its TILE event comes ---------------------
  const dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  function colourCss(name) {
    if (!name || name === "unknown" || name === "counted") return null;
    const key = name.toLowerCase(), shades = SHADES[dark ? "dark" : "light"];
    if (shades[key]) return shades[key];
    return window.CSS && CSS.supports("color", key) ? key : null;
  }

  // each set's own mark beside its colour: the second set's tiles are striped, and chips
  // carry the colour's letter, so the sets are told apart without seeing colour
  function setIndex(colour) {
    const s = P.status && P.status.session;
    const sets = (s && s.sets) || (P.status && P.status.table && P.status.table.identity &&
      P.status.table.identity.colours) || [];
    if (sets[0] === sets[1]) return 0;
    return sets.indexOf(colour) === 1 ? 1 : 0;
  }

  function paintChip(node, colour, joined) {
    const css = colourCss(colour);
    node.className = "tile on" + (css ? "" : " unknown") + (setIndex(colour) ? " set2" : "") +
      (joined ? " joined" : "");
    node.style.backgroundColor = css || "";
    node.dataset.mark = css ? W.mark(W, colour) : "";
    node.title = W.colourName(W, colour);
  }

  function newBuild(id, deck, targets) {
    P.build = {
      id: id, deck: deck || null, targets: targets.slice(),
      tracks: targets.map(() => []), done: false, ok: null, failed: false, joined: false,
    };
    drawTracks();
  }

  function drawTracks() {
    const b = P.build, box = $("tracks");
    box.textContent = "";
    if (!b) return;
    b.targets.forEach((target, k) => {
      const track = el("div", "track");
      track.dataset.track = String(k + 1);
      const head = el("div", "track-head");
      head.append(el("span", "track-name", W.Track(k + 1)), el("span", "fault-at"), el("span", "count"));
      const wall = el("div", "wall");
      wall.setAttribute("aria-hidden", "true");
      for (let i = 0; i < Math.ceil(target / 2); i++) wall.appendChild(newStack());
      track.append(head, wall);
      box.appendChild(track);
      b.tracks[k].forEach((c, i) => { if (c !== undefined && c !== null) paint(k, i + 1, c); });
      updateCount(k);
    });
  }

  function newStack() {
    const st = el("div", "stack");
    st.append(el("i", "tile"), el("i", "tile"));
    return st;
  }

  function cell(k, index) {
    const wall = $("tracks").children[k] && $("tracks").children[k].children[1];
    if (!wall) return null;
    const s = Math.ceil(index / 2) - 1;
    while (wall.children.length <= s) wall.appendChild(newStack()).classList.add("over");
    return wall.children[s].children[(index - 1) % 2];
  }

  function paint(k, index, colour, joined) {
    const c = cell(k, index);
    if (c) paintChip(c, colour, joined);
  }

  function counted(k) {
    return P.build.tracks[k].filter((c) => c !== undefined && c !== null).length;
  }

  function updateCount(k) {
    const b = P.build, node = $("tracks").children[k];
    if (!node) return;
    const have = counted(k), target = b.targets[k];
    node.querySelector(".count").textContent = W.count(have, target);
    node.classList.toggle("full", have === target && target > 0);
    node.classList.toggle("overfull", have > target);
  }

  function onTile(e) {
    P.seen.tiles++;
    let b = P.build;
    if (!b || b.id !== e.build) {  // a build this page did not see start: status tells
      newBuild(e.build, null, (b && b.targets) || [0, 0, 0, 0]);
      b = P.build;
      refreshStatus();
    }
    const k = e.track - 1;
    if (k < 0) return;
    while (b.tracks.length <= k) { b.tracks.push([]); b.targets.push(0); }
    b.tracks[k][e.index - 1] = e.colour;
    if (!P.pace || P.pace.build !== b.id) {
      P.pace = { build: b.id, t0: Date.now(), n0: b.tracks.reduce((a, t, j) => a + counted(j), 0) };
    }
    paint(k, e.index, e.colour);
    updateCount(k);
    legendSoon();
    cueSoon();
  }

  // A build the page joined half-way (or a status ahead of the events): the tiles it has
  // not seen are drawn from the status's counts by colour, grouped (their order is not kept).
  function syncBuild(st) {
    const tb = st.table && st.table.build;
    if (!tb || !tb.id || !tb.targets || !tb.targets.some((n) => n > 0)) return;
    const b = P.build;
    if (!b || b.id !== tb.id) {
      newBuild(tb.id, guessDeck(st), tb.targets);
    } else if (b.targets.join() !== tb.targets.join()) {
      b.targets = tb.targets.slice();
      drawTracks();
    }
    const nb = P.build;
    if (!nb.deck) nb.deck = guessDeck(st);
    // a build followed from its start gets its tiles from the events while it runs
    if (nb.followed && st.table.state === "building") return;
    tb.per_track.forEach((n, k) => {
      const have = nb.tracks[k] || (nb.tracks[k] = []);
      if (counted(k) >= n) return;
      const left = Object.assign({}, (tb.backs && tb.backs[k]) || {});
      have.forEach((c) => { if (c && left[c]) left[c]--; });
      const colours = [];
      Object.keys(left).forEach((c) => { for (let i = 0; i < left[c]; i++) colours.push(c); });
      for (let i = 0; i < n && counted(k) < n; i++) {
        if (have[i]) continue;
        const c = colours.length ? colours.shift() : "counted";
        have[i] = c;
        paint(k, i + 1, c, true);
        nb.joined = true;
      }
      updateCount(k);
    });
    if (["built", "idle", "lifting"].includes(st.table.state) &&
        tb.per_track.every((n, k) => n >= tb.targets[k])) nb.done = true;
    legendSoon();
  }

  function guessDeck(st) {
    const p = st.state && st.state.params;
    if (p && p.deck && (st.state.name === "building" || st.state.name === "built")) return p.deck;
    const s = st.session, decks = (s && s.decks) || {};
    return Object.keys(decks).find((k) => decks[k].where === "split") ||
      Object.keys(decks).find((k) => decks[k].where === "inside") || null;
  }

  let legendTimer = null;
  function legendSoon() {
    if (legendTimer) return;
    legendTimer = setTimeout(() => { legendTimer = null; renderLegend(); }, 100);
  }

  function chip(colour, text) {
    const item = el("span", "chip");
    const sw = el("i");
    paintChip(sw, colour);
    item.append(sw, document.createTextNode(" " + text));
    return item;
  }

  function renderLegend() {
    const b = P.build, node = $("legend");
    node.textContent = "";
    $("joined").hidden = !(b && b.joined);
    $("joined").textContent = W.joined;
    if (!b) return;
    const n = {};
    b.tracks.forEach((t) => t.forEach((c) => { if (c) n[c] = (n[c] || 0) + 1; }));
    Object.keys(n).sort().forEach((c) => node.appendChild(chip(c, W.colourName(W, c) + " " + n[c])));
  }

  function renderBuildTitle() {
    const b = P.build, node = $("build-title");
    setText($("walls-title"), W.wallsTitle);
    const f = P.status && P.live ? P.status.fault : null;
    document.querySelectorAll("#tracks .track").forEach((t) => {
      const at = !!(f && f.track && String(f.track) === t.dataset.track);
      t.classList.toggle("fault-here", at);
      setText(t.querySelector(".fault-at"), at ? W.faultAt : "");
    });
    if (!b) { setText(node, W.noBuild); return; }
    const total = b.tracks.reduce((a, t, k) => a + counted(k), 0);
    const s = P.status && P.status.session, tb = P.status && P.status.table;
    const where = b.done && !b.failed && b.deck && s && s.decks && s.decks[b.deck] &&
      s.decks[b.deck].where;
    // no session, the table not building and reporting no walls inside: the last ones
    // built came up (an end that brought every tile up), whatever their count
    const up = !s && !!tb && tb.walls_inside === false && tb.state !== "building";
    const gone = up || (!!where && where !== "inside" && where !== "split");
    $("tracks").classList.toggle("gone", gone);
    if (up) setText(node, W.wallsUp(total, W));
    else if (b.failed) setText(node, W.stoppedBuild(b.deck, W));
    else if (gone) setText(node, W.builtGone(b.deck, W.where[where] || where, W));
    else if (b.done) setText(node, (b.deck ? W.builtDeck(b.deck, total, W) : W.drainBuilt(total)) +
      (b.ok === false ? W.builtWrong : ""));
    else setText(node, b.deck ? W.buildingDeck(b.deck, W) : W.drainBuilding);
  }

  // -- decks and facts -------------------------------------------------------------------------
  function fact(dl, key, value, id) {
    const dt = el("dt", null, key), dd = el("dd", null, value);
    if (id) dd.id = id;
    dl.append(dt, dd);
  }

  function renderDecks() {
    const st = P.status, s = st && st.session, box = $("deck-list"), dl = $("facts");
    setText($("decks-title"), W.decksTitle);
    const key = JSON.stringify([s && [s.ruleset, s.mixed_deck, s.game, s.game_hand, s.decks, s.sets],
      st && st.table && st.table.identity, st && st.table && st.table.safety, W.lang,
      Object.keys(P.rulesets).length]);
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.textContent = "";
    dl.textContent = "";
    if (st) {
      if (s) {
        fact(dl, W.facts.ruleset, W.rulesetLabel(W, s.ruleset) + " · " +
          (s.mixed_deck ? W.facts.mixed : W.facts.normal), "fact-ruleset");
        fact(dl, W.facts.game, String(s.game || 1), "fact-game");
        fact(dl, W.facts.hand, s.game_hand ? W.Hand(sessionHand(), W) : W.facts.none, "fact-hand");
      }
      fact(dl, W.facts.table, W.tableName(st.table && st.table.identity), "fact-table");
      // the safety chain as the table reads it (docs/SAFETY.md): said only where it is wired
      const safety = st.table && st.table.safety;
      if (safety) {
        fact(dl, W.facts.safety, W.safetyState(safety), "fact-safety");
        $("fact-safety").classList.toggle("warn", !safety.chain || !!safety.relay_stuck);
      }
    }
    if (!s) { box.appendChild(el("p", null, W.noSession)); return; }
    Object.keys(s.decks || {}).sort().forEach((d) => {
      const deck = s.decks[d];
      const card = el("div", "deck");
      card.dataset.deck = d;
      card.append(el("h3", null, W.Deck(d)), el("p", "where", W.where[deck.where] || deck.where));
      if (deck.tiles !== undefined && deck.tiles !== null) {
        card.appendChild(el("p", "tiles", W.deckTiles(deck.tiles)));
        const backs = el("p", "backs");
        Object.keys(deck.backs || {}).sort().forEach((c) => {
          backs.appendChild(chip(c, W.colourName(W, c) + " " + deck.backs[c]));
        });
        card.appendChild(backs);
      } else {
        card.appendChild(el("p", "tiles", W.deckNotSplit));
      }
      if (deck.colours_checked === false) card.appendChild(el("p", "note", W.coloursUnchecked));
      box.appendChild(card);
    });
  }

  // -- the game's scores (GET /score, POST /score, the `score` event; docs/SCORING.md) -------
  // Players are keyed by their wind in the game's first hand; this phone chooses which one
  // it is (kept in this browser: localStorage is per table, the page's origin). Entries are
  // taken whenever a session is open, whatever the table does: nothing here waits on `can`.
  const WINDS = ["east", "south", "west", "north"];
  const RIICHI_FAMILY = new Set(["riichi", "speed-tonpuu"]);
  const SCORING = { riichi: "han", "speed-tonpuu": "han", shenyang: "multipliers",
    wsom: "patterns", uzje: "fan" };
  const KINDS = {  // the entry buttons each way of scoring has (hostd/rules/game.py kinds)
    han: ["riichi", "ron", "tsumo", "draw", "abortive", "chombo", "pass", "nagashi", "suukantsu",
      "undo"],
    multipliers: ["ron", "tsumo", "draw", "chombo", "pot", "undo"],
    patterns: ["ron", "tsumo", "draw", "undo"],
    fan: ["ron", "tsumo", "draw", "undo"],
  };
  const ALL_KINDS = ["riichi", "ron", "tsumo", "draw", "abortive", "chombo", "pass", "nagashi",
    "suukantsu", "pot", "undo"];
  const ONLY = { suukantsu: "speed-tonpuu" };  // a kind only one ruleset of its family has
  // a game's options and their values, the default first (hostd/rules/game.py options)
  const OPTIONS = { shenyang: { ron_pays: ["discarder", "all"] } };
  const MULTIPLIERS = [["duiduihu", 1], ["dragon_kezi", 3], ["gang", 4], ["gangshang_kaihua", 1],
    ["gangshang_pao", 1], ["qianggang", 1], ["single_wait", 1], ["haidilaoyue", 1],
    ["first_turn_dragons", 1], ["first_turn_winds", 1]];
  const FU = [20, 25, 30, 40, 50, 60, 70, 80, 90, 100, 110];
  const SEAT_KEY = "jantaku.seat";

  P.score = null;        // the game's ledger (GET /score or the last `score` event), .session tagged
  P.scoreOpen = false;   // the score card is open (the strip was tapped)
  P.scoreSending = null; // the entry on its way
  P.scoreAnswer = null;  // {text, bad, control}: shown next to the control pressed
  P.lastScoreAnswer = null;  // {kind, status, code, text, n}: for the browser tests
  P.seat = null;         // {player, session}: this phone's player, and the session it was chosen in
  try { P.seat = JSON.parse(window.localStorage.getItem(SEAT_KEY) || "null"); } catch (err) { /* */ }
  let scoreForm = null;  // the kind whose form is open

  function rulesetBase() {
    const s = P.status && P.status.session;
    return (P.score && P.score.ruleset) || (s && s.ruleset ? s.ruleset.split("+")[0] : "riichi");
  }
  function scoring() { return SCORING[rulesetBase()] || "han"; }

  // the state shown: the full ledger when the page has it for this game, else the status's summary
  function scoreState() {
    const s = P.status && P.status.session;
    if (!s || !s.score) return null;
    const have = P.score && P.score.session === s.id && P.score.game === s.score.game ? P.score : null;
    const st = Object.assign({ last: null, riichi: [] }, have || s.score);
    st.ruleset = rulesetBase();
    st.riichiFamily = RIICHI_FAMILY.has(st.ruleset);
    // this phone's player: every screen names the others from it (W.seatName); the table
    // view is the table's, no player's
    st.me = kiosk ? null : mySeat();
    return st;
  }

  function mySeat() {
    return P.seat && WINDS.includes(P.seat.player) ? P.seat.player : null;
  }
  function sessionId() { const s = P.status && P.status.session; return s ? s.id : null; }
  // a seat chosen in an earlier session is kept, but the page asks once whether it still holds
  function seatKept() { return !!(mySeat() && sessionId() !== null && P.seat.session !== sessionId()); }
  function setSeat(player) {
    P.seat = player ? { player: player, session: sessionId() } : null;
    try { window.localStorage.setItem(SEAT_KEY, JSON.stringify(P.seat)); } catch (err) { /* */ }
    // the side it sits at, kept too (for the drawing between sessions)
    const st = ledgerPlayers();
    if (player && st) {
      P.side = st.players[player].side;
      try { window.localStorage.setItem(SIDE_KEY, P.side); } catch (err) { /* */ }
    }
    render();
  }

  const scoreKey = (st) => st && JSON.stringify([st.game, st.entries, st.ended,
    WINDS.map((k) => st.players[k] && [st.players[k].name, st.players[k].points])]);

  // the status carries a summary; the whole ledger (its last payments) is asked for when the
  // summary says it changed (a missed event, a reconnect, a new game)
  function scoreSync(st) {
    const s = st.session;
    if (!s || !s.score) { if (!s) P.score = null; return; }
    const have = P.score && P.score.session === s.id ? P.score : null;
    if (!have || scoreKey(have) !== scoreKey(s.score)) loadScore();
  }

  let scoreLoading = false, scoreAgain = false;
  async function loadScore() {
    const sid = sessionId();
    if (sid === null) return;  // no session (an abort just ended it): no ledger to ask for
    if (scoreLoading) { scoreAgain = true; return; }
    scoreLoading = true;
    try {
      // by the session's id: an abort or the end that closes it meanwhile still answers
      const r = await fetch("/score?session=" + encodeURIComponent(sid), { cache: "no-store" });
      if (r.ok) takeScore(await r.json(), sid);
    } catch (err) { /* the stream says the daemon is gone */ }
    finally {
      scoreLoading = false;
      if (scoreAgain) { scoreAgain = false; setTimeout(loadScore, 100); }
    }
    render();
  }

  function takeScore(state, sid) {
    if (!state || !state.players) return;
    P.score = Object.assign({}, state, { session: sid === undefined ? sessionId() : sid });
  }

  function who(st, k) { return W.score.who(st, k, W); }

  function renderScore() {
    // a side chosen before the ledger came is the player sitting there
    if (!kiosk && !mySeat() && SEATS.includes(P.side)) {
      const k = playerAt(ledgerPlayers(), P.side);
      if (k) { P.seat = { player: k, session: sessionId() }; setSeat(k); }
    }
    const st = scoreState(), strip = $("score-strip"), card = $("score"), board = $("board");
    // the table view shows no control it cannot use: entering needs a paired browser
    if (kiosk && scoreWhy()) P.scoreOpen = false;
    strip.hidden = !st || kiosk;
    card.hidden = !st || !P.scoreOpen;  // (the table view opens it from its board)
    board.hidden = !st || !kiosk;
    document.body.classList.toggle("scored", !board.hidden);
    document.body.classList.toggle("score-open", !card.hidden);
    strip.setAttribute("aria-expanded", String(!card.hidden));
    if (!st) return;
    if (kiosk) {
      const enter = $("board-enter");
      setText(enter, W.score.boardEnter);
      enter.hidden = !!scoreWhy();
      enter.setAttribute("aria-expanded", String(!card.hidden));
      renderBoard(st);
      if (!card.hidden) renderScoreCard(st, null);
      return;
    }
    const me = mySeat();
    // a short line names a player by the first of their words (their name, else their wind)
    const near = (k) => W.seatName(st, k, W, true);
    let line3 = "";
    if (me && seatKept()) line3 = W.score.keptAsk(who(st, me));
    else if (me && st.ended && st.placement) line3 = W.score.placed(st.placement.indexOf(me) + 1, W);
    else if (me) {
      const i = WINDS.indexOf(me);
      line3 = W.score.gaps([1, 2, 3].map((d) => WINDS[(i + d) % 4]).map((k) => ({
        who: near(k), gap: st.players[me].points - st.players[k].points })), W);
    }
    setText($("strip-me"), me ? W.score.me(st, me, W) : W.score.chooseSeat);
    setText($("strip-hand"), W.score.handLine(st, W, me, me ? near : null));
    setText($("strip-gaps"), line3);
    strip.classList.toggle("mine", me === st.dealer && !st.ended);
    if (!card.hidden) renderScoreCard(st, me);
  }

  function scoreWhy() {
    if (!P.live) return W.why.offline;
    if (P.paired === false) return W.why.unpaired;
    return null;
  }

  function renderScoreCard(st, me) {
    setText($("score-title"), W.score.title);
    setText($("seat-label"), W.score.seatLabel);
    const sel = $("seat"), key = JSON.stringify([me, W.lang, WINDS.map((k) => [st.players[k].name, st.players[k].wind])]);
    if (sel.dataset.key !== key) {
      sel.dataset.key = key;
      sel.textContent = "";
      const none = el("option", null, W.score.seatNone);
      none.value = "";
      sel.appendChild(none);
      WINDS.forEach((k) => {
        const o = el("option", null, W.score.seatOption(st, k, W));
        o.value = k;
        sel.appendChild(o);
      });
      sel.value = me || "";
    }
    const keep = $("seat-keep");
    keep.hidden = !seatKept();
    setText(keep, W.score.keep);
    setText($("score-hand"), W.score.handLine(st, W, me));
    // the four players, in the order of play
    const body = $("score-table").tBodies[0];
    const tkey = JSON.stringify([st.players, st.dealer, st.riichi, me, W.lang, st.ended]);
    if (body.dataset.key !== tkey) {
      body.dataset.key = tkey;
      body.textContent = "";
      WINDS.forEach((k) => {
        const p = st.players[k], tr = el("tr", k === me ? "me" : null);
        tr.dataset.player = k;
        const tags = [st.dealer === k && !st.ended ? W.score.dealer : "",
          (st.riichi || []).includes(k) ? W.score.inRiichi : ""].filter(Boolean).join(" · ");
        tr.append(el("th", null, who(st, k)), el("td", "pts", W.score.pts(p.points)),
          el("td", "tags", tags));
        tr.children[0].setAttribute("scope", "row");
        body.appendChild(tr);
      });
    }
    setText($("score-last"), W.score.last(st, W));
    const place = $("score-place");
    place.hidden = !(st.ended && st.placement);
    if (!place.hidden) {
      setText(place, W.score.final(st.placement.map((k, i) =>
        W.score.finalOne(i + 1, who(st, k), st.players[k].points, W)), W));
    }
    // the entry buttons: the ruleset's kinds (a pass only when the ledger would take it)
    const kinds = KINDS[scoring()], why = scoreWhy();
    setText($("score-kinds-title"), W.score.enterTitle);
    // no button that cannot be used: none while this browser may not enter (it says why),
    // only undo once the game has ended
    ALL_KINDS.forEach((kind) => {
      const b = $("sc-" + kind);
      setText(b, W.score.btn[kind]);
      b.hidden = !!why || !kinds.includes(kind) || (kind === "pass" && !st.can_pass) ||
        (ONLY[kind] && ONLY[kind] !== rulesetBase()) || (st.ended && kind !== "undo");
      b.disabled = !!P.scoreSending;
      b.classList.toggle("open", scoreForm === kind);
      b.setAttribute("aria-expanded", String(scoreForm === kind));
    });
    setText($("score-why"), why || "");
    const form = $("score-form");
    if (scoreForm && !kinds.includes(scoreForm)) closeScoreForm();
    if (why && scoreForm) closeScoreForm();
    form.querySelectorAll("button, input, select").forEach((c) => { c.disabled = !!P.scoreSending; });
    // names and seats: open by itself while the game has no entry and no names
    const seatsBox = $("seats-box");
    setText($("seats-title"), W.score.seatsTitle);
    const fresh = !st.entries && WINDS.every((k) => !st.players[k].name);
    seatsBox.hidden = !!why;
    const game = String(sessionId()) + ":" + st.game;
    if (seatsBox.dataset.game !== game || seatsBox.dataset.me !== String(st.me) + W.lang) {
      if (seatsBox.dataset.game !== game) seatsBox.open = fresh;
      seatsBox.dataset.game = game;
      seatsBox.dataset.me = String(st.me) + W.lang;
      buildSeatsForm(st);
    }
    // a game's options only before its first result
    const early = !st.entries || !!(st.last && st.last.kind === "rules");
    $("seats-form").querySelectorAll("select[data-option]").forEach((c) => {
      c.disabled = !early;
      if (c !== document.activeElement && st.options && st.options[c.dataset.option]) {
        c.value = st.options[c.dataset.option];
      }
    });
    setText($("options-later") || el("i"), early ? "" : W.score.optionsLater);
    renderExport(st);
    const a = $("score-answer");
    a.className = "score-answer" + (P.scoreAnswer ? (P.scoreAnswer.sending ? " sending" :
      P.scoreAnswer.bad ? " refused" : " done") : "");
    setText(a, P.scoreAnswer ? P.scoreAnswer.text : "");
  }

  // the table view: all four players large, the dealer marked, honba and sticks over them
  function renderBoard(st) {
    const box = $("board-players");
    setText($("board-title"), W.score.handLine(st, W, null));
    const key = JSON.stringify([st.players, st.dealer, st.riichi, st.ended, st.placement, W.lang]);
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.textContent = "";
    WINDS.forEach((k) => {
      const p = st.players[k], dealer = st.dealer === k && !st.ended;
      const cell = el("div", "bp" + (dealer ? " dealer" : ""));
      cell.dataset.player = k;
      const tags = [dealer ? W.score.dealer : "", (st.riichi || []).includes(k) ? W.score.inRiichi : "",
        st.ended && st.placement ? W.score.ordinal(st.placement.indexOf(k) + 1) : ""].filter(Boolean);
      cell.append(el("span", "bp-wind", W.score.wind[p.wind]), el("span", "bp-name", p.name || ""),
        el("span", "bp-pts", W.score.pts(p.points)), el("span", "bp-tags", tags.join(" · ")));
      box.appendChild(cell);
    });
  }

  // -- entering ----------------------------------------------------------------------------
  function field(labelText, control) {
    const lab = el("label", "field");
    lab.append(el("span", null, labelText), control);
    return lab;
  }
  function playerSelect(st, name, chosen, blank) {
    const s = el("select");
    s.name = name;
    if (blank) { const o = el("option", null, W.score.seatNone); o.value = ""; s.appendChild(o); }
    WINDS.forEach((k) => {
      const o = el("option", null, who(st, k));
      o.value = k;
      s.appendChild(o);
    });
    s.value = chosen || "";
    return s;
  }
  function numberInput(name, min, max, value) {
    const n = el("input");
    n.name = name;
    n.type = "number";
    n.min = String(min);
    n.max = String(max);
    n.value = String(value);
    n.inputMode = "numeric";
    n.size = 3;
    return n;
  }
  function checks(name, items) {  // [[value, label]] as checkboxes
    const box = el("span", "checks");
    items.forEach(([value, text]) => {
      const lab = el("label", "check"), c = el("input");
      c.type = "checkbox";
      c.name = name;
      c.value = value;
      lab.append(c, el("span", null, text));
      box.appendChild(lab);
    });
    return box;
  }

  function valueFields(form) {  // what a win is worth, in the ruleset's terms
    const sc = scoring();
    if (sc === "han") {
      const han = el("select");
      han.name = "han";
      for (let n = 1; n <= 13; n++) { const o = el("option", null, String(n)); o.value = String(n); han.appendChild(o); }
      for (let n = 1; n <= 6; n++) { const o = el("option", null, W.score.yakuman(n)); o.value = "y" + n; han.appendChild(o); }
      han.value = "1";
      const fu = el("select");
      fu.name = "fu";
      FU.forEach((n) => { const o = el("option", null, String(n)); o.value = String(n); fu.appendChild(o); });
      fu.value = "30";
      const fuField = field(W.score.field.fu, fu);
      fuField.classList.add("fu");
      // fu counts below 5 han only (at 5 han or more it may be left out: it is)
      const shown = () => { fuField.hidden = han.value[0] === "y" || Number(han.value) >= 5; };
      han.addEventListener("change", shown);
      form.append(field(W.score.field.han, han), fuField);
      shown();
      if (rulesetBase() === "speed-tonpuu") {
        form.appendChild(field(W.score.field.chips, numberInput("chips", 0, 100, 0)));
      }
    } else if (sc === "patterns") {
      const pat = el("input");
      pat.name = "patterns";
      pat.inputMode = "numeric";
      pat.autocomplete = "off";
      pat.placeholder = W.score.patternsHelp;
      form.appendChild(field(W.score.field.patterns, pat));
    } else if (sc === "fan") {
      const fan = el("input"), limits = el("input");
      fan.name = "fan";
      fan.inputMode = "decimal";
      fan.size = 4;
      fan.autocomplete = "off";
      limits.name = "limits";
      limits.type = "number";
      limits.min = "0";
      limits.max = "20";
      limits.size = 3;
      form.append(field(W.score.field.fan, fan), field(W.score.field.limits, limits));
    } else if (sc === "multipliers") {
      const box = el("fieldset", "mults");
      box.appendChild(el("legend", null, W.score.field.multipliers));
      MULTIPLIERS.forEach(([name, most]) => {
        const lab = el("label", "check"), c = el("input");
        c.type = "checkbox";
        c.name = "mult";
        c.value = name;
        lab.append(c, el("span", null, W.score.mult[name]));
        if (most > 1) {  // counted up to `most` times in a hand
          const n = el("select", "times");
          n.name = "times-" + name;
          n.setAttribute("aria-label", W.score.mult[name]);
          for (let i = 1; i <= most; i++) { const o = el("option", null, W.score.times(i)); o.value = String(i); n.appendChild(o); }
          lab.appendChild(n);
        }
        box.appendChild(lab);
      });
      form.appendChild(box);
    }
  }

  function openScoreForm(kind) {
    const st = scoreState(), form = $("score-form"), me = mySeat();
    parkAnswer();
    scoreForm = kind;
    form.textContent = "";
    form.dataset.kind = kind;
    if (kind === "ron" || kind === "tsumo") {
      form.appendChild(field(W.score.field.winner, playerSelect(st, "winner", me, false)));
      if (kind === "ron") form.appendChild(field(W.score.field.from, playerSelect(st, "from", "", true)));
      valueFields(form);
      if (scoring() === "han") {  // the liable player, if any (pao)
        const pao = playerSelect(st, "pao", "", true);
        pao.options[0].textContent = W.score.nobody;
        form.appendChild(field(W.score.field.pao, pao));
      }
      if (scoring() === "multipliers") {
        const closed = el("fieldset", "closed");
        closed.append(el("legend", null, W.score.field.closed),
          checks("closed", WINDS.map((k) => [k, who(st, k)])));
        form.appendChild(closed);
      }
    } else if (kind === "chombo" || kind === "pot") {
      form.appendChild(field(W.score.field.player, playerSelect(st, "player", me, false)));
      if (kind === "pot") form.appendChild(field(W.score.field.tiles, numberInput("tiles", 1, 34, 1)));
    } else if (kind === "nagashi") {
      form.appendChild(field(W.score.field.player, playerSelect(st, "player", me, false)));
      if (rulesetBase() === "riichi") {  // then a draw: who was tenpai keeps the deal
        const box = el("fieldset", "tenpai");
        box.append(el("legend", null, W.score.field.tenpai),
          checks("tenpai", WINDS.map((k) => [k, who(st, k)])));
        form.appendChild(box);
      }
    } else if (kind === "suukantsu") {
      form.appendChild(field(W.score.field.winner, playerSelect(st, "winner", me, false)));
      form.appendChild(field(W.score.field.kanFrom, playerSelect(st, "from", "", true)));
    } else if (kind === "draw") {
      const box = el("fieldset", "tenpai");
      box.append(el("legend", null, W.score.field.tenpai),
        checks("tenpai", WINDS.map((k) => [k, who(st, k)])));
      form.appendChild(box);
      // the players in riichi were tenpai, as a rule: ticked to begin with
      box.querySelectorAll("input").forEach((c) => { c.checked = (st.riichi || []).includes(c.value); });
    }
    const go = el("button", "go", W.score.send(kind, W));
    go.type = "submit";
    go.id = "score-send";
    form.appendChild(go);
    form.hidden = false;
    render();
  }

  function closeScoreForm() {
    parkAnswer();
    scoreForm = null;
    $("score-form").hidden = true;
    $("score-form").textContent = "";
  }

  // the answer node lives beside the control pressed; it is set aside before what holds it goes
  function parkAnswer() {
    const a = $("score-answer");
    if (a.parentNode !== $("score")) $("score").appendChild(a);
  }
  function answerAt(control, text, bad, sending) {
    P.scoreAnswer = { text: text, bad: !!bad, sending: !!sending };
    const a = $("score-answer");
    if (control && control.isConnected) control.after(a);
    else parkAnswer();
    render();
  }

  function formBody(kind) {
    const f = $("score-form"), body = { kind: kind };
    const val = (n) => { const c = f.querySelector("[name='" + n + "']"); return c ? c.value.trim() : ""; };
    const ticked = (n) => Array.from(f.querySelectorAll("input[name='" + n + "']:checked")).map((c) => c.value);
    if (kind === "ron" || kind === "tsumo") {
      body.winner = val("winner");
      if (kind === "ron") {
        body.from = val("from");
        if (!body.from) return W.score.needFrom;
      }
      const sc = scoring();
      if (sc === "han") {
        const han = val("han");
        if (han[0] === "y") body.yakuman = Number(han.slice(1));
        else {
          body.han = Number(han);
          if (body.han < 5) body.fu = Number(val("fu"));
        }
        const chips = Number(val("chips") || 0);
        if (chips) body.chips = chips;
        if (val("pao")) body.pao = val("pao");
      } else if (sc === "patterns") {
        const nums = val("patterns").split(/[\s,+]+/).filter(Boolean).map(Number);
        if (!nums.length || nums.some((n) => !Number.isInteger(n))) return W.score.needPatterns;
        body.patterns = nums.length === 1 ? nums[0] : nums;
      } else if (sc === "fan") {
        const fan = val("fan").replace(",", "."), limits = Number(val("limits") || 0);
        if (limits) body.limits = limits;
        else if (fan && !Number.isNaN(Number(fan))) body.fan = Number(fan);
        else return W.score.needFan;
      } else if (sc === "multipliers") {
        const names = [];
        ticked("mult").forEach((m) => {
          const n = Number(val("times-" + m) || 1);
          for (let i = 0; i < n; i++) names.push(m);
        });
        body.multipliers = names;
        const closed = ticked("closed");
        if (closed.length) body.closed = closed;
      }
    } else if (kind === "chombo") {
      body.player = val("player");
    } else if (kind === "pot") {
      body.player = val("player");
      body.tiles = Number(val("tiles") || 1);
    } else if (kind === "nagashi") {
      body.player = val("player");
      if (rulesetBase() === "riichi") body.tenpai = ticked("tenpai");
    } else if (kind === "suukantsu") {
      body.winner = val("winner");
      if (val("from")) body.from = val("from");
    } else if (kind === "draw") {
      body.tenpai = ticked("tenpai");
    }
    return body;
  }

  function onScoreKind(kind, button) {
    if (scoreWhy() || P.scoreSending) return;
    const me = mySeat(), st = scoreState();
    if (!st) return;
    if (["ron", "tsumo", "chombo", "nagashi", "suukantsu", "pot"].includes(kind) ||
        (kind === "draw" && scoring() === "han")) {
      if (scoreForm === kind) { closeScoreForm(); render(); return; }
      openScoreForm(kind);
      return;
    }
    closeScoreForm();
    if (kind === "riichi") {
      if (!me) { answerAt(button, W.score.needSeat, true); return; }
      sendScore({ kind: "riichi", player: me }, button);
    } else {
      sendScore({ kind: kind }, button, kind === "undo" ? st.last : null);
    }
  }

  function onScoreForm(ev) {
    ev.preventDefault();
    const kind = scoreForm, go = $("score-send");
    if (!kind || scoreWhy() || P.scoreSending) return;
    const body = formBody(kind);
    if (typeof body === "string") { answerAt(go, body, true); return; }
    sendScore(body, go);
  }

  async function sendScore(body, control, undoing) {
    const st = scoreState(), kind = body.kind;
    P.scoreSending = kind;
    answerAt(control, W.sending(kind === "seats" ? W.score.seatsSave : W.score.btn[kind] ||
      W.score.send(kind, W)), false, true);
    let text, bad = false, status = 0, code = null;
    try {
      const r = await fetch("/score", {
        method: "POST", cache: "no-store", credentials: "same-origin",
        headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      });
      status = r.status;
      let data = null;
      try { data = await r.json(); } catch (err) { data = null; }
      if (r.ok && data) {
        takeScore(data);
        const now = scoreState() || data;
        text = kind === "undo" ? W.score.undone(st || now, undoing, W)
          : kind === "seats" ? W.score.seatsSaved : W.score.entered(now, W);
        if (scoreForm === kind) {  // done: the form closes, the answer goes beside its button
          closeScoreForm();
          control = $("sc-" + kind);
        }
      } else {
        const err = (data && data.error) || { code: "http_" + r.status };
        code = err.code;
        if (code === "not_paired") P.paired = false;
        bad = true;
        const why = err.key && W.score.why[err.key];
        text = W.score.notEntered(W.score.refused[code] || W.score.refused.other, err.message || "",
          why ? why(err.params || {}, W, scoreState() || st) : "");
      }
    } catch (err) {
      bad = true;
      text = W.score.notEntered(W.score.refused.other, W.unreachable);
    }
    P.scoreSending = null;
    P.lastScoreAnswer = { kind: kind, status: status, code: code, text: text,
      n: (P.scoreAnswers = (P.scoreAnswers || 0) + 1) };
    answerAt(control, text, bad);
    return !bad;
  }

  function buildSeatsForm(st) {
    const f = $("seats-form");
    f.textContent = "";
    WINDS.forEach((k) => {
      const i = el("input");
      i.name = "name-" + k;
      i.maxLength = 40;
      i.autocomplete = "off";
      i.value = st.players[k].name || "";
      f.appendChild(field(W.score.nameOf(st, k, W), i));
    });
    const side = el("select");
    side.name = "first_dealer";
    ["", "self", "right", "across", "left"].forEach((v) => {
      const o = el("option", null, W.score.side[v]);
      o.value = v;
      side.appendChild(o);
    });
    f.appendChild(field(W.score.firstDealer, side));
    // the game's options (Shenyang: who pays on a ron), before its first result
    const opts = OPTIONS[rulesetBase()] || {};
    Object.keys(opts).forEach((name) => {
      const sel = el("select");
      sel.name = "option-" + name;
      sel.dataset.option = name;
      opts[name].forEach((v) => {
        const o = el("option", null, W.score.option[v] || v);
        o.value = v;
        sel.appendChild(o);
      });
      sel.value = (st.options && st.options[name]) || opts[name][0];
      f.appendChild(field(W.score.optionLabel[name] || name, sel));
    });
    if (Object.keys(opts).length) {
      const later = el("p", "small");
      later.id = "options-later";
      f.appendChild(later);
    }
    const go = el("button", "go", W.score.seatsSave);
    go.type = "submit";
    go.id = "seats-send";
    f.appendChild(go);
  }

  // the game's ledger to keep: the file GET /score/export gives (the CLI writes the same)
  function exportHref(session, game, fmt) {
    return "/score/export?session=" + session + "&game=" + game + "&format=" + fmt;
  }
  function exportLinks(box, session, game) {
    ["csv", "json"].forEach((fmt, i) => {
      if (i) box.appendChild(document.createTextNode(" · "));
      const a = el("a", "export", W.score.exportAs[fmt]);
      a.href = exportHref(session, game, fmt);
      a.setAttribute("download", "jantaku-session-" + session + "-game-" + game + "." + fmt);
      a.dataset.format = fmt;
      box.appendChild(a);
    });
  }
  function renderExport(st) {
    const box = $("score-export"), sid = sessionId();
    const key = JSON.stringify([sid, st.game, W.lang, !!st.entries]);
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.textContent = "";
    box.hidden = sid === null || !st.entries;
    if (box.hidden) return;
    box.appendChild(document.createTextNode(W.score.exportTitle + ": "));
    exportLinks(box, sid, st.game);
  }

  async function onSeatsForm(ev) {
    ev.preventDefault();
    if (scoreWhy() || P.scoreSending) return;
    const f = $("seats-form"), names = {}, st = scoreState();
    WINDS.forEach((k) => { const v = f.querySelector("[name='name-" + k + "']").value.trim(); names[k] = v || null; });
    const body = { kind: "seats", names: names };
    const side = f.querySelector("[name='first_dealer']").value;
    if (side) body.first_dealer = side;
    const rules = {};  // the options changed, entered as the game's rules
    f.querySelectorAll("select[data-option]").forEach((c) => {
      if (!c.disabled && st && st.options && st.options[c.dataset.option] !== c.value) {
        rules[c.dataset.option] = c.value;
      }
    });
    const ok = await sendScore(body, $("seats-send"));
    if (ok && Object.keys(rules).length) sendScore(Object.assign({ kind: "rules" }, rules), $("seats-send"));
  }

  function setupScore() {
    const kinds = $("score-kinds");
    ALL_KINDS.forEach((kind) => {
      const b = el("button", kind === "undo" ? "undo" : null);
      b.type = "button";
      b.id = "sc-" + kind;
      b.dataset.kind = kind;
      b.hidden = true;
      b.addEventListener("click", () => onScoreKind(kind, b));
      kinds.appendChild(b);
    });
    const why = el("p", "small");
    why.id = "score-why";
    kinds.before(why);
    $("score-form").addEventListener("submit", onScoreForm);
    $("seats-form").addEventListener("submit", onSeatsForm);
    $("board-enter").addEventListener("click", () => {
      P.scoreOpen = !P.scoreOpen;
      render();
    });
    // Escape closes the score card (and the form open in it), the focus back where it opened
    document.addEventListener("keydown", (ev) => {
      if (ev.key !== "Escape" || !P.scoreOpen || $("confirm").open) return;
      if (scoreForm) closeScoreForm();
      P.scoreOpen = false;
      render();
      const back = kiosk ? $("board-enter") : $("score-strip");
      if (back && !back.hidden) back.focus();
    });
    $("score-strip").addEventListener("click", () => {
      P.scoreOpen = !P.scoreOpen;
      render();
      if (P.scoreOpen && !mySeat()) requestAnimationFrame(() => $("seat").focus());
    });
    $("seat").addEventListener("change", () => setSeat($("seat").value || null));
    $("seat-keep").addEventListener("click", () => setSeat(mySeat()));
  }

  // -- the latest events -----------------------------------------------------------------------
  // a session-wide hand number as {hand, game, game_hand} (status.session.games' first hands)
  function handOf(e) {
    const s = P.status && P.status.session, n = e.hand;
    if (!n) return Object.assign({}, e, { game_hand: 0 });
    let game = e.game || 1, first = 1;
    ((s && s.games) || []).forEach((g) => { if (g.first_hand <= n) { game = g.game; first = g.first_hand; } });
    return Object.assign({}, e, { game: game, game_hand: n - first + 1 });
  }

  function logEvent(e) {
    const f = W.log[e.type];
    if (!f) return;  // types the page does not tell are ignored (docs/API.md)
    let text;
    try { text = f(["hand", "dice", "resplit", "swap"].includes(e.type) ? handOf(e) : e, W); }
    catch (err) { return; }
    const bad = ["fault", "stopped", "step_failed", "build_failed"].includes(e.type) ||
      (e.type === "build_done" && !e.ok) || (e.type === "session_ended" && e.how !== "ended");
    // one fault reaches the page as several events at once (fault, build_failed, stopped,
    // step_failed): one line says it, the one naming the track when one does
    const stop = ["fault", "stopped", "step_failed", "build_failed"].includes(e.type);
    const near = stop ? P.log.slice(0, 4).find((x) => x.stop && Date.now() - x.at < 3000) : null;
    if (near) {
      if (e.type === "fault" && e.track) near.text = text;
      return;
    }
    P.log.unshift({ text: text, bad: bad, stop: stop, at: new Date() });
    P.log.length = Math.min(P.log.length, LOG_KEEP);
  }

  function renderLog() {
    const box = $("log");
    setText($("log-title"), W.logTitle);
    const key = P.log.map((x) => x.at.getTime() + x.text).join("|");
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.textContent = "";
    P.log.forEach((item) => {
      const li = el("li", item.bad ? "bad" : null);
      const time = el("time", null, item.at.toLocaleTimeString(W.lang));
      time.dateTime = item.at.toISOString();
      li.append(time, document.createTextNode(" "), el("span", null, item.text));
      box.appendChild(li);
    });
  }

  // -- earlier sessions (GET /history), at start and when a session ends ----------------------
  const HISTORY_KEEP = 5;
  async function loadHistory() {
    try {
      const r = await fetch("/history?limit=" + (HISTORY_KEEP + 1), { cache: "no-store" });
      if (!r.ok) return;
      P.history = (await r.json()).sessions || [];
    } catch (err) { return; }
    startDefaults();
    render();
  }

  // the start form begins as the last session was (until someone changes it)
  let formTouched = false;
  function startDefaults() {
    const last = P.history && P.history[0];
    if (formTouched || !last) return;
    if (P.rulesets[last.ruleset]) $("ruleset").value = last.ruleset;
    $("mixed").checked = !!last.mixed_deck;
    $("loaded-box").hidden = $("mixed").checked;
  }

  function renderHistory() {
    setText($("history-title"), W.historyTitle);
    const box = $("history-list");
    if (!P.history) return;
    const now = P.status && P.status.session;
    const list = P.history.filter((h) => !(now && h.id === now.id)).slice(0, HISTORY_KEEP);
    const key = JSON.stringify([P.history, now && now.id, W.lang, Object.keys(P.rulesets).length]);
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.textContent = "";
    if (!list.length) { box.appendChild(el("li", null, W.historyNone)); return; }
    list.forEach((h) => {
      // the hands scored (results entered), not the table's hands
      const hands = (h.games || []).reduce((a, g) => a + ((g.score && g.score.hands) || 0), 0);
      const li = el("li", h.state === "ended" || h.state === "open" ? null : "bad");
      if (h.created_at) {
        const at = new Date(h.created_at * 1000);
        const time = el("time", null, at.toLocaleString(W.lang));
        time.dateTime = at.toISOString();
        li.append(time, document.createTextNode(" "));
      }
      li.appendChild(document.createTextNode(W.historyLine(h, hands, W)));
      li.dataset.session = String(h.id);
      // each game: its placement and points, and its ledger to keep
      const games = el("ul", "history-games");
      (h.games || []).forEach((g) => {
        const item = el("li", null, W.historyGame(g, g.score, W));
        item.dataset.game = String(g.game);
        if (g.score && !g.score.error) {
          const links = el("span", "export");
          links.append(document.createTextNode(" — "));
          exportLinks(links, h.id, g.game);
          item.appendChild(links);
        }
        games.appendChild(item);
      });
      if (games.children.length) li.appendChild(games);
      box.appendChild(li);
    });
  }

  function renderSettings() {
    $("forget").hidden = P.paired !== true;
    $("invite").hidden = P.paired !== true || P.invitesOff === true;
    if (P.paired !== true) $("invite-box").hidden = true;
    document.body.classList.toggle("inviting", !$("invite-box").hidden);
    if (P.paired !== true) $("offer").hidden = true;
    setText($("awake-note"), (P.awakeOn && W.awakeNote[P.awakeState]) || "");
  }

  // -- the daemon ------------------------------------------------------------------------------
  function onStateChange(before, st) {
    cueSoon();
    if (!before) return;  // the page's first look: nothing newly asked
    const was = before.next && before.next.code, now = st.next && st.next.code;
    if ((now && ASKS.has(now) && now !== was) || (st.fault && !before.fault)) chime();
  }

  function takeStatus(st) {
    if (!st || !st.table || !st.state) return;
    const before = P.status;
    if (before && st.state.seq < P.seq) { refreshStatus(); return; }  // older than an event
    P.status = st;
    if (st.state.seq !== P.seq) {
      P.seq = st.state.seq;
      onStateChange(before, st);
    }
    syncBuild(st);
    scoreSync(st);
    const s = st.session;
    if (s && s.ruleset && !P.rulesets[s.ruleset]) loadRulesets();
    render();
  }

  // a `state` event: the state, next, can and fault at once, before the status is asked again
  function takeState(e) {
    if (!P.status || !e.state || e.state.seq <= P.seq) return;
    const before = P.status;
    P.status = Object.assign({}, before, {
      state: Object.assign({ since: hostNow() }, e.state), next: e.next, can: e.can, fault: e.fault,
    });
    P.seq = e.state.seq;
    onStateChange(before, P.status);
  }

  let fetching = false, again = false, refreshTimer = null;
  function refreshStatus() {
    if (refreshTimer) return;
    refreshTimer = setTimeout(async () => {
      refreshTimer = null;
      if (fetching) { again = true; return; }
      fetching = true;
      try {
        const r = await fetch("/status", { cache: "no-store" });
        const date = Date.parse(r.headers.get("Date") || "");
        if (date) {  // the host's clock (a second's resolution): deadlines count on it
          const skew = (date - Date.now()) / 1000;
          P.skew = Math.abs(skew) > 2 ? skew : 0;
        }
        if (r.ok) takeStatus(await r.json());
      } catch (err) {
        // the stream's own error handler says the daemon is gone
      } finally {
        fetching = false;
        if (again) { again = false; refreshStatus(); }
      }
    }, 60);
  }

  let rulesetsAsked = false;
  async function loadRulesets() {
    if (rulesetsAsked) return;
    rulesetsAsked = true;
    try {
      const r = await fetch("/rulesets", { cache: "no-store" });
      if (!r.ok) { rulesetsAsked = false; return; }
      (await r.json()).forEach((rs) => { P.rulesets[rs.name] = rs; });
      startDefaults();
      render();
    } catch (err) {
      rulesetsAsked = false;
    }
  }

  function onEvent(e) {
    P.seen.events++;
    switch (e.type) {
      case "hello":  // a new connection (perhaps to a restarted daemon): start afresh
        P.throw = null;
        if (P.build) { P.build = null; drawTracks(); }
        checkPaired();
        P.seq = 0;
        takeStatus(e.status);
        if (e.status && e.status.session) loadScore();  // entries made while the page was away
        refreshStatus();  // its Date: the host's clock
        render();
        return;
      case "tile":
        onTile(e);
        return;
      case "state":
        takeState(e);
        break;
      case "build_started":
        if (e.resumes && P.build && P.build.id === e.resumes) {
          P.build.deck = e.deck;
          P.build.failed = false;
        } else {
          newBuild(e.resumes || e.build, e.deck, e.targets || [0, 0, 0, 0]);
          P.build.followed = true;
        }
        P.pace = null;
        break;
      case "build_done":
        if (P.build) {
          P.build.done = true;
          P.build.ok = e.ok;
          P.build.deck = e.deck;
          if (P.pace && P.pace.build === P.build.id) {
            const dt = (Date.now() - P.pace.t0) / 1000, n = e.per_track.reduce((a, b) => a + b, 0) - P.pace.n0;
            if (dt > 0.5 && n > 10) P.lastRate = n / dt;
          }
        }
        break;
      case "build_failed":
        if (P.build) P.build.failed = true;
        break;
      case "dice":
        P.throw = throwFrom(e, e.deck);
        if (P.throw) P.throw.session = e.session;
        break;
      case "session_ended":
        loadHistory();
        break;
      case "session_started":
        P.throw = null;
        P.score = null;
        closeScoreForm();
        break;
      case "score":  // an entry from any phone: the ledger as it is now
        takeScore(e.score);
        break;
      case "game":
        P.score = null;
        closeScoreForm();
        break;
      default:
        break;
    }
    logEvent(e);
    if (!QUIET.has(e.type)) refreshStatus();
    render();
  }

  // The event stream. The browser reconnects by itself after a network error; a stream it
  // was refused (a 503 from a server at its limit, an answer that is not an event stream)
  // it gives up on, so the page tries again itself, waiting longer each time (1 s, 2 s, 4 s
  // ... 30 s, jittered).
  let es = null, attempt = 0, retryTimer = null;
  function connect() {
    if (retryTimer) { clearTimeout(retryTimer); retryTimer = null; }
    P.retryAt = null;
    es = new EventSource("/events");
    es.onopen = () => { P.live = true; attempt = 0; P.retryAt = null; P.retries = P.retries || 0; render(); };
    es.onmessage = (m) => {
      let e;
      try { e = JSON.parse(m.data); } catch (err) { return; }
      if (e && typeof e.type === "string") onEvent(e);
    };
    es.onerror = () => {
      P.live = false;
      if (es.readyState === EventSource.CLOSED) {
        es.close();
        attempt++;
        P.retries = (P.retries || 0) + 1;
        const delay = Math.min(30000, 1000 * Math.pow(2, Math.min(attempt - 1, 5))) *
          (0.75 + Math.random() * 0.5);
        P.retryAt = Date.now() + delay;
        retryTimer = setTimeout(connect, delay);
        cueSoon();
      }
      render();
    };
  }

  // this browser paired or forgot its pairing: the stream again, judged with its cookie now
  // (from another machine, an unpaired stream carries no scores and no players' names)
  function reopenStream() {
    if (es) es.close();
    attempt = 0;
    connect();
  }

  // -- set up ----------------------------------------------------------------------------------
  function setup() {
    document.documentElement.lang = W.lang;
    document.title = W.title;
    setText($("title"), W.title);
    setText($("footer"), W.footer);
    if (kiosk) {
      document.body.classList.add("kiosk");
      // the table view pairs phones from its bar; the code comes up in the drawing's place
      $("settings").appendChild($("invite").parentNode);
      $("table-now").after($("invite-box"));
    }
    // the sticky top's height: what is scrolled into view (the focus) goes below it
    if (window.ResizeObserver) {
      new ResizeObserver(() => {
        document.documentElement.style.setProperty("--now-h", $("now").offsetHeight + "px");
      }).observe($("now"));
    }
    $("table-now").setAttribute("aria-label", W.topTitle);
    setText($("how-title"), W.howTitle);
    // words of the fixed controls
    $("pair-label").textContent = W.pairLabel;
    $("pair-button").textContent = W.pairButton;
    $("forget").textContent = W.forgetButton;
    $("invite").textContent = W.inviteButton;
    $("ruleset-label").textContent = W.start.ruleset;
    $("mixed-label").textContent = W.start.mixed;
    $("loaded-label").textContent = W.start.loaded;
    $("loaded-box").title = W.start.loadedHelp;
    $("colours-label").textContent = W.start.colours;
    $("decks-about").textContent = W.decksAbout;
    $("colour-a").setAttribute("aria-label", W.start.colourA);
    $("colour-b").setAttribute("aria-label", W.start.colourB);
    $("dice-faces").setAttribute("aria-label", W.diceFaces);
    $("settings-title").textContent = W.settingsTitle;
    $("lang-label").textContent = W.language;
    $("chime-label").textContent = W.chime;
    const view = $("view-link");
    view.textContent = kiosk ? W.fullLink : W.kioskLink;
    view.href = kiosk ? "/" : "/?view=table";
    // the language
    const lang = $("lang");
    Object.keys(W.languages).forEach((k) => {
      const o = el("option", null, W.languages[k]);
      o.value = k;
      o.lang = k;
      lang.appendChild(o);
    });
    lang.value = W.lang;
    lang.addEventListener("change", () => {
      try { window.localStorage.setItem("jantaku.lang", lang.value); } catch (err) { /* */ }
      window.location.reload();
    });
    // the chime: off unless this browser turned it on
    try { P.chimeOn = window.localStorage.getItem("jantaku.chime") === "on"; } catch (err) { /* */ }
    $("chime").checked = P.chimeOn;
    $("chime").addEventListener("change", () => setChime($("chime").checked));
    // the screen kept on: off unless this browser turned it on; taken again when shown
    $("awake-label").textContent = W.awake;
    try { P.awakeOn = window.localStorage.getItem("jantaku.awake") === "on"; } catch (err) { /* */ }
    $("awake").checked = P.awakeOn;
    $("awake").addEventListener("change", () => setAwake($("awake").checked));
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") keepAwake();
    });
    if (P.awakeOn) keepAwake();
    $("offer-text").textContent = W.offerText;
    ["chime", "awake", "no"].forEach((k) => {
      const b = $("offer-" + k);
      b.textContent = W["offer" + k[0].toUpperCase() + k.slice(1)];
      b.addEventListener("click", () => offerTaken(k));
    });
    $("arm").addEventListener("click", arm);
    document.addEventListener("pointerdown", () => { if (P.chimeOn && !P.audio) arm(); }, { once: true });
    // the start form
    const loadedShown = () => { $("loaded-box").hidden = $("mixed").checked; };
    $("mixed").addEventListener("change", () => { formTouched = true; loadedShown(); render(); });
    $("ruleset").addEventListener("change", () => { formTouched = true; render(); });
    loadedShown();
    $("start-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      if (!disabledWhy()) press("start", $("primary"));
    });
    $("pair-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const code = $("pair-code").value.trim();
      $("pair-code").value = "";
      if (code) pair(code);
    });
    $("forget").addEventListener("click", forget);
    $("invite").addEventListener("click", invite);
    $("invite-done").textContent = W.inviteDone;
    $("invite-done").addEventListener("click", () => { $("invite-box").hidden = true; render(); });
    // the buttons: each sends the command it names
    $("primary").addEventListener("click", (ev) => {
      const cmd = $("primary").dataset.cmd;
      if (!cmd || cmd === "start") return;  // start: the form's submit
      ev.preventDefault();
      press(cmd, $("primary"));
    });
    document.querySelectorAll("#everyday [data-cmd], #apart [data-cmd], #name-other [data-cmd]").forEach((b) => {
      b.addEventListener("click", () => press(b.dataset.cmd, b));
    });
    setupScore();
    $("side").addEventListener("change", () => setSide($("side").value || null));
    $("confirm-yes").addEventListener("click", () => closeConfirm(true));
    $("confirm-no").addEventListener("click", () => closeConfirm(false));
    $("confirm").addEventListener("cancel", () => { pending = null; });
    window.addEventListener("hashchange", () => { takeFragment(); });
    if (!takeFragment()) checkPaired();
    loadRulesets();
    loadHistory();
    connect();
    render();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup);
  else setup();
})();
