"""docs/HANDS.md's tables, read for the tests that keep them true to the code."""
import re

from tests.conftest import ROOT


def section(title: str) -> str:
    """The text of the ``###`` or ``##`` section called ``title``."""
    text = (ROOT / "docs" / "HANDS.md").read_text(encoding="utf-8")
    m = re.search(r"^#{2,3} %s\n(.*?)(?=^#{2,3} |\Z)" % re.escape(title), text, re.S | re.M)
    assert m, title
    return m.group(1)


def rows(title: str) -> list[list[str]]:
    """The table rows (cells stripped, the header and rule left out) whose first cell is
    a code span, in the section."""
    out = []
    for line in section(title).splitlines():
        if line.startswith("| `"):
            out.append([c.strip() for c in line.strip().strip("|").split("|")])
    return out


def code(cell: str) -> str:
    return cell.strip("`")
