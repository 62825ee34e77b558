"""What happens next, as a code with parameters (layer: session).

``next_step(state, ctx)`` is a function of the table's one state (hostd/core/state.py) and
a few facts of the session (``Context``): ``{"code", "params", "text", "action"}``.
``code`` is one of NEXT (docs/API.md "What happens next" lists them all, with their
parameters and English text); ``text`` is plain English that names no command of any
front end; ``action`` is the command a person should take now (hostd/core/commands.py),
or null.  Each front end words the code itself: the CLI in English naming `jantaku`
commands, the page in English and Japanese naming its buttons, Home Assistant as an enum.

``fault_of(state, table)`` is the one open fault, or None, for every front end alike.
"""
import datetime

from hostd.core.state import Stage, State

#: code -> (its parameters, its English text); a text's {names} are its parameters and
#: a few derived words (``{deck}`` "deck A", ``{hand}`` "hand 2 of game 1", ``{fault}``,
#: ``{todo}``, ``{until}`` a local time)
NEXT = {
    "table_disconnected": (("error",), "The table is not connected ({error}): check its cable "
                                       "and power; the daemon reconnects by itself."),
    "table_cannot_start": (("error",), "The table's firmware cannot start: {error}. Fix what it "
                                       "names in the board profile (or the board), then flash "
                                       "it again."),
    "abort_pending": ((), "The abort is not confirmed yet: it is sent again as soon as the "
                          "table answers."),
    "start_session": (("colours",), "Start a session: choose a ruleset (the sets' backs: "
                                    "{colours})."),
    "take_tiles_out": (("colours",), "Every tile is on the table top: take the sets out, or "
                                     "start a session."),
    "table_fault": (("kind", "track"), "The table reports a fault: {fault}: {todo}."),
    "self_test": ((), "The self-test is running: wait."),
    "calibrating": ((), "The calibration is running: wait."),
    "surveying": ((), "The wiring survey is pulsing an output or watching the inputs: say "
                      "what moved, or press the switch it asks for."),
    "return_test_tiles": (("tiles", "until"), "Push the {tiles} tiles the self-test raised onto "
                                              "the table top back into the open centre (only "
                                              "those): it closes {until}."),
    "hold_test_rod": (("until",), "The stop test: hold the test rod by a lift opening, out of "
                                  "the light curtain; the lift rises {until} (say you are ready: "
                                  "the start button or continue), and as it rises put the rod "
                                  "into the curtain."),
    "push_other_set": (("until",), "Push the other set, on the table top, into the open centre "
                                   "(leave the walls that just came up): it closes {until}."),
    "push_walls_back": (("until",), "Push the walls the calibration just read back into the "
                                    "open centre: it closes {until}."),
    "name_sets": (("colours", "classes"), "The calibration read two back colours: say which of "
                                          "{colours} is class 1 (the set read first) and which "
                                          "class 2; nothing moves, and a wrong answer can be "
                                          "named again without reading again."),
    "emptying": (("round",), "Bringing every tile up to the table top: wait."),
    "clear_top": (("tiles", "until"), "Take the tiles on the table top out: {tiles} more come "
                                      "up from the mixer {until}."),
    "collecting": (("game",), "Bringing every tile into the mixer for game {game}: wait."),
    "push_all": (("game", "until"), "Push every tile on the table top into the centre: it "
                                    "closes {until}."),
    "mixer_short": (("deck",), "Deck A took every tile in the mixer, so the two sets were not "
                               "both in it: push every tile on the table top into the open "
                               "centre: it stays open until people say they are done."),
    "find_stray": (("colour",), "Every tile is on the table top and the centre stays shut: "
                                "find the tile with a {colour} back that is not of the sets "
                                "(among the {colour} backs, a face with a copy too many), take "
                                "it out and say so; then every tile goes into the centre and "
                                "the decks are split again."),
    "building": (("deck", "game"), "{deck} is being built inside for game {game}: wait."),
    "push_rest": (("deck", "until"), "Push the rest of {deck}'s tiles into the centre: it "
                                     "closes {until}."),
    "push_missed": (("deck", "hand", "game"), "The centre closed before every tile of {deck} "
                                              "went in: press continue, and push the rest in "
                                              "while it is open again."),
    "press_start": (("deck", "hand", "game", "game_hand"),
                    "{deck} is built inside: press start to raise it and begin {hand}."),
    "press_dice": (("hand", "game", "game_hand"), "{hand}: press dice for the throw."),
    "playing_building": (("hand", "game", "game_hand", "deck"),
                         "{hand} is being played; {deck} is being built inside."),
    "playing": (("hand", "game", "game_hand", "deck"),
                "{hand} is being played; {deck} is built inside: when the hand ends, push the "
                "played tiles into the centre and press start."),
    "raising": (("hand", "game", "game_hand"), "Raising the walls for {hand}: wait."),
    "lift_down": (("hand", "game", "game_hand"), "{hand} begins: the lift goes back down."),
    "recovery_waits": (("hand", "game", "game_hand", "kind"),
                       "The walls inside are not trusted after a table restart: at the hand "
                       "over (the played tiles in the centre, press start) the table sorts it "
                       "out."),
    "recovering": (("kind", "stage"), "The table is sorting out the walls a restart left "
                                      "inside: wait."),
    "stopped": (("step", "kind", "track", "deck"), "{fault}: {todo}."),
}

