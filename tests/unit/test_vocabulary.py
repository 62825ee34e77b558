"""One set of keys that the CLI, the page and Home Assistant word (hostd/core/vocabulary.py):
each front end's table of words holds exactly the registry's keys of its vocabulary, the
page's in English and in Japanese (words.js read by Node), so a key added to the registry
fails here until every front end words it, and a word for a key the registry does not
have fails too."""
import json
import re
import shutil
import subprocess

import pytest

from hostd.core import vocabulary as v
from tests.conftest import ROOT

NODE = shutil.which("node") or shutil.which("nodejs")
WORDS = ROOT / "hostd" / "web" / "page" / "words.js"

#: the page's tables keyed by the registry's keys: (vocabulary, its path in words.js)
PAGE = (("next", "next"), ("fault", "fault"), ("fault", "todo"), ("button", "cmd"),
        ("button", "sendingCmd"), ("where", "where"), ("refusal", "refusal"), ("event", "log"),
        ("seat", "seatShort"), ("seat", "breakAt"), ("seat", "seatFromMe"), ("seat", "rel"),
        ("wind", "score.wind"))
#: the page's tables that word some keys of a vocabulary (none outside it)
PAGE_SOME = (("next", "primary"), ("button", "confirm.yes"))

KEYS = r"""
const vm = require("vm"), fs = require("fs");
const ctx = { window: { localStorage: { getItem: () => "en" } }, navigator: { language: "en" } };
vm.createContext(ctx);
vm.runInContext(fs.readFileSync(process.argv[1], "utf8"), ctx);
const langs = { en: ctx.window.JANTAKU_WORDS_EN, ja: ctx.window.JANTAKU_WORDS_JA };
const out = {};
Object.keys(langs).forEach((lang) => {
  out[lang] = {};
  JSON.parse(process.argv[2]).forEach((path) => {
    const t = path.split(".").reduce((o, k) => (o ? o[k] : undefined), langs[lang]);
    out[lang][path] = t && typeof t === "object" ? Object.keys(t) : null;
  });
});
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def page():
    """{lang: {table's path: its keys}}: the English table, and the Japanese one as
    written (not laid over the English)."""
    if NODE is None:
        pytest.skip("needs Node.js to read the page's words.js (Debian package `nodejs`)")
    paths = [p for _, p in PAGE + PAGE_SOME]
    r = subprocess.run([NODE, "-e", KEYS, str(WORDS), json.dumps(paths)],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def page_tables(page):
    return {(voc, "page", "%s %s" % (lang, path)): page[lang][path] or []
            for lang in ("en", "ja") for voc, path in PAGE}


def cli_tables():
    from hostd.cli.words import WHERE_TEXT, command_line

    return {("where", "cli", "words.WHERE_TEXT"): list(WHERE_TEXT),
            ("button", "cli", "words.command_line"): [
                k for k in v.VOCABULARIES["button"] if command_line(k)]}


def ha_tables():
    from hostd.fleet import ha

    items = [(t, c) for t, c in ha.configs("t1", commands=True)]
    keys = [c["unique_id"][len("jantaku_t1_"):] for _, c in items]
    entities = [k for (t, c), k in zip(items, keys) if "/button/" not in t]
    buttons = [k for (t, c), k in zip(items, keys) if "/button/" in t]
    for (t, c), k in zip(items, keys):  # the key is the topic's object id too
        assert t.split("/")[-2] == k, (t, k)
    by_key = dict(zip(keys, (c for _, c in items)))
    return {("entity", "ha", "configs"): entities,
            ("wind", "ha", "score entities"): [k[6:] for k in entities if k.startswith("score_")], ("entity", "ha", "ha.NAMES"): list(ha.NAMES),
            ("button", "ha", "configs"): buttons,
            ("state", "ha", "state's options"): by_key["state"]["options"],
            ("next", "ha", "next's options"): by_key["next"]["options"]}


def all_tables(page):
    return {**page_tables(page), **cli_tables(), **ha_tables()}


def core_tables():
    from hostd.rules.dice import SEAT_WORDS

    return {("seat", "core", "dice.SEAT_WORDS"): list(SEAT_WORDS)}


def test_every_front_end_words_exactly_the_registrys_keys(page):
    tables = {**all_tables(page), **core_tables()}
    assert v.mismatches(tables) == []
    # every vocabulary's every front end is read (but the core's own where the registry
    # is made from its table: codes.NEXT, codes.TODO)
    for voc, front_ends in v.WORDED_BY.items():
        for fe in front_ends:
            assert (voc, fe) in (("next", "core"), ("fault", "core")) or any(
                k[:2] == (voc, fe) for k in tables), (voc, fe)


def test_a_key_added_or_a_word_for_an_unknown_key_fails(page):
    """The check above sees a key the registry gained and a front end did not word, and a
    front end's word for a key the registry does not have."""
    tables = all_tables(page)
    more = dict(v.VOCABULARIES, next=v.VOCABULARIES["next"] + ("new_code",),
                where=v.VOCABULARIES["where"] + ("under_the_table",))
    found = v.mismatches(tables, more)
    assert any(f.startswith("next/page/en next: missing ['new_code']") for f in found), found
    assert any(f.startswith("next/page/ja next: missing ['new_code']") for f in found), found
    assert any(f.startswith("next/ha/next's options: missing ['new_code']") for f in found)
    assert any(f.startswith("where/cli/words.WHERE_TEXT: missing ['under_the_table']")
               for f in found), found
    tables[("event", "page", "en log")] = tables[("event", "page", "en log")] + ["tile"]
    assert v.mismatches(tables) == [
        "event/page/en log: missing [], not in the registry ['tile']"]


def test_the_tables_that_word_some_keys_word_none_outside_the_registry(page):
    from hostd.cli.client import HINTS
    from hostd.cli.table import SAID

    for lang in ("en", "ja"):
        for voc, path in PAGE_SOME:
            assert page[lang][path] and set(page[lang][path]) <= set(v.worded(voc, "page")), \
                (lang, path)
    assert set(SAID) <= set(v.worded("button", "cli"))
    assert set(HINTS) <= set(v.REFUSALS)


def test_the_registrys_keys_are_the_daemons():
    """Each event people are told of is one the daemon sends, each refusal an error code it
    answers with (but the three that stand for several): each is in hostd's code."""
    sources = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "hostd").rglob("*.py")
                        if p.name != "vocabulary.py")
    for key in v.EVENTS + v.REFUSALS:
        if key not in v.REFUSAL_GROUPS:
            assert re.search(r"""['"]%s['"]""" % key, sources), key
    for voc, keys in v.VOCABULARIES.items():
        assert len(set(keys)) == len(keys) and keys, voc


def test_every_fault_the_table_reports_is_a_kind_of_the_registry():
    """The table's faults (protocol FAULTS, as hostd/table/client.py names them) are each
    worded by their kind, never by the fallback for one the registry lacks."""
    from protocol import messages as m

    reported = {name.replace("_", "-") for name in m.FAULTS if name != "none"}
    assert reported and reported <= set(v.VOCABULARIES["fault"]), \
        reported - set(v.VOCABULARIES["fault"])
