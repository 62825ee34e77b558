"""The one list of commands (layer: session): each row is the whole of a command: its
request model, whether it moves motors, its handler (what it runs on the daemon), the
states that take it (``When``: a state, a further test of its parameters, the words for
people), the reason it is refused in the states that do not (per state), and the front
ends that offer it.  Everything else is made from the rows: ``can``, the 409 refusals'
words (``why_not``), OpenAPI's "accepted in" text (``Command.states``), docs/FAULTS.md's
tables (hostd/core/tables.py, checked by tests/unit/test_docs_tables.py), the API's
routes, the CLI's subcommands, the MQTT verbs, Home Assistant's buttons and the page's
controls (tests/unit/test_commands.py checks each front end against the list), as
Moonraker registers each endpoint once.

``can(state, ctx)`` is the list of command names the daemon would accept now: a command
is in it when a valid request with default parameters (``start`` without ``replace``,
``end`` without ``empty``) would be accepted; a ``When`` with an ``option`` takes the
command only with that request field true (``takes``).  Any other is refused with 409 and
a code naming the state.  While the table is not connected only ``abort`` is accepted
(the motor commands answer 503); ``abort`` always is.
"""
import importlib

from hostd.core.codes import in_this_game
from hostd.core.state import SESSION_STATES, STATES, Stage

ALL_STATES = tuple(STATES)
#: the session states in which a hand's walls can be on the table top
PLAY_STATES = ("building", "built", "hand_over", "stopped", "recovering")
#: the stops people cannot carry on from (a wrong count, a reset, a step that cannot resume)
NOT_RESUMABLE = ("composition", "unresumable", "reset")
#: the stops of a lift that the start button pressed again repeats
LIFT_STOPS = ("guard", "lift-stall", "limit", "door")


# -- when a command is taken -------------------------------------------------------------------

class When:
    """States that take a command: ``states`` (names), ``test(state, ctx)`` (a further
    condition, or None: always), ``words`` (the condition for people), ``option`` (taken
    only with this request field true: not in ``can``, which judges the defaults)."""

    __slots__ = ("states", "test", "words", "option")

    def __init__(self, states, test=None, words=None, option=None):
        self.states = (states,) if isinstance(states, str) else tuple(states)
        unknown = [s for s in self.states if s not in STATES]
        if unknown:
            raise ValueError("no state %s" % ", ".join(unknown))
        self.test = test
        self.words = words
        self.option = option

    def holds(self, state, ctx):
        return state.name in self.states and (self.test is None or bool(self.test(state, ctx)))

    @property
    def text(self):
        """"built", "recovering (waiting)", "every session state": for people."""
        names = state_names(self.states)
        if self.option:
            return "%s (with %s%s)" % (names, self.option, ": %s" % self.words if self.words
                                       else "")
        return "%s (%s)" % (names, self.words) if self.words else names


def state_names(states):
    """States in words: their names, or "every state", "every session state"."""
    if set(states) == set(ALL_STATES):
        return "every state"
    if set(states) == set(SESSION_STATES):
        return "every session state"
    return ", ".join(states)


def _at(*stages):
    """(test, words) of a When taken at these stages of its state."""
    return (lambda state, ctx: state.get("stage") in stages), ", ".join(stages)


def _resumable(state, ctx):
    return state.get("kind") not in NOT_RESUMABLE


def _lift_stopped(state, ctx):
    resume = state.get("resume") or {}
    return resume.get("name") == "hand_over" and state.get("kind") in LIFT_STOPS


def _thrown(state):
    if state.name == "stopped" and state.get("resume"):
        return bool(state["resume"]["params"].get("thrown"))
    return bool(state.get("thrown"))


def _throw_due(state, ctx):
    return bool(in_this_game(state, ctx)) and not _thrown(state)


def _game_has_a_hand(state, ctx):
    return (state.get("hand") or 0) >= ctx.first_hand


def _normal_game_has_a_hand(state, ctx):
    return not ctx.mixed_deck and _game_has_a_hand(state, ctx)


