"""``jantaku hand check`` (hostd.cli.hand): the CLI contract of issue 19."""
import json
import os
import subprocess
import sys

import pytest

from hostd.cli.main import main

CONTRACT = {"tiles", "complete", "tenpai", "waits", "wait_types", "mixed_deck_yaku"}


def run(capsys, *argv):
    status = main(["hand", "check", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_json_contract(capsys):
    status, out, err = run(capsys, "2p3p4p4p4p4p4p4p4p4p", "--mixed-deck", "--completable",
                           "--json")
    assert status == 0 and err == ""
    r = json.loads(out)
    assert CONTRACT <= set(r)
    assert r["tiles"] == ["2p", "3p"] + ["4p"] * 8
    assert r["complete"] is False and r["tenpai"] is True
    assert r["waits"] == ["1p"] and r["wait_types"] == {"1p": ["ryanmen"]}
    assert r["mixed_deck_yaku"] == []


def test_json_yaku_shapes(capsys):
    _, out, _ = run(capsys, "22222333p444s555s", "--mixed-deck", "--backs", "7,7", "--json")
    assert json.loads(out)["mixed_deck_yaku"] == [{"name": "5-7 copies of one face", "han": 1},
                                                  {"name": "7 tiles from each set", "han": 1}]
    _, out, _ = run(capsys, "22222222p333s456s", "--mixed-deck", "--json")
    assert json.loads(out)["mixed_deck_yaku"] == [{"name": "8 copies of one face", "yakuman": True}]


def test_not_tenpai_still_exits_0(capsys):
    status, out, _ = run(capsys, "1p2p3p3p3p3p3p3p3p3p", "--mixed-deck", "--completable", "--json")
    assert status == 0 and json.loads(out)["tenpai"] is False
    status, out, _ = run(capsys, "1m5m9m1p5p9p1s5s9s1z3z5z7z")
    assert status == 0 and "tenpai: no" in out and "no face completes this hand" in out


def test_text_for_a_person(capsys):
    status, out, _ = run(capsys, "2p3p4p4p4p4p4p4p4p4p", "--mixed-deck")
    assert status == 0
    assert "tenpai: yes" in out
    assert "wait 1p: ryanmen; 8 copies could remain" in out
    assert "would be copy 9: 4p" in out
    _, out, _ = run(capsys, "2p2p2p2p2p2p2p", "--mixed-deck", "--completable")
    assert ("wait 2p: shanpon, tanki; 1 copy could remain; winning on it: "
            "8 copies of one face: yakuman") in out
    _, out, _ = run(capsys, "11112222333344p", "--mixed-deck")
    assert "complete: yes, 3 readings" in out and "111p 123p 222p 333p 44p" in out
    assert "Mixed Deck yaku: none" in out
    _, out, _ = run(capsys, "22222222p333s456s", "--mixed-deck")
    assert "8 copies of one face: yakuman" in out
    _, out, _ = run(capsys, "1111m123p456p789p")
    assert "tenpai: yes (waiting, but on no tile that can exist" in out


def test_hand_may_be_given_in_several_words(capsys):
    _, out, _ = run(capsys, "123m", "456p", "789s", "1122z", "--json")
    assert json.loads(out)["waits"] == ["1z", "2z"]


@pytest.mark.parametrize("argv, words", [
    (["123m45q"], "bad token '45q' at position 5"),
    (["1111m1m"], "5 copies of 1m: at most 4"),
    (["111111111m1z", "--mixed-deck"], "9 copies of 1m: at most 8"),
    (["123m"], "3 tiles"),
    (["123m", "(456p)"], "looks like a called meld: write a call as KIND:TILES"),
    (["23455p66s", "--call", "chi:123z"], "call 'chi:123z': a chi is a run of one suit"),
    (["23455p66s", "--call", "pon555p"], "call 'pon555p': write the kind, a colon and"),
    (["1p", "--call", "kan:555p"], "call 'kan:555p': a kan is 4 tiles, not 3"),
    (["555555p6s", "--mixed-deck", "--call", "pon:555p"], "call 'pon:555p': 9 copies of 5p"),
    (["23455p66s pon:555p", "--mixed-deck", "--backs", "7,7"], "the hand has 10, its calls'"),
    (["123m456p789s11z222z", "--backs", "7,7"], "need Mixed Deck"),
    (["123m456p789s11z222z", "--mixed-deck", "--backs", "7"], "give N,M"),
])
def test_unreadable_hand_exits_2_with_one_line(capsys, argv, words):
    status, out, err = run(capsys, *argv, "--json")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("jantaku hand: error: ") and words in err
    assert "Traceback" not in err


def test_installed_command(tmp_path):
    jantaku = os.path.join(os.path.dirname(sys.executable), "jantaku")
    ok = subprocess.run([jantaku, "hand", "check", "1p1p1p1p", "--mixed-deck", "--completable",
                         "--json"], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and json.loads(ok.stdout)["waits"] == ["1p"]
    bad = subprocess.run([jantaku, "hand", "check", "12q"], capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2 and bad.stdout == "" and "Traceback" not in bad.stderr
    assert "'12q'" in bad.stderr


def test_calls_on_the_command_line(capsys):
    status, out, err = run(capsys, "23455p66s", "--mixed-deck", "--call", "pon:555p",
                           "--call", "chi:123m", "--json")
    assert status == 0 and err == ""
    r = json.loads(out)
    assert r["calls"] == [{"kind": "pon", "tiles": ["5p", "5p", "5p"]},
                          {"kind": "chi", "tiles": ["1m", "2m", "3m"]}]
    assert r["waits"] == ["5p", "6s"] and r["tile_count"] == 13
    _, written, _ = run(capsys, "23455p66s", "pon:555p", "chi", "123m", "--mixed-deck", "--json")
    assert json.loads(written) == r


def test_text_shows_the_calls_and_the_rulings(capsys):
    _, out, _ = run(capsys, "23455p66s", "--mixed-deck", "--call", "pon:555p", "--call",
                    "chi:123m")
    assert out.startswith("hand: 23455p66s pon 555p chi 123m (13 tiles; Mixed Deck")
    assert "wait 5p: shanpon; 3 copies could remain; winning on it: 5-7 copies" in out
    _, out, _ = run(capsys, "11z", "--mixed-deck", "--backs", "7,8", "--call", "kan:5555p",
                    "--call", "chi:123m", "--call", "chi:456m", "--call", "chi:789m")
    assert "(15 tiles;" in out and "complete: yes, 1 reading" in out
    assert "Mixed Deck yaku: none" in out
    assert "ruling (seven-each-with-kan): 7 tiles from each set counts every tile" in out
    _, out, _ = run(capsys, "11112233445566z")
    assert "complete: no" in out and "ruling (seven-pairs-distinct): " in out
