"""How the journal keeps values in its rows: JSON text, seeds as text, and the checks of
what a write is given (a ValueError naming what was wrong and what is accepted)."""
import json

from hostd.core.journal.schema import DECKS


def backs_text(backs):
    return ", ".join("%s %d" % (k, backs[k]) for k in sorted(backs))


def dumps(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def loads(text):
    return None if text is None else json.loads(text)


def seed(text):
    """Seeds are stored as text (they may exceed SQLite's 64-bit integers)."""
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        return text


def backs(backs):
    if not isinstance(backs, dict):
        raise ValueError("backs must be a dict of back colour -> tile count, got %r" % (backs,))
    out = {}
    for k, v in backs.items():
        if not isinstance(k, str) or not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ValueError("backs must map colour names to counts >= 0, got %r" % (backs,))
        out[k] = v
    return out


def ints(seq, what):
    try:
        out = [int(x) for x in seq]
    except (TypeError, ValueError):
        raise ValueError("%s must be a list of integers, got %r" % (what, seq)) from None
    return out


def deck(name):
    if name not in DECKS:
        raise ValueError("deck must be 'A' or 'B', got %r" % (name,))
    return name


def plain(obj):
    """A break result may be a dict, a pydantic model or an object with contract_dict()."""
    if obj is None or isinstance(obj, (dict, list, str, int, float, bool)):
        return obj
    for attr in ("contract_dict", "model_dump", "_asdict"):
        fn = getattr(obj, attr, None)
        if callable(fn):
            return fn()
    raise ValueError("cannot journal %r: give a dict" % (obj,))
