"""protocol.codec: frame layout, the incremental decoder's resynchronisation, and that no
corrupted frame is ever accepted (property tests and a 1,000,000-frame corruption run)."""
import random
import time
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import codec as c
from protocol import messages as m
from protocol_samples import all_samples, raw_frame

SAMPLES = all_samples(random.Random(7))
FRAMES = [c.encode_frame(i & 0xFF, e[0], v) for i, (e, v) in enumerate(SAMPLES)]
FLUSH = b"\x00" * c.MAX_FRAME  # enough non-sync bytes to settle any pending candidate


def collect(data, chunks=None):
    out = []
    dec = c.Decoder(lambda buf, n: out.append(bytes(buf[:n])))
    if chunks is None:
        dec.feed(data)
    else:
        pos = 0
        for k in chunks:
            dec.feed(data[pos : pos + k])
            pos += k
        dec.feed(data[pos:])
    return out, dec


def crc_ok(frame):
    n = frame[1]
    return (
        len(frame) == n
        and frame[0] == 0x7E
        and 8 <= n <= 64
        and zlib.crc32(frame[1 : n - 4]) == int.from_bytes(frame[n - 4 :], "little")
    )


# ------------------------------------------------------------------ layout
def test_frame_layout_is_the_spec():
    f = c.encode_frame(0x2A, m.TILE, (513, 3, 17, 2, 1000, 200, 300, 400))
    assert f[0] == 0x7E
    assert f[1] == len(f) == 13 + 8
    assert f[2] == 0x2A and f[3] == m.TILE
    assert f[4:6] == (513).to_bytes(2, "little")
    assert int.from_bytes(f[-4:], "little") == zlib.crc32(f[1:-4])
    assert c.OVERHEAD == 7 and c.MIN_FRAME == 8 and c.MAX_FRAME == 64
    ack = c.encode_frame(5, m.ACK)
    assert len(ack) == 8 and ack[:4] == b"\x7e\x08\x05\x01"


def test_every_message_round_trips_as_a_frame():
    for (e, v), f in zip(SAMPLES, FRAMES):
        seq, msgid, values = c.decode_message(f)
        assert (msgid, values) == (e[0], v)
        assert len(f) == len(m.encode(e[0], v)) + 8


def test_largest_frames_fit():
    for e in m.MESSAGES:
        from protocol_samples import sample_values

        f = c.encode_frame(0, e[0], sample_values(e, "max"))
        assert len(f) <= c.MAX_FRAME


def test_encoder_refuses_unknown_and_bad_values():
    enc = c.Encoder()
    with pytest.raises(m.ProtocolError):
        enc.frame(0, 0x7F, ())
    with pytest.raises(m.ProtocolError):
        enc.frame(0, m.LIFT_DONE, (3,))


# ------------------------------------------------------------------ decoder
def test_stream_in_any_chunking():
    data = b"".join(FRAMES)
    whole, _ = collect(data)
    assert whole == FRAMES
    rng = random.Random(3)
    for _ in range(20):
        chunks = []
        left = len(data)
        while left > 0:
            k = rng.randint(1, 200)
            chunks.append(k)
            left -= k
        got, dec = collect(data, chunks)
        assert got == FRAMES
        assert dec.pending() == 0
    bytewise, _ = collect(data, [1] * len(data))
    assert bytewise == FRAMES


def test_resync_after_garbage_and_false_syncs():
    f1, f2 = FRAMES[0], FRAMES[5]
    junk = b"\x7e\x7e\x40\x01\x02\x7e\x09" + bytes(range(0, 256, 7))
    got, dec = collect(junk + f1 + b"\x7e" + f2 + b"\x7e\x3f" + FLUSH)
    assert got == [f1, f2]
    assert dec.crc_errors >= 1 and dec.skipped > 0


def test_a_false_sync_waiting_for_bytes_does_not_lose_the_next_frame():
    # 0x7E then LEN=64 makes the decoder wait for 64 bytes; the real frame inside them
    # must still come out once the candidate's CRC fails.
    f = FRAMES[3]
    got, _ = collect(b"\x7e\x40" + f + FLUSH)
    assert got == [f]


def test_truncated_frame_then_good_frames():
    f = FRAMES[10]
    for cut in range(1, len(f)):
        got, _ = collect(f[:cut] + FRAMES[1] + FRAMES[2] + FLUSH)
        assert got == [FRAMES[1], FRAMES[2]], cut


