"""The crash-proof journal: every session's state transitions in SQLite (CPython only).

Layer: below the session.  The session calls it; nothing here knows the table or bytes.

Guarantee (DESIGN §4): every **state transition** — a session created, a phase change,
a deck's composition, a build started or finished, a fault, a hand — is committed before
the method returns (WAL mode, ``PRAGMA synchronous=FULL``: the commit is on the disk when
``COMMIT`` returns).  The caller acts on a transition or reports it only after the call
returns, so a ``kill -9`` or a power cut never loses one that anything saw.  The
daemon runs the commits on a thread of their own (:meth:`Journal.start_writer`,
hostd/core/journal/writer.py): a write method then queues and returns at once, and the daemon
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

The parts (one :class:`Journal` made of them): ``schema`` (tables, version, migrations),
``store`` (the file: its path, the lock, opening and closing; transactions, alone or on
the writer thread), ``writer`` (the commit thread), ``writes``, ``reads``, ``retention``
(:meth:`Journal.prune`), ``browsers`` (the paired browsers), ``rows`` (how values are kept),
``errors``.

Times (``*_at``) are wall-clock Unix seconds; the summaries leave them out unless asked
(``times=True``), so a seeded demo's summary is the same on every run.
"""

from hostd.core.journal.browsers import Browsers
from hostd.core.journal.errors import (JournalConflict, JournalInUse, JournalNotWritable,
                                       JournalTooNew, NotAJournal, UnknownSession)
from hostd.core.journal.reads import Reads
from hostd.core.journal.retention import Retention
from hostd.core.journal.schema import APPLICATION_ID, DECKS, MAX_ID, SCHEMA_VERSION, STATES
from hostd.core.journal.store import Store
from hostd.core.journal.writes import Writes
from hostd.errors import JournalError

__all__ = ["Journal", "JournalError", "JournalConflict", "JournalInUse", "JournalNotWritable",
           "JournalTooNew", "NotAJournal", "UnknownSession", "SCHEMA_VERSION",
           "APPLICATION_ID", "DECKS", "STATES", "MAX_ID"]


class Journal(Writes, Reads, Retention, Browsers, Store):
    """One journal file.  Thread-safe (one lock); every write method is synchronous and
    returns after COMMIT.  Use as a context manager or call :meth:`close`.  Its parts:
    store.py (the file, its transactions, the writer thread's side), writes.py, reads.py,
    retention.py, browsers.py."""
