"""The journal read back: a session's summary, the open session (what a resume needs),
the last one and how it ended, the history, the ledger's entries, the events, and the
checks of its consistency.  Reads never wait for a commit (store.py)."""
from hostd.core.journal import rows
from hostd.core.journal.schema import MAX_ID


class Reads:
    # -- reading back ---------------------------------------------------------------
    @staticmethod
    def _build_dict(row, *, times=False):
        d = {
            "build": row["build"],
            "deck": row["deck"],
            "targets": rows.loads(row["targets"]),
            "per_track": rows.loads(row["per_track"]),
            "backs": rows.loads(row["backs"]),
            "sim_seconds": row["sim_seconds"],
            "ok": None if row["ok"] is None else bool(row["ok"]),
        }
        if times:
            d["started_at"] = row["started_at"]
            d["finished_at"] = row["finished_at"]
        return d

    @staticmethod
    def _hand_dict(row, *, times=False):
        d = {
            "hand": row["hand"],
            "game": row["game"],
            "split": row["split"],
            "by": row["started_by"],
            "dice_by": row["dice_by"],
            "deck": row["deck"],
            "dice": rows.loads(row["dice"]),
            "breaker": row["breaker"],
            "break_position": rows.loads(row["break_position"]),
            "turnaround_sim_seconds": row["turnaround_sim_seconds"],
        }
        if times:
            d["recorded_at"] = row["recorded_at"]
        return d

    @staticmethod
    def _fault_dict(row, *, times=False):
        d = {
            "kind": row["kind"],
            "track": row["track"],
            "build": row["build"],
            "recovered": bool(row["recovered"]),
            "message": row["message"],
        }
        if times:
            d["id"] = row["id"]
            d["at"] = row["at"]
            d["recovered_at"] = row["recovered_at"]
        return d

    def session_summary(self, session_id, *, times=False):
        """The session as the demo/status JSON: ruleset, mixed_deck, seed, sets, decks,
        builds, hands, faults (plus id, state, phase)."""

        def read(db):
            s = self._session_row(db, session_id)
            seed = s["seed"]
            out = {
                "id": s["id"],
                "ruleset": s["ruleset"],
                "mixed_deck": bool(s["mixed_deck"]),
                "seed": rows.seed(seed),
                "sets": rows.loads(s["sets"]),
                "state": s["state"],
                "phase": s["phase"],
                "phase_data": rows.loads(s["phase_data"]),
                "decks": {},
                "builds": [],
                "hands": [],
                "faults": [],
            }
            if times:
                out["created_at"] = s["created_at"]
                out["ended_at"] = s["ended_at"]
            out["games"] = self._games(db, session_id)
            last = out["games"][-1] if out["games"] else None
            out["game"] = last["game"] if last else 1
            out["split"] = last["splits"][-1]["split"] if last and last["splits"] else 1
            out["decks"] = dict(last["splits"][-1]["decks"]) if last and last["splits"] else {}
            for r in db.execute("SELECT * FROM builds WHERE session_id = ? ORDER BY build",
                                (session_id,)):
                out["builds"].append(self._build_dict(r, times=times))
            for r in db.execute("SELECT * FROM hands WHERE session_id = ? ORDER BY hand",
                                (session_id,)):
                out["hands"].append(self._hand_dict(r, times=times))
            for r in db.execute("SELECT * FROM faults WHERE session_id = ? ORDER BY id",
                                (session_id,)):
                out["faults"].append(self._fault_dict(r, times=times))
            return out

        return self._read(read)

    @staticmethod
    def _games(db, session_id):
        """Each game with its splits (``splits``: each split's decks; ``decks``: the first
        split's, as the game began)."""
        games = {}
        for r in db.execute("SELECT * FROM games WHERE session_id = ? ORDER BY game",
                            (session_id,)):
            games[r["game"]] = {"game": r["game"], "first_hand": r["first_hand"], "splits": {}}
        for r in db.execute("SELECT * FROM decks WHERE session_id = ? ORDER BY game, split, name",
                            (session_id,)):
            g = games.setdefault(r["game"], {"game": r["game"], "first_hand": 1, "splits": {}})
            g["splits"].setdefault(r["split"], {})[r["name"]] = {"tiles": r["tiles"],
                                                                  "backs": rows.loads(r["backs"])}
        out = []
        for k in sorted(games):
            g = games[k]
            splits = [{"split": n, "decks": g["splits"][n]} for n in sorted(g["splits"])]
            out.append({"game": g["game"], "first_hand": g["first_hand"],
                        "decks": dict(splits[0]["decks"]) if splits else {}, "splits": splits})
        return out

    def open_session(self):
        """The unfinished session (for resume) as :meth:`session_summary` with times, plus
        ``next_build``, ``next_hand`` and ``unfinished_build`` (the last build if it never
        finished, else None); None when every session has ended."""

        def find(db):
            return db.execute("SELECT id FROM sessions WHERE state = 'open'").fetchone()

        row = self._read(find)
        if row is None:
            return None
        out = self.session_summary(row["id"], times=True)
        split = (out.get("phase_data") or {}).get("split")
        if isinstance(split, int) and split > out["split"]:
            # a split begun (a re-split) whose decks are not known yet: none, not the last
            out["split"], out["decks"] = split, {}
        builds, hands = out["builds"], out["hands"]
        out["next_build"] = (builds[-1]["build"] + 1) if builds else 1
        out["next_hand"] = (hands[-1]["hand"] + 1) if hands else 1
        last = builds[-1] if builds else None
        out["unfinished_build"] = last if last is not None and last["ok"] is None else None
        return out

    def last_session(self):
        """The latest session that has ended, as :meth:`session_summary` (its
        ``phase_data`` holds where it left the tiles), or None."""

        def find(db):
            return db.execute("SELECT id FROM sessions WHERE state != 'open' "
                              "ORDER BY id DESC LIMIT 1").fetchone()

        row = self._read(find)
        return None if row is None else self.session_summary(row["id"])

    def ended_how(self, session_id):
        """How a session ended: ``{"state", "reason"}`` (``state`` is ``open`` while it
        has not)."""

        def read(db):
            s = self._session_row(db, session_id)
            r = db.execute("SELECT data FROM events WHERE session_id = ? AND kind = "
                           "'session_ended' ORDER BY id DESC LIMIT 1", (session_id,)).fetchone()
            return {"state": s["state"], "reason": rows.loads(r["data"]).get("reason") if r else None}

        return self._read(read)

    def sessions(self, *, limit=20):
        """The latest sessions, newest first: id, ruleset, mixed_deck, state, phase, times."""

        def read(db):
            return [
                {"id": r["id"], "ruleset": r["ruleset"], "mixed_deck": bool(r["mixed_deck"]),
                 "state": r["state"], "phase": r["phase"], "created_at": r["created_at"],
                 "ended_at": r["ended_at"]}
                for r in db.execute("SELECT * FROM sessions ORDER BY id DESC LIMIT ?", (limit,))
            ]

        return self._read(read)

    def history(self, *, limit=20, before=None):
        """Past sessions, newest first (``before``: ids below it, for paging): each as
        ``{"id", "ruleset", "mixed_deck", "sets", "state" (how it ended, or open),
        "reason", "created_at", "ended_at", "games": [{"game", "first_hand", "decks",
        "hands": [...], "score_entries": [...]}], "builds", "faults", "detail"}``;
        ``score_entries`` are the game's ledger entries as entered; ``detail`` is false once
        :meth:`prune` removed the session's event detail (the summary stays)."""
        limit = max(1, min(int(limit), 1000))
        if before is not None:  # SQLite's integers are 64-bit: every id is below 2**63
            before = max(0, min(int(before), MAX_ID))

        def read(db):
            sql, args = "SELECT id FROM sessions", []
            if before is not None:
                sql, args = sql + " WHERE id < ?", [before]
            rows = db.execute(sql + " ORDER BY id DESC LIMIT ?", args + [limit]).fetchall()
            return [r["id"] for r in rows]

        out = []
        for sid in self._read(read):
            s = self.session_summary(sid, times=True)
            how = self.ended_how(sid)
            hands = s["hands"]
            scores = self.score_entries(sid)
            for g in s["games"]:
                g["hands"] = [h for h in hands if h["game"] == g["game"]]
                # the game's ledger entries (hostd/core/scorebook.py game_results reads them)
                g["score_entries"] = scores.get(g["game"], [])
                for sp in g["splits"]:  # which decks each hand was played on
                    sp["hands"] = [h["hand"] for h in g["hands"] if h["split"] == sp["split"]]
            out.append({"id": sid, "ruleset": s["ruleset"], "mixed_deck": s["mixed_deck"],
                        "sets": s["sets"], "state": s["state"], "reason": how["reason"],
                        "created_at": s["created_at"], "ended_at": s["ended_at"],
                        "games": s["games"], "builds": s["builds"], "faults": s["faults"],
                        "detail": self._has_detail(sid)})
        return out

    def score_entries(self, session_id, *, times=False):
        """Every game's ledger entries of a session: ``{game: [entry, ...]}`` in order
        (``times=True``: each as ``{"entry", "at"}``)."""
        def read(db):
            out = {}
            for r in db.execute("SELECT game, entry, at FROM scores WHERE session_id = ? "
                                "ORDER BY game, n", (session_id,)):
                e = rows.loads(r["entry"])
                out.setdefault(r["game"], []).append({"entry": e, "at": r["at"]} if times else e)
            return out
        return self._read(read)

    def events(self, session_id=None, *, after=0, kinds=None, limit=None):
        """Journalled events (committed ones only), oldest first, as
        ``{"id", "session", "kind", "data", "at"}``; ``session_id=None`` for all."""
        sql = "SELECT * FROM events WHERE id > ?"
        args = [after]
        if session_id is not None:
            sql += " AND session_id = ?"
            args.append(session_id)
        if kinds:
            kinds = list(kinds)
            sql += " AND kind IN (%s)" % ",".join("?" * len(kinds))
            args.extend(kinds)
        sql += " ORDER BY id"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(int(limit))

        def read(db):
            return [{"id": r["id"], "session": r["session_id"], "kind": r["kind"],
                     "data": rows.loads(r["data"]), "at": r["at"]} for r in db.execute(sql, args)]

        return self._read(read)

    def check(self):
        """SQLite's integrity and foreign-key checks plus the journal's own invariants;
        returns a list of problems (empty when consistent)."""

        def read(db):
            problems = []
            res = [r[0] for r in db.execute("PRAGMA integrity_check")]
            if res != ["ok"]:
                problems.extend("integrity: %s" % r for r in res)
            for r in db.execute("PRAGMA foreign_key_check"):
                problems.append("foreign key: table %s row %s -> %s" % (r[0], r[1], r[2]))
            for table, col in (("builds", "build"), ("hands", "hand")):
                for r in db.execute(
                        "SELECT session_id, count(*) AS n, max(%s) AS m FROM %s GROUP BY session_id"
                        % (col, table)):
                    if r["n"] != r["m"]:
                        problems.append("session %d: %s numbered with gaps (%d rows, last %d)"
                                        % (r["session_id"], table, r["n"], r["m"]))
            n_open = db.execute("SELECT count(*) FROM sessions WHERE state = 'open'").fetchone()[0]
            if n_open > 1:
                problems.append("%d sessions open" % n_open)
            return problems

        return self._read(read)

    @property
    def schema_version(self):
        return self._read(lambda db: db.execute("PRAGMA user_version").fetchone()[0])
