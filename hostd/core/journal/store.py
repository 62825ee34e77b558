"""The journal's file (CPython only): the checks of its path, the exclusive lock, opening
(the schema checked, a new journal created, an older one migrated: schema.py), closing;
and every write's transaction, committed on the caller's thread or queued to the writer
thread (writer.py), with the buffered tile events first.  Reads get a connection of their
own beside the writer."""
import fcntl
import os
import sqlite3
import stat
import threading
import time

from hostd.core.journal import rows, schema
from hostd.core.journal.errors import (JournalConflict, JournalInUse, JournalNotWritable,
                                       NotAJournal, JournalTooNew, UnknownSession)
from hostd.core.journal.writer import Unit, Writer
from hostd.errors import JournalError


class Store:
    """The journal's file: opening it (the path, the lock, the schema), closing it, and
    running work in transactions, on the caller's thread or on the writer's."""

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
        if app_id != schema.APPLICATION_ID and (app_id != 0 or tables or version):
            raise NotAJournal(
                "%s is an SQLite database but not a jantaku journal (application_id 0x%08x, "
                "tables: %s); give a new path with --db"
                % (self.path, app_id & 0xFFFFFFFF, ", ".join(sorted(tables)) or "none")
            )
        if version > schema.SCHEMA_VERSION:
            raise JournalTooNew(
                "journal %s has schema version %d, written by a newer jantaku; this one reads "
                "up to version %d: upgrade jantaku, or give another --db path"
                % (self.path, version, schema.SCHEMA_VERSION)
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
                schema.create(self._db)
            elif version < schema.SCHEMA_VERSION:
                schema.migrate(self._db, version, self.path)
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

    # -- the writer thread (writer.py) -------------------------------------
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
                   (session_id, kind, rows.dumps(data), at))

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

    def _read(self, fn):
        if self._rdb is not None:  # beside the writer thread: never waits for a commit
            with self._rlock:
                if self._rdb is not None:
                    return fn(self._rdb)
        with self._lock:
            if self._db is None:
                raise JournalError("journal %s is closed" % self.path)
            return fn(self._db)