#: what people do about each stop or table fault (its kind): the command that carries on
#: and the words (docs/FAULTS.md)
TODO = {
    "jam": ("clear_fault", "take the stuck tile out of {track} by hand, then clear the fault"),
    "short": ("continue", "find the missing tiles of {deck}, put them into the mixer (lift the "
                          "lid) and close the lid, then continue"),
    "short-top": ("continue", "{deck}'s tiles did not all go into the centre: continue, then "
                              "push the rest in when the centre opens"),
    "surplus": ("continue", "take the extra tiles out of the mixer (lift the lid), then "
                            "continue; if the two sets were mixed, abort and start Mixed Deck "
                            "instead"),
    "stray": ("continue", "leave the tile in the mixer, it is one of the sets: a tile that is "
                          "not of the sets went into the walls; when the hand in play is "
                          "over, continue: every tile comes up onto the table top to find the "
                          "stray, then the decks are split again"),
    "overfill": ("clear_fault", "take the extra tile off {track} by hand, then clear the fault"),
    "misread": ("clear_fault", "clean the colour sensor of {track}, then clear the fault"),
    "sensor": ("clear_fault", "check the wiring of {track}'s sensor, then clear the fault"),
    "colour": ("clear_fault", "a tile of another back colour is in the table: take it out of "
                              "{track}, then clear the fault"),
    "guard": ("continue", "clear the light curtain and close the lid, then continue"),
    "lift-stall": ("continue", "look for something blocking the lift, then continue"),
    "limit": ("continue", "check the lift's end switches, then continue"),
    "door": ("continue", "look for something blocking the centre door, then continue"),
    "build-timeout": ("clear_fault", "look for a stuck tile or an empty mixer, then clear the "
                                     "fault"),
    "internal": ("clear_fault", "clear the fault; if it comes again, restart the table"),
    "count": ("clear_fault", "turn the potentiometer of {track}'s counting sensor until it pulses once "
                             "per tile (the table put its count right from the colour sensor), then "
                             "clear the fault"),
    "link-lost": ("continue", "check the table's cable, then continue"),
    "composition": ("abort", "find the missing or stray tile, or abort and start a new Mixed "
                             "Deck session, which collects every tile and splits them again"),
    "not_connected": ("continue", "check the table's cable and power, then continue"),
    "reset": ("end", "the sets can't be told apart by the table now: end the session, sort "
                     "the tiles by back colour and start a new one"),
    "unresumable": ("abort", "abort, then start again"),
    "refused": ("continue", "continue tries again"),
}
KINDS = tuple(TODO)


