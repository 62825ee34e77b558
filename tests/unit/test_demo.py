"""`jantaku demo`: the JSON contract and determinism across runtimes (the pseudo-terminal
transport is in tests/e2e/test_demo_e2e.py)."""
import json
import subprocess

import pytest

from tests.conftest import ROOT, tool


def demo(*args, check=True):
    r = subprocess.run([tool("jantaku"), "demo", "--json"] + list(args), capture_output=True,
                       text=True, timeout=300, cwd=str(ROOT))
    if check:
        assert r.returncode == 0, r.stderr + r.stdout
    return json.loads(r.stdout), r


def essence(out):
    """What a seed must reproduce whatever the runtime or transport."""
    return (out["decks"], [(b["deck"], b["per_track"], b["backs"], b["ok"]) for b in out["builds"]],
            [(h["hand"], h["deck"], h["dice"], h["breaker"]) for h in out["hands"]])


@pytest.fixture(scope="module")
def mixed_cpython():
    return demo("--ruleset", "riichi", "--mixed-deck", "--hands", "3", "--seed", "42")[0]


def test_contract_keys_and_shapes(mixed_cpython):
    out = mixed_cpython
    assert out["ruleset"] == "riichi" and out["mixed_deck"] is True and out["seed"] == 42
    assert out["sets"] == ["blue", "green"]
    a, b = out["decks"]["A"], out["decks"]["B"]
    assert a["tiles"] == b["tiles"] == 136
    assert a["backs"]["blue"] + b["backs"]["blue"] == 136
    assert [x["deck"] for x in out["builds"]] == ["A", "B", "A", "B"]  # the split's two first
    for x in out["builds"]:
        assert x["per_track"] == [34, 34, 34, 34] and x["ok"] is True
        assert x["backs"] == out["decks"][x["deck"]]["backs"]
        assert 15 < x["sim_seconds"] < 35  # commercial tables: 18 to 35 s
    assert [h["deck"] for h in out["hands"]] == ["A", "B", "A"]
    for h in out["hands"]:
        assert len(h["dice"]) == 2 and all(1 <= d <= 6 for d in h["dice"])
        assert h["breaker"] in ("self", "right", "across", "left")
        # turnaround: one 4 s lift stroke plus at most 0.2 s of control
        assert h["turnaround_sim_seconds"] <= 4.2
    assert out["faults"] == []
    assert out["firmware"]["implementation"] == "cpython" and out["firmware"]["board"] == "reference-18"
    assert out["sim_seconds"] > 100 and out["wall_seconds"] > 0


def test_the_pico_board_plays_the_same_session(mixed_cpython):
    """`--board pico-18`: the table wired as a Pico's profile says (its slow signals on an
    I2C expander) plays the seed's session as the reference board does, over the
    pseudo-terminal too."""
    for transport in ("inprocess", "pty"):
        out, _ = demo("--ruleset", "riichi", "--mixed-deck", "--hands", "3", "--seed", "42",
                      "--board", "pico-18", "--transport", transport)
        assert out["firmware"]["board"] == "pico-18" and out["faults"] == []
        assert essence(out) == essence(mixed_cpython), transport


def test_an_unknown_board_is_refused_with_the_known_ones():
    r = subprocess.run([tool("jantaku"), "demo", "--ruleset", "riichi", "--board", "pico-99"],
                       capture_output=True, text=True, timeout=60, cwd=str(ROOT))
    assert r.returncode == 2 and "no board profile for 'pico-99'" in r.stderr
    assert "known ids: fourport-24v, long-29, pi-reference, pico-18" in r.stderr


def test_same_seed_same_session_and_another_seed_differs(mixed_cpython):
    again = demo("--ruleset", "riichi", "--mixed-deck", "--hands", "3", "--seed", "42")[0]
    assert essence(again) == essence(mixed_cpython)
    other = demo("--ruleset", "riichi", "--mixed-deck", "--hands", "1", "--seed", "43")[0]
    assert other["decks"] != mixed_cpython["decks"]


def test_micropython_firmware_gives_the_same_session(mixed_cpython):
    out = demo("--ruleset", "riichi", "--mixed-deck", "--hands", "3", "--seed", "42",
               "--firmware-runtime", "micropython")[0]
    assert out["firmware"]["implementation"] == "micropython"
    assert essence(out) == essence(mixed_cpython)


