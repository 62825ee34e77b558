# The one table of jantaku's wire messages, and the code tables host and firmware
# must agree on (errors, states, faults, self-test devices).  protocol/SPEC.md is the
# prose authority on bytes; this table is what both sides import.
#
# Runs unchanged on MicroPython 1.2x and CPython 3.11: plain tuples, no typing, no enum.
# Imports nothing of ours.
from struct import pack_into as _pack_into

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


# ---------------------------------------------------------------- protocol version
PROTOCOL_VERSION = const(1)  # major: what CONNECT asks for and IDENTITY answers
PROTOCOL_MINOR = const(2)  # minor: only adds messages (SPEC.md "Versioning"); 1: LIGHT; 2: PIN_PULSE, GUARD_STOP, SAFETY, fault COUNT, device home
VERSION_MIN = const(1)  # the oldest major this code can speak
VERSION_MAX = const(1)  # the newest major this code can speak

# ---------------------------------------------------------------- field types
U8 = const(1)
U16 = const(2)
U32 = const(3)
I16 = const(4)
I32 = const(5)
STR = const(6)  # u8 byte count + UTF-8 bytes
U8S = const(7)  # u8 item count + u8 items
U16S = const(8)  # u8 item count + u16 items (little-endian)
TYPE_NAMES = ("", "u8", "u16", "u32", "i16", "i32", "str", "u8[]", "u16[]")
TYPE_SIZE = (0, 1, 2, 4, 2, 4, 1, 1, 2)  # scalar size; str: per byte; arrays: per item
TYPE_RANGE = (  # each type's whole value range (str: none; arrays: per item)
    (0, 0),
    (0, 0xFF),
    (0, 0xFFFF),
    (0, 0xFFFFFFFF),
    (-0x8000, 0x7FFF),
    (-0x80000000, 0x7FFFFFFF),
    (0, 0),
    (0, 0xFF),
    (0, 0xFFFF),
)

# ---------------------------------------------------------------- message kinds
CMD = const(1)  # host -> table, sequenced, answered by a RESULT event
EVT = const(2)  # table -> host, sequenced
LINK = const(3)  # link level, unsequenced (ids 0x00..0x0F)
KIND_NAMES = ("", "cmd", "evt", "link")
FIRST_SEQUENCED = const(0x10)  # ids below this are link level and unsequenced

# ---------------------------------------------------------------- error codes
# In RESULT.code (answer to a command) and REJECT.code (answer to a link frame).
OK = const(0)
E_UNKNOWN_MSG = const(1)  # no such message id (or not a command)
E_BAD_LENGTH = const(2)  # payload shorter or longer than the fields need
E_RANGE = const(3)  # a field's value outside the table's range (or not UTF-8)
E_NOT_ALLOWED = const(4)  # not allowed in the table's current state
E_BUSY = const(5)  # a motion that this command needs is already running
E_VERSION = const(6)  # protocol version not spoken
E_UNSUPPORTED = const(7)  # valid on the wire, beyond this table's capabilities
E_FAILED = const(8)  # accepted and tried, but it failed (e.g. no tile to calibrate on)
E_INTERNAL = const(9)  # the firmware raised while handling it
ERRORS = (
    "ok",
    "unknown_msg",
    "bad_length",
    "range",
    "not_allowed",
    "busy",
    "version",
    "unsupported",
    "failed",
    "internal",
)
NO_FIELD = const(255)  # RESULT.field / error field when no single field is at fault

# ---------------------------------------------------------------- table states
S_BOOT = const(0)
S_IDLE = const(1)
S_MIXING = const(2)
S_BUILDING = const(3)
S_PAUSED = const(4)
S_BUILT = const(5)
S_LIFTING = const(6)
S_FAULT = const(7)
S_TESTING = const(8)
STATES = ("boot", "idle", "mixing", "building", "paused", "built", "lifting", "fault", "testing")

# ---------------------------------------------------------------- fault codes
F_NONE = const(0)
F_JAM = const(1)
F_SHORT = const(2)
F_SURPLUS = const(3)
F_OVERFILL = const(4)
F_MISREAD = const(5)
F_LIFT_STALL = const(6)
F_LIMIT = const(7)
F_GUARD = const(8)
F_DOOR = const(9)
F_BUILD_TIMEOUT = const(10)
F_LINK_LOST = const(11)
F_RESET = const(12)
F_SENSOR = const(13)
F_COLOUR = const(14)
F_INTERNAL = const(15)
F_COUNT = const(16)  # minor 2: a side's counting sensor and its colour sensor disagree (four-port)
FAULTS = (
    "none",
    "jam",
    "short",
    "surplus",
    "overfill",
    "misread",
    "lift_stall",
    "limit",
    "guard",
    "door",
    "build_timeout",
    "link_lost",
    "reset",
    "sensor",
    "colour",
    "internal",
    "count",
)

