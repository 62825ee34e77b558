"""Sessions: the two-deck rotation and the Mixed Deck split (layer: session).

It talks to the table only through the table client's verbs (`build`, `raise_walls`,
`settle`, `identity`) and to the journal; it knows rulesets, decks and hands, never bytes.
Its life is the table's one state (hostd/core/state.py): every step moves it with
``to_state``, the one setter, which journals the state before anything acts on it.

Life of a session (DESIGN §2):

  normal rotation   deck A = the first set (in the mixer), deck B = the second (on the
                    table top).  Build A inside.  Hand 1: the door drops B into the mixer
                    while the lift raises A; then B is built inside during hand 1.
  Mixed Deck        both sets in the mixer.  Build A = one deck's worth of the mixed
                    tiles, leaving the rest in the mixer; hand 1 raises A; the rest is
                    built inside as B.  A's colour count is what the table counted, B's
                    the two sets less A.
  every hand over   the door drops the played deck into the mixer while the lift raises
                    the walls built inside; once the lift is down the dropped deck is
                    rebuilt inside and checked against its known composition.

A table that restarts with walls inside is recovered by hostd/core/recovery.py.
"""
import asyncio
import time

from hostd.core.codes import describe_backs
from hostd.rules.dice import announcement
from hostd.core.recovery import MAX_RESETS, Recovery
from hostd.core.split import Split
from hostd.rules.rulesets import RulesetError, check_colours, check_fits
from hostd.core.state import DECKS, UNKNOWN, Machine, Stage, State, other, where
from hostd.errors import BadRequest, JantakuError, NotReady, Refused
from hostd.table.client import TableFault
from protocol.messages import F_RESET

# table seconds the centre stays open while people push tiles in: four people sweeping a
# hand's played tiles and walls in take 10-15 s at a real table, so 20 leaves room (a
# club sets its own: `jantaku run --push-window S`; `continue` closes it sooner)
PUSH_WINDOW_S = 20.0
INSIDE = ("inside", "split", "lift")  # places of walls inside the table
STUCK = INSIDE + (UNKNOWN,)  # places a wall may be in, inside the table
MAX_MIXER_SHORT = 20  # collects in a row that find one set missing before the step stops


class CompositionMismatch(JantakuError):
    """A rebuild's colour count differs from the deck's known composition."""

    def __init__(self, message, *, deck=None):
        super().__init__(message, code="composition", status=409)
        self.kind = "composition"
        self.deck = deck
        self.track = None


def check_sets(sets, known=None):
    """The two sets' back colours as a tuple, from "A,B" or a list: each a colour class of
    the board profile (`known`, when given).  Bad input raises BadRequest naming what is
    accepted (400: the same as an unknown ruleset); nothing moves on it."""
    if isinstance(sets, str):
        sets = sets.split(",")
    try:
        sets = check_colours(sets)
    except RulesetError as e:
        raise BadRequest(str(e), code="bad_colours") from None
    if known is not None:
        unknown = [c for c in dict.fromkeys(sets) if c not in known]
        if unknown:
            raise BadRequest("the table does not know back colour %s: its colour classes are %s"
                             % (", ".join(unknown), ", ".join(known) or "none"),
                             code="unknown_colour")
    return tuple(sets)


def _copy_decks(decks):
    return {k: dict(v, backs=dict(v["backs"])) for k, v in sorted(decks.items())}


