"""The game's ledger at the table (layer: session): one ledger per game of the session
(hostd/game, docs/SCORING.md), each entry journalled as people enter it, the players
placed at the table's sides, and the thrower and breaker of a hand named by player.

Players are keyed by the wind they sit at in the game's first hand (``east`` deals
first).  Where they sit is a side **seen from the game's first thrower**, as the break
names seats (hostd/rules/dice.py: ``self``, ``right``, ``across``, ``left``; play goes
counter-clockwise, so ``south`` sits at ``east``'s right).  East's side is given (an
entry ``{"kind": "seats", "first_dealer": "across"}``), else the ruleset's own seat
selection: the breaker of the game's first throw where the breaker becomes the dealer
(Ùzje), else the first thrower (``self``).

The table throws for the dealer from the second hand on, so the break of a hand is named
by player once the ledger knows who dealt it (every earlier hand's result entered; its own
may be entered too): ``thrower`` is that hand's dealer and ``breaker`` the player at the
seat the dice name, each with their wind in that hand.  A result entered before "Hand
over" changes nothing about the walls standing.  Otherwise the break keeps its seats only,
which are always right.
"""
import structlog

from hostd.rules.dice import SEATS
from hostd.rules.rulesets import RulesetError, get_ruleset
from hostd.errors import BadRequest, JantakuError, NotFound
from hostd.game.ledger import HAND_ENDS, Ledger, LedgerError
from hostd.game.seats import WINDS, seat_wind

log = structlog.get_logger("jantaku.scores")

SIDES = SEATS  # seen from a thrower, in the order of play
SEATS_ACCEPTED = ('{"kind": "seats", "first_dealer": "self"|"right"|"across"|"left" (where '
                  'East sits, seen from the game\'s first thrower; optional), "names": '
                  '{"east": "Mika", ...} (optional)}')