# ---------------------------------------------------------------- other small enums
COLOUR_UNKNOWN = const(0)  # colour class 0; 1.. are the board profile's colours in order
MAX_TRACKS = const(8)
MAX_COLOURS = const(7)  # named colour classes (1..7); class 0 is unknown
LIFT_TOP = const(1)
LIFT_BOTTOM = const(2)
DOOR_CLOSED = const(0)
DOOR_OPEN = const(1)
DOOR_MOVING = const(2)
DOOR_UNKNOWN = const(3)
BUTTON_START = const(1)
BUTTON_DICE = const(2)
LOG_DEBUG = const(0)
LOG_INFO = const(1)
LOG_WARN = const(2)
LOG_ERROR = const(3)
TEST_PASS = const(0)
TEST_FAIL = const(1)
TEST_ABSENT = const(2)
REPL_MAGIC = const(0x4C504552)  # b"REPL" little-endian
# Status light patterns the host may ask for (LIGHT.pattern, minor 1); the firmware's
# own patterns (off, building, motion, fault) are not on the wire (docs/FIRMWARE.md)
LIGHT_AUTO = const(0)  # the firmware's own pattern
LIGHT_READY = const(1)
LIGHT_PEOPLE = const(2)
LIGHT_DICE = const(3)
LIGHT_REFUSED = const(4)  # a one-shot: three quick flashes, then back
LIGHTS = ("auto", "ready", "people", "dice", "refused")

# Self-test device kinds: (kind, name, indexed by track?)
D_MIXER = const(1)
D_MIXER_EMPTY = const(2)
D_GATE = const(3)
D_ENTRY = const(4)
D_COLOUR = const(5)
D_STACKER = const(6)
D_PUSHER = const(7)
D_LIFT = const(8)
D_LIFT_TOP = const(9)
D_LIFT_BOTTOM = const(10)
D_LIFT_CURRENT = const(11)
D_DOOR = const(12)
D_DOOR_CLOSED = const(13)
D_DOOR_OPEN = const(14)
D_CURTAIN = const(15)
D_LID = const(16)
D_START_BUTTON = const(17)
D_DICE_BUTTON = const(18)
D_STATUS_LIGHT = const(19)
D_HOME = const(20)  # minor 2: a four-port side's cam home switch (index = side)
DEVICES = (
    "",
    "mixer",
    "mixer_empty",
    "gate",
    "entry",
    "colour",
    "stacker",
    "pusher",
    "lift",
    "lift_top",
    "lift_bottom",
    "lift_current",
    "door",
    "door_closed",
    "door_open",
    "curtain",
    "lid",
    "start_button",
    "dice_button",
    "status_light",
    "home",
)
TRACK_DEVICES = (D_GATE, D_ENTRY, D_COLOUR, D_STACKER, D_PUSHER, D_HOME)  # index = track 1..8


# ---------------------------------------------------------------- field constructors
# A field is (name, type, lo, hi, nmin, nmax):
#   scalars: lo..hi is the value range, nmin = nmax = 0
#   str:     nmin..nmax is the UTF-8 byte count, lo = hi = 0
#   arrays:  lo..hi is each item's range, nmin..nmax the item count
def _f(name, t, lo=None, hi=None):
    r = TYPE_RANGE[t]
    return (name, t, r[0] if lo is None else lo, r[1] if hi is None else hi, 0, 0)


def _s(name, nmax, nmin=0):
    return (name, STR, 0, 0, nmin, nmax)


def _a(name, t, lo, hi, nmin, nmax):
    return (name, t, lo, hi, nmin, nmax)


_TRACK = (1, MAX_TRACKS)
_COLOUR = (0, MAX_COLOURS)

# ---------------------------------------------------------------- message ids
ACK = const(0x01)
CONNECT = const(0x02)
HEARTBEAT = const(0x03)
PING = const(0x04)
REJECT = const(0x05)

