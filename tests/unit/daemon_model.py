"""A model-based test of the daemon in a person's hands (docs/FAULTS.md "People and the
lifecycle"): hypothesis drives the real daemon against the in-process simulated table
(virtual time) with random operator actions and injected faults, and checks after every
step:

* each call answers within bounded simulated time, and each step it starts ends (or
  stops, asking for people) within bounded simulated time;
* `can` never lies: a command that was in `can` is accepted (the table's own
  `fault_remains` counts as accepted), one that was not is refused with 409 (503 for a
  motor command while the table is not connected), whenever the answer was judged on
  the state the status showed (the same `seq`);
* `next.code` is one of the documented codes, and its text names no command;
* the state never contradicts itself: the fault's action and next's action are in `can`,
  and every refusal names only commands that are accepted (its words and its `next`);
* no motor runs while no step is under way;
* every finished build conserves its deck (the count, and with Mixed Deck the two decks
  make up the two sets);
* and at the end, from whatever state: abort, clear the fault if needed, a Mixed Deck
  session start and two hand overs succeed, unless a person must fix something, which
  `next` names.

`BenchMachine` drives the bring-up commands too (the self-test, whole or one device, a
calibration read mixed or one set at a time, its classes named in either order or
swapped) among the session's, in any order on a loaded table: what one leaves the next
takes as it is or asks people for, with a command that is accepted.

Used by tests/unit/test_daemon_model.py (a bounded run in `make test`) and
bench/lifecycle_model.py (as long as asked, with figures).
"""
import os
import pathlib
import shutil
import tempfile

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from daemon_harness import Harness
from hostd.core.codes import NEXT
from hostd.core.commands import BY_NAME, takes

# Faults that need a person's hands (the simulated players do not fix tables) and faults
# the table and daemon get over with at most a `continue`.
PERSON_FAULTS = ("jam:build=2,track=3,count=0", "missing-tile:build=2,count=1",
                 "extra-tile:build=2", "gate-slow:build=2,track=2", "lift-stall:build=2",
                 "limit-stuck:build=2")
SELF_FAULTS = ("jam:build=2,count=2", "misread:build=2,count=2", "guard:during=lift,build=2",
               "reset:build=2,after=50", "reset:build=2,during=lift", "unplug:build=2,ms=3000",
               "noise:rate=1e-4")
# the codes of a state in which a person must act (a stop, a fault the table reports)
PERSON_CODES = ("stopped", "table_fault")
STEP_S = 400.0  # simulated seconds a step may take (a collect, a build and a hand over)
CALL_S = 30.0  # simulated seconds a command may take to answer
BENCH_S = 400.0  # ... a self-test or a calibration, which answer when done (two builds)
# the commands a refusal's words may name, by the words: each must be accepted then
# (with the request field that takes it: end with empty, start with replace)
NAMED = (("then continue", "continue", {}), ("continue tries again", "continue", {}),
         ("clear the fault", "clear_fault", {}), ("end with empty", "end", {"empty": True}),
         ("end it", "end", {}), ("replace it", "start", {"replace": True}),
         ("abort", "abort", {}), ("calibrate first", "calibrate", {}),
         ("swap the names", "name_sets", {"swap": True}),
         ("jantaku selftest --device lift", "selftest", {}))
# the centre open for people, or people looking for a stray tile on the table top
ASKING = ("push_all", "push_rest", "mixer_short", "clear_top", "find_stray")

STATS = {"sequences": 0, "steps": 0, "recovered": 0, "person": 0, "findings": [],
         "judged": 0, "stale": 0, "bench": 0, "refusals": 0, "selftests": 0, "readings": 0,
         "named": 0, "surveys": 0}