class Context:
    """The facts besides the state that words need: the link, the session's game's first
    hand, the default sets, the session's id."""

    __slots__ = ("connected", "error", "first_hand", "colours", "session", "mixed_deck",
                 "boot_error", "reading")

    def __init__(self, *, connected=True, error=None, first_hand=1, colours=("blue", "green"),
                 session=None, mixed_deck=False, boot_error=None, reading=None):
        self.connected = connected
        self.error = error
        self.boot_error = boot_error  # what a board that cannot start says (its line)
        self.first_hand = first_hand  # the session-wide number of the game's first hand
        self.colours = tuple(colours)
        self.session = session
        self.mixed_deck = mixed_deck
        # a calibration's kept reading: {"sets": [a, b], "classes": [...]} (its two classes,
        # each with its tiles, mean colour and swatch), or None
        self.reading = reading


def _deck(d):
    return "deck %s" % d if d else "the deck being built"


def _track(t):
    return "track %d" % t if t else "the track"


def _hand(hand, game, game_hand):
    if not hand:
        return "the first hand"
    return "hand %d of game %d" % (game_hand or hand, game or 1)


def _until(t):
    """"at 20:15:04 (local time) or when people say they are done", or the latter."""
    if not t:
        return "when people say they are done"
    return "at %s or when people say they are done" % (
        datetime.datetime.fromtimestamp(t).strftime("%H:%M:%S"))


def describe_backs(backs):
    """"blue 64, green 72": a deck's back colours."""
    return ", ".join("%s %d" % (k, backs[k]) for k in sorted(backs))


def todo_text(kind, *, track=None, deck=None):
    action, words = TODO.get(kind, TODO["refused"])
    return words.format(track=_track(track), deck=_deck(deck))


def todo_action(kind):
    return TODO.get(kind, TODO["refused"])[0]


def render(code, params, **words):
    """The English text of ``code`` with ``params`` (and derived ``words``): never a
    placeholder, never a Python value."""
    keys, text = NEXT[code]
    p = dict(params)
    fmt = {k: ("none" if p.get(k) is None else p.get(k)) for k in keys}
    fmt.update(words)
    if "deck" in keys:
        fmt["deck"] = _deck(p.get("deck"))
    if "track" in keys:
        fmt["track"] = _track(p.get("track"))
    if "until" in keys:
        fmt["until"] = _until(p.get("until"))
    if "colours" in keys:
        c = list(p.get("colours") or ())
        fmt["colours"] = " and ".join(c) if c else "as the table is set up"
    if "hand" in keys:
        fmt["hand"] = _hand(p.get("hand"), p.get("game"), p.get("game_hand"))
    if "error" in keys:
        fmt["error"] = p.get("error") or "waiting for it"
    out = text.format(**fmt)
    return out[:1].upper() + out[1:]


def _next(code, action=None, **params):
    keys = NEXT[code][0]
    params = {k: params.get(k) for k in keys}
    return {"code": code, "params": params, "text": None, "action": action, "_words": {}}


def _hand_params(state, ctx, hand=None):
    hand = state.get("hand", 0) if hand is None else hand
    return {"hand": hand, "game": state.get("game", 1),
            "game_hand": max(0, hand - ctx.first_hand + 1) if hand else 0}


def next_step(state, ctx, *, table_fault=None):
    """What happens next in ``state``: ``{"code", "params", "text", "action"}``."""
    if state.name == "aborting":
        n = _next("abort_pending")
    elif not ctx.connected and ctx.boot_error:
        n = _next("table_cannot_start", error=ctx.boot_error)
    elif not ctx.connected:
        n = _next("table_disconnected", error=ctx.error)
    else:
        n = _by_state(state, ctx, table_fault)
    words = n.pop("_words")
    n["text"] = render(n["code"], n["params"], **words)
    return n


