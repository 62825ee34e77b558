# CPython only
"""Host-side typed models (pydantic v2) of every wire message.

The wire facts (ids, field order, types, ranges) live in protocol.messages, the one
table both sides import; tests/unit/test_protocol_models.py checks that every model here
matches it field for field, so the two cannot drift.  The descriptions here are what
protocol/SPEC.md's message reference is rendered from (protocol/spec_tool.py).

    from protocol import models
    msg = models.parse(msgid, values)          # on_message(msgid, values) -> a model
    models.ConfigureBuild(build_id=1, tiles=[34] * 4, stacks=17, colours=[1], empty_mixer=1)
    link.send(msg.MSGID, msg.values())
"""
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from protocol import codec
from protocol import messages as m

__all__ = ["Message", "MODELS", "model_for", "parse"]


# ------------------------------------------------------------------ field helpers
def _scalar(wire: str, lo: int, hi: int, doc: str) -> Any:
    return Field(ge=lo, le=hi, description=doc, json_schema_extra={"wire": wire})


def u8(doc: str, lo: int = 0, hi: int = 0xFF) -> Any:
    return _scalar("u8", lo, hi, doc)


def u16(doc: str, lo: int = 0, hi: int = 0xFFFF) -> Any:
    return _scalar("u16", lo, hi, doc)


def u32(doc: str, lo: int = 0, hi: int = 0xFFFFFFFF) -> Any:
    return _scalar("u32", lo, hi, doc)


def array(wire: str, doc: str, lo: int, hi: int, nmin: int, nmax: int) -> Any:
    return Field(
        min_length=nmin,
        max_length=nmax,
        description=doc,
        json_schema_extra={"wire": wire, "item_ge": lo, "item_le": hi},
    )


def text(doc: str, nmin: int, nmax: int) -> Any:
    return Field(description=doc, json_schema_extra={"wire": "str", "bytes_min": nmin, "bytes_max": nmax})


def _utf8(nmin: int, nmax: int):
    def check(v: str) -> str:
        n = len(v.encode("utf-8"))
        if not nmin <= n <= nmax:
            raise ValueError("%d UTF-8 bytes, allowed %d..%d" % (n, nmin, nmax))
        return v

    return AfterValidator(check)


def Items(lo: int, hi: int) -> Any:  # noqa: N802 - reads as a type
    return tuple[Annotated[int, Field(ge=lo, le=hi)], ...]


Firmware = Annotated[str, _utf8(1, 16)]
Board = Annotated[str, _utf8(1, 20)]
LogText = Annotated[str, _utf8(0, 54)]
Short = Annotated[str, _utf8(1, 12)]
ColourNames = Annotated[str, _utf8(1, 28)]


# ------------------------------------------------------------------ base
class Message(BaseModel):
    """One wire message.  values() gives the tuple Link.send() takes; from_values() and
    parse() take what Link's on_message delivers."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    MSGID: ClassVar[int]
    KIND: ClassVar[int]
    NAME: ClassVar[str]

    def values(self) -> tuple:
        return tuple(getattr(self, k) for k in type(self).model_fields)

    @classmethod
    def from_values(cls, values) -> "Message":
        names = list(cls.model_fields)
        if len(values) != len(names):
            raise ValueError("%s takes %d values, got %d" % (cls.NAME, len(names), len(values)))
        return cls(**dict(zip(names, values)))

    def frame(self, seq: int = 0) -> bytes:
        """The whole frame (for tests and examples; a Link frames its own sends)."""
        return codec.encode_frame(seq, self.MSGID, self.values())


# ------------------------------------------------------------------ link level
class Ack(Message):
    """Cumulative acknowledgement.  Its SEQ byte is the next sequence number the sender
    of the ack expects, so it acknowledges every sequenced frame before that.  Sent
    again unchanged, it asks for a retransmission (a NAK)."""

    MSGID: ClassVar[int] = m.ACK


class Connect(Message):
    """Host asks for a session.  Sent every 250 ms until IDENTITY arrives.  A new
    host_nonce resets the table's sequence numbers; a repeated one changes nothing."""

    MSGID: ClassVar[int] = m.CONNECT
    version: int = u8("protocol major version the host asks for", 1, 255)
    host_nonce: int = u32("random per session, never 0; echoed in IDENTITY and HEARTBEAT", 1)


