"use strict";
// The table's page: a live view of GET /status and GET /events (docs/API.md §The page).
// Plain JavaScript, no build step, nothing from another origin. Words: words.js.
(function () {
  const W = window.JANTAKU_WORDS;
  const SVG_NS = "http://www.w3.org/2000/svg";
  const LOG_KEEP = 12;
  // the back colours a set is usually named by, drawn in shades that read on both themes;
  // any other CSS colour name is drawn as itself
  const SHADES = {
    blue: "#2f6fd0", green: "#2e9e4f", red: "#d23b3b", yellow: "#e8c21a", orange: "#e8852a",
    black: "#2a2a2a", white: "#f4f1e8", grey: "#8a8a8a", gray: "#8a8a8a", purple: "#8a4fc8",
    pink: "#e07ab0", brown: "#8b5a2b",
  };
  // events that change something GET /status shows: the status is fetched again after them
  const QUIET = new Set(["tile", "build_progress", "hello"]);

  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  };

  const state = {
    status: null,      // the last GET /status (or hello's)
    rulesets: {},      // name -> summary (GET /rulesets)
    live: false,       // the event stream is open
    lost: false,       // the event stream failed (the browser retries by itself)
    build: null,       // {id, deck, targets, tracks: [[colour|null]], done, ok, failed, joined}
    throw: null,       // the hand's throw: {hand, deck, dice, total, breaker, break_from_right, unit, dead_wall_tiles, double, by}
    stepFailed: null,  // {message, next} from step_failed until the next step begins
    log: [],
    seen: { events: 0, tiles: 0 },  // for tests and the load bench: what this page took in
  };
  window.jantakuPage = state;  // read by the browser tests and bench/page_load.py
  state.deadStacks = (t, S) => Array.from(deadStacks(t, S));  // for the browser tests

  // -- rendering, at most once per frame --------------------------------------------------
  let scheduled = false;
  function render() {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      renderNow();
      renderFacts();
      renderFault();
      renderBuildTitle();
      renderTop();
      renderDecks();
      renderLog();
      renderControls();
      renderHistory();
    });
  }

  // Code spans in the daemon's sentences (`jantaku hand-over`) become <code>.
  function setSentence(node, text) {
    node.textContent = "";
    String(text || "").split("`").forEach((part, i) => {
      if (!part) return;
      node.appendChild(i % 2 ? el("code", null, part) : document.createTextNode(part));
    });
  }

  function activity(st) {
    if (state.lost) return "page_offline";
    if (!st || !state.live) return "connecting";
    const t = st.table || {}, s = st.session;
    if (!t.connected) return "disconnected";
    if (st.abort_pending) return "abort_pending";
    if (t.state === "fault" || (s && s.stopped)) return "fault";
    if (s && s.asking) return "people";
    if (["boot", "mixing", "building", "paused", "lifting", "testing"].includes(t.state)) return t.state;
    if (t.door === "open") return "door";
    if (!s) return "no_session";
    if (s.phase === "hand_over") return "hand_over";
    if (s.phase === "preparing") return "preparing";
    if (s.phase === "built" && s.hand === 0) return "ready";
    if (s.hand > 0) return "playing";
    return "idle";
  }

  function renderNow() {
    const st = state.status, act = activity(st);
    document.body.dataset.activity = act;
    $("headline").textContent = W.activity[act] || act;
    const why = $("why");
    if (st && st.table && !st.table.connected) {
      why.hidden = false;
      setSentence(why, W.whyNotConnected(st.table.error));
    } else if (state.lost) {
      why.hidden = false;
      setSentence(why, W.pageOffline);
    } else {
      why.hidden = true;
    }
    const s = st && st.session;
    setSentence($("next"), W.say((s && s.next) || (st && st.next) || ""));
    const live = $("live");
    live.textContent = state.live ? W.live : W.offline;
    live.className = "badge " + (state.live ? "on" : "off");
  }

  function fact(dl, key, value, id) {
    const dt = el("dt", null, key), dd = el("dd", null, value);
    if (id) dd.id = id;
    dl.append(dt, dd);
  }

  function renderFacts() {
    const st = state.status, dl = $("facts");
    dl.textContent = "";
    if (!st) return;
    const s = st.session;
    if (s) {
      const rs = state.rulesets[s.ruleset];
      fact(dl, W.facts.ruleset, (rs ? rs.title + " — " : "") + s.ruleset + " · " +
        (s.mixed_deck ? W.facts.mixed : W.facts.normal), "fact-ruleset");
      if (s.game !== undefined && s.game !== null) fact(dl, W.facts.game, String(s.game), "fact-game");
      fact(dl, W.facts.hand, s.hand && s.game_hand !== 0 ? W.hand(s.hand, s.game_hand, s.game)
        : W.facts.noHand, "fact-hand");
      Object.keys(s.decks || {}).sort().forEach((d) => {
        fact(dl, W.deck(d), W.where[s.decks[d].where] || s.decks[d].where, "fact-deck-" + d);
      });
    } else {
      fact(dl, W.facts.session, W.facts.noSession, "fact-session");
    }
    fact(dl, W.facts.table, W.tableName(st.table && st.table.identity), "fact-table");
  }

  function renderFault() {
    const st = state.status, box = $("fault");
    const t = st && st.table, s = st && st.session;
    let message = null, todo = null;
    if (s && s.stopped) {
      message = W.say(s.stopped.message);
      todo = W.say(s.stopped.ask);
    } else if (t && t.connected && t.state === "fault" && t.fault) {
      message = W.faultTable(t.fault);
      todo = W.say((s && s.next) || st.next);
    } else if (state.stepFailed) {
      message = W.say(state.stepFailed.message);
      todo = W.say(state.stepFailed.next || (st && st.next));
    }
    box.hidden = !message;
    $("next").hidden = !!message;  // the fault box says what to do
    if (message) {
      $("fault-title").textContent = W.faultTitle;
      setSentence($("fault-message"), message);
      $("fault-todo-label").textContent = W.whatToDo;
      setSentence($("fault-todo"), todo || "");
    }
  }

  // -- the walls inside: one cell per tile, drawn as its TILE event comes ----------------
  function colourCss(name) {
    if (!name || name === "unknown") return null;
    const key = name.toLowerCase();
    if (SHADES[key]) return SHADES[key];
    return window.CSS && CSS.supports("color", key) ? key : null;
  }

  function newBuild(id, deck, targets) {
    state.build = {
      id: id, deck: deck || null, targets: targets.slice(),
      tracks: targets.map(() => []), done: false, ok: null, failed: false, joined: false,
    };
    drawTracks();
  }

  function drawTracks() {
    const b = state.build, box = $("tracks");
    box.textContent = "";
    if (!b) return;
    b.targets.forEach((target, k) => {
      const track = el("div", "track");
      track.dataset.track = String(k + 1);
      const head = el("div", "track-head");
      head.append(el("span", "track-name", W.track(k + 1)), el("span", "count"));
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
    if (!c) return;
    const css = colourCss(colour);
    c.className = "tile on" + (css ? "" : " unknown") + (joined ? " joined" : "");
    c.style.backgroundColor = css || "";
    c.title = colour;
  }

  function counted(k) {
    return state.build.tracks[k].filter((c) => c !== undefined && c !== null).length;
  }

  function updateCount(k) {
    const b = state.build, node = $("tracks").children[k];
    if (!node) return;
    const have = counted(k), target = b.targets[k];
    const count = node.querySelector(".count");
    count.textContent = W.count(have, target);
    node.classList.toggle("full", have === target && target > 0);
    node.classList.toggle("overfull", have > target);
  }

  function onTile(e) {
    state.seen.tiles++;
    let b = state.build;
    if (!b || b.id !== e.build) {  // a build this page did not see start: status tells
      newBuild(e.build, null, (b && b.targets) || [0, 0, 0, 0]);
      b = state.build;
      refreshStatus();
    }
    const k = e.track - 1;
    if (k < 0) return;
    while (b.tracks.length <= k) { b.tracks.push([]); b.targets.push(0); }
    b.tracks[k][e.index - 1] = e.colour;
    if (Date.now() - lastFetch > 500) refreshStatus();  // the next sentence counts tiles too
    paint(k, e.index, e.colour);
    updateCount(k);
    legendSoon();
  }

  // A build the page joined half-way (or a status ahead of the events): the tiles it has
  // not seen are drawn from the status's counts by colour, grouped (their order is not kept).
  function syncBuild(st) {
    const tb = st.table && st.table.build;
    if (!tb || !tb.id || !tb.targets || !tb.targets.some((n) => n > 0)) return;
    const b = state.build;
    if (!b || b.id !== tb.id) {
      newBuild(tb.id, guessDeck(st), tb.targets);
    } else if (b.targets.join() !== tb.targets.join()) {
      b.targets = tb.targets.slice();
      drawTracks();
    }
    const nb = state.build;
    if (!nb.deck) nb.deck = guessDeck(st);
    // a build followed from its start gets its tiles from the events while it runs (the
    // status may be a few tiles ahead of them); what is still missing once it stopped
    // (a tile event the table lost, SPEC §10) comes from the counts
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
    if (st.table.state === "built" || st.table.state === "idle" || st.table.state === "lifting") {
      const full = tb.per_track.every((n, k) => n >= tb.targets[k]);
      if (full) nb.done = true;
    }
    legendSoon();
  }

  function guessDeck(st) {
    const s = st.session;
    if (!s) return null;
    const decks = s.decks || {};
    const d = Object.keys(decks).find((k) => decks[k].where === "split") ||
      (s.phase === "building" && Object.keys(decks).find((k) => decks[k].where === "mixer")) ||
      Object.keys(decks).find((k) => decks[k].where === "inside");
    return d || null;
  }

  let legendTimer = null;
  function legendSoon() {
    if (legendTimer) return;
    legendTimer = setTimeout(() => { legendTimer = null; renderLegend(); }, 100);
  }

  function renderLegend() {
    const b = state.build, node = $("legend");
    node.textContent = "";
    $("joined").hidden = !(b && b.joined);
    $("joined").textContent = W.joined;
    if (!b) return;
    const n = {};
    b.tracks.forEach((t) => t.forEach((c) => { if (c) n[c] = (n[c] || 0) + 1; }));
    Object.keys(n).sort().forEach((c) => {
      const item = el("span", "chip");
      const sw = el("i", "tile on" + (colourCss(c) ? "" : " unknown"));
      if (colourCss(c)) sw.style.backgroundColor = colourCss(c);
      item.append(sw, document.createTextNode(" " + (c === "unknown" ? W.unknownColour : c) + " " + n[c]));
      node.appendChild(item);
    });
  }

  function renderBuildTitle() {
    const b = state.build, node = $("build-title");
    $("walls-title").textContent = W.wallsTitle;
    if (!b) { node.textContent = W.noBuild; return; }
    const total = b.tracks.reduce((a, t, k) => a + counted(k), 0);
    // built, then raised to the table top (or dropped): these were its walls
    const s = state.status && state.status.session;
    const where = b.done && !b.failed && b.deck && s && s.decks && s.decks[b.deck] &&
      s.decks[b.deck].where;
    const gone = !!where && where !== "inside" && where !== "split";
    $("tracks").classList.toggle("gone", gone);
    if (b.failed) node.textContent = W.stoppedBuild(b.deck);
    else if (gone) node.textContent = W.builtGone(b.deck, W.where[where] || where);
    else if (b.done) node.textContent = W.built(b.deck, total, b.ok);
    else node.textContent = W.building(b.deck);
  }

  // -- the walls on the table top, the throw and the break --------------------------------
  function throwFrom(x, fallbackDeck) {
    if (!x || !x.dice || !x.dice.length) return null;  // a hand's walls are up, no throw yet
    const s = state.status && state.status.session;
    const rs = s && state.rulesets[s.ruleset];
    const total = x.total !== undefined ? x.total : x.dice.reduce((a, b) => a + b, 0);
    return {
      hand: x.hand, deck: x.deck || fallbackDeck || null, dice: x.dice, total: total,
      breaker: x.breaker,
      // the break counts the dice total (hostd/core/dice.py); older events may not carry it
      break_from_right: x.break_from_right !== undefined ? x.break_from_right : total,
      unit: x.unit || (rs && rs.break && rs.break.unit) || "stacks",
      dead_wall_tiles: x.dead_wall_tiles !== undefined ? x.dead_wall_tiles
        : (rs ? rs.dead_wall_tiles : 14),
      double: x.double !== undefined ? x.double
        : (x.dice.length === 2 && x.dice[0] === x.dice[1] && rs && rs.dice_double_multiplier > 1),
      by: x.by || null,
      breaker_is_dealer: !!x.breaker_is_dealer,
    };
  }

  // The throw of the hand in play: status.session.dice (a daemon with the dice button),
  // else the hand's event, else the session's list of hands.
  function currentThrow() {
    const s = state.status && state.status.session;
    if (!s) return null;
    const topDeck = Object.keys(s.decks || {}).find((d) => s.decks[d].where === "top");
    if (s.dice && s.dice.hand === s.hand) return throwFrom(s.dice, topDeck);
    if (state.throw && state.throw.hand === s.hand && state.throw.session === s.id) return state.throw;
    if (s.dice === undefined && s.hands && s.hands.length) {
      const h = s.hands[s.hands.length - 1];
      if (h.hand === s.hand) return throwFrom(h, topDeck);
    }
    return null;
  }

  function stacksPerWall() {
    const s = state.status && state.status.session;
    const rs = s && state.rulesets[s.ruleset];
    if (rs && rs.stacks_per_wall) return rs.stacks_per_wall;
    const b = state.build;
    return b && b.targets[0] ? Math.ceil(b.targets[0] / 2) : 17;
  }

  function renderTop() {
    const s = state.status && state.status.session, box = $("table-top");
    $("top-title").textContent = W.topTitle;
    const t = currentThrow();
    // (a new game's first hand not begun yet: the last game's walls are being pushed in)
    const onTop = s && Object.keys(s.decks || {}).some((d) => s.decks[d].where === "top") &&
      s.hand > 0 && s.game_hand !== 0;
    const key = JSON.stringify([t, onTop, stacksPerWall(), !!(s && s.hand > 0 && s.game_hand !== 0)]);
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.textContent = "";
    $("break").textContent = "";
    $("dead").textContent = "";
    $("double").hidden = true;
    if (!onTop || !s) {
      $("throw").textContent = s && s.hand > 0 && s.game_hand !== 0 ? W.topNoneNow : W.topNone;
      return;
    }
    if (!t) {
      $("throw").textContent = W.waitingDice(s.hand);
      box.appendChild(tableSvg(null));
      return;
    }
    const seat = W.seat[t.breaker] || t.breaker;
    $("throw").textContent = W.throwLine(t);
    $("break").textContent = W.breakLine(t, seat);
    $("dead").textContent = W.deadLine(t.dead_wall_tiles);
    const extra = [t.double ? W.doubleLine : "", t.breaker_is_dealer ? W.breakerIsDealer : ""].filter(Boolean);
    if (extra.length) { $("double").hidden = false; $("double").textContent = extra.join(" "); }
    box.appendChild(tableSvg(t));
  }

  // Seats in the order of play (counter-clockwise seen from above), the thrower at the
  // bottom. A wall's right end (seen by the player behind it) is the end next to the
  // following seat; stacks are numbered from there (1 = rightmost).
  const SEATS = ["self", "right", "across", "left"];

  function tableSvg(t) {
    const S = stacksPerWall(), size = 100, m = 14, len = size - 2 * m, w = len / S;
    const svg = document.createElementNS(SVG_NS, "svg");
    svg.setAttribute("viewBox", "0 0 " + size + " " + size);
    svg.setAttribute("class", "table-svg");
    svg.setAttribute("role", "img");
    if (t) svg.setAttribute("aria-label", W.tableSvg(t, W.seat[t.breaker] || t.breaker));
    const add = (parent, tag, attrs, text) => {
      const n = document.createElementNS(SVG_NS, tag);
      Object.keys(attrs).forEach((a) => n.setAttribute(a, attrs[a]));
      if (text !== undefined) n.textContent = text;
      parent.appendChild(n);
      return n;
    };
    add(svg, "rect", { x: 1, y: 1, width: size - 2, height: size - 2, rx: 3, class: "felt" });
    const dead = deadStacks(t, S);
    SEATS.forEach((seat, wi) => {
      const g = add(svg, "g", { class: "wall-top" + (t && t.breaker === seat ? " breaker" : "") });
      g.dataset.seat = seat;
      // position of stack n (1 = right end) along this side, as [x, y, width, height]
      const pos = (n) => {
        const d = (n - 1) * w;
        if (seat === "self") return [size - m - d - w, size - m + 1, w, 6];   // right end at the right
        if (seat === "right") return [size - m + 1, m + d, 6, w];             // right end at the top
        if (seat === "across") return [m + d, m - 7, w, 6];                   // right end at the left
        return [m - 7, size - m - d - w, 6, w];                               // left: right end at the bottom
      };
      for (let n = 1; n <= S; n++) {
        const [x, y, ww, hh] = pos(n);
        const r = add(g, "rect", { x: x + 0.25, y: y + 0.25, width: ww - 0.5, height: hh - 0.5, rx: 0.6,
          class: "stack-top" + (dead.has(seat + ":" + n) ? " dead" : "") });
        r.dataset.stack = String(n);
      }
      const lx = { self: 50, right: size - m - 3, across: 50, left: m + 3 }[seat];
      const ly = { self: size - m - 3, right: 50, across: m + 5, left: 50 }[seat];
      const label = add(g, "text", { x: lx, y: ly, class: "seat", "text-anchor": "middle",
        transform: seat === "right" ? "rotate(-90 " + lx + " " + ly + ")"
          : seat === "left" ? "rotate(90 " + lx + " " + ly + ")" : "" }, W.seatShort[seat]);
      label.dataset.seat = seat;
      if (t && t.breaker === seat) {
        g.dataset.breakFromRight = String(t.break_from_right);
        // the break: after the n-th stack from the right end (mid-stack for an odd tile count)
        const d = m + Math.min(t.unit === "tiles" ? t.break_from_right / 2 : t.break_from_right, S) * w;
        const line = {
          self: [size - d, size - m - 1, size - d, size - m + 9],
          right: [size - m - 1, d, size - m + 9, d],
          across: [d, m + 1, d, m - 9],
          left: [m + 1, size - d, m - 9, size - d],
        }[seat];
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

  // -- decks ------------------------------------------------------------------------------
  function renderDecks() {
    const s = state.status && state.status.session, box = $("deck-list");
    $("decks-title").textContent = W.decksTitle;
    box.textContent = "";
    if (!s) { box.appendChild(el("p", null, W.noDecks)); return; }
    Object.keys(s.decks || {}).sort().forEach((d) => {
      const deck = s.decks[d];
      const card = el("div", "deck");
      card.dataset.deck = d;
      const head = el("h3", null, W.deck(d));
      card.appendChild(head);
      card.appendChild(el("p", "where", W.where[deck.where] || deck.where));
      if (deck.tiles !== undefined) {
        card.appendChild(el("p", "tiles", W.deckTiles(deck.tiles)));
        const backs = el("p", "backs");
        Object.keys(deck.backs || {}).sort().forEach((c) => {
          const chip = el("span", "chip");
          const sw = el("i", "tile on" + (colourCss(c) ? "" : " unknown"));
          if (colourCss(c)) sw.style.backgroundColor = colourCss(c);
          chip.append(sw, document.createTextNode(" " + c + " " + deck.backs[c]));
          backs.appendChild(chip);
        });
        card.appendChild(backs);
      } else {
        card.appendChild(el("p", "tiles", W.deckNotSplit));
      }
      if (deck.colours_checked === false || (deck.colours_checked === undefined && s.colours_checked === false)) {
        card.appendChild(el("p", "note", W.coloursUnchecked));
      }
      box.appendChild(card);
    });
  }

  // -- the latest events ------------------------------------------------------------------
  function logEvent(e) {
    const f = W.log[e.type];
    if (!f) return;  // types the page does not know are ignored (docs/API.md)
    let text;
    try { text = f(e); } catch (err) { return; }
    const bad = ["table_fault", "fault", "stopped", "step_failed", "build_failed"].includes(e.type) ||
      (e.type === "build_done" && !e.ok) || (e.type === "session_ended" && e.how !== "ended");
    // one fault reaches the page as several events (table_fault, fault, build_failed,
    // stopped) that repeat its message, some with more detail (the deck, the counts, the
    // hand): one line says it, the fullest (compared by the daemon's message, since the
    // page's words around it differ)
    const msg = e.message || text, item = { text: text, msg: msg, bad: bad, at: new Date() };
    const i = bad ? state.log.slice(0, 4).findIndex((x) => x.bad &&
      (x.msg.includes(msg) || msg.includes(x.msg))) : -1;
    if (i >= 0) {
      if (msg.length > state.log[i].msg.length) state.log[i] = item;
      return;
    }
    state.log.unshift(item);
    state.log.length = Math.min(state.log.length, LOG_KEEP);
  }

  function renderLog() {
    const box = $("log");
    $("log-title").textContent = W.logTitle;
    box.textContent = "";
    state.log.forEach((item) => {
      const li = el("li", item.bad ? "bad" : null);
      const time = el("time", null, item.at.toLocaleTimeString(W.lang));
      time.dateTime = item.at.toISOString();
      li.append(time, document.createTextNode(" "));
      const span = el("span");
      setSentence(span, item.text);
      li.appendChild(span);
      box.appendChild(li);
    });
  }

  // -- the daemon -------------------------------------------------------------------------
  function takeStatus(st) {
    if (!st || !st.table) return;
    state.status = st;
    syncBuild(st);
    const s = st.session;
    if (s && s.ruleset && !state.rulesets[s.ruleset]) loadRulesets();
    render();
  }

  let fetching = false, again = false, refreshTimer = null, lastFetch = 0;
  function refreshStatus() {
    if (refreshTimer) return;
    refreshTimer = setTimeout(async () => {
      refreshTimer = null;
      lastFetch = Date.now();
      if (fetching) { again = true; return; }
      fetching = true;
      try {
        const r = await fetch("/status", { cache: "no-store" });
        if (r.ok) takeStatus(await r.json());
      } catch (err) {
        // the stream's own error handler says the daemon is gone
      } finally {
        fetching = false;
        if (again) { again = false; refreshStatus(); }
      }
    }, 80);
  }

  let rulesetsAsked = false;
  async function loadRulesets() {
    if (rulesetsAsked) return;
    rulesetsAsked = true;
    try {
      const r = await fetch("/rulesets", { cache: "no-store" });
      if (!r.ok) { rulesetsAsked = false; return; }
      (await r.json()).forEach((rs) => { state.rulesets[rs.name] = rs; });
      render();
    } catch (err) {
      rulesetsAsked = false;
    }
  }

  function onEvent(e) {
    state.seen.events++;
    switch (e.type) {
      case "hello":  // a new connection (perhaps to a restarted daemon): start afresh
        state.throw = null;
        state.stepFailed = null;
        if (state.build) { state.build = null; drawTracks(); }
        checkPaired();
        takeStatus(e.status);
        render();
        return;
      case "tile":
        onTile(e);
        return;
      case "build_progress":
        return;
      case "build_started":
        state.stepFailed = null;
        if (e.resumes && state.build && state.build.id === e.resumes) {
          state.build.deck = e.deck;
          state.build.failed = false;
        } else {
          newBuild(e.resumes || e.build, e.deck, e.targets || [0, 0, 0, 0]);
          state.build.followed = true;
        }
        break;
      case "build_resumed":
        if (state.build) state.build.failed = false;
        break;
      case "build_done":
        if (state.build) {
          state.build.done = true;
          state.build.ok = e.ok;
          state.build.deck = e.deck;
        }
        break;
      case "build_failed":
        if (state.build) state.build.failed = true;
        break;
      case "hand":
      case "dice":
        state.throw = throwFrom(e, e.deck);
        if (state.throw) state.throw.session = e.session;
        break;
      case "session_ended":
        loadHistory();
        break;
      case "session_started":
        state.stepFailed = null;
        state.throw = null;
        break;
      case "step_failed":
        state.stepFailed = { message: e.message, next: e.next };
        break;
      default:
        break;
    }
    logEvent(e);
    if (!QUIET.has(e.type)) refreshStatus();
    render();
  }

  function connect() {
    const es = new EventSource("/events");
    es.onopen = () => { state.live = true; state.lost = false; render(); };
    es.onmessage = (m) => {
      let e;
      try { e = JSON.parse(m.data); } catch (err) { return; }
      if (e && typeof e.type === "string") onEvent(e);
    };
    es.onerror = () => {
      // EventSource reconnects by itself; the page says so meanwhile
      state.live = false;
      state.lost = true;
      render();
    };
  }

  // -- the controls (docs/API.md §The page: who may press) ---------------------------------
  // Each button is offered only when the table can take it (GET /status: busy, next, the
  // session's phase), says what it does, and shows the table's answer or refusal.
  state.paired = null;     // GET /pair: may this browser press?
  state.answer = null;     // {text, bad}
  state.sending = false;
  const CMD = {
    "hand-over": { path: "/hand-over" },
    "dice": { path: "/dice", body: () => ({}) },
    "dice-entered": { path: "/dice" },
    "continue": { path: "/continue" },
    "clear-fault": { path: "/clear-fault" },
    "game": { path: "/game" },
    "end": { path: "/session/end", body: () => ({}), confirm: "confirmEnd" },
    "abort": { path: "/abort", confirm: "confirmAbort" },
    "start": { path: "/session" },
  };

  // what the table can take now: the command names
  function offered(st) {
    const out = new Set();
    if (!st || !st.table || !st.table.connected || st.abort_pending) return out;
    const s = st.session, busy = !!st.busy, t = st.table;
    if (!s) {
      if (!busy) out.add("start");
      if (t.state === "fault") out.add("clear-fault");
      return out;
    }
    out.add("abort");
    const fault = t.state === "fault" || !!s.stopped;
    if (s.asking || s.stopped) out.add("continue");
    if (fault) out.add("clear-fault");
    if (busy || fault || s.asking) return out;
    const onTop = Object.keys(s.decks || {}).some((d) => s.decks[d].where === "top");
    const thrown = s.dice && s.dice.hand === s.hand;
    if (s.hand > 0 && onTop && !thrown) { out.add("dice"); out.add("dice-entered"); }
    const inside = Object.keys(s.decks || {}).some((d) => s.decks[d].where === "inside");
    if (["built", "resplit_pending", "swap_pending"].includes(s.phase) && inside) out.add("hand-over");
    if (s.hand > 0) out.add("game");
    out.add("end");
    return out;
  }
  state.offered = () => Array.from(offered(state.status));  // for the browser tests

  function renderControls() {
    const st = state.status, can = offered(st), paired = state.paired === true;
    $("controls-title").textContent = W.controlsTitle;
    $("pair-form").hidden = paired || state.paired === null;
    setSentence($("pair-note"), state.paired === null ? "" : paired ? W.paired : W.pairNeeded);
    $("forget").hidden = !paired;
    $("start-form").hidden = !can.has("start");
    $("start").disabled = !paired || state.sending;
    fillRulesets();
    document.querySelectorAll("#buttons [data-cmd]").forEach((b) => {
      const cmd = b.dataset.cmd;
      b.textContent = W.cmd[cmd];
      const show = can.has(cmd);
      (cmd === "dice-entered" ? b.parentNode : b).hidden = !show;
      b.disabled = !paired || state.sending;
    });
    $("dice-entered").disabled = !paired || state.sending;
    const a = $("answer");
    a.className = state.answer ? (state.answer.sending ? "sending"
      : state.answer.bad ? "refused" : "done") : "";
    setSentence(a, state.answer ? state.answer.text : "");
  }

  let rulesetKey = "";
  function fillRulesets() {
    const sel = $("ruleset"), names = Object.keys(state.rulesets).sort();
    const key = names.join();
    if (key === rulesetKey) return;
    rulesetKey = key;
    const keep = sel.value;
    sel.textContent = "";
    names.forEach((n) => {
      const rs = state.rulesets[n];
      const o = el("option", null, (rs.title ? rs.title + " — " : "") + n);
      o.value = n;
      if (rs.table && rs.table.can_build === false) o.disabled = true;
      sel.appendChild(o);
    });
    if (keep && names.includes(keep)) sel.value = keep;
  }

  async function send(cmd, body) {
    const c = CMD[cmd];
    const label = cmd === "start" ? W.start.button : W.cmd[cmd];
    if (c.confirm && !window.confirm(W[c.confirm])) return;
    state.sending = true;
    state.answer = { text: W.sending(label), bad: false, sending: true };
    render();
    try {
      const r = await fetch(c.path, {
        method: "POST", cache: "no-store", credentials: "same-origin",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body !== undefined ? body : (c.body ? c.body() : {})),
      });
      let data = null;
      try { data = await r.json(); } catch (err) { data = null; }
      if (r.ok) {
        state.answer = { text: W.done(label, data && data.next), bad: false };
      } else {
        const err = (data && data.error) || {};
        if (err.code === "not_paired") state.paired = false;
        state.answer = { text: W.refused(label, err.message || ("HTTP " + r.status)), bad: true };
      }
    } catch (err) {
      state.answer = { text: W.unreachable(label), bad: true };
    } finally {
      state.sending = false;
      refreshStatus();
      render();
    }
  }

  let pairing = false;
  async function checkPaired() {
    if (pairing) return;  // the exchange under way says
    try {
      const r = await fetch("/pair", { cache: "no-store", credentials: "same-origin" });
      if (r.ok) { const p = !!(await r.json()).paired; if (!pairing) state.paired = p; }
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
        state.paired = true;
        state.answer = { text: W.pairedNow, bad: false };
      } else {
        state.answer = { text: W.refused(W.pairButton, (data && data.error && data.error.message) ||
          ("HTTP " + r.status)), bad: true };
      }
    } catch (err) {
      state.answer = { text: W.unreachable(W.pairButton), bad: true };
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
        state.paired = false;
        state.answer = { text: W.forgotten, bad: false };
      } else {
        state.answer = { text: W.refused(W.forgetButton, "HTTP " + r.status), bad: true };
      }
    } catch (err) {
      state.answer = { text: W.unreachable(W.forgetButton), bad: true };
    }
    render();
  }

  function setupControls() {
    $("pair-label").textContent = W.pairLabel;
    $("forget").textContent = W.forgetButton;
    $("forget").addEventListener("click", forget);
    $("pair-button").textContent = W.pairButton;
    $("ruleset-label").textContent = W.start.ruleset;
    $("mixed-label").textContent = W.start.mixed;
    $("loaded-label").textContent = W.start.loaded;
    $("loaded-box").title = W.start.loadedHelp;
    // "the sets are sorted" belongs to the normal rotation only
    const loadedShown = () => { $("loaded-box").hidden = $("mixed").checked; };
    $("mixed").addEventListener("change", loadedShown);
    loadedShown();
    $("colours-label").textContent = W.start.colours;
    $("start").textContent = W.start.button;
    $("lang-label").textContent = W.language;
    const lang = $("lang");
    Object.keys(W.languages || { en: "English" }).forEach((k) => {
      const o = el("option", null, W.languages[k]);
      o.value = k;
      lang.appendChild(o);
    });
    lang.value = W.lang;
    lang.addEventListener("change", () => {
      try { window.localStorage.setItem("jantaku.lang", lang.value); } catch (err) { /* */ }
      window.location.reload();
    });
    $("pair-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const code = $("pair-code").value.trim();
      $("pair-code").value = "";
      if (code) pair(code);
    });
    $("start-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const body = { ruleset: $("ruleset").value, mixed_deck: $("mixed").checked };
      if (!body.mixed_deck && $("loaded").checked) body.loaded = true;
      // colour class names are short lowercase words (a phone capitalises the first letter)
      const a = $("colour-a").value.trim().toLowerCase(), b = $("colour-b").value.trim().toLowerCase();
      if (a || b) {
        body.colours = [a || b, b || a];
        if (body.colours.some((c) => !/^[a-z][a-z0-9-]{0,15}$/.test(c))) {
          state.answer = { text: W.badColours, bad: true };
          render();
          return;
        }
      }
      send("start", body);
    });
    document.querySelectorAll("#buttons [data-cmd]").forEach((b) => {
      b.addEventListener("click", () => {
        const cmd = b.dataset.cmd;
        if (cmd === "dice-entered") {
          const faces = $("dice-entered").value.split(/[\s,+]+/).filter(Boolean).map(Number);
          if (!faces.length || faces.some((n) => !Number.isInteger(n) || n < 1)) {
            state.answer = { text: W.badDice, bad: true };
            render();
            return;
          }
          $("dice-entered").value = "";
          send(cmd, { dice: faces });
        } else {
          send(cmd);
        }
      });
    });
    // a phone that scanned the terminal's QR code: #pair=CODE, spent at once and taken
    // out of the address bar (the code is good once: history keeps nothing usable)
    window.addEventListener("hashchange", () => { takeFragment(); });
    if (!takeFragment()) checkPaired();
  }

  function takeFragment() {
    const m = /^#pair=([A-Za-z0-9-]{4,16})$/.exec(window.location.hash);
    if (window.location.hash) history.replaceState(null, "", window.location.pathname);
    if (m) pair(m[1]);
    return !!m;
  }

  // -- earlier sessions (GET /history), fetched at start and when a session ends ---------
  const HISTORY_KEEP = 5;
  async function loadHistory() {
    try {
      const r = await fetch("/history?limit=" + (HISTORY_KEEP + 1), { cache: "no-store" });
      if (!r.ok) return;
      state.history = (await r.json()).sessions || [];
    } catch (err) { return; }
    renderHistory();
  }

  function renderHistory() {
    $("history-title").textContent = W.historyTitle;
    const box = $("history-list");
    if (!state.history) return;  // not fetched yet
    // the session open now is shown above, live: here the earlier ones
    const now = state.status && state.status.session;
    const list = state.history.filter((h) => !(now && h.id === now.id)).slice(0, HISTORY_KEEP);
    const key = JSON.stringify([state.history, now && now.id]);
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.textContent = "";
    if (!list.length) { box.appendChild(el("li", null, W.historyNone)); return; }
    list.forEach((h) => {
      const hands = (h.games || []).reduce((a, g) => a + (g.hands || []).length, 0);
      const li = el("li", h.state === "ended" || h.state === "open" ? null : "bad");
      if (h.created_at) {
        const at = new Date(h.created_at * 1000);
        const time = el("time", null, at.toLocaleString(W.lang));
        time.dateTime = at.toISOString();
        li.append(time, document.createTextNode(" "));
      }
      li.appendChild(document.createTextNode(W.historyLine(h, hands)));
      li.dataset.session = String(h.id);
      box.appendChild(li);
    });
  }

  function start() {
    document.documentElement.lang = W.lang;
    document.title = W.title;
    $("title").textContent = W.title;
    $("footer").textContent = W.footer;
    $("fault-todo-label").textContent = W.whatToDo;
    setupControls();
    loadRulesets();
    loadHistory();
    connect();
    render();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
