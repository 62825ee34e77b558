"""Hand analyser (host side, CPython): closed hands in mpsz with up to 8 copies of a face
(Mixed Deck), their decompositions, waits and wait types, completable tenpai and Mixed
Deck's yaku. docs/HANDS.md says what it decides and why.

Modules: ``notation`` (reading a hand), ``shapes`` (decompositions), ``waits``, ``yaku``,
``analysis`` (all of it as one dict), ``api`` (``POST /hand/check``); the CLI is
``hostd.cli.hand`` (``jantaku hand check``).
"""
from hostd.hand.analysis import analyse, parse_backs
from hostd.hand.notation import FACES, Hand, HandError, parse_hand

__all__ = ["analyse", "parse_backs", "parse_hand", "Hand", "HandError", "FACES"]