def test_impossible_length_is_skipped():
    f = FRAMES[4]
    for bad in (0, 1, 7, 65, 255):
        got, dec = collect(b"\x7e" + bytes([bad]) + f)
        assert got == [f]
        assert dec.len_errors == 1


def test_big_chunks_larger_than_the_buffer():
    data = b"".join(FRAMES) * 3
    got, _ = collect(data)
    assert got == FRAMES * 3


# ------------------------------------------------------------------ properties
frames_st = st.lists(st.sampled_from(FRAMES), min_size=1, max_size=12)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=600), st.lists(st.integers(1, 80), max_size=20))
def test_random_bytes_never_crash_nor_yield_a_bad_frame(data, chunks):
    got, _ = collect(data, chunks)
    for f in got:
        assert crc_ok(f)


@settings(max_examples=300, deadline=None)
@given(frames_st, st.data())
def test_inserted_garbage_loses_no_frame(frames, data):
    stream = b""
    for f in frames:
        stream += data.draw(st.binary(max_size=40)) + f
    stream += data.draw(st.binary(max_size=40)) + FLUSH
    got, _ = collect(stream)
    assert got == frames


@settings(max_examples=300, deadline=None)
@given(frames_st, st.data())
def test_bit_flips_drop_only_the_hit_frames(frames, data):
    hit = data.draw(st.lists(st.booleans(), min_size=len(frames), max_size=len(frames)))
    stream = b""
    kept = []
    for f, h in zip(frames, hit):
        b = bytearray(f)
        if h:
            for _ in range(data.draw(st.integers(1, 6))):
                i = data.draw(st.integers(0, len(b) * 8 - 1))
                b[i // 8] ^= 1 << (i % 8)
        if bytes(b) == f:  # not hit, or the same bit flipped twice
            kept.append(f)
        stream += bytes(b)
    got, _ = collect(stream + FLUSH)
    assert got == kept


@settings(max_examples=300, deadline=None)
@given(frames_st, st.data())
def test_truncation_anywhere(frames, data):
    stream = b"".join(frames)
    cut = data.draw(st.integers(0, len(stream)))
    got, _ = collect(stream[:cut])
    # exactly the frames that were complete before the cut
    whole = []
    pos = 0
    for f in frames:
        if pos + len(f) <= cut:
            whole.append(f)
        pos += len(f)
    assert got == whole


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 255), st.integers(0x10, 0xFF), st.binary(max_size=56))
def test_any_good_crc_frame_is_delivered_as_sent(seq, msgid, payload):
    f = raw_frame(seq, msgid, payload)
    got, _ = collect(b"\x55" + f)
    assert got == [f]


