"""hostd.hand.notation: reading a written hand, and refusing what cannot be read."""
import random

import pytest

from hostd.errors import BadRequest
from hostd.hand.notation import FACES, HandError, face_text, parse_hand, read_hand, read_tiles


def test_grouped_and_single_tile_forms_read_alike():
    a = parse_hand("123m456p789s11z")
    b = parse_hand("1m2m3m4p5p6p7s8s9s1z1z")
    c = parse_hand("  123m 456p,789s 1z 1z ")
    assert a == b == c
    assert a.tiles == ("1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z")
    assert len(a) == 11


def test_special_tiles_kept_as_written_and_counted_as_their_plain_face():
    h = parse_hand("5p0p5pg7mb7m5zx5z", mixed_deck=True)
    assert h.tiles == ("7m", "7mb", "5p", "0p", "5pg", "5z", "5zx")
    assert h.count("5p") == 3 and h.count("0p") == 3
    assert h.count("7m") == 2 and h.count("5z") == 2
    assert sum(h.counts) == 7 and len(h.counts) == len(FACES) == 34


@pytest.mark.parametrize("text, token, position, words", [
    ("123m45q", "'45q'", 5, ["suit letter"]),
    ("123m8z", "'8z'", 5, ["no tile 8z", "1-7 z"]),
    ("0z", "'0z'", 1, ["no tile 0z"]),
    ("1m2m3mx", "'3mx'", 5, ["no tile 3mx"]),
    ("1m2m?3m", "'?'", 5, ["not a tile"]),
    ("11m12", "'12'", 4, ["without a suit letter"]),
    ("567mb", "'567mb'", 1, ["single tile", "56m7mb"]),
    ("7pg", "'7pg'", 1, ["no tile 7pg", "5pg"]),
    ("1M", "'1M'", 1, ["lowercase"]),
])
def test_bad_token_is_named_with_its_position(text, token, position, words):
    with pytest.raises(HandError) as e:
        read_tiles(text)
    msg = str(e.value)
    assert "bad token %s at position %d" % (token, position) in msg, msg
    for w in words:
        assert w in msg, msg


@pytest.mark.parametrize("text", ["123m(456p)", "111z+ 22m", "[123m]11z", "123m456p pon555p"])
def test_meld_marks_are_refused_pointing_to_the_written_calls(text):
    with pytest.raises(HandError, match="looks like a called meld: write a call as KIND:TILES "
                                        r"\(chi:123m, pon:555p, kan:5555p, ankan:1111z\)"):
        parse_hand(text)


def _random_text(rng):
    """Groups of digits and a suit letter, sometimes spaced, sometimes spoiled."""
    text = ""
    for _ in range(rng.randint(1, 5)):
        text += "".join(rng.choice("123456789") for _ in range(rng.randint(1, 5)))
        text += rng.choice("mpsz") + rng.choice(["", "", " ", ","])
    if rng.random() < 0.3:
        k = rng.randrange(len(text) + 1)
        text = text[:k] + rng.choice("0mpsz8 ,x(") + text[k:]
    return text


def test_fast_reader_reads_plain_hands_as_the_general_reader():
    """read_hand's fast path (plain digits and suit letters) gives the very Hand
    parse_hand gives; anything else goes to parse_hand, which reads or refuses it."""
    rng = random.Random(5)
    read = refused = 0
    for _ in range(20000):
        text, mixed = _random_text(rng), rng.random() < 0.5
        try:
            want = parse_hand(text, mixed_deck=mixed)
        except HandError as e:
            with pytest.raises(HandError) as got:
                read_hand(text, mixed_deck=mixed)
            assert str(got.value) == str(e)
            refused += 1
            continue
        assert read_hand(text, mixed_deck=mixed) == want, text
        read += 1
    assert read > 5000 and refused > 5000


@pytest.mark.parametrize("text, words", [
    ("", "no tiles given"),
    ("123m", r"3 tiles: a hand has 3n\+1"),
    ("123456789m123456p", "15 tiles: a hand has at most 14 closed tiles .write a kan or "
                          "another call as KIND:TILES"),
])
def test_wrong_tile_counts(text, words):
    with pytest.raises(HandError, match=words):
        parse_hand(text)


@pytest.mark.parametrize("n", [1, 2, 4, 5, 7, 8, 10, 11, 13, 14])
def test_every_3n_plus_1_and_3n_plus_2_count_up_to_14_is_read(n):
    text = "".join(FACES[i % 34] for i in range(n))
    assert len(parse_hand(text)) == n


def test_copy_limit_is_4_for_one_set_and_8_with_mixed_deck():
    assert parse_hand("1111m").limit == 4
    with pytest.raises(HandError, match="5 copies of 1m: at most 4 in one set"):
        parse_hand("11110m".replace("0m", "1m"))
    assert parse_hand("11111m", mixed_deck=True).limit == 8
    assert parse_hand("11111111m22z", mixed_deck=True).count("1m") == 8
    with pytest.raises(HandError, match="9 copies of 1m: at most 8 with Mixed Deck"):
        parse_hand("111111111m1z", mixed_deck=True)


def test_red_five_counts_toward_the_copy_limit():
    with pytest.raises(HandError, match="5 copies of 5p"):
        parse_hand("55550p")


def test_a_special_tile_has_one_copy_per_set():
    with pytest.raises(HandError, match="2 copies of the special tile 0p: a set has 1"):
        parse_hand("0p0p")
    assert parse_hand("0p0p", mixed_deck=True).count("5p") == 2
    with pytest.raises(HandError, match="3 copies of the special tile 5pg.*at most 2"):
        parse_hand("5pg5pg5pg1z", mixed_deck=True)


def test_hand_error_is_a_bad_request():
    assert issubclass(HandError, BadRequest) and HandError("x").status == 400


def test_face_text_groups_by_suit_and_keeps_marks():
    assert face_text(["1m", "2m", "5p", "0p", "5pg", "7z"]) == "12m50p5pg7z"
    assert face_text([]) == ""
