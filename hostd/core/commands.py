"""The one list of commands (layer: session): each with its request model, whether it
moves motors, the states that take it, and the front ends that offer it.  The API's
routes, the CLI's subcommands, the MQTT verbs, Home Assistant's buttons and the page's
controls are all made from COMMANDS (tests/unit/test_commands.py checks each front end
against it), as Moonraker registers each endpoint once.

``can(state, ctx)`` is the list of command names the daemon would accept now: a command
is in it when a valid request with default parameters (``start`` without ``replace``,
``end`` without ``empty``) would be accepted; any other is refused with 409 and a code
naming the state.  While the table is not connected only ``abort`` is accepted (the motor
commands answer 503); ``abort`` always is.
"""
import importlib

from hostd.core.codes import in_this_game


# -- the list ------------------------------------------------------------------------------

class Command:
    """One command.  ``method``: the Daemon's; ``path``: its HTTP route (POST); ``cli``:
    its subcommand words; ``mqtt``: its MQTT verb (None: not over MQTT); ``ha``: (label,
    icon) of its Home Assistant button, or None; ``page``: the page offers it;
    ``accepted``: what its body may be, in words."""

    __slots__ = ("name", "summary", "method", "_request", "motors", "states", "path", "cli",
                 "mqtt", "ha", "page", "accepted")

    def __init__(self, name, summary, *, method, request, motors, states, path, cli, mqtt=None,
                 ha=None, page=True, accepted="no body, or {}"):
        self.name = name
        self.summary = summary
        self.method = method
        self._request = request  # its name in hostd/core/requests.py (pydantic: loaded when used)
        self.motors = motors
        self.states = states
        self.path = path
        self.cli = cli
        self.mqtt = mqtt
        self.ha = ha
        self.page = page
        self.accepted = accepted

    @property
    def request(self):
        """The request's model (pydantic)."""
        return getattr(importlib.import_module("hostd.core.requests"), self._request)


START_ACCEPTED = ('{"ruleset": "<name from GET /rulesets>", "mixed_deck": true|false '
                  '(default false), "seed": integer 0..2^53-1 or null (optional), '
                  '"replace": true|false, "loaded": true|false, "colours": ["A", "B"] '
                  '(two back colours, the same twice for identical backs; optional)}')

COMMANDS = (
    Command("start", "start a session: the table's starting position, then deck A built",
            method="start_session", request="StartRequest", motors=True, states="idle",
            path="/session", cli="session start", accepted=START_ACCEPTED),
    Command("hand_over", "end the hand (or begin the first): drop the played deck, raise the "
            "walls inside, rebuild", method="hand_over", request="EmptyRequest", motors=True,
            states="built; recovering (waiting); stopped (a lift the guard or a stall stopped)",
            path="/hand-over", cli="hand-over", mqtt="hand_over",
            ha=("Hand over", "mdi:swap-horizontal")),
    Command("dice", "the hand's throw and where to break the wall (nothing moves)",
            method="throw_dice", request="DiceRequest", motors=False,
            states="any session state with a hand's walls on the table top and no throw yet",
            path="/dice", cli="dice", mqtt="dice", ha=("Dice", "mdi:dice-multiple"),
            accepted='{"dice": [faces]} (physical dice, e.g. [3, 4]), {} or no body'),
    Command("continue", "people did what the table asked: close the open centre, or carry on "
            "with the step that stopped", method="continue_", request="EmptyRequest", motors=True,
            states="preparing, building (push); emptying (clear_top); stopped (not a wrong "
            "count)", path="/continue", cli="continue", mqtt="continue",
            ha=("Continue", "mdi:play")),
    Command("clear_fault", "the fault is fixed: clear it (refused while its cause is still "
            "there) and carry on", method="clear_fault", request="EmptyRequest", motors=True,
            states="table_fault; stopped (not a wrong count)", path="/clear-fault",
            cli="clear-fault", mqtt="clear_fault"),
    Command("game_new", "end the game and begin the next: Mixed Deck collects every tile and "
            "splits afresh", method="new_game", request="EmptyRequest", motors=True,
            states="built (a hand of the game played); building too for the normal rotation",
            path="/game", cli="game new", mqtt="game_new"),
    Command("end", "end the session (a step under way stops first); empty: every tile up to "
            "the table top", method="end_session", request="EndRequest", motors=True,
            states="every session state (with empty: idle too)", path="/session/end",
            cli="session end", accepted='{"empty": true|false} or no body'),
    Command("abort", "stop every motor at once and end the session", method="abort",
            request="EmptyRequest", motors=True, states="always", path="/abort", cli="abort",
            mqtt="abort"),
    Command("selftest", "exercise every device in a safe order (or one)", method="selftest",
            request="SelfTestRequest", motors=True, states="idle (no walls inside)",
            path="/selftest", cli="selftest", page=False,
            accepted='{"device": "<name>" or null, "track": 1.. or null, "write_timings": '
                     'true|false} or no body'),
    Command("calibrate", "read both sets on every track and calibrate the colour sensors",
            method="calibrate", request="CalibrateRequest", motors=True,
            states="idle (no walls inside)", path="/calibrate", cli="calibrate", page=False,
            accepted='{"sets": ["<colour>", "<other colour>"] (lower-case names), "mixed": '
                     'true|false, "first": 0|1, "ruleset": "<name>"}'),
)
BY_NAME = {c.name: c for c in COMMANDS}
NAMES = tuple(BY_NAME)