IDENTIFY = const(0x10)
STATUS = const(0x11)
CONFIGURE_BUILD = const(0x12)
MIX = const(0x13)
BUILD = const(0x14)
LIFT = const(0x15)
DOOR = const(0x16)
STOP = const(0x17)
ABORT = const(0x18)
CLEAR_FAULT = const(0x19)
SELF_TEST = const(0x1A)
CALIBRATE = const(0x1B)
EXIT_REPL = const(0x1C)
LIGHT = const(0x1D)  # minor 1
# (0x28..: taken well away from 0x1D.., where the next core commands go)
SET_CALIBRATION = const(0x28)
SET_COLOUR_NAMES = const(0x29)
# the wiring survey's (minor 2): a claimed output on for a moment, claimed inputs read, by pin
# number (the profile's: a chip's own 0..255, an expander's EXPANDER_PINS + 16 x expander + pin)
PIN_PULSE = const(0x2A)
PIN_READ = const(0x2B)
PIN_NONE = const(0xFFFF)  # PIN_PULSE.hold: no second output
PIN_MAX = const(0x17F)  # the highest pin number a profile can name (expander 7, pin 15)
PIN_READ_MAX = const(26)  # pins per PIN_READ (its frame's payload)
PIN_PULSE_MAX_MS = const(2000)
REF_SCALE = const(10000)  # SET_CALIBRATION's r, g, b and radius: parts per 10000

IDENTITY = const(0x40)
RESULT = const(0x41)
STATUS_REPLY = const(0x42)
STATE = const(0x43)
TILE = const(0x44)
TRACK_FULL = const(0x45)
BUILD_DONE = const(0x46)
LIFT_DONE = const(0x47)
DOOR_STATE = const(0x48)
GUARD = const(0x49)
FAULT = const(0x4A)
SELF_TEST_RESULT = const(0x4B)
BUTTON = const(0x4C)
LOG = const(0x4D)
ABOUT = const(0x4E)
LIFT_STROKE = const(0x4F)  # minor 1
PIN_LEVELS = const(0x50)  # minor 2
GUARD_STOP = const(0x51)  # minor 2
SAFETY = const(0x52)  # minor 2