def _by_state(state, ctx, table_fault):
    """The next step of a connected table's state: a function a state (_BY_STATE), the
    game's play states (building, built, hand_over, recovering) by _play_next."""
    by = _BY_STATE.get(state.name)
    if by is None:
        return _play_next(state, ctx)
    return by(state.params, ctx, table_fault)


# -- the next step, one function a state (each: the state's params, ctx, the table's fault)
def _idle_next(p, ctx, table_fault):
    if p.get("reading") == "unnamed" and ctx.reading:
        return _next("name_sets", "name_sets", colours=list(ctx.reading["sets"]),
                     classes=list(ctx.reading["classes"]))
    where = p.get("where") or {}
    code = ("take_tiles_out" if where and not p.get("walls_inside")
            and all(w == "top" for w in where.values()) else "start_session")
    return _next(code, "start", colours=list(ctx.colours))


def _table_fault_next(p, ctx, table_fault):
    todo, action = table_fault_todo(p.get("kind"), p.get("track"))
    n = _next("table_fault", action, kind=p.get("kind"), track=p.get("track"))
    n["_words"] = {"fault": (table_fault or {}).get("message") or "the table stopped",
                   "todo": todo}
    return n


def _bench_next(p, ctx, table_fault):
    if p.get("stage") == Stage.PUSH:
        if p.get("push") == "test_tiles":
            return _next("return_test_tiles", "continue", tiles=p.get("tiles"),
                         until=p.get("until"))
        if p.get("push") == "test_rod":
            return _next("hold_test_rod", "continue", until=p.get("until"))
        return _next("push_other_set" if p.get("push") == "other_set" else "push_walls_back",
                     "continue", until=p.get("until"))
    return _next({"calibrate": "calibrating", "survey": "surveying"}.get(p.get("what"),
                                                                          "self_test"))


def _emptying_next(p, ctx, table_fault):
    if p.get("stage") == Stage.CLEAR_TOP:
        return _next("clear_top", "continue", tiles=p.get("tiles"), until=p.get("until"))
    return _next("emptying", round=p.get("round"))


def _stopped_next(p, ctx, table_fault):
    if p.get("kind") == "short-top":  # people's step, not a fault
        return _next("push_missed", "continue", deck=p.get("deck"), hand=p.get("hand"),
                     game=p.get("game"))
    return _stop_next("stopped", p.get("kind"), p.get("track"), p.get("deck"),
                      (p.get("fault") or {}).get("message"), step=p.get("step"),
                      kind=p.get("kind"), track=p.get("track"), deck=p.get("deck"))


def _preparing_next(p, ctx, table_fault):
    if p.get("stage") == Stage.FIND:
        return _next("find_stray", "continue", colour=p.get("colour"))
    if p.get("stage") == Stage.PUSH:
        if p.get("reason") == "mixer_short":
            return _next("mixer_short", "continue", deck="A")
        return _next("push_all", "continue", game=p.get("game"), until=p.get("until"))
    return _next("collecting", game=p.get("game"))


_BY_STATE = {"idle": _idle_next, "table_fault": _table_fault_next, "bench": _bench_next,
             "emptying": _emptying_next, "stopped": _stopped_next, "preparing": _preparing_next}


def _stop_next(code, what, at_track, of_deck, message, **params):
    action = todo_action(what)  # (after a stopped lift, start pressed again works too)
    n = _next(code, action, **params)
    n["_words"] = {"fault": message or "the table stopped",
                   "todo": todo_text(what, track=at_track, deck=of_deck)}
    return n


def in_this_game(state, ctx):
    """The hand in play (its number) if it is of the game under way, else 0: after a
    new game of the normal rotation, the hand on the table was the last one's."""
    hand = state.hand_in_play()
    return hand if hand >= ctx.first_hand else 0


