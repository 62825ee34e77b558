# CPython only
"""Keeps protocol/SPEC.md true to the code.

* The message reference and the code tables between `<!-- BEGIN GENERATED: x -->` and
  `<!-- END GENERATED: x -->` are rendered from protocol.messages (the wire facts) and
  protocol.models (the descriptions).
* Every fenced block tagged `frame` holds worked examples: a description line
  `<direction> seq=<n> <message> field=value ...` (or `payload=<hex>` for a frame the
  encoder would refuse) followed by the frame's bytes in hex, `|` between header,
  payload and CRC.  The bytes are produced by the real encoder.

    python -m protocol.spec_tool          # rewrite SPEC.md in place
    python -m protocol.spec_tool --check  # exit 1 if SPEC.md is stale

tests/unit/test_protocol_spec.py runs the check.
"""
import ast
import pathlib
import re
import shlex
import sys

from protocol import codec
from protocol import messages as m

SPEC = pathlib.Path(__file__).with_name("SPEC.md")
KIND_TEXT = {m.CMD: "command, host → table", m.EVT: "event, table → host", m.LINK: "link, unsequenced"}


# ------------------------------------------------------------------ examples
def parse_value(text):
    if text.startswith("0x"):
        return int(text, 16)
    return ast.literal_eval(text)


def parse_example(line):
    """(seq, msgid, values or None, raw payload or None) of a description line."""
    line = line.split("#", 1)[0]
    toks = shlex.split(line, posix=False)
    if len(toks) < 3 or not toks[1].startswith("seq="):
        raise ValueError("example line must read '<dir> seq=<n> <message> ...': %r" % line)
    seq = parse_value(toks[1][4:])
    entry = m.lookup(toks[2])
    kv = {}
    for t in toks[3:]:
        k, _, v = t.partition("=")
        kv[k] = v
    if "payload" in kv:
        return seq, entry[0], None, bytes.fromhex(kv["payload"])
    names = [f[0] for f in entry[3]]
    if sorted(kv) != sorted(names):
        raise ValueError("%s needs fields %s, example gives %s" % (entry[1], names, sorted(kv)))
    values = []
    for f in entry[3]:
        v = parse_value(kv[f[0]])
        if isinstance(v, list):
            v = tuple(v)
        values.append(v)
    return seq, entry[0], tuple(values), None


def raw_frame(seq, msgid, payload):
    enc = codec.Encoder()
    n = len(payload) + 8
    enc.buf[2] = seq
    enc.buf[3] = msgid
    enc.buf[4 : 4 + len(payload)] = payload
    enc.seal_frame(n)
    return bytes(enc.buf[:n])


def example_frame(line):
    seq, msgid, values, payload = parse_example(line)
    if payload is not None:
        return raw_frame(seq, msgid, payload)
    return codec.encode_frame(seq, msgid, values)


def hex_line(frame):
    h = lambda b: " ".join("%02X" % x for x in b)  # noqa: E731
    n = len(frame)
    if n == 8:
        return "%s | %s" % (h(frame[:4]), h(frame[4:]))
    return "%s | %s | %s" % (h(frame[:4]), h(frame[4 : n - 4]), h(frame[n - 4 :]))


def hex_bytes(line):
    return bytes.fromhex(line.replace("|", " "))


_BLOCK = re.compile(r"^```frame\n(.*?)^```", re.S | re.M)
_HEX = re.compile(r"^[0-9A-Fa-f |]+$")


def examples(text):
    """[(description, hex line as written or None)] of every example in text: each
    description line is followed by its hex line."""
    out = []
    for blk in _BLOCK.finditer(text):
        for ln in blk.group(1).splitlines():
            ln = ln.strip()
            if not ln:
                continue
            if _HEX.match(ln):
                if not out or out[-1][1] is not None:
                    raise ValueError("a hex line without its description: %r" % ln)
                out[-1] = (out[-1][0], ln)
            else:
                out.append((ln, None))
    return out


def fill_examples(text):
    def fix(blk):
        out = []
        for ln in blk.group(1).splitlines():
            ln = ln.strip()
            if not ln or _HEX.match(ln):
                continue
            out.append(ln)
            out.append(hex_line(example_frame(ln)))
        return "```frame\n" + "\n".join(out) + "\n```"

    return _BLOCK.sub(fix, text)


