"""A longer schemathesis pass over the API's /openapi.json than `make test` runs (the
same harness: tests/unit/api_fuzz.py), with its figures: operations, examples by mode,
responses by status, failures.

    .venv/bin/python bench/api_fuzz.py [EXAMPLES_PER_OPERATION_AND_MODE]   (default 300)
"""
import io
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hostd import logging as jlog  # noqa: E402
from tests.unit.api_fuzz import TOKEN, run_pass  # noqa: E402


def main():
    examples = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    log = io.StringIO()
    jlog.configure("debug", stream=log, json=True)
    t0 = time.monotonic()
    figures = run_pass(examples)
    seconds = time.monotonic() - t0
    text = log.getvalue()
    print("schemathesis over /openapi.json: %d operations, %d examples (%s), %.1f s"
          % (figures["operations"], figures["examples"],
             ", ".join("%s %d" % kv for kv in figures["by_mode"].items()), seconds))
    print("responses by status: %s" % json.dumps(figures["statuses"]))
    print("integers written as floats (42.0), refused by the strict API: %d"
          % figures["integer_as_float_refused"])
    print("log lines: %d; with the token: %d; error level: %d" % (
        len(text.splitlines()), text.count(TOKEN),
        sum('"level": "error"' in line for line in text.splitlines())))
    print("failures: %d" % len(figures["failures"]))
    for f in figures["failures"]:
        print("--- %s (%s)\n%s" % (f["operation"], f["check"], f["message"]))
    return 1 if figures["failures"] or TOKEN in text else 0


if __name__ == "__main__":
    sys.exit(main())