# ---------------------------------------------------------------- THE table
# (msgid, name, kind, fields).  Names are snake_case; the constant above is NAME.upper().
# Code-valued fields of events (states, faults, device kinds, ...) take any value: a later
# minor version may add codes (SPEC.md "Versioning"), and an older host must still take
# the event.  Commands are checked against the codes this version knows.
MESSAGES = (
    # link level, unsequenced
    (ACK, "ack", LINK, ()),
    (CONNECT, "connect", LINK, (_f("version", U8, 1, 255), _f("host_nonce", U32, 1))),
    (
        HEARTBEAT,
        "heartbeat",
        LINK,
        (
            _f("boot_nonce", U32, 1),
            _f("host_nonce", U32),
            _f("state", U8),
            _f("uptime_ms", U32),
            _f("dropped", U16),
        ),
    ),
    (PING, "ping", LINK, (_f("host_nonce", U32),)),
    (
        REJECT,
        "reject",
        LINK,
        (_f("code", U8, 1, 255), _f("msgid", U8), _f("version_min", U8), _f("version_max", U8)),
    ),
    # commands, host -> table
    (IDENTIFY, "identify", CMD, ()),
    (STATUS, "status", CMD, ()),
    (
        CONFIGURE_BUILD,
        "configure_build",
        CMD,
        (
            _f("build_id", U16, 1),
            _a("tiles", U8S, 0, 64, 1, MAX_TRACKS),
            _f("stacks", U8, 1, 32),
            _a("colours", U8S, 1, MAX_COLOURS, 0, MAX_COLOURS),
            _f("empty_mixer", U8, 0, 1),
        ),
    ),
    (MIX, "mix", CMD, (_f("duration_ms", U16, 0, 60000),)),
    (BUILD, "build", CMD, (_f("build_id", U16, 1),)),
    (LIFT, "lift", CMD, ()),
    (DOOR, "door", CMD, (_f("open", U8, 0, 1),)),
    (STOP, "stop", CMD, ()),
    (ABORT, "abort", CMD, ()),
    (CLEAR_FAULT, "clear_fault", CMD, (_f("code", U8, 0, len(FAULTS) - 1),)),
    (SELF_TEST, "self_test", CMD, (_f("kind", U8, 1, len(DEVICES) - 1), _f("index", U8, 0, MAX_TRACKS))),
    (CALIBRATE, "calibrate", CMD, (_f("colour", U8, 1, MAX_COLOURS), _f("track", U8, *_TRACK))),
    (EXIT_REPL, "exit_repl", CMD, (_f("magic", U32, REPL_MAGIC, REPL_MAGIC),)),
    (LIGHT, "light", CMD, (_f("pattern", U8, 0, len(LIGHTS) - 1),)),
    (
        SET_CALIBRATION,
        "set_calibration",
        CMD,
        (
            _f("track", U8, 0, MAX_TRACKS),
            _f("max_distance", U16, 1, REF_SCALE),
            _a("refs", U16S, 0, REF_SCALE, 3, 3 * MAX_COLOURS),
        ),
    ),
    (SET_COLOUR_NAMES, "set_colour_names", CMD, (_s("names", 28, 1),)),
    (
        PIN_PULSE,
        "pin_pulse",
        CMD,
        (_f("pin", U16, 0, PIN_MAX), _f("ms", U16, 10, PIN_PULSE_MAX_MS), _f("hold", U16, 0, PIN_NONE)),
    ),
    (PIN_READ, "pin_read", CMD, (_a("pins", U16S, 0, PIN_MAX, 1, PIN_READ_MAX),)),
    # events, table -> host
    (
        IDENTITY,
        "identity",
        EVT,
        (
            _f("version", U8, 1, 255),
            _f("minor", U8),
            _s("firmware", 16, 1),
            _s("board", 20, 1),
            _f("boot_nonce", U32, 1),
            _f("host_nonce", U32, 1),
            _f("tracks", U8, *_TRACK),
            _f("max_stacks", U8, 1, 32),
            _f("colours", U8, 1, MAX_COLOURS),
        ),
    ),
    (RESULT, "result", EVT, (_f("seq", U8), _f("msgid", U8), _f("code", U8), _f("field", U8))),
    (
        STATUS_REPLY,
        "status_reply",
        EVT,
        (
            _f("state", U8),
            _f("fault", U8),
            _f("build_id", U16),
            _f("paused", U8, 0, 1),
            _f("dropped", U16),
            _a("targets", U8S, 0, 64, 0, MAX_TRACKS),
            _a("counts", U8S, 0, 255, 0, 32),
        ),
    ),
    (STATE, "state", EVT, (_f("state", U8), _f("prev", U8))),
    (
        TILE,
        "tile",
        EVT,
        (
            _f("build_id", U16, 1),
            _f("track", U8, *_TRACK),
            _f("index", U8, 1, 255),
            _f("colour", U8, *_COLOUR),
            _f("clear", U16),
            _f("red", U16),
            _f("green", U16),
            _f("blue", U16),
        ),
    ),
    (TRACK_FULL, "track_full", EVT, (_f("build_id", U16, 1), _f("track", U8, *_TRACK), _f("count", U8))),
    (
        BUILD_DONE,
        "build_done",
        EVT,
        (_f("build_id", U16, 1), _a("counts", U8S, 0, 255, 1, 32), _f("mixer_empty", U8, 0, 1)),
    ),
    (LIFT_DONE, "lift_done", EVT, (_f("position", U8, LIFT_TOP, LIFT_BOTTOM),)),
    (DOOR_STATE, "door_state", EVT, (_f("state", U8),)),
    (GUARD, "guard", EVT, (_f("curtain", U8, 0, 1), _f("lid", U8, 0, 1))),
    (
        FAULT,
        "fault",
        EVT,
        (_f("code", U8, 1), _f("track", U8, 0, MAX_TRACKS), _f("detail", U32)),
    ),
    (
        SELF_TEST_RESULT,
        "self_test_result",
        EVT,
        (
            _f("kind", U8, 1),
            _f("index", U8, 0, MAX_TRACKS),
            _f("result", U8),
            _f("value", U32),
        ),
    ),
    (BUTTON, "button", EVT, (_f("button", U8, 1),)),
    (LOG, "log", EVT, (_f("level", U8), _s("text", 54))),
    (ABOUT, "about", EVT, (_s("implementation", 12, 1), _s("version", 12, 1), _s("colours", 28, 1))),
    (LIFT_STROKE, "lift_stroke", EVT,
     (_f("position", U8, LIFT_TOP, LIFT_BOTTOM), _f("ms", U16), _f("peak_current", U16))),
    (PIN_LEVELS, "pin_levels", EVT, (_f("count", U8, 1, PIN_READ_MAX), _f("levels", U32))),
    (GUARD_STOP, "guard_stop", EVT,
     (_f("motor", U8, 1, 2), _f("input", U8, 1, 7), _f("at_ms", U16), _f("off_us", U32),
      _f("cut_us", U32))),
    (SAFETY, "safety", EVT,
     (_f("chain", U8, 0, 2), _f("power", U8, 0, 2), _f("relay_stuck", U8, 0, 1))),
)

