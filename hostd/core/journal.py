"""The crash-proof journal: every session's state transitions in SQLite (CPython only).

Layer: below the session.  The session calls it; nothing here knows the table or bytes.

Guarantee (DESIGN §4): every **state transition** — a session created, a phase change,
a deck's composition, a build started or finished, a fault, a hand — is committed before
the method returns (WAL mode, ``PRAGMA synchronous=FULL``: the commit is on the disk when
``COMMIT`` returns).  The caller acts on a transition or reports it only after the call
returns, so a ``kill -9`` or a power cut never loses one that anything saw.  The
daemon runs the commits on a thread of their own (:meth:`Journal.start_writer`,
hostd/core/writer.py): a write method then queues and returns at once, and the daemon
awaits :meth:`Journal.synced` before it answers, publishes or moves a motor, which keeps
that promise while its event loop never waits for the disk.  **Tile
events** (:meth:`Journal.event`) are not transitions: they are buffered and written with
the next transition, by :meth:`Journal.flush` (e.g. from :meth:`Journal.flush_every`, an
asyncio task), when the buffer is older than ``flush_interval`` seconds at the next
event, or on :meth:`Journal.close`.  A crash may lose at most those.

Idempotency, so a restarted daemon cannot journal something twice:

* a build is keyed by (session, build number), a hand by (session, hand number), a deck
  by (session, game, name): a session holds games (:meth:`game`), each with its own split
  into decks (Mixed Deck) and its hands.  Repeating :meth:`build_started`, :meth:`build_finished`,
  :meth:`hand` or :meth:`deck` returns the row already there (``"new": False``) and
  changes nothing; a repeat that contradicts the record (another deck for the same build
  number, another composition for a deck) raises :class:`JournalConflict`.
* new numbers must follow on: build ``n + 1`` after build ``n`` (a build that never
  finished is retried under its own number), hand ``n + 1`` after hand ``n``.
* at most one session is open (a partial unique index); :meth:`open_session` finds it
  for resuming.

Reading back: :meth:`session_summary` gives a session's decks, builds, hands and faults
in the shape of the demo/status JSON; :meth:`open_session` the unfinished session with
what a resume needs; :meth:`events`; :meth:`check` runs SQLite's integrity and foreign
key checks.  The browsers paired with the page (:meth:`browsers`, :meth:`browser_paired`,
:meth:`browsers_unpaired`) are kept here too, so a restart does not unpair them.

The file carries ``PRAGMA application_id`` = 'JNTK' and ``PRAGMA user_version`` =
:data:`SCHEMA_VERSION`.  Opening a file written by a newer jantaku, a file that is not a
jantaku journal, or a path that can't be written raises a :class:`~hostd.errors.JournalError`
subclass whose message says what to do.  One process writes a journal at a time (an
advisory ``flock`` on the file; ``exclusive=False`` opens it beside a running daemon,
e.g. to read a summary).

Times (``*_at``) are wall-clock Unix seconds; the summaries leave them out unless asked
(``times=True``), so a seeded demo's summary is the same on every run.
"""
import asyncio
import fcntl
import json
import os
import sqlite3
import stat
import threading
import time

from hostd.core.writer import Unit, Writer
from hostd.errors import JournalError

SCHEMA_VERSION = 6
APPLICATION_ID = 0x4A4E544B  # b"JNTK"
DECKS = ("A", "B")
STATES = ("open", "ended", "aborted", "failed")
MAX_ID = 2 ** 63 - 1  # the largest integer SQLite keeps: history(before=...) is bounded by it


#: the events :meth:`Journal.prune` keeps of an old session (how it began and ended)
KEPT_EVENTS = "('session_created', 'session_ended')"


def _delete_session(db, session_id):
    for table in ("events", "scores", "faults", "hands", "builds", "decks", "games"):
        db.execute("DELETE FROM %s WHERE session_id = ?" % table, (session_id,))
    db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))


class JournalNotWritable(JournalError):
    code = "journal_not_writable"


class NotAJournal(JournalError):
    code = "not_a_journal"