def _reading_kept(state, ctx):
    return bool(state.get("reading"))


def _session_open(state, ctx):
    return ctx.session is not None and ctx.connected


# -- the handlers: what each command runs on the daemon (with its request model) -------------

def _start(daemon, req):
    return daemon.start_session(req.ruleset, req.mixed_deck, req.seed, replace=req.replace,
                                loaded=req.loaded, colours=req.colours)


def _hand_over(daemon, req):
    return daemon.hand_over()


def _dice(daemon, req):
    return daemon.throw_dice(req.dice)


def _continue(daemon, req):
    return daemon.continue_()


def _clear_fault(daemon, req):
    return daemon.clear_fault()


def _game_new(daemon, req):
    return daemon.new_game()


def _end(daemon, req):
    return daemon.end_session(empty=req.empty)


def _abort(daemon, req):
    return daemon.abort()


def _selftest(daemon, req):
    return daemon.selftest(req.device, req.track, write_timings=req.write_timings)


def _calibrate(daemon, req):
    return daemon.calibrate(req.sets, req.ruleset, ask=req.ask)


def _survey(daemon, req):
    return daemon.survey(req.action, pin=req.pin, hold=req.hold, ms=req.ms, pins=req.pins)


def _name_sets(daemon, req):
    return daemon.name_sets(req.names, swap=req.swap)


# -- the list ------------------------------------------------------------------------------

class Command:
    """One command.  ``run(daemon, request)``: its handler (the coroutine it answers with);
    ``accepted_in``: the ``When``s that take it; ``refused``: {state name: why it is
    refused there} (the 409's words, where the state's name does not say it); ``path``:
    its HTTP route (POST); ``cli``: its subcommand words; ``mqtt``: its MQTT verb (None:
    not over MQTT); ``ha``: (label, icon) of its Home Assistant button, or None; ``page``:
    the page offers it; ``accepted``: what its body may be, in words."""

    __slots__ = ("name", "summary", "run", "_request", "motors", "needs_table", "accepted_in",
                 "refused", "path", "cli", "mqtt", "ha", "page", "accepted")

    def __init__(self, name, summary, *, run, request, motors, accepted_in, refused=(), path,
                 cli, mqtt=None, ha=None, page=True, accepted="no body, or {}",
                 needs_table=None):
        self.name = name
        self.summary = summary
        self.run = run
        self._request = request  # its name in hostd/core/requests.py (pydantic: loaded when used)
        self.motors = motors
        # it needs the table connected (503 while it is not): every command that moves
        # motors, and one that only tells the table something (name_sets' references)
        self.needs_table = motors if needs_table is None else needs_table
        self.accepted_in = tuple(accepted_in)
        self.refused = {}
        for states, why in refused:
            for s in ((states,) if isinstance(states, str) else states):
                if s not in STATES:
                    raise ValueError("%s: no state %s" % (name, s))
                self.refused[s] = why
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

    @property
    def states(self):
        """Where it is accepted, in words (OpenAPI's text, docs/FAULTS.md)."""
        return "; ".join(w.text for w in self.accepted_in)

    def takes(self, state, ctx):
        """Whether the rows take it in ``state`` with default parameters (the connection
        aside: ``can``)."""
        return any(w.option is None and w.holds(state, ctx) for w in self.accepted_in)


START_ACCEPTED = ('{"ruleset": "<name from GET /rulesets>", "mixed_deck": true|false '
                  '(default false), "seed": integer 0..2^53-1 or null (optional), '
                  '"replace": true|false, "loaded": true|false, "colours": ["A", "B"] '
                  '(two back colours, the same twice for identical backs; optional)}')
_SESSION_OPEN = "a session is open: end it (or abort it) first, then "