# ---------------------------------------------------------------- lookups
BY_ID = [None] * 256  # msgid -> entry, or None
BY_NAME = {}  # name -> entry
for _e in MESSAGES:
    BY_ID[_e[0]] = _e
    BY_NAME[_e[1]] = _e
_e = None


def lookup(key):
    """The table entry for a message id (int) or name (str); KeyError if none."""
    e = BY_NAME.get(key) if isinstance(key, str) else (BY_ID[key] if 0 <= key < 256 else None)
    if e is None:
        raise KeyError(key)
    return e


def name_of(msgid):
    e = BY_ID[msgid] if 0 <= msgid < 256 else None
    return e[1] if e is not None else "0x%02x" % msgid


def field_names(key):
    return tuple(f[0] for f in lookup(key)[3])


def code_name(table, code):
    """Name of a code in ERRORS / STATES / FAULTS / DEVICES, or its number."""
    return table[code] if 0 <= code < len(table) else str(code)


class ProtocolError(ValueError):
    """A payload that does not match the table: .code is an error code (E_*), .field the
    0-based index of the offending field or NO_FIELD, .msgid the message id."""

    def __init__(self, code, field, msgid=0, text=None):
        if text is None:
            text = "%s: %s field %d" % (name_of(msgid), code_name(ERRORS, code), field)
        super().__init__(text)
        self.code = code
        self.field = field
        self.msgid = msgid


def max_payload(entry):
    """Largest payload in bytes the entry can encode to."""
    n = 0
    for f in entry[3]:
        t = f[1]
        if t <= I32:
            n += TYPE_SIZE[t]
        else:
            n += 1 + f[5] * TYPE_SIZE[t]
    return n


# ---------------------------------------------------------------- payload codec
# encode_payload and decode_payload validate every value against the table, so nothing
# out of range reaches a handler or leaves a sender.  encode_payload allocates nothing
# for scalar and array fields (str encodes to UTF-8 first).


def encode_payload(entry, values, buf, off):
    """Write entry's fields from values (any indexable) into buf at off; return the end
    offset.  Raises ProtocolError (E_BAD_LENGTH for a wrong number of values, E_RANGE)."""
    fields = entry[3]
    if len(values) != len(fields):
        raise ProtocolError(E_BAD_LENGTH, NO_FIELD, entry[0], "%s takes %d values, got %d" % (entry[1], len(fields), len(values)))
    i = 0
    for f in fields:
        t = f[1]
        v = values[i]
        if t <= I32:
            if v < f[2] or v > f[3]:
                raise ProtocolError(E_RANGE, i, entry[0], "%s.%s=%r outside %d..%d" % (entry[1], f[0], v, f[2], f[3]))
            if t == U8:
                buf[off] = v
                off += 1
            elif t == U16 or t == I16:
                v &= 0xFFFF
                buf[off] = v & 0xFF
                buf[off + 1] = v >> 8
                off += 2
            else:
                # struct writes a long integer's bytes without allocating: on a 32-bit
                # board a u32 of 2**30 or more (a nonce) is one, and shifting or masking
                # it would allocate a new one per operation
                _pack_into("<i" if t == I32 else "<I", buf, off, v)
                off += 4
        elif t == STR:
            if isinstance(v, str):
                v = v.encode("utf-8")
            n = len(v)
            if n < f[4] or n > f[5]:
                raise ProtocolError(E_RANGE, i, entry[0], "%s.%s is %d bytes, allowed %d..%d" % (entry[1], f[0], n, f[4], f[5]))
            buf[off] = n
            buf[off + 1 : off + 1 + n] = v
            off += 1 + n
        else:
            n = len(v)
            if n < f[4] or n > f[5]:
                raise ProtocolError(E_RANGE, i, entry[0], "%s.%s has %d items, allowed %d..%d" % (entry[1], f[0], n, f[4], f[5]))
            buf[off] = n
            off += 1
            lo = f[2]
            hi = f[3]
            for x in v:
                if x < lo or x > hi:
                    raise ProtocolError(E_RANGE, i, entry[0], "%s.%s item %r outside %d..%d" % (entry[1], f[0], x, lo, hi))
                if t == U8S:
                    buf[off] = x
                    off += 1
                else:
                    buf[off] = x & 0xFF
                    buf[off + 1] = x >> 8
                    off += 2
        i += 1
    return off


