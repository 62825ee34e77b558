"""protocol/SPEC.md cannot drift from the code: its message reference and code tables are
rendered from the table, and every hex example is what the real encoder produces."""
import pathlib
import zlib

from protocol import codec as c
from protocol import messages as m
from protocol import spec_tool

SPEC = pathlib.Path(spec_tool.__file__).with_name("SPEC.md")
TEXT = SPEC.read_text(encoding="utf-8")


def test_spec_is_current():
    assert spec_tool.render(TEXT) == TEXT, "protocol/SPEC.md is stale: run python -m protocol.spec_tool"


def test_every_hex_example_is_the_encoders_output():
    ex = spec_tool.examples(TEXT)
    assert len(ex) >= 15
    for desc, hexline in ex:
        assert hexline is not None, "example without hex: %s" % desc
        written = spec_tool.hex_bytes(hexline)
        assert written == spec_tool.example_frame(desc), desc
        # and, read as a second implementation would: sync, LEN, CRC-32 over 1..LEN-5
        n = written[1]
        assert written[0] == 0x7E and n == len(written)
        assert zlib.crc32(written[1 : n - 4]) == int.from_bytes(written[n - 4 :], "little")
        assert c.decode_frames(written) == [(written[2], written[3], written[4 : n - 4])]


def test_examples_cover_what_the_issue_asks_for():
    seen = {}
    for desc, hexline in spec_tool.examples(TEXT):
        seq, msgid, values, payload = spec_tool.parse_example(desc)
        seen.setdefault(m.name_of(msgid), []).append(values)
    for name in ("connect", "identity", "configure_build", "build", "tile", "fault", "ack", "result", "reject"):
        assert name in seen, name
    assert any(v[2] != m.OK for v in seen["result"])  # a rejected command
    assert any(v[2] == m.OK for v in seen["result"])


def test_spec_names_every_message_and_code():
    for e in m.MESSAGES:
        assert "`%s`" % e[1] in TEXT
        assert "0x%02X `%s`" % (e[0], e[1]) in TEXT
    for table in (m.ERRORS, m.STATES, m.FAULTS, m.DEVICES[1:]):
        for name in table:
            assert "`%s`" % name in TEXT, name


def test_spec_states_the_numbers_the_code_uses():
    assert "**64** (`MAX_FRAME`)" in TEXT and c.MAX_FRAME == 64
    assert "**7 bytes per frame**" in TEXT and c.OVERHEAD == 7
    assert "0xCBF43926" in TEXT and zlib.crc32(b"123456789") == 0xCBF43926
    import inspect

    from protocol import link

    sig = inspect.signature(link.Link)
    d = {k: p.default for k, p in sig.parameters.items()}
    assert d["window"] == 8 and "at most **8**" in TEXT
    assert d["heartbeat_ms"] == 500 and "sent no frame for **500 ms**" in TEXT
    assert d["silence_ms"] == 2000 and "**2000 ms**" in TEXT
    assert d["connect_ms"] == 250 and "every **250 ms**" in TEXT
    assert d["rto_init_ms"] == 200 and "starts at **200 ms**" in TEXT
    assert (d["rto_min_ms"], d["rto_max_ms"]) == (25, 5000) and "**25 ms .. 5000 ms**" in TEXT


def test_frozen_layouts_of_section_11():
    """SPEC §11 promises these never change, in any version; this test is the promise."""
    def layout(name):
        return [(f[0], m.TYPE_NAMES[f[1]]) for f in m.lookup(name)[3]]

    assert (m.ACK, layout("ack")) == (0x01, [])
    assert (m.CONNECT, layout("connect")) == (0x02, [("version", "u8"), ("host_nonce", "u32")])
    assert (m.REJECT, layout("reject")) == (
        0x05,
        [("code", "u8"), ("msgid", "u8"), ("version_min", "u8"), ("version_max", "u8")],
    )
    assert (m.HEARTBEAT, layout("heartbeat")[:2]) == (0x03, [("boot_nonce", "u32"), ("host_nonce", "u32")])
    assert (m.IDENTITY, layout("identity")[:2]) == (0x40, [("version", "u8"), ("minor", "u8")])