class Heartbeat(Message):
    """Table's heartbeat, on its own clock: 500 ms after the last frame it sent (while it
    has dropped an event since its last heartbeat, frames sent after the drop do not put
    it off), session or not; and at once as the answer to a frame that assumes a session
    the table does not have.  uptime_ms is taken when it is sent."""

    MSGID: ClassVar[int] = m.HEARTBEAT
    boot_nonce: int = u32("random per boot, never 0: a new value means the table reset", 1)
    host_nonce: int = u32("the session the table is in (the host's nonce), 0 = none")
    state: int = u8("table state (STATES)")
    uptime_ms: int = u32("milliseconds since boot, wrapping at 2**32")
    dropped: int = u16("events the table could not queue since boot (saturates)")


class Ping(Message):
    """Host's heartbeat, after 500 ms without any other frame from the host while a session is up."""

    MSGID: ClassVar[int] = m.PING
    host_nonce: int = u32("the host's session nonce")


class Reject(Message):
    """Table refuses a link-level frame (CONNECT of a version it does not speak, an
    unknown link message id, a malformed link frame).  Never answered."""

    MSGID: ClassVar[int] = m.REJECT
    code: int = u8("error code (ERRORS)", 1, 255)
    msgid: int = u8("the refused frame's message id")
    version_min: int = u8("oldest protocol major the table speaks")
    version_max: int = u8("newest protocol major the table speaks")


# ------------------------------------------------------------------ commands
class Identify(Message):
    """Send IDENTITY again (then RESULT)."""

    MSGID: ClassVar[int] = m.IDENTIFY


class Status(Message):
    """Send STATUS_REPLY (then RESULT).  The host's way to resynchronise after a
    reconnect or when HEARTBEAT.dropped grew."""

    MSGID: ClassVar[int] = m.STATUS


class ConfigureBuild(Message):
    """Set up the next build; nothing moves.  The table refuses (UNSUPPORTED, naming the
    field) what it cannot build, e.g. more tracks or stacks than it has."""

    MSGID: ClassVar[int] = m.CONFIGURE_BUILD
    build_id: int = u16("host-chosen id, echoed in every event of this build", 1)
    tiles: Items(0, 64) = array("u8[]", "tiles to put on each track, track 1 first", 0, 64, 1, m.MAX_TRACKS)
    stacks: int = u8("stacks per wall", 1, 32)
    colours: Items(1, m.MAX_COLOURS) = array(
        "u8[]", "colour classes expected in this build (1..); others are a COLOUR fault; "
        "empty: no class is checked (identical backs)", 1, m.MAX_COLOURS, 0, m.MAX_COLOURS
    )
    empty_mixer: int = u8("1 = the mixer must be empty at the end (else SURPLUS); 0 for the first build of a Mixed Deck split", 0, 1)


class Mix(Message):
    """Run the mixer (turntable) with every gate closed."""

    MSGID: ClassVar[int] = m.MIX
    duration_ms: int = u16("how long, 0 = the board profile's default", 0, 60000)


class Build(Message):
    """Start the configured build, or resume it after a pause (same build_id)."""

    MSGID: ClassVar[int] = m.BUILD
    build_id: int = u16("must be the configured build's id (else NOT_ALLOWED, field 0)", 1)


class Lift(Message):
    """Raise the walls to the table top and come back down; LIFT_DONE top, then bottom."""

    MSGID: ClassVar[int] = m.LIFT


class Door(Message):
    """Open or close the centre door; DOOR_STATE reports the result."""

    MSGID: ClassVar[int] = m.DOOR
    open: int = u8("1 = open, 0 = close", 0, 1)


class Stop(Message):
    """Stop every motion now; a running build is paused (resume with BUILD)."""

    MSGID: ClassVar[int] = m.STOP


class Abort(Message):
    """Stop every motion and forget the configured build."""

    MSGID: ClassVar[int] = m.ABORT


class ClearFault(Message):
    """Acknowledge the active fault after the cause was removed."""

    MSGID: ClassVar[int] = m.CLEAR_FAULT
    code: int = u8("the fault being cleared (FAULTS), 0 = whichever is active", 0, len(m.FAULTS) - 1)


class SelfTest(Message):
    """Exercise one sensor or actuator; SELF_TEST_RESULT reports it."""

    MSGID: ClassVar[int] = m.SELF_TEST
    kind: int = u8("device kind (DEVICES)", 1, len(m.DEVICES) - 1)
    index: int = u8("track 1..8 for per-track devices (above identity.tracks: UNSUPPORTED), else 0", 0, m.MAX_TRACKS)


class Calibrate(Message):
    """Take the colour sensor's current reading on a track as a colour class's reference."""

    MSGID: ClassVar[int] = m.CALIBRATE
    colour: int = u8("colour class 1.. (above identity.colours: UNSUPPORTED)", 1, m.MAX_COLOURS)
    track: int = u8("track 1.. (above identity.tracks: UNSUPPORTED)", 1, m.MAX_TRACKS)


