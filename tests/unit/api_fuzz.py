"""A schemathesis pass over the API's /openapi.json, on a real server (the daemon's own
settings, hostd.server) in front of a fake daemon with the real one's answers: unknown
rulesets refused, commands refused while busy, a short event stream.

Used by tests/unit/test_api_fuzz.py (a bounded pass in `make test`) and by
bench/api_fuzz.py (a longer one, with the figures).  ``run_pass(examples)`` returns the
figures: operations, examples sent, responses by status (all, and by operation), failures
(each with its check and the request that found it).
"""
import asyncio
import collections
import socket
import threading
import time

from hostd.api import create_app
from hostd.errors import NotReady
from hostd.rulesets import get_ruleset, list_rulesets
from hostd.session import check_sets
from hostd.server import make_server

TOKEN = "fuzz-token-0123456789-abcdefghij"


class FuzzDaemon:
    """What the API calls, answering as the real daemon does (without a table)."""

    def __init__(self):
        self.session = None
        self.busy = False

    def status(self):
        return {"table": {"connected": True, "state": "idle", "build": None, "fault": None},
                "session": self.session}

    def history(self, limit=20, before=None):
        return {"sessions": [], "keep_days": 90}

    def rulesets(self):
        return [dict(p.summary(), table={"can_build": True, "why": None})
                for p in list_rulesets()]

    async def start_session(self, ruleset, mixed_deck=False, seed=None, *, replace=False,
                            loaded=False, colours=None):
        profile = get_ruleset(ruleset)  # BadRequest (400) naming what is accepted
        check_sets(colours or ("blue", "green"))  # (the real table also checks the names)
        if self.busy:
            raise NotReady("the table is busy (build): wait for it to finish or abort")
        if self.session is not None and not replace:
            raise NotReady("session 1 is open: end it with `jantaku session end`",
                           code="session_open")
        self.session = {"id": 1, "ruleset": profile.name, "mixed_deck": mixed_deck, "hand": 0}
        return {"id": 1, "ruleset": profile.name, "mixed_deck": bool(mixed_deck),
                "state": "building"}

    async def hand_over(self):
        if self.session is None:
            raise NotReady("no session: start one with `jantaku session start --ruleset R`")
        self.session["hand"] += 1
        return {"id": 1, "hand": self.session["hand"], "state": "hand_over"}

    async def abort(self):
        s, self.session = self.session, None
        return {"aborted": s["id"] if s else None}

    async def end_session(self, *, empty=False):
        if self.session is None and not empty:
            raise NotReady("no session is open", code="no_session")
        s, self.session = self.session, None
        return {"ended": {"id": s["id"], "how": "ended"} if s else None, "emptying": empty}

    async def continue_(self):
        raise NotReady("nothing waits for people", code="nothing_to_continue")

    async def throw_dice(self, values=None, by="api"):
        if self.session is None or not self.session["hand"]:
            raise NotReady("no walls are up for a hand yet", code="no_hand")
        values = list(values) if values is not None else [3, 4]
        return {"hand": self.session["hand"], "dice": values, "by": by, "total": sum(values)}

    async def new_game(self):
        if self.session is None:
            raise NotReady("no session: start one with `jantaku session start --ruleset R`",
                           code="no_session")
        self.session["game"] = self.session.get("game", 1) + 1
        return {"id": 1, "game": self.session["game"], "state": "new_game"}

    async def clear_fault(self):
        raise NotReady("the table has no fault to clear", code="no_fault")

    def table_health(self):
        return {"builds": 0, "tracks": [], "lift": {"hand_overs": 0}, "flags": [], "ok": True}

    async def bench_step(self, name, work):
        """A self-test or calibration (hostd/bringup.py): refused while a session is open,
        as the real daemon does; otherwise an empty report (no table here)."""
        if self.session is not None:
            raise NotReady("session %s is open: end it first" % self.session["id"],
                           code="session_open")
        return {"devices": [], "skipped": [], "failed": 0, "ok": True, "step": name}

    async def subscribe(self):
        for i in range(3):
            yield {"type": "build_progress", "build": 1, "tiles": i, "of": 136}
            await asyncio.sleep(0)


class ServerThread:
    def __init__(self, app):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.server = make_server(app, log_level="info")
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
                    if op.label == "POST /hand/check" and "Schema-valid request rejected" in \
                            str(e) and "[400]" in str(e) and "bad_request" in str(e):
                        # any string is a schema-valid hand or call; the notation, the
                        # tile count, the copies, the calls (and backs that must add up
                        # to the hand) are checked by the analyser: 400 with its message
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
