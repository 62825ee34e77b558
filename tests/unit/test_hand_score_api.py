"""POST /hand/score (hostd.hand.score_api) on the daemon's API, as test_hand_api.py does
/hand/check."""
import asyncio

import httpx
import pytest

from hostd.hand.score import score
from hostd.web.api import create_app
from tests.unit import test_hand_api
from tests.unit.test_hand_api import BASE, TOKEN, NoDaemon


def post(body=None, **kw):
    return test_hand_api.post(body, path="/hand/score", **kw)


def test_score_a_hand():
    r = post({"hand": "234789m12345666p", "win": "6p", "tsumo": True, "riichi": True,
              "seat_wind": "south"})
    assert r.status_code == 200, r.text
    j = r.json()
    assert (j["han"], j["fu"]) == (3, 20) and j["points"]["total"] == 2700
    assert [y["id"] for y in j["yaku"]] == ["riichi", "menzen_tsumo", "pinfu"]
    assert j["points"]["payments"][0] == {"payer": "east", "points": 1300}


def test_same_answer_as_the_cli_json_with_calls_options_and_dora():
    body = {"hand": "234567m22p234s", "win": "7m", "seat_wind": "west", "dora": "6m",
            "calls": [{"kind": "pon", "tiles": "555z"}], "options": {"kiriage": True}}
    j = post(body).json()
    assert j == score("234567m22p234s", win="7m", seat_wind="west", dora="6m",
                      calls=["pon:555z"], options={"kiriage": True})
    assert j["options"]["kiriage"] is True and j["dora"]["dora"] == 1


def test_mixed_deck_and_speed_tonpuu_over_the_api():
    j = post({"hand": "22222222p333s456s", "win": "6s", "mixed_deck": True}).json()
    assert j["yaku"] == [{"id": "copies_8", "name": "8 copies of one face", "han": 0,
                          "yakuman": 1}]
    j = post({"hand": "123m456p789p55s11z5zx", "win": "5zx", "ruleset": "speed-tonpuu",
              "seat_wind": "south", "riichi": True, "tsumo": True}).json()
    assert j["wildcard_as"] in ("1z", "5s") and j["chips"]["total"] == 3


def test_no_yaku_is_200_with_han_0_and_why():
    r = post({"hand": "123m456p789s11z555s", "win": "5s", "seat_wind": "south"})
    assert r.status_code == 200 and r.json()["han"] == 0 and "no yaku" in r.json()["no_yaku"]


def test_not_a_motor_command_no_token_needed():
    r = post({"hand": "234789m12345666p", "win": "6p"}, token=TOKEN)
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("body, words", [
    ({"hand": "11122233345689p", "win": "9p"}, "not a winning hand"),
    ({"hand": "11122233345699p", "win": "5m"}, "5m is not among them"),
    ({"hand": "11122233345699p", "win": "9p", "ippatsu": True}, "ippatsu needs riichi"),
    ({"hand": "11122233345699p", "win": "9p", "seat_wind": "up"}, "seat_wind 'up'"),
    ({"hand": "11122233345699p", "win": "9p", "dora": "9q"}, "dora indicators: bad token"),
    ({"hand": "11122233345699p", "win": "9p", "ruleset": "wsom"}, "has its own scoring"),
    ({"hand": "11122233345699p", "win": "9p", "options": {"local_yaku": ["x"]}},
     "option local_yaku: 'x' is not one of"),
    ({"hand": "", "win": "9p"}, "no tiles given"),
])
def test_a_hand_that_cannot_be_scored_is_400_with_the_message(body, words):
    r = post(body)
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert err["code"] == "bad_request" and words in err["message"]


@pytest.mark.parametrize("body, words", [
    ({"hand": "11122233345699p"}, ["win", "Field required"]),
    ({"hand": "11122233345699p", "win": "9p", "tsumo": "yes"}, ["tsumo", "boolean"]),
    ({"hand": "11122233345699p", "win": "9p", "options": {"kuitan": True}},
     ["options.kuitan"]),
    ({"hand": "11122233345699p", "win": "9p", "options": {"kiriage": 1}},
     ["options.kiriage", "boolean"]),
    ({"hand": "11122233345699p", "win": "9p", "nagashi": True}, ["nagashi"]),
    ({"hand": "11122233345699p", "win": "9p", "dora": 5}, ["dora", "string"]),
])
def test_wrong_types_are_422_naming_the_field(body, words):
    r = post(body)
    assert r.status_code == 422, r.text
    msg = r.json()["error"]["message"]
    for w in words:
        assert w in msg, msg
    assert '"win"' in msg and '"seat_wind"' in msg  # this route's accepted body


def test_openapi_documents_the_route():
    async def go():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(NoDaemon())),
                                     base_url=BASE) as c:
            return (await c.get("/openapi.json")).json()

    doc = asyncio.run(go())
    assert "post" in doc["paths"]["/hand/score"]
    props = doc["components"]["schemas"]["HandScoreRequest"]["properties"]
    assert {"hand", "win", "tsumo", "riichi", "dora", "ura", "options", "calls"} <= set(props)
    assert "han" in doc["components"]["schemas"]["HandScoreResult"]["properties"]
