"""The CLI's words (English): the daemon's codes and answers, naming `jantaku` commands
where the page would name its buttons.  The core says what happens next as a code with an
English text that names no command (hostd/core/codes.py); here each action becomes the
command that takes it.  The tables are keyed by the keys the page and Home Assistant word
too (hostd/core/vocabulary.py: a place, a command; tests/unit/test_vocabulary.py)."""
import time

from hostd.core.commands import BY_NAME

#: a deck's place (the `where` vocabulary: state.PLACES), in words
WHERE_TEXT = {"top": "on the table top", "inside": "walls built inside", "lift": "on the lift",
              "mixer": "in the mixer", "split": "partly built, the rest in the mixer",
              "unknown": "where it is is not known"}


def command_line(name, params=None):
    """`jantaku hand-over` for a command name (the start: with a ruleset to choose)."""
    c = BY_NAME.get(name)
    if c is None:
        return None
    if name == "start":
        return "jantaku session start --ruleset R"
    if name == "name_sets":  # class 1's colour first
        sets = list((params or {}).get("colours") or ("A", "B"))
        return "jantaku name-sets %s or %s" % (",".join(sets), ",".join(sets[::-1]))
    return "jantaku " + c.cli


def next_line(nxt):
    """"next: <text> (`jantaku <command>`)" for a `next` object."""
    if not isinstance(nxt, dict):
        return "next: %s" % (nxt or "-")
    cmd = command_line(nxt.get("action"), nxt.get("params"))
    return "next: %s%s" % (nxt.get("text") or nxt.get("code"), " (`%s`)" % cmd if cmd else "")


def fault_line(fault):
    if not fault:
        return None
    cmd = command_line(fault.get("action"))
    return "fault: %s: %s%s" % (fault["message"], fault["todo"], " (`%s`)" % cmd if cmd else "")


def sets_text(sets):
    sets = list(sets or ())
    if len(sets) == 2 and sets[0] == sets[1]:
        return "%s and %s (backs alike: the decks' colours can't be checked)" % tuple(sets)
    return " and ".join(sets)


def hand_text(game, game_hand):
    return "game %s, hand %s" % (game, game_hand)


def status_text(st):
    t = st.get("table") or {}
    lines = []
    if t.get("connected"):
        ident = t.get("identity") or {}
        lines.append("table: %s (%s, firmware %s)" % (t.get("state"), ident.get("board"),
                                                     ident.get("firmware")))
    else:
        lines.append("table: not connected (%s)" % (t.get("error") or "waiting"))
    if st.get("fault"):
        lines.append(fault_line(st["fault"]))
    b = t.get("build")
    if b and b["id"]:
        lines.append("build %d: %s of %s" % (b["id"], "+".join(map(str, b["per_track"])),
                                           "+".join(map(str, b["targets"]))))
    s = st.get("session")
    if s:
        lines += _session_lines(s)
    else:
        lines.append("session: none")
        if st.get("last_end"):
            e = st["last_end"]
            lines.append("  last: session %s %s (%s)" % (e["id"], e["how"], e["reason"]))
    m = st.get("mqtt")
    if m:
        lines.append("mqtt: %s as %s, %s%s%s" % (
            m["broker"], m["table_id"], "connected" if m["connected"] else
            "not connected (%s)" % (m.get("error") or "connecting"),
            ", %d waiting" % m["queued"] if m.get("queued") else "",
            ", %d dropped (the outbox was full)" % m["dropped"] if m.get("dropped") else ""))
    lines.append("state: %s" % st["state"]["name"].replace("_", " "))
    lines.append(next_line(st.get("next")))
    return "\n".join(lines)


def _session_lines(s):
    lines = ["session %s: %s%s, %s" % (
        s["id"], s["ruleset"], " (Mixed Deck)" if s["mixed_deck"] else "",
        hand_text(s.get("game", 1), s.get("game_hand", s["hand"])))]
    if s.get("sets"):
        lines.append("  sets: %s" % sets_text(s["sets"]))
    if s.get("dice"):
        lines.append("  the throw (%s): %s" % (s["dice"]["by"], s["dice"]["text"]))
    for name, d in sorted(s["decks"].items()):
        what = "%d tiles (%s)" % (d["tiles"], ", ".join(
            "%s %d" % kv for kv in sorted(d["backs"].items()))) if d.get("tiles") \
            else "not split yet"
        lines.append("  deck %s: %s, %s" % (name, what, WHERE_TEXT.get(d.get("where"),
                                                                      d.get("where"))))
    return lines


