"""hostd.core.journal: schema, idempotency, read-back, and crash safety under SIGKILL."""
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest

from hostd.core.journal import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    Journal,
    JournalConflict,
    JournalInUse,
    JournalNotWritable,
    JournalTooNew,
    NotAJournal,
    UnknownSession,
)
from hostd.errors import JantakuError, JournalError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BUILD_A = {"deck": "A", "per_track": [34, 34, 34, 34], "backs": {"blue": 70, "green": 66},
           "sim_seconds": 20.4, "ok": True}
HAND_1 = {"hand": 1, "deck": "A", "dice": [3, 4], "breaker": "across",
          "turnaround_sim_seconds": 4.1}


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "journal.sqlite")


@pytest.fixture
def j(path):
    with Journal(path) as jr:
        yield jr


def new_session(j, **kw):
    args = dict(ruleset="riichi", mixed_deck=True, sets=["blue", "green"], seed=42)
    args.update(kw)
    return j.create_session(**args)


# -- file format and opening --------------------------------------------------------------

def test_new_file_has_schema_version_and_application_id(j, path):
    assert j.schema_version == SCHEMA_VERSION
    j.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"sessions", "decks", "hands", "builds", "faults", "events"} <= tables
    db.close()


def test_synchronous_full(j):
    assert j._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_reopen_keeps_everything(path):
    with Journal(path) as j:
        sid = new_session(j)
        j.build_started(sid, 1, "A", [34] * 4)
        j.build_finished(sid, 1, BUILD_A)
    with Journal(path) as j:
        s = j.session_summary(sid)
        assert s["builds"][0]["per_track"] == [34] * 4
        assert j.check() == []


