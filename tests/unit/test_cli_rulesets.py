"""The CLI contract of `jantaku rulesets` and `jantaku break` (subprocess of the
installed console script), plus the parser skeleton in process."""
import json
import pathlib
import subprocess
import sys

import pytest

from hostd.cli import main as cli

JANTAKU = pathlib.Path(sys.executable).parent / "jantaku"
if not JANTAKU.exists():  # pragma: no cover
    JANTAKU = pathlib.Path("/work/main/.venv/bin/jantaku")

UZJE_VARIANTS = [
    "uzje", "uzje+compressed-winds", "uzje+flowers", "uzje+all-tongs",
    "uzje+compressed-winds+flowers", "uzje+compressed-winds+all-tongs",
    "uzje+flowers+all-tongs", "uzje+compressed-winds+flowers+all-tongs",
]


def run(*args):
    return subprocess.run([str(JANTAKU), *args], capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def rulesets_json():
    r = run("rulesets", "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_rulesets_json(rulesets_json):
    by_name = {i["name"]: i for i in rulesets_json}
    assert list(by_name) == ["riichi", "speed-tonpuu", "shenyang", "wsom"] + UZJE_VARIANTS
    for item in rulesets_json:
        for k in ("name", "tiles_per_deck", "stacks_per_wall", "dead_wall_tiles", "dice", "faces"):
            assert k in item
        assert sum(item["faces"].values()) == item["tiles_per_deck"] == 8 * item["stacks_per_wall"]
    r = by_name["riichi"]
    assert (r["tiles_per_deck"], r["stacks_per_wall"], r["dead_wall_tiles"], r["dice"]) == (136, 17, 14, "2d6")
    assert r["faces"]["1z"] == 4 and "0m" not in r["faces"]
    assert by_name["shenyang"]["dead_wall_tiles"] == 16
    assert by_name["speed-tonpuu"]["faces"]["5pg"] == 1
    assert by_name["wsom"]["dead_wall_tiles"] == 14
    u = by_name["uzje+flowers+all-tongs"]
    assert (u["tiles_per_deck"], u["stacks_per_wall"], u["dead_wall_tiles"], u["dice"]) == (232, 29, 16, "3d6")
    assert by_name["uzje+compressed-winds"]["tiles_per_deck"] == 160


def test_rulesets_text():
    r = run("rulesets")
    assert r.returncode == 0 and r.stderr == ""
    for name in ["riichi", "speed-tonpuu", "shenyang", "wsom"] + UZJE_VARIANTS:
        assert "\n" + name + " " in r.stdout
    assert "232" in r.stdout and "3d6 or 1d20" in r.stdout


def test_rulesets_detail_and_mixed_deck(capsys):
    assert cli.main(["rulesets", "Ùzje+all-tongs+flowers", "--mixed-deck"]) == 0
    out = capsys.readouterr().out
    assert "uzje+flowers+all-tongs" in out and "h i j k o p q r" in out
    assert "464 tiles in the mixer" in out and "up to 8 copies" in out
    assert cli.main(["rulesets", "riichi", "--json", "--mixed-deck", "--colours", "red,white"]) == 0
    (item,) = json.loads(capsys.readouterr().out)
    assert item["mixed_deck"]["colours"] == ["red", "white"]
    assert item["mixed_deck"]["max_copies_per_face"] == 8 and item["mixed_deck"]["total_tiles"] == 272


def test_break_contract():
    r = run("break", "--ruleset", "riichi", "--dice", "3,4", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"total": 7, "breaker": "across", "break_from_right": 7,
                                    "unit": "stacks", "dead_wall_tiles": 14}
    assert r.stdout.strip() == ('{"total": 7, "breaker": "across", "break_from_right": 7, '
                                '"unit": "stacks", "dead_wall_tiles": 14}')


@pytest.mark.parametrize("argv, expect", [
    (["--ruleset", "wsom", "--dice", "6,6"],
     {"total": 12, "breaker": "left", "break_from_right": 12, "unit": "stacks", "dead_wall_tiles": 14}),
    (["--ruleset", "shenyang", "--dice", "1,4"],
     {"total": 5, "breaker": "self", "break_from_right": 5, "unit": "stacks", "dead_wall_tiles": 16}),
    (["--ruleset", "uzje+flowers", "--dice", "3,4,6"],
     {"total": 13, "breaker": "self", "break_from_right": 13, "unit": "tiles", "dead_wall_tiles": 16}),
    (["--ruleset", "uzje", "--dice", "18"],
     {"total": 18, "breaker": "right", "break_from_right": 18, "unit": "tiles", "dead_wall_tiles": 16}),
    (["-r", "speed-tonpuu", "--dice", "2,2"],
     {"total": 4, "breaker": "left", "break_from_right": 4, "unit": "stacks", "dead_wall_tiles": 14}),
])
def test_break_per_ruleset(capsys, argv, expect):
    assert cli.main(["break", *argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == expect


def test_break_rolls_fairly_and_shows_the_roll():
    r = run("break", "--ruleset", "riichi", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert len(out["dice"]) == 2 and all(1 <= d <= 6 for d in out["dice"])
    assert out["total"] == sum(out["dice"]) == out["break_from_right"]
    t = run("break", "--ruleset", "uzje")
    assert t.returncode == 0 and "rolled, cryptographic source" in t.stdout
    assert "tiles" in t.stdout and "the breaker is the dealer" in t.stdout and "first hand" in t.stdout


def test_break_from_a_seed_is_reproducible(capsys):
    outs = []
    for _ in range(2):
        assert cli.main(["break", "--ruleset", "wsom", "--seed", "2024", "--json"]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0] == outs[1] and len(outs[0]["dice"]) == 2
    assert cli.main(["break", "--ruleset", "uzje", "--seed", "7", "--dice-spec", "1d20"]) == 0
    assert "1d20" in capsys.readouterr().out


@pytest.mark.parametrize("argv, fragments", [
    (["--ruleset", "mcr", "--dice", "3,4"], ["unknown ruleset 'mcr'", "riichi", "uzje+all-tongs"]),
    (["--ruleset", "uzje+jokers", "--dice", "3,4,5"], ["unknown option 'jokers'", "uzje+flowers"]),
    (["--ruleset", "riichi", "--dice", "3"], ["wrong number of dice: got 1", "2d6"]),
    (["--ruleset", "riichi", "--dice", "3,4,5"], ["wrong number of dice: got 3", "2 dice, each 1..6"]),
    (["--ruleset", "riichi", "--dice", "3,7"], ["die face 7 is out of range 1..6", "2d6"]),
    (["--ruleset", "uzje", "--dice", "3,4"], ["wrong number of dice: got 2", "3d6", "1d20"]),
    (["--ruleset", "uzje", "--dice", "25"], ["die face 25 is out of range 1..20"]),
    (["--ruleset", "riichi", "--dice", "3,x"], ["'x' is not a whole number"]),
    (["--ruleset", "riichi", "--dice-spec", "1d20"], ["riichi does not throw 1d20", "2d6"]),
    (["--ruleset", "riichi", "--dice", "3,4", "--seed", "1"], ["not allowed with"]),
    (["--dice", "3,4"], ["--ruleset"]),
])
def test_bad_break_input_exits_2(capsys, argv, fragments):
    assert cli.main(["break", *argv, "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    for f in fragments:
        assert f in err


def test_bad_input_subprocess():
    r = run("break", "--ruleset", "nope", "--dice", "3,4", "--json")
    assert r.returncode == 2 and r.stdout == ""
    assert "unknown ruleset 'nope'" in r.stderr and "speed-tonpuu" in r.stderr
    r = run("break", "--ruleset", "riichi", "--dice", "9,4", "--json")
    assert r.returncode == 2 and r.stdout == "" and "out of range 1..6" in r.stderr
    r = run("rulesets", "bogus")
    assert r.returncode == 2 and r.stdout == "" and "unknown ruleset 'bogus'" in r.stderr


# --------------------------------------------------------------------------- skeleton

def test_help_is_light_and_lists_the_subcommands():
    code = ("import sys, hostd.cli.main as c\n"
            "bad = [m for m in ('pydantic', 'hostd.rules.rulesets', 'hostd.rules.dice') if m in sys.modules]\n"
            "assert not bad, bad\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    r = run("--help")
    assert r.returncode == 0 and "rulesets" in r.stdout and "break" in r.stdout


def test_main_without_a_command_or_with_help(capsys):
    assert cli.main([]) == 2
    assert "usage" in capsys.readouterr().err
    assert cli.main(["--help"]) == 0
    assert cli.main(["rulesets", "--no-such-flag"]) == 2


def test_commands_table_is_extensible(capsys):
    seen = []

    def configure(p):
        p.add_argument("--n", type=int, default=1)

    def run_(args):
        seen.append(args.n)
        if args.n == 3:
            raise cli.UsageError("three is right out")
        return 0

    extra = cli.Command("extra-demo", "a demo", configure, run_)
    names = [c.name for c in cli.COMMANDS]
    assert names[:2] == ["rulesets", "break"]
    cli.COMMANDS.append(extra)
    try:
        assert cli.main(["extra-demo", "--n", "2"]) == 0 and seen == [2]
        assert cli.main(["extra-demo", "--n", "3"]) == 2
        assert "jantaku extra-demo: error: three is right out" in capsys.readouterr().err
    finally:
        cli.COMMANDS.remove(extra)
