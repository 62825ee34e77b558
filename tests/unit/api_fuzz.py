"""A schemathesis pass over the API's /openapi.json, on a real server (the daemon's own
settings, hostd.web.server) in front of a fake daemon with the real one's answers: unknown
rulesets refused, commands refused while busy, a short event stream.

Used by tests/unit/test_api_fuzz.py (a bounded pass in `make test`) and by
bench/api_fuzz.py (a longer one, with the figures).  ``run_pass(examples)`` returns the
figures: operations, examples sent, responses by status (all, and by operation), failures
(each with its check and the request that found it).
"""
import asyncio
import collections
import os
import socket
import threading
import time

from fake_daemon import status_for
from hostd.core.codes import Context, next_step
from hostd.core.commands import can, takes
from hostd.rules.dice import DiceError, check_dice
from hostd.rules.rulesets import get_ruleset, list_rulesets
from hostd.core.session import check_sets
from hostd.core.state import State
from hostd.errors import BadRequest, NotFound, NotNow, NotReady
from hostd.game.ledger import Ledger
from hostd.web.api import create_app
from hostd.web.server import make_server

TOKEN = "fuzz-token-0123456789-abcdefghij"


class FuzzDaemon:
    """What the API calls, answering as the real daemon does (without a table): the core's
    own state, `next` and `can` decide; a command not in `can` is 409 with the state's
    name, `seq` and `next`; bad parameters are 400."""

    def __init__(self):
        self.state = State("idle", {"walls_inside": False})
        self.seq = 1
        self.session = None
        self.ledgers = {}

    def _set(self, name, **params):
        self.state = State(name, params)
        self.seq += 1

    def _judge(self, command):
        if command not in can(self.state, Context()):
            e = NotNow("%s is not possible now (%s)" % (command, self.state.name),
                       state=self.state.name)
            e.details.update(seq=self.seq, next=next_step(self.state, Context()))
            raise e

    def _answer(self, **data):
        return dict(data, seq=self.seq, next=next_step(self.state, Context()))

    def status(self):
        st = status_for(self.state, session=self._session())
        st["state"]["seq"] = self.seq
        return st

    def _session(self):
        s = self.session
        if s is None:
            return None
        deck = {"where": "inside", "tiles": 136, "backs": {"blue": 68, "green": 68},
                "colours_checked": True}
        return dict(s, sets=["blue", "green"], colours_checked=True, game_hand=s["hand"],
                    split=1, decks={"A": deck, "B": dict(deck, where="mixer")}, games=[],
                    builds=[], hands=[], faults=[], dice=None)

    def history(self, limit=20, before=None):
        return {"sessions": [], "keep_days": 90}

    # the game's ledger: the real one (hostd/game), as the daemon keeps it
    def _ledger(self, game=None):
        if self.session is None:
            raise NotReady("no session is open", code="no_session")
        if game is not None and not 1 <= game <= self.session["game"]:
            raise NotFound("no game %d" % game)
        key = (self.session["ruleset"], game or self.session["game"])
        if key not in self.ledgers:
            self.ledgers[key] = Ledger(self.session["ruleset"])
        return self.ledgers[key]

    def score(self, game=None, session=None):
        return dict(self._ledger(game).state(), game=game or self.session["game"])

    def score_export(self, game=None, session=None):
        return {"session": self.session["id"] if self.session else None,
                "state": self.score(game), "entries": self._ledger(game).entries}

    async def score_entry(self, body):
        return self._ledger().apply(body)

    def rulesets(self):
        return [dict(p.summary(), table={"can_build": True, "why": None})
                for p in list_rulesets()]

    async def start_session(self, ruleset, mixed_deck=False, seed=None, *, replace=False,
                            loaded=False, colours=None):
        profile = get_ruleset(ruleset)  # BadRequest (400) naming what is accepted
        check_sets(colours or ("blue", "green"))  # (the real table also checks the names)
        if not (replace and self.session is not None):
            self._judge("start")
        self.session = {"id": 1, "ruleset": profile.name, "mixed_deck": bool(mixed_deck),
                        "hand": 0, "game": 1}
        self._set("built", deck="A", hand=0, game=1, thrown=False)
        return self._answer(id=1, ruleset=profile.name, mixed_deck=bool(mixed_deck),
                            sets=["blue", "green"])

    async def hand_over(self):
        self._judge("hand_over")
        self.session["hand"] += 1
        self._set("built", deck="B", top="A", hand=self.session["hand"], game=1, thrown=False)
        return self._answer(id=1, hand=self.session["hand"], game=1,
                            game_hand=self.session["hand"], by="api")

    async def throw_dice(self, dice=None):
        if dice is not None and self.session is not None:
            try:
                check_dice(get_ruleset(self.session["ruleset"]), dice)
            except DiceError as e:
                raise BadRequest(str(e), code="bad_dice") from None
        self._judge("dice")
        self._set("built", **dict(self.state.params, thrown=True))
        values = list(dice) if dice is not None else [3, 4]
        return self._answer(hand=self.session["hand"], dice=values, by="api",
                            total=sum(values), text="dice")

    async def abort(self):
        s, self.session = self.session, None
        self._set("idle", walls_inside=False)
        return self._answer(aborted=s["id"] if s else None, confirmed=True)

    async def end_session(self, *, empty=False):
        if not (empty and self.state.name == "idle"):
            self._judge("end")
        s, self.session = self.session, None
        self._set("idle", walls_inside=False)
        return self._answer(ended={"id": s["id"], "how": "ended"} if s else None,
                            emptying=empty)

    async def continue_(self):
        self._judge("continue")

    async def new_game(self):
        self._judge("game_new")
        self.session["game"] += 1
        return self._answer(id=1, game=self.session["game"])

    async def clear_fault(self):
        self._judge("clear_fault")

    def table_health(self):
        return {"builds": 0, "tracks": [], "lift": {"hand_overs": 0}, "flags": [], "ok": True}

    async def selftest(self, device=None, track=None, write_timings=False):
        from hostd.bringup.selftest import check_request

        check_request(device, track, 8)  # 400 before all else, as the real daemon (8 tracks)
        self._judge("selftest")
        return self._answer(devices=[], skipped=[], failed=0, ok=True)

    async def calibrate(self, sets, ruleset="riichi", ask=False):
        get_ruleset(ruleset)  # 400 before anything else, as the real calibration
        self._judge("calibrate")
        return self._answer(ok=False, refused="no table here", tracks=[], names=None,
                            sets=sets, named=False, classes=[])

    async def name_sets(self, names=None, swap=False):
        if (names is None) == (not swap):  # 400 before anything else, as the real daemon
            raise BadRequest("give the names of class 1 and class 2 (names), or swap: true")
        if not (swap and takes("name_sets", self.state, Context(), swap=True)):
            self._judge("name_sets")  # (a swap is taken in idle by its option)
        return self._answer(ok=False, named=False, table="no table here")

    async def survey(self, action, pin=None, hold=None, ms=None, pins=None):
        from hostd.core import bench

        bench.survey(action, pin=pin, hold=hold, ms=ms, pins=pins)  # 400 before all else
        self._judge("survey")
        return self._answer(ok=True, action=action)

    async def subscribe(self):
        for i in range(3):
            yield {"type": "build_progress", "build": 1, "tiles": i, "of": 136}
            await asyncio.sleep(0)