class JournalTooNew(JournalError):
    code = "journal_too_new"


class JournalInUse(JournalError):
    code = "journal_in_use"


class JournalConflict(JournalError):
    """A repeat that contradicts what the journal already holds."""

    code = "journal_conflict"
    status = 409


class UnknownSession(JournalError):
    code = "unknown_session"
    status = 404


# the browsers paired with the page (hostd/web/pairing.py), kept across restarts: the
# SHA-256 of each one's cookie (never the cookie), its id, times (wall clock) and what the
# host is shown of it
_BROWSERS = """CREATE TABLE IF NOT EXISTS browsers (
        digest      TEXT    PRIMARY KEY CHECK (length(digest) = 64),
        id          TEXT    NOT NULL UNIQUE,
        paired_at   REAL    NOT NULL,
        last_seen   REAL    NOT NULL,
        expires_at  REAL    NOT NULL,
        address     TEXT    NOT NULL DEFAULT '',
        browser     TEXT    NOT NULL DEFAULT ''
    )"""

# the game ledger's entries (hostd/game, docs/SCORING.md), as people entered them (an
# undo is an entry too): a game's ledger is their replay
_SCORES = """CREATE TABLE IF NOT EXISTS scores (
        session_id INTEGER NOT NULL REFERENCES sessions (id),
        game       INTEGER NOT NULL CHECK (game >= 1),
        n          INTEGER NOT NULL CHECK (n >= 1),
        entry      TEXT    NOT NULL,
        at         REAL    NOT NULL,
        PRIMARY KEY (session_id, game, n)
    )"""

_SCHEMA = [
    """CREATE TABLE sessions (
        id          INTEGER PRIMARY KEY,
        ruleset     TEXT    NOT NULL CHECK (length(ruleset) > 0),
        mixed_deck  INTEGER NOT NULL CHECK (mixed_deck IN (0, 1)),
        sets        TEXT    NOT NULL,
        seed        TEXT,
        state       TEXT    NOT NULL DEFAULT 'open'
                    CHECK (state IN ('open', 'ended', 'aborted', 'failed')),
        phase       TEXT    NOT NULL,
        phase_data  TEXT    NOT NULL DEFAULT '{}',
        created_at  REAL    NOT NULL,
        ended_at    REAL,
        CHECK ((state = 'open') = (ended_at IS NULL))
    )""",
    "CREATE UNIQUE INDEX sessions_one_open ON sessions (state) WHERE state = 'open'",
    """CREATE TABLE decks (
        session_id  INTEGER NOT NULL REFERENCES sessions (id),
        name        TEXT    NOT NULL CHECK (name IN ('A', 'B')),
        tiles       INTEGER NOT NULL CHECK (tiles >= 0),
        backs       TEXT    NOT NULL,
        recorded_at REAL    NOT NULL,
        game        INTEGER NOT NULL DEFAULT 1 CHECK (game >= 1),
        split       INTEGER NOT NULL DEFAULT 1 CHECK (split >= 1),
        PRIMARY KEY (session_id, game, split, name)
    )""",
    """CREATE TABLE builds (
        session_id  INTEGER NOT NULL REFERENCES sessions (id),
        build       INTEGER NOT NULL CHECK (build >= 1),
        deck        TEXT    NOT NULL CHECK (deck IN ('A', 'B')),
        targets     TEXT    NOT NULL,
        per_track   TEXT,
        backs       TEXT,
        sim_seconds REAL,
        ok          INTEGER CHECK (ok IN (0, 1)),
        started_at  REAL    NOT NULL,
        finished_at REAL,
        PRIMARY KEY (session_id, build),
        CHECK ((finished_at IS NULL) = (ok IS NULL))
    )""",
    """CREATE TABLE hands (
        session_id     INTEGER NOT NULL REFERENCES sessions (id),
        hand           INTEGER NOT NULL CHECK (hand >= 1),
        deck           TEXT    NOT NULL CHECK (deck IN ('A', 'B')),
        dice           TEXT    NOT NULL,
        breaker        TEXT,
        break_position TEXT,
        turnaround_sim_seconds REAL,
        recorded_at    REAL    NOT NULL,
        game           INTEGER NOT NULL DEFAULT 1 CHECK (game >= 1),
        started_by     TEXT,
        dice_by        TEXT,
        split          INTEGER NOT NULL DEFAULT 1 CHECK (split >= 1),
        PRIMARY KEY (session_id, hand)
    )""",
    """CREATE TABLE games (
        session_id  INTEGER NOT NULL REFERENCES sessions (id),
        game        INTEGER NOT NULL CHECK (game >= 1),
        first_hand  INTEGER NOT NULL CHECK (first_hand >= 1),
        started_at  REAL    NOT NULL,
        PRIMARY KEY (session_id, game)
    )""",
    """CREATE TABLE faults (
        id           INTEGER PRIMARY KEY,
        session_id   INTEGER REFERENCES sessions (id),
        kind         TEXT    NOT NULL,
        track        INTEGER CHECK (track IS NULL OR track >= 1),
        build        INTEGER,
        message      TEXT    NOT NULL DEFAULT '',
        recovered    INTEGER NOT NULL DEFAULT 0 CHECK (recovered IN (0, 1)),
        at           REAL    NOT NULL,
        recovered_at REAL,
        FOREIGN KEY (session_id, build) REFERENCES builds (session_id, build)
    )""",
    "CREATE INDEX faults_session ON faults (session_id, id)",
    """CREATE TABLE events (
        id         INTEGER PRIMARY KEY,
        session_id INTEGER REFERENCES sessions (id),
        kind       TEXT    NOT NULL,
        data       TEXT    NOT NULL DEFAULT '{}',
        at         REAL    NOT NULL
    )""",
    "CREATE INDEX events_session ON events (session_id, id)",
    _BROWSERS,
    _SCORES,
]