class Session:
    """One table session.  Not thread-safe; one asyncio task drives it."""

    def __init__(self, *, table, journal, profile, mixed_deck, sets=("blue", "green"),
                 dice, on_event=None, session_id=None, misread_limit=0.05,
                 push_window=PUSH_WINDOW_S, machine=None):
        self.table = table
        self.journal = journal
        self.profile = profile
        self.mixed_deck = bool(mixed_deck)
        self.sets = tuple(sets)
        # identical backs (the same colour twice): decks are split and checked by count;
        # colour readings are ignored (DESIGN §1, seed 000: the backs may look the same)
        self.alike = len(set(self.sets)) == 1
        self.dice = dice  # hostd.rules.dice roller: .roll(profile) -> list of ints
        self._emit = on_event or (lambda ev: None)
        self.id = session_id
        self.tiles = profile.tiles_per_deck
        self.targets = [profile.stacks_per_wall * 2] * 4
        self.decks = {}  # name -> {"tiles": n, "backs": {colour: n}} once known
        self.ranges = {}  # name -> {colour: [lo, hi]}: what is known of its backs
        self.journaled = set()  # decks whose composition in this split is journalled
        self.misread_limit = int(misread_limit * self.tiles)  # unknown backs a build may have
        self.builds = []  # demo-shaped build records
        self.hands = []
        self.faults = []
        self.hand = 0
        self.game = 1  # games hold hands; a new Mixed Deck game is a new split
        self.game_first_hand = 1  # the session-wide number of the game's first hand
        self.split = 1  # the split of the game the decks are (a re-split after a reset: 2...)
        self.splits = []  # the earlier splits: {"game", "split", "decks"}
        self.games = []  # the games before this one: {"game", "first_hand", "decks"}
        self.throw = None  # the hand in play's throw (hostd.rules.dice.announcement)
        self._hand_over_mark = None  # when the hand over under way was first pressed
        self.push_window = float(push_window)  # table seconds the centre stays open
        self._continue = asyncio.Event()  # `continue`: people are done
        self._lock = asyncio.Lock()
        self.m = machine or Machine()
        self.recovery = Recovery(self)
        self.splitter = Split(self)  # the Mixed Deck split's steps (hostd/core/split.py)

    # -- the state --------------------------------------------------------------------------
    @property
    def state(self):
        return self.m.state

    def to_state(self, name, **params):
        """The one setter: the state ``name`` with ``params`` (the hand, game and throw
        filled in), journalled with the table's boot nonce before anything acts on it
        (after a restart the daemon trusts walls only if the same boot built them)."""
        keys = State(name).params
        if "hand" in keys:
            params.setdefault("hand", self.hand)
        if "game" in keys:
            params.setdefault("game", self.game)
        if "thrown" in keys:
            params.setdefault("thrown", self.throw is not None)
        new = State(name, params)
        if new == self.state:
            return new
        self.m.check(name)
        ident = self.table.identity or {}
        if self.id is not None:
            self.journal.phase(self.id, name, boot=ident.get("boot_nonce"), where=where(new),
                               state=new.to_dict(), game_first_hand=self.game_first_hand,
                               split=self.split)
        return self.m.set(name, **new.params)

    def update_state(self, **changes):
        return self.to_state(self.state.name, **dict(self.state.params, **changes))

    def positions(self):
        """(deck built inside, deck on the table top) in the current state (a stop's: the
        state it stopped in)."""
        st = self.state
        if st.name == "stopped" and st.get("resume"):
            st = State.from_dict(st["resume"])
        p = st.params
        if st.name == "built":
            return p["deck"], p.get("top")
        if st.name in ("building", "recovering"):
            return None, p.get("top")
        if st.name == "hand_over":
            return None, p["raising"] if p["stage"] == Stage.SETTLE else p.get("dropping")
        return None, None

    @property
    def top(self):
        return self.positions()[1]

    @property
    def inside(self):
        return self.positions()[0]

    def where(self):
        return where(self.state)

    # -- helpers ------------------------------------------------------------------------
    def emit(self, _type, /, **data):
        data["type"] = _type
        if self.id is not None:
            data["session"] = self.id
        self._emit(data)

    def check_table(self):
        ident = self.table.identity
        check_fits(self.profile, ident["max_stacks"], ident["tracks"])
        check_sets(self.sets, ident["colours"])

    def tell_continue(self):
        """`continue` while the centre is open for people, or while they look for a stray
        tile on the table top: they are done (the centre closes and the step goes on: the
        state says so at once)."""
        self._continue.set()
        st = self.state
        if st.name == "preparing" and st.get("stage") == Stage.FIND:
            self.update_state(stage=Stage.START, reason=None, colour=None)
            return
        if st.name in ("preparing", "building") and st.get("stage") == Stage.PUSH:
            self.update_state(until=None,
                              stage=Stage.BUILD if st.name == "building" else Stage.START)

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
            "decks": _copy_decks(self.decks),
            "games": self.games_summary(),
            "builds": list(self.builds),
            "hands": list(self.hands),
            "dice": dict(self.throw) if self.throw else None,
            "faults": [{k: v for k, v in f.items() if k != "_id"} for f in self.faults],
        }

    def game_hand(self):
        """The hand's number within its game (0 before the game's first hand)."""
        return max(0, self.hand - self.game_first_hand + 1)

    def games_summary(self):
        """Every game so far: its number, decks (as first split), every split (a re-split
        after a table restart is another) and the hands, each with the split it was
        played on."""
        out = [dict(g) for g in self.games]
        out.append({"game": self.game, "first_hand": self.game_first_hand,
                    "decks": _copy_decks(self._first_split_decks(self.game))})
        for g in out:
            splits = [s for s in self.splits if s["game"] == g["game"]]
            if g["game"] == self.game:
                splits = splits + [{"game": self.game, "split": self.split,
                                    "decks": _copy_decks(self.decks)}]
            g["splits"] = [{"split": s["split"], "decks": s["decks"],
                            "hands": [h["hand"] for h in self.hands
                                      if h.get("game", 1) == g["game"]
                                      and h.get("split", 1) == s["split"]]} for s in splits]
            g["hands"] = [h["hand"] for h in self.hands if h.get("game", 1) == g["game"]]
        return out

    def _first_split_decks(self, game):
        for s in self.splits:
            if s["game"] == game and s["split"] == 1:
                return s["decks"]
        return self.decks

    def _classes(self):
        """The colour classes a build may see (a stray tile of another back stops it);
        none with identical backs, whose readings are ignored."""
        if self.alike:
            return []
        names = list((self.table.identity or {}).get("colours") or ())
        return [names.index(c) + 1 for c in self.sets if c in names]

    # -- builds -------------------------------------------------------------------------
    async def build(self, deck, *, expect_empty, resume=None, split=False):
        """Build `deck` inside; `resume`: the stopped build to carry on ({"table_build",
        "missing", "kind"}), or "paused" for one the table kept while the daemon was away.
        `split`: the first build of a Mixed Deck split, which is a deck only if the mixer
        did not run empty (else the other set was not in it: no deck, `mixer_empty`)."""
        number = len(self.builds) + 1
        if resume == "paused":
            self.emit("build_resumed", build=number, deck=deck)
            result = await self.table.resume_build(number)
        else:
            result = await self._run_build(number, deck, expect_empty, resume)
        backs = dict(result["backs"])
        walls = [dict(w) for w in result.get("backs_per_track") or ()]
        if self.alike:  # readings ignored: every tile has the one back
            backs = {self.sets[0]: sum(result["per_track"])}
            walls = [{self.sets[0]: n} for n in result["per_track"]]
        record = {"deck": deck, "game": self.game, "per_track": list(result["per_track"]),
                  "backs": backs, "walls": walls, "sim_seconds": round(result["seconds"], 3),
                  "ok": True, "mixer_empty": bool(result.get("mixer_empty"))}
        if split and record["mixer_empty"]:
            problem, record["ok"] = None, False  # no split: not a deck (mixer_short)
        else:
            problem = self._check_composition(deck, backs)
        if problem:
            record["ok"] = False
        self.builds.append(record)
        self.journal.build_finished(self.id, number, record)
        self.emit("build_done", build=number, **record)
        if problem:
            self.record_fault("composition", None, number, problem)
            raise CompositionMismatch(problem, deck=deck)
        return record

    def _not_pushed(self, missing):
        """A build this short (a quarter of the deck or more) lacks tiles people did not
        push into the centre before it closed, not tiles lost in the table."""
        return missing >= self.tiles // 4

    async def _run_build(self, number, deck, expect_empty, resume):
        self.journal.build_started(self.id, number, deck, self.targets)
        self.emit("build_started", build=number, deck=deck, targets=list(self.targets),
                  resumes=resume["table_build"] if resume else None)
        try:
            if resume is not None:  # a fault stopped it: the table kept its counts
                if resume["kind"] == "short-top" or (  # (a journal of before: "short")
                        resume["kind"] == "short" and self._not_pushed(resume["missing"])):
                    # so many are missing that they are on the table top, not pushed in
                    await self.push_in("building", stage=Stage.PUSH)
                result = await self.table.resume_build(resume["table_build"])
            else:
                result = await self.table.build(
                    number, self.targets, stacks=self.profile.stacks_per_wall,
                    expect_empty=expect_empty, colours=self._classes())
        except TableFault as e:  # every build the table started is listed, failed ones too
            record = {"deck": deck, "per_track": self.table.per_track(),
                      "backs": self.table.backs(), "sim_seconds": None, "ok": False}
            self.builds.append(record)
            self.journal.build_finished(self.id, number, record)
            missing = max(0, self.tiles - sum(record["per_track"]))
            if e.kind == "short" and self._not_pushed(missing):
                # a quarter of the deck or more never came: its tiles were not pushed into
                # the centre before it closed. People's step, not a track's fault
                e.kind, e.track = "short-top", None
                e.message = "the centre closed before every tile of deck %s went in" % deck
            stray = self._stray_colour(deck, record) if e.kind == "surplus" else None
            if stray is not None:
                # the walls hold a colour over the deck's count: a tile not of the sets went
                # into walls, and what is left in the mixer is of the sets (people's step:
                # Split.resplit_stray)
                e.kind, e.colour = "stray", stray
                e.message = ("%s: a %s tile that is not of the sets went into the walls, and "
                             "what was left in the mixer is of the sets" % (e.message, stray))
            if e.kind in ("short", "short-top", "surplus", "overfill", "jam", "stray"):
                e.message = "%s: %s" % (self._count_words(deck, record), e.message)
                e.args = (e.message,)
                e.fault_ids = [self.record_fault(e.kind, e.track, number, e.message)]
            if e.fault != F_RESET:  # paused with its counts: a recovery resumes it
                e.resume = {"table_build": resume["table_build"] if resume else number,
                            "missing": max(0, self.tiles - sum(record["per_track"])),
                            "kind": e.kind}
                e.deck = deck
            self.emit("build_failed", build=number, deck=deck, message=str(e))
            raise
        if resume is not None and resume.get("fault_ids"):
            for fid in resume["fault_ids"]:
                self.mark_recovered(fid)
        return result

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
                    deck, describe_backs(backs), describe_backs(self.best_backs(deck)),
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

    def _stray_colour(self, deck, record):
        """The back colour of a tile not of the sets in `deck`'s walls, when a build that
        filled them left tiles in the mixer (SURPLUS) and its count has that colour over
        what the deck holds (Mixed Deck, backs checked): the tile left over is then one of
        the sets, and the stray is in walls already built (this deck's, or for a split's
        deck B, deck A's).  None otherwise (taking the surplus out of the mixer is right)."""
        backs = record["backs"] or {}
        if (not self.mixed_deck or self.alike or deck not in self.ranges
                or sum(record["per_track"]) != self.tiles or backs.get(UNKNOWN)):
            return None
        for c in self.sets:
            if backs.get(c, 0) > self.ranges[deck][c][1]:
                return c
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
                exp = self.best_backs(deck)
                diffs = ", ".join("%s %d of %d" % (c, backs.get(c, 0), exp[c]) for c in self.sets
                                  if backs.get(c, 0) < exp[c] and counted > self.tiles - 8)
            if diffs:
                words += " (%s)" % diffs
        return words

    def best_backs(self, deck):
        r = self.ranges[deck]
        return {c: r[c][0] for c in self.sets}

    def _diffs(self, deck, backs):
        if deck not in self.ranges or self.alike:  # the count says it all
            return ""
        exp = self.best_backs(deck)
        return ", ".join("%s %d, expected %d" % (c, backs.get(c, 0), exp[c])
                         for c in self.sets if backs.get(c, 0) != exp[c])

    def _set_range(self, deck, ranges):
        self.ranges[deck] = ranges
        comp = {"tiles": self.tiles, "backs": {c: ranges[c][0] for c in self.sets}}
        uncertain = self.tiles - sum(comp["backs"].values())
        if uncertain:
            comp["backs"][UNKNOWN] = uncertain
        if self.decks.get(deck) != comp:
            first = deck not in self.journaled
            self.decks[deck] = comp
            if first:
                self.journaled.add(deck)
                self.journal.deck(self.id, deck, comp, game=self.game, split=self.split)
            else:  # a later build read backs an earlier one could not: the count narrows
                self.journal.transition(self.id, "deck_refined", deck=deck, composition=comp)

    def new_split(self, *, resplit=False):
        """The decks are split afresh (a new game, or a re-split after a restart): the
        split so far is kept in the record (each hand says which it was played on)."""
        if resplit and self.decks:
            self.splits.append({"game": self.game, "split": self.split,
                                "decks": _copy_decks(self.decks)})
            self.split += 1
        self.decks, self.ranges, self.journaled = {}, {}, set()

    def record_fault(self, kind, track, build, message, recovered=False):
        rec = {"kind": kind, "track": track, "build": build, "recovered": recovered,
               "message": message}
        fid = self.journal.fault(self.id, rec)
        self.emit("fault", **rec)
        rec["_id"] = fid  # for _recovered(); not shown in summary()
        self.faults.append(rec)
        return fid

    def mark_recovered(self, fid):
        for rec in self.faults:
            if rec.get("_id") == fid and not rec["recovered"]:
                rec["recovered"] = True
                self.journal.fault_recovered(fid)
                self.emit("fault_recovered", id=fid)

    def _set_deck(self, deck, backs):
        self._set_range(deck, {c: [backs.get(c, 0)] * 2 for c in self.sets})

    # -- the session's steps ------------------------------------------------------------
    def open(self):
        """Check the table can build this ruleset and journal the session.  Nothing moves
        before this has passed; a refusal names both numbers."""
        self.check_table()
        self.id = self.journal.create_session(
            ruleset=self.profile.name, mixed_deck=self.mixed_deck, sets=list(self.sets),
            seed=getattr(self.dice, "seed", None))
        self.emit("session_started", ruleset=self.profile.name, mixed_deck=self.mixed_deck)
        if not self.mixed_deck:
            # the first set is deck A (in the mixer), the second deck B (on top)
            self._set_deck("A", {self.sets[0]: self.tiles})
            self._set_deck("B", {self.sets[1]: self.tiles})
        return self.id

    async def start(self):
        """open() then the first build, for a table loaded as DESIGN §2 says (the demo)."""
        self.open()
        async with self._lock:
            await self.build_first(top=None if self.mixed_deck else "B")
        return self.summary()

    # -- the starting position (a session started by a person) -------------------------------
    def plan_start(self, known, *, loaded=False):
        """How to bring the table to this mode's starting position, from `known` (where
        the last session left the tiles: {"mixed_deck", "sets", "where"}, or None) and the
        table's own status.  Mixed Deck: everything into the mixer (walls inside raised,
        people push the table top in).  The normal rotation: the sets apart, the first in
        the mixer and the second out of it, which the table cannot sort once they are
        mixed: then it refuses (BadRequest), saying what people must do.  Nothing moves."""
        walls = self.table.walls_inside()
        where = (known or {}).get("where") or {}
        if self.mixed_deck:
            stuck = walls or not where or any(p in STUCK for p in where.values())
            before = {d: where.get(d, UNKNOWN) for d in DECKS}
            return {"raise": stuck, "before": before,
                    "window": stuck or not where or bool(set(where.values()) & {"top", UNKNOWN})}
        return self._plan_normal(known, where, walls, loaded)

    def _plan_normal(self, known, where, walls, loaded):
        how = ("put the %s set in the mixer (through the centre) and the %s set on the table "
               "top, then start the normal rotation with the sets loaded; or play Mixed Deck, "
               "which collects every tile by itself" % (self.sets[0], self.sets[1]))
        if loaded or known is None:
            if walls:
                raise Refused("the table has walls inside that no session of this daemon "
                              "accounts for: bring them up (end with empty), take them out, "
                              "then " + how, code="walls_inside")
            return {"raise": False, "window": False, "before": {"A": "mixer", "B": "top"}}
        if list(known.get("sets") or ()) == list(self.sets)[::-1]:  # its deck A was our B
            where = {"A": where.get("B", UNKNOWN), "B": where.get("A", UNKNOWN)}
            known = dict(known, sets=list(self.sets))
        if known.get("mixed_deck") or list(known.get("sets") or ()) != list(self.sets):
            # (`by`: what else than a session left them so, e.g. a calibration)
            why = ("%s mixed the two sets" % (known.get("by") or "the last session (Mixed Deck)")
                   if known.get("mixed_deck") else "the last session's sets were %s"
                   % ", ".join(known.get("sets") or ()))
            raise Refused("the normal rotation needs the two sets apart and the table "
                          "cannot sort them: %s. Sort the tiles by back colour, %s"
                          % (why, how), code="sets_not_apart")
        places = sorted(where.get(d, UNKNOWN) for d in DECKS)
        if places == ["mixer", "top"] or (places == ["inside", "top"] and self.table.state == "built"):
            first = "A" if where.get("A") in ("mixer", "inside") else "B"
            if first == "B":
                self.sets = (self.sets[1], self.sets[0])
            adopt = places == ["inside", "top"]
            return {"raise": False, "window": False, "adopt": adopt,
                    "before": {"A": "inside" if adopt else "mixer", "B": "top"}}
        raise Refused("the normal rotation needs one set in the mixer and the other out of "
                      "it, and the last session left deck A %s and deck B %s, which the "
                      "table cannot sort. Bring the walls up (end with empty) and sort the "
                      "tiles by back colour, %s"
                      % (where.get("A", UNKNOWN), where.get("B", UNKNOWN), how),
                      code="sets_not_apart")

    async def begin(self, plan):
        """The starting position (plan_start's plan), then deck A built inside."""
        async with self._lock:
            await self.run_plan(plan)

    async def run_plan(self, plan):
        """Bring the table to the starting position as ``plan`` says ({"raise": the walls
        inside come up, "window": the centre opens for people to push the top in,
        "before": where the decks are, "adopt": the last session's walls inside are deck
        A}), then deck A built inside.  What is left of it is the preparing state's own
        (raise_walls, push_window): a stop carries on from there (plan_left)."""
        top = None if self.mixed_deck else "B"
        if plan.get("adopt"):  # the last session's walls inside, counted and checked
            self.to_state("preparing", stage=Stage.START, before=dict(plan["before"]),
                          raise_walls=False, push_window=False)
            self.to_state("built", deck="A", top=top, hand=0)
            return
        await self._prepare(plan)
        await self.build_first(top=top)

    async def _prepare(self, plan):
        """Every tile where the mode starts.  Mixed Deck: the walls inside come up (the
        tiles a stopped build left on the ramps are stacked first), then the centre opens
        while people push the table top in."""
        before = dict(plan.get("before") or {d: UNKNOWN for d in DECKS})
        todo = {"raise_walls": bool(plan.get("raise")), "push_window": bool(plan.get("window"))}
        # a stray to find on the way (kept in the state: a stop or a restart carries it)
        why = {"reason": "stray", "colour": plan["stray"]} if plan.get("stray") else {}
        self.to_state("preparing", stage=Stage.START, before=before, **todo, **why)
        for _ in range(MAX_RESETS):
            try:
                return await self._collect(plan, before)
            except TableFault as e:
                # Mixed Deck collects every tile into the mixer whatever a restart left:
                # nothing to trust or sort, so the collect simply goes on (the lift comes
                # up again for walls a reset left on it or inside)
                if e.fault != F_RESET or not self.mixed_deck:
                    raise
                self.record_fault("reset", None, None, "the table restarted while collecting the "
                                  "tiles: they all go into the mixer anyway; the collect goes on",
                                  recovered=True)
                plan = dict(plan, **{"raise": True})
                why = {"reason": "stray", "colour": plan["stray"]} if plan.get("stray") else {}
                self.to_state("preparing", stage=Stage.START, before=before,
                              **dict(todo, raise_walls=True), **why)
        raise TableFault(F_RESET, 0, 0, "the table restarted %d times in a row while collecting "
                         "the tiles: stopped" % MAX_RESETS)

    async def _collect(self, plan, before):
        await self.table_ready()
        if self.table.door not in ("closed", "unknown"):
            await self.table.close_door()  # left open by an abort
        if plan.get("raise"):
            self.update_state(stage=Stage.RAISE)
            self.emit("collect", step="raise")
            await self.motion(self.table.bring_walls_up)
            self.update_state(before={d: ("top" if p in STUCK else p) for d, p in before.items()},
                              raise_walls=False)
        if plan.get("stray"):
            await self.splitter.find_stray(plan["stray"])
            plan.pop("stray")  # found: a collect carried on after a stop asks no more
        if plan.get("window"):
            await self.push_in("preparing", stage=Stage.PUSH)
            self.update_state(push_window=False)
        if self.mixed_deck:  # both sets in the mixer now
            self.update_state(stage=Stage.START, before={d: "mixer" for d in DECKS})

    async def build_first(self, top):
        """Deck A built inside; for Mixed Deck, proven to be a split: if it took the last
        tile in the mixer, the other set was not in it (mixer_short): its walls come up,
        the centre opens until people say every tile is in, and A is built again."""
        for _ in range(MAX_MIXER_SHORT):
            self.to_state("building", deck="A", top=top, hand=self.hand, stage=Stage.BUILD)
            first_split = self.mixed_deck and not self.decks
            try:
                record = await self.build("A", expect_empty=not self.mixed_deck,
                                          split=first_split)
            except TableFault as e:
                if e.fault != F_RESET:
                    raise
                await self.recovery.after_reset(e, deck="A")  # nothing in play yet
                return
            if not first_split:
                self.to_state("built", deck="A", top=top, hand=self.hand)
                return
            if await self.splitter.finish_first(record, again=False):
                return
        raise NotReady("deck A took every tile in the mixer %d times in a row: the two sets "
                       "are not both in it" % MAX_MIXER_SHORT, code="mixer_short")

    async def await_people(self, **changes):
        """People's step: the state's parameters changed (what they are asked), then
        wait for their `continue`."""
        self._continue.clear()
        self.update_state(**changes)
        await self._continue.wait()

    async def push_in(self, name, *, timed=True, **params):
        """The centre open for `push_window` table seconds (or until `continue`; without
        `timed`, only until `continue`) while people push tiles in; what falls in is
        checked by the next build's count."""
        self._continue.clear()
        await self.table.open_door()
        until = (time.time() + self.table.wall_seconds(self.push_window)) if timed else None
        self.to_state(name, **dict(self.state.params, until=until, **params))
        try:
            if timed:
                await self.table.pause(self.push_window, stop=self._continue)
            else:
                await self._continue.wait()
        finally:
            if self.state.name == name:
                self.update_state(until=None,
                                  stage=Stage.BUILD if name == "building" else Stage.START)
        await self.table.close_door()

    # -- the throw ------------------------------------------------------------------------------
    def throw_dice(self, values=None, by="api"):
        """Throw the ruleset's dice for the hand whose walls are on the table top (or take
        the faces people threw: `values`, checked against the ruleset), and announce the
        throw and the break.  Nothing moves; a build may run meanwhile.  The caller checked
        that a hand is in play without a throw (`can`)."""
        hand = self.hands[-1]
        if values is None:
            values = self.dice.roll(self.profile)
        info = announcement(self.profile, values, hand=hand["hand"], by=by,
                            first_of_game=hand["hand"] == self.game_first_hand)
        brk = {k: info[k] for k in ("total", "breaker", "break_from_right", "unit",
                                    "dead_wall_tiles")}
        self.journal.hand_dice(self.id, hand["hand"], info["dice"], brk, by)
        hand.update(dice=list(info["dice"]), breaker=info["breaker"], dice_by=by)
        self.throw = info
        self.emit("dice", **info)
        st = self.state
        if st.name == "stopped":
            resume = dict(st["resume"], params=dict(st["resume"]["params"], thrown=True))
            self.update_state(thrown=True, resume=resume)
        else:
            self.update_state(thrown=True)
        return info

    # -- games ----------------------------------------------------------------------------------
    def _next_game(self):
        self.games.append({"game": self.game, "first_hand": self.game_first_hand,
                           "decks": _copy_decks(self._first_split_decks(self.game))})
        self.splits = [s for s in self.splits if s["game"] != self.game] + [
            s for s in self.splits if s["game"] == self.game]
        if not any(s["game"] == self.game and s["split"] == self.split for s in self.splits):
            self.splits.append({"game": self.game, "split": self.split,
                                "decks": _copy_decks(self.decks)})
        self.game += 1
        self.split = 1
        self.game_first_hand = self.hand + 1
        self.throw = None  # the last game's throw is not this game's
        self.journal.game(self.id, self.game, self.game_first_hand)
        self.emit("game", game=self.game, first_hand=self.game_first_hand)

    async def new_game(self):
        """End the game and begin the next.  The normal rotation's decks simply go on.
        Mixed Deck: every tile back into the mixer (the walls inside come up, people push
        the table top into the open centre) and split afresh: the new game's decks."""
        if not self.mixed_deck:  # nothing moves: the hand on the table was the last one
            self._next_game()
            self.update_state(game=self.game)
            return
        async with self._lock:
            before = self.where()
            self._next_game()
            self.new_split()
            await self.run_plan({"raise": True, "window": True, "before": before})

    # -- stops and recovery ------------------------------------------------------------------
    def on_stopped(self, step, exc):
        """A step stopped (a fault, a refusal, the table gone): the state says what people
        must do, and what carries on once they did it."""
        # a table fault's kind (jam, short...), else the error's code (composition,
        # not_connected...): the key of what people are asked (hostd/core/codes.py TODO)
        kind = getattr(exc, "kind", None) or getattr(exc, "code", None) or "refused"
        resume = getattr(exc, "resume", None)
        st = self.state
        prev = st["resume"] if st.name == "stopped" else st.to_dict()
        prev_fault = (st["fault"] or {}) if st.name == "stopped" else {}
        ids = list(prev_fault.get("ids") or ()) + list(getattr(exc, "fault_ids", None) or ())
        fault = {"message": str(exc), "ids": ids, "build": resume}
        if getattr(exc, "colour", None):  # a stray tile's back colour (kind stray)
            fault["colour"] = exc.colour
        deck = getattr(exc, "deck", None) or _deck_of(prev)
        self.to_state("stopped", step=step, kind=kind, track=getattr(exc, "track", None),
                      deck=deck, fault=fault, resume=prev,
                      hand=prev["params"].get("hand", self.hand),
                      thrown=bool(prev["params"].get("thrown")))
        self.emit("stopped", step=step, kind=kind, message=str(exc))

    async def recover(self):
        """Carry on with the step that stopped, once people fixed what they were asked
        to (`continue` / `clear-fault`): the table's fault is cleared first (refused while
        its cause is still there)."""
        async with self._lock:
            st = self.state
            resume = State.from_dict(st["resume"])
            fault = st["fault"] or {}
            build = dict(fault["build"], fault_ids=fault.get("ids")) if fault.get("build") else None
            self.to_state(resume.name, **resume.params)  # carrying on: the state says so at once
            await self.table_ready()
            if st["kind"] == "stray":
                return await self.splitter.resplit_stray(fault.get("colour"), fault.get("ids"))
            if resume.name == "preparing":
                return await self.run_plan(plan_left(resume))
            if resume.name == "hand_over":
                return await self.run_hand_over(repeat=resume, fault_ids=fault.get("ids"))
            if resume.name == "building":
                return await self._recover_build(resume, build, fault.get("ids"))
            if resume.name == "recovering":
                return await self.recovery.carry_on(resume)
            if resume.name == "built":
                self.to_state("built", **resume.params)
                return None
            raise NotReady("nothing to carry on from %s" % resume.name, code="cannot_continue")

    async def _recover_build(self, resume, build, fault_ids):
        deck, top = resume["deck"], resume.get("top")
        if top is None and deck == "A" and self.mixed_deck and not self.decks:
            # the first build of a split (a session's, a game's, a re-split's)
            if build is None:
                return await self.build_first(top=None)
            self.to_state("building", deck="A", top=None, hand=self.hand, stage=Stage.BUILD)
            record = await self.build("A", expect_empty=False, resume=build, split=True)
            await self.splitter.finish_first(record)
            return None
        if build is None and not self.hands and deck == "A":
            return await self.build_first(top=top)
        await self.rebuild_inside(deck, top=top, resume=build)
        for fid in fault_ids or ():
            self.mark_recovered(fid)
        return None

    # -- hand overs ------------------------------------------------------------------------------
    async def hand_over(self, by="api"):
        """End the hand being played (or begin the first): drop the played deck, raise
        the walls built inside, then rebuild the dropped deck inside.  `by`: who asked
        (the start button, or the API), journalled with the hand."""
        async with self._lock:
            self._hand_over_mark = self.table.mark()  # the turnaround counts from here
            if self.state.name == "recovering":
                return await self.recovery.at_hand_over(by)
            return await self.run_hand_over(by=by)

    async def repeat_hand_over(self, st):
        """A hand over a restart of the daemon cut before its hand began: the walls may be
        on their way up, so they are raised (again); the turnaround counts from now."""
        self._hand_over_mark = None
        return await self.run_hand_over(repeat=st.with_(stage=Stage.RAISE))

    async def run_hand_over(self, repeat=None, fault_ids=None, by="api"):
        """The hand over (`by`: who asked, kept in its state), or `repeat`ed from the
        hand over state a stop or a restart cut."""
        if repeat is None:
            raised, dropped = self.inside, self.top
            next_hand = self.hand + 1
            # committed before anything moves: a restart knows a hand over was under way
            self.to_state("hand_over", raising=raised, dropping=dropped, hand=next_hand,
                          stage=Stage.RAISE, thrown=False, by=by)
            self.emit("hand_over", hand=next_hand, raising=raised, dropping=dropped)
        else:  # repeated after a stop (guard broken, ...): the cause must be gone
            raised, dropped, next_hand = repeat["raising"], repeat.get("dropping"), repeat["hand"]
            if repeat["stage"] == Stage.SETTLE:
                return await self._after_top(next_hand, raised, dropped)
            self.to_state("hand_over", **dict(repeat.params))
        if self._hand_over_mark is None:
            self._hand_over_mark = self.table.mark()
        try:
            await self.motion(self.table.raise_walls, open_door=dropped is not None,
                              fault_ids=fault_ids)
        except TableFault as e:
            if e.fault != F_RESET:
                raise
            # counted walls, but the table that counted them restarted on the way up:
            # they go back in with the played deck and both decks are split again; the
            # hand over then goes on with the new deck A
            await self.recovery.after_reset(
                e, what="while raising the walls for hand %d" % next_hand, deck=raised,
                drain=False, top=dropped, at_hand_over=True)
            return await self.recovery.at_hand_over()  # counts in the turnaround
        return await self._hand_begins(next_hand, raised, dropped)

    async def _hand_begins(self, next_hand, raised, dropped):
        # turnaround: from the (first) hand over to the walls at the top
        turnaround = self.table.seconds_since(self._hand_over_mark)
        self._hand_over_mark = None
        # the throw comes once the walls are up: a press of dice (throw_dice)
        by = self.state.get("by", "api")  # (a hand over journalled before `by`: the API's)
        record = {"hand": next_hand, "game": self.game, "split": self.split, "deck": raised,
                  "by": by, "dice": [], "breaker": None, "dice_by": None,
                  "turnaround_sim_seconds": round(turnaround, 3)}
        self.journal.hand(self.id, record)
        self.hands.append(record)
        self.hand = next_hand
        self.throw = None
        self.to_state("hand_over", raising=raised, dropping=dropped, hand=next_hand,
                      stage=Stage.SETTLE, thrown=False, by=by)
        self.emit("hand", **record)
        return await self._after_top(next_hand, raised, dropped)

    async def _after_top(self, hand, raised, dropped):
        try:
            await self.table.settle()  # lift back down, door closed
        except TableFault as e:
            if e.fault != F_RESET:
                raise
            await self._settle_after_reset(hand)
        await self.rebuild_inside(dropped if dropped is not None else other(raised), top=raised)
        return self.hands[-1]

    async def _settle_after_reset(self, hand):
        """The table restarted after the walls reached the top (the hand has begun; they
        were counted and delivered): the empty lift is brought down again and the door
        closed; the dropped deck, in the mixer, is rebuilt and checked as usual."""
        fid = self.record_fault("reset", None, None, "hand %d: the table restarted while the lift "
                                "went back down: the walls on the table are the counted ones; the "
                                "lift is brought down again" % hand)
        await self.table_ready()
        await self.table.settle_after_restart()
        self.mark_recovered(fid)

    async def table_ready(self):
        """Until the table is connected again, out of a fault state (a clear refused
        while the cause is still there raises)."""
        await self.table.wait_ready()
        await self.table.clear_fault_if_any()

    async def motion(self, verb, fault_ids=None, **kw):
        """A lift or door motion the guard (or a stall) may stop: a stop is journalled
        (and the step stops, to be repeated); once one succeeds, the stops before it
        (`fault_ids`) are marked recovered."""
        await self.table.clear_fault_if_any()  # refused while the cause is still there
        try:
            await verb(**kw)
        except TableFault as e:
            if e.fault == F_RESET:
                raise
            hand = self.state.get("hand") or self.hand
            e.message = "hand %d: %s" % (hand, e.message)  # as journalled: the stop says so
            e.args = (e.message,)
            e.fault_ids = [self.record_fault(e.kind, e.track, None, e.message)]
            raise
        for fid in fault_ids or ():
            self.mark_recovered(fid)

    async def rebuild_inside(self, deck, *, top, resume=None):
        """Build the deck that was dropped into the mixer, inside, during the hand."""
        self.to_state("building", deck=deck, top=top, hand=self.hand, stage=Stage.BUILD)
        try:
            await self.build(deck, expect_empty=True, resume=resume)
        except TableFault as e:
            if e.fault != F_RESET:
                raise
            await self.recovery.after_reset(e, deck=deck)  # a hand is in play: at its hand over
            return
        self.to_state("built", deck=deck, top=top, hand=self.hand)

    # -- after a restart of the daemon ---------------------------------------------------------
    @classmethod
    def restore(cls, saved, *, table, journal, profile, dice, on_event=None, machine=None):
        """A session from the journal (journal.open_session()), as it was committed."""
        from hostd.core.resume import restore

        s = cls(table=table, journal=journal, profile=profile, mixed_deck=saved["mixed_deck"],
                sets=tuple(saved["sets"]), dice=dice, on_event=on_event, session_id=saved["id"],
                machine=machine)
        restore(s, saved)
        return s

    async def resume(self):
        """Ask the table where it is and carry on from the journal's last state.  Walls
        are trusted only if the same boot of the table built them (its boot nonce)."""
        from hostd.core.resume import resume

        async with self._lock:
            return await resume(self)


def plan_left(state):
    """What is left of bringing the table to its starting position, as the preparing state
    ``state`` says it (Session.run_plan's plan): the walls still to come up, the centre
    still to open, the stray people were to find (reason stray).  Not said (a state
    journalled before they were kept): both, as a restart does."""
    p = state.params
    plan = {"raise": p.get("raise_walls") is not False,
            "window": p.get("push_window") is not False,
            "before": dict(p.get("before") or {d: UNKNOWN for d in DECKS})}
    if p.get("reason") == "stray":
        plan["stray"] = p.get("colour")
    return plan


def _deck_of(state_dict):
    p = state_dict.get("params") or {}
    return p.get("deck") or p.get("raising")