def check_length(entry, buf, off, end):
    """The layout check that comes before any range check (SPEC §9): raises
    E_BAD_LENGTH naming the first field that does not fit in buf[off:end], or
    NO_FIELD when bytes are left after the last field.  Allocates nothing."""
    i = 0
    for f in entry[3]:
        t = f[1]
        if t <= I32:
            off += TYPE_SIZE[t]
            if off > end:
                raise ProtocolError(E_BAD_LENGTH, i, entry[0])
        else:
            if off + 1 > end:
                raise ProtocolError(E_BAD_LENGTH, i, entry[0])
            off += 1 + buf[off] * TYPE_SIZE[t]
            if off > end:
                raise ProtocolError(E_BAD_LENGTH, i, entry[0])
        i += 1
    if off != end:
        raise ProtocolError(E_BAD_LENGTH, NO_FIELD, entry[0])


def decode_payload(entry, buf, off, end):
    """Values (a tuple; arrays as tuples of int, str as str) of the payload buf[off:end].
    Raises ProtocolError naming the field: E_BAD_LENGTH (too short: the first field that
    does not fit; too long: NO_FIELD), which takes priority over E_RANGE (the first
    field out of range, in wire order): a range error checks the whole layout first."""
    start = off
    out = []
    i = 0
    msgid = entry[0]
    for f in entry[3]:
        t = f[1]
        if t <= I32:
            if t == U8:
                if off + 1 > end:
                    raise ProtocolError(E_BAD_LENGTH, i, msgid)
                v = buf[off]
                off += 1
            elif t == U16 or t == I16:
                if off + 2 > end:
                    raise ProtocolError(E_BAD_LENGTH, i, msgid)
                v = buf[off] | (buf[off + 1] << 8)
                off += 2
                if t == I16 and v >= 0x8000:
                    v -= 0x10000
            else:
                if off + 4 > end:
                    raise ProtocolError(E_BAD_LENGTH, i, msgid)
                v = buf[off] | (buf[off + 1] << 8) | (buf[off + 2] << 16) | (buf[off + 3] << 24)
                off += 4
                if t == I32 and v >= 0x80000000:
                    v -= 0x100000000
            if v < f[2] or v > f[3]:
                raise _range_error(entry, buf, start, end, i)
        else:
            if off + 1 > end:
                raise ProtocolError(E_BAD_LENGTH, i, msgid)
            n = buf[off]
            off += 1
            size = n * TYPE_SIZE[t]
            if off + size > end:
                raise ProtocolError(E_BAD_LENGTH, i, msgid)
            if n < f[4] or n > f[5]:
                raise _range_error(entry, buf, start, end, i)
            if t == STR:
                try:
                    v = str(bytes(buf[off : off + n]), "utf-8")
                except (UnicodeError, ValueError):
                    raise _range_error(entry, buf, start, end, i)
            else:
                lo = f[2]
                hi = f[3]
                items = []
                k = off
                while k < off + size:
                    if t == U8S:
                        x = buf[k]
                        k += 1
                    else:
                        x = buf[k] | (buf[k + 1] << 8)
                        k += 2
                    if x < lo or x > hi:
                        raise _range_error(entry, buf, start, end, i)
                    items.append(x)
                v = tuple(items)
            off += size
        out.append(v)
        i += 1
    if off != end:
        raise ProtocolError(E_BAD_LENGTH, NO_FIELD, msgid)
    return tuple(out)


def _range_error(entry, buf, off, end, i):
    """E_RANGE for field i, unless the payload's layout is wrong (E_BAD_LENGTH first)."""
    check_length(entry, buf, off, end)
    return ProtocolError(E_RANGE, i, entry[0])


def encode(key, values):
    """Payload bytes of a message (convenience; allocates)."""
    e = lookup(key)
    buf = bytearray(max_payload(e))
    n = encode_payload(e, values, buf, 0)
    return bytes(buf[:n])


def decode(key, payload):
    """Values of a payload (bytes-like) of message key (id or name)."""
    return decode_payload(lookup(key), payload, 0, len(payload))
