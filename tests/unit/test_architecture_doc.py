"""docs/ARCHITECTURE.md's figures are the code's: the journal's schema version and the
versions it migrates, the retention's defaults and how often it runs, how often tile
events are flushed, the ticks' period, the function length limit, the packages of hostd
and their order.  A change to one of them fails here until the document says it too."""
import inspect
import pathlib
import re

from firmware import compat
from hostd.cli import run
from hostd.core import daemon
from hostd.core.journal import Journal, schema

from test_layout import HOSTD, MAX_FUNCTION_LINES, PACKAGE_ORDER

DOC = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "ARCHITECTURE.md").read_text()
FLAT = " ".join(DOC.split())  # the figures' phrases may wrap


def figure(pattern):
    """The number the document gives where `pattern` (one group) matches, exactly once."""
    found = re.findall(pattern, FLAT)
    assert len(found) == 1, "docs/ARCHITECTURE.md: %r matches %d times" % (pattern, len(found))
    return int(found[0])


def test_the_journal_s_schema_version_and_its_migrations():
    assert figure(r"- Schema (\d+): a session holds games") == schema.SCHEMA_VERSION
    last = figure(r"A journal of version 1 to (\d+) is migrated on opening")
    assert last == schema.SCHEMA_VERSION - 1
    assert sorted(schema.MIGRATIONS) == list(range(1, schema.SCHEMA_VERSION))


def test_the_retention_s_defaults_and_how_often_it_runs():
    import argparse

    p = argparse.ArgumentParser()
    run.configure_run(p)
    assert figure(r"`--keep-days` days ago \(default (\d+)\)") == p.get_default("keep_days")
    assert figure(r"`--journal-max-mb` \(default (\d+)\)") == p.get_default("journal_max_mb")
    assert daemon.KEEP_DAYS == p.get_default("keep_days")
    hours = inspect.signature(daemon.Daemon._prune_every).parameters["hours"].default
    assert "at start and every six hours" in FLAT and hours == 6.0


def test_tile_events_are_flushed_every_second():
    assert "tile events are flushed every second" in FLAT
    assert inspect.signature(Journal).parameters["flush_interval"].default == 1.0


def test_the_ticks_period():
    assert figure(r"period 2\*\*(\d+), compare only with") == compat.TICKS_PERIOD.bit_length() - 1


def test_the_function_length_limit():
    assert figure(r"no function over (\d+) lines \(tests/unit/test_layout.py") == MAX_FUNCTION_LINES


def test_hostd_s_packages_are_the_ones_listed_in_their_order():
    m = re.search(r"in one order from the bottom up: ([a-z, ]+) \(each imports only those "
                  r"before it", FLAT)
    assert m, "docs/ARCHITECTURE.md §2 gives hostd's package order"
    assert tuple(x.strip() for x in m.group(1).split(",")) == PACKAGE_ORDER
    listed = set(re.findall(r"^  ([a-z_]+)/ ", DOC, re.M))
    packages = {p.name for p in HOSTD.iterdir() if (p / "__init__.py").is_file()}
    assert listed == packages, "§2 lists %s; hostd has %s" % (sorted(listed), sorted(packages))
