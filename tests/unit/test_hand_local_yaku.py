"""Yaku beyond the standard set (hostd.hand.local_yaku): Mixed Deck's (seed 000) and
Speed Tonpuu's local yaku and special tiles (seed 001)."""
import pytest

from hostd.hand.score import score

S = {"seat_wind": "south", "round_wind": "east"}


def han_of(r):
    return {y["id"]: y["yakuman"] or y["han"] for y in r["yaku"]}


def tonpuu(text, win, **kw):
    return score(text, win=win, ruleset="speed-tonpuu", **{**S, **kw})


def test_copy_yaku_open_or_closed_once():
    r = score("23455p666s", win="6s", calls=["pon:555p", "chi:123m"], mixed_deck=True, **S)
    assert han_of(r) == {"copies_5_7": 1}
    assert [x["id"] for x in r["rulings"]] == ["copy-yaku-open"]
    r = score("55555p666666s123m", win="1m", mixed_deck=True, **S)  # two faces: once
    assert han_of(r)["copies_5_7"] == 1 and list(han_of(r)).count("copies_5_7") == 1


def test_eight_copies_stack_with_other_yakuman():
    r = score("22z", win="2z", calls=["ankan:5555z", "ankan:5555z", "ankan:6666z",
                                         "ankan:7777z"], tsumo=True, mixed_deck=True, **S)
    assert han_of(r) == {"daisangen": 1, "suuankou_tanki": 2, "suukantsu": 1, "tsuuiisou": 1,
                         "copies_8": 1}
    assert r["limit"] == "6x yakuman" and "copy-yakuman-stacks" in [
        x["id"] for x in r["rulings"]]


def test_seven_each_needs_backs():
    r = score("234m567p22345678s", win="8s", mixed_deck=True, backs=(7, 7), **S)
    assert han_of(r)["seven_each"] == 1
    r = score("234m567p22345678s", win="8s", mixed_deck=True, backs=(8, 6), **S)
    assert "seven_each" not in han_of(r)


def test_special_tiles_han_and_chips():
    r = tonpuu("234m4p0p6p5pg6p7p22s6s7sb8s", "8s", riichi=True)
    assert han_of(r) == {"riichi": 1, "tanyao": 1, "pinfu": 1, "gold_five": 1}
    assert r["dora"]["red"] == 1 and r["dora"]["blue"] == 1 and r["han"] == 6
    items = {i["item"]: i["chips"] for i in r["chips"]["items"]}
    assert items == {"red": 1, "blue": 2, "gold": 1} and r["chips"]["total"] == 4


def test_blue_sevens_alone_are_no_yaku():
    r = tonpuu("123m789p7sb89s55s", "5s", calls=["chi:123p"])
    assert r["han"] == 0 and r["dora"]["blue"] == 1 and r["chips"]["total"] == 0


def test_kansai_chiitoi_quads():
    assert han_of(tonpuu("1111m2233p4455s66z", "6z")) == {"chiitoitsu": 2, "kansai_one_quad": 1}
    assert han_of(tonpuu("1111m2222p4455s66z", "6z"))["kansai_two_quads"] == 3
    assert han_of(tonpuu("1111m2222p4444s66z", "6z")) == {"kansai_three_quads": 1}
    with pytest.raises(Exception, match="not a winning hand"):
        score("1111m2233p4455s66z", win="6z", **S)  # not in the base ruleset


def test_sanrenko_suurenko_sanpuuko():
    assert han_of(tonpuu("111222333p456s77z", "7z"))["sanrenko"] == 2
    assert han_of(tonpuu("111222333444p77z", "7z")) == {"suurenko": 1, "suuankou_tanki": 2}
    r = tonpuu("111z222z333z456s77z", "7z")
    assert han_of(r)["sanpuuko"] == 2
    assert "sanrenko" not in han_of(score("111222333p456s77z", win="7z", **S))


def test_west_is_a_round_wind_in_speed_tonpuu():
    assert han_of(tonpuu("123m456p789s22z", "2z", calls=["pon:333z"])) == {"round_wind": 1}
    assert score("123m456p789s22z", win="2z", calls=["pon:333z"], **S)["han"] == 0


def test_ultimate_all_stars():
    r = tonpuu("0m6m7mb4p0p6p5pg6p7pb0s6s7sb11z", "1z")
    assert han_of(r) == {"ultimate_all_stars": 1} and r["limit"] == "yakuman"
    assert {i["item"]: i["count"] for i in r["chips"]["items"]} == {
        "red": 3, "blue": 3, "gold": 1, "yakuman_ron": 1}
    r = tonpuu("0m6m7m4p0p6p5pg6p7pb0s6s7sb11z", "1z")  # a plain 7m: not all the colours
    assert "ultimate_all_stars" not in han_of(r)