def _play_next(state, ctx):
    p = state.params
    hp = _hand_params(state, ctx)
    in_play = in_this_game(state, ctx)
    if state.name == "building" and p.get("stage") == Stage.PUSH:
        # the centre is open for the played tiles: the push outranks the throw (people
        # look at the headline; the dice can wait, the window cannot)
        return _next("push_rest", "continue", deck=p.get("deck"), until=p.get("until"))
    if in_play and not p.get("thrown") and state.name != "hand_over" or (
            state.name == "hand_over" and p.get("stage") == Stage.SETTLE and not p.get("thrown")):
        return _next("press_dice", "dice", **hp)
    if state.name == "hand_over":
        if p.get("stage") == Stage.RAISE:
            return _next("raising", **hp)
        return _next("lift_down", **hp)
    if state.name == "building":
        if in_play:
            return _next("playing_building", deck=p.get("deck"), **hp)
        return _next("building", deck=p.get("deck"), game=p.get("game"))
    if state.name == "built":
        if in_play:
            return _next("playing", "hand_over", deck=p.get("deck"), **hp)
        nxt = _hand_params(state, ctx, hand=(p.get("hand") or 0) + 1)
        return _next("press_start", "hand_over", deck=p.get("deck"), **nxt)
    # recovering
    if p.get("stage") == Stage.WAITING:
        return _next("recovery_waits", "hand_over", kind=p.get("kind"), **hp)
    return _next("recovering", kind=p.get("kind"), stage=p.get("stage"))


def fault_of(state, table_fault=None):
    """The one open fault, the same for every front end: the stop a person must fix (its
    step, kind, track, deck, message and what to do), or the fault the table reports; None
    when nothing is wrong."""
    if state.name == "stopped" and state.params.get("kind") == "short-top":
        return None  # the centre closed before people pushed every tile in: their step
    if state.name == "stopped":
        p = state.params
        f = p.get("fault") or {}
        return {"kind": p.get("kind"), "track": p.get("track"), "deck": p.get("deck"),
                "step": p.get("step"), "message": f.get("message") or "the table stopped",
                "todo": todo_text(p.get("kind"), track=p.get("track"), deck=p.get("deck")),
                "action": todo_action(p.get("kind"))}
    if table_fault:
        kind = table_fault.get("kind")
        if state.name == "table_fault":
            todo, action = table_fault_todo(kind, table_fault.get("track"))
        else:  # (a stop's words: a step carries on)
            todo, action = todo_text(kind, track=table_fault.get("track")), todo_action(kind)
        return {"kind": kind, "track": table_fault.get("track"), "deck": None, "step": None,
                "message": table_fault.get("message"), "todo": todo, "action": action}
    return None


def table_fault_todo(kind, track=None):
    """What people do about a fault the table reports with no session open, and the
    command for it: (words, action).  No session carries on (one that ended left the fault
    standing, or a self-test or a calibration stopped on it): the fault is cleared as it
    is once its cause is gone, whatever a session would have done (a surplus says
    continue in a session, which no session takes)."""
    todo, action = todo_text(kind, track=track), todo_action(kind)
    if action != "clear_fault":
        todo = todo.replace("then continue", "then clear the fault")
        todo = todo.replace("continue tries again", "clearing the fault tries again")
        action = "clear_fault"
    return todo, action


def documented():
    """Every code (docs/API.md's table is checked against this)."""
    return tuple(NEXT)


def example_state(code):
    """A state (and table fault) that gives ``code``: for the docs' table and its test."""
    return _examples()[code]


def example_context(code):
    """More of the Context that gives ``code`` than the state says (keyword arguments)."""
    if code == "table_cannot_start":
        return {"boot_error": "ProfileError: pins.gate2: pin 3 is already used by gate1; "
                              "accepted: a pin number no other signal uses"}
    if code == "name_sets":
        return {"reading": {"sets": ["pink", "yellow"], "classes": [
            {"class": 1, "tiles": 68, "mean": [0.45, 0.25, 0.3], "swatch": "#ff8eaa"},
            {"class": 2, "tiles": 68, "mean": [0.4, 0.42, 0.18], "swatch": "#f3ff6d"}]}}
    return {}


_H = {"hand": 3, "game": 1, "thrown": True}