# Migrations from an older schema: {from_version: [statements]} bringing it to
# from_version + 1 (run with foreign keys off, checked after).
_MIGRATIONS = {
    # 1 -> 2: a session that ended normally is 'ended' (was 'finished'); SQLite cannot
    # change a CHECK, so the table is made again
    1: [_SCHEMA[0].replace("CREATE TABLE sessions", "CREATE TABLE sessions_v2"),
        "INSERT INTO sessions_v2 SELECT id, ruleset, mixed_deck, sets, seed, "
        "CASE state WHEN 'finished' THEN 'ended' ELSE state END, phase, phase_data, "
        "created_at, ended_at FROM sessions",
        "DROP TABLE sessions",
        "ALTER TABLE sessions_v2 RENAME TO sessions",
        "CREATE UNIQUE INDEX sessions_one_open ON sessions (state) WHERE state = 'open'"],
    # 2 -> 3: games (a session holds games; a deck's composition is per game)
    2: [_SCHEMA[2].replace("CREATE TABLE decks", "CREATE TABLE decks_v3")
        .replace("        split       INTEGER NOT NULL DEFAULT 1 CHECK (split >= 1),\n", "")
        .replace("PRIMARY KEY (session_id, game, split, name)", "PRIMARY KEY (session_id, game, name)"),
        "INSERT INTO decks_v3 (session_id, name, tiles, backs, recorded_at, game) "
        "SELECT session_id, name, tiles, backs, recorded_at, 1 FROM decks",
        "DROP TABLE decks",
        "ALTER TABLE decks_v3 RENAME TO decks",
        "ALTER TABLE hands ADD COLUMN game INTEGER NOT NULL DEFAULT 1 CHECK (game >= 1)",
        "ALTER TABLE hands ADD COLUMN started_by TEXT",
        "ALTER TABLE hands ADD COLUMN dice_by TEXT",
        _SCHEMA[5],
        "INSERT INTO games (session_id, game, first_hand, started_at) "
        "SELECT id, 1, 1, created_at FROM sessions"],
    # 3 -> 4: a game's decks may be split again (after a table restart): decks keyed by
    # split too, and each hand says which split it was played on
    3: [_SCHEMA[2].replace("CREATE TABLE decks", "CREATE TABLE decks_v4"),
        "INSERT INTO decks_v4 (session_id, name, tiles, backs, recorded_at, game, split) "
        "SELECT session_id, name, tiles, backs, recorded_at, game, 1 FROM decks",
        "DROP TABLE decks",
        "ALTER TABLE decks_v4 RENAME TO decks",
        "ALTER TABLE hands ADD COLUMN split INTEGER NOT NULL DEFAULT 1 CHECK (split >= 1)"],
    # 4 -> 5: paired browsers survive a restart
    4: [_BROWSERS],
    # 5 -> 6: the game ledger's entries
    5: [_SCORES],
}