class DaemonMachine(RuleBasedStateMachine):
    """One table, one journal, one daemon (restarted at times), many operator actions."""

    def __init__(self):
        super().__init__()
        self.h = None
        self.tmp = tempfile.mkdtemp(prefix="jantaku-model-")
        self.faults = ()
        STATS["sequences"] += 1
        # the club's profile a calibration writes: this machine's own folder
        self._config = os.environ.get("XDG_CONFIG_HOME")
        os.environ["XDG_CONFIG_HOME"] = os.path.join(self.tmp, "config")

    @initialize(seed=st.integers(1, 50), fault=st.sampled_from((None,) + PERSON_FAULTS + SELF_FAULTS),
                players=st.sampled_from(("auto", "auto", "manual")),
                mixed_loading=st.booleans())
    def table(self, seed, fault, players, mixed_loading):
        if players == "manual" and fault and fault.startswith("reset"):
            # not handled: the recovery from a table reset drops the untrusted walls at
            # once (hw_sim's automatic players push them in; nobody asks a person)
            players = "auto"
        self.faults = (fault,) if fault else ()
        self.players = players
        self.h = Harness(pathlib.Path(self.tmp), seed=seed, faults=self.faults, players=players,
                         mixed_loading=mixed_loading, push_window=2.0)

    # -- operator actions -----------------------------------------------------------------
    def _command(self, name, make, max_s=CALL_S, **options):
        """Run command `name` (`make()` gives its coroutine) and check it against what the
        status said the daemon would accept (`options`: request fields a row of the command
        list takes it with beyond `can`, e.g. start's replace)."""
        STATS["steps"] += 1
        d = self.h.daemon
        before = d.status()
        connected = d.link.connected
        # a row that takes it with one of the options (the list's own words, not can's)
        by_option = any(options.get(w.option) and w.holds(d.state, d.context())
                        for w in BY_NAME[name].accepted_in if w.option)
        answer, err = self.h.call(make(), max_s)
        if err is not None and err.status == 409:
            self._refusal_names_what_is_accepted(name, err)
        seq = (answer or {}).get("seq") if err is None else err.details.get("seq")
        if seq == before["state"]["seq"]:
            STATS["judged"] += 1
            if by_option and name not in before["can"]:
                # taken by its option; a replacing start is still refused while the table
                # reports a fault (naming it), before anything changes
                assert err is None or "table reports a fault" in str(err), (
                    name, before["state"], err)
                return self._settle_and(answer, err)
            self._check_judgement(name, before, connected, answer, err)
        else:
            STATS["stale"] += 1
        return self._settle_and(answer, err)

    def _refusal_names_what_is_accepted(self, name, err):
        """A refusal (409) names only commands the daemon takes now: its words (the
        row's reason and next's text) and next's action."""
        STATS["refusals"] += 1
        d = self.h.daemon
        if not d.link.connected or d.busy():
            return  # (judged on a state a step is changing)
        text, state, ctx = str(err).lower(), d.state, d.context()
        for words, command, options in NAMED:
            if words in text:
                assert takes(command, state, ctx, **options), (
                    "the refusal of %s names %s (%r), which %s does not take: %s"
                    % (name, command, words, state.name, err))
        nxt = err.details.get("next") or {}
        if nxt.get("action") and err.details.get("seq") == self.h.daemon.m.seq:
            assert takes(nxt["action"], state, ctx), (name, nxt, state)

    def _settle_and(self, answer, err):
        self._settle()
        return answer, err

    @staticmethod
    def _check_judgement(name, before, connected, answer, err):
        where = "%s in %s (can %s)" % (name, before["state"]["name"], before["can"])
        if name in before["can"]:
            assert err is None or err.code == "fault_remains", \
                "can lied: %s was refused: %s %s" % (where, err and err.status, err)
            return
        assert err is not None, "%s was not in can but was accepted: %s" % (where, answer)
        want = 503 if (not connected and BY_NAME[name].needs_table) else 409
        assert err.status == want, "%s refused with %s, not %s: %s" % (
            where, err.status, want, err)
        if want == 409:
            assert err.code == before["state"]["name"], (where, err.code)

    def _settle(self):
        d = self.h.daemon
        self.h.settle(until=lambda: not d.busy() or d.next_step()["code"] in ASKING,
                      max_s=STEP_S)

    @rule(mixed=st.booleans(), loaded=st.booleans(), replace=st.booleans())
    def start(self, mixed, loaded, replace):
        d = self.h.daemon
        if "start" in d.can() and not replace:
            mixed = True  # valid parameters: can's promise is about a valid request
        answer, err = self._command("start", lambda: d.start_session(
            "riichi", mixed, replace=replace, loaded=loaded), replace=replace)

    @rule()
    def hand_over(self):
        self._command("hand_over", self.h.daemon.hand_over)

    @rule(entered=st.booleans())
    def dice(self, entered):
        d = self.h.daemon
        self._command("dice", lambda: d.throw_dice([3, 4] if entered else None))

    @rule()
    def new_game(self):
        self._command("game_new", self.h.daemon.new_game)

    @rule()
    def abort(self):
        self._command("abort", self.h.daemon.abort)

    @rule()
    def continue_(self):
        self._command("continue", self.h.daemon.continue_)

    @rule()
    def clear_fault(self):
        self._command("clear_fault", self.h.daemon.clear_fault)

    @rule(empty=st.booleans())
    def end(self, empty):
        d = self.h.daemon
        if empty:  # not the default parameters: accepted or refused, never a lie about can
            STATS["steps"] += 1
            self.h.call(d.end_session(empty=True), CALL_S)
            self._settle()
        else:
            self._command("end", lambda: d.end_session(empty=False))

    @rule()
    def selftest_curtain(self):
        d = self.h.daemon
        self._command("selftest", lambda: d.selftest("curtain"))

    @rule(keep=st.integers(0, 1))
    def people_push(self, keep):  # a person's hands (manual players): the table top in
        STATS["steps"] += 1
        self.h.sim.push(keep)

    @rule()
    def restart_daemon(self):
        STATS["steps"] += 1
        self.h.restart()
        self._settle()

    @rule(ms=st.integers(200, 4000))
    def unplug(self, ms):
        STATS["steps"] += 1
        self.h.sim.wire.unplug(self.h.sim.clock.now_us(), -1)
        self.h.wait_s(ms / 1000.0)
        self.h.sim.wire.replug()
        self.h.settle(until=lambda: self.h.daemon.link.connected, max_s=30)
        self._settle()

    # -- invariants -------------------------------------------------------------------------
    @invariant()
    def next_is_a_documented_code(self):
        if self.h is None:
            return
        nxt = self.h.status()["next"]
        assert nxt["code"] in NEXT, nxt
        assert nxt["text"] and "jantaku" not in nxt["text"], nxt
        assert "None" not in nxt["text"] and "?" not in nxt["text"], nxt
        assert nxt["action"] is None or nxt["action"] in BY_NAME, nxt

    @invariant()
    def a_faults_action_is_one_it_takes(self):
        """The state never contradicts its fault or itself: what the fault asks for, and
        what next asks for, is accepted, session or not."""
        if self.h is None or self.h.daemon.busy():
            return
        st = self.h.status()
        f, nxt = st["fault"], st["next"]
        if f and f.get("action"):
            assert f["action"] in st["can"], (f, st["can"], st["state"]["name"])
        if nxt["action"] and self.h.daemon.link.connected:
            assert nxt["action"] in st["can"], (nxt, st["can"], st["state"]["name"])
        for text in (nxt["text"], (f or {}).get("todo") or ""):
            if "then continue" in text and self.h.daemon.link.connected:
                assert "continue" in st["can"], (text, st["can"], st["state"]["name"])

    @invariant()
    def nothing_moves_unasked(self):
        if self.h is None or self.h.daemon.busy():
            return
        driven = self.h.driven()
        assert driven == [], "motors %s run with no step under way (%s)" % (
            driven, self.h.status()["next"]["text"])

    @invariant()
    def builds_conserve_their_decks(self):
        if self.h is None or self.h.daemon.session is None:
            return
        s = self.h.daemon.session
        for b in s.builds:
            if b["ok"]:
                assert sum(b["per_track"]) == s.tiles, b
                assert sum(b["backs"].values()) == s.tiles, b
        if s.mixed_deck and len(s.decks) == 2:
            a, bb = s.decks["A"]["backs"], s.decks["B"]["backs"]
            if "unknown" not in a and "unknown" not in bb:
                for c in s.sets:
                    assert a.get(c, 0) + bb.get(c, 0) == s.tiles, (a, bb)

    # -- the end: back to play from any state -------------------------------------------------
    def teardown(self):
        try:
            if self.h is not None:
                self._back_to_play()
        finally:
            if self.h is not None:
                self.h.close()
            shutil.rmtree(self.tmp, ignore_errors=True)
            if self._config is None:
                os.environ.pop("XDG_CONFIG_HOME", None)
            else:
                os.environ["XDG_CONFIG_HOME"] = self._config

    def _through(self):
        """Until the step is over, doing what people are asked on the way (a person's
        hands for manual players: push the table top in while the centre is open)."""
        d = self.h.daemon
        for _ in range(20):
            self._settle()
            # a table that restarted reconnects by itself: people wait for it, as `next` says
            self.h.settle(until=lambda: d.link.connected, max_s=60)
            code = d.next_step()["code"]
            if code not in ASKING:
                return
            if code == "find_stray":  # every tile up: a person takes the stray out
                try:
                    self.h.sim.hand("take-stray", colour=d.next_step()["params"]["colour"])
                except ValueError:
                    pass  # (none on the top: the build's count will say so)
                self.h.call(d.continue_(), CALL_S)
            elif self.players == "manual" or code == "mixer_short":
                self._person_pushes()
                self.h.call(d.continue_(), CALL_S)
            else:
                self.h.settle(until=lambda: d.next_step()["code"] not in ASKING, max_s=STEP_S)

    def _person_pushes(self):
        """A person pushes the played tiles in, leaving the walls of a hand in play."""
        d = self.h.daemon
        in_play = d.state.hand_in_play() and d.state.name != "preparing"
        self.h.sim.push(1 if in_play else 0)

    def _back_to_play(self):
        h = self.h
        d = h.daemon
        h.settle(until=lambda: d.link.connected, max_s=60)
        h.settle(until=lambda: d.state.name != "aborting", max_s=60)
        _, err = h.call(d.abort(), CALL_S)
        assert err is None, "abort refused: %s" % err
        self._through()
        if d.state.name == "table_fault":
            h.wait_s(2.0)
            _, err = h.call(d.clear_fault(), CALL_S)
            if err is not None:
                return self._must_be_person("clear-fault", err)
        for what in ("start", "hand_over", "hand_over"):
            coro = d.start_session("riichi", True) if what == "start" else d.hand_over()
            _, err = h.call(coro, CALL_S)
            if err is None:
                self._through()
            if err is not None or d.state.name == "stopped":
                h.wait_s(2.0)  # people see what is asked, step back, fix what they can
                if self.players == "manual":
                    self._person_pushes()
                _, err2 = h.call(d.continue_(), CALL_S)  # what the people were asked is done
                self._through()
                if d.session is None or d.state.name == "stopped" or err2 is not None:
                    return self._must_be_person(what, err or err2)
                if what != "start":
                    continue
            assert not d.busy()
        s = d.session
        assert s is not None and s.hand == 2 and s.inside is not None, h.status()["next"]
        STATS["recovered"] += 1

    def _must_be_person(self, what, err):
        nxt = self.h.status()["next"]
        finding = "%s stopped (%s): %s" % (what, err, nxt["text"])
        assert nxt["code"] in PERSON_CODES, "back to play failed with nobody asked to act: " + finding
        assert self.faults or self.players == "manual", "a person was needed with no fault: " + finding
        STATS["person"] += 1
        STATS["findings"].append((self.faults, self.players, nxt["text"][:160]))


