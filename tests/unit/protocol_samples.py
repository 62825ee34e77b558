"""Valid (and invalid) values for every message in protocol.messages, derived from the
table itself so that a new message is covered without touching the tests."""
import random

from protocol import messages as m

_CHARS = "abcXYZ019 -_.雀卓é"


def _scalar(f, which, rng):
    lo, hi = f[2], f[3]
    if which == "min":
        return lo
    if which == "max":
        return hi
    return rng.randint(lo, hi)


def _text(nmin, nmax, which, rng):
    if which == "min":
        return "a" * nmin
    if which == "max":
        return "z" * nmax
    while True:
        s = "".join(rng.choice(_CHARS) for _ in range(rng.randint(nmin, nmax)))
        if nmin <= len(s.encode("utf-8")) <= nmax:
            return s


def field_value(f, which="random", rng=None):
    rng = rng or random.Random(0)
    t = f[1]
    if t <= m.I32:
        return _scalar(f, which, rng)
    if t == m.STR:
        return _text(f[4], f[5], which, rng)
    if which == "min":
        n = f[4]
    elif which == "max":
        n = f[5]
    else:
        n = rng.randint(f[4], f[5])
    return tuple(_scalar(f, which, rng) for _ in range(n))


def sample_values(entry, which="random", rng=None):
    rng = rng or random.Random(0)
    return tuple(field_value(f, which, rng) for f in entry[3])


def all_samples(rng=None, n_random=3):
    """(entry, values) for every message: its min, max and a few random value sets."""
    rng = rng or random.Random(1)
    out = []
    for e in m.MESSAGES:
        out.append((e, sample_values(e, "min", rng)))
        out.append((e, sample_values(e, "max", rng)))
        for _ in range(n_random):
            out.append((e, sample_values(e, "random", rng)))
    return out


def out_of_range(entry, i, rng=None):
    """Values for entry with field i just outside its range, or None if it has none
    expressible in its wire type."""
    rng = rng or random.Random(0)
    f = entry[3][i]
    t = f[1]
    full = m.TYPE_RANGE[t]
    vals = list(sample_values(entry, "min", rng))
    if t <= m.I32:
        if f[2] > full[0]:
            vals[i] = f[2] - 1
        elif f[3] < full[1]:
            vals[i] = f[3] + 1
        else:
            return None
    elif t == m.STR:
        if f[5] < 255:
            vals[i] = "x" * (f[5] + 1)
        else:
            return None
    else:
        if f[5] < 255:
            vals[i] = (f[2],) * (f[5] + 1)
        elif f[2] > full[0]:
            vals[i] = (f[2] - 1,)
        else:
            return None
    return tuple(vals)


def raw_payload(entry, values):
    """Encode values bypassing the range checks (to build frames a buggy or hostile
    sender could produce)."""
    out = bytearray()
    for f, v in zip(entry[3], values):
        t = f[1]
        if t == m.U8:
            out += bytes([v & 0xFF])
        elif t in (m.U16, m.I16):
            out += (v & 0xFFFF).to_bytes(2, "little")
        elif t in (m.U32, m.I32):
            out += (v & 0xFFFFFFFF).to_bytes(4, "little")
        elif t == m.STR:
            b = v.encode("utf-8") if isinstance(v, str) else bytes(v)
            out += bytes([len(b) & 0xFF]) + b
        else:
            out += bytes([len(v) & 0xFF])
            for x in v:
                out += bytes([x & 0xFF]) if t == m.U8S else (x & 0xFFFF).to_bytes(2, "little")
    return bytes(out)


def raw_frame(seq, msgid, payload):
    """A frame with a good CRC around any payload."""
    import zlib

    n = len(payload) + 8
    body = bytes([n, seq & 0xFF, msgid]) + bytes(payload)
    return b"\x7e" + body + zlib.crc32(body).to_bytes(4, "little")
