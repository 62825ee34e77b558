"""The journal's writer thread (hostd/core/journal/writer.py) and the journal on it: units run in
order, those queued during a commit share the next one, `synced` waits for exactly what
was queued before it, and a failure stops every later write."""
import asyncio
import threading
import time

import pytest

from hostd.core.journal import Journal
from hostd.core.journal.writer import Writer
from hostd.errors import JournalError


class Batches:
    """A run_batch that records each batch's units and can be held or made to fail."""

    def __init__(self, delay=0.0):
        self.batches = []
        self.delay = delay
        self.fail_on = None

    def __call__(self, units):
        time.sleep(self.delay)
        self.batches.append([u.work for u in units])
        for u in units:
            if u.work == self.fail_on:
                u.error = RuntimeError("disk gone")
            else:
                u.result = u.work


@pytest.fixture
def writer():
    w = Writer(Batches(delay=0.05))
    w.start()
    yield w
    w.stop()


def test_units_run_in_order_and_those_queued_during_a_commit_share_the_next(writer):
    units = [writer.put(work=i) for i in range(6)]
    assert writer.wait(units[-1]) == 5
    ran = writer._run_batch.batches
    assert [w for b in ran for w in b] == list(range(6))
    assert len(ran) < 6  # a group commit: at most the one on the disk and one more


def test_synced_returns_once_everything_queued_before_it_is_committed(writer):
    async def main():
        writer.put(work="a")
        writer.put(work="b")
        await writer.synced()
        assert writer.uncommitted == 0
        return [w for b in writer._run_batch.batches for w in b]

    assert asyncio.run(main()) == ["a", "b"]


def test_a_failed_unit_fails_every_later_write_and_every_sync(writer):
    writer._run_batch.fail_on = "bad"
    bad = writer.put(work="bad")
    with pytest.raises(RuntimeError, match="disk gone"):
        writer.wait(bad)
    with pytest.raises(RuntimeError, match="disk gone"):
        writer.put(work="later")

    async def sync():
        await writer.synced()

    with pytest.raises(RuntimeError, match="disk gone"):
        asyncio.run(sync())


def test_stop_commits_what_is_queued_first():
    b = Batches(delay=0.02)
    w = Writer(b)
    w.start()
    for i in range(5):
        w.put(work=i)
    w.stop()
    assert [x for batch in b.batches for x in batch] == list(range(5))


# -- the journal on its writer ---------------------------------------------------------------

@pytest.fixture
def slow_journal(tmp_path):
    """A file journal on its writer thread whose every commit takes 0.2 s."""
    j = Journal(tmp_path / "j.sqlite")
    run = j._run_batch

    def slow(units):
        time.sleep(0.2)
        run(units)

    j._run_batch = slow
    j.start_writer()
    yield j
    j.close()


def test_writes_return_at_once_and_synced_waits_for_the_disk(slow_journal):
    j = slow_journal

    async def main():
        t0 = time.monotonic()
        sid = j.create_session(ruleset="riichi", mixed_deck=False, sets=["blue"])
        j.phase(sid, "building", inside=True)
        fid = j.fault(sid, {"kind": "jam", "track": 2, "message": "jammed"})
        j.fault_recovered(fid)
        queued = time.monotonic() - t0
        assert j.uncommitted > 0
        await j.synced()
        return sid, fid, queued, time.monotonic() - t0

    sid, fid, queued, synced = asyncio.run(main())
    assert queued < 0.05, "a write waited %.3f s for the disk" % queued
    assert synced >= 0.2
    s = j.session_summary(sid)
    assert s["phase"] == "building"
    assert [(f["kind"], f["recovered"]) for f in s["faults"]] == [("jam", True)]
    assert fid == 1 and sid == 1  # the ids given out at once are the rows' ids


def test_a_read_beside_a_commit_does_not_wait_for_it(slow_journal):
    j = slow_journal
    sid = j.create_session(ruleset="riichi", mixed_deck=False, sets=["blue"])
    asyncio.run(j.synced())
    for n in range(3):
        j.phase(sid, "built", n=n)
    time.sleep(0.05)  # the writer is on the disk now
    t0 = time.monotonic()
    assert j.session_summary(sid)["ruleset"] == "riichi"
    assert time.monotonic() - t0 < 0.1


def test_close_commits_every_queued_write(tmp_path):
    path = tmp_path / "j.sqlite"
    j = Journal(path)
    j.start_writer()
    sid = j.create_session(ruleset="riichi", mixed_deck=False, sets=["blue"])
    for i in range(20):
        j.event(sid, "tile", track=1 + i % 4)
    j.end_session(sid, "ended")
    j.close()
    with Journal(path) as again:
        assert again.session_summary(sid)["state"] == "ended"
        assert len(again.events(sid, kinds=["tile"])) == 20


def test_a_write_the_journal_cannot_keep_stops_what_follows(tmp_path):
    j = Journal(tmp_path / "j.sqlite")
    j.start_writer()
    try:
        j.fault_recovered(12345)  # no such fault: the unit fails on the writer

        async def main():
            await j.synced()

        with pytest.raises(ValueError, match="no fault 12345"):
            asyncio.run(main())
        with pytest.raises(ValueError):  # failed for good: memory may be ahead of the disk
            j.create_session(ruleset="riichi", mixed_deck=False, sets=["blue"])
    finally:
        j.close()


def test_the_writer_is_a_thread_of_its_own_that_ends_with_close(tmp_path):
    before = {t.name for t in threading.enumerate()}
    j = Journal(tmp_path / "j.sqlite")
    j.start_writer()
    assert "journal-writer" in {t.name for t in threading.enumerate()} - before
    j.close()
    assert "journal-writer" not in {t.name for t in threading.enumerate()}
    with pytest.raises(JournalError):
        j.create_session(ruleset="riichi", mixed_deck=False, sets=["blue"])
