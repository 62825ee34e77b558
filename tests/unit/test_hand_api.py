"""POST /hand/check (hostd.hand.api) on the daemon's API, in tests/unit/test_api.py's style."""
import asyncio

import httpx
import pytest

from hostd.web.api import create_app

BASE = "http://127.0.0.1:8737"
TOKEN = "s3cret-token-for-tests-0123456789"


class NoDaemon:
    """The route never touches the daemon."""


def post(body=None, *, content=None, token=None, headers=None, path="/hand/check"):
    """POST to a hand route (test_hand_score_api.py's /hand/score too) on an app without
    a daemon: `body` as JSON, or `content` sent as it is."""
    async def go():
        app = create_app(NoDaemon(), token=token)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as c:
            if content is not None:
                return await c.post(path, content=content, headers={
                    "content-type": "application/json", **(headers or {})})
            return await c.post(path, json=body, headers=headers)

    return asyncio.run(go())


def test_check_a_hand():
    r = post({"hand": "2p3p4p4p4p4p4p4p4p4p", "mixed_deck": True, "completable": True})
    assert r.status_code == 200, r.text
    j = r.json()
    assert j["tenpai"] is True and j["waits"] == ["1p"] and j["wait_types"] == {"1p": ["ryanmen"]}
    assert j["tiles"][:2] == ["2p", "3p"] and j["complete"] is False


def test_same_answer_as_the_cli_json():
    from hostd.hand import analyse

    body = {"hand": "22222333p444s555s", "mixed_deck": True, "backs": [7, 7]}
    assert post(body).json() == analyse(body["hand"], mixed_deck=True, backs=(7, 7))
    j = post({"hand": "22222222p333s456s", "mixed_deck": True}).json()
    assert j["mixed_deck_yaku"] == [{"name": "8 copies of one face", "yakuman": True}]


def test_not_a_motor_command_no_token_needed():
    r = post({"hand": "1p1p1p1p", "mixed_deck": True, "completable": True}, token=TOKEN)
    assert r.status_code == 200 and r.json()["waits"] == ["1p"]


@pytest.mark.parametrize("hand, words", [
    ("123m45q", "bad token '45q' at position 5"),
    ("1111m1m", "5 copies of 1m"),
    ("123m", "3 tiles"),
    ("123m (456p)", "looks like a called meld: write a call as KIND:TILES"),
    ("", "no tiles given; write a hand in mpsz"),
    ("   ", "no tiles given; write a hand in mpsz"),
    ("1m" * 101, "a hand of 202 characters: at most 200"),
    ("123m pon 111z", "3 closed tiles with 1 call"),
])
def test_unreadable_hand_is_400_with_the_message(hand, words):
    r = post({"hand": hand})
    assert r.status_code == 400
    err = r.json()["error"]
    assert err["code"] == "bad_request" and words in err["message"]


def test_backs_without_mixed_deck_is_400():
    r = post({"hand": "123m456p789s11z222z", "backs": [7, 7]})
    assert r.status_code == 400 and "need Mixed Deck" in r.json()["error"]["message"]


@pytest.mark.parametrize("body, words", [
    ({}, ["hand", "Field required"]),
    ({"hand": 123}, ["hand", "string"]),
    ({"hand": "1m", "mixed_deck": "yes"}, ["mixed_deck", "boolean"]),
    ({"hand": "1m", "mixed_deck": 1}, ["mixed_deck", "boolean"]),
    ({"hand": "1m", "completable": "true"}, ["completable", "boolean"]),
    ({"hand": "1m", "backs": [7]}, ["backs"]),
    ({"hand": "1m", "backs": "7,7"}, ["backs"]),
    ({"hand": "1m", "backs": [7, "7"]}, ["backs"]),
    ({"hand": "1m", "seed": 1}, ["seed", "unknown field"]),
    ({"hand": "1m", "calls": "pon:555p"}, ["calls"]),
    ({"hand": "1m", "calls": [{"kind": "pon"}]}, ["calls.0.tiles", "Field required"]),
    ({"hand": "1m", "calls": [{"kind": "pon", "tiles": 555}]}, ["calls.0.tiles", "string"]),
    ({"hand": "1m", "calls": [{"kind": "pon", "tiles": "555p", "from": 2}]},
     ["calls.0.from", "unknown field"]),
])
def test_wrong_types_are_422_naming_the_field_and_the_accepted_body(body, words):
    r = post(body)
    assert r.status_code == 422, r.text
    msg = r.json()["error"]["message"]
    for w in words:
        assert w in msg, msg
    assert '"hand"' in msg and '"completable"' in msg  # this route's accepted body