COMMANDS = (
    Command("start", "start a session: the table's starting position, then deck A built",
            run=_start, request="StartRequest", motors=True,
            accepted_in=(When("idle"),
                         When(ALL_STATES, _session_open, "a session open, the table connected",
                              option="replace")),
            refused=((SESSION_STATES, "a session is open: end it, abort it, or replace it"),),
            path="/session", cli="session start", accepted=START_ACCEPTED),
    Command("hand_over", "end the hand (or begin the first): drop the played deck, raise the "
            "walls inside, rebuild", run=_hand_over, request="EmptyRequest", motors=True,
            accepted_in=(When("built"), When("recovering", *_at(Stage.WAITING)),
                         When("stopped", _lift_stopped, "a lift the guard, a stall, a limit "
                              "switch or the door stopped")),
            path="/hand-over", cli="hand-over", mqtt="hand_over",
            ha=("Hand over", "mdi:swap-horizontal")),
    Command("dice", "the hand's throw and where to break the wall (nothing moves)",
            run=_dice, request="DiceRequest", motors=False,
            accepted_in=(When(PLAY_STATES, _throw_due, "a hand of the game under way with its "
                              "walls on the table top and no throw yet"),),
            refused=((SESSION_STATES, "the throw comes once a hand's walls are on the table "
                                      "top, once a hand"),),
            path="/dice", cli="dice", mqtt="dice", ha=("Dice", "mdi:dice-multiple"),
            accepted='{"dice": [faces]} (physical dice, e.g. [3, 4]), {} or no body'),
    Command("continue", "people did what the table asked: close the open centre, or carry on "
            "with the step that stopped", run=_continue, request="EmptyRequest", motors=True,
            accepted_in=(When("preparing", *_at(Stage.PUSH, Stage.FIND)),
                         When("building", *_at(Stage.PUSH)),
                         When("emptying", *_at(Stage.CLEAR_TOP)),
                         When("bench", *_at(Stage.PUSH)),
                         When("stopped", _resumable, "not a wrong count, a reset or an "
                              "unresumable step")),
            path="/continue", cli="continue", mqtt="continue", ha=("Continue", "mdi:play")),
    Command("clear_fault", "the fault is fixed: clear it (refused while its cause is still "
            "there) and carry on", run=_clear_fault, request="EmptyRequest", motors=True,
            accepted_in=(When("table_fault"),
                         When("stopped", _resumable, "not a wrong count, a reset or an "
                              "unresumable step")),
            path="/clear-fault", cli="clear-fault", mqtt="clear_fault"),
    Command("game_new", "end the game and begin the next: Mixed Deck collects every tile and "
            "splits afresh", run=_game_new, request="EmptyRequest", motors=True,
            accepted_in=(When("built", _game_has_a_hand, "a hand of the game played"),
                         When("building", _normal_game_has_a_hand, "the normal rotation, a "
                              "hand of the game played")),
            refused=((SESSION_STATES, "a new game begins once a hand of this game was played "
                                      "and nothing is being recovered or asked"),),
            path="/game", cli="game new", mqtt="game_new"),
    Command("end", "end the session (a step under way stops first); empty: every tile up to "
            "the table top", run=_end, request="EndRequest", motors=True,
            accepted_in=(When(SESSION_STATES), When(("idle", "table_fault"), option="empty")),
            refused=(("idle", "no session is open (an end with empty brings every tile up "
                              "without one)"),),
            path="/session/end", cli="session end", accepted='{"empty": true|false} or no body'),
    Command("abort", "stop every motor at once and end the session", run=_abort,
            request="EmptyRequest", motors=True, accepted_in=(When(ALL_STATES),),
            path="/abort", cli="abort", mqtt="abort"),
    Command("selftest", "exercise every device in a safe order (or one)", run=_selftest,
            request="SelfTestRequest", motors=True,
            # (walls inside: its lift stroke brings them up; a table fault: it reads every
            # device and moves nothing, saying so)
            accepted_in=(When(("idle", "table_fault")),),
            refused=((SESSION_STATES, _SESSION_OPEN + "run the self-test"),),
            path="/selftest", cli="selftest", page=False,
            accepted='{"device": "<name>" or null, "track": 1.. or null, "write_timings": '
                     'true|false} or no body'),
    Command("calibrate", "read both sets on every track (one pass when both are in the mixer, "
            "else one set at a time) and calibrate the colour sensors",
            run=_calibrate, request="CalibrateRequest", motors=True,
            accepted_in=(When("idle"),),
            refused=((SESSION_STATES, _SESSION_OPEN + "calibrate"),
                     ("table_fault", "the table reports a fault: fix it and clear it, then "
                                     "calibrate")),
            path="/calibrate", cli="calibrate", page=False,
            accepted='{"sets": ["<colour>", "<other colour>"] (lower-case names; read one at a '
                     'time, the first is the set in the mixer), "ruleset": "<name>", "ask": '
                     'true|false (true: never name the classes by themselves)}'),
    Command("name_sets", "say which of the two sets each back colour the last calibration read "
            "is (class 1 first), or swap the names the calibration gave: nothing moves; the "
            "profile is written again and the table takes the references",
            run=_name_sets, request="NameSetsRequest", motors=False, needs_table=True,
            accepted_in=(When("idle", _reading_kept, "a calibration's reading is kept"),
                         When("idle", option="swap")),
            refused=((SESSION_STATES, _SESSION_OPEN + "name the sets"),
                     ("idle", "no calibration's reading is kept (the daemon restarted, or "
                              "none ran): calibrate first, or swap the names of the last "
                              "calibration"),
                     ("table_fault", "the table reports a fault: fix it and clear it, then "
                                     "name the sets")),
            path="/name-sets", cli="name-sets", page=True,
            accepted='{"names": ["<class 1\'s colour>", "<class 2\'s colour>"]} (two of the '
                     'calibration\'s sets), or {"swap": true}'),
    Command("survey", "the wiring survey: find which motor, coil and switch each pin reaches "
            "(an output moved for a moment while a person says what moved, the inputs watched "
            "while they press each switch) and write the map into the board profile",
            run=_survey, request="SurveyRequest", motors=True,
            # (a table fault too: a draft's map makes the firmware see faults that are not
            # there, a beam read on a pin that reaches a pressed switch)
            accepted_in=(When(("idle", "table_fault")),),
            refused=((SESSION_STATES, _SESSION_OPEN + "survey the wiring"),),
            path="/survey", cli="survey", page=False,
            accepted='{"action": "plan" | "pulse" | "watch" | "write", "pin": n, "hold": n, '
                     '"ms": n, "pins": {"<signal>": pin}} (pulse: pin, and hold for a driver\'s '
                     'DIR; watch: ms; write: pins)'),
)
BY_NAME = {c.name: c for c in COMMANDS}
NAMES = tuple(BY_NAME)


