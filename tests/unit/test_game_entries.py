"""hostd/game/entries.py: each entry checked on its own and against its ruleset; what
is refused says what was wrong and what is accepted."""
import pytest

from hostd.errors import BadRequest, Refused
from hostd.game.entries import KINDS, normalise, parse_entry, winner_hands
from hostd.game.errors import BadEntry, LedgerError, RulesetForbids
from hostd.game.ledger import rules_for
from hostd.rules.game import RULES


@pytest.fixture
def riichi():
    return RULES["riichi"]


def test_a_ron_normalises_to_json_with_from(riichi):
    e = parse_entry({"kind": "ron", "winner": "West", "from": "south", "han": 3, "fu": 30},
                    riichi)
    assert normalise(e) == {"kind": "ron", "winner": "west", "from": "south", "han": 3,
                            "fu": 30}


def test_several_winners_each_with_their_hand(riichi):
    e = parse_entry({"kind": "ron", "from": "east", "winners": [
        {"player": "south", "han": 2, "fu": 30}, {"player": "north", "han": 5}]}, riichi)
    assert [h.player for h in winner_hands(e)] == ["south", "north"]
    assert normalise(parse_entry(normalise(e), riichi)) == normalise(e)


@pytest.mark.parametrize("entry, words", [
    ({"kind": "ron", "winner": "west", "from": "west", "han": 1, "fu": 30}, "own discard"),
    ({"kind": "ron", "winner": "mika", "from": "west", "han": 1, "fu": 30}, "'east', 'south'"),
    ({"kind": "ron", "winner": "west", "from": "east", "han": 1, "fu": 20}, "20 fu"),
    ({"kind": "tsumo", "winner": "west", "han": 1, "fu": 20}, "1 han 20 fu"),
    ({"kind": "ron", "winner": "west", "from": "east", "han": 1, "fu": 25}, "25 fu"),
    ({"kind": "ron", "winner": "west", "from": "east", "han": 2, "fu": 35}, "35 fu"),
    ({"kind": "ron", "winner": "west", "from": "east", "han": 4}, "needs its fu"),
    ({"kind": "ron", "winner": "west", "from": "east", "yakuman": 1, "han": 13}, "alone"),
    ({"kind": "ron", "winner": "west", "from": "east", "patterns": 170}, "patterns is not"),
    ({"kind": "ron", "winner": "west", "from": "east", "han": 5, "chips": 1}, "no chips"),
    ({"kind": "ron", "winner": "west", "from": "east", "han": 5, "dice": [1, 1]}, "Shenyang"),
    ({"kind": "ron", "winner": "west", "from": "east", "han": 5, "color": 1}, "unknown field"),
    ({"kind": "ron", "from": "east", "han": 5}, "either 'winner'"),
    ({"kind": "ron", "from": "east", "winner": "south", "winners": [
        {"player": "west", "han": 5}]}, "either 'winner'"),
    ({"kind": "ron", "from": "east", "han": 5, "winners": [{"player": "west", "han": 5}]},
     "inside its winner"),
    ({"kind": "ron", "from": "east", "winners": [{"player": "west", "han": 5},
                                                 {"player": "west", "han": 5}]}, "twice"),
    ({"kind": "ron", "winner": "west", "from": "east", "han": "3", "fu": 30}, "integer"),
    ({"kind": "draw", "tenpai": ["south", "south"]}, "twice"),
    ({"kind": "transfer", "payments": {"east": -10, "south": 5}}, "sum to 0"),
    ({"kind": "transfer", "payments": {}}, "moves something"),
    ({"kind": "chombo"}, "player"),
    ({"kind": "tsumo", "winner": "west", "yakuman": 1, "pao": "west"}, "liable"),
    ({"kind": "ron", "winner": "west", "from": "east", "yakuman": 1, "pao": "mika"},
     "'east', 'south'"),
    ({"kind": "nagashi"}, "player"),
    ({"kind": "fold"}, "accepted kinds: riichi, ron"),
    ({"han": 3}, "with a 'kind'"),
    ("ron", "with a 'kind'"),
])
def test_malformed_entries_are_400_and_say_why(riichi, entry, words):
    with pytest.raises(BadEntry) as e:
        parse_entry(entry, riichi)
    assert isinstance(e.value, BadRequest) and e.value.status == 400
    assert words in e.value.message


def test_an_unknown_field_lists_what_the_kind_takes_in_this_ruleset(riichi):
    with pytest.raises(BadEntry) as e:
        parse_entry({"kind": "tsumo", "winner": "east", "hn": 3}, riichi)
    assert "takes: kind, winner, han, fu, yakuman" in e.value.message