class BenchMachine(DaemonMachine):
    """The same table in a builder's hands: the bring-up commands (the self-test, whole or
    one device; a calibration, read however the table is loaded, its classes named in
    either order, named again or swapped) among the session's, in any order.  (The play of
    hands, a daemon restarted and an unplugged cable are DaemonMachine's: shadowed here,
    so the bring-up commands are a good share of the steps.)"""

    dice = new_game = restart_daemon = unplug = None

    def _selftest(self, device):
        STATS["bench"] += 1
        d = self.h.daemon
        answer, err = self._command("selftest", lambda: d.selftest(device), max_s=BENCH_S)
        STATS["selftests"] += err is None

    def _calibrate(self, ask):
        STATS["bench"] += 1
        d = self.h.daemon
        answer, err = self._command("calibrate", lambda: d.calibrate(list(self.h.colours),
                                                                     ask=ask), max_s=BENCH_S)
        STATS["readings"] += bool(err is None and answer.get("ok"))
        st_ = self.h.status()
        if st_["next"]["code"] == "name_sets":  # the reading's classes are shown, to name
            assert len(st_["next"]["params"]["classes"]) == 2 and "name_sets" in st_["can"]

    @rule(device=st.sampled_from((None, "curtain", "gate", "lift", "door", "mixer")))
    def selftest(self, device):
        self._selftest(device)

    @rule(device=st.sampled_from((None, "gate", "lift")))
    def selftest_moving(self, device):  # (twice the chance: the motions leave tiles about)
        self._selftest(device)

    @rule(ask=st.booleans())
    def calibrate(self, ask):
        self._calibrate(ask)

    @rule()
    def calibrate_as_it_comes(self):  # (twice the chance: the scripted form)
        self._calibrate(False)

    @rule(what=st.sampled_from(("plan", "pulse", "pulse", "watch", "write")),
          k=st.integers(0, 63))
    def survey(self, what, k):
        """A move of the wiring survey (plan, one output pulsed, the inputs watched with
        nobody pressing, the pins written as they are), however the table was left."""
        from hostd.boards import boardfile
        from hostd.bringup import survey

        STATS["bench"] += 1
        d = self.h.daemon
        board = (d.table.identity or {}).get("board") or "reference-18"
        profile, _, raw = boardfile.load(board)
        body = {"action": what}
        if what == "pulse":
            chans = survey.channels(profile)
            pulses = survey.pulses(chans[k % len(chans)])
            pin, hold = pulses[(k // len(chans)) % len(pulses)]
            body.update(pin=pin, hold=hold, ms=100)
        elif what == "watch":
            body["ms"] = 200
        elif what == "write":
            body["pins"] = raw["pins"]
        answer, err = self._command("survey", lambda: d.survey(**body), max_s=BENCH_S)
        STATS["surveys"] += err is None

    @rule(first=st.integers(0, 1), swap=st.booleans())
    def name_sets(self, first, swap):
        STATS["bench"] += 1
        d = self.h.daemon
        names = list(self.h.colours) if first == 0 else list(self.h.colours)[::-1]
        if swap:  # accepted in idle by its option, whatever can says
            STATS["steps"] += 1
            answer, err = self.h.call(d.name_sets(swap=True), CALL_S)
            self._settle()
        else:
            answer, err = self._command("name_sets", lambda: d.name_sets(names))
        STATS["named"] += err is None
