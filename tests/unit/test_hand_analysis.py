"""hostd.hand.analysis: the whole answer, with seed 000's examples and the copy rules."""
import pytest

from hostd.hand import HandError, analyse, parse_backs


def md(text, **kw):
    return analyse(text, mixed_deck=True, completable=True, **kw)


# -- seed 000's examples (Optional Tenpai Ruling) -------------------------------------------

def test_seed_1p_four_times_is_tenpai_on_the_5th_1p():
    r = md("1p1p1p1p")
    assert r["tenpai"] is True and r["waits"] == ["1p"]
    assert r["wait_types"] == {"1p": ["shanpon", "tanki"]}
    assert r["copies_left"] == {"1p": 4}


def test_seed_2p_seven_times_is_tenpai_on_the_8th_2p():
    r = md("2p2p2p2p2p2p2p")
    assert r["tenpai"] is True and r["waits"] == ["2p"] and r["copies_left"] == {"2p": 1}


def test_seed_waiting_on_a_9th_3p_is_not_tenpai():
    r = md("1p2p3p3p3p3p3p3p3p3p")
    assert r["tenpai"] is False and r["waits"] == [] and r["wait_types"] == {}
    assert r["shape_waits"] == ["3p"]  # it is waiting, on a tile that cannot exist


def test_seed_wait_type_depends_only_on_the_final_block():
    r = md("2p3p4p4p4p4p4p4p4p4p")
    assert r["waits"] == ["1p"] and r["wait_types"] == {"1p": ["ryanmen"]}
    assert "4p" not in r["wait_types"] and r["shape_waits"] == ["1p", "4p"]


def test_seed_pinfu_hand_without_mixed_deck():
    r = analyse("2p3p4p4p4p4p5p5p6p6p1m2m3m", completable=True)
    assert r["waits"] == ["1p", "5p", "6p", "7p"]
    assert r["wait_types"]["1p"] == ["ryanmen"] and r["wait_types"]["7p"] == ["ryanmen"]
    assert r["shape_waits"] == ["1p", "4p", "5p", "6p", "7p"]  # 4p would be a 5th copy


# -- copy limits and the completable ruling -------------------------------------------------

def test_four_copies_waiting_on_a_5th_without_mixed_deck():
    """Ruling: one set, 1111m + 123p456p789p waits only on a 5th 1m: the hand is waiting
    (tenpai in a formal sense) but not completable-tenpai, and 1m is not a wait."""
    plain = analyse("1111m123p456p789p")
    assert plain["tenpai"] is True and plain["waits"] == [] and plain["shape_waits"] == ["1m"]
    assert analyse("1111m123p456p789p", completable=True)["tenpai"] is False
    mixed = analyse("1111m123p456p789p", mixed_deck=True, completable=True)
    assert mixed["tenpai"] is True and mixed["waits"] == ["1m"] and mixed["copies_left"] == {"1m": 4}
    assert mixed["wait_types"] == {"1m": ["shanpon", "tanki"]}


def test_waits_sorted_m_p_s_z_then_number():
    r = analyse("19m19p19s1234567z")
    assert r["waits"] == ["1m", "9m", "1p", "9p", "1s", "9s",
                          "1z", "2z", "3z", "4z", "5z", "6z", "7z"]
    assert list(r["wait_types"]) == r["waits"]


def test_special_tiles_count_as_their_face_and_waits_are_plain_faces():
    r = analyse("7mb7m7m340p5pg11z22z", mixed_deck=True)
    assert r["tiles"] == ["7m", "7m", "7mb", "3p", "4p", "0p", "5pg", "1z", "1z", "2z", "2z"]
    assert r["complete"] is False  # 777m 345p 5p 11z 22z
    r = analyse("34p0p5pg", mixed_deck=True)  # 3 4 5 5: 345 + 5, or 34 + 55
    assert r["tiles"] == ["3p", "4p", "0p", "5pg"]
    assert r["waits"] == ["2p", "5p"]
    assert r["copies_left"]["5p"] == 6


def test_complete_hand_has_readings_and_no_waits():
    r = analyse("22222222p333s456s", mixed_deck=True)
    assert r["complete"] is True and r["tenpai"] is False and r["waits"] == []
    assert r["decompositions"] == [{"form": "sets",
                                    "blocks": ["22p", "222p", "222p", "333s", "456s"]}]
    assert r["mixed_deck_yaku"] == [{"name": "8 copies of one face", "yakuman": True}]


def test_yaku_only_for_a_complete_hand_with_mixed_deck():
    assert analyse("22222p333s456s789m", mixed_deck=True)["mixed_deck_yaku"] != []
    assert analyse("22222p333s456s78m1z", mixed_deck=True)["mixed_deck_yaku"] == []
    assert analyse("123m456p789s11z222z")["mixed_deck_yaku"] == []


def test_backs():
    r = analyse("123m456p789s11z222z", mixed_deck=True, backs=(7, 7))
    assert r["mixed_deck_yaku"] == [{"name": "7 tiles from each set", "han": 1}]
    with pytest.raises(HandError, match="need Mixed Deck"):
        analyse("123m456p789s11z222z", backs=(7, 7))
    with pytest.raises(HandError, match="backs 7,6 count 13 tiles; the hand has 14"):
        analyse("123m456p789s11z222z", mixed_deck=True, backs=(7, 6))
    assert parse_backs(" 7, 7") == (7, 7)
    for bad in ("7", "7,7,0", "-1,15", "a,b", ""):
        with pytest.raises(HandError, match="give N,M"):
            parse_backs(bad)


def test_contract_keys():
    r = analyse("123m456p789s1122z")
    for key in ("tiles", "complete", "tenpai", "waits", "wait_types", "mixed_deck_yaku"):
        assert key in r
    assert r["waits"] == ["1z", "2z"] and r["wait_types"] == {"1z": ["shanpon"], "2z": ["shanpon"]}


def test_wait_yaku_is_what_winning_on_each_wait_would_give():
    r = md("2p2p2p2p2p2p2p")
    assert r["wait_yaku"] == {"2p": [{"name": "8 copies of one face", "yakuman": True}]}
    r = md("2222p333s456s789m")  # the 5th 2p: 222p 22p
    assert r["wait_yaku"] == {"2p": [{"name": "5-7 copies of one face", "han": 1}]}
    r = md("22223p333s456s11z")  # 1p or 4p with 222p: 4 copies stay 4
    assert r["waits"] == ["1p", "4p"] and r["wait_yaku"] == {"1p": [], "4p": []}
    assert analyse("2222p333s456s789m")["wait_yaku"] == {}  # one set: no Mixed Deck yaku