def can(state, ctx):
    """The command names the daemon would accept now (in COMMANDS' order)."""
    if state.name == "aborting" or not ctx.connected:
        return ["abort"]
    return [c.name for c in COMMANDS if c.takes(state, ctx)]


def takes(name, state, ctx, **options):
    """Whether the daemon takes command ``name`` with these request fields now: in ``can``,
    or by a ``When`` that names one of ``options`` (``start`` with ``replace``, ``end``
    with ``empty``)."""
    c = BY_NAME[name]
    if name in can(state, ctx):
        return True
    return any(w.option and options.get(w.option) and w.holds(state, ctx)
               for w in c.accepted_in)


def why_not(name, state):
    """Why command ``name`` is refused in ``state``, where the state's name does not say it
    (the rows' ``refused``), or None."""
    return BY_NAME[name].refused.get(state.name)


def refused_with(name, connected):
    """The status a command not in ``can`` is refused with: 503 for one that needs the table
    (it moves motors, or tells the table something) while the table is not connected, else
    409 (its code the state's name)."""
    return 503 if not connected and BY_NAME[name].needs_table else 409


def offered_by(front_end):
    """The command names a front end offers: "http", "cli", "mqtt", "ha", "page"."""
    pick = {"http": lambda c: c.path, "cli": lambda c: c.cli, "mqtt": lambda c: c.mqtt,
            "ha": lambda c: c.ha, "page": lambda c: c.page}[front_end]
    return [c.name for c in COMMANDS if pick(c)]