# ------------------------------------------------------------------ reference
def _range(f):
    name, t, lo, hi, nmin, nmax = f
    full = m.TYPE_RANGE[t]
    if t == m.STR:
        return "%d..%d bytes" % (nmin, nmax)
    if t in (m.U8S, m.U16S):
        items = "" if (lo, hi) == full else ", items %d..%d" % (lo, hi)
        return "%d..%d items%s" % (nmin, nmax, items)
    if lo == hi:
        return "= 0x%X" % lo
    if (lo, hi) == full:
        return "any"
    return "%d..%d" % (lo, hi)


def _size(e):
    fixed = all(f[1] <= m.I32 for f in e[3])
    hi = m.max_payload(e)
    lo = 0
    for f in e[3]:
        lo += m.TYPE_SIZE[f[1]] if f[1] <= m.I32 else 1 + f[4] * m.TYPE_SIZE[f[1]]
    if fixed:
        return "payload %d byte%s, frame %d" % (hi, "" if hi == 1 else "s", hi + 8)
    return "payload %d..%d bytes, frame %d..%d" % (lo, hi, lo + 8, hi + 8)


def render_messages():
    from protocol import models

    out = []
    for e in m.MESSAGES:
        cls = models.MODELS[e[0]]
        doc = " ".join(cls.__doc__.split())
        out.append("#### 0x%02X `%s` (%s; %s)\n" % (e[0], e[1], KIND_TEXT[e[2]], _size(e)))
        out.append(doc + "\n")
        if e[3]:
            out.append("| # | field | type | range | meaning |")
            out.append("|---|---|---|---|---|")
            for i, f in enumerate(e[3]):
                desc = cls.model_fields[f[0]].description
                out.append("| %d | `%s` | %s | %s | %s |" % (i, f[0], m.TYPE_NAMES[f[1]], _range(f), desc))
            out.append("")
        else:
            out.append("No fields (empty payload).\n")
    return "\n".join(out).rstrip() + "\n"


def _code_table(title, names, start=0, note=None):
    out = ["| %s | name |" % title, "|---|---|"]
    for i, n in enumerate(names):
        if i < start:
            continue
        out.append("| %d | `%s` |" % (i, n))
    if note:
        out.append("\n" + note)
    return "\n".join(out) + "\n"


def render_codes():
    parts = [
        "##### Error codes (RESULT.code, REJECT.code)\n",
        _code_table("code", m.ERRORS),
        "\n##### Table states (HEARTBEAT.state, STATE, STATUS_REPLY.state)\n",
        _code_table("state", m.STATES),
        "\n##### Fault codes (FAULT.code, STATUS_REPLY.fault, CLEAR_FAULT.code)\n",
        _code_table("fault", m.FAULTS),
        "\n##### Self-test device kinds (SELF_TEST.kind); per-track kinds take index = track\n",
        _code_table("kind", m.DEVICES, 1),
        "\nPer-track kinds: %s.\n" % ", ".join("`%s`" % m.DEVICES[k] for k in m.TRACK_DEVICES),
        "\n##### Status light patterns (LIGHT.pattern)\n",
        _code_table("pattern", m.LIGHTS),
    ]
    return "".join(parts)


GENERATED = {"messages": render_messages, "codes": render_codes}


def fill_generated(text):
    for key, fn in GENERATED.items():
        pat = re.compile(
            r"(<!-- BEGIN GENERATED: %s[^>]*-->\n)(.*?)(<!-- END GENERATED: %s -->)" % (key, key), re.S
        )
        if not pat.search(text):
            raise ValueError("SPEC.md lacks the generated block %r" % key)
        text = pat.sub(lambda mo: mo.group(1) + "\n" + fn() + "\n" + mo.group(3), text)
    return text


def render(text):
    return fill_examples(fill_generated(text))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    text = SPEC.read_text(encoding="utf-8")
    new = render(text)
    if "--check" in argv:
        if new != text:
            print("protocol/SPEC.md is stale: run python -m protocol.spec_tool")
            return 1
        return 0
    if new != text:
        SPEC.write_text(new, encoding="utf-8")
        print("rewrote %s" % SPEC)
    return 0


if __name__ == "__main__":
    sys.exit(main())
