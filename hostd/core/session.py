"""Sessions: the two-deck rotation and the Mixed Deck split.

Layer: session.  It talks to the table only through the table client's verbs
(`build`, `raise_walls`, `settle`, `identity`) and to the journal; it knows rulesets,
decks and hands, never bytes.

Life of a session (DESIGN §2):

  normal rotation   deck A = the blue set (in the mixer), deck B = the green set (on the
                    table top).  Build A inside.  Hand 1: the door drops B into the mixer
                    while the lift raises A; then B is built inside during hand 1.
  Mixed Deck        both sets in the mixer.  Build A = one deck's worth of the mixed
                    tiles, leaving the rest in the mixer; hand 1 raises A; the rest is
                    built inside as B.  A's colour count is what the table counted, B's
                    the two sets less A.
  every hand over   the door drops the played deck into the mixer while the lift raises
                    the walls built inside; once the lift is down the dropped deck is
                    rebuilt inside and checked against its known composition.
"""
import asyncio

from hostd.core.dice import announcement
from hostd.errors import JantakuError, NotReady, Refused
from hostd.core.rulesets import RulesetError, check_colours, check_fits
from hostd.table.client import TableFault
from protocol.messages import F_RESET

DECKS = ("A", "B")
UNKNOWN = "unknown"
MAX_RESETS = 5  # resets in a row during one recovery before the session gives up
PUSH_WINDOW_S = 10.0  # table seconds the centre stays open while people push tiles in
INSIDE = ("inside", "split", "lift")  # places of walls inside the table
STUCK = INSIDE + (UNKNOWN,)  # places a wall may be in, inside the table

# What people do about each stop, after its message (docs/FAULTS.md).  {deck}, {track}.
ASK = {
    "jam": "take the stuck tile out of track {track} by hand, then `jantaku clear-fault`",
    "short": "find the missing tiles of deck {deck}, put them into the mixer (lift the lid), "
             "close the lid, then `jantaku continue`",
    "short-top": "deck {deck}'s tiles did not all go into the centre: push the rest in when "
                 "the centre opens after `jantaku continue`",
    "surplus": "take the extra tiles out of the mixer (lift the lid), then `jantaku "
               "continue`; if the two sets were mixed, abort and start Mixed Deck instead",
    "overfill": "take the extra tile off track {track} by hand, then `jantaku clear-fault`",
    "misread": "clean the colour sensor of track {track}, then `jantaku clear-fault`",
    "sensor": "check the wiring of track {track}'s sensor, then `jantaku clear-fault`",
    "colour": "a tile of another back colour is in the table: take it out of track {track}, "
              "then `jantaku clear-fault`",
    "guard": "clear the light curtain and close the lid, then `jantaku continue`",
    "lift-stall": "look for something blocking the lift, then `jantaku continue`",
    "limit": "check the lift's end switches, then `jantaku continue`",
    "door": "look for something blocking the centre door, then `jantaku continue`",
    "build-timeout": "look for a stuck tile or an empty mixer, then `jantaku clear-fault`",
    "composition": "find the missing or stray tile, or abort and start a new Mixed Deck "
                   "session, which collects every tile and splits them again",
    "mixer-short": "push every tile on the table top into the centre, then `jantaku continue`",
    "not_connected": "check the table's cable and power; then `jantaku continue`",
    "refused": "`jantaku continue` tries again",
}


class CompositionMismatch(JantakuError):
    """A rebuild's colour count differs from the deck's known composition."""

    def __init__(self, message):
        super().__init__(message, code="composition", status=409)


def check_sets(sets, known=None):
    """The two sets' back colours as a tuple, from "A,B" or a list: each a colour class of
    the board profile (`known`, when given).  Bad input raises Refused naming what is
    accepted; nothing moves on it."""
    if isinstance(sets, str):
        sets = sets.split(",")
    try:
        sets = check_colours(sets)
    except RulesetError as e:
        raise Refused(str(e), code="bad_colours") from None
    if known is not None:
        unknown = [c for c in dict.fromkeys(sets) if c not in known]
        if unknown:
            raise Refused("the table does not know back colour %s: its colour classes are %s"
                          % (", ".join(unknown), ", ".join(known) or "none"),
                          code="unknown_colour")
    return tuple(sets)


def other(deck):
    return "B" if deck == "A" else "A"


def describe_backs(backs):
    return ", ".join("%s %d" % (k, backs[k]) for k in sorted(backs))