def test_normal_rotation_deck_a_is_blue_and_b_green():
    out = demo("--ruleset", "riichi", "--hands", "2", "--seed", "5")[0]
    assert out["decks"]["A"]["backs"] == {"blue": 136, "green": 0}
    assert out["decks"]["B"]["backs"] == {"blue": 0, "green": 136}
    assert [b["deck"] for b in out["builds"]] == ["A", "B", "A"]


def test_fault_ends_with_nonzero_status_and_the_message_in_the_json():
    out, r = demo("--ruleset", "riichi", "--hands", "1", "--seed", "5", "--fault",
                  "jam:track=2,count=0", check=False)
    assert r.returncode == 1
    assert out["faults"][-1]["kind"] == "jam" and out["faults"][-1]["track"] == 2
    assert "track 2" in out["faults"][-1]["message"]


def test_bad_ruleset_is_a_usage_error():
    r = subprocess.run([tool("jantaku"), "demo", "--ruleset", "poker", "--json"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == ""
    assert "poker" in r.stderr and "riichi" in r.stderr


@pytest.mark.parametrize("spec,words,builds", [
    # mid-lift (hand 2's walls on the way up, the played deck dropping): everything back in,
    # both decks split again, and the hand over goes on with the new deck A
    ("reset:build=2,during=lift", "restarted while raising the walls for hand 2", 5),
    ("reset:build=2,during=door,at=100", "restarted while raising the walls for hand 2", 5),
    # after the top (the hand has begun on counted walls): the lift is brought down again
    ("reset:build=2,during=lift,at=6000", "restarted while the lift went back down", 4),
])
def test_reset_mid_lift_recovers_and_the_session_goes_on(spec, words, builds):
    out, r = demo("--ruleset", "riichi", "--mixed-deck", "--hands", "3", "--seed", "42",
                  "--fault", spec)
    assert [h["hand"] for h in out["hands"]] == [1, 2, 3]
    (fault,) = out["faults"]
    assert fault["kind"] == "reset" and words in fault["message"] and fault["recovered"]
    assert len(out["builds"]) == builds and all(b["ok"] for b in out["builds"])
    a, b = out["decks"]["A"], out["decks"]["B"]
    assert a["tiles"] == b["tiles"] == 136 and a["backs"]["blue"] + b["backs"]["blue"] == 136
    ref = demo("--ruleset", "riichi", "--mixed-deck", "--hands", "3", "--seed", "42")[0]
    if builds == 5:  # split again: the turnaround of hand 2 holds the re-split
        assert out["hands"][1]["turnaround_sim_seconds"] > 30
        # the decks reported are the re-split's, the ones the rebuilt walls were counted as
        (game,) = out["games"]
        first, again = game["splits"]
        assert out["decks"] == again["decks"] != first["decks"]
        assert out["builds"][-1]["backs"] == out["decks"][out["builds"][-1]["deck"]]["backs"]
    else:  # nothing was lost or redone: the same decks as without the reset
        assert out["decks"] == ref["decks"]


@pytest.mark.parametrize("spec,swapped_hand", [
    ("reset:build=2,after=50", 2),  # mid-build, hand 1 in play
    ("reset:build=1,after=30", 1),  # the first build, the green set waiting on top
    ("reset:build=1,after=135", 1),  # one tile before the end
    ("reset:build=2,during=lift", 2),  # mid-lift, at hand 2's hand over
])
def test_normal_rotation_reset_swaps_the_decks_and_checks_both_again(spec, swapped_hand):
    out, r = demo("--ruleset", "riichi", "--hands", "3", "--seed", "42", "--fault", spec)
    (fault,) = out["faults"]
    assert fault["kind"] == "reset" and fault["recovered"] is True
    assert "can't be accounted for" in fault["message"]
    assert [h["hand"] for h in out["hands"]] == [1, 2, 3]
    assert out["decks"] == {"A": {"tiles": 136, "backs": {"blue": 136, "green": 0}},
                            "B": {"tiles": 136, "backs": {"blue": 0, "green": 136}}}
    # the untrusted deck is never played: the other one is built and checked first, and
    # the untrusted one is built and checked again during the next hand
    decks = [h["deck"] for h in out["hands"]]
    assert decks[swapped_hand - 1] == decks[swapped_hand - 2] if swapped_hand > 1 else decks[0] == "B"
    ok = [b for b in out["builds"] if b["ok"]]
    assert all(sum(b["per_track"]) == 136 for b in ok)
    assert all(b["backs"] == ({"blue": 136} if b["deck"] == "A" else {"green": 136}) for b in ok)
    bad = [b for b in out["builds"] if not b["ok"]]
    assert len(bad) == (0 if "lift" in spec else 2)  # the cut build and the drain
    if bad:  # every tile of the cut deck was on the tracks before it went up
        assert sum(sum(b["per_track"]) for b in bad) <= 136
    assert out["hands"][swapped_hand - 1]["turnaround_sim_seconds"] > 30  # holds the swap


# -- games and the sets' colours --------------------------------------------------------------
def test_each_game_splits_both_sets_afresh():
    out = demo("--ruleset", "riichi", "--mixed-deck", "--games", "3", "--hands", "2",
               "--seed", "9")[0]
    games = out["games"]
    assert [g["game"] for g in games] == [1, 2, 3]
    for g in games:
        a, b = g["decks"]["A"], g["decks"]["B"]
        assert a["tiles"] == b["tiles"] == 136
        for c in ("blue", "green"):
            assert a["backs"][c] + b["backs"][c] == 136
        assert len(g["hands"]) == 2 and all(h["game"] == g["game"] for h in g["hands"])
        # each wall's backs, as counted: what the players see of the split
        assert [sum(w.values()) for w in g["walls"]["A"]] == [34] * 4
    walls = [g["walls"]["A"] for g in games]
    assert walls[0] != walls[1] != walls[2] != walls[0]  # a different split every game
    assert out["decks"] == games[-1]["splits"][-1]["decks"] and len(out["hands"]) == 6
    assert [h["hand"] for h in out["hands"]] == [1, 2, 3, 4, 5, 6]


def test_identical_backs_are_split_and_counted_by_count():
    out, _ = demo("--ruleset", "riichi", "--mixed-deck", "--colours", "blue,blue", "--hands", "4",
                  "--seed", "3")
    assert out["sets"] == ["blue", "blue"]
    assert out["decks"] == {"A": {"tiles": 136, "backs": {"blue": 136}},
                            "B": {"tiles": 136, "backs": {"blue": 136}}}
    assert all(b["per_track"] == [34] * 4 and b["ok"] for b in out["builds"])
    out, r = demo("--ruleset", "riichi", "--mixed-deck", "--colours", "blue,blue", "--hands", "4",
                  "--seed", "3", "--fault", "missing-tile:count=1", check=False)
    assert r.returncode == 1
    assert "135" in out["faults"][-1]["message"] and "136" in out["faults"][-1]["message"]


def test_a_colour_the_board_does_not_know_is_a_usage_error():
    r = subprocess.run([tool("jantaku"), "demo", "--ruleset", "riichi", "--colours", "red,blue"],
                       capture_output=True, text=True, timeout=60, cwd=str(ROOT))
    assert r.returncode == 2 and "red" in r.stderr and "blue, green" in r.stderr
    assert "Traceback" not in r.stderr


def test_players_pressing_the_buttons_get_the_same_decks_and_throws_as_the_api():
    args = ("--ruleset", "riichi", "--mixed-deck", "--hands", "4", "--seed", "5")
    buttons = demo(*args, "--via", "buttons")[0]
    api = demo(*args)[0]
    assert buttons["via"] == "buttons" and api["via"] == "api"
    assert [h["by"] for h in buttons["hands"]] == ["button"] * 4
    assert [h["by"] for h in api["hands"]] == ["api"] * 4
    for h in buttons["hands"]:
        assert len(h["dice"]) == 2 and h["dice_by"] == "button" and h["breaker"]
    assert buttons["decks"] == api["decks"]
    assert [x["dice"] for x in buttons["hands"]] == [x["dice"] for x in api["hands"]]
    assert [(b["deck"], b["backs"]) for b in buttons["builds"]] == \
        [(b["deck"], b["backs"]) for b in api["builds"]]
