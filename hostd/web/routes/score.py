"""The game's ledger on the API (CPython only; docs/SCORING.md, docs/API.md "Scores"):
``GET /score``, ``POST /score`` (one entry: a result, a riichi, seats, undo ...) and
``GET /score/export`` (any session's game, ``?session=ID&game=N``).  Entering needs what a command needs (a paired browser, the token);
nothing moves, and the table's mechanical state does not matter."""
from typing import Any, Literal, Optional

from fastapi import Body, FastAPI, Query
from fastapi.responses import Response

from hostd.core.status import ErrorResponse
from hostd.game import export

PATH = "/score"
MAX_SESSION = 2 ** 63 - 1  # SQLite's largest integer
ACCEPTED = ('a JSON object with a "kind": riichi, ron, tsumo, draw, abortive, chombo, pass, '
            'nagashi, suukantsu, pot, transfer, rules, end, seats or undo, and that kind\'s '
            'fields (docs/SCORING.md), e.g. '
            '{"kind": "ron", "winner": "west", "from": "south", "han": 3, "fu": 30}')
EXAMPLES = [
    {"kind": "riichi", "player": "south"},
    {"kind": "ron", "winner": "west", "from": "south", "han": 3, "fu": 30},
    {"kind": "tsumo", "winner": "north", "han": 5},
    {"kind": "draw", "tenpai": ["south", "north"]},
    {"kind": "seats", "first_dealer": "self", "names": {"east": "Mika"}},
    {"kind": "undo"},
]


def _err(text):
    return {"model": ErrorResponse, "description": text}


READ_ERRORS = {404: _err("the session has no such game, or the journal no such session "
                        "(`not_found`)"),
               409: _err("no session is open (`no_session`); an export: the journal holds "
                         "no session at all")}
ENTRY_ERRORS = {
    400: _err("an entry that cannot be (`bad_entry`): an unknown kind or field, a ron from "
              "oneself, a player who is not one, han and fu that do not go together"),
    401: _err("a browser that is not paired, or no token where one is needed"),
    403: _err("the token or the origin refused"),
    409: _err("no session is open (`no_session`), or not now (`not_now`): the game has "
              "ended, a riichi without 1,000 points, nothing to undo"),
    422: _err("the ruleset has no such entry (`ruleset_forbids`): more winners than it "
              "allows, a pass it does not know; or a body that is not a JSON object"),
}


def add(app: FastAPI, daemon, security):
    @app.get(PATH, response_model=dict[str, Any], tags=["scores"], operation_id="score",
             responses=READ_ERRORS, dependencies=security.private_read())
    async def score(game: Optional[int] = Query(None, ge=1, le=10_000),
                    session: Optional[int] = Query(None, ge=1, le=MAX_SESSION)):
        """The game's ledger: `ruleset`, `game`, `round`, `hand`, `honba`, `dealer` (a
        player's key), `sticks`, `ended`, `placement`, `players` keyed by their first-hand
        wind (`name`, `wind` now, `side` seen from the game's first thrower, `points`,
        `chips`), `last` (the last entry's payments), `entries`.  Before any entry: the
        ruleset's starting points.  `game`: an earlier game of the session.  `session`:
        any session the journal keeps (default: the open one; an ended one's last game)."""
        return daemon.score(game, session)

    @app.post(PATH, response_model=dict[str, Any], tags=["scores"], operation_id="score_entry",
              dependencies=security.commands, responses=ENTRY_ERRORS)
    async def score_entry(body: dict[str, Any] = Body(..., examples=EXAMPLES)):
        """Enter one thing into the game in play's ledger: a result (`ron`, `tsumo`,
        `draw`, `abortive`, `chombo`), a `riichi`, a dealer's `pass`, a `transfer`, the
        game's `end`, `seats` (who sits where, names) or `undo` (the last entry).  The
        answer is the new state (as GET /score), given once it is journalled.  An entry
        that cannot be is refused (400: malformed; 409: not now; 422: not in this
        ruleset) and changes nothing."""
        return await daemon.score_entry(body)

    @app.get(PATH + "/export", tags=["scores"], operation_id="score_export",
             response_model=None, dependencies=security.private_read(),
             responses={**READ_ERRORS, 200: {
                 "description": "the game's ledger: JSON (`format=json`) or CSV",
                 "content": {"application/json": {}, "text/csv": {}}}})
    async def score_export(game: Optional[int] = Query(None, ge=1, le=10_000),
                           session: Optional[int] = Query(None, ge=1, le=MAX_SESSION),
                           format: Literal["json", "csv"] = "json"):
        """A game's ledger to keep, of any session the journal keeps: `json` (`format`
        "jantaku-score/1": every entry with what it paid and the points after it, then the
        final state) or `csv` (one row per entry; columns in docs/SCORING.md).  `session`:
        default the open one, else the last; `game`: default the game in play (a past
        session's: its last game with entries).  The file `jantaku score export` writes
        and the page's links download, byte for byte."""
        text, media, name = export.document(daemon.score_export(game, session), format)
        return Response(content=text, media_type=media,
                        headers={"Content-Disposition": 'attachment; filename="%s"' % name})