class ServerThread:
    """The daemon's server (hostd/web/server.py) for `app` on a free loopback port, in a
    thread; ``kw`` overrides its settings (make_server's)."""

    def __init__(self, app, **kw):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.server = make_server(app, **dict({"log_level": "info"}, **kw))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)

    def __enter__(self):
        self.thread.start()
        deadline = time.time() + 10
        while not self.server.started:
            assert time.time() < deadline, "uvicorn did not start"
            time.sleep(0.02)
        return "http://127.0.0.1:%d" % self.port

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


def _integer_as_float(body):
    """A whole number written as a float (42.0) in the body: JSON Schema calls it an
    integer, this API (strict) refuses it."""
    if isinstance(body, dict):
        return any(_integer_as_float(v) for v in body.values())
    if isinstance(body, list):
        return any(_integer_as_float(v) for v in body)
    return isinstance(body, float) and body.is_integer()


def run_pass(examples, seed=0):
    import hypothesis
    import hypothesis.errors
    import requests
    import schemathesis
    from schemathesis.checks import CHECKS

    app = create_app(FuzzDaemon(), token=TOKEN, bind_host="127.0.0.1")
    figures = {"operations": 0, "examples": 0, "statuses": collections.Counter(),
               "failures": [], "integer_as_float_refused": 0, "hand_notation_refused": 0,
               "ruleset_dice_refused": 0,
               "by_mode": collections.Counter(),
               "by_operation": collections.defaultdict(collections.Counter)}
    with ServerThread(app) as base:
        schema = schemathesis.openapi.from_url(base + "/openapi.json")
        session = requests.Session()
        ops = [r.ok() for r in schema.get_all_operations()]
        figures["operations"] = len(ops)
        for op, mode in [(op, mode) for op in ops for mode in schemathesis.GenerationMode]:

            @hypothesis.settings(max_examples=examples, deadline=None, database=None,
                                 derandomize=seed is not None,
                                 suppress_health_check=list(hypothesis.HealthCheck),
                                 phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate])
            @hypothesis.given(case=op.as_strategy(generation_mode=mode))
            def run(case):
                figures["examples"] += 1
                figures["by_mode"][mode.value] += 1
                try:
                    resp = case.call_and_validate(
                        base_url=base, session=session, timeout=10,
                        headers={"Authorization": "Bearer " + TOKEN})
                    figures["statuses"][resp.status_code] += 1
                    figures["by_operation"][op.label][resp.status_code] += 1
                except (Exception, BaseExceptionGroup) as e:  # a check failed: keep it
                    if _integer_as_float(case.body) and "Schema-valid request rejected" in str(e):
                        # JSON Schema counts 42.0 as an integer; this API wants 42 (strict)
                        figures["integer_as_float_refused"] += 1
                        return
                    if op.label == "POST /dice" and "Schema-valid request rejected" in str(e) \
                            and "bad_dice" in str(e):
                        # the session's ruleset says which dice (2d6, 3d6 or 1d20): the
                        # schema can only say 1 to 3 dice of 1..20
                        figures["ruleset_dice_refused"] += 1
                        return
                    if op.label in ("POST /hand/check", "POST /hand/score") and \
                            "Schema-valid request rejected" in str(e) and "[400]" in str(e) \
                            and "bad_request" in str(e):
                        # any string is a schema-valid hand or call; the notation, the
                        # tile count, the copies, the calls (and backs that must add up
                        # to the hand) are checked by the analyser, the win (a complete
                        # hand, its tile, winds, flags) by the scorer: 400 with its message
                        figures["hand_notation_refused"] += 1
                        return
                    figures["failures"].append({
                        "operation": op.label, "check": type(e).__name__,
                        "message": str(e)[:2000]})

            try:
                run()
            except hypothesis.errors.Unsatisfiable:
                pass  # nothing negative to say about an operation without parameters
    figures["statuses"] = dict(sorted(figures["statuses"].items()))
    figures["by_mode"] = dict(figures["by_mode"])
    figures["by_operation"] = {k: dict(sorted(v.items()))
                               for k, v in sorted(figures["by_operation"].items())}
    figures["checks"] = len(CHECKS.get_all()) if hasattr(CHECKS, "get_all") else None
    return figures


