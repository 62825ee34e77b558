"""hostd.cli.bringup: `jantaku selftest`, `calibrate`, `health` refuse bad input before
asking the daemon (exit 2, naming what is accepted) and print reports a person can read."""
import io

import pytest

from hostd.cli import main as cli
from hostd.cli.bringup import calibrate_text, health_text, selftest_text

NOWHERE = ["--api", "http://127.0.0.1:9"]  # nothing listens: a request would fail with 1


@pytest.mark.parametrize("argv,words", [
    (["calibrate", "--sets", "pink"], "two back colours"),
    # the colour of the first tile read is never asked before any tile is read
    (["calibrate", "--sets", "pink,yellow", "--first", "pink"], "unrecognized arguments: --first"),
    (["calibrate", "--sets", "pink,yellow", "--mixed", "--yes"], "unrecognized arguments: --mixed"),
    (["calibrate", "--sets", "pink,yellow"], "give --yes"),  # no terminal to ask on
    (["name-sets"], "give the two colours, class 1's first"),
    (["name-sets", "pink,yellow", "--swap"], "give the two colours, class 1's first"),
    (["name-sets", "pink"], "two back colours, class 1's first"),
    (["selftest", "--track", "2"], "--track goes with --device"),
])
def test_bad_input_is_refused_before_the_daemon_is_asked(argv, words, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert cli.main(argv + NOWHERE) == 2
    err = capsys.readouterr().err
    assert words in err and "cannot reach" not in err


def test_reports_read_as_text():
    st = {"devices": [{"device": "gate", "track": 3, "result": "failed", "reading": {"tiles": 0},
                       "profile": {"gate_close_ms": 15}, "message": "the gate does not open"},
                      {"device": "curtain", "track": None, "result": "ok", "reading": 1,
                       "profile": 1, "message": None}],
          "skipped": [{"device": "door", "why": "the table reports a fault"}], "failed": 1}
    text = selftest_text(st)
    assert "gate 3" in text and "failed" in text and "-> the gate does not open" in text
    assert "door             skipped: the table reports a fault" in text
    assert text.splitlines()[-1] == "FAILED: 1 device(s) failed, 1 not tested"
    cal = {"ok": False, "names": ["pink", "salmon"], "mode": "one set at a time",
           "tiles_per_track": 34, "min_separation": 2.0, "refused": "cannot be told apart",
           "tracks": [{"track": 1, "refs": {"pink": [0.44, 0.26, 0.3], "salmon": [0.43, 0.28, 0.29]},
                       "spread": {"pink": 0.02, "salmon": 0.02}, "readings": {"pink": 34, "salmon": 34},
                       "distance": 0.02, "separation": 0.5, "max_distance": 0.01}]}
    text = calibrate_text(cal)
    assert "separation 0.50 (at least 2.0)" in text and text.endswith("REFUSED: cannot be told apart")
    h = {"builds": 3, "reference": "board profile reference-18", "flags": ["track 2: drift: x"],
         "lift": {"hand_overs": 2, "latest_up_s": 4.0, "first_up_s": 4.0},
         "tracks": [{"track": 2, "tiles": 102, "misread_rate": 0.0, "recent_misread_rate": 0.0,
                     "jams": 0, "drift": {"blue": {"margin_used": 0.6, "builds_to_misread": 4}}}]}
    text = health_text(h)
    assert "blue 60% (misreads in ~4 builds)" in text and "FLAG track 2: drift: x" in text


class Tty(io.StringIO):
    def isatty(self):
        return True


READ_MIXED = {"ok": True, "named": False, "mode": "mixed", "sets": ["pink", "yellow"],
              "tiles_per_track": 34, "min_separation": 2.0, "tracks": [],
              "classes": [{"class": 1, "tiles": 70, "per_track": [18, 17, 17, 18],
                           "mean": [0.402, 0.419, 0.179], "swatch": "#f5ff6d", "name": None},
                          {"class": 2, "tiles": 66, "per_track": [16, 17, 17, 16],
                           "mean": [0.451, 0.251, 0.298], "swatch": "#ff8ea8", "name": None}]}


def test_calibrate_on_a_terminal_shows_the_classes_and_asks_which_is_which(capsys, monkeypatch):
    """Asked on a terminal: go ahead; the reading's two classes shown (tiles, mean colour,
    swatch); which class is pink (2 here): named so, the second request says so."""
    from hostd.cli import bringup

    sent = []

    def request(args, method, path, body=None, timeout=None):
        sent.append((path, body))
        if path == "/calibrate":
            return dict(READ_MIXED), 0
        return {"ok": True, "named": True, "names": body["names"], "tracks": [],
                "table": "the table uses the new references now", "profile": {
                    "path": "/x/reference-18.json", "backup": None, "diff": "+ pink"}}, 0

    monkeypatch.setattr(bringup, "_request", request)
    monkeypatch.setattr("sys.stdin", Tty("y\n3\n2\n"))
    assert cli.main(["calibrate", "--sets", "pink,yellow"] + NOWHERE) == 0
    out = capsys.readouterr()
    assert sent == [("/calibrate", {"sets": ["pink", "yellow"], "ruleset": "riichi", "ask": True}),
                    ("/name-sets", {"names": ["yellow", "pink"]})]
    assert "class 1: 70 tiles (18, 17, 17, 18 per track), mean r 0.402 g 0.419 b 0.179, " \
           "swatch #f5ff6d" in out.err
    assert "Which class is pink: 1 or 2? answer 1 or 2" in out.err  # (3: asked again)
    assert "profile written: /x/reference-18.json" in out.out


def test_calibrate_scripted_on_a_mixed_reading_keeps_it_and_says_how_to_name_it(capsys,
                                                                                 monkeypatch):
    from hostd.cli import bringup

    monkeypatch.setattr(bringup, "_request", lambda *a, **k: (dict(READ_MIXED), 0))
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert cli.main(["calibrate", "--sets", "pink,yellow", "--yes"] + NOWHERE) == 1
    out = capsys.readouterr().out
    assert "calibration (mixed" in out and "class 2: 66 tiles" in out
    assert out.rstrip().endswith("NOT NAMED: the reading is kept; say which is which: `jantaku "
                                 "name-sets pink,yellow` (class 1 is pink) or `jantaku name-sets "
                                 "yellow,pink`")