def test_pocchi_wildcard_in_riichi():
    r = tonpuu("123m456p789p55s11z5zx", "5zx", riichi=True, tsumo=True)
    assert r["wildcard_as"] in ("1z", "5s") and "pocchi-wildcard" in [
        x["id"] for x in r["rulings"]]
    assert {"item": "pocchi", "count": 1, "chips": 1} in r["chips"]["items"]
    # a pocchi named as the win must be one of the closed tiles, as written
    with pytest.raises(Exception, match="5zx is not among them .a special tile is named"):
        tonpuu("123m456p789p55s11z5z", "5zx", riichi=True, tsumo=True)
    # not in riichi: a plain white dragon, and no hand
    with pytest.raises(Exception, match="not a winning hand"):
        tonpuu("123m456p789p55s11z5zx", "5zx", tsumo=True)


def test_hands_md_lists_the_local_yaku():
    from hostd.hand.local_yaku import LOCAL, LOCAL_YAKUMAN
    from tests.unit.hands_md import code, rows

    table = {code(r[0]): r[1:3] for r in rows("Yaku") if code(r[0]) in LOCAL}
    assert table == {k: [n, "yakuman" if k in LOCAL_YAKUMAN else "%d han" % h]
                     for k, (n, h) in LOCAL.items()}


def test_shiisanpuutaa_on_a_first_draw():
    r = tonpuu("147m258p369s1234z5z", "5z", tsumo=True, chiihou=True)
    assert han_of(r) == {"shiisanpuutaa": 1} and r["points"]["total"] == 32000
    assert r["reading"]["form"] == "thirteen unrelated tiles" and r["fu"] == 0
    assert [x["id"] for x in r["rulings"]] == ["shiisanpuutaa-first-draw"]
    r = tonpuu("147m258p369s1234z1z", "1z", tsumo=True, tenhou=True, seat_wind="east")
    assert han_of(r) == {"shiisanpuutaa": 1} and r["reading"]["blocks"][-1] == "11z"
    for text, kw in (("147m258p369s1234z5z", {"tsumo": True}),  # not the first draw
                     ("147m258p359s1234z5z", {"tsumo": True, "chiihou": True})):  # 3s5s
        with pytest.raises(Exception, match="not a winning hand"):
            tonpuu(text, "5z", **kw)
    with pytest.raises(Exception, match="not a winning hand"):  # not in the base ruleset
        score("147m258p369s1234z5z", win="5z", tsumo=True, chiihou=True, **S)


# -- the little three/four with a 4th-8th copy as the pair (issue 50 point 7) ---------------
# seed 000 lines 15-16 allow 5 to 8 copies of a face, so a pair may be a copy of a triplet's
# face; shousangen and shousuushii need the pair to be the face no triplet has (docs/HANDS.md
# "Scoring rulings", little-three-missing-face)

@pytest.mark.parametrize("text, win, has, lacks", [
    # a pair of East beside East, South, West triplets: no North tile, no shousuushii
    ("11111z222z333z123m", "3m", {"sanankou", "honitsu"}, {"shousuushi", "daisuushi"}),
    # a pair of White beside White and Green triplets: no Red dragon, no shousangen
    ("55555z666z123m456p", "6p", {"haku", "hatsu", "copies_5_7"}, {"shousangen", "daisangen"}),
    # four wind triplets, one face twice, and a pair of a triplet's face: neither
    ("11111z222222z333z", "3z", {"tsuuiisou"}, {"shousuushi", "daisuushi"}),
    # three dragons, one twice: the real little three dragons, and the real big ones
    ("555555z666z77z123m", "3m", {"shousangen", "copies_5_7"}, {"daisangen"}),
    ("55555z666z777z111m", "1m", {"daisangen"}, {"shousangen"}),
    ("111z222z333z44z123m", "3m", {"shousuushi"}, {"daisuushi"}),
])
def test_the_little_three_needs_the_missing_face_as_its_pair(text, win, has, lacks):
    r = score(text, win=win, mixed_deck=True, **S)
    got = set(han_of(r))
    assert has <= got and not lacks & got, (text, got)
    ids = [x["id"] for x in r["rulings"]]
    shaped = text in ("11111z222z333z123m", "55555z666z123m456p", "11111z222222z333z")
    assert ("little-three-missing-face" in ids) == shaped, ids


def test_the_issues_hands_score_what_they_hold():
    """The two hands of issue 50: Shousuushii's 32,000 and Shousangen's 2 han were false."""
    r = score("11111z222z333z123m", win="3m", seat_wind="south", mixed_deck=True)
    assert not r["yakuman"] and r["points"]["total"] == 16000
    r = score("55555z666z123m456p", win="6p", mixed_deck=True)
    assert r["han"] == 3 and r["points"]["total"] == 9600