@pytest.mark.parametrize("ruleset, entry, words", [
    ("wsom", {"kind": "riichi", "player": "east"}, "wsom has no 'riichi' entry"),
    ("wsom", {"kind": "ron", "from": "east", "winners": [
        {"player": "south", "patterns": 5}, {"player": "west", "patterns": 5}]},
     "interception"),
    ("shenyang", {"kind": "ron", "from": "east", "winners": [
        {"player": "south"}, {"player": "west"}]}, "at most 1"),
    ("riichi", {"kind": "ron", "from": "east", "winners": [
        {"player": p, "han": 5} for p in ("south", "west", "north")]}, "abortive"),
    ("uzje", {"kind": "pass"}, "uzje has no 'pass'"),
    ("shenyang", {"kind": "abortive"}, "shenyang has no"),
    ("wsom", {"kind": "nagashi", "player": "east"}, "wsom has no 'nagashi'"),
    ("riichi", {"kind": "pot", "player": "east"}, "riichi has no 'pot'"),
    ("riichi", {"kind": "rules", "ron_pays": "all"}, "riichi has no 'rules'"),
])
def test_what_a_ruleset_has_no_rule_for_is_422(ruleset, entry, words):
    with pytest.raises(RulesetForbids) as e:
        parse_entry(entry, RULES[ruleset])
    assert isinstance(e.value, Refused) and e.value.status == 422
    assert words in e.value.message


@pytest.mark.parametrize("ruleset, entry, words", [
    ("wsom", {"kind": "tsumo", "winner": "east", "patterns": 7}, "multiple of 5"),
    ("wsom", {"kind": "tsumo", "winner": "east"}, "give patterns"),
    ("wsom", {"kind": "draw", "tenpai": ["east"]}, "leave 'tenpai' out"),
    ("shenyang", {"kind": "tsumo", "winner": "east", "multipliers": ["pinfu"]},
     "duiduihu, dragon_kezi"),
    ("shenyang", {"kind": "tsumo", "winner": "east", "multipliers": ["toitoi", "toitoi"]},
     "at most 1 time"),
    ("shenyang", {"kind": "ron", "winner": "east", "from": "south", "dice": [0, 7]}, "dice"),
    ("uzje", {"kind": "tsumo", "winner": "east", "fan": 2.4}, "needs more than 2.5"),
    ("uzje", {"kind": "tsumo", "winner": "east", "fan": 3.1}, "steps of 0.2"),
    ("uzje", {"kind": "tsumo", "winner": "east", "fan": 13, "limits": 1}, "one of them"),
    ("uzje", {"kind": "tsumo", "winner": "east", "han": 3, "fu": 30}, "fan (above 2.5"),
    ("speed-tonpuu", {"kind": "tsumo", "winner": "east", "han": 5, "chips": -1}, "chips"),
    ("wsom", {"kind": "tsumo", "winner": "east", "patterns": 480, "pao": "west"},
     "pao is not counted in wsom"),
    ("shenyang", {"kind": "rules"}, "ron_pays (discarder, all)"),
    ("shenyang", {"kind": "pot", "player": "east", "tiles": 0}, "tiles"),
    ("speed-tonpuu", {"kind": "suukantsu", "winner": "west", "from": "west"}, "own discard"),
])
def test_ruleset_values_checked(ruleset, entry, words):
    with pytest.raises(BadEntry) as e:
        parse_entry(entry, RULES[ruleset])
    assert words in e.value.message


def test_accepted_values_per_ruleset():
    parse_entry({"kind": "ron", "winner": "south", "from": "east", "patterns": [400, 30]},
                RULES["wsom"])
    e = parse_entry({"kind": "tsumo", "winner": "south", "multipliers": ["Rinshan", "gang"],
                     "closed": ["north"], "dice": [4, 4]}, RULES["shenyang"])
    assert normalise(e)["dice"] == [4, 4]
    parse_entry({"kind": "ron", "winner": "south", "from": "east", "fan": 2.6},
                RULES["uzje"])
    parse_entry({"kind": "ron", "winner": "south", "from": "east", "yakuman": 2,
                 "chips": 20}, RULES["speed-tonpuu"])
    parse_entry({"kind": "transfer", "payments": {"east": -2.5, "south": 2.5}},
                RULES["uzje"])


def test_every_kind_is_an_entry_and_rulesets_by_any_spelling():
    assert set(KINDS) == {"riichi", "ron", "tsumo", "draw", "abortive", "chombo", "pass",
                          "nagashi", "suukantsu", "pot", "transfer", "rules", "end", "undo"}
    assert rules_for("Speed Tonpuu").name == "speed-tonpuu"
    assert rules_for("Ùzje+flowers").name == "uzje"
    with pytest.raises(LedgerError) as e:
        rules_for("mcr")
    assert "riichi, speed-tonpuu" in e.value.message and e.value.status == 400


def test_every_rule_cites_its_seed_or_says_ruling():
    for rules in RULES.values():
        assert rules.sources
        for key, text in rules.sources.items():
            assert text.startswith(("seed 00", "ruling")), (rules.name, key)


def test_docs_scoring_md_holds_each_rulesets_table():
    import pathlib

    from hostd.rules.game import rules_table
    text = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "SCORING.md").read_text()
    for rules in RULES.values():
        assert rules_table(rules) in text, "docs/SCORING.md: regenerate %s's table" % rules.name


def test_numbers_are_numbers_not_strings():
    with pytest.raises(BadEntry):
        parse_entry({"kind": "tsumo", "winner": "east", "fan": "7"}, RULES["uzje"])
    with pytest.raises(BadEntry):
        parse_entry({"kind": "transfer", "payments": {"east": "-5", "south": 5}},
                    RULES["uzje"])
