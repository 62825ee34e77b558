"""The documents' tables are the code's: docs/FAULTS.md's states, their transitions,
every action from each state and each command's row, docs/API.md's codes of what happens
next (hostd/core/tables.py makes them; `python -m hostd.core.tables` prints them)."""
import pathlib

from hostd.core import tables
from hostd.core.codes import NEXT
from hostd.core.state import STATES, TRANSITIONS

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"


def test_faults_md_gives_the_transition_table_the_code_follows():
    assert tables.transition_rows() in (DOCS / "FAULTS.md").read_text()
    for name in STATES:  # and the table is the code's: every state, every transition
        row = next(r for r in tables.transition_rows().splitlines() if r.startswith("| `%s`" % name))
        for to in TRANSITIONS[name]:
            assert to == name or "`%s`" % to in row.split("|")[3], (name, to)


def test_faults_md_gives_every_action_from_each_state_as_can_says():
    assert tables.action_rows() in (DOCS / "FAULTS.md").read_text()


def test_faults_md_gives_each_command_s_row_where_it_is_accepted_and_why_not():
    """Each command's row of the one list (hostd/core/commands.py): the states that take
    it and the reason the others refuse it with, as the daemon's 409 says."""
    from hostd.core.commands import COMMANDS

    text = (DOCS / "FAULTS.md").read_text()
    assert tables.command_rows() in text
    for c in COMMANDS:
        row = next(r for r in tables.command_rows().splitlines()
                   if r.startswith("| `%s` |" % c.name))
        assert c.states in row and all(why in row for why in c.refused.values()), c.name


def test_api_md_lists_every_code_with_its_params_and_english_text():
    text = (DOCS / "API.md").read_text()
    assert tables.next_rows() in text
    for code in NEXT:
        assert "| `%s` |" % code in text, code


def test_a_code_s_text_never_shows_a_python_value_or_a_command():
    for code in NEXT:
        row = next(r for r in tables.next_rows().splitlines() if r.startswith("| `%s`" % code))
        text = row.rsplit("|", 2)[1]
        for bad in ("None", "?", "{", "}", "jantaku", "[", "]", "`"):
            assert bad not in text, (code, text)


def test_commissioning_troubleshooting_has_a_row_for_every_device_and_fault():
    """docs/COMMISSIONING.md's troubleshooting table: a row, first cell the code, for every
    self-test device and every fault kind `jantaku status` shows, and none for a code the
    software does not have."""
    from hostd.bringup.selftest import ORDER
    from hostd.core.codes import KINDS

    text = (DOCS / "COMMISSIONING.md").read_text()
    table = text[text.index("| code | what it means |"):]
    rows = [ln for ln in table.splitlines()[2:] if ln.startswith("| `")]
    codes = [r.split("|")[1].strip().strip("`") for r in rows]
    want = list(ORDER) + list(KINDS)
    missing = [c for c in want if c not in codes]
    assert not missing, "codes with no troubleshooting row: %s" % missing
    extra = [c for c in codes if c not in want]
    assert not extra, "rows for codes the software has not: %s" % extra
    assert all(len(r.split("|")) == 6 and all(cell.strip() for cell in r.split("|")[1:5]) for r in rows)
