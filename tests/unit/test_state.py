"""hostd.core.state: the stages are an enum (their strings on the wire and in the
journal), each state's parameters a frozen model whose values are checked, and states
journalled before (plain strings, old phases) read back as they were."""
import json
import pathlib
import re

import pytest

from hostd.core.resume import state_from_journal
from hostd.core.state import PARAM_TYPES, STATES, Stage, State, params_model, where

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_a_stage_is_its_string_on_the_wire_and_in_the_journal():
    st = State("building", {"deck": "B", "top": "A", "hand": 2, "game": 1, "stage": "push"})
    assert st["stage"] is Stage.PUSH and st["stage"] == "push"
    d = st.to_dict()
    assert type(d["params"]["stage"]) is str and json.loads(json.dumps(d)) == d
    assert State.from_dict(json.loads(json.dumps(d))) == st


@pytest.mark.parametrize("name, params, words", [
    ("building", {"deck": "C"}, "deck"),
    ("building", {"stage": "settle"}, "stage"),
    ("hand_over", {"stage": "push"}, "stage"),
    ("built", {"hand": -1}, "hand"),
    ("built", {"game": 0}, "game"),
    ("recovering", {"kind": "unplug"}, "kind"),
    ("idle", {"where": {"A": "attic"}}, "where"),
    ("bench", {"what": "dance"}, "what"),
    ("stopped", {"resume": {"name": "built", "params": {"deck": "X"}}}, "resume"),
    ("stopped", {"resume": {"name": "stopped", "params": {}}}, "resume"),
    ("built", {"nonsense": 1}, "no parameter"),
])
def test_a_parameter_of_the_wrong_kind_is_refused_naming_it(name, params, words):
    with pytest.raises(ValueError) as e:
        State(name, params)
    assert name in str(e.value) and words in str(e.value)


def test_parameters_are_frozen_and_read_only():
    st = State("built", {"deck": "A", "hand": 0, "game": 1})
    with pytest.raises(TypeError):
        st.params["deck"] = "B"
    with pytest.raises(Exception):
        st.model.deck = "B"
    assert st.with_(deck="B")["deck"] == "B" and st["deck"] == "A"


def test_each_state_s_parameters_are_its_model_s_fields():
    assert set(PARAM_TYPES) == set(STATES)
    for name, (params, _) in STATES.items():
        assert params == tuple(params_model(name).model_fields)
        assert params_model(name).model_config.get("frozen") is True


@pytest.mark.parametrize("phase, data, name, stage", [
    ("preparing", {"game": 1}, "preparing", "start"),
    ("building", {"inside": "B", "top": "A", "hand": 2}, "building", "build"),
    ("hand_over", {"inside": "B", "top": "A", "hand": 2}, "hand_over", "raise"),
    ("resplit_pending", {"top": "A", "hand": 2, "faults": [4]}, "recovering", "waiting"),
    ("resplit_pending", {"hand": 2}, "recovering", "resplit"),
    ("swap_pending", {"stage": "raise", "ready": True, "deck": "B"}, "recovering", "waiting"),
    ("swap_pending", {"stage": "raise", "ready": False, "known": [3, 0, 0, 1]}, "recovering",
     "drain"),
    ("swap_pending", {"stage": "drop", "ready": True}, "recovering", "drop"),
])
def test_a_journal_written_before_reads_back_with_its_stages(phase, data, name, stage):
    st = state_from_journal(phase, data)
    assert st.name == name and st["stage"] == stage and isinstance(st["stage"], Stage)
    where(st)  # where the decks are follows from it


def test_a_state_journalled_as_strings_reads_back_as_it_was():
    saved = {"name": "stopped", "params": {
        "step": "hand_over", "kind": "guard", "deck": "B", "hand": 3, "game": 1, "thrown": True,
        "fault": {"message": "hand 3: the guard stopped the lift", "ids": [7], "build": None},
        "resume": {"name": "hand_over", "params": {"raising": "B", "dropping": "A", "hand": 3,
                                                   "game": 1, "stage": "raise"}}}}
    st = state_from_journal("stopped", {"state": saved})
    assert st.to_dict()["params"]["resume"]["params"]["stage"] == "raise"
    assert st.to_dict()["name"] == "stopped" and where(st) == {"A": "mixer", "B": "lift"}


def test_no_bare_stage_string_outside_the_state_module():
    """A stage is written Stage.X in hostd (the module that defines them aside)."""
    names = "|".join(s.value for s in Stage)
    pattern = re.compile(r"""(stage\b[^#\n]*?["'](%s)["'])""" % names)
    found = []
    for path in (ROOT / "hostd").rglob("*.py"):
        if path.name == "state.py" and path.parent.name == "core":
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            for m in pattern.finditer(code):
                # "kind"/state names on the same line are not stages
                if re.search(r"""(kind=|"kind": |State\(|to_state\(|name ==)\s*["']%s["']"""
                             % re.escape(m.group(2)), code):
                    continue
                found.append("%s:%d %s" % (path.relative_to(ROOT), n, line.strip()))
    assert not found, found