def local_time(when):
    """Seconds since the epoch, or '2025-05-01T18:30:05+00:00' -> '2025-05-01 20:30' (this
    machine's time zone); what is neither is shown as it came."""
    import datetime

    if when is None:
        return "-"
    try:
        if isinstance(when, str):
            when = datetime.datetime.fromisoformat(when).timestamp()
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(when))
    except (TypeError, ValueError, OverflowError, OSError):
        return str(when)


def _backs(backs):
    return ", ".join("%s %d" % kv for kv in sorted(backs.items()))


def history_text(data):
    lines = []
    for s in data.get("sessions") or ():
        hands = sum(len(g["hands"]) for g in s["games"])
        scored = sum((g.get("score") or {}).get("hands", 0) for g in s["games"])
        lines.append("session %d  %s  %s%s, sets %s: %s%s; %d game%s, %d hand%s played "
                     "(%d scored), %d build%s%s"
                     % (s["id"], local_time(s["created_at"]), s["ruleset"],
                        " (Mixed Deck)" if s["mixed_deck"] else "",
                        sets_text(s["sets"]).split(" (")[0], s["state"],
                        " (%s)" % s["reason"] if s.get("reason") else "",
                        len(s["games"]), "" if len(s["games"]) == 1 else "s",
                        hands, "" if hands == 1 else "s", scored, len(s["builds"]),
                        "" if len(s["builds"]) == 1 else "s",
                        "" if s["detail"] else " (detail pruned)"))
        for g in s["games"]:
            lines += _game_lines(g)
        for f in s["faults"]:
            lines.append("  fault %s: %s%s" % (f["kind"], f["message"],
                                              " (recovered)" if f["recovered"] else ""))
    return "\n".join(lines) or "no sessions in the journal"


def _game_lines(g):
    """A game's splits (a re-split after a restart is another), each with the hands
    played on it and their throws."""
    splits = g.get("splits") or [{"split": 1, "decks": g["decks"],
                                  "hands": [h["hand"] for h in g["hands"]]}]
    if not splits or not splits[0]["decks"]:
        return ["  game %d: not split" % g["game"]]
    first = g.get("first_hand") or 1
    out = []
    for sp in splits:
        decks = "; ".join("deck %s %s" % (k, _backs(v["backs"])) for k, v in sorted(sp["decks"].items()))
        played = [h for h in g["hands"] if h["hand"] in sp.get("hands", ())]
        throws = ", ".join("hand %d %s" % (h["hand"] - first + 1,
                                           "+".join(map(str, h["dice"])) or "no throw")
                           for h in played)
        label = "game %d" % g["game"] if sp["split"] == 1 else "  split again (%d)" % sp["split"]
        out.append("  %s: %s%s" % (label, decks, "; %s" % throws if throws else "; no hand"))
    sc = g.get("score")
    if sc and "players" in sc:
        order = sc["placement"] or list(sc["players"])
        hands = sc.get("hands", 0)
        out.append("    scores (%s, %d hand%s scored): %s" % (
            "final" if sc["ended"] else "not ended", hands, "" if hands == 1 else "s",
            ", ".join("%s%s %s" % ("%s " % ORDINAL[i] if sc["placement"] else "",
                                   _player(k, sc["players"][k]), sc["players"][k]["points"])
                      for i, k in enumerate(order))))
    elif sc is None:
        out.append("    no scores entered")
    return out


ORDINAL = ("1st", "2nd", "3rd", "4th")


def _player(key, p):
    return "%s (%s)" % (key.capitalize(), p["name"]) if p.get("name") else key.capitalize()


def score_text(st):
    """`jantaku score`: the game's ledger as a small table."""
    head = "%s, game %d: %s %d, honba %d, %d riichi stick%s on the table%s" % (
        st["ruleset"], st["game"], st["round"].capitalize(), st["hand"], st["honba"],
        st["sticks"], "" if st["sticks"] == 1 else "s",
        "; the game has ended" if st["ended"] else "")
    lines = [head, "  %-18s %-6s %10s %6s" % ("player", "wind", "points", "chips")]
    order = st["placement"] or list(st["players"])
    for k in order:
        p = st["players"][k]
        mark = " deals" if k == st["dealer"] and not st["ended"] else ""
        lines.append("  %-18s %-6s %10d %6s%s" % (_player(k, p), p["wind"], p["points"],
                                                  p["chips"], mark))
    last = st.get("last")
    if last and last.get("payments"):
        paid = ", ".join("%s %+d" % (k.capitalize(), v) for k, v in last["payments"].items() if v)
        lines.append("last: %s%s" % (last["kind"], ": " + paid if paid else ""))
    lines.append("%d entr%s" % (st["entries"], "y" if st["entries"] == 1 else "ies"))
    return "\n".join(lines)
