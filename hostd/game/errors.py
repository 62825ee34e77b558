"""The ledger's errors: each a :class:`hostd.errors.JantakuError`, so the API answers
with its status and the message says what was wrong and what is accepted.

    LedgerError           the base (catch this)
    BadEntry       400    the entry itself is wrong: unknown kind or field, a player who is
                          not one, a han/fu that cannot be, a field this ruleset does not use
    NotNow         409    a valid entry the game cannot take now: after the game ended, a
                          riichi without 1,000 points, an undo with nothing to undo
    RulesetForbids 422    a valid entry this ruleset has no rule for (several winners in
                          WSOM, a pass in Shenyang, ...)
"""
from __future__ import annotations

from hostd.errors import BadRequest, JantakuError, NotReady, Refused


class LedgerError(JantakuError):
    """Any entry the ledger refuses; the ledger is unchanged."""


class BadEntry(LedgerError, BadRequest):
    code = "bad_entry"


class NotNow(LedgerError, NotReady):
    code = "not_now"


class RulesetForbids(LedgerError, Refused):
    code = "ruleset_forbids"
