"""A game's ledger as documented JSON and CSV (docs/SCORING.md "Export"): every entry in
order with what it paid and the points after it, then the final state.  Pure code.

    document(export, "json"|"csv") -> (text, media type, file name)   # the one file
"""
from __future__ import annotations

import csv
import io
import json

from hostd.game.errors import LedgerError
from hostd.game.ledger import Ledger
from hostd.game.seats import WINDS

FORMAT = "jantaku-score/1"
CSV_COLUMNS = (["n", "kind", "entry", "round", "hand", "honba", "sticks", "dealer"]
               + ["%s_points" % k for k in WINDS] + ["%s_paid" % k for k in WINDS]
               + ["%s_chips" % k for k in WINDS])


def rows(ruleset: str, entries) -> list[dict]:
    """Each ledger entry (seats entries skipped; an undo removes the row it undoes) with
    the state after it."""
    led = Ledger(ruleset)
    out = []
    for e in entries:
        if e.get("kind") == "seats":
            continue
        try:
            st = led.apply(e)
        except LedgerError:  # one this jantaku no longer takes: skipped, as on restore
            continue
        if e.get("kind") == "undo":
            out.pop()
            continue
        paid = (st.get("last") or {}).get("payments") or {k: 0 for k in WINDS}
        out.append({"n": len(out) + 1, "entry": led.entries[-1], "round": st["round"],
                    "hand": st["hand"], "honba": st["honba"], "sticks": st["sticks"],
                    "dealer": st["dealer"],
                    "points": {k: st["players"][k]["points"] for k in WINDS},
                    "paid": {k: paid.get(k, 0) for k in WINDS},
                    "chips": {k: st["players"][k]["chips"] for k in WINDS}})
    return out


def as_json(*, session: int, game: int, state: dict, entries) -> dict:
    return {"format": FORMAT, "session": session, "game": game, "ruleset": state["ruleset"],
            "players": {k: {"name": p["name"], "side": p.get("side")}
                        for k, p in state["players"].items()},
            "entries": rows(state["ruleset"], entries), "final": state}


def as_csv(*, state: dict, entries) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in rows(state["ruleset"], entries):
        e = r["entry"]
        text = " ".join("%s=%s" % (k, _flat(v)) for k, v in e.items() if k != "kind")
        w.writerow([r["n"], e["kind"], text, r["round"], r["hand"], r["honba"], r["sticks"],
                    r["dealer"]] + [r["points"][k] for k in WINDS]
                   + [r["paid"][k] for k in WINDS] + [r["chips"][k] for k in WINDS])
    return buf.getvalue()


def _flat(v):
    if isinstance(v, list):
        return "+".join(_flat(x) for x in v)
    if isinstance(v, dict):
        return ",".join("%s:%s" % (k, _flat(x)) for k, x in v.items())
    return str(v)


def document(export: dict, fmt: str = "json") -> tuple[str, str, str]:
    """The export file of a game, the same whoever asks (the API, ``jantaku score export``
    with or without a daemon, the page's links): its text, media type and file name.
    ``export``: ``{"session", "state", "entries"}`` (hostd/core/scorebook.py export_game).
    JSON is one line and a newline."""
    state = export["state"]
    name = "jantaku-session-%s-game-%d.%s" % (export["session"], state["game"], fmt)
    if fmt == "csv":
        return as_csv(state=state, entries=export["entries"]), "text/csv", name
    doc = as_json(session=export["session"], game=state["game"], state=state,
                  entries=export["entries"])
    return (json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n",
            "application/json", name)
