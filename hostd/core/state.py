"""The table's one state (layer: session): a name from a small closed set and its
parameters, changed only by :meth:`Machine.set`, which follows the transition table.

Where the decks are (:func:`where`) is a function of the state; so are what happens next
(hostd/core/codes.py) and which commands are accepted (hostd/core/commands.py).  The
daemon holds one :class:`Machine` for its life: between sessions it says what the table
is doing without one (idle, a fault the table reports, a self-test, emptying, an abort
waiting for the table); within a session, where the tiles are and what the session waits
for.  docs/FAULTS.md's table of every action from each state is made from these tables
(a test checks it).

Parameters change only with the state: a deadline is an absolute time (``until``, Unix
seconds), never a countdown, so two looks at one state agree.  ``Machine.seq`` counts
every change of state or parameters, and of the table's connection (which changes what
is accepted); every answer carries the ``seq`` it was judged in.
"""
import re
import time
import types
from enum import StrEnum
from typing import Any, Literal, Optional


DECKS = ("A", "B")
UNKNOWN = "unknown"
PLACES = ("top", "inside", "lift", "mixer", "split", UNKNOWN)


class Stage(StrEnum):
    """Where a state is at (its ``stage`` parameter).  Its values are the strings on the
    wire and in the journal: a StrEnum serialises as them, and old journals read back."""

    START = "start"  # preparing: the starting position is being reached
    RAISE = "raise"  # walls on their way up (emptying, preparing, hand_over, a swap)
    PUSH = "push"  # the centre is open while people push tiles in (preparing, building)
    BUILD = "build"  # a deck is being built inside (building, a swap)
    SETTLE = "settle"  # hand_over: the hand has begun, the lift goes back down
    DRAIN = "drain"  # the mixer's tiles go onto the tracks (emptying, a swap)
    CLEAR_TOP = "clear_top"  # emptying: people take the tiles on the table top out
    WAITING = "waiting"  # recovering: at the next hand over
    RESPLIT = "resplit"  # recovering: both decks split again now
    HAND_OVER = "hand_over"  # recovering: the hand over a resplit waited for is under way
    DROP = "drop"  # recovering (swap): the untrusted deck drops into the mixer
    FIND = "find"  # preparing: people find a stray tile on the table top (the centre shut)


# -- each state's parameters: a frozen model whose values are checked -------------------------
# The types are plain typing (the CLI loads this module and stays light: pydantic is
# imported when the first state is made: tests/unit/test_cli_errors.py, help stays light).

Deck = Literal[DECKS]
Place = Literal[PLACES]
Places = Optional[dict[Deck, Place]]
Count = Optional[int]  # its least value in COUNTS
Until = Optional[int | float]  # an absolute time, Unix seconds
By = Optional[Literal["button", "api"]]  # who asked for the hand over

#: state -> its parameters, in order, each with its type (all null unless given)
#: what people push into the open centre during a self-test or a calibration (bench)
BENCH_PUSHES = ("test_tiles", "other_set", "walls", "test_rod")
#: what a calibration's reading waits for (idle's ``reading``): its two classes named, or
#: named already (kept: they can be named again without reading again)
READINGS = ("unnamed", "named")

