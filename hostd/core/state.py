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
import time

#: every state, its parameters and what it means (docs/API.md "States")
STATES = {
    "idle": (("walls_inside", "where"),
             "no session is open; `where` is where the last session left the decks"),
    "table_fault": (("kind", "track"),
                    "no session is open and the table reports a fault that a person must fix"),
    "bench": (("what",), "a self-test or a calibration runs (no session)"),
    "emptying": (("stage", "round", "tiles", "until"),
                 "`session end --empty`: every tile comes up to the table top, a round at a "
                 "time (stage raise, drain, clear_top: people take the tiles out)"),
    "aborting": (("session",), "an abort waits for the table to confirm it"),
    "preparing": (("game", "stage", "until", "before", "reason"),
                  "a session (or a Mixed Deck game) is brought to its starting position: stage "
                  "start, raise (the walls inside come up), push (the centre is open while "
                  "people push every tile in, until `until`, or until continue when it is null)"),
    "building": (("deck", "top", "hand", "game", "thrown", "stage", "until"),
                 "deck `deck` is being built inside while deck `top` (if any) is played; stage "
                 "push: the centre is open while people push the rest of its tiles in"),
    "built": (("deck", "top", "hand", "game", "thrown"),
              "deck `deck` is built inside; hand `hand` (0: none yet) is played on deck `top`"),
    "hand_over": (("raising", "dropping", "hand", "game", "thrown", "stage"),
                  "the hand over of hand `hand`: stage raise (the walls on their way up, the "
                  "played deck dropping), settle (the hand has begun; the lift goes down)"),
    "stopped": (("step", "kind", "track", "deck", "hand", "game", "thrown", "fault", "resume"),
                "a fault or a refusal stopped `step`; `resume` is the state it carries on "
                "from once people fixed it"),
    "recovering": (("kind", "stage", "deck", "top", "hand", "game", "thrown", "faults", "ready",
                    "known"),
                   "after a table restart the walls inside are not trusted: kind resplit (Mixed "
                   "Deck: both decks split again) or swap (the normal rotation); stage waiting: "
                   "at the next hand over"),
}

SESSION_STATES = ("preparing", "building", "built", "hand_over", "stopped", "recovering")
_ANY_SESSION = ("idle", "aborting")  # every session state may end (end, abort, replace)

#: state -> the states it may change to (itself: a change of parameters)
TRANSITIONS = {
    # (idle -> building: a session on a table loaded as it starts, the demo's)
    "idle": ("idle", "table_fault", "bench", "emptying", "aborting", "preparing", "building"),
    "table_fault": ("idle", "table_fault", "aborting", "emptying"),
    "bench": ("idle", "table_fault", "aborting"),
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

DECKS = ("A", "B")
UNKNOWN = "unknown"
PLACES = ("top", "inside", "lift", "mixer", "split", UNKNOWN)


class IllegalTransition(RuntimeError):
    """The code tried a change of state the transition table does not allow: a bug."""


class State:
    """One state: ``name`` and its ``params`` (a dict of JSON values).  Immutable by
    convention: :meth:`with_` makes a changed copy."""

    __slots__ = ("name", "params")

    def __init__(self, name, params=None):
        if name not in STATES:
            raise ValueError("no state %r; the states are %s" % (name, ", ".join(STATES)))
        allowed = STATES[name][0]
        params = dict(params or {})
        extra = sorted(set(params) - set(allowed))
        if extra:
            raise ValueError("state %s has no parameter %s (it has %s)"
                             % (name, ", ".join(extra), ", ".join(allowed)))
        self.name = name
        self.params = {k: params.get(k) for k in allowed}

    def __getitem__(self, key):
        return self.params[key]

    def get(self, key, default=None):
        v = self.params.get(key)
        return default if v is None else v

    def with_(self, **changes):
        return State(self.name, dict(self.params, **changes))

    def __eq__(self, other):
        return isinstance(other, State) and (self.name, self.params) == (other.name, other.params)

    def __repr__(self):
        return "State(%r, %r)" % (self.name, self.params)

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
            return st["hand"] if st["stage"] == "settle" else 0
        if st.name in ("building", "built", "recovering"):
            return st.get("hand", 0) if st.get("top") else 0
        return 0


def _plain(v):
    if isinstance(v, dict):
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
        up = "lift" if p["stage"] == "raise" else "top"
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
    if stage in ("waiting", "drain", "raise"):
        return {x: UNKNOWN, y: "top" if top == y else "mixer"}
    if stage == "build":
        return {x: "top", y: "split"}
    return {x: "top", y: "inside"}  # drop: X goes back in


def other(deck):
    return "B" if deck == "A" else "A"