def can(state, ctx):
    """The command names the daemon would accept now (in COMMANDS' order)."""
    if state.name == "aborting" or not ctx.connected:
        return ["abort"]
    out = set(_by_state(state, ctx))
    out.add("abort")
    if in_this_game(state, ctx) and not _thrown(state):
        out.add("dice")
    return [n for n in NAMES if n in out]


def refused_with(name, connected):
    """The status a command not in ``can`` is refused with: 503 for one that moves motors
    while the table is not connected, else 409 (its code the state's name)."""
    return 503 if not connected and BY_NAME[name].motors else 409


def _thrown(state):
    if state.name == "stopped" and state.get("resume"):
        return bool(state["resume"]["params"].get("thrown"))
    return bool(state.get("thrown"))


def _game_has_a_hand(state, ctx):
    return (state.get("hand") or 0) >= ctx.first_hand


def _by_state(state, ctx):
    p = state.params
    name = state.name
    if name == "idle":
        return ("start",) if p.get("walls_inside") else ("start", "selftest", "calibrate")
    if name == "table_fault":
        return ("clear_fault",)
    if name == "emptying":
        return ("continue",) if p.get("stage") == "clear_top" else ()
    if name in ("bench",):
        return ()
    if not state.in_session:
        return ()
    out = ["end"]
    if name in ("preparing", "building") and p.get("stage") == "push":
        out.append("continue")
    if name == "built":
        out.append("hand_over")
        if _game_has_a_hand(state, ctx):
            out.append("game_new")
    if name == "building" and not ctx.mixed_deck and _game_has_a_hand(state, ctx):
        out.append("game_new")
    if name == "recovering" and p.get("stage") == "waiting":
        out.append("hand_over")
    if name == "stopped":
        out += _stopped_can(p)
    return out


def _stopped_can(p):
    if p.get("kind") in ("composition", "unresumable", "reset"):
        return []
    out = ["continue", "clear_fault"]
    resume = p.get("resume") or {}
    if resume.get("name") == "hand_over" and p.get("kind") in ("guard", "lift-stall", "limit",
                                                               "door"):
        out.append("hand_over")  # the start button pressed again repeats the lift
    return out


def offered_by(front_end):
    """The command names a front end offers: "http", "cli", "mqtt", "ha", "page"."""
    pick = {"http": lambda c: c.path, "cli": lambda c: c.cli, "mqtt": lambda c: c.mqtt,
            "ha": lambda c: c.ha, "page": lambda c: c.page}[front_end]
    return [c.name for c in COMMANDS if pick(c)]
