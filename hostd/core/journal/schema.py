"""The journal's schema: its tables, the version a journal of this jantaku has, and the
migrations from every earlier one (docs/ARCHITECTURE.md §6a).  A journal carries
``PRAGMA application_id`` = 'JNTK' and ``PRAGMA user_version`` = :data:`SCHEMA_VERSION`."""
from hostd.errors import JournalError

SCHEMA_VERSION = 6
APPLICATION_ID = 0x4A4E544B  # b"JNTK"
DECKS = ("A", "B")
STATES = ("open", "ended", "aborted", "failed")
MAX_ID = 2 ** 63 - 1  # the largest integer SQLite keeps: history(before=...) is bounded by it

# the browsers paired with the page (hostd/web/pairing.py), kept across restarts: the
# SHA-256 of each one's cookie (never the cookie), its id, times (wall clock) and what the
# host is shown of it
BROWSERS = """CREATE TABLE IF NOT EXISTS browsers (
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
SCORES = """CREATE TABLE IF NOT EXISTS scores (
        session_id INTEGER NOT NULL REFERENCES sessions (id),
        game       INTEGER NOT NULL CHECK (game >= 1),
        n          INTEGER NOT NULL CHECK (n >= 1),
        entry      TEXT    NOT NULL,
        at         REAL    NOT NULL,
        PRIMARY KEY (session_id, game, n)
    )"""

SCHEMA = [
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
    BROWSERS,
    SCORES,
]

# Migrations from an older schema: {from_version: [statements]} bringing it to
# from_version + 1 (run with foreign keys off, checked after).
MIGRATIONS = {
    # 1 -> 2: a session that ended normally is 'ended' (was 'finished'); SQLite cannot
    # change a CHECK, so the table is made again
    1: [SCHEMA[0].replace("CREATE TABLE sessions", "CREATE TABLE sessions_v2"),
        "INSERT INTO sessions_v2 SELECT id, ruleset, mixed_deck, sets, seed, "
        "CASE state WHEN 'finished' THEN 'ended' ELSE state END, phase, phase_data, "
        "created_at, ended_at FROM sessions",
        "DROP TABLE sessions",
        "ALTER TABLE sessions_v2 RENAME TO sessions",
        "CREATE UNIQUE INDEX sessions_one_open ON sessions (state) WHERE state = 'open'"],
    # 2 -> 3: games (a session holds games; a deck's composition is per game)
    2: [SCHEMA[2].replace("CREATE TABLE decks", "CREATE TABLE decks_v3")
        .replace("        split       INTEGER NOT NULL DEFAULT 1 CHECK (split >= 1),\n", "")
        .replace("PRIMARY KEY (session_id, game, split, name)", "PRIMARY KEY (session_id, game, name)"),
        "INSERT INTO decks_v3 (session_id, name, tiles, backs, recorded_at, game) "
        "SELECT session_id, name, tiles, backs, recorded_at, 1 FROM decks",
        "DROP TABLE decks",
        "ALTER TABLE decks_v3 RENAME TO decks",
        "ALTER TABLE hands ADD COLUMN game INTEGER NOT NULL DEFAULT 1 CHECK (game >= 1)",
        "ALTER TABLE hands ADD COLUMN started_by TEXT",
        "ALTER TABLE hands ADD COLUMN dice_by TEXT",
        SCHEMA[5],
        "INSERT INTO games (session_id, game, first_hand, started_at) "
        "SELECT id, 1, 1, created_at FROM sessions"],
    # 3 -> 4: a game's decks may be split again (after a table restart): decks keyed by
    # split too, and each hand says which split it was played on
    3: [SCHEMA[2].replace("CREATE TABLE decks", "CREATE TABLE decks_v4"),
        "INSERT INTO decks_v4 (session_id, name, tiles, backs, recorded_at, game, split) "
        "SELECT session_id, name, tiles, backs, recorded_at, game, 1 FROM decks",
        "DROP TABLE decks",
        "ALTER TABLE decks_v4 RENAME TO decks",
        "ALTER TABLE hands ADD COLUMN split INTEGER NOT NULL DEFAULT 1 CHECK (split >= 1)"],
    # 4 -> 5: paired browsers survive a restart
    4: [BROWSERS],
    # 5 -> 6: the game ledger's entries
    5: [SCORES],
}


def create(db):
    """A new journal's tables, its application id and version (one transaction)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        # another process may have created it between our look and this lock
        if db.execute("PRAGMA application_id").fetchone()[0] == 0:
            for stmt in SCHEMA:
                db.execute(stmt)
            db.execute("PRAGMA application_id=%d" % APPLICATION_ID)
            db.execute("PRAGMA user_version=%d" % SCHEMA_VERSION)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def migrate(db, version, path):
    """Bring a journal of schema ``version`` to :data:`SCHEMA_VERSION`, one version a
    transaction (foreign keys off while tables are made again, checked after)."""
    db.execute("PRAGMA foreign_keys=OFF")  # a table made again keeps its references
    try:
        _steps(db, version, path)
    finally:
        db.execute("PRAGMA foreign_keys=ON")
    bad = db.execute("PRAGMA foreign_key_check").fetchall()
    if bad:
        raise JournalError("journal %s: the migration left %d broken references"
                           % (path, len(bad)))


def _steps(db, version, path):
    while version < SCHEMA_VERSION:
        steps = MIGRATIONS.get(version)
        if steps is None:
            raise JournalError(
                "journal %s has schema version %d and this jantaku has no migration from "
                "it; give a new --db path" % (path, version)
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
