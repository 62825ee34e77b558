"""The ledger's errors: each a :class:`hostd.errors.JantakuError`, so the API answers
with its status and the message says what was wrong and what is accepted.

    LedgerError           the base (catch this)
    BadEntry       400    the entry itself is wrong: unknown kind or field, a player who is
                          not one, a han/fu that cannot be, a field this ruleset does not use
    NotNow         409    a valid entry the game cannot take now: after the game ended, a
                          riichi without 1,000 points, an undo with nothing to undo
    RulesetForbids 422    a valid entry this ruleset has no rule for (several winners in
                          WSOM, a pass in Shenyang, ...)

Each refusal a person can meet at the page also carries a translation ``key`` and its
``params`` (players as winds, numbers): the API's error object has them beside the
English ``message``, so a front end says the refusal in its own language (the page's
words.js ``score.why``) and falls back to the message for a key it does not know.
"""
from __future__ import annotations

from hostd.errors import BadRequest, JantakuError, NotReady, Refused


class LedgerError(JantakuError):
    """Any entry the ledger refuses; the ledger is unchanged.  ``key`` and ``params``: the
    refusal's translation key and values (module doc)."""

    def __init__(self, message, *, key=None, **params):
        super().__init__(message)
        self.key = key
        self.params = params
        if key is not None:
            self.details.update(key=key, params=params)


class BadEntry(LedgerError, BadRequest):
    code = "bad_entry"


class NotNow(LedgerError, NotReady):
    code = "not_now"


class RulesetForbids(LedgerError, Refused):
    code = "ruleset_forbids"
