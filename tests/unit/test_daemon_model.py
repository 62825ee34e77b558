"""The daemon in a person's hands, model-based (tests/unit/daemon_model.py): random
operator actions and faults against the in-process simulated table, bounded to about a
minute in `make test` (bench/lifecycle_model.py runs it for as long as asked)."""
import time

import pytest
from hypothesis import HealthCheck, settings

import daemon_model

BUDGET_S = 60.0


@pytest.mark.slow
def test_every_action_from_every_state_answers_and_play_can_resume():
    t0 = time.monotonic()
    runs = 0
    while True:
        machine = daemon_model.DaemonMachine.TestCase
        machine.settings = settings(max_examples=4, stateful_step_count=8, deadline=None,
                                    derandomize=False, database=None,
                                    suppress_health_check=list(HealthCheck))
        machine("runTest").runTest()
        runs += 1
        if time.monotonic() - t0 > BUDGET_S / 2:
            break
    st = daemon_model.STATS
    print("model: %d sequences, %d steps, %d back to play, %d needed a person"
          % (st["sequences"], st["steps"], st["recovered"], st["person"]))
    assert st["recovered"] > 0
