"""Hand analyser (host side, CPython): hands in mpsz with up to 8 copies of a face (Mixed
Deck), with called melds and kans; their decompositions, waits and wait types,
completable tenpai, Mixed Deck's yaku and the rulings that bear on them. docs/HANDS.md
says what it decides and why.

Modules: ``tiles`` (faces and tokens), ``calls`` (called melds), ``notation`` (a whole
hand), ``suits`` (one suit's tests and readings), ``shapes`` (decompositions), ``waits``,
``yaku``, ``rulings``, ``analysis`` (all of it as one dict), ``api`` (``POST
/hand/check``); the CLI is ``hostd.cli.hand`` (``jantaku hand check``).

The scorer (docs/HANDS.md "Scoring"): ``win`` (how a hand was won), ``readings`` (each
decomposition with its final block), ``riichi_yaku``, ``local_yaku``, ``fu``, ``dora``,
``limits`` (limits and payments), ``chips``, ``scoring_rules`` (the options as data),
``score_rulings``, ``score`` (all of it as one dict), ``score_api`` (``POST /hand/score``);
the CLI is ``hostd.cli.hand_score`` (``jantaku hand score``).
"""
from hostd.hand.analysis import analyse, parse_backs
from hostd.hand.calls import Call, make_call, parse_call
from hostd.hand.notation import FACES, Hand, HandError, parse_hand

__all__ = ["analyse", "parse_backs", "parse_hand", "parse_call", "make_call", "Call", "Hand",
           "HandError", "FACES", "clear_caches"]


def clear_caches() -> None:
    """Forget anything remembered between hands. The analyser and the scorer keep no cache
    (they work every hand out afresh; their tables are made once, at import); this is here
    so that a benchmark can say it cleared them and so that one added later is cleared
    too."""
