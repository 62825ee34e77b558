"""The game ledger (issue #40; docs/SCORING.md): a game's seats, dealer, honba, riichi
sticks, points and chips, kept entry by entry under each ruleset's payments. Pure code:
the daemon, journal, API and page build on it.

Modules: ``errors`` (LedgerError and its 400/409/422 kinds), ``seats`` (winds, turn
order), ``entries`` (the ``POST /score`` entries, pydantic), ``values`` (a winner's hand value per
ruleset, han/fu through hostd/hand/limits.py), ``payments`` (who pays whom), ``game``
(the running state, next hand, the end), ``results`` (what each entry does), ``ledger``
(:class:`Ledger`: apply, undo, state, entries, replay; ``rules_for`` and
``with_options``, the ledger's lookups of its rules). Each ruleset's game rules as data
are hostd/rules/game.py.
"""