def test_newer_schema_is_refused_clearly(path):
    Journal(path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version=%d" % (SCHEMA_VERSION + 5))
    db.close()
    with pytest.raises(JournalTooNew) as e:
        Journal(path)
    msg = str(e.value)
    assert "newer jantaku" in msg and str(SCHEMA_VERSION + 5) in msg and path in msg
    assert isinstance(e.value, JantakuError)


def test_garbage_file_is_not_a_journal(path):
    with open(path, "wb") as f:
        f.write(b"this is not sqlite at all" * 100)
    with pytest.raises(NotAJournal) as e:
        Journal(path)
    assert "not a jantaku journal" in str(e.value) and path in str(e.value)


def test_other_sqlite_database_is_not_a_journal(path):
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE recipes (name TEXT)")
    db.commit()
    db.close()
    with pytest.raises(NotAJournal) as e:
        Journal(path)
    assert "recipes" in str(e.value)


def test_missing_directory_is_not_writable(tmp_path):
    p = str(tmp_path / "nope" / "journal.sqlite")
    with pytest.raises(JournalNotWritable) as e:
        Journal(p)
    assert "does not exist" in str(e.value)


def test_directory_path_is_refused(tmp_path):
    with pytest.raises(NotAJournal) as e:
        Journal(str(tmp_path))
    assert "is a directory" in str(e.value)


def _run_as_nobody(code):
    """Run code in a child that drops to uid/gid 65534 (when we are root) after its
    imports, so file permissions apply to it (root's os.access always says yes)."""
    drop = "import os\nif os.getuid() == 0:\n    os.setgroups([]); os.setgid(65534); os.setuid(65534)\n"
    env = dict(os.environ, PYTHONPATH=ROOT, PYTHONDONTWRITEBYTECODE="1")
    pre = "from hostd.core.journal import Journal, JournalNotWritable\n"
    return subprocess.run([sys.executable, "-c", pre + drop + code], capture_output=True,
                          text=True, timeout=60, env=env, cwd="/")


def test_unwritable_file_and_directory_are_refused():
    base = tempfile.mkdtemp(prefix="jantaku-ro-")  # outside pytest's 0700 tree
    try:
        d = os.path.join(base, "ro")
        os.mkdir(d)
        p = os.path.join(d, "journal.sqlite")
        Journal(p).close()
        os.chmod(base, 0o755)
        os.chmod(p, 0o644)
        os.chmod(d, 0o755)
        if os.getuid() != 0:
            os.chmod(p, 0o444)
            os.chmod(d, 0o555)
        code = textwrap.dedent("""
            for p in [%r, %r]:
                try:
                    Journal(p)
                except JournalNotWritable as e:
                    print("REFUSED", e)
                else:
                    print("OPENED", p)
        """ % (p, os.path.join(d, "new.sqlite")))
        r = _run_as_nobody(code)
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        assert len(lines) == 2 and all(l.startswith("REFUSED") for l in lines), r.stdout
        assert "not readable and writable" in lines[0]
        assert "is not writable" in lines[1]
    finally:
        os.chmod(os.path.join(base, "ro"), 0o755)
        shutil.rmtree(base)


def test_unreachable_directory_is_explained(tmp_path):
    if os.getuid() != 0:
        pytest.skip("needs root to drop to another user")
    base = tempfile.mkdtemp(prefix="jantaku-ro-")
    try:
        os.chmod(base, 0o700)  # nobody cannot enter it
        r = _run_as_nobody(textwrap.dedent("""
            try:
                Journal(%r)
            except JournalNotWritable as e:
                print("REFUSED", e)
        """ % os.path.join(base, "sub", "journal.sqlite")))
        assert "cannot be reached" in r.stdout, r.stdout + r.stderr
    finally:
        shutil.rmtree(base)


def test_second_writer_is_refused_but_reader_may_open(j, path):
    with pytest.raises(JournalInUse) as e:
        Journal(path)
    assert "in use" in str(e.value)
    sid = new_session(j)
    with Journal(path, exclusive=False) as r:
        assert r.session_summary(sid)["ruleset"] == "riichi"


def test_memory_journal_works():
    with Journal(":memory:") as j:
        sid = new_session(j)
        assert j.open_session()["id"] == sid


# -- sessions -----------------------------------------------------------------------------

def test_one_open_session_at_a_time(j):
    sid = new_session(j)
    with pytest.raises(JournalConflict) as e:
        new_session(j)
    assert "still open" in str(e.value)
    assert j.end_session(sid, "aborted", reason="test") == "aborted"
    assert j.end_session(sid) == "aborted"  # already ended: unchanged
    sid2 = new_session(j)
    assert sid2 != sid
    assert j.open_session()["id"] == sid2


def test_ended_session_takes_no_more_transitions(j):
    sid = new_session(j)
    j.end_session(sid)
    with pytest.raises(JournalConflict):
        j.phase(sid, "building")
    with pytest.raises(JournalConflict):
        j.build_started(sid, 1, "A", [34] * 4)


def test_unknown_session(j):
    with pytest.raises(UnknownSession):
        j.session_summary(99)
    with pytest.raises(UnknownSession):
        j.phase(99, "x")


def test_big_seed_round_trips(j):
    sid = new_session(j, seed=2 ** 64 - 1)
    assert j.session_summary(sid)["seed"] == 2 ** 64 - 1
    j.end_session(sid)
    sid2 = new_session(j, seed=None)
    assert j.session_summary(sid2)["seed"] is None
    j.end_session(sid2)
    sid3 = new_session(j, seed="demo-seed")
    assert j.session_summary(sid3)["seed"] == "demo-seed"
    j.end_session(sid3)
    with pytest.raises(ValueError):
        new_session(j, seed=1.5)


def test_phase_is_kept_for_resume(j):
    sid = new_session(j)
    j.phase(sid, "hand_over", inside="B", top="A", hand=3)
    s = j.open_session()
    assert s["phase"] == "hand_over"
    assert s["phase_data"] == {"inside": "B", "top": "A", "hand": 3}


# -- builds, hands, decks, faults ----------------------------------------------------------

def test_build_idempotent_and_numbered(j):
    sid = new_session(j)
    a = j.build_started(sid, 1, "A", [34] * 4)
    assert a["new"] and a["ok"] is None
    again = j.build_started(sid, 1, "A", [34] * 4)
    assert again["new"] is False and again["started_at"] == a["started_at"]
    with pytest.raises(JournalConflict):
        j.build_started(sid, 1, "B", [34] * 4)
    with pytest.raises(ValueError, match="next build number is 2"):
        j.build_started(sid, 3, "B", [34] * 4)
    with pytest.raises(ValueError, match="never started"):
        j.build_finished(sid, 2, BUILD_A)
    f = j.build_finished(sid, 1, BUILD_A)
    assert f["new"] and f["ok"] is True
    f2 = j.build_finished(sid, 1, dict(BUILD_A, ok=False))
    assert f2["new"] is False and f2["ok"] is True
    assert [e["kind"] for e in j.events(sid)].count("build_finished") == 1


def test_hand_idempotent(j):
    sid = new_session(j)
    first = j.hand(sid, HAND_1, {"breaker": "across", "break_from_right": 7, "unit": "stacks"})
    assert first["new"]
    again = j.record_hand(sid, dict(HAND_1, dice=[6, 6]))
    assert again["new"] is False and again["dice"] == [3, 4]
    with pytest.raises(ValueError):
        j.hand(sid, dict(HAND_1, hand=3))
    assert len(j.session_summary(sid)["hands"]) == 1
    assert sqlite3.connect(j.path).execute("SELECT count(*) FROM hands").fetchone()[0] == 1


def test_hand_accepts_break_object(j):
    class Brk:
        def contract_dict(self):
            return {"total": 7, "breaker": "across"}

    sid = new_session(j)
    h = j.hand(sid, HAND_1, Brk())
    assert h["break_position"] == {"total": 7, "breaker": "across"}


def test_deck_composition_fixed(j):
    sid = new_session(j)
    assert j.deck(sid, "A", {"tiles": 136, "backs": {"blue": 70, "green": 66}})["new"]
    assert not j.deck(sid, "A", {"tiles": 136, "backs": {"green": 66, "blue": 70}})["new"]
    with pytest.raises(JournalConflict):
        j.deck(sid, "A", {"tiles": 136, "backs": {"blue": 69, "green": 67}})
    with pytest.raises(ValueError):
        j.deck(sid, "C", {"tiles": 1, "backs": {"blue": 1}})
    with pytest.raises(ValueError):
        j.deck(sid, "B", {"tiles": 5, "backs": {"blue": 1}})


def test_faults(j):
    sid = new_session(j)
    j.build_started(sid, 1, "A", [34] * 4)
    fid = j.fault(sid, {"kind": "jam", "track": 2, "build": 1, "recovered": False,
                        "message": "track 2 jammed"})
    assert j.fault_recovered(fid) is True
    assert j.fault_recovered(fid) is False
    with pytest.raises(ValueError):
        j.fault(sid, {"kind": "jam", "track": 2, "build": 7, "message": "no such build"})
    outside = j.record_fault(None, {"kind": "link", "message": "port unplugged"})
    assert outside > fid
    s = j.session_summary(sid)
    assert s["faults"] == [{"kind": "jam", "track": 2, "build": 1, "recovered": True,
                            "message": "track 2 jammed"}]
    assert j.check() == []


def test_summary_has_demo_shape(j):
    sid = new_session(j)
    j.build_started(sid, 1, "A", [34] * 4)
    j.build_finished(sid, 1, BUILD_A)
    j.deck(sid, "A", {"tiles": 136, "backs": {"blue": 70, "green": 66}})
    j.deck(sid, "B", {"tiles": 136, "backs": {"blue": 66, "green": 70}})
    j.hand(sid, HAND_1, {"breaker": "across"})
    j.build_started(sid, 2, "B", [34] * 4)
    s = j.session_summary(sid)
    json.dumps(s)  # plain JSON
    for key in ("ruleset", "mixed_deck", "seed", "sets", "decks", "builds", "hands", "faults"):
        assert key in s
    assert (s["ruleset"], s["mixed_deck"], s["seed"], s["sets"]) == (
        "riichi", True, 42, ["blue", "green"])
    assert s["decks"]["A"] == {"tiles": 136, "backs": {"blue": 70, "green": 66}}
    b = s["builds"][0]
    assert {k: b[k] for k in BUILD_A} == BUILD_A
    h = s["hands"][0]
    assert {k: h[k] for k in HAND_1} == HAND_1
    assert "started_at" not in b  # no wall-clock times unless asked: deterministic
    assert "started_at" in j.session_summary(sid, times=True)["builds"][0]
    o = j.open_session()
    assert o["next_build"] == 3 and o["next_hand"] == 2
    assert o["unfinished_build"]["build"] == 2


# -- buffered events ------------------------------------------------------------------------

def test_events_buffered_until_transition(path):
    now = [1000.0]
    with Journal(path, clock=lambda: now[0], flush_interval=5.0) as j:
        sid = new_session(j)
        with Journal(path, exclusive=False) as reader:
            j.event(sid, "tile", track=1, colour="blue")
            j.event(sid, "tile", track=2, colour="green")
            assert j.pending == 2
            assert [e["kind"] for e in reader.events(sid)] == ["session_created"]
            j.phase(sid, "building")
            kinds = [e["kind"] for e in reader.events(sid)]
            assert kinds == ["session_created", "tile", "tile", "phase"]  # in order
            assert j.pending == 0
            # older than flush_interval at the next event: flushed by itself
            j.event(sid, "tile", track=3)
            now[0] += 6.0
            j.event(sid, "tile", track=4)
            assert j.pending == 0
            assert len(reader.events(sid, kinds=["tile"])) == 4
            j.event(sid, "tile", track=1)
        assert j.flush() == 1
        j.event(sid, "tile", track=2)
    with Journal(path) as j:
        assert len(j.events(sid, kinds=["tile"])) == 6  # close() flushed the last one


def test_a_failed_transition_leaves_no_trace_but_the_buffered_events_are_written(j):
    sid = new_session(j)
    j.event(sid, "tile", track=1)
    with pytest.raises(ValueError):
        j.build_started(sid, 5, "A", [34] * 4)
    assert j.pending == 0 and len(j.events(sid, kinds=["tile"])) == 1
    assert j.session_summary(sid)["builds"] == []


def test_flush_every_task(j):
    import asyncio

    sid = new_session(j)

    async def main():
        task = asyncio.create_task(j.flush_every(0.01))
        j.event(sid, "tile", track=1)
        for _ in range(200):
            await asyncio.sleep(0.01)
            if not j.pending:
                break
        task.cancel()
        return j.pending

    assert asyncio.run(main()) == 0


def test_journal_errors_are_jantaku_errors():
    assert issubclass(JournalTooNew, JournalError) and issubclass(JournalError, JantakuError)


# -- crash safety: SIGKILL at random moments ------------------------------------------------

CHILD = r'''
import sys
from hostd.core.journal import Journal

j = Journal(sys.argv[1], flush_interval=0.05)
say = lambda *a: (sys.stdout.write(" ".join(str(x) for x in a) + "\n"), sys.stdout.flush())
o = j.open_session()
if o is not None:
    j.end_session(o["id"], "aborted")
    say("E", o["id"])
say("READY")
step = 0
while True:
    sid = j.create_session(ruleset="riichi", mixed_deck=True, sets=["blue", "green"], seed=step)
    say("S", sid)
    for b in range(1, 7):
        deck = "A" if b % 2 else "B"
        j.phase(sid, "building", inside=deck, seq=step)
        say("P", sid, step)
        step += 1
        j.build_started(sid, b, deck, [34, 34, 34, 34])
        say("B", sid, b)
        for t in range(136):
            j.event(sid, "tile", track=t % 4 + 1, colour="blue" if t % 2 else "green")
        if b == 2:
            fid = j.fault(sid, {"kind": "jam", "track": 3, "build": b, "message": "jam"})
            say("X", sid, fid)
        j.build_finished(sid, b, {"deck": deck, "per_track": [34] * 4,
                                  "backs": {"blue": 68, "green": 68}, "sim_seconds": 20.0,
                                  "ok": True})
        say("F", sid, b)
        if b <= 2:
            j.deck(sid, deck, {"tiles": 136, "backs": {"blue": 68, "green": 68}})
            say("D", sid, deck)
        if b >= 2:
            j.hand(sid, {"hand": b - 1, "deck": deck, "dice": [1, 2], "breaker": "self",
                         "turnaround_sim_seconds": 4.0})
            say("H", sid, b - 1)
        j.transition(sid, "lift_done", seq=step)
        say("L", sid, step)
        step += 1
    j.end_session(sid)
    say("E", sid)
'''


def _check_reported(j, reported):
    ev = {(e["kind"], e["session"], e["data"].get("seq")) for e in j.events()}
    sessions = {}
    for line in reported:
        kind, *args = line.split()
        if kind == "READY":
            continue
        sid = int(args[0])
        if sid not in sessions:
            sessions[sid] = j.session_summary(sid)
        s = sessions[sid]
        if kind == "S":
            assert s["ruleset"] == "riichi"
        elif kind == "P":
            assert ("phase", sid, int(args[1])) in ev, line
        elif kind == "B":
            assert len(s["builds"]) >= int(args[1]), line
        elif kind == "F":
            assert s["builds"][int(args[1]) - 1]["ok"] is True, line
        elif kind == "X":
            assert s["faults"], line
        elif kind == "D":
            assert args[1] in s["decks"], line
        elif kind == "H":
            assert len(s["hands"]) >= int(args[1]), line
        elif kind == "L":
            assert ("lift_done", sid, int(args[1])) in ev, line
        elif kind == "E":
            assert s["state"] in ("ended", "aborted"), line
        else:  # pragma: no cover
            raise AssertionError("unknown line %r" % line)


TRANSITION_KINDS = ["session_created", "phase", "build_started", "fault", "build_finished",
                    "deck", "hand", "lift_done", "session_ended"]


@pytest.mark.parametrize("run", range(6))
def test_sigkill_loses_nothing_reported(tmp_path, run):
    path = str(tmp_path / "journal.sqlite")
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    rng = random.Random(run)
    env = dict(os.environ, PYTHONPATH=ROOT)
    reported = []
    # two lives per run: the second child resumes the journal the first left behind
    for life in range(2):
        p = subprocess.Popen([sys.executable, str(script), path], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env, cwd=ROOT, text=True)
        first = p.stdout.readline()
        if first.startswith("E "):
            reported.append(first.strip())
            first = p.stdout.readline()
        assert first.strip() == "READY", first + p.stderr.read()
        time.sleep(rng.uniform(0.02, 0.6))
        os.kill(p.pid, signal.SIGKILL)
        # read through the same buffered file objects as readline() above (communicate()
        # would skip what readline() had already read ahead)
        out, err = p.stdout.read(), p.stderr.read()
        p.wait(timeout=30)
        p.stdout.close()
        p.stderr.close()
        assert p.returncode == -signal.SIGKILL, err
        reported.extend(l.strip() for l in out.splitlines() if l.strip())
        assert "Traceback" not in err, err
    assert len(reported) > 2, "the child reported too little to test anything"
    with Journal(path) as j:
        assert j.check() == []
        _check_reported(j, reported)
        # nothing beyond what was reported, except at most the transition in flight
        # when the kill came (committed, not yet printed), per life
        committed = [e for e in j.events() if e["kind"] in TRANSITION_KINDS]
        n_reported = len([l for l in reported if not l.startswith("READY")])
        assert n_reported <= len(committed) <= n_reported + 2


# -- how sessions end, and the schema 1 -> 2 migration --------------------------------------
def test_sessions_end_as_ended_aborted_or_failed_with_the_reason(j):
    a = new_session(j)
    j.end_session(a, "ended")
    b = new_session(j)
    j.end_session(b, "failed", reason="deck B: counted 135 of 136")
    c = new_session(j)
    j.end_session(c, "aborted", reason="aborted by request")
    assert j.ended_how(b) == {"state": "failed", "reason": "deck B: counted 135 of 136"}
    assert [s["state"] for s in j.sessions()] == ["aborted", "failed", "ended"]
    assert j.last_session()["id"] == c
    with pytest.raises(ValueError, match="ended, aborted or failed"):
        j.end_session(c, "finished")


def _schema_v2():
    """Version 2's tables: no games (decks keyed by session and name, hands without game)."""
    from hostd.core import journal as jmod

    out = []
    for stmt in jmod.schema.SCHEMA:
        if "CREATE TABLE games" in stmt or stmt is jmod.schema.SCORES:  # (scores: version 6)
            continue
        stmt = "\n".join(line for line in stmt.split("\n")
                         if not line.strip().startswith(("game ", "started_by ", "dice_by ",
                                                         "split ")))
        out.append(stmt.replace("PRIMARY KEY (session_id, game, split, name)",
                                "PRIMARY KEY (session_id, name)"))
    return out


def _schema_v3():
    """Version 3's tables: games, but one split a game (no split on decks and hands)."""
    from hostd.core import journal as jmod

    out = []
    for stmt in jmod.schema.SCHEMA:
        if stmt is jmod.schema.SCORES:  # (version 6)
            continue
        stmt = "\n".join(line for line in stmt.split("\n")
                         if not line.strip().startswith("split "))
        out.append(stmt.replace("PRIMARY KEY (session_id, game, split, name)",
                                "PRIMARY KEY (session_id, game, name)"))
    return out


def _old_journal(path, schema, version):
    """A journal as an older daemon made it: its ``schema``, marked ``version``."""
    db = sqlite3.connect(path, isolation_level=None)
    for stmt in schema:
        db.execute(stmt)
    db.execute("PRAGMA application_id=%d" % APPLICATION_ID)
    db.execute("PRAGMA user_version=%d" % version)
    return db


def test_a_version_3_journal_gains_splits_and_its_hands_were_on_the_first(path):
    db = _old_journal(path, _schema_v3(), 3)
    db.execute("INSERT INTO sessions (ruleset, mixed_deck, sets, state, phase, created_at, "
               "ended_at) VALUES ('riichi', 1, '[\"blue\", \"green\"]', 'ended', 'built', 1.0, 2.0)")
    db.execute("INSERT INTO games (session_id, game, first_hand, started_at) VALUES (1, 1, 1, 1.0)")
    db.execute("INSERT INTO decks (session_id, name, tiles, backs, recorded_at, game) VALUES "
               "(1, 'A', 136, '{\"blue\": 64, \"green\": 72}', 1.0, 1)")
    db.execute("INSERT INTO hands (session_id, hand, deck, dice, recorded_at, game) VALUES "
               "(1, 1, 'A', '[3, 4]', 1.5, 1)")
    db.close()
    with Journal(path) as jr:
        s = jr.session_summary(1)
        assert s["games"][0]["splits"] == [{"split": 1, "decks": {"A": {
            "tiles": 136, "backs": {"blue": 64, "green": 72}}}}]
        assert s["hands"][0]["split"] == 1
        h = jr.history()[0]
        assert h["games"][0]["splits"][0]["hands"] == [1]


def test_a_version_1_journal_is_migrated_and_finished_becomes_ended(path):
    # version 1 said 'finished' for a normal end
    db = _old_journal(path, [stmt.replace("'ended'", "'finished'") for stmt in _schema_v2()], 1)
    db.execute("INSERT INTO sessions (ruleset, mixed_deck, sets, state, phase, created_at, "
               "ended_at) VALUES ('riichi', 1, '[]', 'finished', 'built', 1.0, 2.0)")
    db.execute("INSERT INTO builds (session_id, build, deck, targets, started_at) "
               "VALUES (1, 1, 'A', '[34]', 1.0)")
    db.close()
    with Journal(path) as jr:
        assert jr.schema_version == SCHEMA_VERSION == 6
        assert jr.sessions()[0]["state"] == "ended"
        assert jr.check() == []
        sid = new_session(jr)  # the new table still allows one open session only
        with pytest.raises(JournalConflict):
            new_session(jr)
        jr.end_session(sid, "ended")


def test_a_version_5_journal_gains_the_ledger_and_its_open_session_keeps_scores(path):
    from hostd.core import journal as jmod

    db = _old_journal(path, [s for s in jmod.schema.SCHEMA if s is not jmod.schema.SCORES], 5)
    db.execute("INSERT INTO sessions (ruleset, mixed_deck, sets, state, phase, created_at) "
               "VALUES ('riichi', 0, '[\"blue\", \"green\"]', 'open', 'built', 1.0)")
    db.execute("INSERT INTO games (session_id, game, first_hand, started_at) VALUES (1, 1, 1, 1.0)")
    db.close()
    with Journal(path) as jr:
        assert jr.schema_version == SCHEMA_VERSION == 6 and jr.check() == []
        assert jr.score_entries(1) == {}
        jr.score_entry(1, 1, 1, {"kind": "riichi", "player": "south"})
        with pytest.raises(JournalConflict, match="follows entry 1"):
            jr.score_entry(1, 1, 3, {"kind": "undo"})  # entries follow on, none skipped
        assert jr.score_entries(1) == {1: [{"kind": "riichi", "player": "south"}]}
        assert jr.history()[0]["games"][0]["score_entries"] == [
            {"kind": "riichi", "player": "south"}]


# -- games ---------------------------------------------------------------------------------
def test_each_game_has_its_own_split_and_its_hands(j):
    sid = new_session(j)
    j.deck(sid, "A", {"tiles": 136, "backs": {"blue": 70, "green": 66}})
    j.hand(sid, {"hand": 1, "deck": "A", "dice": [3, 4], "breaker": "across"})
    assert j.game(sid, 2, first_hand=2)["new"] is True
    assert j.game(sid, 2, first_hand=2)["new"] is False  # a repeat changes nothing
    with pytest.raises(ValueError, match="next game number is 3"):
        j.game(sid, 4, first_hand=2)
    # game 2's deck A is another split: not a conflict with game 1's
    j.deck(sid, "A", {"tiles": 136, "backs": {"blue": 60, "green": 76}}, game=2)
    with pytest.raises(JournalConflict, match="game 2"):
        j.deck(sid, "A", {"tiles": 136, "backs": {"blue": 61, "green": 75}}, game=2)
    j.hand(sid, {"hand": 2, "game": 2, "deck": "A", "dice": [1, 1], "breaker": "self"})
    s = j.session_summary(sid)
    assert s["game"] == 2
    assert s["decks"] == {"A": {"tiles": 136, "backs": {"blue": 60, "green": 76}}}
    assert [(g["game"], g["first_hand"], g["decks"]["A"]["backs"]["blue"]) for g in s["games"]] \
        == [(1, 1, 70), (2, 2, 60)]
    assert [(h["hand"], h["game"]) for h in s["hands"]] == [(1, 1), (2, 2)]
    assert [e["kind"] for e in j.events(sid, kinds=["game"])] == ["game"]


def test_a_version_2_journal_gains_games_and_keeps_its_decks_and_hands(path):
    db = _old_journal(path, _schema_v2(), 2)
    db.execute("INSERT INTO sessions (ruleset, mixed_deck, sets, state, phase, created_at) "
               "VALUES ('riichi', 1, '[\"blue\", \"green\"]', 'open', 'built', 1.0)")
    db.execute("INSERT INTO decks VALUES (1, 'A', 136, '{\"blue\": 70, \"green\": 66}', 1.0)")
    db.execute("INSERT INTO hands (session_id, hand, deck, dice, recorded_at) "
               "VALUES (1, 1, 'A', '[2, 5]', 1.0)")
    db.close()
    with Journal(path) as jr:
        assert jr.schema_version == SCHEMA_VERSION
        assert jr.check() == []
        s = jr.open_session()
        assert s["game"] == 1 and s["decks"]["A"]["backs"] == {"blue": 70, "green": 66}
        assert s["hands"][0]["game"] == 1
        jr.game(1, 2, first_hand=2)  # the migrated session goes on with a second game
        assert jr.session_summary(1)["game"] == 2


# -- history and retention ---------------------------------------------------------------------
def _played_session(j, hands=3, events=50):
    sid = new_session(j)
    j.deck(sid, "A", {"tiles": 136, "backs": {"blue": 68, "green": 68}})
    for n in range(1, hands + 1):
        j.hand(sid, {"hand": n, "deck": "A", "by": "button"})
        j.hand_dice(sid, n, [3, 4], {"total": 7, "breaker": "across"}, "button")
    for i in range(events):
        j.event(sid, "where", phase="building", hand=i, note="x" * 200)
    j.end_session(sid, "ended", reason="ended by request")
    return sid


def test_history_lists_sessions_with_games_hands_and_how_they_ended(path):
    clock = [1000.0]
    with Journal(path, clock=lambda: clock[0]) as j:
        first = _played_session(j)
        second = new_session(j)
        j.end_session(second, "aborted", reason="aborted by request")
        h = j.history()
        assert [s["id"] for s in h] == [second, first]
        assert h[0]["state"] == "aborted" and h[0]["reason"] == "aborted by request"
        s = h[1]
        assert s["ruleset"] == "riichi" and s["mixed_deck"] is True and s["detail"] is True
        assert [x["dice"] for x in s["games"][0]["hands"]] == [[3, 4]] * 3
        assert s["games"][0]["hands"][0]["dice_by"] == "button"
        assert [x["id"] for x in j.history(before=second)] == [first]
        # any number is bounded, none raises (SQLite's integers end at 2**63 - 1)
        assert [x["id"] for x in j.history(before=2 ** 63)] == [second, first]
        assert [x["id"] for x in j.history(before=10 ** 30)] == [second, first]
        assert j.history(before=-(2 ** 64)) == [] and j.history(before=0) == []


def test_prune_drops_old_detail_and_keeps_every_summary(path):
    clock = [1000.0]
    with Journal(path, clock=lambda: clock[0]) as j:
        old = _played_session(j)
        clock[0] += 10 * 86400
        recent = _played_session(j)
        before = j.history()
        removed = j.prune(keep_days=5)
        assert removed["events"] > 50 and removed["sessions"] == 0
        after = j.history()
        assert [s["detail"] for s in after] == [True, False]  # the recent one keeps its detail
        for a, b in zip(before, after):  # the summaries are untouched
            assert {k: v for k, v in a.items() if k != "detail"} == \
                {k: v for k, v in b.items() if k != "detail"}
        assert j.ended_how(old)["reason"] == "ended by request"
        assert j.check() == []
        assert recent


def test_prune_keeps_a_long_soak_under_its_bound(path):
    """Sessions day after day, the daemon's retention run after each: the live data stays
    under the bound and the file near it (freed pages are reused)."""
    clock = [1000.0]
    bound = 400 * 1024
    with Journal(path, clock=lambda: clock[0]) as j:
        for day in range(120):
            _played_session(j, hands=8, events=120)
            clock[0] += 86400
            j.prune(keep_days=30, max_bytes=bound)
            assert j.live_bytes() <= bound
        kept = j.history(limit=1000)
        assert 0 < len(kept) < 120 and kept[0]["detail"] is True
        assert os.path.getsize(path) < 2 * bound
        assert j.check() == []


def test_a_re_split_begun_reads_back_with_no_decks_yet(j):
    """A re-split (after a reset, or to take a stray out) begun but not built yet: a
    restarted daemon reads its split with no decks, not the split before's."""
    sid = new_session(j)
    comp = {"tiles": 136, "backs": {"blue": 68, "green": 68}}
    j.deck(sid, "A", comp, game=1, split=1)
    j.deck(sid, "B", comp, game=1, split=1)
    j.phase(sid, "building", split=1)
    assert j.open_session()["split"] == 1 and set(j.open_session()["decks"]) == {"A", "B"}
    j.phase(sid, "preparing", split=2)
    saved = j.open_session()
    assert saved["split"] == 2 and saved["decks"] == {}
    assert [sp["split"] for sp in saved["games"][-1]["splits"]] == [1]  # the one before, kept
