"""The journal's errors: each a :class:`hostd.errors.JournalError`, whose message says
what to do (docs/ARCHITECTURE.md §6a)."""
from hostd.errors import JournalError


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