def _backs_text(backs):
    return ", ".join("%s %d" % (k, backs[k]) for k in sorted(backs))


def _dumps(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def _loads(text):
    return None if text is None else json.loads(text)


def _seed(text):
    """Seeds are stored as text (they may exceed SQLite's 64-bit integers)."""
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        return text


def _backs(backs):
    if not isinstance(backs, dict):
        raise ValueError("backs must be a dict of back colour -> tile count, got %r" % (backs,))
    out = {}
    for k, v in backs.items():
        if not isinstance(k, str) or not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ValueError("backs must map colour names to counts >= 0, got %r" % (backs,))
        out[k] = v
    return out


def _ints(seq, what):
    try:
        out = [int(x) for x in seq]
    except (TypeError, ValueError):
        raise ValueError("%s must be a list of integers, got %r" % (what, seq)) from None
    return out


def _deck(name):
    if name not in DECKS:
        raise ValueError("deck must be 'A' or 'B', got %r" % (name,))
    return name


def _plain(obj):
    """A break result may be a dict, a pydantic model or an object with contract_dict()."""
    if obj is None or isinstance(obj, (dict, list, str, int, float, bool)):
        return obj
    for attr in ("contract_dict", "model_dump", "_asdict"):
        fn = getattr(obj, attr, None)
        if callable(fn):
            return fn()
    raise ValueError("cannot journal %r: give a dict" % (obj,))


class Journal:
    """One journal file.  Thread-safe (one lock); every write method is synchronous and
    returns after COMMIT.  Use as a context manager or call :meth:`close`."""

    def __init__(self, path, *, exclusive=True, flush_interval=1.0, max_pending=1000,
                 clock=time.time):
        self.path = os.fspath(path)
        self.flush_interval = float(flush_interval)
        self.max_pending = int(max_pending)
        self._now = clock
        self._lock = threading.RLock()  # the database connection
        self._plock = threading.Lock()  # the buffered events (never held across a commit)
        self._writer = None  # the writer thread, once started (start_writer)
        self._ids = {}  # table -> the last id given out, with the writer running
        self._rdb = None  # the readers' connection, with the writer running
        self._rlock = threading.Lock()
        self._pending = []  # buffered (session_id, kind, data_json, at)
        self._pending_since = None
        self._db = None
        self._lockfd = None
        memory = self.path == ":memory:"
        if not memory:
            self._check_path()
            if exclusive:
                self._take_lock()
        try:
            try:
                self._db = sqlite3.connect(
                    self.path, isolation_level=None, check_same_thread=False, timeout=10.0
                )
            except sqlite3.Error as e:
                raise JournalNotWritable(
                    "cannot open journal %s: %s; check the path and its permissions" % (self.path, e)
                ) from e
            self._db.row_factory = sqlite3.Row
            self._setup(memory)
        except BaseException:
            self._close_handles()
            raise

    # -- opening --------------------------------------------------------------------
    def _check_path(self):
        path = self.path
        parent = os.path.dirname(os.path.abspath(path))
        try:
            st = os.stat(parent)
        except PermissionError:
            raise JournalNotWritable(
                "journal %s: directory %s cannot be reached by this user (uid %d): permission "
                "denied on it or a directory above it" % (path, parent, os.getuid())
            ) from None
        except OSError:
            st = None
        if st is None or not stat.S_ISDIR(st.st_mode):
            raise JournalNotWritable(
                "journal %s: directory %s does not exist; create it (the systemd unit's "
                "StateDirectory= does) or give another --db path" % (path, parent)
            )
        if os.path.isdir(path):
            raise NotAJournal("journal %s is a directory; give a file path (e.g. %s)"
                              % (path, os.path.join(path, "journal.sqlite")))
        if os.path.exists(path) and not os.access(path, os.R_OK | os.W_OK):
            raise JournalNotWritable(
                "journal %s is not readable and writable by this user (uid %d); fix its "
                "owner or mode, or give another --db path" % (path, os.getuid())
            )
        # WAL mode keeps <path>-wal and <path>-shm beside the file: the directory must be
        # writable even when the file exists.
        if not os.access(parent, os.W_OK | os.X_OK):
            raise JournalNotWritable(
                "journal %s: directory %s is not writable by this user (uid %d); the journal "
                "needs it for the file and its -wal/-shm companions" % (path, parent, os.getuid())
            )

    def _take_lock(self):
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o640)
        except OSError as e:
            raise JournalNotWritable("cannot open journal %s: %s" % (self.path, e.strerror)) from e
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise JournalInUse(
                "journal %s is in use by another jantaku process (stop it first, or open "
                "this one read-only beside it)" % self.path
            ) from None
        # Kept open until after SQLite's connection closes: closing any descriptor of the
        # file would drop SQLite's own POSIX locks on it.
        self._lockfd = fd

    def _setup(self, memory):
        db = self._db
        try:
            app_id = db.execute("PRAGMA application_id").fetchone()[0]
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        except sqlite3.DatabaseError as e:
            raise NotAJournal(
                "%s is not a jantaku journal (%s); give a new path with --db" % (self.path, e)
            ) from e
        if app_id != APPLICATION_ID and (app_id != 0 or tables or version):
            raise NotAJournal(
                "%s is an SQLite database but not a jantaku journal (application_id 0x%08x, "
                "tables: %s); give a new path with --db"
                % (self.path, app_id & 0xFFFFFFFF, ", ".join(sorted(tables)) or "none")
            )
        if version > SCHEMA_VERSION:
            raise JournalTooNew(
                "journal %s has schema version %d, written by a newer jantaku; this one reads "
                "up to version %d: upgrade jantaku, or give another --db path"
                % (self.path, version, SCHEMA_VERSION)
            )
        try:
            if not memory:
                mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    # Rollback-journal mode with synchronous=FULL is crash-safe too, only
                    # slower; WAL is refused on some network file systems.
                    import structlog

                    structlog.get_logger("jantaku.journal").warning(
                        "journal_not_wal", path=self.path, journal_mode=mode)
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            if app_id == 0:
                self._create()
            elif version < SCHEMA_VERSION:
                self._migrate(version)
        except sqlite3.OperationalError as e:
            raise self._write_error(e) from e

    def _write_error(self, e):
        text = str(e)
        if "readonly" in text or "read-only" in text or "unable to open" in text:
            return JournalNotWritable(
                "journal %s cannot be written (%s); fix its owner or mode, or give another "
                "--db path" % (self.path, text)
            )
        return JournalError("journal %s: %s" % (self.path, text))

    def _create(self):
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            # another process may have created it between our look and this lock
            if db.execute("PRAGMA application_id").fetchone()[0] == 0:
                for stmt in _SCHEMA:
                    db.execute(stmt)
                db.execute("PRAGMA application_id=%d" % APPLICATION_ID)
                db.execute("PRAGMA user_version=%d" % SCHEMA_VERSION)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _migrate(self, version):
        db = self._db
        db.execute("PRAGMA foreign_keys=OFF")  # a table made again keeps its references
        try:
            self._migrate_steps(version)
        finally:
            db.execute("PRAGMA foreign_keys=ON")
        bad = db.execute("PRAGMA foreign_key_check").fetchall()
        if bad:
            raise JournalError("journal %s: the migration left %d broken references"
                               % (self.path, len(bad)))

    def _migrate_steps(self, version):
        db = self._db
        while version < SCHEMA_VERSION:
            steps = _MIGRATIONS.get(version)
            if steps is None:
                raise JournalError(
                    "journal %s has schema version %d and this jantaku has no migration from "
                    "it; give a new --db path" % (self.path, version)
                )
            db.execute("BEGIN IMMEDIATE")
            try:
                for stmt in steps:
                    db.execute(stmt)
                db.execute("PRAGMA user_version=%d" % (version + 1))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            version += 1

    # -- closing --------------------------------------------------------------------
    def close(self):
        """Flush buffered events (with the writer thread: commit everything queued and
        end the thread) and close.  Safe to call twice."""
        if self._writer is not None and self._db is not None:
            try:
                if self._writer.failure is None:
                    self.flush()
            finally:
                self._writer.stop()
                self._writer, self._ids = None, {}
        with self._lock:
            if self._db is not None:
                try:
                    if self._writer is None:
                        self.flush()
                finally:
                    self._close_handles()

    def _close_handles(self):
        if self._rdb is not None:
            with self._rlock:
                self._rdb.close()
                self._rdb = None
        if self._db is not None:
            try:
                self._db.close()
            finally:
                self._db = None
        if self._lockfd is not None:
            os.close(self._lockfd)
            self._lockfd = None

    @property
    def closed(self):
        return self._db is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- transactions ---------------------------------------------------------------
    def _commit(self, work, *, wait=False):
        """Run work(db) in one IMMEDIATE transaction together with the buffered events
        and COMMIT (synchronous=FULL) before returning its result.

        With the writer thread started (:meth:`start_writer`), the work is queued instead
        and this returns None at once (``wait=True``: blocks until it is committed and
        returns its result); :meth:`synced` awaits the commit."""
        if self._writer is not None:
            with self._plock:
                events, self._pending, self._pending_since = self._pending or None, [], None
                unit = self._writer.put(events, work)
            return self._writer.wait(unit) if wait else None
        with self._lock:
            with self._plock:
                pending = list(self._pending)
            units = [Unit(0, pending or None, work)]
            self._run_batch(units)
            with self._plock:
                del self._pending[:len(pending)]
                if not self._pending:
                    self._pending_since = None
            if units[0].error is not None:
                raise units[0].error
            return units[0].result

    def _run_batch(self, units):
        """Every unit in one transaction (the writer's group commit): a unit's events,
        then its work inside a savepoint, so a unit that raises (its ``error``) leaves the
        others whole.  Raises if the transaction itself fails."""
        with self._lock:
            if self._db is None:
                raise JournalError("journal %s is closed" % self.path)
            db = self._db
            # tile events alone may be lost in a crash (the module's doc): their commit
            # does not wait for the disk (WAL, synchronous=NORMAL: on the disk with the
            # next transition's), so a slow card holds no transition up behind them
            light = all(u.work is None for u in units)
            try:
                if light:
                    db.execute("PRAGMA synchronous=NORMAL")
                db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as e:
                raise self._write_error(e) from e
            try:
                for u in units:
                    self._run_unit(db, u)
                db.execute("COMMIT")
            except BaseException as e:
                try:
                    db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                if isinstance(e, sqlite3.OperationalError):
                    raise self._write_error(e) from e
                raise
            finally:
                if light:
                    db.execute("PRAGMA synchronous=FULL")

    def _run_unit(self, db, u):
        if u.events:
            db.executemany(
                "INSERT INTO events (session_id, kind, data, at) VALUES (?, ?, ?, ?)", u.events)
        if u.work is None:
            return
        db.execute("SAVEPOINT unit")
        try:
            u.result = u.work(db)
        except Exception as e:  # noqa: BLE001 - the unit's caller gets it
            db.execute("ROLLBACK TO unit")
            u.error = self._write_error(e) if isinstance(e, sqlite3.OperationalError) else e
        db.execute("RELEASE unit")

    # -- the writer thread (hostd/core/writer.py) -------------------------------------
    def start_writer(self):
        """Commit on a thread of its own from now on (the daemon: its event loop never
        waits for the disk).  Write methods then queue and return at once; await
        :meth:`synced` before acting on or reporting what they wrote.  Ids a caller needs
        at once (a session's, a fault's) are given out here, in order."""
        with self._lock:
            if self._writer is not None:
                return
            if self._db is None:
                raise JournalError("journal %s is closed" % self.path)
            for table in ("sessions", "faults"):
                self._ids[table] = self._db.execute(
                    "SELECT coalesce(max(id), 0) FROM %s" % table).fetchone()[0]
            self._open_reader()
            self._writer = Writer(self._run_batch)
            self._writer.start()

    def _open_reader(self):
        """Reads get a connection of their own (WAL lets them run beside a commit), so a
        read on the event loop does not wait for the disk either."""
        if self.path == ":memory:":
            return
        try:
            self._rdb = sqlite3.connect(self.path, isolation_level=None,
                                        check_same_thread=False, timeout=10.0)
            self._rdb.row_factory = sqlite3.Row
        except sqlite3.Error:
            self._rdb = None  # reads share the writer's connection

    def _new_id(self, table):
        """The next id of ``table`` with the writer running (None: SQLite gives it)."""
        if table not in self._ids:
            return None
        with self._plock:
            self._ids[table] += 1
            return self._ids[table]

    async def synced(self, upto=None):
        """Return once everything written so far is committed (at once without the writer
        thread); raises the journal's failure if a write could not be committed."""
        if self._writer is not None:
            await self._writer.synced(upto)

    @property
    def queued(self):
        """The number of the last write queued to the writer thread (0 without it)."""
        return self._writer.queued if self._writer is not None else 0

    @property
    def uncommitted(self):
        """Writes queued to the writer thread and not committed yet."""
        return self._writer.uncommitted if self._writer is not None else 0

    def _log(self, db, session_id, kind, data, at):
        db.execute("INSERT INTO events (session_id, kind, data, at) VALUES (?, ?, ?, ?)",
                   (session_id, kind, _dumps(data), at))

    def _session_row(self, db, session_id):
        row = db.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise UnknownSession("no session %r in journal %s" % (session_id, self.path))
        return row

    def _open_row(self, db, session_id):
        row = self._session_row(db, session_id)
        if row["state"] != "open":
            raise JournalConflict("session %d is %s, not open" % (session_id, row["state"]))
        return row

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
                (given, ruleset, 1 if mixed_deck else 0, _dumps(sets),
                 None if seed is None else str(seed), phase, _dumps(phase_data), now),
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
                       (phase, _dumps(data), session_id))
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
        _deck(name)
        game, split = int(game), int(split)
        backs = _backs(composition["backs"])
        tiles = int(composition.get("tiles", sum(backs.values())))
        if tiles != sum(backs.values()):
            raise ValueError("deck %s: tiles %d != sum of backs %s" % (name, tiles, backs))
        now = self._now()

        def work(db):
            self._open_row(db, session_id)
            old = db.execute("SELECT * FROM decks WHERE session_id = ? AND game = ? AND split = ?"
                             " AND name = ?", (session_id, game, split, name)).fetchone()
            if old is not None:
                if old["tiles"] != tiles or _loads(old["backs"]) != backs:
                    raise JournalConflict(
                        "deck %s of session %d, game %d (split %d) is already journalled as "
                        "%d tiles (%s), not %d tiles (%s)"
                        % (name, session_id, game, split, old["tiles"],
                           _backs_text(_loads(old["backs"])), tiles, _backs_text(backs)))
                return {"name": name, "tiles": tiles, "backs": backs, "new": False}
            db.execute("INSERT INTO decks (session_id, name, tiles, backs, recorded_at, game,"
                       " split) VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (session_id, name, tiles, _dumps(backs), now, game, split))
            self._log(db, session_id, "deck", {"deck": name, "tiles": tiles, "backs": backs,
                                               "game": game, "split": split}, now)
            return {"name": name, "tiles": tiles, "backs": backs, "new": True}

        return self._commit(work)

    # -- builds ---------------------------------------------------------------------
    def build_started(self, session_id, build, deck, targets):
        """Build number ``build`` (from 1 in the session) of ``deck`` started with these
        per-track targets.  Repeating it (a retry after a fault or a restart) returns the
        journalled row with ``"new": False``."""
        _deck(deck)
        build = int(build)
        targets = _ints(targets, "targets")
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
                       " VALUES (?, ?, ?, ?, ?)", (session_id, build, deck, _dumps(targets), now))
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
        per_track = _ints(record["per_track"], "per_track")
        backs = _backs(record["backs"])
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
                       (_dumps(per_track), _dumps(backs), sim_seconds, 1 if ok else 0, now,
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
        deck = _deck(record["deck"])
        dice = _ints(record.get("dice") or [], "dice")
        breaker = record.get("breaker")
        game = int(record.get("game", 1))
        split = int(record.get("split", 1))
        started_by = record.get("by")
        dice_by = record.get("dice_by")
        turnaround = record.get("turnaround_sim_seconds")
        turnaround = None if turnaround is None else float(turnaround)
        brk = _plain(brk)
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
                       (session_id, number, deck, _dumps(dice), breaker,
                        None if brk is None else _dumps(brk), turnaround, now, game,
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
        dice = _ints(dice, "dice")
        brk = _plain(brk)
        now = self._now()

        def work(db):
            self._open_row(db, session_id)
            n = db.execute("UPDATE hands SET dice = ?, breaker = ?, break_position = ?, dice_by = ?"
                           " WHERE session_id = ? AND hand = ?",
                           (_dumps(dice), brk.get("breaker"), _dumps(brk), by, session_id,
                            number)).rowcount
            if n != 1:
                raise ValueError("session %d has no hand %d to throw for" % (session_id, number))
            self._log(db, session_id, "dice", dict(brk, hand=number, dice=dice, by=by), now)

        self._commit(work)

    # -- faults ---------------------------------------------------------------------
    def score_entry(self, session_id, game, n, entry):
        """The ``n``-th entry (1, 2 ...) of game ``game``'s ledger, as a person entered it
        (a dict; an undo is an entry too).  Committed before it returns, as a transition."""
        now = self._now()
        text = _dumps(entry)

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

    def score_entries(self, session_id, *, times=False):
        """Every game's ledger entries of a session: ``{game: [entry, ...]}`` in order
        (``times=True``: each as ``{"entry", "at"}``)."""
        def read(db):
            out = {}
            for r in db.execute("SELECT game, entry, at FROM scores WHERE session_id = ? "
                                "ORDER BY game, n", (session_id,)):
                e = _loads(r["entry"])
                out.setdefault(r["game"], []).append({"entry": e, "at": r["at"]} if times else e)
            return out
        return self._read(read)

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
            self._pending.append((session_id, kind, _dumps(data), now))
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

    # -- reading back ---------------------------------------------------------------
    @staticmethod
    def _build_dict(row, *, times=False):
        d = {
            "build": row["build"],
            "deck": row["deck"],
            "targets": _loads(row["targets"]),
            "per_track": _loads(row["per_track"]),
            "backs": _loads(row["backs"]),
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
            "dice": _loads(row["dice"]),
            "breaker": row["breaker"],
            "break_position": _loads(row["break_position"]),
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

    def _read(self, fn):
        if self._rdb is not None:  # beside the writer thread: never waits for a commit
            with self._rlock:
                if self._rdb is not None:
                    return fn(self._rdb)
        with self._lock:
            if self._db is None:
                raise JournalError("journal %s is closed" % self.path)
            return fn(self._db)

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
                "seed": _seed(seed),
                "sets": _loads(s["sets"]),
                "state": s["state"],
                "phase": s["phase"],
                "phase_data": _loads(s["phase_data"]),
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
                                                                  "backs": _loads(r["backs"])}
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
            return {"state": s["state"], "reason": _loads(r["data"]).get("reason") if r else None}

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
                     "data": _loads(r["data"]), "at": r["at"]} for r in db.execute(sql, args)]

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

    @property
    def schema_version(self):
        return self._read(lambda db: db.execute("PRAGMA user_version").fetchone()[0])