class Scorebook:
    """A session's ledgers.  ``first_throw(game)``: the game's first hand's throw (a dict
    with its ``breaker``) or None; ``breaker_deals``: the ruleset's breaker becomes the
    starting dealer."""

    def __init__(self, *, journal, session_id, ruleset, breaker_deals=False,
                 first_throw=lambda game: None):
        self._journal = journal
        self._first_throw = first_throw
        self._sid = session_id
        self._ruleset = ruleset
        self._breaker_deals = bool(breaker_deals)
        self._raw = {}  # game -> the entries as entered (seats and undo included)
        self._ledgers = {}  # game -> Ledger
        self._seats = {}  # game -> {"first_dealer": side or None, "names": {...}}

    # -- restoring ------------------------------------------------------------------------------
    def restore(self, entries_by_game):
        """The ledgers as the journal kept them (Journal.score_entries).  An entry this
        jantaku no longer takes (written by another version) is kept in the journal and
        skipped, with a warning: the rest of the game still counts."""
        for game, raw in sorted(entries_by_game.items()):
            for entry in raw:
                try:
                    self._apply(int(game), entry)
                except JantakuError as e:
                    log.warning("score_entry_skipped", game=game, entry=entry, error=str(e))
            self._raw[int(game)] = list(raw)

    # -- entering ---------------------------------------------------------------------------------
    def enter(self, game, body, *, throw=None):
        """Apply one entry to game ``game``'s ledger and journal it; the new state.  A
        refused entry changes nothing.  ``throw``: the hand in play's throw, whose double
        counts in a Shenyang win entered without ``dice``."""
        if not isinstance(body, dict):
            raise BadRequest("a score entry is a JSON object with a \"kind\"; see "
                             "docs/SCORING.md for each kind")
        entry = dict(body)
        if (entry.get("kind") in ("ron", "tsumo") and "dice" not in entry and throw
                and self._ledger(game).rules.scoring == "multipliers"):
            entry["dice"] = list(throw["dice"][:2])  # the table's own throw of this hand
        seats = self._seats.get(game)
        self._apply(game, entry)
        raw = self._raw.setdefault(game, [])
        try:
            self._journal.score_entry(self._sid, game, len(raw) + 1, entry)
        except Exception:  # not kept: not taken either
            if entry.get("kind") == "seats":
                self._seats[game] = seats
            elif entry.get("kind") != "undo":
                self._ledger(game).undo()
            raise
        raw.append(entry)
        return self.state(game)

    def _apply(self, game, entry):
        if entry.get("kind") == "seats":
            self._set_seats(game, entry)
        else:
            self._ledger(game).apply(entry)

    def _ledger(self, game):
        if game not in self._ledgers:
            self._ledgers[game] = Ledger(self._ruleset)
        return self._ledgers[game]

    def _set_seats(self, game, entry):
        extra = set(entry) - {"kind", "first_dealer", "names"}
        if extra:
            raise BadRequest("a seats entry takes no %s; accepted: %s"
                             % (", ".join(sorted(extra)), SEATS_ACCEPTED))
        seats = dict(self._seats.get(game) or {"first_dealer": None, "names": {}})
        side = entry.get("first_dealer")
        if side is not None:
            if side not in SIDES:
                raise BadRequest("first_dealer %r is not a seat; accepted: %s"
                                 % (side, SEATS_ACCEPTED))
            seats["first_dealer"] = side
        names = entry.get("names")
        if names is not None:
            if not isinstance(names, dict) or any(k not in WINDS for k in names) or any(
                    v is not None and (not isinstance(v, str) or len(v) > 40)
                    for v in names.values()):
                raise BadRequest("names maps players (%s) to names of up to 40 characters "
                                 "(null: none); accepted: %s" % (", ".join(WINDS), SEATS_ACCEPTED))
            seats["names"] = dict(seats["names"], **names)
        self._seats[game] = seats

    # -- reading ------------------------------------------------------------------------------------
    def state(self, game):
        """GET /score: the ledger's state (before any entry: the ruleset's starting
        points), each player's name and side."""
        out = self._ledger(game).state()
        out["game"] = game
        seats = self._seats.get(game) or {"first_dealer": None, "names": {}}
        east = self._east_side(game)
        for k, p in out["players"].items():
            if seats["names"].get(k) is not None:
                p["name"] = seats["names"][k]
            p["side"] = None if east is None else SIDES[(SIDES.index(east) + WINDS.index(k)) % 4]
        out["first_dealer"] = east
        out["hands_played"] = sum(1 for e in self._ledger(game).entries
                                  if e["kind"] in HAND_ENDS)
        return out

    def entries(self, game):
        """The entries of a game as entered (seats and undo included)."""
        return [dict(e) for e in self._raw.get(game, [])]

    def games(self):
        """The games that have entries, in order."""
        return sorted(g for g, raw in self._raw.items() if raw)

    def _east_side(self, game):
        given = (self._seats.get(game) or {}).get("first_dealer")
        if given is not None:
            return given
        if self._breaker_deals:  # Ùzje: the first throw's breaker deals first
            first = self._first_throw(game)
            return first["breaker"] if first else None
        return "self"

    def name_break(self, game, game_hand, throw):
        """The throw of the table's hand ``game_hand`` with its thrower and breaker named
        by player, as that hand was dealt (Ledger.hands): its result entered or not, the
        winds are that hand's.  Unchanged while an earlier hand's result is missing (the
        dealer of this hand is not known yet) or where East sits is not."""
        if not throw or not game_hand:
            return throw
        st = self.state(game)
        hands = self._ledger(game).hands()
        if st["first_dealer"] is None or game_hand > len(hands):
            return throw
        dealer = hands[game_hand - 1]["dealer"]
        if game_hand == 1:
            thrower_side = "self"  # the game's first thrower, whoever deals
        else:
            thrower_side = st["players"][dealer]["side"]
        at = {p["side"]: k for k, p in st["players"].items()}
        breaker_side = SIDES[(SIDES.index(thrower_side) + SIDES.index(throw["breaker"])) % 4]
        out = dict(throw)
        for role, side in (("thrower", thrower_side), ("breaker", breaker_side)):
            k = at[side]
            out[role + "_player"] = {"player": k, "wind": seat_wind(k, dealer),
                                     "name": st["players"][k]["name"]}
        b = out["breaker_player"]
        out["text"] = "%s%s%s" % (throw["text"], _BREAK_AT, _who(b))
        return out


