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
    (["123m", "(456p)"], "only closed hands"),
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
