"""The keys every front end words, in one registry (layer: session).

What the daemon tells people comes as keys: what happens next as a code, a fault as its
kind, a refusal as its error code, an event as its type, a command by its name, a deck's
place, the table's state, a Home Assistant entity.  Each front end words a key by looking
it up in a table of its own keyed by it, as Home Assistant words an entity by its
``translation_key`` in each language's strings:

    vocabulary  keys                       worded by
    next        codes.NEXT                 the core (English: the API's `text`, which the
                                           CLI prints), the page (`next`: English,
                                           Japanese), Home Assistant (the next sensor's
                                           options, the keys themselves)
    fault       codes.TODO (its kinds)     the core (English `todo`), the page (`fault`,
                                           `todo`)
    button      commands.NAMES, and        the page (`cmd`, `sendingCmd`: the commands it
                dice_entered               offers, and its second dice button), the CLI
                                           (each row's subcommand; table.SAID), Home
                                           Assistant (each row's button name)
    event       EVENTS                     the page (`log`); other types are not told
    refusal     REFUSALS                   the page (`refusal`), the CLI (client.HINTS:
                                           the command that answers a few)
    where       state.PLACES               the page (`where`), the CLI (words.WHERE_TEXT)
    state       state.STATES               Home Assistant (the state sensor's options)
    entity      ENTITIES                   Home Assistant (ha.NAMES: each entity's name)
    seat        rules.dice.SEATS           the core (English: dice.SEAT_WORDS, in the
                                           throw's `text`), the page (`seatShort`,
                                           `breakAt`, `seatFromMe`, `rel`)
    wind        game.seats.WINDS           the page (`score.wind`), Home Assistant (a
                                           score entity per wind), the CLI (the key
                                           capitalized)

``worded(vocabulary, front_end)`` is the keys a front end words of one: all of them, or
the commands it offers.  tests/unit/test_vocabulary.py holds every front end's tables
(words.js read by Node, in English and in Japanese) equal to these keys: a key added here
fails until each front end words it, and a front end's word for a key not here fails.
Home Assistant's MQTT discovery takes no ``translation_key`` (docs/FLEET.md "Home
Assistant"): an entity's key is its ``unique_id``'s last part and its discovery topic's
object id, and its English ``name`` comes from ``ha.NAMES`` by that key.
"""
from hostd.core.codes import KINDS, NEXT
from hostd.core.commands import NAMES as COMMAND_NAMES, offered_by
from hostd.core.state import PLACES, STATES
from hostd.game.seats import WINDS
from hostd.rules.dice import SEATS

#: the page's second dice button: the faces people threw, entered (`dice` with its body)
DICE_ENTERED = "dice_entered"

#: the event types people are told of (hostd/core/events.py declares every type; the
#: others, a tile, a build's progress, the guard's beam ..., are for programs)
EVENTS = ("session_started", "session_resumed", "build_started", "build_resumed",
          "build_done", "build_failed", "hand_over", "hand", "dice", "fault",
          "fault_recovered", "stopped", "step_failed", "session_ended", "link",
          "abort_pending", "abort_confirmed", "emptied", "collect", "resplit", "swap",
          "drain", "game", "button")

#: the refusals people are told of in words, by the error's code (docs/API.md "Errors");
#: three stand for more: ``table`` any ``table_*`` or ``fault_*`` code, ``internal`` any
#: other of a 5xx answer, ``other`` any code not listed
REFUSALS = ("not_paired", "invites_off", "pair_refused", "pair_rate_limited", "cross_origin",
            "bad_host", "bad_colours", "unknown_colour", "bad_dice", "bad_request",
            "sets_not_apart", "walls_inside", "fault_remains", "not_connected", "no_session",
            "not_now", "composition", "refused", "table", "internal", "other")
#: the keys of REFUSALS that are no error's code but stand for several
REFUSAL_GROUPS = ("table", "internal", "other")

#: Home Assistant's entities of a table (hostd/fleet/ha.py): sensors, binary sensors
ENTITIES = ("state", "game", "hand", "next", "deck_a", "deck_b", "last_fault") + tuple(
    "score_" + w for w in WINDS) + ("online", "table_connected")

VOCABULARIES = {
    "next": tuple(NEXT),
    "fault": KINDS,
    "button": COMMAND_NAMES + (DICE_ENTERED,),
    "event": EVENTS,
    "refusal": REFUSALS,
    "where": PLACES,
    "state": tuple(STATES),
    "entity": ENTITIES,
    "seat": SEATS,
    "wind": WINDS,
}

#: vocabulary -> the front ends that word it (a front end words every key, but the
#: buttons: only the commands it offers)
WORDED_BY = {
    "next": ("core", "page", "ha"),
    "fault": ("core", "page"),
    "button": ("page", "cli", "ha"),
    "event": ("page",),
    "refusal": ("page",),
    "where": ("page", "cli"),
    "state": ("ha",),
    "entity": ("ha",),
    "seat": ("core", "page"),
    "wind": ("page", "ha"),
}


def worded(vocabulary, front_end, registry=None):
    """The keys ``front_end`` ("core", "page", "cli", "ha") words of ``vocabulary``, in the
    registry's order; () for one it does not word (``registry``: {vocabulary: keys} in
    place of VOCABULARIES, for a test)."""
    if front_end not in WORDED_BY[vocabulary]:
        return ()
    keys = (registry or VOCABULARIES)[vocabulary]
    if vocabulary != "button":
        return tuple(keys)
    offered = set(offered_by(front_end)) | ({DICE_ENTERED} if front_end == "page" else set())
    return tuple(k for k in keys if k in offered)


def mismatches(tables, registry=None):
    """Where front ends' tables and the registry differ: ``tables`` is {(vocabulary, front
    end, table's name): its keys}, each of which must be exactly ``worded(vocabulary,
    front end)``.  A list of "vocabulary/front end/table: missing [...], not in the
    registry [...]"; empty when they agree."""
    out = []
    for (vocabulary, front_end, name), have in sorted(tables.items()):
        want = worded(vocabulary, front_end, registry)
        missing = [k for k in want if k not in have]
        unknown = sorted(k for k in have if k not in want)
        if missing or unknown:
            out.append("%s/%s/%s: missing %s, not in the registry %s"
                       % (vocabulary, front_end, name, missing, unknown))
    return out
