"""The daemon in a person's hands, model-based (tests/unit/daemon_model.py): random
operator actions and faults against the in-process simulated table.  Here a fixed
(derandomised) set of sequences that runs in well under a minute, so `make test` is the
same on every machine; bench/lifecycle_model.py explores at random for as long as asked
and reports what it finds."""
import pytest
from hypothesis import HealthCheck, settings

import daemon_model


@pytest.mark.long
def test_every_action_from_every_state_answers_and_play_can_resume():
    machine = daemon_model.DaemonMachine.TestCase
    machine.settings = settings(max_examples=120, stateful_step_count=10, deadline=None,
                                derandomize=True, database=None,
                                suppress_health_check=list(HealthCheck))
    machine("runTest").runTest()
    st = daemon_model.STATS
    print("model: %d sequences, %d steps, %d back to play, %d needed a person, %d answers "
          "checked against can (%d judged on a state that had moved on)"
          % (st["sequences"], st["steps"], st["recovered"], st["person"], st["judged"],
             st["stale"]))
    assert st["recovered"] > 0 and st["steps"] > 0
    assert st["judged"] > st["steps"] // 2  # can's promise was checked, not skipped


@pytest.mark.long
def test_bring_up_commands_in_any_order_never_trap_a_builder():
    """Issue 49: the self-test, the calibration and naming its sets, the wiring survey's
    moves (issue 47), in any order with the
    session's commands on a loaded table (faults too): every answer within bounded time,
    `can` never lies, the fault's and next's action always accepted, every refusal names
    only what is accepted, and play resumes at the end (or a person is asked)."""
    # How many bring-up commands a sequence has taken depends on what the table was doing
    # at that moment, which a loaded machine changes (a self-test is refused while a build
    # runs): when too few were taken, the sequences are explored further (the first ones
    # again, then as many new), never judged on fewer.
    machine = daemon_model.BenchMachine.TestCase
    before = dict(daemon_model.STATS)
    for examples in (24, 48, 96):
        machine.settings = settings(max_examples=examples, stateful_step_count=8,
                                    deadline=None, derandomize=True, database=None,
                                    suppress_health_check=list(HealthCheck))
        machine("runTest").runTest()
        st = {k: v - before[k] for k, v in daemon_model.STATS.items() if isinstance(v, int)}
        if st["selftests"] > 5 and st["readings"] > 3 and st["named"] > 1:
            break
    print("bring-up model: %d sequences, %d steps (%d bring-up commands: %d self-tests, %d "
          "readings, %d namings, %d survey moves taken), %d back to play, %d needed a person, "
          "%d refusals checked" % (st["sequences"], st["steps"], st["bench"], st["selftests"],
                                   st["readings"], st["named"], st["surveys"], st["recovered"],
                                   st["person"], st["refusals"]))
    assert st["selftests"] > 5 and st["readings"] > 3 and st["named"] > 1 and st["surveys"] > 3
    assert st["recovered"] > 0 and st["refusals"] > 0
