"""A scripted Mixed Deck evening over the HTTP API, against the real daemon and the
in-process simulated table (tests/unit/daemon_harness.py): start, hand overs and throws,
a jam a person frees, a new game, a table restart, the end.  At every step: `next.code`
is a documented code, the command taken was in `can` and is accepted, and every command
not in `can` is refused with 409 naming the state (503 for a motor command while the
table is away), carrying the seq it was judged in."""
import httpx
import pytest

from daemon_harness import Harness
from hostd.table.sim import board_profile
from hostd.core.codes import NEXT
from hostd.core.commands import BY_NAME, NAMES
from hostd.web.api import create_app

BODIES = {"start": {"ruleset": "riichi", "mixed_deck": True}, "dice": {},
          "calibrate": {"sets": ["pink", "yellow"]}, "selftest": {"device": "curtain"}}


class Evening:
    def __init__(self, h):
        self.h = h
        self.client = httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(h.daemon)),
                                        base_url="http://127.0.0.1:8737")
        self.steps = self.refused = 0

    def get(self):
        return self.h.run(self.client.get("/status")).json()

    def post(self, name, body=None):
        c = BY_NAME[name]
        return self.h.run(self.client.post(c.path, json=BODIES.get(name, {}) if body is None
                                           else body), max_s=600)

    def check(self):
        """Every command not in `can` is refused, and says so in the state's words."""
        st = self.get()
        assert st["next"]["code"] in NEXT and "jantaku" not in st["next"]["text"]
        for name in NAMES:
            if name in st["can"]:
                continue
            r = self.post(name)
            err = r.json()["error"]
            if err.get("seq") != self.get()["state"]["seq"]:
                continue  # the table moved on meanwhile: judged on another state
            want = 503 if (not st["table"]["connected"] and BY_NAME[name].needs_table) else 409
            assert r.status_code == want, (name, st["state"], r.status_code, err)
            if want == 409:
                assert err["code"] == st["state"]["name"] and err["next"]["code"] in NEXT
            self.refused += 1
        return st

    def do(self, name, body=None, settle=True):
        st = self.check()
        assert name in st["can"], (name, st["state"], st["can"], st["next"])
        r = self.post(name, body)
        assert r.status_code == 200 or r.json()["error"]["code"] == "fault_remains", r.text
        self.steps += 1
        if settle:  # (the simulated players push the tiles in while the centre is open)
            d = self.h.daemon
            self.h.settle(until=lambda: d.link.connected and not d.busy(), max_s=600)
        return r.json()


@pytest.mark.long
@pytest.mark.parametrize("board", [None, "fourport-24v"], ids=["reference", "fourport"])
def test_a_mixed_deck_evening_over_the_api_where_can_never_lies(tmp_path, board):
    # the same evening on both mechanism families (issue 47: the four-port machine passes
    # the same tests as the reference table)
    h = Harness(tmp_path, seed=5, faults=("jam:build=4,track=2,after=20,count=0",
                                          "reset:build=8,after=40"), push_window=2.0,
                board=board_profile(board="fourport-24v") if board else None)
    try:
        e = Evening(h)
        d = h.daemon
        e.do("start")
        for _ in range(2):
            e.do("hand_over")
            e.do("dice")
        e.do("hand_over")  # hand 3: deck A's rebuild (build 4) jams on track 2
        st = e.check()
        assert st["state"]["name"] == "stopped" and st["fault"]["kind"] == "jam"
        assert "dice" in st["can"]  # the hand on the table is thrown meanwhile
        e.do("dice")
        # cleared before the tile is out: the table refuses, and says so (still accepted)
        assert e.do("clear_fault")["error"]["code"] == "fault_remains"
        assert h.sim.free_jam(2)  # a person takes the stuck tile out
        e.do("clear_fault")
        st = e.get()
        assert st["state"]["name"] == "built" and st["fault"] is None, (st["state"], st["fault"])
        e.do("hand_over")
        e.do("dice")
        e.do("game_new")  # game 2: every tile collected, split afresh
        assert e.get()["session"]["game"] == 2 and e.get()["session"]["dice"] is None
        for _ in range(3):  # the restart comes during a build of game 2
            e.check()
            if e.get()["state"]["name"] == "recovering":
                break
            e.do("hand_over")
            e.do("dice")
        h.settle(until=lambda: d.link.connected, max_s=60)
        st = e.check()
        assert st["state"]["name"] == "recovering" and st["can"][:1] == ["hand_over"]
        e.do("hand_over")  # the re-split at the hand over, then the hand goes on
        e.do("dice")
        s = e.get()["session"]
        assert [sp["split"] for sp in s["games"][-1]["splits"]] == [1, 2]
        e.do("end")
        assert e.get()["state"]["name"] == "idle"
        assert e.steps >= 18 and e.refused >= 100
    finally:
        h.close()
