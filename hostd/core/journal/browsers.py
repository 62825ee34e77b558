"""The browsers paired with the page (hostd/web/pairing.py), kept in the journal so a
restart does not unpair them: the SHA-256 of each one's cookie (never the cookie), its id,
times (wall clock) and what the host is shown of it (the table: schema.BROWSERS)."""


class Browsers:
    # -- paired browsers (hostd/web/pairing.py) --------------------------------------------
    _BROWSER_FIELDS = ("digest", "id", "paired_at", "last_seen", "expires_at", "address",
                       "browser")

    def browsers(self):
        """The paired browsers kept, oldest first: dicts of digest (the SHA-256 of the
        cookie), id, paired_at, last_seen, expires_at (wall-clock seconds), address and
        browser."""
        return self._read(lambda db: [
            {k: r[k] for k in self._BROWSER_FIELDS}
            for r in db.execute("SELECT * FROM browsers ORDER BY paired_at, id")])

    def browser_paired(self, *, digest, id, paired_at, last_seen, expires_at, address="",
                       browser=""):
        """Keep a paired browser (committed before it returns, as every transition)."""
        row = (digest, id, paired_at, last_seen, expires_at, address or "", browser or "")
        self._commit(lambda db: db.execute(
            "INSERT OR REPLACE INTO browsers (%s) VALUES (?, ?, ?, ?, ?, ?, ?)"
            % ", ".join(self._BROWSER_FIELDS), row))

    def browser_seen(self, digest, *, last_seen, address=None):
        """A kept browser was seen again (at ``last_seen``, from ``address``)."""
        self._commit(lambda db: db.execute(
            "UPDATE browsers SET last_seen = ?, address = coalesce(?, address) "
            "WHERE digest = ?", (last_seen, address, digest)))

    def browsers_unpaired(self, digests=None):
        """Forget the browsers with these digests (None: every one); returns how many."""
        def work(db):
            if digests is None:
                return db.execute("DELETE FROM browsers").rowcount
            return sum(db.execute("DELETE FROM browsers WHERE digest = ?", (d,)).rowcount
                       for d in digests)
        return self._commit(work)
