"""hostd.core.commands: the one list of commands, and every front end made from it (the
API's routes, the CLI's subcommands, the MQTT verbs, Home Assistant's buttons): none
offers a command the list does not give it, none misses one the list does."""
import argparse

import pytest

from hostd.core.codes import Context
from hostd.core.commands import BY_NAME, COMMANDS, NAMES, can, offered_by
from hostd.core.state import State


def test_the_list_is_the_twelve_commands_each_with_its_model_and_route():
    assert NAMES == ("start", "hand_over", "dice", "continue", "clear_fault", "game_new", "end",
                     "abort", "selftest", "calibrate", "name_sets", "survey")
    for c in COMMANDS:
        assert c.request.model_config.get("extra") == "forbid", c.name
        assert c.path.startswith("/") and c.cli and c.summary
    assert [c.name for c in COMMANDS if not c.motors] == ["dice", "name_sets"]
    # (naming the sets tells the table their references: it needs the table)
    assert [c.name for c in COMMANDS if not c.needs_table] == ["dice"]
    assert offered_by("page") == [n for n in NAMES if n not in ("selftest", "calibrate", "survey")]


def test_the_api_has_one_route_per_command_and_no_other_command_route():
    from hostd.web.api import create_app

    app = create_app(object())
    routes = {r.name: r for r in app.routes if getattr(r, "methods", None) and "POST" in r.methods}
    commands = {n for n in routes if n in BY_NAME}
    assert sorted(commands) == sorted(offered_by("http"))
    for name in commands:
        assert routes[name].path == BY_NAME[name].path
    # the others are pairing, the hand analyser and scorer and the ledger: nothing moves
    assert {r.path for n, r in routes.items() if n not in BY_NAME} <= {
        "/pair", "/pair/new", "/pair/invite", "/pair/revoke", "/pair/forget", "/pair/revoke-all",
        "/hand/check", "/hand/score", "/score"}  # (/score: the game ledger, nothing moves)


def _cli_commands(parser):
    """Every command name a CLI subcommand runs (its `table_command` default)."""
    out = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                name = sub.get_default("table_command")
                if name:
                    out.add(name)
                out |= _cli_commands(sub)
    return out


def test_the_cli_offers_exactly_the_lists_commands_by_their_words():
    from hostd.cli import main

    parser = main.build_parser()
    assert sorted(_cli_commands(parser)) == sorted(offered_by("cli"))
    for c in COMMANDS:
        args = parser.parse_args(c.cli.split() + {"start": ["--ruleset", "riichi"],
                                                  "calibrate": ["--sets", "pink,yellow"],
                                                  "name_sets": ["pink,yellow"]}.get(
            c.name, []))
        assert args.table_command == c.name


def test_mqtt_offers_todays_six_verbs_from_the_list():
    from hostd.fleet.mqtt import VERBS

    assert sorted(VERBS) == ["abort", "clear_fault", "continue", "dice", "game_new", "hand_over"]
    assert sorted(v.command.name for v in VERBS.values()) == sorted(
        c.name for c in COMMANDS if c.mqtt)


def test_home_assistant_has_a_button_for_each_command_the_list_gives_one():
    from hostd.fleet import ha

    assert [b[0] for b in ha.BUTTONS] == [BY_NAME[n].mqtt for n in offered_by("ha")]
    assert offered_by("ha") == ["hand_over", "dice", "continue"]


@pytest.mark.parametrize("state, connected, expected", [
    (State("idle", {"walls_inside": False}), False, ["abort"]),
    (State("built", {"deck": "A", "hand": 0, "game": 1}), False, ["abort"]),
    (State("aborting", {"session": 3}), True, ["abort"]),
    (State("built", {"deck": "B", "top": "A", "hand": 1, "game": 1, "thrown": False}), True,
     ["hand_over", "dice", "game_new", "end", "abort"]),
])
def test_can_holds_only_abort_while_the_table_is_away(state, connected, expected):
    assert can(state, Context(connected=connected)) == expected



def test_each_row_carries_its_handler_its_states_and_its_reasons():
    """The row decides: a callable handler (not a method's name), the states that take the
    command (each a real state), and a reason only for states that refuse it."""
    from hostd.core.state import STATES

    for c in COMMANDS:
        assert callable(c.run) and not isinstance(c.run, str), c.name
        assert c.accepted_in and all(set(w.states) <= set(STATES) for w in c.accepted_in)
        assert set(c.refused) <= set(STATES), c.name
    assert BY_NAME["abort"].states == "every state"
    assert BY_NAME["hand_over"].states.startswith("built; recovering (waiting); stopped (")


def test_a_reason_is_given_only_where_the_command_can_be_refused():
    """A row's reason for a state is never given for a command the state always takes."""
    for c in COMMANDS:
        for state in c.refused:
            always = [w for w in c.accepted_in if state in w.states and w.test is None
                      and w.option is None]
            assert not always, (c.name, state)


def test_openapi_says_where_each_command_is_accepted_from_its_row():
    from hostd.web.api import create_app

    paths = create_app(object()).openapi()["paths"]
    for c in COMMANDS:
        text = paths[c.path]["post"]["description"]
        assert "accepted in: %s." % c.states in text, c.name


def test_the_options_take_a_command_can_does_not():
    """`start` with replace while a session is open and the table connected, `end` with
    empty with no session: accepted, though not in `can` (which judges the defaults)."""
    from hostd.core.commands import takes

    built = State("built", {"deck": "B", "top": "A", "hand": 1, "game": 1, "thrown": True})
    ctx = Context(connected=True, session=4)
    assert "start" not in can(built, ctx) and takes("start", built, ctx, replace=True)
    assert not takes("start", built, Context(connected=False, session=4), replace=True)
    assert not takes("start", built, Context(connected=True), replace=True)
    idle = State("idle", {"walls_inside": False})
    assert "end" not in can(idle, Context()) and takes("end", idle, Context(), empty=True)
    assert takes("end", idle, Context(connected=False), empty=True)
    assert not takes("end", State("bench", {"what": "selftest"}), Context(), empty=True)