class ExitRepl(Message):
    """Leave the protocol for the MicroPython REPL (after RESULT).  Only the magic value
    is in range, so line noise cannot trigger it.  A table with no REPL (the controller
    under CPython: a Raspberry Pi, the simulator) answers UNSUPPORTED and goes on."""

    MSGID: ClassVar[int] = m.EXIT_REPL
    magic: int = u32("0x4C504552 (b'REPL' little-endian)", m.REPL_MAGIC, m.REPL_MAGIC)


class Light(Message):
    """Set the status light's pattern for what only the host knows (protocol minor 1).
    The firmware's own patterns win over it: fault, and motion or building while
    something moves; the host's shows while nothing moves, until AUTO, a lost link or a
    new session. REFUSED is a one-shot (three quick flashes, then back) that leaves the
    host's pattern as it was. Never refused in any state; a table without a light takes
    it and shows nothing (docs/FIRMWARE.md "The status light")."""

    MSGID: ClassVar[int] = m.LIGHT
    pattern: int = u8("0 auto (the firmware's own), 1 ready, 2 people, 3 dice, 4 refused (LIGHTS)",
                      0, len(m.LIGHTS) - 1)


class SetCalibration(Message):
    """New colour references and classification radius for one track (or every track),
    used at once for every tile read after it (RAM only: a board keeps them across a
    restart only once they are in its board profile, docs/FIRMWARE.md §3.2).  Refused
    (FAILED, field 1) when the radius reaches past half the distance between two of the
    references, so no reading could be near two colours; NOT_ALLOWED unless idle."""

    MSGID: ClassVar[int] = m.SET_CALIBRATION
    track: int = u8("track 1.. (above identity.tracks: UNSUPPORTED), 0 = every track", 0, m.MAX_TRACKS)
    max_distance: int = u16("classification radius, in 1/10000 of normalised r, g, b", 1, m.REF_SCALE)
    refs: Items(0, m.REF_SCALE) = array(
        "u16[]", "normalised r, g, b of colour 1, then colour 2 ..., in 1/10000: 3 x identity.colours items "
        "(else RANGE, field 2), each triple summing to 10000 +-1000", 0, m.REF_SCALE, 3, 3 * m.MAX_COLOURS
    )


class SetColourNames(Message):
    """New names of the colour classes (the club's own sets), for ABOUT from the next
    handshake on; RAM only, as SET_CALIBRATION.  RANGE (field 0) unless exactly
    identity.colours distinct names, none 'unknown' or empty."""

    MSGID: ClassVar[int] = m.SET_COLOUR_NAMES
    names: ColourNames = text("colour class names 1.. in order, comma-separated", 1, 28)


class PinPulse(Message):
    """The wiring survey (protocol minor 2, docs/FIRMWARE.md "The wiring survey"): the output
    the profile names at pin number `pin` on for `ms` ms, with every other output off but
    `hold` (a motor's direction, on from just before to just after; PIN_NONE: none).
    Taken only in IDLE or FAULT with nothing built or configured (else NOT_ALLOWED), and
    only when a motion may start: the curtain clear, the lid and the safety chain closed,
    the motion supply on (else FAILED); a number that is no output of the profile:
    UNSUPPORTED with its field.  The state is TESTING until the pulse ends."""

    MSGID: ClassVar[int] = m.PIN_PULSE
    pin: int = u16("pin number as the profile names it (an expander's: 256 + 16 x expander + pin)",
                   0, m.PIN_MAX)
    ms: int = u16("how long, ms", 10, m.PIN_PULSE_MAX_MS)
    hold: int = u16("a second output held on meanwhile (65535: none)", 0, m.PIN_NONE)


class PinRead(Message):
    """The wiring survey (protocol minor 2): read the inputs the profile names at these pin
    numbers; PIN_LEVELS is the reply (before RESULT).  A number that is no digital input of
    the profile: UNSUPPORTED (field 0).  Any state."""

    MSGID: ClassVar[int] = m.PIN_READ
    pins: Items(0, m.PIN_MAX) = array("u16[]", "pin numbers, as PIN_PULSE's", 0, m.PIN_MAX, 1,
                                      m.PIN_READ_MAX)


