"""The docs agree with the CLI: every `jantaku COMMAND --option` written in README.md and
docs/*.md (in code) names a command and options that the CLI has."""
import argparse
import re

from hostd.cli import main as cli
from tests.conftest import ROOT

DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md")) + [ROOT / "udev" / "jantaku.service"]


def subparsers(parser):
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            return a.choices
    return {}


def code_texts(text):
    """Inline code spans and fenced code blocks' lines (and a unit file's lines)."""
    for block in re.findall(r"```[^\n]*\n(.*?)```", text, re.S):
        yield from block.splitlines()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    yield from re.findall(r"`([^`\n]+)`", text)


def commands(path):
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines() if path.suffix == ".service" else code_texts(text)
    for line in lines:
        for m in re.finditer(r"(?:^|[\s/(])jantaku\s+([a-z][^;&|#`)]*)", line):
            yield line, m.group(1).split()


def test_every_documented_command_and_option_exists():
    parser = cli.build_parser()
    top = subparsers(parser)
    bad, seen = [], 0
    for path in DOCS:
        for line, words in commands(path):
            if not words or words[0] not in top:
                continue  # prose like "jantaku group" in a code span
            seen += 1
            p = top[words[0]]
            rest = words[1:]
            sub = subparsers(p)
            if sub and rest and not rest[0].startswith("-"):
                if rest[0] not in sub:
                    bad.append("%s: %r: no `jantaku %s %s`" % (path.name, line, words[0], rest[0]))
                    continue
                p = sub[rest[0]]
            known = {o for a in p._actions for o in a.option_strings}
            for w in rest:
                if w.startswith("--"):
                    opt = w.split("=")[0].rstrip(",.:")
                    if opt not in known and opt != "--":
                        bad.append("%s: %r: `jantaku %s` has no %s" % (path.name, line, words[0], opt))
    assert seen > 20  # the docs do show commands
    assert bad == [], "\n".join(bad)


def test_the_unit_file_and_deploy_make_the_user_alike():
    def accounts(text):
        text = re.sub(r"\\\n\s*", " ", text)
        return sorted(" ".join(m.split()) for m in
                      re.findall(r"sudo ((?:useradd|groupadd) [^\n#(]+)", text))

    unit = accounts((ROOT / "udev" / "jantaku.service").read_text().replace("#   ", ""))
    deploy = accounts((ROOT / "docs" / "DEPLOY.md").read_text())
    assert unit and set(unit) <= set(deploy), (unit, deploy)
