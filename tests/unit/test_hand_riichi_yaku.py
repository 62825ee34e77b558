"""The standard yaku and yakuman (hostd.hand.riichi_yaku), each on a hand that has it
(a non-dealer, South, in the East round, by ron unless said)."""
import pytest

from hostd.hand.score import score

S = {"seat_wind": "south", "round_wind": "east"}


def yaku(text, win, **kw):
    r = score(text, win=win, **{**S, **kw})
    return {y["id"]: y["yakuman"] or y["han"] for y in r["yaku"]}


@pytest.mark.parametrize("text, win, kw, expected", [
    ("234m567p22345678s", "8s", {"riichi": True}, {"riichi": 1, "pinfu": 1, "tanyao": 1}),
    ("234m567p22345678s", "8s", {"riichi": True, "double_riichi": True, "ippatsu": True},
     {"double_riichi": 2, "ippatsu": 1, "pinfu": 1, "tanyao": 1}),
    ("234m567p22345678s", "8s", {"riichi": True, "open_riichi": True},
     {"open_riichi": 2, "pinfu": 1, "tanyao": 1}),
    ("223344m567p22678s", "4m", {}, {"iipeikou": 1, "tanyao": 1, "pinfu": 1}),
    ("223344m223344p55s", "5s", {}, {"ryanpeikou": 3, "tanyao": 1}),
    ("123m123p123s78999s", "9s", {}, {"sanshoku": 2, "junchan": 3, "pinfu": 1}),
    ("123456789m11z234p", "1z", {"tsumo": True}, {"menzen_tsumo": 1, "ittsu": 2}),
    ("123m789p11z123999s", "1z", {}, {"chanta": 2}),
    ("123m789p11s123999s", "1s", {}, {"junchan": 3}),
    ("111m555p999s22z", "2z", {"calls": ["pon:777z"]}, {"toitoi": 2, "sanankou": 2, "chun": 1}),
    ("111m111p111s789m22z", "2z", {}, {"sanankou": 2, "sanshoku_doukou": 2, "chanta": 2}),
    ("1199m1199p1199s11z", "1z", {}, {"chiitoitsu": 2, "honroutou": 2}),
    ("123456789m111z22z", "2z", {}, {"honitsu": 3, "ittsu": 2, "round_wind": 1}),
    ("123456789p55z", "5z", {"calls": ["pon:777z"]}, {"honitsu": 2, "ittsu": 1, "chun": 1}),
    ("11122233345699p", "9p", {}, {"chinitsu": 6, "sanankou": 2}),
])
def test_yaku(text, win, kw, expected):
    assert yaku(text, win, **kw) == expected


@pytest.mark.parametrize("text, win, kw, expected", [
    ("111m555p999s22z777z", "2z", {}, {"suuankou_tanki": 2}),
    ("111m555p999s777z22z", "7z", {"tsumo": True}, {"suuankou": 1}),
    ("222333444555s11z", "1z", {}, {"suuankou_tanki": 2}),
    ("11223344556677z", "7z", {}, {"tsuuiisou": 1}),
    ("11123456789999p", "5p", {}, {"chuuren": 1}),
    ("11123456789999p", "9p", {}, {"chuuren_9": 2}),
    ("11123456789995p", "5p", {}, {"chuuren_9": 2}),
    ("22334466888s666z", "8s", {}, {"ryuuiisou": 1}),
    ("111999m111p99s", "9s", {"calls": ["pon:999p"]}, {"chinroutou": 1}),
    ("123m555z666z11s", "1s", {"calls": ["pon:777z"]}, {"daisangen": 1}),
    ("123m11z222z333z", "1z", {"calls": ["pon:444z"]}, {"shousuushi": 1}),
    ("111z222z333z55z", "5z", {"calls": ["pon:444z"]}, {"daisuushi": 2, "tsuuiisou": 1}),
    ("19m19p19s1234567z1m", "9m", {}, {"kokushi": 1}),
    ("19m19p19s1234567z1m", "1m", {}, {"kokushi_13": 2}),
    ("11z", "1z", {"calls": ["kan:2222p", "kan:3333s", "ankan:4444m", "kan:5555z"]},
     {"suukantsu": 1}),
])
def test_yakuman(text, win, kw, expected):
    assert yaku(text, win, **kw) == expected


def test_double_yakuman_is_an_option():
    assert yaku("19m19p19s1234567z1m", "1m", options={"double_yakuman": False}) == {
        "kokushi_13": 1}


def test_tanyao_open_is_an_option():
    assert yaku("234m567p22678s", "8s", calls=["chi:345s"]) == {"tanyao": 1}
    assert yaku("234m567p22678s", "8s", calls=["chi:345s"], options={"open_tanyao": False}) == {}


def test_seat_and_round_wind_each_count():
    assert yaku("123m456p789s22z", "2z", calls=["pon:111z"], seat_wind="east") == {
        "seat_wind": 1, "round_wind": 1}
    assert yaku("123m456p789s22z", "2z", calls=["pon:111z"], seat_wind="north",
                options={"round_winds": ["south"]}) == {"round_wind": 1}


def test_situational_yaku():
    assert yaku("567p22678s", "8s", calls=["kan:9999m", "chi:345s"], tsumo=True,
                rinshan=True) == {"rinshan": 1}
    assert yaku("234m567p22345678s", "8s", chankan=True)["chankan"] == 1
    assert yaku("234m567p22345678s", "8s", tsumo=True, haitei=True)["haitei"] == 1
    assert yaku("234m567p22345678s", "8s", houtei=True)["houtei"] == 1
    assert yaku("234m567p22345678s", "8s", renhou=True)["renhou"] == 5
    assert yaku("234m567p22345678s", "8s", renhou=True,
                options={"renhou_yakuman": True}) == {"renhou_yakuman": 1}
    assert yaku("234m567p22345678s", "8s", tsumo=True, tenhou=True, seat_wind="east") == {
        "tenhou": 1}


def test_hands_md_lists_every_yaku_with_its_han():
    from hostd.hand.riichi_yaku import YAKU, YAKUMAN
    from tests.unit.hands_md import code, rows

    table = rows("Yaku")
    yaku = {code(r[0]): r[1:] for r in table if len(r) == 4 and r[2].isdigit()}
    assert yaku == {k: [n, str(c), str(o) if o else "closed only"]
                    for k, (n, c, o) in YAKU.items()}
    ymen = {code(r[0]): r[1:3] for r in table if r[2] in ("yakuman", "double")
            and code(r[0]) in YAKUMAN}
    assert ymen == {k: [n, "double" if c == 2 else "yakuman"] for k, (n, c, _) in YAKUMAN.items()}