class Session:
    """One table session.  Not thread-safe; one asyncio task drives it."""

    def __init__(self, *, table, journal, profile, mixed_deck, sets=("blue", "green"),
                 dice, on_event=None, session_id=None, misread_limit=0.05,
                 push_window=PUSH_WINDOW_S):
        self.table = table
        self.journal = journal
        self.profile = profile
        self.mixed_deck = bool(mixed_deck)
        self.sets = tuple(sets)
        # identical backs (the same colour twice): decks are split and checked by count;
        # colour readings are ignored (DESIGN §1, seed 000: the backs may look the same)
        self.alike = len(set(self.sets)) == 1
        self.dice = dice  # hostd.core.dice roller: .roll(profile) -> list of ints
        self._emit = on_event or (lambda ev: None)
        self.id = session_id
        self.tiles = profile.tiles_per_deck
        self.targets = [profile.stacks_per_wall * 2] * 4
        self.decks = {}  # name -> {"tiles": n, "backs": {colour: n}} once known
        self.ranges = {}  # name -> {colour: [lo, hi]}: what is known of its backs
        self._journaled = set()  # decks whose first composition is journalled
        self.misread_limit = int(misread_limit * self.tiles)  # unknown backs a build may have
        self.builds = []  # demo-shaped build records
        self.hands = []
        self.faults = []
        self.hand = 0
        self.game = 1  # games hold hands; a new Mixed Deck game is a new split
        self.game_first_hand = 1  # the session-wide number of the game's first hand
        self.games = []  # the games before this one: {"game", "decks"}
        self.throw = None  # the hand in play's throw (hostd.core.dice.announcement), once thrown
        self._hand_by = "api"  # who asked for the hand over under way (button, api)
        self.inside = None  # deck built (or being built) inside the table
        self.top = None  # deck on the table top (being played)
        self.phase = None
        self._pending_raise = None  # a hand over stopped half-way: (raised, dropped, hand, mark)
        self._stopped = []  # faults of motions stopped and not yet done again
        self._resplit_pending = None  # fault ids: untrusted walls inside, re-split at hand over
        # normal rotation: {"deck": untrusted deck, "faults": ids, "ready": all its tiles on
        # the tracks or the lift}: swapped out at the hand over (_swap_at_hand_over)
        self._swap_pending = None
        self._lock = asyncio.Lock()
        # -- where the tiles are, and what people are asked (docs/FAULTS.md "People") --
        self.push_window = float(push_window)  # table seconds the centre stays open for people
        self.plan = None  # how the table is brought to the starting position (plan_start)
        self._prepared = False  # the starting position is reached
        self._building = None  # the deck being built (stays set while a fault stops it)
        self._before = None  # where the decks were before the starting position was reached
        self.asking = None  # what people are asked to do now, or None
        self._continue = asyncio.Event()  # `continue`: people are done
        self._stopped_build = None  # a build a fault stopped: resumed by recover()
        self._mixer_empty = None  # the last build ended with the mixer empty
        self.stopped = None  # a step a fault or refusal stopped: {"step", "message", "ask"}

    # -- helpers ------------------------------------------------------------------------
    def _event(self, _type, /, **data):
        data["type"] = _type
        if self.id is not None:
            data["session"] = self.id
        self._emit(data)

    def _check_table(self):
        ident = self.table.identity
        check_fits(self.profile, ident["max_stacks"], ident["tracks"])
        check_sets(self.sets, ident["colours"])

    def where(self):
        """Where each deck is: top (the table top), inside (walls built inside), lift (on
        its way up), mixer, split (partly on the tracks, the rest in the mixer) or unknown.
        Before a Mixed Deck split, the decks-to-be are wherever the sets are."""
        if not self._prepared and self._before is not None:
            return dict(self._before)
        raising = self._pending_raise
        out = {}
        for d in DECKS:
            if raising is not None and raising[0] == d:
                place = "lift"
            elif raising is not None and raising[1] == d:
                place = "mixer"  # dropping through the open centre
            elif self.top == d:
                place = "top"
            elif self.inside == d:
                place = "inside"
            elif self._building == d:
                place = "split"
            else:
                place = "mixer"
            out[d] = place
        return out

    @property
    def building(self):
        """The deck being built inside (or a build of it a fault stopped), or None."""
        return self._building

    @property
    def raising(self):
        """A hand over's walls are on their way up (or stopped on the way)."""
        return self._pending_raise is not None

    def lift_stopped(self):
        """A hand over's lift was stopped (guard, stall): pressing start again repeats it."""
        return (self.stopped is not None and self.stopped["step"] == "hand_over"
                and self._pending_raise is not None)

    def _ask(self, what):
        """Ask people for a step only they can do (None: nothing asked any more)."""
        self.asking = what
        if what:
            self._event("ask", message=what)

    def tell_continue(self):
        """`continue` while people are asked during an open centre: they are done."""
        if self.asking is None:
            return False
        self._continue.set()
        return True

    def summary(self):
        return {
            "id": self.id,
            "ruleset": self.profile.name,
            "mixed_deck": self.mixed_deck,
            "sets": list(self.sets),
            "hand": self.hand,
            "game": self.game,
            "game_hand": self.game_hand(),
            "colours_checked": not self.alike,
            "decks": {k: dict(v, backs=dict(v["backs"])) for k, v in sorted(self.decks.items())},
            "games": self.games_summary(),
            "builds": list(self.builds),
            "hands": list(self.hands),
            "dice": dict(self.throw) if self.throw else None,
            "faults": [{k: v for k, v in f.items() if k != "_id"} for f in self.faults],
            "inside": self.inside,
            "top": self.top,
        }

    def game_hand(self):
        """The hand's number within its game (0 before the game's first hand)."""
        return max(0, self.hand - self.game_first_hand + 1)

    def games_summary(self):
        """Every game so far: its number, decks (as split) and hand numbers."""
        out = [dict(g) for g in self.games]
        out.append({"game": self.game, "first_hand": self.game_first_hand,
                    "decks": {k: dict(v, backs=dict(v["backs"])) for k, v in sorted(self.decks.items())}})
        for g in out:
            g["hands"] = [h["hand"] for h in self.hands if h.get("game", 1) == g["game"]]
        return out

    def _classes(self):
        """The colour classes a build may see (a stray tile of another back stops it);
        none with identical backs, whose readings are ignored."""
        if self.alike:
            return []
        names = list((self.table.identity or {}).get("colours") or ())
        return [names.index(c) + 1 for c in self.sets if c in names]

    # -- builds -------------------------------------------------------------------------
    async def _build(self, deck, *, expect_empty, resume=False):
        number = len(self.builds) + 1
        self._building = deck
        stopped = self._stopped_build
        if stopped is not None and stopped["deck"] != deck:
            stopped = self._stopped_build = None  # another deck now: that build is over
        if resume:  # the table paused it (or finished it) while we were away
            self._event("build_resumed", build=number, deck=deck)
            result = await self.table.resume_build(number)
        else:
            self.journal.build_started(self.id, number, deck, self.targets)
            self._event("build_started", build=number, deck=deck, targets=list(self.targets),
                        resumes=stopped["table_build"] if stopped else None)
            try:
                if stopped is not None:  # a fault stopped it: the table kept its counts
                    if stopped["kind"] == "short" and stopped["missing"] >= self.tiles // 4:
                        # so many are missing that they are on the table top, not pushed in
                        await self._push_window("push the rest of deck %s's tiles into the "
                                                "centre" % deck)
                    result = await self.table.resume_build(stopped["table_build"])
                else:
                    result = await self.table.build(
                        number, self.targets, stacks=self.profile.stacks_per_wall,
                        expect_empty=expect_empty, colours=self._classes())
            except TableFault as e:  # every build the table started is listed, failed ones too
                record = {"deck": deck, "per_track": self.table.per_track(),
                          "backs": self.table.backs(), "sim_seconds": None, "ok": False}
                self.builds.append(record)
                self.journal.build_finished(self.id, number, record)
                fid = None
                if e.kind in ("short", "surplus", "overfill", "jam"):
                    e.message = "%s: %s" % (self._count_words(deck, record), e.message)
                    e.args = (e.message,)
                    fid = self._fault(e.kind, e.track, number, e.message)
                if e.fault != F_RESET:  # paused with its counts: recover() resumes it
                    self._stopped_build = {
                        "deck": deck, "kind": e.kind, "fault": fid,
                        "missing": max(0, self.tiles - sum(record["per_track"])),
                        "table_build": stopped["table_build"] if stopped else number}
                self._event("build_failed", build=number, deck=deck, message=str(e))
                raise
            if stopped is not None:
                self._stopped_build = None
                if stopped["fault"] is not None:
                    self._recovered(stopped["fault"])
        self._mixer_empty = result.get("mixer_empty")
        backs = dict(result["backs"])
        walls = [dict(w) for w in result.get("backs_per_track") or ()]
        if self.alike:  # readings ignored: every tile has the one back
            backs = {self.sets[0]: sum(result["per_track"])}
            walls = [{self.sets[0]: n} for n in result["per_track"]]
        record = {
            "deck": deck,
            "game": self.game,
            "per_track": list(result["per_track"]),
            "backs": backs,
            "walls": walls,  # each wall's backs: what a player sees of the split
            "sim_seconds": round(result["seconds"], 3),
            "ok": True,
        }
        problem = self._check_composition(deck, backs)
        if problem:
            record["ok"] = False
        self.builds.append(record)
        self.journal.build_finished(self.id, number, record)
        self._event("build_done", build=number, **record)
        if problem:
            self._fault("composition", None, number, problem)
            raise CompositionMismatch(problem)
        self._building = None
        return record

    # Each deck's colour count is known as a range per colour: exact once every back was
    # read, wider while some readings were `unknown` (reported, never guessed).  A build
    # must agree with what is known; what it adds narrows the ranges.
    def _check_composition(self, deck, backs):
        counted = sum(backs.values())
        unknown = backs.get(UNKNOWN, 0)
        total = self.decks[deck]["tiles"] if deck in self.decks else self.tiles
        if counted != total:
            diffs = self._diffs(deck, backs)
            return "deck %s: counted %d of %d tiles%s" % (
                deck, counted, total, " (%s)" % diffs if diffs else "")
        if unknown > self.misread_limit:
            return ("deck %s: %d back colours could not be read (at most %d accepted): "
                    "the count can't be trusted" % (deck, unknown, self.misread_limit))
        got = {c: [backs.get(c, 0), backs.get(c, 0) + unknown] for c in self.sets}
        # (identical backs: the one colour is the count, so only the count is checked)
        known = self.ranges.get(deck)
        if known is not None:
            both = {c: [max(known[c][0], got[c][0]), min(known[c][1], got[c][1])] for c in self.sets}
            if any(lo > hi for lo, hi in both.values()):
                return "deck %s: counted %s; expected %s (%s)" % (
                    deck, describe_backs(backs), describe_backs(self._best(deck)),
                    self._diffs(deck, backs))
            got = both
        self._set_range(deck, got)
        if self.mixed_deck:  # the two decks together are the two sets
            other_deck = other(deck)
            # each set is one deck's worth of its colour (two of it, for identical backs)
            comp = {c: [self.tiles * self.sets.count(c) - got[c][1],
                        self.tiles * self.sets.count(c) - got[c][0]] for c in self.sets}
            if other_deck in self.ranges:
                o = self.ranges[other_deck]
                comp = {c: [max(o[c][0], comp[c][0]), min(o[c][1], comp[c][1])] for c in self.sets}
            self._set_range(other_deck, comp)
        return None

    def _count_words(self, deck, record):
        """"deck B: counted 135 of 136 (green 63, expected 64)" for a build that stopped."""
        counted = sum(record["per_track"])
        words = "deck %s: counted %d of %d" % (deck, counted, self.tiles)
        if deck in self.ranges and record["backs"] and not self.alike:
            backs = record["backs"]
            if counted == self.tiles:
                diffs = self._diffs(deck, backs)
            else:  # which colour is short, when the deck's colour count is known
                exp = self._best(deck)
                diffs = ", ".join("%s %d of %d" % (c, backs.get(c, 0), exp[c]) for c in self.sets
                                  if backs.get(c, 0) < exp[c] and counted > self.tiles - 8)
            if diffs:
                words += " (%s)" % diffs
        return words

    def _best(self, deck):
        r = self.ranges[deck]
        return {c: r[c][0] for c in self.sets}

    def _diffs(self, deck, backs):
        if deck not in self.ranges or self.alike:  # the count says it all
            return ""
        exp = self._best(deck)
        return ", ".join("%s %d, expected %d" % (c, backs.get(c, 0), exp[c])
                         for c in self.sets if backs.get(c, 0) != exp[c])

    def _set_range(self, deck, ranges):
        self.ranges[deck] = ranges
        comp = {"tiles": self.tiles, "backs": {c: ranges[c][0] for c in self.sets}}
        uncertain = self.tiles - sum(comp["backs"].values())
        if uncertain:
            comp["backs"][UNKNOWN] = uncertain
        if self.decks.get(deck) != comp:
            first = deck not in self._journaled
            self.decks[deck] = comp
            if first:
                self._journaled.add(deck)
                self.journal.deck(self.id, deck, comp, game=self.game)
            else:  # a later build read backs an earlier one could not: the count narrows
                self.journal.transition(self.id, "deck_refined", deck=deck, composition=comp)

    def _fault(self, kind, track, build, message, recovered=False):
        rec = {"kind": kind, "track": track, "build": build, "recovered": recovered,
               "message": message}
        fid = self.journal.fault(self.id, rec)
        self._event("fault", **rec)
        rec["_id"] = fid  # for _recovered(); not shown in summary()
        self.faults.append(rec)
        return fid

    def _recovered(self, fid):
        for rec in self.faults:
            if rec.get("_id") == fid:
                rec["recovered"] = True
        self.journal.fault_recovered(fid)
        self._event("fault_recovered", id=fid)

    def _phase(self, phase, **data):
        """Journal a phase, with the table's boot nonce: after a restart the daemon trusts
        walls only if the same boot of the table built them."""
        ident = self.table.identity or {}
        self.phase = phase
        data.setdefault("game", self.game)
        data.setdefault("game_first_hand", self.game_first_hand)
        self.journal.phase(self.id, phase, boot=ident.get("boot_nonce"), where=self.where(),
                           **data)
        self._event("where", phase=phase, hand=data.get("hand", self.hand), game=self.game,
                    decks=self.where())

    def _set_deck(self, deck, backs):
        self._set_range(deck, {c: [backs.get(c, 0)] * 2 for c in self.sets})

    # -- the session's steps ------------------------------------------------------------
    def open(self):
        """Check the table can build this ruleset and journal the session.  Nothing moves
        before this has passed; a refusal names both numbers."""
        self._check_table()
        self.id = self.journal.create_session(
            ruleset=self.profile.name, mixed_deck=self.mixed_deck, sets=list(self.sets),
            seed=getattr(self.dice, "seed", None))
        self._event("session_started", ruleset=self.profile.name, mixed_deck=self.mixed_deck)
        if not self.mixed_deck:
            # the blue set is deck A (in the mixer), the green set deck B (on top)
            self._set_deck("A", {self.sets[0]: self.tiles})
            self._set_deck("B", {self.sets[1]: self.tiles})
            self.top = "B"
        return self.id

    async def build_first(self):
        """Build deck A inside (for Mixed Deck: one deck's worth of the mixed sets)."""
        async with self._lock:
            self._phase("building", inside="A", top=self.top, hand=0)
            try:
                await self._build("A", expect_empty=not self.mixed_deck)
            except TableFault as e:
                if e.fault != F_RESET:
                    raise
                await self._after_reset(e, deck="A")  # nothing in play yet
                return self.summary()
            self._first_built()
            return self.summary()

    def _first_built(self):
        self.inside = "A"
        self._phase("built", inside="A", top=self.top, hand=0)

    async def start(self):
        """open() then build_first(): for a table loaded as DESIGN §2 says (the demo)."""
        self.open()
        self._prepared = True
        return await self.build_first()

    # -- the starting position (a session started by a person) -------------------------------
    def plan_start(self, known, *, loaded=False):
        """How to bring the table to this mode's starting position, from `known` (where
        the last session left the tiles: {"mixed_deck", "sets", "where"}, or None) and the
        table's own status.  Mixed Deck: everything into the mixer (walls inside raised,
        people push the table top in).  The normal rotation: the sets apart, the first in
        the mixer and the second out of it, which the table cannot sort once they are
        mixed: then it refuses (Refused), saying what people must do.  Nothing moves."""
        t = self.table
        walls = t.walls_inside()
        where = (known or {}).get("where") or {}
        if self.mixed_deck:
            stuck = walls or not where or any(p in STUCK for p in where.values())
            seen = {p for p in where.values()}
            self._before = {d: where.get(d, UNKNOWN) for d in DECKS} if where else \
                {d: UNKNOWN for d in DECKS}
            return {"raise": stuck,
                    "window": stuck or not where or bool(seen & {"top", UNKNOWN})}
        how = ("put the %s set in the mixer (through the centre) and the %s set on the table "
               "top, then `jantaku session start --ruleset %s --loaded`; or play Mixed Deck "
               "(--mixed-deck), which collects every tile by itself"
               % (self.sets[0], self.sets[1], self.profile.name))
        if loaded or known is None:
            if walls:
                raise Refused("the table has walls inside that no session of this daemon "
                              "accounts for: bring them up with `jantaku session end --empty`, "
                              "take them out, then " + how, code="walls_inside")
            self._before = {"A": "mixer", "B": "top"}
            return {"raise": False, "window": False}
        if list(known.get("sets") or ()) == list(self.sets)[::-1]:  # its deck A was our B
            where = {"A": where.get("B", UNKNOWN), "B": where.get("A", UNKNOWN)}
            known = dict(known, sets=list(self.sets))
        if known.get("mixed_deck") or list(known.get("sets") or ()) != list(self.sets):
            why = ("the last session mixed the two sets (Mixed Deck)" if known.get("mixed_deck")
                   else "the last session's sets were %s" % ", ".join(known.get("sets") or ()))
            raise Refused("the normal rotation needs the two sets apart and the table cannot "
                          "sort them: %s. Sort the tiles by back colour, %s" % (why, how),
                          code="sets_not_apart")
        places = sorted(where.get(d, UNKNOWN) for d in DECKS)
        if places == ["mixer", "top"]:
            first = "A" if where.get("A") == "mixer" else "B"
            if first == "B":
                self.sets = (self.sets[1], self.sets[0])
            self._before = {"A": "mixer", "B": "top"}
            return {"raise": False, "window": False}
        if places == ["inside", "top"] and t.state == "built":
            first = "A" if where.get("A") == "inside" else "B"
            if first == "B":
                self.sets = (self.sets[1], self.sets[0])
            self._before = {"A": "inside", "B": "top"}
            return {"raise": False, "window": False, "adopt": True}
        raise Refused("the normal rotation needs one set in the mixer and the other out of "
                      "it, and the last session left deck A %s and deck B %s, which the table "
                      "cannot sort. Bring the walls up (`jantaku session end --empty`) and "
                      "sort the tiles by back colour, %s"
                      % (where.get("A", UNKNOWN), where.get("B", UNKNOWN), how),
                      code="sets_not_apart")

    async def begin(self, plan):
        """The starting position (plan_start's plan), then deck A built inside."""
        self.plan = plan
        async with self._lock:
            return await self._begin()

    async def _begin(self):
        plan = self.plan
        if not self._prepared:
            if plan.get("adopt"):  # the last session's walls inside, counted and checked
                self._prepared = True
                self._first_built()
                return self.summary()
            await self._prepare(plan)
            self._prepared = True
        self._phase("building", inside="A", top=self.top, hand=self.hand)
        try:
            await self._build("A", expect_empty=not self.mixed_deck)
        except TableFault as e:
            if e.fault != F_RESET:
                raise
            await self._after_reset(e, deck="A")
            return self.summary()
        if self.mixed_deck and self._mixer_empty:
            # deck A took the last tile: the other set (or part of it) is not in the mixer
            self._prepared = False
            self.plan = {"raise": True, "window": True}
            self._before = {"A": "inside", "B": UNKNOWN}
            self.decks, self.ranges, self._journaled = {}, {}, set()
            msg = ("deck A took every tile in the mixer: the two sets were not both in it. "
                   "Deck A comes up and everything must go into the centre")
            self._fault("mixer-short", None, len(self.builds), msg)
            raise NotReady(msg, code="mixer-short")
        self._first_built()
        return self.summary()

    async def _prepare(self, plan):
        """Mixed Deck: every tile into the mixer.  Walls inside come up (the tiles a
        stopped build left on the ramps are stacked first), then the centre opens while
        people push the table top in."""
        await self._table_ready()
        self._phase("preparing", inside=None, top=None, hand=self.hand)
        if self.table.door not in ("closed", "unknown"):
            await self.table.close_door()  # left open by an abort
        if plan.get("raise"):
            self._event("collect", step="raise")
            await self._motion(self.table.bring_walls_up, self.hand)
            self._before = {d: ("top" if p in STUCK else p) for d, p in self._before.items()}
        if plan.get("window"):
            await self._push_window("push every tile on the table top into the centre")
        if self.mixed_deck:  # both sets in the mixer now
            self._before = {d: "mixer" for d in DECKS}
            self.top = self.inside = None

    async def _push_window(self, what):
        """The centre open for `push_window` table seconds (or until `continue`) while
        people push tiles in; what falls in is checked by the next build's count."""
        self._continue.clear()
        await self.table.open_door()
        self._ask("%s (the centre is open for %g s; `jantaku continue` closes it sooner)"
                  % (what, self.push_window))
        try:
            await self.table.pause(self.push_window, stop=self._continue)
        finally:
            self._ask(None)
        await self.table.close_door()

    # -- the throw ------------------------------------------------------------------------------
    def throw_dice(self, values=None, by="api"):
        """Throw the ruleset's dice for the hand whose walls are on the table top (or take
        the faces people threw: `values`, checked against the ruleset), and announce the
        throw and the break.  Nothing moves; a build may run meanwhile."""
        hand = self.hands[-1] if self.hands else None
        if hand is None or self.top != hand["deck"] or self._pending_raise is not None:
            raise NotReady("no walls are up for a hand yet: the throw comes once the hand "
                           "over raised them (press start first)", code="no_hand")
        if self.throw is not None and not self.profile.rethrow:
            raise NotReady("hand %d is thrown already (%s); %s throws once per hand"
                           % (hand["hand"], self.throw["text"], self.profile.name),
                           code="already_thrown")
        if values is None:
            values = self.dice.roll(self.profile)
        info = announcement(self.profile, values, hand=hand["hand"], by=by,
                            first_of_game=hand["hand"] == self.game_first_hand)
        brk = {k: info[k] for k in ("total", "breaker", "break_from_right", "unit",
                                    "dead_wall_tiles")}
        self.journal.hand_dice(self.id, hand["hand"], info["dice"], brk, by)
        hand.update(dice=list(info["dice"]), breaker=info["breaker"], dice_by=by)
        self.throw = info
        self._event("dice", **info)
        return info

    # -- games ----------------------------------------------------------------------------------
    def check_new_game(self):
        """Why a new game can't begin now (NotReady), or nothing."""
        if self._resplit_pending or self._swap_pending:
            raise NotReady("the table is recovering from a restart, which the next hand over "
                           "finishes: press hand over first, then start the new game",
                           code="recovering")
        if self.mixed_deck and self._prepared and self.inside is None and self.hand == 0:
            raise NotReady("deck A is not built yet: wait for it, then start the new game")

    def _next_game(self):
        self.games.append({"game": self.game, "first_hand": self.game_first_hand,
                           "decks": {k: dict(v, backs=dict(v["backs"]))
                                     for k, v in sorted(self.decks.items())}})
        self.game += 1
        self.game_first_hand = self.hand + 1
        self.journal.game(self.id, self.game, self.game_first_hand)
        self._event("game", game=self.game, first_hand=self.game_first_hand)

    async def new_game(self):
        """End the game and begin the next.  The normal rotation's decks simply go on.
        Mixed Deck: every tile back into the mixer (the walls inside come up, people push
        the table top into the open centre) and split afresh: the new game's decks."""
        if not self.mixed_deck:  # nothing moves: the hand being played is the last one
            self.check_new_game()
            self._next_game()
            return self.summary()
        async with self._lock:
            self.check_new_game()
            self._before = self.where()
            self._next_game()
            self._prepared = False
            self.plan = {"raise": True, "window": True}
            self.decks, self.ranges, self._journaled = {}, {}, set()
            return await self._begin()

    # -- stops and recovery ------------------------------------------------------------------
    def on_stopped(self, step, exc):
        """A step stopped (a fault, a refusal, the table gone): remember it for recover()
        and say what people must do."""
        # a table fault's kind (jam, short...), else the error's code (composition,
        # mixer-short, not_connected...): the key of what people are asked (ASK)
        kind = getattr(exc, "kind", None) or getattr(exc, "code", None) or "refused"
        deck = self._building or "A"
        sb = self._stopped_build
        if kind == "short" and sb is not None and sb["missing"] >= self.tiles // 4:
            kind = "short-top"
        ask = ASK.get(kind, ASK["refused"]).format(deck=deck, track=getattr(exc, "track", None) or "?")
        self.stopped = {"step": step, "kind": kind, "message": str(exc), "ask": ask}
        self._event("stopped", step=step, kind=kind, message=str(exc), ask=ask)
        return self.stopped

    def can_recover(self):
        st = self.stopped
        if st is None:
            return None
        if st["kind"] == "composition":
            return ("deck %s was counted wrong and its walls are inside: %s"
                    % (self._building or "?", ASK["composition"]))
        return None

    async def recover(self):
        """Carry on with the step that stopped, once people fixed what they were asked
        to (`continue` / `clear-fault`): the table's fault is cleared first (refused while
        its cause is still there)."""
        async with self._lock:
            why = self.can_recover()
            if why:
                raise NotReady(why, code="cannot_continue")
            await self._table_ready()
            self.stopped = None
            if not self._prepared or (self.hand == 0 and self.inside is None
                                      and not self._resplit_pending and not self._swap_pending):
                return await self._begin()
            if self._pending_raise is not None:
                return await self._hand_over()
            if self.phase == "building" and self._building:
                return await self._rebuild_inside(self._building)
            if self._resplit_pending and self.top is None:
                return await self._resplit_now()
            return self.summary()

    def check_hand_over(self):
        if self._resplit_pending or (self._swap_pending and self._swap_pending["ready"]):
            return  # the hand over is what the recovery from a reset waits for
        if self.inside is None:
            raise NotReady("no walls are built inside yet: wait for the build to finish")

    async def hand_over(self, by="api"):
        """End the hand being played (or begin the first): drop the played deck, raise
        the walls built inside, then rebuild the dropped deck inside.  `by`: who asked
        (the start button, or the API), journalled with the hand."""
        async with self._lock:
            self._hand_by = by
            return await self._hand_over()

    async def _hand_over(self, started=None):
        if started is None:
            started = self.table.mark()
        if self._resplit_pending:
            await self._resplit_at_hand_over()  # counts in this hand's turnaround
        if self._swap_pending:
            await self._swap_at_hand_over()  # counts in this hand's turnaround too
        self.check_hand_over()
        if self._pending_raise is None:
            raised, dropped = self.inside, self.top
            next_hand = self.hand + 1
            # committed before anything moves: a restart knows a hand over was under way
            self._phase("hand_over", inside=raised, top=dropped, hand=next_hand)
            self._pending_raise = (raised, dropped, next_hand, started)
            self._event("hand_over", hand=next_hand, raising=raised, dropping=dropped)
        else:  # repeated after a stop (guard broken, ...): the cause must be gone
            raised, dropped, next_hand, _ = self._pending_raise
        try:
            await self._motion(self.table.raise_walls, next_hand, open_door=dropped is not None)
        except TableFault as e:
            if e.fault != F_RESET:
                raise
            # counted walls, but the table that counted them restarted on the way up:
            # they go back in with the played deck and both decks are split again; the
            # hand over then goes on with the new deck A
            self._pending_raise = None  # (self.top is still the played deck, dropping)
            await self._after_reset(e, what="while raising the walls for hand %d" % next_hand,
                                    deck=raised, drain=False)
            return await self._hand_over(started)  # the recovery counts in the turnaround
        # turnaround: from the (first) hand over to the walls at the top
        turnaround = self.table.seconds_since(self._pending_raise[3])
        self._pending_raise = None
        # the throw comes once the walls are up: a press of dice (throw_dice)
        record = {"hand": next_hand, "game": self.game, "deck": raised, "by": self._hand_by,
                  "dice": [], "breaker": None, "dice_by": None,
                  "turnaround_sim_seconds": round(turnaround, 3)}
        self.journal.hand(self.id, record)
        self.hands.append(record)
        self.hand, self.top, self.inside = next_hand, raised, None
        self.throw = None
        self._event("hand", **record)
        try:
            await self.table.settle()  # lift back down, door closed
        except TableFault as e:
            if e.fault != F_RESET:
                raise
            await self._settle_after_reset(next_hand)
        await self._rebuild_inside(dropped if dropped is not None else other(raised))
        return record

    async def _settle_after_reset(self, hand):
        """The table restarted after the walls reached the top (the hand has begun; they
        were counted and delivered): the empty lift is brought down again and the door
        closed; the dropped deck, in the mixer, is rebuilt and checked as usual."""
        fid = self._fault("reset", None, None, "hand %d: the table restarted while the lift "
                          "went back down: the walls on the table are the counted ones; the "
                          "lift is brought down again" % hand)
        await self._table_ready()
        await self.table.settle_after_restart()
        self._recovered(fid)

    async def _table_ready(self):
        """Until the table is connected again, out of a fault state (a clear refused
        while the cause is still there raises)."""
        await self.table.wait_ready()
        if self.table.state == "fault":
            await self.table.clear_fault()

    async def _motion(self, verb, hand, **kw):
        """A lift or door motion the guard (or a stall) may stop: a stop is journalled
        and the motion is repeated when the hand over is pressed again; once one
        succeeds, the stops before it are marked recovered."""
        if self.table.state == "fault":
            await self.table.clear_fault()  # refused while the cause is still there
        try:
            await verb(**kw)
        except TableFault as e:
            if e.fault == F_RESET:
                raise
            fid = self._fault(e.kind, e.track, None, "hand %d: %s" % (hand, e))
            self._stopped.append(fid)
            raise
        for fid in self._stopped:
            self._recovered(fid)
        self._stopped = []

    async def _rebuild_inside(self, deck):
        """Build the deck that was dropped into the mixer, inside, during the hand."""
        self._phase("building", inside=deck, top=self.top, hand=self.hand)
        try:
            await self._build(deck, expect_empty=True)
        except TableFault as e:
            if e.fault != F_RESET:
                raise
            await self._after_reset(e, deck=deck)  # a hand is in play: at its hand over
            return
        self.inside = deck
        self._phase("built", inside=deck, top=self.top, hand=self.hand)

    # -- a table that restarted mid-build ------------------------------------------------
    async def _after_reset(self, e, what=None, deck=None, drain=True):
        """The table restarted while building (or raising): the walls inside are partial
        (or on their way up) and the firmware's counts are gone with its memory, so they
        are never trusted.  They go back into the mixer and — since a deck's tiles can't
        be told apart from the other's once mixed — both decks are split again (Mixed
        Deck).  With a hand in play that waits for its hand over; with nothing on top (or
        at a hand over) it happens now."""
        number = len(self.builds)  # the failed build is listed already
        if what is None:
            what = "during build %d" % number
        msg = "the table restarted %s: the walls inside can't be accounted for" % what
        self.inside = None
        if not self.mixed_deck:
            await self._swap_after_reset(msg, number, deck, drain)
            return
        fid = self._fault("reset", None, number, msg + "; both decks will be split again")
        self._resplit_pending = (self._resplit_pending or []) + [fid]
        self._phase("resplit_pending", inside=None, top=self.top, hand=self.hand,
                    faults=self._resplit_pending)
        if self.top is None:
            await self._resplit_now()

    # Normal rotation: the sets have their own decks (A the first set, B the second) and
    # once both are in the mixer no build can pick one out.  The untrusted deck X is
    # therefore never dropped while the other, Y, is there: its tiles still in the mixer go
    # onto the tracks first (a drain build), and at the hand over X goes up as Y drops in,
    # Y is built inside and checked, X drops into the emptied mixer, and the hand over goes
    # on with Y (X is built and checked during that hand).
    async def _swap_after_reset(self, msg, number, deck, drain):
        x = deck or "A"
        y = other(x)
        fid = self._fault("reset", None, number, msg + (
            "; at the hand over they go up as deck %s (%s) drops in, deck %s is built and "
            "checked, and deck %s goes back in to be built again" % (
                y, describe_backs(self._best(y)), y, x)))
        old = self._swap_pending or {"faults": []}
        # known: what the tracks hold of X by the tile events (the cut build, then drains)
        known = list(self.builds[-1]["per_track"]) if drain and self.builds else None
        sw = {"deck": x, "faults": old["faults"] + [fid], "ready": not drain, "stage": "raise",
              "known": known}
        self._swap_pending = sw
        self._swap_stage("raise")
        for _ in range(MAX_RESETS):
            if sw["ready"]:
                return
            try:
                await self._drain(sw)
            except TableFault as e:
                if e.fault != F_RESET:
                    raise
                sw["faults"].append(self._fault("reset", None, len(self.builds), (
                    "the table restarted again while its tracks took the rest of deck %s: "
                    "taking the rest again" % x)))
        raise TableFault(F_RESET, 0, 0, "the table restarted %d times in a row: stopped"
                         % MAX_RESETS)

    async def _drain(self, sw):
        """Every tile of the untrusted deck still in the mixer onto the tracks: a build
        whose targets leave each track room for the tiles counted there since the reset
        (from the tile events) and two more (a tile in flight, a half stack); it ends when
        the mixer runs empty, which is the point."""
        known = sw["known"]
        stacks = (self.table.identity or {}).get("max_stacks") or self.profile.stacks_per_wall
        targets = [max(0, 2 * stacks - n - 2) for n in known]
        await self._table_ready()
        if self.table.state in ("paused", "fault"):
            await self.table.abort()
        await self.table.flush_tracks()
        drain = len(self.builds) + 1
        self.journal.build_started(self.id, drain, sw["deck"], targets)
        self._event("drain", build=drain, targets=targets)
        cut = None
        try:
            await self.table.build(drain, targets, stacks=stacks, expect_empty=True)
        except TableFault as e:
            if e.fault != F_RESET and e.kind != "short":
                raise
            cut = e if e.fault == F_RESET else None
        per = self.table.per_track()
        rec = {"deck": sw["deck"], "per_track": per, "backs": self.table.backs(),
               "sim_seconds": None, "ok": False}  # not a deck: the rest of one, untrusted
        self.builds.append(rec)
        self.journal.build_finished(self.id, drain, rec)
        sw["known"] = [k + n for k, n in zip(known, per)]
        if cut is not None:
            raise cut
        # the drain is over: end it (its tiles stay on the tracks) and stack what is
        # left on the ramps, so the lift takes every tile at the hand over
        await self.table.query_status()
        if self.table.state != "built":  # a complete build stacked its last tile itself
            await self.table.abort()
            await self.table.flush_tracks()
        sw["ready"] = True
        self._swap_stage("raise")

    async def _swap_at_hand_over(self, depth=0):
        """X up as Y drops in, Y built and checked, X dropped: in stages, so a hand over
        repeated after a stop (the guard, a stall) carries on where it stopped.  A reset
        on the way makes the deck inside untrusted in turn: the swap starts again with
        the roles as they are then."""
        sw = self._swap_pending
        x, y = sw["deck"], other(sw["deck"])
        await self._table_ready()
        try:
            if sw.get("stage", "raise") == "raise":
                self._event("swap", hand=self.hand + 1, untrusted=x, rebuilt=y)
                # X up as Y (the played deck, or the set waiting on top) drops in
                await self._motion(self.table.raise_walls, self.hand + 1,
                                   open_door=self.top is not None)
                await self.table.settle()
                self.top = x
                self._swap_stage("build")
            if sw["stage"] == "build":
                await self._build(y, expect_empty=True)  # checked against Y's known backs
                self.inside = y
                self._swap_stage("drop")
            await self._motion(self.table.drop_top, self.hand + 1)  # X into the mixer
        except TableFault as e:
            if e.fault != F_RESET or depth >= MAX_RESETS:
                raise
            if sw["stage"] == "raise":  # X on its way up again: X still the untrusted one
                untrusted, drain = x, False
            else:  # Y built (or half built) by a table that restarted: Y is, now
                untrusted, drain, self.top = y, sw["stage"] == "build", x
            self.inside = None
            await self._after_reset(e, what="during the recovery of deck %s" % x,
                                    deck=untrusted, drain=drain)
            return await self._swap_at_hand_over(depth + 1)
        self.top = None
        self._swap_pending = None
        self._phase("built", inside=y, top=None, hand=self.hand)
        for fid in sw["faults"]:
            self._recovered(fid)

    def _swap_stage(self, stage):
        sw = self._swap_pending
        sw["stage"] = stage
        self._phase("swap_pending", inside=self.inside, top=self.top, hand=self.hand,
                    deck=sw["deck"], faults=sw["faults"], ready=sw["ready"], stage=stage,
                    known=sw.get("known"))

    async def _resplit_at_hand_over(self):
        """The hand over after a reset: drop the played deck and raise the untrusted
        walls at once, drop those too, and split everything again."""
        await self._table_ready()
        self._event("resplit", hand=self.hand + 1)
        await self.table.flush_tracks()
        await self._motion(self.table.raise_walls, self.hand + 1, open_door=self.top is not None)
        await self.table.settle()
        self.top = None
        await self._resplit_now(raised_already=True)

    async def _resplit_now(self, raised_already=False):
        await self._table_ready()
        if not raised_already:  # the partial walls up to the top, then into the mixer
            await self.table.flush_tracks()
            await self._motion(self.table.raise_walls, self.hand + 1, open_door=False)
            await self.table.settle()
        await self._motion(self.table.drop_top, self.hand + 1)
        self.journal.transition(self.id, "resplit", decks_before=self.decks)
        self.decks, self.ranges = {}, {}
        self._phase("building", inside="A", top=None, hand=self.hand)
        try:
            await self._build("A", expect_empty=False)
        except TableFault as e:
            if e.fault != F_RESET:
                raise
            await self._after_reset(e)  # reset again: everything back in, split again
            return
        fids, self._resplit_pending = self._resplit_pending, None
        for fid in fids:
            self._recovered(fid)
        self._first_built()

    # -- after a restart --------------------------------------------------------------------
    @classmethod
    def restore(cls, saved, *, table, journal, profile, dice, on_event=None):
        """A session from the journal (journal.open_session()), as it was committed."""
        s = cls(table=table, journal=journal, profile=profile, mixed_deck=saved["mixed_deck"],
                sets=tuple(saved["sets"]), dice=dice, on_event=on_event, session_id=saved["id"])
        s._journaled = set(saved["decks"])
        for k, v in saved["decks"].items():
            u = v["backs"].get(UNKNOWN, 0)
            s.ranges[k] = {c: [v["backs"].get(c, 0), v["backs"].get(c, 0) + u] for c in s.sets}
            s.decks[k] = {"tiles": v["tiles"], "backs": dict(v["backs"])}
        keys = ("deck", "per_track", "backs", "sim_seconds", "ok")
        s.builds = [{k: b[k] for k in keys} for b in saved["builds"] if b["ok"] is not None]
        s.hands = [{k: h[k] for k in ("hand", "game", "deck", "by", "dice", "breaker", "dice_by",
                                      "turnaround_sim_seconds")}
                   for h in saved["hands"]]
        games = saved.get("games") or []
        s.games = [{"game": g["game"], "first_hand": g["first_hand"], "decks": g["decks"]}
                   for g in games[:-1]]
        if games:
            s.game, s.game_first_hand = games[-1]["game"], games[-1]["first_hand"]
        s.faults = [dict({k: f[k] for k in ("kind", "track", "build", "recovered", "message")},
                         _id=f.get("id")) for f in saved["faults"]]
        data = saved.get("phase_data") or {}
        s.phase = saved["phase"]
        s.hand = data.get("hand", len(s.hands))
        s.top = data.get("top")
        if s.phase == "resplit_pending":
            s._resplit_pending = list(data.get("faults") or [])
        if s.phase == "swap_pending":
            s._swap_pending = {"deck": data.get("deck") or "A", "faults": list(data.get("faults") or []),
                               "ready": bool(data.get("ready")), "stage": data.get("stage", "raise"),
                               "known": data.get("known")}
            s.inside = data.get("inside")
        s._prepared = s.phase != "preparing"
        if s.phase == "building":
            s._building = data.get("inside")
        s._saved = saved
        for h in s.hands:  # the seeded dice go on where they were
            if h["dice"]:
                dice.roll(profile)
        last = s.hands[-1] if s.hands else None
        if last is not None and last["dice"] and last["hand"] == s.hand:
            s.throw = announcement(profile, last["dice"], hand=last["hand"], by=last["dice_by"],
                                   first_of_game=last["hand"] == s.game_first_hand)
        return s

    async def resume(self):
        """Ask the table where it is and carry on from the journal's last phase.  Walls
        are trusted only if the same boot of the table built them (its boot nonce)."""
        async with self._lock:
            saved = self._saved
            data = saved.get("phase_data") or {}
            ident = self.table.identity or {}
            same_boot = data.get("boot") is not None and data.get("boot") == ident.get("boot_nonce")
            unfinished = saved.get("unfinished_build")
            self._event("session_resumed", phase=self.phase, hand=self.hand)
            if self.phase == "preparing":  # cut while the tiles were brought together
                self._before = {d: UNKNOWN for d in DECKS}
                self.plan = {"raise": True, "window": True}
                await self._begin()
                return "resumed"
            if self.phase == "resplit_pending":  # the re-split goes on as planned
                if self.top is None:
                    await self._resplit_now()
                return "resplit"
            if self.phase == "swap_pending":  # the swap waits for the hand over
                sw = self._swap_pending
                if not sw["ready"]:  # the drain was cut: its counts are gone
                    return self._unresumable(" (the table's tiles were being moved onto "
                                             "its tracks)")
                if sw["stage"] == "build":  # cut while its deck Y was being built
                    return self._unresumable(" (deck %s was being built, with deck %s on the "
                                             "table top)" % (other(sw["deck"]), sw["deck"]))
                if sw["stage"] == "drop":
                    await self._swap_at_hand_over()
                    return "resumed"
                return "swap"
            began = self.phase == "hand_over" and any(h["hand"] == data.get("hand")
                                                      for h in self.hands)
            if not same_boot and self.phase in ("building", "built", "hand_over") and not began:
                # walls inside built by another boot of the table: never trusted
                if unfinished:
                    rec = {"deck": unfinished["deck"], "per_track": [0] * len(self.targets),
                           "backs": {}, "sim_seconds": None, "ok": False}
                    self.builds.append(rec)
                    self.journal.build_finished(self.id, unfinished["build"], rec)
                self.top = data.get("top") if self.phase != "hand_over" else self.top
                if not self.mixed_deck and self.phase == "building":
                    # the tracks' counts died with the daemon and the table: no drain
                    msg = ("the table restarted while the daemon was away, during a build: "
                           "the walls inside can't be accounted for, and the sets can't be "
                           "separated again by the table: sort them by back colour, load the "
                           "%s set and start a new session" % self.sets[0])
                    self._fault("reset", None, len(self.builds), msg)
                    self._phase("stopped", inside=None, top=self.top, hand=self.hand)
                    raise TableFault(F_RESET, 0, 0, msg)
                await self._after_reset(TableFault(F_RESET, 0), deck=data.get("inside"),
                                        drain=False)
                return "resplit" if self.mixed_deck else "swap"
            if self.phase == "built":
                self.inside = data.get("inside")
                return "ready"
            if self.phase == "building":
                deck = data.get("inside")
                if unfinished and self.table.build_id == unfinished["build"]:
                    await self._build(deck, expect_empty=True, resume=True)
                else:  # killed before the table got the build: start it now
                    await self._build(deck, expect_empty=not (self.mixed_deck and not self.decks))
                if not self.decks or len(self.builds) == 1:
                    self._first_built()
                else:
                    self.inside = deck
                    self._phase("built", inside=deck, top=self.top, hand=self.hand)
                return "resumed"
            if self.phase == "hand_over":
                hand, raised, dropped = data["hand"], data["inside"], data["top"]
                if not any(h["hand"] == hand for h in self.hands):
                    # the walls may be on their way up: raise them (again)
                    self.inside, self.top, self.hand = raised, dropped, hand - 1
                    self._pending_raise = (raised, dropped, hand, self.table.mark())
                    await self._hand_over()
                    return "resumed"
                # the hand began: bring the lift down, close the door, rebuild inside
                self.hand, self.top, self.inside = hand, raised, None
                await self.table.settle_after_restart()
                await self._rebuild_inside(dropped if dropped is not None else other(raised))
                return "resumed"
            return self._unresumable()

    def _unresumable(self, why=""):
        msg = "session %s can't be resumed from phase %s%s: abort and start again" % (
            self.id, self.phase, why)
        self._fault("unresumable", None, None, msg)
        raise NotReady(msg, code="unresumable")
