"""The one status, as a model (layer: session): what `GET /status` answers, what a
`hello` event and the MQTT status carry (compacted), with a real OpenAPI schema.

`state`, `next`, `can` and `fault` are derived once by the daemon (hostd/core/daemon.py)
and read by every front end alike; `table` and `session` are the table's and the
session's pictures.
"""
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from hostd.core.codes import KINDS, NEXT
from hostd.core.commands import NAMES
from hostd.core.scorebook import unnamed_throw
from hostd.core.state import PLACES, STATES

StateName = Literal[tuple(STATES)]
Code = Literal[tuple(NEXT)]
CommandName = Literal[tuple(NAMES)]


class StateOut(BaseModel):
    """The table's one state (docs/API.md "States")."""

    name: StateName = Field(description="one of a small closed set")
    params: dict[str, Any] = Field(description="its parameters (they change only with it; a "
                                               "deadline is an absolute Unix time)")
    seq: int = Field(description="increases at every change of state or parameters (and of "
                                 "the table's connection): every answer carries the seq it "
                                 "was judged in")
    since: float = Field(description="when it changed (Unix time)")


class NextOut(BaseModel):
    """What happens next (docs/API.md "What happens next": every code)."""

    code: Code
    params: dict[str, Any]
    text: str = Field(description="plain English; it names no command of any front end")
    action: Optional[CommandName] = Field(description="the command a person should take now, "
                                                      "if any")


class FaultOut(BaseModel):
    """The one open fault: a stop a person must fix, or the fault the table reports."""

    kind: str = Field(description="jam, short, guard... (docs/FAULTS.md), one of %s"
                                  % ", ".join(KINDS))
    track: Optional[int] = Field(description="the track (1..), when one is concerned")
    deck: Optional[str] = Field(description="the deck being built, when one is concerned")
    step: Optional[str] = Field(description="what it stopped (start, hand_over...), or null "
                                            "for a fault the table reports between sessions")
    message: str = Field(description="what happened, in English")
    todo: str = Field(description="what people do about it, in English (no command names)")
    action: Optional[CommandName] = Field(description="the command that carries on once done")


class DeckOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    where: Literal[PLACES]
    tiles: Optional[int] = None
    backs: Optional[dict[str, int]] = None
    colours_checked: bool


class SessionOut(BaseModel):
    """The open session: its sets, games, hands, builds, faults and decks."""

    model_config = ConfigDict(extra="allow")

    id: int
    ruleset: str
    mixed_deck: bool
    sets: list[str]
    colours_checked: bool
    game: int
    game_hand: int = Field(description="the hand's number within its game (0: none yet)")
    hand: int = Field(description="the session-wide number of the hand in play (0: none yet)")
    split: int = Field(description="the game's split the decks are (2... after a re-split)")
    decks: dict[Literal["A", "B"], DeckOut]
    games: list[dict[str, Any]]
    builds: list[dict[str, Any]]
    hands: list[dict[str, Any]]
    faults: list[dict[str, Any]]
    dice: Optional[dict[str, Any]] = Field(description="the hand in play's throw and break")
    score: Optional[dict[str, Any]] = Field(
        None, description="the game's ledger in short (GET /score has it all): game, round, "
                          "hand, dealer, honba, sticks, left_on_table (what an end would give "
                          "out), ended, placement, entries, and players keyed by first-hand "
                          "wind, each with name, wind, side, points, chips")


class TableOut(BaseModel):
    """The table as the table client sees it."""

    model_config = ConfigDict(extra="allow")

    connected: bool
    error: Optional[str]
    state: str
    fault: Optional[dict[str, Any]]
    walls_inside: Optional[bool] = Field(
        None, description="the table reports walls on its tracks (a build finished, paused or "
        "stopped part way, not raised since)")
    line_fault: Optional[dict[str, Any]] = Field(
        None, description="the table's line flooded (code line_flood) or carried no frame "
        "(line_garbage) for seconds: the port is closed a while, then opened again; code, "
        "message, count (on end), port_closed_s.  null once a session is made again")
    safety: Optional[dict[str, Any]] = Field(
        None, description="the safety chain as the table reads it (protocol minor 2; "
        "docs/SAFETY.md): chain (true: the emergency stop released and the lid closed), power "
        "(true: the lift's and door's supply is on), relay_stuck (the relay's feedback stayed "
        "on with the chain open); null: not wired (the simulator) or not said")
    track_sides: Optional[list[Literal["front", "right", "back", "left"]]] = Field(
        None, description="where each track's wall comes up (track 1 first), seen from the "
        "table's front (the side with its buttons): the board profile's track_sides; null "
        "when not known")


class Status(BaseModel):
    """`GET /status`."""

    api: int = Field(description="the API's version (2: one state, codes, can)")
    state: StateOut
    next: NextOut
    can: list[CommandName] = Field(description="the commands the daemon would accept now "
                                               "(with default parameters); any other is "
                                               "refused with 409")
    fault: Optional[FaultOut]
    table: TableOut
    session: Optional[SessionOut]
    last_end: Optional[dict[str, Any]] = Field(description="how the last session ended")
    mqtt: Optional[dict[str, Any]] = Field(None, description="the MQTT bridge, when it runs")


def without_names(status):
    """The status for a reader that may not read what names people (an unpaired browser on
    the LAN, docs/SECURITY.md): the session's `score` left out, its throw by wind only."""
    session = (status or {}).get("session")
    if not session:
        return status
    return dict(status, session=dict(session, score=None,
                                     dice=unnamed_throw(session.get("dice"))))


def event_without_names(event):
    """An event for such a reader, or None when it is all names: a `score` (the ledger),
    left out; a `hello`'s status and a `dice`'s players without their names."""
    kind = event.get("type")
    if kind == "score":
        return None
    if kind == "hello" and event.get("status"):
        return dict(event, status=without_names(event["status"]))
    if kind == "dice":
        return unnamed_throw(event)
    return event


class Answer(BaseModel):
    """A command's answer: its own fields, the seq it was judged in, and what happens next."""

    model_config = ConfigDict(extra="allow")

    seq: int
    next: NextOut


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="allow")

    code: str = Field(description="for a 409: the state's name")
    message: str
    seq: Optional[int] = Field(None, description="the seq of the state it was judged in")
    next: Optional[NextOut] = None
    key: Optional[str] = Field(None, description="a score entry's refusal: its translation key "
                               "(docs/SCORING.md), for words in the reader's language")
    params: Optional[dict] = Field(None, description="the values the key's words name")


class ErrorResponse(BaseModel):
    error: ErrorDetail