# ------------------------------------------------------------------ events
class Identity(Message):
    """The handshake reply: seq 0 of every session, and the answer to IDENTIFY."""

    MSGID: ClassVar[int] = m.IDENTITY
    version: int = u8("protocol major the table speaks in this session", 1, 255)
    minor: int = u8("protocol minor (messages added since the major)")
    firmware: Firmware = text("firmware version", 1, 16)
    board: Board = text("board profile id", 1, 20)
    boot_nonce: int = u32("random per boot, never 0", 1)
    host_nonce: int = u32("the CONNECT's host_nonce this answers", 1)
    tracks: int = u8("number of tracks (walls)", 1, m.MAX_TRACKS)
    max_stacks: int = u8("most stacks a wall can have", 1, 32)
    colours: int = u8("named colour classes (1..colours; 0 = unknown)", 1, m.MAX_COLOURS)


class Result(Message):
    """Answer to every command, sent when it is accepted or refused (completion is
    reported by its own events)."""

    MSGID: ClassVar[int] = m.RESULT
    seq: int = u8("the command's sequence number")
    msgid: int = u8("the command's message id")
    code: int = u8("0 = ok, else an error code (ERRORS)")
    field: int = u8("0-based index of the offending field, 255 = none")


class StatusReply(Message):
    """Everything a reconnecting host needs to resume (answer to STATUS)."""

    MSGID: ClassVar[int] = m.STATUS_REPLY
    state: int = u8("table state (STATES)")
    fault: int = u8("active fault (FAULTS), 0 = none")
    build_id: int = u16("configured build, 0 = none")
    paused: int = u8("1 = the build is paused and can be resumed with BUILD", 0, 1)
    dropped: int = u16("events dropped since boot (saturates)")
    targets: Items(0, 64) = array(
        "u8[]", "the configured build's tiles per track, from CONFIGURE_BUILD on (all 0 if none)", 0, 64, 0,
        m.MAX_TRACKS)
    counts: Items(0, 255) = array(
        "u8[]", "tiles on each track per colour class, track-major: [(t-1)*(colours+1)+class]; tracks*(colours+1) <= 32", 0, 255, 0, 32
    )


class State(Message):
    """The table's state changed."""

    MSGID: ClassVar[int] = m.STATE
    state: int = u8("new state (STATES)")
    prev: int = u8("previous state")


class Tile(Message):
    """A tile entered a track and was counted; its back colour was read."""

    MSGID: ClassVar[int] = m.TILE
    build_id: int = u16("the build", 1)
    track: int = u8("track 1..", 1, m.MAX_TRACKS)
    index: int = u8("its position on the track, 1 = first", 1, 255)
    colour: int = u8("back-colour class, 0 = unknown", 0, m.MAX_COLOURS)
    clear: int = u16("raw colour sensor reading: clear channel")
    red: int = u16("raw reading: red")
    green: int = u16("raw reading: green")
    blue: int = u16("raw reading: blue")


class TrackFull(Message):
    """A track reached its target."""

    MSGID: ClassVar[int] = m.TRACK_FULL
    build_id: int = u16("the build", 1)
    track: int = u8("track 1..", 1, m.MAX_TRACKS)
    count: int = u8("tiles on it")


class BuildDone(Message):
    """Every track is full: the walls are built inside."""

    MSGID: ClassVar[int] = m.BUILD_DONE
    build_id: int = u16("the build", 1)
    counts: Items(0, 255) = array(
        "u8[]", "tiles per track per colour class, track-major: [(t-1)*(colours+1)+class]; tracks*(colours+1) <= 32",
        0, 255, 1, 32
    )
    mixer_empty: int = u8("1 = no tile left in the mixer", 0, 1)


class LiftDone(Message):
    """The lift reached an end: top (walls on the table), then bottom (next build may start)."""

    MSGID: ClassVar[int] = m.LIFT_DONE
    position: int = u8("1 = top, 2 = bottom", m.LIFT_TOP, m.LIFT_BOTTOM)


class LiftStroke(Message):
    """After LIFT_DONE (protocol minor 1): the stroke that reached that end, timed from the
    motor's start to the end switch, and the highest motor current read during it (table
    health: a lift that drags takes longer and draws more before it stalls)."""

    MSGID: ClassVar[int] = m.LIFT_STROKE
    position: int = u8("1 = top (the upward stroke), 2 = bottom", m.LIFT_TOP, m.LIFT_BOTTOM)
    ms: int = u16("the stroke's time in ms (65535: that or more; 0: no stroke was timed)")
    peak_current: int = u16("highest lift_current reading during the stroke, read_u16 "
                             "(0: no current sensor)")


