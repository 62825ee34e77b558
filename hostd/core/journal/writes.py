"""The journal's writes: sessions, games and their decks, builds, hands and their dice,
the ledger's entries, faults, other transitions, and the tile events buffered until the
next transition (the guarantee and the idempotency: the package's doc)."""
import asyncio
import sqlite3

from hostd.core.journal import rows
from hostd.core.journal.schema import STATES
from hostd.core.journal.errors import JournalConflict
from hostd.errors import JournalError


class Writes:
    """Each write method: checked arguments, then its work in one transaction
    (:meth:`Store._commit`); a transition is committed before it returns (or, with the
    writer thread, before :meth:`Store.synced` returns)."""

    # -- sessions -------------------------------------------------------------------
    def create_session(self, *, ruleset, mixed_deck, sets, seed=None, phase="created", **phase_data):
        """Journal a new session and return its id.  Only one session is open at a time:
        end (or resume) the one :meth:`open_session` returns first."""
        if not isinstance(ruleset, str) or not ruleset:
            raise ValueError("ruleset must be a non-empty name, got %r" % (ruleset,))
        sets = [str(s) for s in sets]
        if seed is not None and (not isinstance(seed, (int, str)) or isinstance(seed, bool)):
            raise ValueError("seed must be an integer, a string or None, got %r" % (seed,))
        now = self._now()
        given = self._new_id("sessions")

        def work(db):
            cur = db.execute("SELECT id FROM sessions WHERE state = 'open'").fetchone()
            if cur is not None:
                raise JournalConflict(
                    "session %d is still open in journal %s: resume it or end it before "
                    "starting another" % (cur["id"], self.path))
            sid = db.execute(
                "INSERT INTO sessions (id, ruleset, mixed_deck, sets, seed, state, phase,"
                " phase_data, created_at) VALUES (?, ?, ?, ?, ?, 'open', ?, ?, ?)",
                (given, ruleset, 1 if mixed_deck else 0, rows.dumps(sets),
                 None if seed is None else str(seed), phase, rows.dumps(phase_data), now),
            ).lastrowid
            self._log(db, sid, "session_created",
                      {"ruleset": ruleset, "mixed_deck": bool(mixed_deck), "sets": sets,
                       "seed": seed, "phase": phase}, now)
            db.execute("INSERT INTO games (session_id, game, first_hand, started_at)"
                       " VALUES (?, 1, 1, ?)", (sid, now))
            return sid

        sid = self._commit(work)
        return given if given is not None else sid

    def phase(self, session_id, phase, /, **data):
        """The session's phase changed (e.g. ``building``, ``built``, ``hand_over``), with
        what a resume needs to know (``inside=``, ``top=``, ``hand=`` ...)."""
        if not isinstance(phase, str) or not phase:
            raise ValueError("phase must be a non-empty string, got %r" % (phase,))
        now = self._now()

        def work(db):
            self._open_row(db, session_id)
            db.execute("UPDATE sessions SET phase = ?, phase_data = ? WHERE id = ?",
                       (phase, rows.dumps(data), session_id))
            self._log(db, session_id, "phase", dict(data, phase=phase), now)

        self._commit(work)

    def end_session(self, session_id, state="ended", *, reason=None):
        """Close a session: ``ended`` (normally), ``aborted`` or ``failed`` (an unrecovered
        fault; ``reason`` says which).  Ending one that is already ended changes nothing.
        Returns its state."""
        if state not in STATES or state == "open":
            raise ValueError("state must be ended, aborted or failed, got %r" % (state,))
        now = self._now()

        def work(db):
            row = self._session_row(db, session_id)
            if row["state"] != "open":
                return row["state"]
            db.execute("UPDATE sessions SET state = ?, ended_at = ? WHERE id = ?",
                       (state, now, session_id))
            self._log(db, session_id, "session_ended", {"state": state, "reason": reason}, now)
            return state

        return self._commit(work)

    # -- decks ----------------------------------------------------------------------
    def game(self, session_id, game, first_hand):
        """Game ``game`` (from 1; game 1 comes with the session) begins; its first hand
        will be ``first_hand``.  Repeating it changes nothing; a game must follow on."""
        game, first_hand = int(game), int(first_hand)
        now = self._now()

        def work(db):
            self._open_row(db, session_id)
            old = db.execute("SELECT * FROM games WHERE session_id = ? AND game = ?",
                             (session_id, game)).fetchone()
            if old is not None:
                return {"game": game, "first_hand": old["first_hand"], "new": False}
            last = db.execute("SELECT coalesce(max(game), 0) FROM games WHERE session_id = ?",
                              (session_id,)).fetchone()[0]
            if game != last + 1:
                raise ValueError("session %d: game %d started but the next game number is %d"
                                 % (session_id, game, last + 1))
            db.execute("INSERT INTO games (session_id, game, first_hand, started_at)"
                       " VALUES (?, ?, ?, ?)", (session_id, game, first_hand, now))
            self._log(db, session_id, "game", {"game": game, "first_hand": first_hand}, now)
            return {"game": game, "first_hand": first_hand, "new": True}

        return self._commit(work)

    def deck(self, session_id, name, composition, *, game=1, split=1):
        """A deck's composition in split ``split`` of game ``game`` is known: ``{"tiles":
        n, "backs": {colour: n}}`` (a game's decks are split again after a table restart:
        split 2, 3...).  Every rebuild must reproduce it; recording it again identically
        changes nothing, a different one raises :class:`JournalConflict`."""
        rows.deck(name)
        game, split = int(game), int(split)
        backs = rows.backs(composition["backs"])
        tiles = int(composition.get("tiles", sum(backs.values())))
        if tiles != sum(backs.values()):
            raise ValueError("deck %s: tiles %d != sum of backs %s" % (name, tiles, backs))
        now = self._now()

        def work(db):
            self._open_row(db, session_id)
            old = db.execute("SELECT * FROM decks WHERE session_id = ? AND game = ? AND split = ?"
                             " AND name = ?", (session_id, game, split, name)).fetchone()
            if old is not None:
                if old["tiles"] != tiles or rows.loads(old["backs"]) != backs:
                    raise JournalConflict(
                        "deck %s of session %d, game %d (split %d) is already journalled as "
                        "%d tiles (%s), not %d tiles (%s)"
                        % (name, session_id, game, split, old["tiles"],
                           rows.backs_text(rows.loads(old["backs"])), tiles, rows.backs_text(backs)))
                return {"name": name, "tiles": tiles, "backs": backs, "new": False}
            db.execute("INSERT INTO decks (session_id, name, tiles, backs, recorded_at, game,"
                       " split) VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (session_id, name, tiles, rows.dumps(backs), now, game, split))
            self._log(db, session_id, "deck", {"deck": name, "tiles": tiles, "backs": backs,
                                               "game": game, "split": split}, now)
            return {"name": name, "tiles": tiles, "backs": backs, "new": True}

        return self._commit(work)

    # -- builds ---------------------------------------------------------------------
    def build_started(self, session_id, build, deck, targets):
        """Build number ``build`` (from 1 in the session) of ``deck`` started with these
        per-track targets.  Repeating it (a retry after a fault or a restart) returns the
        journalled row with ``"new": False``."""
        rows.deck(deck)
        build = int(build)
        targets = rows.ints(targets, "targets")
        now = self._now()

        def work(db):
            self._open_row(db, session_id)
            old = db.execute("SELECT * FROM builds WHERE session_id = ? AND build = ?",
                             (session_id, build)).fetchone()
            if old is not None:
                if old["deck"] != deck:
                    raise JournalConflict(
                        "build %d of session %d is journalled for deck %s, not %s"
                        % (build, session_id, old["deck"], deck))
                return dict(self._build_dict(old, times=True), new=False)
            last = db.execute("SELECT coalesce(max(build), 0) FROM builds WHERE session_id = ?",
                              (session_id,)).fetchone()[0]
            if build != last + 1:
                raise ValueError("session %d: build %d started but the next build number is %d"
                                 % (session_id, build, last + 1))
            db.execute("INSERT INTO builds (session_id, build, deck, targets, started_at)"
                       " VALUES (?, ?, ?, ?, ?)", (session_id, build, deck, rows.dumps(targets), now))
            self._log(db, session_id, "build_started",
                      {"build": build, "deck": deck, "targets": targets}, now)
            row = db.execute("SELECT * FROM builds WHERE session_id = ? AND build = ?",
                             (session_id, build)).fetchone()
            return dict(self._build_dict(row, times=True), new=True)

        return self._commit(work)

    def build_finished(self, session_id, build, record):
        """Build ``build`` finished.  ``record`` is the demo-shaped build:
        ``{"deck", "per_track", "backs", "sim_seconds", "ok"}``.  Finishing one already
        finished returns the journalled row with ``"new": False``."""
        build = int(build)
        per_track = rows.ints(record["per_track"], "per_track")
        backs = rows.backs(record["backs"])
        sim_seconds = record.get("sim_seconds")
        sim_seconds = None if sim_seconds is None else float(sim_seconds)
        ok = bool(record["ok"])
        deck = record.get("deck")
        now = self._now()

        def work(db):
            self._session_row(db, session_id)
            old = db.execute("SELECT * FROM builds WHERE session_id = ? AND build = ?",
                             (session_id, build)).fetchone()
            if old is None:
                raise ValueError("session %d: build %d finished but was never started"
                                 % (session_id, build))
            if deck is not None and deck != old["deck"]:
                raise JournalConflict("build %d of session %d is deck %s, not %s"
                                      % (build, session_id, old["deck"], deck))
            if old["finished_at"] is not None:
                return dict(self._build_dict(old, times=True), new=False)
            db.execute("UPDATE builds SET per_track = ?, backs = ?, sim_seconds = ?, ok = ?,"
                       " finished_at = ? WHERE session_id = ? AND build = ?",
                       (rows.dumps(per_track), rows.dumps(backs), sim_seconds, 1 if ok else 0, now,
                        session_id, build))
            self._log(db, session_id, "build_finished",
                      {"build": build, "deck": old["deck"], "per_track": per_track,
                       "backs": backs, "sim_seconds": sim_seconds, "ok": ok}, now)
            row = db.execute("SELECT * FROM builds WHERE session_id = ? AND build = ?",
                             (session_id, build)).fetchone()
            return dict(self._build_dict(row, times=True), new=True)

        return self._commit(work)

    # -- hands ----------------------------------------------------------------------
    def hand(self, session_id, record, brk=None):
        """Hand ``record["hand"]`` began on deck ``record["deck"]`` (walls raised):
        ``{"hand", "deck", "dice", "breaker", "turnaround_sim_seconds"}`` and the break
        (``brk``: dict or hostd.rules.dice break result).  Repeating a hand number returns the
        journalled row with ``"new": False`` and changes nothing."""
        number = int(record["hand"])
        deck = rows.deck(record["deck"])
        dice = rows.ints(record.get("dice") or [], "dice")
        breaker = record.get("breaker")
        game = int(record.get("game", 1))
        split = int(record.get("split", 1))
        started_by = record.get("by")
        dice_by = record.get("dice_by")
        turnaround = record.get("turnaround_sim_seconds")
        turnaround = None if turnaround is None else float(turnaround)
        brk = rows.plain(brk)
        now = self._now()

        def work(db):
            self._open_row(db, session_id)
            old = db.execute("SELECT * FROM hands WHERE session_id = ? AND hand = ?",
                             (session_id, number)).fetchone()
            if old is not None:
                return dict(self._hand_dict(old, times=True), new=False)
            last = db.execute("SELECT coalesce(max(hand), 0) FROM hands WHERE session_id = ?",
                              (session_id,)).fetchone()[0]
            if number != last + 1:
                raise ValueError("session %d: hand %d journalled but the next hand number is %d"
                                 % (session_id, number, last + 1))
            db.execute("INSERT INTO hands (session_id, hand, deck, dice, breaker, break_position,"
                       " turnaround_sim_seconds, recorded_at, game, started_by, dice_by, split)"
                       " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (session_id, number, deck, rows.dumps(dice), breaker,
                        None if brk is None else rows.dumps(brk), turnaround, now, game,
                        started_by, dice_by, split))
            self._log(db, session_id, "hand",
                      {"hand": number, "game": game, "split": split, "deck": deck, "dice": dice,
                       "breaker": breaker, "break_position": brk, "by": started_by,
                       "turnaround_sim_seconds": turnaround}, now)
            row = db.execute("SELECT * FROM hands WHERE session_id = ? AND hand = ?",
                             (session_id, number)).fetchone()
            return dict(self._hand_dict(row, times=True), new=True)

        return self._commit(work)

    record_hand = hand

    def hand_dice(self, session_id, hand, dice, brk, by):
        """Hand ``hand``'s throw (after it began: the walls are up first): its dice, the
        break (dict) and who threw (``button``, ``api``, ``entered``).  A re-throw the
        ruleset allows replaces it."""
        number = int(hand)
        dice = rows.ints(dice, "dice")
        brk = rows.plain(brk)
        now = self._now()

        def work(db):
            self._open_row(db, session_id)
            n = db.execute("UPDATE hands SET dice = ?, breaker = ?, break_position = ?, dice_by = ?"
                           " WHERE session_id = ? AND hand = ?",
                           (rows.dumps(dice), brk.get("breaker"), rows.dumps(brk), by, session_id,
                            number)).rowcount
            if n != 1:
                raise ValueError("session %d has no hand %d to throw for" % (session_id, number))
            self._log(db, session_id, "dice", dict(brk, hand=number, dice=dice, by=by), now)

        self._commit(work)

    # -- the game ledger's entries ------------------------------------------------
    def score_entry(self, session_id, game, n, entry):
        """The ``n``-th entry (1, 2 ...) of game ``game``'s ledger, as a person entered it
        (a dict; an undo is an entry too).  Committed before it returns, as a transition."""
        now = self._now()
        text = rows.dumps(entry)

        def work(db):
            self._open_row(db, session_id)
            last = db.execute("SELECT coalesce(max(n), 0) FROM scores WHERE session_id = ? "
                              "AND game = ?", (session_id, game)).fetchone()[0]
            if n != last + 1:
                raise JournalConflict("score entry %d of game %d follows entry %d in journal %s"
                                      % (n, game, last, self.path))
            db.execute("INSERT INTO scores (session_id, game, n, entry, at) VALUES (?, ?, ?, ?, ?)",
                       (session_id, int(game), int(n), text, now))

        self._commit(work)

    # -- faults ---------------------------------------------------------------------
    def fault(self, session_id, rec):
        """A fault: ``{"kind", "track", "build", "recovered", "message"}`` (track 1..N or
        None, build number in the session or None).  ``session_id`` may be None for a
        fault outside any session.  Returns the fault's id (for :meth:`fault_recovered`)."""
        kind = rec["kind"]
        if not isinstance(kind, str) or not kind:
            raise ValueError("fault kind must be a non-empty string, got %r" % (kind,))
        track = rec.get("track")
        track = None if track is None else int(track)
        build = rec.get("build")
        build = None if build is None else int(build)
        message = str(rec.get("message") or "")
        recovered = bool(rec.get("recovered", False))
        now = self._now()
        given = self._new_id("faults")

        def work(db):
            if session_id is not None:
                self._session_row(db, session_id)
            elif build is not None:
                raise ValueError("a fault with a build number needs its session")
            fid = db.execute(
                "INSERT INTO faults (id, session_id, kind, track, build, message, recovered,"
                " at, recovered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (given, session_id, kind, track, build, message, 1 if recovered else 0, now,
                 now if recovered else None)).lastrowid
            self._log(db, session_id, "fault",
                      {"fault": fid, "kind": kind, "track": track, "build": build,
                       "message": message, "recovered": recovered}, now)
            return fid

        try:
            fid = self._commit(work)
        except sqlite3.IntegrityError as e:
            raise ValueError("fault names build %r, not journalled in session %r (%s)"
                             % (build, session_id, e)) from e
        return given if given is not None else fid

    record_fault = fault

    def fault_recovered(self, fault_id):
        """The fault was recovered from (e.g. a jam cleared and the build resumed)."""
        now = self._now()

        def work(db):
            row = db.execute("SELECT * FROM faults WHERE id = ?", (fault_id,)).fetchone()
            if row is None:
                raise ValueError("no fault %r in journal %s" % (fault_id, self.path))
            if row["recovered"]:
                return False
            db.execute("UPDATE faults SET recovered = 1, recovered_at = ? WHERE id = ?",
                       (now, fault_id))
            self._log(db, row["session_id"], "fault_recovered", {"fault": fault_id}, now)
            return True

        return self._commit(work)

    # -- other transitions and events -------------------------------------------------
    def transition(self, session_id, kind, /, **data):
        """Any other state transition (``lift_done``, ``hand_over``, ``link_lost`` ...):
        committed before returning, with every buffered event before it."""
        now = self._now()

        def work(db):
            if session_id is not None:
                    self._session_row(db, session_id)
            self._log(db, session_id, kind, data, now)

        self._commit(work)

    def event(self, session_id, kind, /, **data):
        """A tile event (or anything that may be lost in a crash): buffered, written with
        the next transition or flush.  Flushes by itself when the buffer is older than
        ``flush_interval`` seconds or holds ``max_pending`` events."""
        now = self._now()
        with self._plock:
            if self._db is None:
                raise JournalError("journal %s is closed" % self.path)
            self._pending.append((session_id, kind, rows.dumps(data), now))
            if self._pending_since is None:
                self._pending_since = now
            due = (len(self._pending) >= self.max_pending
                   or now - self._pending_since >= self.flush_interval)
        if due:
            self.flush()

    def flush(self):
        """Write the buffered events now (one commit).  Returns how many were written."""
        with self._plock:
            n = len(self._pending)
        if n and self._db is not None:
            self._commit(None)
        return n

    @property
    def pending(self):
        return len(self._pending)

    async def flush_every(self, interval=None):
        """Run as an asyncio task: flush buffered events every ``interval`` seconds (the
        journal's ``flush_interval`` by default) until cancelled or closed."""
        interval = self.flush_interval if interval is None else float(interval)
        while self._db is not None:
            await asyncio.sleep(interval)
            if self._pending:
                self.flush()
