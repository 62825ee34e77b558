"""The documents' tables, made from the code they describe (layer: session): the states
and their transitions, every action from each state and each command's row (where it is
accepted, why it is refused: docs/FAULTS.md), and the codes of what happens next
(docs/API.md).  tests/unit/test_docs_tables.py checks the documents hold exactly these;
`python -m hostd.core.tables` prints them to paste after a change."""
from hostd.core.codes import NEXT, Context, example_context, example_state, next_step
from hostd.core.commands import COMMANDS, NAMES, can, refused_with, state_names
from hostd.core.state import STATES, TRANSITIONS, Stage, State

_H = {"hand": 3, "game": 1}

#: the states a person meets, one row each: (what, state, connected, mixed_deck)
CASES = (
    ("idle", State("idle", {"walls_inside": False}), True, False),
    ("idle, walls left inside", State("idle", {"walls_inside": True}), True, False),
    ("table_fault (a jam left on the table)", State("table_fault", {"kind": "jam", "track": 2}),
     True, False),
    ("bench (a self-test runs)", State("bench", {"what": "selftest"}), True, False),
    ("emptying, the walls coming up", State("emptying", {"stage": Stage.RAISE, "round": 1}), True,
     False),
    ("emptying, people clear the top", State("emptying", {"stage": Stage.CLEAR_TOP, "round": 1}),
     True, False),
    ("aborting (not confirmed yet)", State("aborting", {"session": 4}), False, False),
    ("preparing, the walls coming up", State("preparing", {"game": 1, "stage": Stage.RAISE}), True,
     True),
    ("preparing, the centre open (push)", State("preparing", {"game": 1, "stage": Stage.PUSH}),
     True, True),
    ("building deck A (no hand yet)", State("building", {"deck": "A", "hand": 0, "game": 1,
                                                         "stage": Stage.BUILD}), True, True),
    ("building, a hand in play, no throw", State("building", dict(
        _H, deck="B", top="A", thrown=False, stage=Stage.BUILD)), True, True),
    ("building, a hand in play, thrown (normal rotation)", State("building", dict(
        _H, deck="B", top="A", thrown=True, stage=Stage.BUILD)), True, False),
    ("building, people push the rest in", State("building", dict(
        _H, deck="B", top="A", thrown=True, stage=Stage.PUSH)), True, True),
    ("built, no hand yet", State("built", {"deck": "A", "hand": 0, "game": 1}), True, True),
    ("built, a hand in play, thrown", State("built", dict(_H, deck="B", top="A", thrown=True)),
     True, True),
    ("hand_over, the walls on their way up", State("hand_over", dict(
        _H, raising="B", dropping="A", stage=Stage.RAISE)), True, True),
    ("hand_over, the hand begun, no throw", State("hand_over", dict(
        _H, raising="B", dropping="A", stage=Stage.SETTLE)), True, True),
    ("stopped by a jam during a build", State("stopped", dict(
        _H, step="hand_over", kind="jam", track=2, deck="A", thrown=True,
        resume={"name": "building", "params": dict(_H, deck="A", top="B", thrown=True)})),
     True, True),
    ("stopped by the guard during a hand over's lift", State("stopped", dict(
        _H, step="hand_over", kind="guard", deck="B",
        resume={"name": "hand_over", "params": dict(_H, raising="B", dropping="A",
                                                    stage=Stage.RAISE)})), True, True),
    ("stopped by a wrong count", State("stopped", dict(
        _H, step="hand_over", kind="composition", deck="A", thrown=True,
        resume={"name": "building", "params": dict(_H, deck="A", top="B", thrown=True)})),
     True, True),
    ("recovering, waiting for the hand over", State("recovering", dict(
        _H, kind="resplit", stage=Stage.WAITING, top="A", thrown=True)), True, True),
    ("recovering, under way", State("recovering", dict(_H, kind="resplit", stage=Stage.RESPLIT)),
     True, True),
    ("built, the table not connected", State("built", dict(_H, deck="B", top="A", thrown=True)),
     False, True),
)


def _cell(name, accepted, connected):
    return "yes" if accepted else str(refused_with(name, connected))


def action_rows():
    """The table of every action from each state (docs/FAULTS.md): "yes" for accepted,
    409 (refused, the code naming the state) or 503 (a motor command, the table away)."""
    head = "| state | " + " | ".join("`%s`" % n for n in NAMES) + " |"
    lines = [head, "|" + "---|" * (len(NAMES) + 1)]
    for what, state, connected, mixed in CASES:
        ok = can(state, Context(connected=connected, mixed_deck=mixed, first_hand=1))
        lines.append("| %s | %s |" % (what, " | ".join(_cell(n, n in ok, connected)
                                                        for n in NAMES)))
    return "\n".join(lines)


def command_rows():
    """Each command of the one list: whether it moves motors, the states that take it and
    why the others refuse it (the 409's words after the state's name), from its row
    (docs/FAULTS.md; OpenAPI's "accepted in" is the same text)."""
    lines = ["| command | motors | accepted in | refused (409) with, besides the state's name |",
             "|---|---|---|---|"]
    for c in COMMANDS:
        why = {}
        for state, reason in c.refused.items():
            why.setdefault(reason, []).append(state)
        lines.append("| `%s` | %s | %s | %s |" % (
            c.name, "yes" if c.motors else "no", c.states,
            "; ".join("%s: %s" % (state_names(states), reason)
                      for reason, states in why.items()) or "-"))
    return "\n".join(lines)


def transition_rows():
    """The states, what each means and the states it may change to (docs/FAULTS.md)."""
    lines = ["| state | parameters | changes to | means |", "|---|---|---|---|"]
    for name, (params, means) in STATES.items():
        lines.append("| `%s` | %s | %s | %s |" % (
            name, ", ".join(params) or "-",
            ", ".join("`%s`" % n for n in TRANSITIONS[name] if n != name), means))
    return "\n".join(lines)


def next_rows():
    """Every code of what happens next, its parameters, the command it asks for, and its
    English text (docs/API.md)."""
    lines = ["| code | parameters | action | English text (an example) |", "|---|---|---|---|"]
    for code, (params, _) in NEXT.items():
        state, connected, fault = example_state(code)
        n = next_step(state, Context(connected=connected, error="no such port",
                                     **example_context(code)), table_fault=fault)
        assert n["code"] == code, (code, n["code"])
        lines.append("| `%s` | %s | %s | %s |" % (code, ", ".join(params) or "-",
                                                 "`%s`" % n["action"] if n["action"] else "-",
                                                 n["text"].replace("|", "/")))
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover - prints the tables to paste into the docs
    for title, table in (("docs/FAULTS.md, states:", transition_rows()),
                         ("docs/FAULTS.md, actions:", action_rows()),
                         ("docs/FAULTS.md, commands:", command_rows()),
                         ("docs/API.md, codes:", next_rows())):
        print(title + "\n\n" + table + "\n")