def _examples():
    """The example states (made when first asked for: a state's model loads pydantic,
    which the CLI does not)."""
    hand_over, recovering = dict(_H, raising="B", dropping="A"), dict(_H, kind="resplit")
    return {
        "table_disconnected": (State("built", dict(_H, deck="B", top="A")), False, None),
        "table_cannot_start": (State("idle", {"walls_inside": False}), False, None),
        "abort_pending": (State("aborting", {"session": 1}), False, None),
        "start_session": (State("idle", {"walls_inside": False}), True, None),
        "take_tiles_out": (State("idle", {"walls_inside": False,
                                          "where": {"A": "top", "B": "top"}}), True, None),
        "table_fault": (State("table_fault", {"kind": "jam", "track": 2}), True,
                        {"kind": "jam", "track": 2, "message": "track 2 is jammed"}),
        "self_test": (State("bench", {"what": "selftest"}), True, None),
        "calibrating": (State("bench", {"what": "calibrate"}), True, None),
        "surveying": (State("bench", {"what": "survey"}), True, None),
        "return_test_tiles": (State("bench", {"what": "selftest", "stage": Stage.PUSH,
                                              "push": "test_tiles", "tiles": 16}), True, None),
        "hold_test_rod": (State("bench", {"what": "selftest", "stage": Stage.PUSH,
                                          "push": "test_rod"}), True, None),
        "push_other_set": (State("bench", {"what": "calibrate", "stage": Stage.PUSH,
                                           "push": "other_set"}), True, None),
        "push_walls_back": (State("bench", {"what": "calibrate", "stage": Stage.PUSH,
                                            "push": "walls"}), True, None),
        "name_sets": (State("idle", {"walls_inside": False, "reading": "unnamed"}), True, None),
        "emptying": (State("emptying", {"stage": Stage.RAISE, "round": 0}), True, None),
        "clear_top": (State("emptying", {"stage": Stage.CLEAR_TOP, "round": 1, "tiles": 128}),
                      True, None),
        "collecting": (State("preparing", {"game": 1, "stage": Stage.RAISE}), True, None),
        "push_all": (State("preparing", {"game": 1, "stage": Stage.PUSH}), True, None),
        "mixer_short": (State("preparing", {"game": 1, "stage": Stage.PUSH,
                                            "reason": "mixer_short"}), True, None),
        "find_stray": (State("preparing", {"game": 2, "stage": Stage.FIND, "reason": "stray",
                                           "colour": "blue"}), True, None),
        "building": (State("building", {"deck": "A", "hand": 0, "game": 1}), True, None),
        "push_rest": (State("building", dict(_H, deck="B", top="A", stage=Stage.PUSH)), True,
                      None),
        "press_start": (State("built", {"deck": "A", "hand": 0, "game": 1}), True, None),
        "press_dice": (State("building", dict(_H, deck="B", top="A", thrown=False)), True, None),
        "playing_building": (State("building", dict(_H, deck="B", top="A")), True, None),
        "playing": (State("built", dict(_H, deck="B", top="A")), True, None),
        "raising": (State("hand_over", dict(hand_over, stage=Stage.RAISE)), True, None),
        "lift_down": (State("hand_over", dict(hand_over, stage=Stage.SETTLE)), True, None),
        "recovery_waits": (State("recovering", dict(recovering, stage=Stage.WAITING, top="A")),
                           True, None),
        "recovering": (State("recovering", {"kind": "resplit", "stage": Stage.RESPLIT, "hand": 3,
                                            "game": 1}), True, None),
        "push_missed": (State("stopped", {"step": "hand_over", "kind": "short-top", "track": None,
                                          "deck": "A", "hand": 3, "game": 1, "fault": {
                                              "message": "deck A: counted 0 of 136"}}), True,
                        None),
        "stopped": (State("stopped", {"step": "hand_over", "kind": "jam", "track": 2, "deck": "B",
                                      "fault": {"message": "deck B: counted 48 of 136: track 2 is "
                                                           "jammed"}}), True, None),
    }