PARAM_TYPES = {
    "idle": (("walls_inside", Optional[bool]), ("where", Places),
             ("reading", Optional[Literal[READINGS]])),
    "table_fault": (("kind", Optional[str]), ("track", Count)),
    "bench": (("what", Optional[Literal["selftest", "calibrate", "survey"]]),
              ("stage", Optional[Literal[Stage.PUSH]]),
              ("push", Optional[Literal[BENCH_PUSHES]]), ("tiles", Count), ("until", Until)),
    "emptying": (("stage", Optional[Literal[Stage.RAISE, Stage.DRAIN, Stage.CLEAR_TOP]]),
                 ("round", Count), ("tiles", Count), ("until", Until)),
    "aborting": (("session", Count),),
    "preparing": (("game", Count), ("stage", Optional[Literal[Stage.START, Stage.RAISE,
                                                               Stage.FIND, Stage.PUSH]]),
                  ("until", Until), ("before", Places),
                  ("reason", Optional[Literal["mixer_short", "stray"]]),
                  ("colour", Optional[str]),
                  ("raise_walls", Optional[bool]), ("push_window", Optional[bool])),
    "building": (("deck", Optional[Deck]), ("top", Optional[Deck]), ("hand", Count),
                 ("game", Count), ("thrown", Optional[bool]),
                 ("stage", Optional[Literal[Stage.BUILD, Stage.PUSH]]), ("until", Until)),
    "built": (("deck", Optional[Deck]), ("top", Optional[Deck]), ("hand", Count),
              ("game", Count), ("thrown", Optional[bool])),
    "hand_over": (("raising", Optional[Deck]), ("dropping", Optional[Deck]), ("hand", Count),
                  ("game", Count), ("thrown", Optional[bool]),
                  ("stage", Optional[Literal[Stage.RAISE, Stage.SETTLE]]), ("by", By)),
    "stopped": (("step", Optional[str]), ("kind", Optional[str]), ("track", Count),
                ("deck", Optional[Deck]), ("hand", Count), ("game", Count),
                ("thrown", Optional[bool]), ("fault", Optional[dict[str, Any]]),
                ("resume", Optional[dict[str, Any]])),
    "recovering": (("kind", Optional[Literal["resplit", "swap"]]),
                   ("stage", Optional[Literal[Stage.WAITING, Stage.RESPLIT, Stage.HAND_OVER,
                                              Stage.DRAIN, Stage.RAISE, Stage.BUILD,
                                              Stage.DROP]]),
                   ("deck", Optional[Deck]), ("top", Optional[Deck]), ("hand", Count),
                   ("game", Count), ("thrown", Optional[bool]),
                   ("faults", Optional[list[Optional[int]]]), ("ready", Optional[bool]),
                   ("known", Optional[list[int]]), ("by", By)),
}
#: the least value of a count: a track, a game and a session from 1, the others from 0
COUNTS = {"hand": 0, "round": 0, "tiles": 0, "track": 1, "game": 1, "session": 1}
_MODELS = {}


def params_model(name):
    """State ``name``'s parameters as a frozen pydantic model (made on first use)."""
    model = _MODELS.get(name)
    if model is None:
        import pydantic

        def counts(cls, v, info):
            if v is not None and v < COUNTS[info.field_name]:
                raise ValueError("must be %d or more" % COUNTS[info.field_name])
            return v

        fields = dict(PARAM_TYPES[name])
        checked = [f for f in fields if f in COUNTS]
        validators = {"counts": pydantic.field_validator(*checked)(counts)} if checked else {}
        model = _MODELS[name] = pydantic.create_model(
            "%sParams" % "".join(w.title() for w in name.split("_")),
            __config__=pydantic.ConfigDict(frozen=True, extra="forbid"),
            __validators__=validators,
            **{f: (t, None) for f, t in fields.items()})
    return model


#: every state, what it means (docs/API.md "States")
MEANS = {
    "idle": "no session is open; `where` is where the last session left the decks; "
            "`reading`: a calibration's reading is kept, its two back colours `unnamed` "
            "(people say which is which) or `named` (they can be named again)",
    "table_fault": "no session is open and the table reports a fault that a person must fix",
    "bench": "a self-test or a calibration runs (no session); stage push: the centre is open "
             "while people push in `push` (test_tiles: the `tiles` the self-test raised; "
             "test_rod: no push, a person holds the stop test's rod ready and says so; "
             "other_set: the set on the table top; walls: the walls just read), until "
             "`until` or continue",
    "emptying": "`session end --empty`: every tile comes up to the table top, a round at a "
                "time (stage raise, drain, clear_top: people take the tiles out)",
    "aborting": "an abort waits for the table to confirm it",
    "preparing": "a session (or a Mixed Deck game) is brought to its starting position: stage "
                 "start, raise (the walls inside come up), find (reason stray: people take a "
                 "tile not of the sets, its back `colour`, off the table top, until continue), "
                 "push (the centre is open while people push every tile in, until `until`, or "
                 "until continue when it is null); `raise_walls` and `push_window`: what is "
                 "still to do (a stop carries on from there)",
    "building": "deck `deck` is being built inside while deck `top` (if any) is played; stage "
                "push: the centre is open while people push the rest of its tiles in",
    "built": "deck `deck` is built inside; hand `hand` (0: none yet) is played on deck `top`",
    "hand_over": "the hand over of hand `hand` (`by`: who asked, button or api): stage raise "
                 "(the walls on their way up, the played deck dropping), settle (the hand has "
                 "begun; the lift goes down)",
    "stopped": "a fault or a refusal stopped `step`; `resume` is the state it carries on "
               "from once people fixed it",
    "recovering": "after a table restart the walls inside are not trusted: kind resplit (Mixed "
                  "Deck: both decks split again) or swap (the normal rotation); stage waiting: "
                  "at the next hand over (`by`: who asked for it, once asked)",
}