class GuardStop(Message):
    """A lift or door motion stopped by the safety layer (protocol minor 2), measured by the
    firmware from the unsafe edge: when it switched the motor off (its interrupt) and when
    the motion relay's feedback said the supply was cut (the hardware path)."""

    MSGID: ClassVar[int] = m.GUARD_STOP
    motor: int = u8("1 = lift, 2 = door", 1, 2)
    input: int = u8("what read unsafe: 1 curtain, 2 lid, 4 the chain (bits)", 1, 7)
    at_ms: int = u16("ms into the motion at the break (65535: that or more)")
    off_us: int = u32("from the break to the firmware's motor off, in us")
    cut_us: int = u32("from the break to the relay's feedback going off, in us (4294967295: "
                      "it did not, or the table has no feedback input)")


class Safety(Message):
    """The safety chain as the firmware reads it (protocol minor 2), sent at the start of a
    session and on every change: the chain's end, the motion relay's feedback, a relay
    whose feedback stayed on with the chain open."""

    MSGID: ClassVar[int] = m.SAFETY
    chain: int = u8("1 = closed (emergency stop released, lid closed), 0 = open, 2 = no "
                    "interlock input (the simulator only)", 0, 2)
    power: int = u8("1 = the lift's and door's supply is on, 0 = off, 2 = no feedback input", 0, 2)
    relay_stuck: int = u8("1 = the relay's feedback stayed on with the chain open (welded "
                          "contacts): no motion until it is replaced", 0, 1)


class PinLevels(Message):
    """PIN_READ's reply (protocol minor 2): the level each pin reads, as the firmware's pin
    object gives it (a profile's invert applied)."""

    MSGID: ClassVar[int] = m.PIN_LEVELS
    count: int = u8("pins read", 1, m.PIN_READ_MAX)
    levels: int = u32("bit i: the level of PIN_READ's pins[i]")


class DoorState(Message):
    """The centre door moved or stopped."""

    MSGID: ClassVar[int] = m.DOOR_STATE
    state: int = u8("0 closed, 1 open, 2 moving, 3 unknown")


class Guard(Message):
    """A safety input changed."""

    MSGID: ClassVar[int] = m.GUARD
    curtain: int = u8("1 = light curtain clear", 0, 1)
    lid: int = u8("1 = lid closed", 0, 1)


class Fault(Message):
    """Something went wrong; the table is in state FAULT until CLEAR_FAULT."""

    MSGID: ClassVar[int] = m.FAULT
    code: int = u8("fault code (FAULTS)", 1)
    track: int = u8("the track concerned, 0 = none", 0, m.MAX_TRACKS)
    detail: int = u32("code-specific: a count, a reading, a time in ms")


class SelfTestResult(Message):
    """Outcome of SELF_TEST: for a reading, its reply (before RESULT); for a pulse, sent
    when the pulse ends (after RESULT)."""

    MSGID: ClassVar[int] = m.SELF_TEST_RESULT
    kind: int = u8("device kind (DEVICES)", 1)
    index: int = u8("track, or 0", 0, m.MAX_TRACKS)
    result: int = u8("0 pass, 1 fail, 2 absent on this board")
    value: int = u32("the reading taken (level, ADC value, ms to switch)")


class Button(Message):
    """A button on the table was pressed."""

    MSGID: ClassVar[int] = m.BUTTON
    button: int = u8("1 = start (hand over), 2 = dice", 1)


class Log(Message):
    """A line for the host's log."""

    MSGID: ClassVar[int] = m.LOG
    level: int = u8("0 debug, 1 info, 2 warning, 3 error")
    text: LogText = text("UTF-8, at most 54 bytes", 0, 54)


class About(Message):
    """Seq 1 of every session, right after IDENTITY: what the firmware runs on and the
    names of its colour classes (part of the handshake)."""

    MSGID: ClassVar[int] = m.ABOUT
    implementation: Short = text("runtime the firmware runs on: micropython or cpython", 1, 12)
    version: Short = text("that runtime's version, e.g. 1.29.0", 1, 12)
    colours: ColourNames = text("colour class names 1.. in order, comma-separated", 1, 28)


# ------------------------------------------------------------------ registry
MODELS: dict[int, type[Message]] = {}
for _cls in list(globals().values()):
    if isinstance(_cls, type) and issubclass(_cls, Message) and _cls is not Message:
        _e = m.BY_ID[_cls.MSGID]
        _cls.NAME = _e[1]
        _cls.KIND = _e[2]
        MODELS[_cls.MSGID] = _cls
del _cls, _e


def model_for(key) -> type[Message]:
    """The model class of a message id or name."""
    return MODELS[m.lookup(key)[0]]


def parse(msgid: int, values) -> Message:
    """A model from what Link.on_message delivers."""
    return MODELS[msgid].from_values(values)
