"""The journal's retention (docs/ARCHITECTURE.md "Journal retention"): old sessions lose
their event detail, then the oldest ended ones go whole while the live data is over its
bound; the open session is never pruned."""

#: the events :meth:`Journal.prune` keeps of an old session (how it began and ended)
KEPT_EVENTS = "('session_created', 'session_ended')"


def _delete_session(db, session_id):
    for table in ("events", "scores", "faults", "hands", "builds", "decks", "games"):
        db.execute("DELETE FROM %s WHERE session_id = ?" % table, (session_id,))
    db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))


class Retention:
    def _has_detail(self, session_id):
        def read(db):
            return db.execute("SELECT 1 FROM events WHERE session_id = ? AND kind NOT IN "
                              "%s LIMIT 1" % (KEPT_EVENTS,), (session_id,)).fetchone() is not None
        return self._read(read)

    def prune(self, *, keep_days, max_bytes=None, now=None):
        """The retention policy (docs/ARCHITECTURE.md "Journal retention"): sessions that
        ended more than ``keep_days`` days ago lose their event detail (every journalled
        event but the session's start and end); their summary (games, decks, builds,
        hands, faults, how it ended) stays.  Then, while the journal's live data is over
        ``max_bytes``, the oldest ended sessions are removed whole.  Freed pages are reused,
        so the file stays near the bound.  Returns what was removed."""
        now = self._now() if now is None else now
        cutoff = now - float(keep_days) * 86400.0

        def work(db):
            old = [r["id"] for r in db.execute(
                "SELECT id FROM sessions WHERE state != 'open' AND ended_at < ?", (cutoff,))]
            events = 0
            for sid in old:
                events += db.execute("DELETE FROM events WHERE session_id = ? AND kind NOT IN %s"
                                     % (KEPT_EVENTS,), (sid,)).rowcount
            events += db.execute("DELETE FROM events WHERE session_id IS NULL AND at < ?",
                                 (cutoff,)).rowcount
            return {"events": events, "sessions": 0}

        removed = self._commit(work, wait=True)
        if max_bytes is not None:
            while self.live_bytes() > max_bytes:
                sid = self._read(lambda db: db.execute(
                    "SELECT id FROM sessions WHERE state != 'open' ORDER BY id LIMIT 1"
                ).fetchone())
                if sid is None:
                    break
                self._commit(lambda db, sid=sid["id"]: _delete_session(db, sid), wait=True)
                removed["sessions"] += 1
        removed["live_bytes"] = self.live_bytes()
        return removed

    def live_bytes(self):
        """Bytes of the journal's pages in use (the file holds these plus free pages)."""
        def read(db):
            page = db.execute("PRAGMA page_size").fetchone()[0]
            count = db.execute("PRAGMA page_count").fetchone()[0]
            free = db.execute("PRAGMA freelist_count").fetchone()[0]
            return (count - free) * page
        return self._read(read)
