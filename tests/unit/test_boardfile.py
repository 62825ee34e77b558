"""hostd.boards.boardfile: the club's copy of the board profile, written with a backup and a diff."""
import json
import pathlib

import pytest

from hostd.boards import boardfile
from hostd.errors import ConfigError


@pytest.fixture
def cfg(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    return tmp_path / "jantaku" / "boards"


def test_the_builtin_profile_until_the_club_has_its_own(cfg):
    p, path, raw = boardfile.load("reference-18")
    assert path.endswith("firmware/boards/reference-18.json") and p["id"] == "reference-18"
    w = boardfile.write("reference-18", lambda d: d["timings_ms"].update(lift_stroke=4200))
    assert w["path"] == str(cfg / "reference-18.json") and w["backup"] is None
    assert '-    "lift_stroke": 4000,' in w["diff"] and '+    "lift_stroke": 4200,' in w["diff"]
    p, path, raw = boardfile.load("reference-18")
    assert path == w["path"] and p["timings_ms"]["lift_stroke"] == 4200
    # the second write keeps the first as a backup
    w2 = boardfile.write("reference-18", lambda d: d["timings_ms"].update(lift_stroke=4300))
    assert w2["backup"] and json.load(open(w2["backup"]))["timings_ms"]["lift_stroke"] == 4200
    assert json.load(open(w2["path"]))["timings_ms"]["lift_stroke"] == 4300


def test_a_change_that_would_not_load_writes_nothing(cfg):
    with pytest.raises(ConfigError, match="would not load.*lift_stroke"):
        boardfile.write("reference-18", lambda d: d["timings_ms"].update(lift_stroke=0))
    assert not (cfg / "reference-18.json").exists()


def test_an_unknown_board_or_a_broken_copy_says_where(cfg):
    with pytest.raises(ConfigError, match="no board profile for 'mine'"):
        boardfile.load("mine")
    cfg.mkdir(parents=True)
    (cfg / "reference-18.json").write_text("{not json")
    with pytest.raises(ConfigError, match="reference-18.json"):
        boardfile.load("reference-18")


def test_jantaku_config_dir_is_the_one_place_for_every_command(tmp_path, monkeypatch):
    """JANTAKU_CONFIG_DIR (the service's /var/lib/jantaku) wins over XDG_CONFIG_HOME: the
    self-test, calibrate and flash all read and write the club's copy there."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert boardfile.user_dir() == str(tmp_path / "xdg" / "jantaku" / "boards")
    monkeypatch.setenv("JANTAKU_CONFIG_DIR", str(tmp_path / "svc"))
    assert boardfile.user_path("reference-18") == str(tmp_path / "svc" / "boards" / "reference-18.json")
    w = boardfile.write("reference-18", lambda d: d["calibration"].update(min_clear=222))
    assert w["path"] == boardfile.user_path("reference-18")
    prof, path, _ = boardfile.load("reference-18")
    assert path == boardfile.user_path("reference-18") and prof["calibration"]["min_clear"] == 222


def test_track_sides_default_to_the_order_of_play_from_the_front(cfg):
    p = boardfile.load("reference-18")[0]
    assert boardfile.track_sides(p) == ["front", "right", "back", "left"]
    assert boardfile.track_sides(dict(p, track_sides=["left", "front", "right", "back"])) == [
        "left", "front", "right", "back"]
    assert boardfile.track_sides(dict(p, tracks=6)) is None  # more tracks than sides: not known


def test_one_lookup_of_a_board_id_for_every_command(cfg, capsys, monkeypatch):
    """A club's own profile (an id no shipped profile has) in the club's folder: flash,
    wiring, sim serve and demo (the simulated table's board), run --pi and the daemon's
    selftest and calibrate all find it by its id, the same way."""
    from hostd.bringup import flash
    from hostd.cli import main as cli
    from hostd.table import local
    from hostd.table.sim import board_profile

    with open(boardfile.builtin_path("reference-18")) as f:
        raw = json.load(f)
    raw["id"] = "club-t1"
    raw["colours"] = ["pink", "yellow"]
    raw["calibration"].update(refs={"pink": [0.45, 0.25, 0.3], "yellow": [0.4, 0.42, 0.18]},
                              max_distance=0.05)
    cfg.mkdir(parents=True)
    path = str(cfg / "club-t1.json")
    with open(path, "w") as f:
        json.dump(raw, f)
    assert boardfile.locate("club-t1") == path and "club-t1" in boardfile.known_ids()
    assert cli.main(["wiring", "--board", "club-t1"]) == 0
    assert "| `gate1` |" in capsys.readouterr().out
    assert board_profile(board="club-t1")["colours"] == ["pink", "yellow"]  # sim serve, demo
    assert flash.load_profile("club-t1") == ("club-t1", pathlib.Path(path))
    assert boardfile.load("club-t1")[1] == path  # the daemon: selftest, calibrate
    started = []

    class Child:
        stdout = __import__("io").BytesIO(b"PORT /dev/pts/99\n")

    monkeypatch.setattr(local.subprocess, "Popen", lambda cmd, **kw: started.append(cmd) or Child)
    assert local.spawn_pi_firmware("club-t1")[1] == "/dev/pts/99"  # run --pi
    assert started[0][-1] == path
    # an id nobody has: where it looked, and the ids it knows
    with pytest.raises(ConfigError, match="no board profile for 'club-t2'.*known ids: club-t1, "
                                          "fourport-24v, long-29"):
        boardfile.locate("club-t2")


@pytest.mark.parametrize("argv", [["flash"], ["wiring"], ["sim", "serve"], ["demo"], ["run"],
                                  ["selftest"], ["calibrate"]])
def test_every_command_that_takes_a_board_says_how_it_is_found(argv):
    from hostd.cli import main as cli

    parser = cli.build_parser()
    sub = parser._subparsers._group_actions[0].choices[argv[0]]
    if len(argv) > 1:
        sub = sub._subparsers._group_actions[0].choices[argv[1]]
    text = " ".join(sub.format_help().split())
    assert "the club's copy first" in text and "then the shipped profiles" in text, text


@pytest.mark.parametrize("bad", ["../../etc/passwd", "..", "/tmp/evil", "evil.json", "a/b",
                                 "Reference-18", "-x", "x" * 21, "", "a\x00b", "a b"])
def test_an_id_that_would_leave_the_boards_folder_is_refused(cfg, tmp_path, bad):
    """Issue 53 point 6: a board id (the table's IDENTITY says it) becomes a file name only
    if it matches the one pattern (BOARD_ID): "/" and ".." never reach a path, and a path
    the table names is never read as its profile."""
    evil = tmp_path / "evil.json"
    evil.write_text(json.dumps({"id": "evil"}))
    for call in (lambda: boardfile.load(bad), lambda: boardfile.user_path(bad),
                 lambda: boardfile.builtin_path(bad), lambda: boardfile.path_for(bad),
                 lambda: boardfile.write(bad, lambda d: None)):
        with pytest.raises(ConfigError, match="refused: an id is 1..20 characters of a-z"):
            call()
    assert not cfg.exists() or not any(cfg.iterdir())


def test_a_table_that_names_a_path_as_its_board_gets_no_profile(cfg, tmp_path):
    """The daemon's own use: a profile of the connected table is looked up by its id only."""
    from hostd.core.daemon import Daemon

    evil = tmp_path / "x.json"
    evil.write_text("{}")
    assert Daemon._board_profile({"board": str(evil)}) is None
    assert Daemon._board_profile({"board": "../" * 3 + "x"}) is None
    assert Daemon._board_profile({"board": "reference-18"})["id"] == "reference-18"