#: where a named throw's text names the breaker (:meth:`Scorebook.name_break`)
_BREAK_AT = "; break in front of "


def unnamed_throw(throw):
    """A throw named by :meth:`Scorebook.name_break` without the players' names (for a
    reader that may not read them, docs/SECURITY.md): who throws and who breaks by wind only,
    in the fields and in the text; a throw not named is returned as it is."""
    if not throw or not throw.get("breaker_player"):
        return throw
    out = dict(throw)
    for role in ("thrower", "breaker"):
        if out.get(role + "_player"):
            out[role + "_player"] = dict(out[role + "_player"], name=None)
    head = throw["text"].rsplit(_BREAK_AT, 1)[0]
    out["text"] = "%s%s%s" % (head, _BREAK_AT, _who(out["breaker_player"]))
    return out


def _who(p):
    wind = p["wind"].capitalize()
    return "%s (%s)" % (wind, p["name"]) if p["name"] else wind


def game_results(ruleset, entries):
    """A game's results from its ledger entries as entered (history, the CLI): whether it
    ended (and why), the placement, the hands scored (the results that ended a hand: not
    the table's hands, some of which may have no result), each player's name, wind at the
    end, points and chips; None without entries."""
    if not entries:
        return None
    book = Scorebook(journal=None, session_id=None, ruleset=ruleset)
    try:
        book.restore({1: entries})  # (an entry it no longer takes is skipped)
        st = book.state(1)
    except LedgerError as e:  # (a ruleset this jantaku does not score)
        return {"error": str(e)}
    return {"ended": st["ended"], "ended_by": st["ended_by"], "placement": st["placement"],
            "entries": st["entries"], "hands": st["hands_played"],
            "players": {k: {f: p[f] for f in ("name", "wind", "points", "chips")}
                        for k, p in st["players"].items()}}


def first_throw_of(session, game):
    """Game ``game``'s first hand's throw (``breaker``, ``dice``) in a session summary
    (Journal.session_summary: its games' first hands and its hands), or None."""
    first = next((g["first_hand"] for g in session.get("games", ()) if g["game"] == game),
                 1 if game == 1 else None)
    hand = next((h for h in session.get("hands", ()) if h["hand"] == first), None)
    return hand if hand is not None and hand.get("breaker") else None


def journal_book(journal, session_id):
    """Session ``session_id``'s ledgers rebuilt from the journal, ended or open (an
    export of any session): ``(Scorebook, its summary)``.  UnknownSession (404) if the
    journal has no such session."""
    s = journal.session_summary(session_id)
    try:
        breaker_deals = get_ruleset(s["ruleset"]).break_procedure.breaker_becomes_dealer
    except RulesetError:
        breaker_deals = False
    book = Scorebook(journal=None, session_id=session_id, ruleset=s["ruleset"],
                     breaker_deals=breaker_deals, first_throw=lambda g: first_throw_of(s, g))
    book.restore(journal.score_entries(session_id))
    return book, s


def export_game(book, session_id, games, game=None):
    """What an export writes out (hostd/game/export.py): the session, the game's state and
    its entries as entered.  ``games``: the session's game numbers; ``game`` None: the
    last of them that has entries (else the last)."""
    games = sorted(set(games) | set(book.games())) or [1]
    if game is None:
        scored = [g for g in games if book.entries(g)]
        game = (scored or games)[-1]
    if game not in games:
        raise NotFound("session %s has game%s %s, not %d" % (
            session_id, "" if len(games) == 1 else "s", _span(games), game))
    return {"session": session_id, "state": book.state(game), "entries": book.entries(game)}


def _span(games):
    return str(games[0]) if len(games) == 1 else "%d to %d" % (games[0], games[-1])


def with_results(sessions):
    """``Journal.history()``'s sessions with each game's ``score`` (game_results) in place
    of its raw ``score_entries``."""
    for s in sessions:
        for g in s["games"]:
            g["score"] = game_results(s["ruleset"], g.pop("score_entries", []))
    return sessions