def test_invalid_json_is_400_with_this_routes_body():
    r = post(content=b"{hand: 1m")
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_json"
    assert '"completable"' in r.json()["error"]["message"]


def test_origin_and_host_checks_apply():
    assert post({"hand": "1m"}, headers={"Origin": "http://evil.example"}).status_code == 403


def test_openapi_documents_the_route():
    async def go():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(NoDaemon())),
                                     base_url=BASE) as c:
            return (await c.get("/openapi.json")).json()

    doc = asyncio.run(go())
    assert "post" in doc["paths"]["/hand/check"]
    schema = doc["components"]["schemas"]["HandCheckRequest"]
    assert set(schema["properties"]) == {"hand", "mixed_deck", "completable", "backs", "calls"}
    assert set(doc["components"]["schemas"]["CallBody"]["properties"]) == {"kind", "tiles"}


def test_calls_over_the_api_are_the_clis():
    from hostd.hand import analyse

    body = {"hand": "23455p66s", "mixed_deck": True,
            "calls": [{"kind": "pon", "tiles": "555p"}, {"kind": "chi", "tiles": "123m"}]}
    r = post(body)
    assert r.status_code == 200, r.text
    j = r.json()
    assert j == analyse("23455p66s", mixed_deck=True, calls=["pon:555p", "chi:123m"])
    assert j["calls"] == [{"kind": "pon", "tiles": ["5p", "5p", "5p"]},
                          {"kind": "chi", "tiles": ["1m", "2m", "3m"]}]
    assert j["tile_count"] == 13 and j["waits"] == ["5p", "6s"]
    # written in the hand's text: the same answer
    assert post({"hand": "23455p66s pon:555p chi:123m", "mixed_deck": True}).json() == j


def test_a_kan_and_the_rulings_over_the_api():
    r = post({"hand": "11z", "mixed_deck": True, "backs": [8, 8],
              "calls": [{"kind": "kan", "tiles": "5555p"}, {"kind": "chi", "tiles": "123m"},
                        {"kind": "chi", "tiles": "456m"}, {"kind": "ankan", "tiles": "9999s"}]})
    assert r.status_code == 200, r.text
    j = r.json()
    assert j["complete"] is True and j["tile_count"] == 16 and j["mixed_deck_yaku"] == []
    assert [x["id"] for x in j["rulings"]] == ["seven-each-with-kan"]
    # backs may count up to 18 tiles (four kans)
    r = post({"hand": "11z", "mixed_deck": True, "backs": [0, 18],
              "calls": [{"kind": "kan", "tiles": t} for t in ("5555p", "1111m", "9999s", "2222z")]})
    assert r.status_code == 200 and r.json()["tile_count"] == 18, r.text


@pytest.mark.parametrize("calls, words", [
    ([{"kind": "chi", "tiles": "123z"}], "call 'chi:123z': a chi is a run of one suit"),
    ([{"kind": "kan", "tiles": "555p"}], "call 'kan:555p': a kan is 4 tiles, not 3"),
    ([{"kind": "peng", "tiles": "555p"}], "call 'peng:555p': no kind 'peng'"),
    ([{"kind": "pon", "tiles": "555p"}] * 5, "5 calls: a hand has at most 4"),
    ([{"kind": "pon", "tiles": "555p"}, {"kind": "kan", "tiles": "5555p"}],
     "call 'pon:555p': 9 copies of 5p in all (2 in the closed tiles, pon:555p, kan:5555p): "
     "at most 8"),
])
def test_an_impossible_call_is_400_with_the_call_and_what_is_accepted(calls, words):
    r = post({"hand": "55p6s7s", "mixed_deck": True, "calls": calls})
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert err["code"] == "bad_request" and words in err["message"]