#: the checks of issue 30's judgement (schemathesis's names)
STATEFUL_CHECKS = ("not_a_server_error", "status_code_conformance", "content_type_conformance",
                   "response_schema_conformance", "response_headers_conformance")


def run_cli(examples, folder, *, phases="stateful", seed=1, checks=STATEFUL_CHECKS,
            mode="all", timeout=240):
    """schemathesis's own command line (`schemathesis run`) against the API on a real
    server, as someone checking the API would run it: ``phases`` (the stateful one follows
    the document's links: start -> status -> commands), ``checks``, ``examples`` per
    operation, in ``folder`` (its caches go there, no database); ``mode``: all, positive
    (valid bodies only: a scenario then goes further along the links) or negative.
    Returns the figures:
    exit code, scenarios, links covered and in the document, test cases, and its report's
    last lines."""
    import re
    import subprocess
    import sys

    exe = os.path.join(os.path.dirname(sys.executable), "schemathesis")
    app = create_app(FuzzDaemon(), token=TOKEN, bind_host="127.0.0.1")
    with ServerThread(app) as base:
        t0 = time.monotonic()
        p = subprocess.run(
            [exe, "run", base + "/openapi.json", "--phases", phases, "--checks", ",".join(checks),
             "--max-examples", str(examples), "--seed", str(seed), "--workers", "1",
             "--mode", mode,
             "--generation-database", "none", "--no-color",
             "-H", "Authorization: Bearer " + TOKEN],
            cwd=str(folder), capture_output=True, text=True, timeout=timeout,
            env=dict(os.environ, SCHEMATHESIS_HOOKS=""))
        seconds = time.monotonic() - t0
    out = p.stdout + p.stderr

    def number(pattern):
        m = re.search(pattern, out)
        return tuple(int(g) for g in m.groups()) if m else None

    return {"exit": p.returncode, "seconds": seconds,
            "scenarios": number(r"Scenarios:\s+(\d+)"),
            "links": number(r"API Links:\s+(\d+) covered / \d+ selected / (\d+) total"),
            "cases": number(r"(\d+) generated, (\d+) passed"),
            # warnings (data it found no way to make, say) do not fail; a failed check does
            "issues": p.returncode != 0 or re.search(r"\d+ (failure|error)s?\b", out) is not None,
            "report": out[-6000:]}
