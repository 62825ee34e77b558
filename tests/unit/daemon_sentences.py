"""The daemon's sentences a person meets on the page, gathered from real runs of the daemon
against the in-process table (tests/unit/daemon_harness.py): `next`, what people are
asked, a stop's message and what to do, fault messages, events' messages and refusals.
The page's translations (hostd/web/page/words.js) are checked against them
(tests/unit/test_page_words.py): a new sentence without a translation fails there.
"""
import contextlib

from daemon_harness import Harness

# faults that stop a session, each met by its own run (docs/FAULTS.md)
STOPS = ("jam:build=1,track=2,count=0", "missing-tile:build=2,count=1",
         "missing-tile:build=2,count=40", "extra-tile:build=2", "gate-slow:build=1,track=3",
         "misread:build=1,count=0,rate=0.5", "lift-stall:build=1",
         "limit-stuck:build=1,switch=top,state=open", "guard:build=1,during=lift",
         "reset:build=1,after=50", "dead-gate:track=2", "unplug:build=1,after=40,ms=3000")


# the events' fields the page shows (hostd/web/page/words.js `log`)
EVENT_WORDS = ("message", "reason", "detail", "why", "did", "ask")


class Sentences:
    def __init__(self, h):
        self.h = h
        self.seen = set()
        publish = h.daemon.publish

        def heard(event):  # every event the daemon publishes, as the page would get it
            self.add(*(event.get(k) for k in EVENT_WORDS if isinstance(event.get(k), str)))
            return publish(event)

        h.daemon.publish = heard

    def look(self):
        st = self.h.status()
        self.add(st["next"])
        s = st["session"] or {}
        self.add(s.get("asking"))
        for f in s.get("faults") or ():
            self.add(f.get("message"))
        stopped = s.get("stopped") or {}
        self.add(stopped.get("message"), stopped.get("ask"))
        fault = (st["table"] or {}).get("fault") or {}
        self.add(fault.get("message"))

    def add(self, *texts):
        self.seen.update(t for t in texts if t)

    def call(self, coro):
        answer, err = self.h.call(coro)
        self.add(str(err) if err is not None else None)
        if isinstance(answer, dict):
            self.add(answer.get("next"))
        self.look()
        return answer, err

    def press(self, button):
        """The table's start or dice button, pressed by a person."""
        self.h.sim.press(button)
        self.h.settle(max_s=60)
        self.look()

    def settle(self):
        self.h.settle()
        self.look()


@contextlib.contextmanager
def _run(tmp_path, out, faults=()):
    """A daemon on a Mixed Deck loaded table (with `faults`): what it says goes to `out`."""
    tmp_path.mkdir()
    h = Harness(tmp_path, seed=3, faults=faults, mixed_loading=True)
    try:
        w = Sentences(h)
        yield w, h, h.daemon
        out |= w.seen
    finally:
        h.close()


def _evening(tmp_path, out):
    with _run(tmp_path, out) as (w, h, d):
        w.call(d.hand_over())  # no session
        w.call(d.throw_dice())
        w.call(d.continue_())
        w.call(d.clear_fault())
        w.call(d.end_session())
        w.call(d.new_game())
        w.call(d.start_session("riichi", True, colours=("blue", "pink")))
        w.call(d.start_session("riichi", True, colours=("Blue", "green")))
        w.call(d.start_session("riichi", True, colours=("blue",)))
        w.call(d.start_session("riichi", True))
        w.look()
        w.call(d.start_session("riichi", True))  # one is open
        w.call(d.hand_over())  # busy
        w.press("start")  # busy: refused
        w.settle()
        w.press("start")  # the hand over
        w.press("dice")
        w.call(d.throw_dice())  # no walls up yet
        for n in range(3):
            w.call(d.hand_over())
            w.look()
            w.settle()
            if n == 0:  # entered faces the ruleset cannot throw
                w.call(d.throw_dice([7, 1]))
                w.call(d.throw_dice([3]))
            w.call(d.throw_dice())
            w.call(d.throw_dice())  # once a hand
        w.call(d.new_game())
        h.settle(until=lambda: h.status()["session"]["asking"], max_s=60)
        w.look()
        w.call(d.continue_())
        w.settle()
        w.call(d.end_session())
        w.settle()
        w.call(d.start_session("riichi", False))  # mixed by Mixed Deck: refused
        w.call(d.start_session("riichi", True))
        h.settle(until=lambda: h.status()["session"]["asking"], max_s=60)
        w.call(d.abort())
        w.settle()
        w.call(d.end_session(empty=True))
        h.settle(until=lambda: d.asking, max_s=120)
        w.look()
        w.call(d.continue_())
        w.settle()


def _stop(tmp_path, spec, out):
    with _run(tmp_path, out, faults=(spec,)) as (w, _, d):
        w.call(d.start_session("riichi", True))
        w.settle()
        for _ in range(2):
            w.call(d.hand_over())
            w.settle()
        w.call(d.clear_fault())
        w.call(d.continue_())
        w.settle()
        w.call(d.hand_over())
        w.settle()


def gather(tmp_path):
    out = set()
    _evening(tmp_path / "evening", out)
    for i, spec in enumerate(STOPS):
        _stop(tmp_path / ("stop%d" % i), spec, out)
    return sorted(out)
