"""Called melds and kans (hostd.hand.calls, docs/HANDS.md "Calls"): how they are written,
what they change in the answer, and how an impossible one is refused."""
import pytest

from hostd.hand import HandError, analyse, make_call, parse_call, parse_hand

ACCEPTED = "accepted: chi:TILES (3 in a row of one suit, e.g. chi:123m), pon:TILES"


def md(text, **kw):
    return analyse(text, mixed_deck=True, completable=True, **kw)


# -- writing a call ----------------------------------------------------------------------------

@pytest.mark.parametrize("text, kind, tiles", [
    ("chi:123m", "chi", ("1m", "2m", "3m")),
    ("chi:312m", "chi", ("1m", "2m", "3m")),
    ("CHI:3m4m0m", "chi", ("3m", "4m", "0m")),
    ("chii:789s", "chi", ("7s", "8s", "9s")),
    ("pon:550p", "pon", ("5p", "5p", "0p")),
    ("kan:5555p", "kan", ("5p",) * 4),
    ("minkan:7777z", "kan", ("7z",) * 4),
    ("daiminkan:1111m", "kan", ("1m",) * 4),
    ("ankan:1111z", "ankan", ("1z",) * 4),
])
def test_a_call_is_its_kind_and_tiles(text, kind, tiles):
    c = parse_call(text)
    assert (c.kind, c.tiles) == (kind, tiles)


@pytest.mark.parametrize("text, why", [
    ("chi:123z", "a chi is a run of one suit, m, p or s: honours make no runs"),
    ("chi:135m", "a chi is 3 in a row of one suit"),
    ("chi:89m1p", "a chi is 3 in a row of one suit"),
    ("kan:555p", "a kan is 4 tiles, not 3"),
    ("ankan:55555p", "a ankan is 4 tiles, not 5"),
    ("pon:5555p", "a pon is 3 tiles, not 4"),
    ("pon:556p", "a pon is 3 alike"),
    ("kan:5556p", "a kan is 4 alike"),
    ("peng:555p", "no kind 'peng'"),
    ("pon:", "no tiles after the kind"),
    ("pon:55q5", "bad token '55q' at position 1"),
    ("pon555p", "write the kind, a colon and the tiles"),
])
def test_an_impossible_call_is_refused_with_its_text_and_what_is_accepted(text, why):
    with pytest.raises(HandError) as e:
        parse_call(text)
    msg = str(e.value)
    assert msg.startswith("call %r: %s" % (text, why)), msg
    assert ACCEPTED in msg


@pytest.mark.parametrize("text", [
    "23455p66s pon:555p chi:123m",
    "23455p66s PON:555p chi 123m",
    "pon: 555p 23455p66s chi:123m",
    "23455p66s, pon 555p, chii 123m",
])
def test_calls_written_in_the_hand_read_as_given_apart(text):
    apart = parse_hand("23455p66s", mixed_deck=True, calls=["pon:555p", "chi:123m"])
    written = parse_hand(text, mixed_deck=True)
    assert written.tiles == apart.tiles and written.total == apart.total
    assert [(c.kind, c.tiles) for c in written.calls] == [(c.kind, c.tiles) for c in apart.calls]


def test_a_bad_closed_tile_keeps_its_position_beside_written_calls():
    with pytest.raises(HandError, match="bad token '66q' at position 19"):
        parse_hand("pon:555p chi:123m 66q 2345p")


@pytest.mark.parametrize("text, calls, words", [
    ("23455p66s", ["pon:555p"] * 5, "5 calls: a hand has at most 4"),
    ("234567p666s", ["pon:555p"], "9 closed tiles with 1 call: each call counts as 3 of the "
                               "hand's 14 (a kan's 4th tile is extra), so the closed tiles "
                               "number 1, 2, 4, 5, 7, 8, 10, 11"),
    ("123456789m111p", ["kan:5555s"], "12 closed tiles with 1 call"),
    ("", ["pon:555p"], "no closed tiles besides the calls: a hand holds 1 to 11 closed tiles"),
    ("pon:555p", [], "no closed tiles besides the calls"),
    ("55p", ["pon:555p"] * 2, "call 'pon:555p': 8 copies of 5p in all (2 in the closed "
                              "tiles, pon:555p, pon:555p): at most 4 in one set"),
])
def test_tile_counts_and_copies_count_the_calls(text, calls, words):
    with pytest.raises(HandError) as e:
        parse_hand(text, calls=calls)
    assert words in str(e.value)


def test_a_pon_making_9_copies_is_refused_with_mixed_deck():
    with pytest.raises(HandError, match=r"call 'pon:555p': 9 copies of 5p in all \(6 in the "
                                        r"closed tiles, pon:555p\): at most 8 with Mixed Deck"):
        parse_hand("555555p6s", mixed_deck=True, calls=["pon:555p"])
    assert parse_hand("55555p67s", mixed_deck=True, calls=["pon:555p"]).total[13] == 8