# ------------------------------------------------------------------ the CRC in 16-bit halves
# What a 32-bit board runs (codec.CRC_HALVES there): the same CRC-32 as zlib's, computed
# with small ints only.  tests/mcu proves it allocates nothing on an emulated Cortex-M.
def test_halves_check_value_is_the_spec():
    buf = bytearray(b"\x00123456789\x00\x00\x00\x00")
    c.seal_halves(buf, len(buf))
    assert int.from_bytes(buf[-4:], "little") == 0xCBF43926  # SPEC §3's check value
    assert c.check_halves(buf, len(buf))
    buf[3] ^= 0x10
    assert not c.check_halves(buf, len(buf))


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=3, max_size=59), st.integers(0, 31))
def test_halves_equal_zlib_and_catch_any_one_bit_error(covered, bit):
    n = len(covered) + 5
    buf = bytearray(n)
    buf[1 : n - 4] = covered
    c.seal_halves(buf, n)
    assert int.from_bytes(buf[n - 4 :], "little") == zlib.crc32(covered)
    assert c.check_halves(buf, n)
    buf[n - 4 + bit // 8] ^= 1 << (bit % 8)  # a flipped CRC bit is caught too
    assert not c.check_halves(buf, n)


def test_the_halves_path_frames_as_the_c_path(monkeypatch):
    """With CRC_HALVES forced on, every sample frame comes out byte for byte the same and
    the decoder takes exactly the good frames (the path a 32-bit board takes)."""
    monkeypatch.setattr(c, "CRC_HALVES", True)
    halves = [c.encode_frame(i & 0xFF, e[0], v) for i, (e, v) in enumerate(SAMPLES)]
    assert halves == FRAMES
    bad = bytearray(FRAMES[0])
    bad[4] ^= 1
    got, dec = collect(bytes(bad) + b"".join(FRAMES[:50]))
    assert got == FRAMES[:50] and dec.crc_errors == 1


def test_the_crc_path_follows_the_small_int_width():
    import sys

    assert c.CRC_HALVES is (sys.maxsize <= 0xFFFFFFFF)  # CPython: the C crc32


# ------------------------------------------------------------------ 1,000,000 corruptions
def corrupt(rng, f, rand_bytes):
    n = len(f)
    b = bytearray(f)
    kind = rng.randrange(5)
    if kind == 0:  # 1..8 bit flips anywhere, LEN and CRC included
        for _ in range(1 + int(rng.expovariate(0.6)) % 8):
            i = rng.randrange(n * 8)
            b[i >> 3] ^= 1 << (i & 7)
    elif kind == 1:  # a burst of random bytes inside the frame
        k = rng.randint(1, 8)
        i = rng.randrange(n)
        k = min(k, n - i)
        b[i : i + k] = rand_bytes(k)
    elif kind == 2:  # a byte lost
        del b[rng.randrange(1, n)]
    elif kind == 3:  # a byte inserted
        b.insert(rng.randrange(1, n), rng.randrange(256))
    else:  # truncated and padded with noise (a frame cut short by a reset)
        k = rng.randint(1, n - 1)
        b[k:] = rand_bytes(n - k)
    return bytes(b)


@pytest.mark.long
def test_a_million_corrupted_frames_none_accepted():
    rng = random.Random(20240601)
    rand_bytes = rng.randbytes
    marker = c.encode_frame(0, m.ACK)
    accepted = [0]
    markers = [0]

    def on_frame(buf, n):
        if n == 8 and buf[1] == 8 and bytes(buf[:8]) == marker:
            markers[0] += 1
        else:
            accepted[0] += 1

    dec = c.Decoder(on_frame)
    bases = FRAMES
    nb = len(bases)
    total = 1_000_000
    t0 = time.perf_counter()
    done = 0
    while done < total:
        f = bases[rng.randrange(nb)]
        x = corrupt(rng, f, rand_bytes) + marker
        if f in x:
            continue  # the frame is still there intact (e.g. a byte inserted after it)
        dec.reset()
        dec.feed(x)
        done += 1
    dt = time.perf_counter() - t0
    print("1e6 corrupted frames in %.1f s: %d accepted, markers after them %d" % (dt, accepted[0], markers[0]))
    assert accepted[0] == 0
    assert dec.crc_errors > total // 2  # the CRC, not luck, rejected them
    assert markers[0] > total * 0.9  # and the receiver resynchronised on the next frame


# -- what is built once, at import (bench/mutation.py, issue 53 point 8) ----------------------

def test_the_halves_table_is_the_crc32_table_entry_by_entry():
    """The table a 32-bit board builds at import, in two 16-bit halves, is the reflected
    0xEDB88320 table entry by entry (computed here with full-width ints)."""
    lo, hi = c._halves_table()
    assert lo.typecode == hi.typecode == "H" and len(lo) == len(hi) == 256
    for i in range(256):
        v = i
        for _ in range(8):
            v = (v >> 1) ^ 0xEDB88320 if v & 1 else v >> 1
        assert (hi[i] << 16) | lo[i] == v, i


def test_prefix_views_are_every_prefix_of_the_buffer():
    buf = bytearray(range(c.MAX_FRAME))
    views = c._prefix_views(buf)
    assert len(views) == c.MAX_FRAME + 1
    for n, v in enumerate(views):
        assert bytes(v) == bytes(buf[:n])


def test_a_reset_decoder_takes_the_next_frame_whole():
    """After reset() (the link's new session) a partial frame is forgotten and the next
    frame decodes from the buffer's start."""
    got = []
    d = c.Decoder(lambda buf, n: got.append(bytes(buf[:n])))
    f = c.encode_frame(3, m.STATUS, ())
    d.feed(f[:5])
    d.reset()
    assert d.pending() == 0
    d.feed(f)
    assert got == [f] and d.pending() == 0


def test_pending_counts_only_the_partial_frame_after_a_whole_one():
    d = c.Decoder(lambda buf, n: None)
    f = c.encode_frame(1, m.STATUS, ())
    d.feed(f + f[:5])
    assert d.pending() == 5


def test_a_stream_longer_than_the_buffer_is_compacted_without_a_stray_byte():
    """300 bytes of back-to-back frames in one chunk (over the decoder's 128): every frame
    is handed up and not one byte is skipped as junk."""
    got = []
    d = c.Decoder(lambda buf, n: got.append(bytes(buf[:n])))
    frames = [c.encode_frame(i, m.DOOR, (1,)) for i in range(34)]  # 9 bytes: 128 is no multiple
    d.feed(b"".join(frames))
    assert got == frames and (d.skipped, d.crc_errors, d.len_errors) == (0, 0, 0)


def test_decode_helpers_say_each_frame_and_refuse_anything_but_one():
    f = c.encode_frame(5, m.DOOR, (1,))
    assert c.decode_frames(f + f) == [(5, m.DOOR, b"\x01")] * 2
    assert c.decode_message(f) == (5, m.DOOR, (1,))
    for bad in (f + f, f[:-1], f + b"\x00"):
        with pytest.raises(ValueError, match="^not one good frame$"):
            c.decode_message(bad)
    unknown = bytearray(c.encode_frame(5, m.STATUS, ()))
    unknown[3] = 0x7D  # no message has this id: sealed again with a good CRC
    c.seal_halves(unknown, len(unknown))  # (the same CRC-32 as the C path's)
    with pytest.raises(m.ProtocolError) as e:
        c.decode_message(bytes(unknown))
    assert (e.value.code, e.value.field, e.value.msgid) == (m.E_UNKNOWN_MSG, m.NO_FIELD, 0x7D)


def test_the_decoders_counters_and_refusals_say_exactly_what_happened():
    with pytest.raises(ValueError, match="^decoder buffer must hold 2 frames$"):
        c.Decoder(lambda buf, n: None, size=2 * c.MAX_FRAME - 1)
    c.Decoder(lambda buf, n: None, size=2 * c.MAX_FRAME)
    d = c.Decoder(lambda buf, n: None)
    assert (d.frames, d.skipped, d.len_errors, d.crc_errors, d.gap_drops) == (0, 0, 0, 0, 0)
    f = c.encode_frame(1, m.STATUS, ())
    d.feed(b"\x01\x02\x03" + f)
    assert (d.frames, d.skipped) == (1, 3)
    d.feed(b"\x05" * 5)  # junk alone, after a frame: counted, not reset
    d.feed(b"\x05" * 2)
    assert d.skipped == 10
    d.feed(b"\x7e\x03")  # a sync and an impossible LEN: known from these two bytes alone
    assert d.len_errors == 1
    d.feed(f[:4])
    assert d.drop_partial() == 1 and d.gap_drops == 1


def test_an_unknown_message_is_refused_by_the_encoder_by_its_number():
    with pytest.raises(m.ProtocolError) as e:
        c.Encoder().frame(0, 0x7D, ())
    assert (e.value.code, e.value.field, e.value.msgid) == (m.E_UNKNOWN_MSG, m.NO_FIELD, 0x7D)
    assert str(e.value) == "no message 0x7d"


# -- the decoder's counters and its buffer, exactly (bench/mutation.py's survivors) ----------

def test_every_counter_adds_up_over_several_events():
    """frames, skipped, len_errors and crc_errors count every event, junk after a frame in
    the same chunk included, and the LEN byte of a false sync whose CRC failed is skipped."""
    d = c.Decoder(lambda buf, n: None)
    f = c.encode_frame(1, m.STATUS, ())
    d.feed(b"\x01" + f + b"\x02\x02" + f + b"\x03\x03\x03")
    assert (d.frames, d.skipped) == (2, 6)
    d.feed(b"\x7e\x03" + b"\x7e\x41" + f)  # two impossible LENs (each skipped after)
    assert (d.frames, d.len_errors, d.skipped) == (3, 2, 8)
    d.feed(b"\x7e\x08\x01\x02\x03\x04\x05\x06" + b"\x7e\x09" + bytes(7) + f)  # two bad CRCs
    assert (d.frames, d.crc_errors) == (4, 2)
    assert d.skipped == 8 + 7 + 8  # each false sync's LEN byte and what followed it
    assert d.pending() == 0


def test_a_frame_cut_after_junk_counts_the_junk_once():
    """Junk, then a frame's first bytes in one chunk and the rest in the next: the junk is
    skipped once, whatever the cut (the decoder keeps where it got to between chunks)."""
    f = c.encode_frame(7, m.DOOR, (1,))
    for cut in range(1, len(f)):
        got = []
        d = c.Decoder(lambda buf, n: got.append(bytes(buf[:n])))
        d.feed(b"\x01\x02" + f[:cut])
        assert d.pending() == cut, cut
        d.feed(f[cut:])
        assert got == [f] and d.skipped == 2 and d.pending() == 0, cut


def test_junk_after_a_full_buffer_is_not_taken_for_an_old_sync():
    """Bytes left in the buffer from an earlier chunk (a sync among them) are never read
    again: junk fed later is skipped whole, and the next frame comes out."""
    got = []
    d = c.Decoder(lambda buf, n: got.append(bytes(buf[:n])))
    old = bytearray(120)
    old[100] = 0x7E  # a sync with an impossible LEN after it
    d.feed(bytes(old))
    assert (d.skipped, d.len_errors, d.pending()) == (119, 1, 0)
    d.feed(b"\x05" * 5)
    assert d.skipped == 124 and d.pending() == 0
    f = c.encode_frame(2, m.STATUS, ())
    d.feed(f)
    assert got == [f] and d.skipped == 124


def test_gap_drops_every_false_sync_of_a_stale_partial_and_counts_them_all():
    """drop_partial after a whole frame: each false sync of what is left is dropped (the
    frame before is not read again), the count returned and added up over calls."""
    got = []
    d = c.Decoder(lambda buf, n: got.append(bytes(buf[:n])))
    f = c.encode_frame(1, m.STATUS, ())
    d.feed(f + b"\x7e\x30\x01\x7e\x30\x02")  # two syncs whose LEN waits for 48 bytes
    assert got == [f] and d.pending() == 6
    assert d.drop_partial() == 2
    assert (d.gap_drops, d.pending(), d.skipped, d.frames) == (2, 0, 4, 1)
    d.feed(b"\x7e\x30")
    assert d.drop_partial() == 1 and d.gap_drops == 3
    d.feed(f)
    assert got == [f, f]


def test_a_handler_that_raises_loses_no_later_frame_nor_gets_the_same_one_again():
    """on_frame raising (the link's command handler failing) leaves the decoder past that
    frame: the next feed hands up the frames after it, once each."""
    got = []

    def on_frame(buf, n):
        got.append(bytes(buf[:n]))
        if len(got) == 1:
            raise RuntimeError("handler failed")

    d = c.Decoder(on_frame)
    f1, f2, f3 = (c.encode_frame(i, m.DOOR, (1,)) for i in (1, 2, 3))
    with pytest.raises(RuntimeError):
        d.feed(f1 + f2[:4])
    assert d.pending() == 4
    d.feed(f2[4:] + f3)
    assert got == [f1, f2, f3] and d.pending() == 0 and d.frames == 3


def test_a_chunk_the_free_buffer_holds_is_taken_whole(monkeypatch):
    """A chunk that fits the free space (the whole buffer once it is empty: after a
    frame, after junk) is copied at once; only a larger one is taken in pieces, through a
    view that allocates on a board."""
    views = []
    got = []
    d = c.Decoder(lambda buf, n: got.append(bytes(buf[:n])))
    big = [raw_frame(i, 0x40, bytes(56)) for i in range(2)]  # 64 bytes each
    two = big[0] + big[1]
    assert len(two) == 2 * c.MAX_FRAME
    f = c.encode_frame(1, m.STATUS, ())
    real = memoryview
    monkeypatch.setattr(c, "memoryview", lambda x: views.append(len(x)) or real(x), raising=False)
    d.feed(two)  # exactly the buffer
    d.feed(f)
    d.feed(two)  # after a frame
    d.feed(b"\x05" * 5)
    d.feed(two)  # after junk
    assert views == [] and len(got) == 7
    d.feed(two + b"\x05")  # one byte more: in pieces
    assert views == [129] and len(got) == 9


def test_an_encoders_view_is_the_frame_it_made_and_seal_frame_seals_raw_bytes():
    enc = c.Encoder()
    n = enc.frame(9, m.DOOR, (1,))
    v = enc.view(n)
    assert bytes(v) == c.encode_frame(9, m.DOOR, (1,)) and v is enc.view(n)  # cut once
    enc.buf[2] = 4  # by hand: seq 4, an unknown message 0x7d, 3 bytes of payload
    enc.buf[3] = 0x7D
    enc.buf[4:7] = b"\x01\x02\x03"
    enc.seal_frame(11)
    assert bytes(enc.view(11)) == raw_frame(4, 0x7D, b"\x01\x02\x03")
    assert c.decode_frames(bytes(enc.view(11))) == [(4, 0x7D, b"\x01\x02\x03")]