#: every state: its parameters' names and what it means (docs/FAULTS.md's table)
STATES = {name: (tuple(f for f, _ in PARAM_TYPES[name]), means)
          for name, means in MEANS.items()}

SESSION_STATES = ("preparing", "building", "built", "hand_over", "stopped", "recovering")
_ANY_SESSION = ("idle", "aborting")  # every session state may end (end, abort, replace)

#: state -> the states it may change to (itself: a change of parameters)
TRANSITIONS = {
    # (idle -> building: a session on a table loaded as it starts, the demo's)
    "idle": ("idle", "table_fault", "bench", "emptying", "aborting", "preparing", "building"),
    "table_fault": ("idle", "table_fault", "bench", "aborting", "emptying"),
    "bench": ("bench", "idle", "table_fault", "aborting"),
    "emptying": ("emptying", "idle", "table_fault", "aborting"),
    "aborting": ("aborting", "idle", "table_fault"),
    "preparing": ("preparing", "building", "built", "stopped", "recovering") + _ANY_SESSION,
    "building": ("building", "built", "preparing", "stopped", "recovering") + _ANY_SESSION,
    "built": ("built", "hand_over", "preparing", "recovering", "stopped") + _ANY_SESSION,
    "hand_over": ("hand_over", "building", "stopped", "recovering") + _ANY_SESSION,
    "stopped": ("stopped", "preparing", "building", "built", "hand_over", "recovering")
    + _ANY_SESSION,
    "recovering": ("recovering", "building", "built", "hand_over", "stopped") + _ANY_SESSION,
}


_STAGE_REPR = re.compile(r"<Stage\.[A-Z_]+: '([a-z_]+)'>")  # a stage in an error: its string


def _check_resume(resume):
    """A stop's ``resume``: the state it carries on from, a state of its own (never a stop)."""
    if resume.get("name") == "stopped":
        raise ValueError("a stop resumes a state that is not a stop")
    State.from_dict(resume)  # its name and parameters checked


class IllegalTransition(RuntimeError):
    """The code tried a change of state the transition table does not allow: a bug."""


class State:
    """One state: ``name`` and its ``params``, checked by the state's model
    (:func:`params_model`: a frozen pydantic model, each value of the right kind) and
    read-only (a mapping of JSON values; a stage is a :class:`Stage`, which is its
    string): :meth:`with_` makes a changed copy."""

    __slots__ = ("name", "model", "params")

    def __init__(self, name, params=None):
        if name not in STATES:
            raise ValueError("no state %r; the states are %s" % (name, ", ".join(STATES)))
        allowed = STATES[name][0]
        params = dict(params or {})
        extra = sorted(set(params) - set(allowed))
        if extra:
            raise ValueError("state %s has no parameter %s (it has %s)"
                             % (name, ", ".join(extra), ", ".join(allowed)))
        try:
            self.model = params_model(name).model_validate(params)
            if name == "stopped" and self.model.resume is not None:
                _check_resume(self.model.resume)
        except ValueError as e:  # (pydantic's ValidationError is one)
            if not hasattr(e, "errors"):
                raise ValueError("state %s: resume: %s" % (name, e)) from None
            raise ValueError("state %s: %s" % (name, "; ".join(
                "%s: %s (got %r)" % (".".join(str(x) for x in err["loc"]),
                                     _STAGE_REPR.sub(r"'\1'", err["msg"]), err.get("input"))
                for err in e.errors()))) from None
        self.name = name
        self.params = types.MappingProxyType(
            {k: getattr(self.model, k) for k in allowed})

    def __getitem__(self, key):
        return self.params[key]

    def get(self, key, default=None):
        v = self.params.get(key)
        return default if v is None else v

    def with_(self, **changes):
        return State(self.name, dict(self.params, **changes))

    def __eq__(self, other):
        return isinstance(other, State) and (self.name, dict(self.params)) == (
            other.name, dict(other.params))

    def __repr__(self):
        return "State(%r, %r)" % (self.name, self.to_dict()["params"])

    def to_dict(self):
        return {"name": self.name, "params": _plain(self.params)}

    @classmethod
    def from_dict(cls, d):
        return cls(d["name"], d.get("params") or {})

    @property
    def in_session(self):
        return self.name in SESSION_STATES

    def hand_in_play(self):
        """The hand whose walls are on the table top (its number), or 0."""
        s = self.name == "stopped" and self.params.get("resume")
        st = State.from_dict(s) if s else self
        if st.name == "hand_over":
            return st["hand"] if st["stage"] == Stage.SETTLE else 0
        if st.name in ("building", "built", "recovering"):
            return st.get("hand", 0) if st.get("top") else 0
        return 0


