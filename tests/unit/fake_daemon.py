"""A stand-in for hostd.core.daemon.Daemon with the same surface (status, the commands of
the one list, subscribe, history, rulesets), for the API's and the MQTT bridge's tests:
its status is a real status (the core's own state, next, can) so the API's response
models check it, and each command records its call and answers as the daemon does (with
`seq` and `next`), or raises what a test set in `raise_next`."""
import asyncio
import threading

from hostd.core.codes import Context, next_step
from hostd.core.commands import COMMANDS, can
from hostd.core.state import State


def status_for(state=None, *, connected=True, session=None, fault=None):
    """A well-formed status (hostd/core/status.py) for `state`."""
    state = state or State("idle", {"walls_inside": False})
    ctx = Context(connected=connected)
    return {"api": 2, "state": dict(state.to_dict(), seq=7, since=1.0e9),
            "next": next_step(state, ctx), "can": can(state, ctx), "fault": fault,
            "table": {"connected": connected, "error": None if connected else "unplugged",
                      "state": "idle" if connected else "disconnected", "fault": None},
            "session": session, "last_end": None}


def command_methods():
    """The daemon's methods the list's handlers call (each handler run on a recorder), for
    stand-ins that answer every command."""
    called = []

    class Recorder:
        def __getattr__(self, name):
            called.append(name)
            return lambda *a, **kw: None

    class AnyRequest:
        def __getattr__(self, name):
            return None

    for c in COMMANDS:
        c.run(Recorder(), AnyRequest())
    return called


class FakeDaemon:
    def __init__(self, events=()):
        self.calls = []
        self.raise_next = None
        self.events = list(events)
        self.subscribed = threading.Event()
        self.unsubscribed = threading.Event()
        self.open_streams = 0
        self.st = status_for()

    def status(self):
        return self.st

    def rulesets(self):
        return [{"name": "riichi", "tiles": 136}, {"name": "wsom", "tiles": 136}]

    def history(self, limit=20, before=None):
        self.calls.append(("history", limit, before))
        return {"sessions": [], "keep_days": 90}

    def table_health(self):
        return {"ok": True, "tracks": [], "flags": []}

    async def _cmd(self, name, **kw):
        self.calls.append((name, kw))
        await asyncio.sleep(0)
        if self.raise_next is not None:
            exc, self.raise_next = self.raise_next, None
            raise exc
        return {"ok": True, "command": name, "seq": 7, "next": self.st["next"]}

    async def start_session(self, ruleset, mixed_deck=False, seed=None, *, replace=False,
                            loaded=False, colours=None):
        return await self._cmd("start_session", ruleset=ruleset, mixed_deck=mixed_deck,
                               seed=seed, replace=replace, loaded=loaded, colours=colours)

    async def hand_over(self):
        return await self._cmd("hand_over")

    async def throw_dice(self, dice=None):
        return await self._cmd("throw_dice", dice=dice)

    async def new_game(self):
        return await self._cmd("new_game")

    async def continue_(self):
        return await self._cmd("continue")

    async def clear_fault(self):
        return await self._cmd("clear_fault")

    async def end_session(self, *, empty=False):
        return await self._cmd("end_session", empty=empty)

    async def abort(self):
        return await self._cmd("abort")

    async def selftest(self, device=None, track=None, write_timings=False):
        return await self._cmd("selftest", device=device, track=track,
                               write_timings=write_timings)

    async def calibrate(self, sets, ruleset="riichi", ask=False):
        return await self._cmd("calibrate", sets=sets, ruleset=ruleset, ask=ask)

    async def name_sets(self, names=None, swap=False):
        return await self._cmd("name_sets", names=names, swap=swap)

    async def survey(self, action, pin=None, hold=None, ms=None, pins=None):
        return await self._cmd("survey", action=action, pin=pin, hold=hold, ms=ms, pins=pins)

    def publish(self, event):  # (the MQTT tests' subscribers)
        for q in list(getattr(self, "_queues", ())):
            q.put_nowait(event)

    async def subscribe(self):
        self.open_streams += 1
        self.subscribed.set()
        q = asyncio.Queue()
        self._queues = getattr(self, "_queues", [])
        self._queues.append(q)
        try:
            for ev in self.events:
                yield ev
            while True:  # then what is published, until the client leaves
                yield await q.get()
        finally:
            self._queues.remove(q)
            self.open_streams -= 1
            self.unsubscribed.set()
