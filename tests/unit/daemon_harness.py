"""The real daemon (hostd.core.daemon.Daemon) against the in-process simulated table, in
virtual time: for the daemon's tests and the model-based test.

    h = Harness(tmp_path, seed=3, faults=(), players="auto", loading="normal")
    h.run(h.daemon.start_session("riichi", True))   # a command: its answer or its error
    h.settle()                                     # until nothing moves (bounded)
"""
import asyncio

from hostd.core.daemon import Daemon
from hostd.table.sim import board_profile
from hostd.cli.demo import sim_sets
from hostd.core.journal import Journal
from hostd.rules.rulesets import get_ruleset
from hostd.table.transport import InProcessTransport
from hw_sim.inprocess import InProcessTable

MOVING = ("mixer_pwm", "lift_pwm", "door_pwm")


class Harness:
    def __init__(self, tmp_path, *, seed=3, faults=(), players="auto", mixed_loading=False,
                 push_window=3.0, ruleset="riichi", colours=None, sim=None, board=None,
                 firmware_profile=None):
        self.loop = asyncio.new_event_loop()
        self.db = str(tmp_path / ("journal-%d.sqlite" % seed))
        self.colours = colours or ("blue", "green")  # the sets loaded, and the daemon's default
        self.daemon_colours = self.colours  # (None: the daemon takes the table's, `run` without --colours)
        profile = get_ruleset(ruleset)
        if board is None:  # (a board profile: the table is wired as it says)
            board = board_profile(29 if profile.stacks_per_wall > 18 else None)  # as the demo's
        self.sim = InProcessTable(board, sim_sets(profile, self.colours),
                                  seed=seed,
                                  faults=tuple(faults), mixed_deck=mixed_loading,
                                  keep_builds=4, players=players, sim=sim,
                                  firmware_profile=firmware_profile)
        self.push_window = push_window
        self.seed = seed
        self.daemon = None
        self.boot()

    def boot(self):
        """A daemon (again, after a restart) on the same journal and table."""
        self.journal = Journal(self.db)
        self.transport = InProcessTransport(self.sim)
        self.daemon = Daemon(transport=self.transport, journal=self.journal, seed=self.seed,
                             push_window=self.push_window, colours=self.daemon_colours)
        self.run(self.daemon.start())
        self.settle(until=lambda: self.daemon.link.connected, max_s=30)

    def restart(self):
        self.run(self.daemon.close())
        self.boot()

    def close(self):
        if self.daemon is not None:
            self.run(self.daemon.close())
            self.daemon = None
        self.loop.close()

    def run(self, coro, max_s=60.0):
        """A command: returns (answer, None) or (None, the JantakuError it raised), within
        `max_s` simulated seconds (else AssertionError: a hang)."""
        async def go():
            task = asyncio.ensure_future(coro)
            t0 = self.sim.now_ms()
            while not task.done():
                await asyncio.sleep(0)
                if self.sim.now_ms() - t0 > max_s * 1000:
                    task.cancel()
                    raise AssertionError("no answer within %g simulated s" % max_s)
            return task.result()

        return self.loop.run_until_complete(go())

    def call(self, coro, max_s=60.0):
        from hostd.errors import JantakuError

        try:
            return self.run(coro, max_s), None
        except JantakuError as e:
            return None, e

    def settle(self, until=None, max_s=300.0):
        """Until the daemon's step is over (or `until()` holds), within `max_s` simulated
        seconds; returns the simulated seconds it took."""
        d = self.daemon

        async def go():
            t0 = self.sim.now_ms()
            while True:
                done = until() if until is not None else not d.busy()
                if done:
                    return (self.sim.now_ms() - t0) / 1000.0
                if self.sim.now_ms() - t0 > max_s * 1000:
                    raise AssertionError("still busy after %g simulated s: %s" % (
                        max_s, d.status()["next"]))
                await asyncio.sleep(0)

        return self.loop.run_until_complete(go())

    def wait_s(self, seconds):
        t0 = self.sim.now_ms()
        self.settle(until=lambda: self.sim.now_ms() - t0 >= seconds * 1000, max_s=seconds + 5)

    def status(self):
        return self.daemon.status()

    def driven(self):
        return [n for n in self.sim.table.driven() if n in MOVING]