def _plain(v):
    if isinstance(v, StrEnum):
        return v.value
    if isinstance(v, (dict, types.MappingProxyType)):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


class Machine:
    """The one state and its setter.  ``on_change(state, seq)`` is called after every
    change (the daemon journals the session's states and publishes a ``state`` event)."""

    def __init__(self, on_change=None, state=None):
        self.state = state or State("idle", {"walls_inside": False})
        self.seq = 1
        self.changed_at = time.time()
        self._on_change = on_change or (lambda state, seq: None)

    def check(self, name):
        """IllegalTransition unless the table lets the state change to ``name`` now."""
        if name not in TRANSITIONS[self.state.name]:
            raise IllegalTransition("%s -> %s is not in the transition table"
                                    % (self.state.name, name))

    def set(self, name, **params):
        """Change to ``name`` with ``params`` (those not given are null).  A change the
        transition table does not list raises IllegalTransition; the same state with the
        same parameters changes nothing."""
        new = State(name, params)
        if new == self.state:
            return new
        self.check(name)
        self.state = new
        self._changed()
        return new

    def update(self, **changes):
        """The same state with some parameters changed."""
        return self.set(self.state.name, **dict(self.state.params, **changes))

    def restore(self, state):
        """The state a restarted daemon found in the journal (no transition: it is where
        the last run left off)."""
        self.state = state
        self._changed()

    def bump(self):
        """Something that changes what is accepted without changing the state (the
        table's connection): the seq moves on, so no answer is judged on a stale view."""
        self._changed()

    def _changed(self):
        self.seq += 1
        self.changed_at = time.time()
        self._on_change(self.state, self.seq)


def where(state):
    """Where each deck is in ``state``: {"A": place, "B": place} with places from PLACES
    (docs/FAULTS.md "People and the lifecycle"), or {} with no session."""
    p = state.params
    if state.name == "stopped":
        return where(State.from_dict(p["resume"])) if p.get("resume") else {}
    if state.name in ("idle",):
        return dict(p.get("where") or {})
    if state.name == "preparing":
        return dict(p.get("before") or {d: UNKNOWN for d in DECKS})
    places = {}
    if state.name == "building":
        places = {p["deck"]: "split", p.get("top"): "top"}
    elif state.name == "built":
        places = {p["deck"]: "inside", p.get("top"): "top"}
    elif state.name == "hand_over":
        up = "lift" if p["stage"] == Stage.RAISE else "top"
        places = {p["raising"]: up, p.get("dropping"): "mixer"}
    elif state.name == "recovering":
        places = _recovering_where(p)
    else:
        return {}
    return {d: places.get(d, "mixer") for d in DECKS}


def _recovering_where(p):
    x, top = p.get("deck"), p.get("top")
    if p["kind"] == "resplit":
        return {top: "top", x: UNKNOWN} if top else {d: UNKNOWN for d in DECKS}
    y = other(x) if x else None
    stage = p.get("stage")
    if stage in (Stage.WAITING, Stage.DRAIN, Stage.RAISE):
        return {x: UNKNOWN, y: "top" if top == y else "mixer"}
    if stage == Stage.BUILD:
        return {x: "top", y: "split"}
    return {x: "top", y: "inside"}  # drop: X goes back in


def other(deck):
    return "B" if deck == "A" else "A"
