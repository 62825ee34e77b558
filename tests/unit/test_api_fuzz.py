"""A schemathesis pass over /openapi.json (bounded: a longer one is bench/api_fuzz.py):
every check holds on every operation, positive and negative bodies, and nothing secret
reaches the log while it runs."""
import json

import pytest

from hostd import logging as jlog
from hostd.core.commands import COMMANDS
from tests.unit.api_fuzz import TOKEN, run_cli, run_pass

EXAMPLES = 20  # per operation and mode: some 25 s (the stateful pass below adds its own)
STATEFUL_EXAMPLES = 25  # per operation: some 5 s


def test_schemathesis_pass_finds_nothing_and_logs_no_secret(log_buffer):
    figures = run_pass(EXAMPLES)
    assert figures["failures"] == [], json.dumps(figures["failures"], indent=1)[:6000]
    # GET+HEAD /health, status, rulesets, history, events, /table/health, 8 commands,
    # /selftest, /calibrate, /name-sets, /hand/check, /hand/score, GET+POST /pair,
    # /pair/new, /pair/invite, GET /pair/browsers, /pair/revoke, /pair/forget,
    # /pair/revoke-all, GET+POST /score, /score/export
    assert figures["operations"] == 32
    answered = figures["by_operation"]
    assert len(answered) == 32, sorted(answered)  # each operation was sent and answered
    assert {200} == set(answered["GET /pair/browsers"]), answered["GET /pair/browsers"]
    assert {404, 422} <= set(answered["POST /pair/revoke"]), answered["POST /pair/revoke"]
    assert {200} == set(answered["POST /pair/forget"]), answered["POST /pair/forget"]
    assert figures["examples"] >= 100
    assert not [s for s in figures["statuses"] if s >= 500], figures["statuses"]
    assert {200, 401} <= set(figures["statuses"])  # the token was checked both ways
    text = log_buffer.getvalue()
    assert TOKEN not in text and jlog.REDACTED not in text  # nothing even tried
    levels = {json.loads(line)["level"] for line in text.splitlines() if line.startswith("{")}
    assert not levels & {"error", "critical"}, levels


def test_schemathesis_stateful_follows_the_links_and_finds_nothing(tmp_path):
    """`schemathesis run --phases stateful` with the checks issue 30 names: the document's
    links (start -> status -> commands) make scenarios, and no response breaks a check.
    Valid bodies only, so the scenarios go along the links (its other modes, with bodies
    of random bytes, mostly stop at a 400: bench/api_fuzz.py runs them)."""
    figures = run_cli(STATEFUL_EXAMPLES, tmp_path, mode="positive")
    assert figures["exit"] == 0 and not figures["issues"], figures["report"]
    assert figures["scenarios"][0] >= 10, figures["report"]
    covered, total = figures["links"]
    # status -> each command, each command -> status, start -> its history page
    assert total == 2 * len(COMMANDS) + 1 and covered >= 5, figures["report"]
    assert figures["cases"][0] == figures["cases"][1] >= 50
