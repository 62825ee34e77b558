"""Every event the daemon publishes, declared (layer: session): one pydantic model per
``type``, the fields each carries and when it comes.  The SSE stream, MQTT and the journal
carry the same objects; docs/API.md's events table is made from these models
(:func:`event_rows`; tests/unit/test_events.py keeps the two equal), and the daemon checks
every event against its model as it publishes it (:func:`check`).

A model's ``WHEN`` says when the event comes; a field's description what it holds.  Adding
a field to an event means adding it here first.
"""
from typing import Any, ClassVar, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError

#: tests set this: an event that does not fit its model raises (a programming error);
#: the daemon itself logs it and still sends it (a front end ignores what it does not know)
STRICT = False


class Event(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    WHEN: ClassVar[str] = ""
    JOURNALLED: ClassVar[bool] = True


class SessionEvent(Event):
    session: Optional[int] = Field(None, description="the session's id")


def _f(text, default=...):
    return Field(default, description=text)


# -- the connection and the table -------------------------------------------------------------
class Hello(Event):
    WHEN: ClassVar[str] = "first, on connecting"
    JOURNALLED: ClassVar[bool] = False
    type: Literal["hello"]
    api: int = _f("the API's version (2)")
    status: dict[str, Any] = _f("as `GET /status`")


class StateEvent(Event):
    WHEN: ClassVar[str] = ("the state changed (or the table's connection): what happens next and what is "
            "accepted now")
    JOURNALLED: ClassVar[bool] = False
    type: Literal["state"]
    state: dict[str, Any] = _f("`name`, `params`, `seq`")
    next: dict[str, Any] = _f("what happens next (`code`, `params`, `text`, `action`)")
    can: list[str] = _f("the commands accepted now")
    fault: Optional[dict[str, Any]] = _f("the open fault, or null")


class Link(Event):
    WHEN: ClassVar[str] = "the table's link changed"
    type: Literal["link"]
    what: Literal["connected", "up", "disconnected", "reset", "lost", "new", "incompatible",
                  "boot_error"] = _f("`connected`, `up`, `disconnected`, `reset` ...")
    detail: Optional[str] = _f("why, or null")


class TableState(Event):
    WHEN: ClassVar[str] = "the firmware's state changed"
    type: Literal["table_state"]
    state: str = _f("the table's own state (`idle`, `building`, `lifting` ...)")


class FaultReported(Event):
    WHEN: ClassVar[str] = "the table reported a fault"
    type: Literal["table_fault"]
    kind: str = _f("`jam`, `short`, `guard`, `lift-stall` ...")
    track: Optional[int] = _f("the track, or null")
    detail: int = _f("the fault's detail field")
    message: str = _f("in words")
    code: int = _f("the protocol's fault code")


class Guard(Event):
    WHEN: ClassVar[str] = "the light curtain or lid changed"
    type: Literal["guard"]
    curtain: bool = _f("true: nobody reaches in")
    lid: bool = _f("true: closed")


# -- the session --------------------------------------------------------------------------------
class SessionStarted(SessionEvent):
    WHEN: ClassVar[str] = "a session was opened"
    type: Literal["session_started"]
    ruleset: str = _f("its ruleset")
    mixed_deck: bool = _f("Mixed Deck")


class SessionResumed(SessionEvent):
    WHEN: ClassVar[str] = "the daemon restarted and carries on the journal's open session"
    type: Literal["session_resumed"]
    state: str = _f("its state's name")
    hand: int = _f("the hand")


class BuildStarted(SessionEvent):
    WHEN: ClassVar[str] = "a build began"
    type: Literal["build_started"]
    build: int = _f("its number in the session")
    deck: Literal["A", "B"] = _f("`A` or `B`")
    targets: list[int] = _f("tiles per track")
    resumes: Optional[int] = _f("the build it carries on (a jam cleared), or null", None)


class BuildResumed(SessionEvent):
    WHEN: ClassVar[str] = ("a build the table kept paused while the daemon was away goes on "
                           "(the daemon restarted during it)")
    type: Literal["build_resumed"]
    build: int = _f("its number in the session")
    deck: Literal["A", "B"] = _f("`A` or `B`")


class BuildProgress(Event):
    WHEN: ClassVar[str] = "the build's count so far"
    JOURNALLED: ClassVar[bool] = False
    type: Literal["build_progress"]
    build: int = _f("the build")
    tiles: int = _f("tiles stacked")
    of: int = _f("tiles it makes")


class Tile(Event):
    WHEN: ClassVar[str] = "one tile stacked, with its back colour"
    JOURNALLED: ClassVar[bool] = False
    type: Literal["tile"]
    build: int = _f("the build")
    track: int = _f("1..N")
    index: int = _f("its place on the track")
    colour: str = _f("its back colour (`unknown` when unread)")


class BuildDone(SessionEvent):
    WHEN: ClassVar[str] = "a build ended; `ok` false if the deck's composition is wrong"
    type: Literal["build_done"]
    build: int = _f("the build")
    deck: Literal["A", "B"] = _f("the deck")
    game: int = _f("the game")
    per_track: list[int] = _f("tiles per track")
    backs: dict[str, int] = _f("{colour: n}")
    walls: list[dict[str, int]] = _f("each wall's backs, track 1 first")
    sim_seconds: float = _f("how long it took (table seconds)")
    ok: bool = _f("the composition is right")
    mixer_empty: Optional[bool] = _f("the mixer's empty sensor after it, or null", None)


class BuildFailed(SessionEvent):
    WHEN: ClassVar[str] = "a fault stopped the build"
    type: Literal["build_failed"]
    build: int = _f("the build")
    deck: Literal["A", "B"] = _f("the deck")
    message: str = _f("in words")


class FaultEvent(SessionEvent):
    WHEN: ClassVar[str] = "the session recorded a fault (the deck counted and expected, in words)"
    type: Literal["fault"]
    kind: str = _f("the fault's kind")
    track: Optional[int] = _f("the track, or null")
    build: Optional[int] = _f("the build, or null")
    recovered: bool = _f("recovered from at once")
    message: str = _f("in words")


class FaultRecovered(SessionEvent):
    WHEN: ClassVar[str] = "a recorded fault was recovered from"
    type: Literal["fault_recovered"]
    id: int = _f("the fault's id")


class HandOver(SessionEvent):
    WHEN: ClassVar[str] = "a hand over began"
    type: Literal["hand_over"]
    hand: int = _f("the next hand")
    raising: str = _f("the deck coming up")
    dropping: Optional[str] = _f("the deck going down, or null")


class Hand(SessionEvent):
    WHEN: ClassVar[str] = "a hand began: its walls are up"
    type: Literal["hand"]
    hand: int = _f("the hand (session-wide)")
    game: int = _f("the game")
    split: int = _f("the game's split it is played on")
    deck: str = _f("the deck")
    by: str = _f("`button`, `api`")
    turnaround_sim_seconds: Optional[float] = _f("from the press to the walls up (table s)")
    dice: list[int] = _f("`[]`: no throw yet")
    breaker: Optional[str] = _f("null until thrown")
    dice_by: Optional[str] = _f("null until thrown")


class Player(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    player: str = _f("the player's key (first-hand wind)")
    wind: str = _f("their wind now")
    name: Optional[str] = _f("their name, or null")


class Dice(SessionEvent):
    WHEN: ClassVar[str] = "the hand's throw: where to break the wall"
    type: Literal["dice"]
    hand: int = _f("the hand")
    dice: list[int] = _f("the faces")
    by: str = _f("`button`, `api`, `entered`")
    total: int = _f("their sum")
    breaker: Literal["self", "right", "across", "left"] = _f("seen from the thrower")
    break_from_right: int = _f("count this many from the right end of the breaker's wall")
    unit: str = _f("`stacks` or `tiles`")
    dead_wall_tiles: int = _f("the dead wall")
    double: Optional[bool] = _f("Shenyang: a double on the dice", None)
    breaker_is_dealer: Optional[bool] = _f("Ùzje: the breaker deals (a game's first hand)", None)
    thrower_player: Optional[Player] = _f(
        "while the game's ledger is at this hand (docs/SCORING.md)", None)
    breaker_player: Optional[Player] = _f("likewise: who breaks", None)
    text: str = _f("one line")


class Button(Event):
    WHEN: ClassVar[str] = "a press of the table's button (docs/FAULTS.md \"Buttons\")"
    type: Literal["button"]
    button: Literal["start", "dice"] = _f("`start`, `dice`")
    taken: bool = _f("the press did something")
    did: Optional[str] = _f("what it did", None)
    why: Optional[str] = _f("why it was refused", None)
    next: Optional[dict[str, Any]] = _f("what happens next, when refused", None)


class Drain(SessionEvent):
    WHEN: ClassVar[str] = "normal rotation after a reset: the mixer is drained into a build"
    type: Literal["drain"]
    build: int = _f("the build")
    targets: list[int] = _f("tiles per track")


class Swap(SessionEvent):
    WHEN: ClassVar[str] = "normal rotation after a reset: the decks are swapped at the hand over"
    type: Literal["swap"]
    hand: int = _f("the hand")
    untrusted: str = _f("the deck not trusted")
    rebuilt: str = _f("the deck rebuilt")


class Resplit(SessionEvent):
    WHEN: ClassVar[str] = "Mixed Deck after a reset: everything is split again at the hand over"
    type: Literal["resplit"]
    hand: int = _f("the hand")


class Collect(SessionEvent):
    WHEN: ClassVar[str] = "Mixed Deck start: the walls inside are raised to be collected"
    type: Literal["collect"]
    step: str = _f("`raise`")


class Stopped(SessionEvent):
    WHEN: ClassVar[str] = "a fault or refusal stopped a step (the `state` event that comes with it says what to do)"
    type: Literal["stopped"]
    step: str = _f("the step")
    kind: str = _f("what stopped it")
    message: str = _f("in words")


class StepFailed(Event):
    WHEN: ClassVar[str] = "a step ended with an error; `next` says what now"
    type: Literal["step_failed"]
    step: str = _f("`start`, `hand_over`, `resume`, `empty` ...")
    message: str = _f("in words")
    next: dict[str, Any] = _f("what happens next")


class SessionEnded(Event):
    WHEN: ClassVar[str] = "the session ended"
    type: Literal["session_ended"]
    session: int = _f("the session's id")
    how: Literal["ended", "aborted", "failed"] = _f("`ended`, `aborted`, `failed`")
    reason: Optional[str] = _f("why")


class AbortPending(Event):
    WHEN: ClassVar[str] = "an abort the table did not confirm (state `aborting`)"
    type: Literal["abort_pending"]
    message: str = _f("why")


class AbortConfirmed(Event):
    WHEN: ClassVar[str] = "the pending abort was confirmed once the table was back"
    type: Literal["abort_confirmed"]


class Emptied(Event):
    WHEN: ClassVar[str] = "`session end --empty`: every tile is on the table top"
    type: Literal["emptied"]
    raised: int = _f("tiles of the walls inside")
    from_mixer: list[int] = _f("tiles per round built from the mixer")
    mixer_empty: Optional[bool] = _f("the mixer's empty sensor")


class Game(SessionEvent):
    WHEN: ClassVar[str] = "a new game began (`POST /game`)"
    type: Literal["game"]
    game: int = _f("the game")
    first_hand: int = _f("the session-wide number of its first hand")


class Score(Event):
    WHEN: ClassVar[str] = "an entry went into the game's ledger (`POST /score`)"
    type: Literal["score"]
    game: int = _f("the game")
    score: dict[str, Any] = _f("the state, as `GET /score`")


# -- the table's health and bring-up ---------------------------------------------------------
class TrackHealth(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    track: int = _f("1..N")
    tiles: int = _f("tiles it stacked")
    unknown: int = _f("backs it could not read")
    means: dict[str, list[float]] = _f("{colour: [r, g, b]} mean readings")


class BuildHealth(Event):
    WHEN: ClassVar[str] = "a build of the table ended: per track its unknown backs and mean readings (table health)"
    type: Literal["build_health"]
    build: int = _f("the table's build")
    tracks: list[TrackHealth] = _f("one per track")


class LiftStroke(Event):
    WHEN: ClassVar[str] = "a hand over's lift strokes (table health)"
    type: Literal["lift_stroke"]
    up_s: float = _f("up, as the daemon saw it (s)")
    down_s: Optional[float] = _f("down (s)")
    up_ms: Optional[int] = _f("the table's own measure (null from a firmware of protocol minor 0)")
    down_ms: Optional[int] = _f("likewise, down")
    peak_current_up: Optional[int] = _f("the motor's peak current up")
    peak_current_down: Optional[int] = _f("likewise, down")


class Selftest(Event):
    WHEN: ClassVar[str] = "a self-test ended (no session: not journalled)"
    type: Literal["selftest"]
    ok: bool = _f("every device passed")
    failed: int = _f("how many failed")
    pulsed: Optional[int] = _f("how many were pulsed and not confirmed", None)


class Survey(Event):
    WHEN: ClassVar[str] = "the wiring survey wrote the pins it found (no session: not journalled)"
    type: Literal["survey"]
    written: bool = _f("the club's profile was written")


class Calibration(Event):
    WHEN: ClassVar[str] = ("a calibration read the sets, or its classes were named or swapped "
                           "(no session: not journalled)")
    type: Literal["calibration"]
    ok: bool = _f("read (and, named, written)")
    named: Optional[bool] = _f("the two classes named (written); false: `next` asks which is "
                               "which", None)
    swapped: Optional[bool] = _f("the last calibration's names swapped", None)
    sets: Optional[list[str]] = _f("the sets (named: class 1's first)", None)
    separation: Optional[list[Optional[float]]] = _f("per track", None)
    why: Optional[str] = _f("why not", None)


MODELS = {m.model_fields["type"].annotation.__args__[0]: m for m in (
    Hello, StateEvent, Link, TableState, FaultReported, Guard, SessionStarted, SessionResumed,
    BuildStarted, BuildResumed, BuildProgress, Tile, BuildDone, BuildFailed, FaultEvent,
    FaultRecovered, HandOver, Hand, Dice, Button, Drain, Swap, Resplit, Collect, Stopped,
    StepFailed, SessionEnded, AbortPending, AbortConfirmed, Emptied, Game, Score, BuildHealth,
    LiftStroke, Selftest, Calibration, Survey)}


def journalled(kind):
    """Whether events of ``kind`` go to the session's journal (all but the frequent and
    the derived: tiles, build progress, states, which are journalled as they are set)."""
    model = MODELS.get(kind)
    return model.JOURNALLED if model is not None else True


class EventDrift(ValueError):
    """An event that is not as its model declares (a programming error)."""


def check(event):
    """Check ``event`` (a dict with a ``type``) against its model; returns it unchanged.
    A mismatch raises :class:`EventDrift` under STRICT, else is returned as its text for
    the caller to log."""
    model = MODELS.get(event.get("type"))
    if model is None:
        why = "no model for event type %r (hostd/core/events.py)" % (event.get("type"),)
    else:
        try:
            model.model_validate(event)
            return None
        except ValidationError as e:
            why = "event %s does not fit its model: %s" % (event["type"], e.errors(
                include_url=False, include_input=False))
    if STRICT:
        raise EventDrift(why)
    return why


def _fields(model):
    out = []
    for name, f in model.model_fields.items():
        if name == "type":
            continue
        out.append("`%s`%s" % (name, " (%s)" % f.description if f.description else ""))
    return ", ".join(out) or "none"


def event_rows():
    """docs/API.md's events table, made from the models."""
    rows = ["| type | fields | when |", "|---|---|---|"]
    for name, model in MODELS.items():
        when = model.WHEN + ("" if model.JOURNALLED else " (not journalled)")
        rows.append("| `%s` | %s | %s |" % (name, _fields(model), when))
    return "\n".join(rows)


if __name__ == "__main__":  # pragma: no cover - `python -m hostd.core.events`
    print(event_rows())