def test_red_fives_are_special_tiles_across_the_calls():
    with pytest.raises(HandError, match=r"2 copies of the special tile 0p \(called ones too\): "
                                        "a set has 1"):
        parse_hand("0p6s", calls=["chi:340p"])
    assert parse_hand("0p6s", mixed_deck=True, calls=["chi:340p"]).total[13] == 2


def test_make_call_is_the_apis_kind_and_tiles():
    assert make_call("pon", "555p") == parse_call("pon:555p")
    with pytest.raises(HandError, match="call 'chi:777z'"):
        make_call("chi", "777z")


# -- what calls change --------------------------------------------------------------------------

def test_the_issues_example():
    r = analyse("23455p66s", mixed_deck=True, calls=["pon:555p", "chi:123m"])
    assert r["tile_count"] == 13 and r["tiles"] == ["2p", "3p", "4p", "5p", "5p", "6s", "6s"]
    assert r["calls"] == [{"kind": "pon", "tiles": ["5p", "5p", "5p"]},
                          {"kind": "chi", "tiles": ["1m", "2m", "3m"]}]
    assert r["waits"] == ["5p", "6s"] and r["wait_types"] == {"5p": ["shanpon"],
                                                             "6s": ["shanpon"]}
    # 5 copies of 5p across the pon: either win has the 1-han yaku
    assert r["copies_left"] == {"5p": 3, "6s": 6}
    assert r["wait_yaku"] == {"5p": [{"name": "5-7 copies of one face", "han": 1}],
                              "6s": [{"name": "5-7 copies of one face", "han": 1}]}


def test_a_wait_held_to_the_limit_across_calls_is_no_wait():
    # one set: 1m tanki with a pon of 1m holds 4 -> waits on a 5th copy, not tenpai
    r = analyse("1m", calls=["pon:111m", "chi:123p", "chi:456p", "chi:789p"], completable=True)
    assert r["shape_waits"] == ["1m"] and r["waits"] == [] and r["tenpai"] is False
    assert [x["id"] for x in r["rulings"]] == ["fifth-copy-one-set"]
    assert analyse("1m", calls=["pon:111m", "chi:123p", "chi:456p", "chi:789p"])["tenpai"]
    # Mixed Deck: two kans of 2p hold 8 -> 2p is a shape wait only
    r = md("1p3p5z5z", calls=["kan:2222p", "ankan:2222p", "pon:111z"])
    assert r["shape_waits"] == ["2p"] and r["waits"] == [] and r["tenpai"] is False
    r = md("1p3p5z5z", calls=["kan:2222p", "pon:222p", "pon:111z"])
    assert r["waits"] == ["2p"] and r["copies_left"] == {"2p": 1}
    assert r["wait_yaku"] == {"2p": [{"name": "8 copies of one face", "yakuman": True}]}


def test_complete_is_the_closed_shape_with_kans_counted_as_sets():
    r = md("123m55p", calls=["kan:7777s", "ankan:1111z", "pon:999m"])
    assert r["complete"] is True and r["tile_count"] == 16
    assert r["decompositions"] == [{"form": "sets", "blocks": ["123m", "55p"]}]
    assert r["mixed_deck_yaku"] == []  # no face 5 times
    assert md("123m56p", calls=["kan:7777s", "ankan:1111z", "pon:999m"])["complete"] is False


def test_the_copy_yaku_count_called_tiles():
    r = md("55p", calls=["pon:555p", "chi:123m", "chi:456m", "chi:789m"])
    assert r["complete"] and r["mixed_deck_yaku"] == [{"name": "5-7 copies of one face",
                                                       "han": 1}]
    r = md("33p", calls=["kan:2222p", "ankan:2222p", "chi:123m", "pon:111z"])
    assert r["tile_count"] == 16 and r["mixed_deck_yaku"] == [{"name": "8 copies of one face",
                                                               "yakuman": True}]
    # one set: Mixed Deck's yaku are not played
    assert analyse("55p", calls=["pon:666p", "chi:123m", "chi:456m", "chi:789m"])[
        "mixed_deck_yaku"] == []


def test_backs_count_every_tile_called_or_not():
    calls = ["pon:555p", "chi:123m", "chi:456m", "chi:789m"]
    r = md("11z", calls=calls, backs=(7, 7))
    assert r["mixed_deck_yaku"] == [{"name": "7 tiles from each set", "han": 1}]
    with pytest.raises(HandError, match="backs 1,1 count 2 tiles; the hand has 14, its calls' "
                                        "included"):
        md("11z", calls=calls, backs=(1, 1))
    # a kan: 15 tiles, never 7 and 7 (ruling)
    r = md("11z", calls=["kan:5555p"] + calls[1:], backs=(7, 8))
    assert r["mixed_deck_yaku"] == []
    assert [x["id"] for x in r["rulings"]] == ["seven-each-with-kan"]
