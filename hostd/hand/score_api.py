"""``POST /hand/score``: the scorer on the daemon's API (hostd.web.api includes this
router beside ``/hand/check``). Not a motor command: no token needed; the API's Host and
Origin checks apply.

Body (strict: a wrong type is 422, an unknown field too, an unknown option too)::

    {"hand": "234789m12345666p", "win": "6p", "tsumo": true, "riichi": true,
     "seat_wind": "south", "round_wind": "east", "dora": "5m", "ura": "",
     "ruleset": "riichi", "mixed_deck": false, "options": {"kiriage": true},
     "calls": [{"kind": "pon", "tiles": "555z"}]}

Answer: the score (hostd.hand.score.score), as ``jantaku hand score --json`` prints it. A
hand that cannot be scored (unreadable, not complete, a win that cannot happen) is 400
``bad_request`` with the scorer's message; a hand without a yaku is 200 with ``han`` 0.
"""
from __future__ import annotations

from typing import Annotated, Optional

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, create_model

from hostd.hand.api import CallBody, CallResult, Ruling
from hostd.hand.score import score
from hostd.hand.scoring_rules import OPTIONS
from hostd.hand.win import SITUATIONS

PATH = "/hand/score"
ACCEPTED = ('{"hand": "<closed tiles in mpsz, the winning one included>", "win": "<the '
            'winning tile, e.g. 6p>", "tsumo": true|false, "seat_wind": "east"|"south"|'
            '"west"|"north", "round_wind": (the same), "dora": "<indicators in mpsz>", '
            '"ura": "<indicators>", "ruleset": "riichi"|"speed-tonpuu", "mixed_deck": '
            'true|false, "backs": [N, M] or null, "options": {...}, "calls": [{"kind": '
            '"chi"|"pon"|"kan"|"ankan", "tiles": "<mpsz>"}, ...], and the flags ' +
            ", ".join('"%s"' % s for s in SITUATIONS) + ' (true|false)}')

router = APIRouter(tags=["hands"])
_STRICT = ConfigDict(extra="forbid", strict=True)


class ScoreOptions(BaseModel):
    """Overrides of the ruleset's scoring options (docs/HANDS.md "Scoring options")."""

    model_config = _STRICT

    open_tanyao: Optional[bool] = Field(None, description=OPTIONS["open_tanyao"][1])
    kiriage: Optional[bool] = Field(None, description=OPTIONS["kiriage"][1])
    kazoe_yakuman: Optional[bool] = Field(None, description=OPTIONS["kazoe_yakuman"][1])
    double_yakuman: Optional[bool] = Field(None, description=OPTIONS["double_yakuman"][1])
    red_fives: Optional[bool] = Field(None, description=OPTIONS["red_fives"][1])
    renhou_yakuman: Optional[bool] = Field(None, description=OPTIONS["renhou_yakuman"][1])
    open_pinfu_fu: Optional[bool] = Field(None, description=OPTIONS["open_pinfu_fu"][1])
    pinfu_tsumo_fu: Optional[bool] = Field(None, description=OPTIONS["pinfu_tsumo_fu"][1])
    special_tiles: Optional[bool] = Field(None, description=OPTIONS["special_tiles"][1])
    kansai_chiitoi: Optional[bool] = Field(None, description=OPTIONS["kansai_chiitoi"][1])
    local_yaku: Optional[list[str]] = Field(None, max_length=10,
                                            description=OPTIONS["local_yaku"][1])
    round_winds: Optional[list[str]] = Field(None, max_length=4,
                                             description=OPTIONS["round_winds"][1])
    chips: Optional[dict[str, Annotated[int, Field(ge=0, le=100)]]] = Field(
        None, max_length=10, description=OPTIONS["chips"][1])


class _HandScoreBody(BaseModel):
    """A won hand to score."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"hand": "234789m12345666p", "win": "6p", "tsumo": True, "riichi": True,
                      "seat_wind": "south"},
                     {"hand": "22222222p333s456s", "win": "6s", "mixed_deck": True}]})

    hand: str = Field(description="closed tiles in mpsz, the winning tile included (3n+2: "
                                  "14, less 3 for each call); calls may be written in it too")
    win: str = Field(description="the winning tile, one of the closed tiles")
    tsumo: bool = Field(False, description="won by tsumo (else ron)")
    seat_wind: str = Field("east", description="east (the dealer), south, west or north")
    round_wind: str = Field("east", description="east, south, west or north")
    dora: str = Field("", max_length=40, description="dora indicators in mpsz, \"\" for none")
    ura: str = Field("", max_length=40, description="ura dora indicators (riichi only)")
    ruleset: str = Field("riichi", description="riichi or speed-tonpuu")
    mixed_deck: bool = Field(False, description="two sets mixed: up to 8 copies, its yaku")
    backs: Optional[list[Annotated[int, Field(ge=0, le=18)]]] = Field(
        None, min_length=2, max_length=2, description="tiles from each set (Mixed Deck)")
    options: Optional[ScoreOptions] = Field(None, description="overrides of the ruleset's "
                                                              "scoring options")
    calls: list[CallBody] = Field(default_factory=list,
                                  description="called melds and kans, at most 4")


#: the body with the situational flags (hostd.hand.win.SITUATIONS, each false unless
#: given) after its other fields
HandScoreRequest = create_model("HandScoreRequest", __base__=_HandScoreBody,
                                __doc__=_HandScoreBody.__doc__, __module__=__name__,
                                **{s: (bool, False) for s in SITUATIONS})


class Yaku(BaseModel):
    id: str
    name: str
    han: int = Field(description="the han it adds (0 for a yakuman)")
    yakuman: int = Field(description="how many yakuman it counts (2: a double), else 0")


class FuPart(BaseModel):
    reason: str
    fu: int


class Payment(BaseModel):
    payer: str = Field(description="discarder (ron), or a seat wind (tsumo)")
    points: int


class Points(BaseModel):
    total: int = Field(description="what the winner gains, before honba and riichi sticks")
    payments: list[Payment]


class ChipItem(BaseModel):
    item: str
    count: int
    chips: int


class Chips(BaseModel):
    items: list[ChipItem]
    per_payer: int
    payers: int
    total: int


class ScoredReading(BaseModel):
    form: str
    blocks: list[str]
    wait: str


class HandScoreResult(BaseModel):
    """The score of one won hand (docs/HANDS.md "Scoring")."""

    tiles: list[str]
    calls: list[CallResult]
    win: str
    tsumo: bool
    seat_wind: str
    round_wind: str
    ruleset: str
    mixed_deck: bool
    options: dict
    han: int
    fu: int
    fu_breakdown: list[FuPart]
    yaku: list[Yaku]
    yakuman: int
    dora: dict[str, int]
    limit: Optional[str]
    points: Points
    chips: Chips
    reading: ScoredReading
    wildcard_as: Optional[str]
    no_yaku: Optional[str]
    rulings: list[Ruling]


@router.post(PATH, response_model=HandScoreResult,
             responses={400: {"description": "the hand cannot be scored"},
                        422: {"description": "invalid body"}})
async def score_hand(body: HandScoreRequest):
    """Score a won hand: yaku and han, fu with its breakdown, dora, the limit, each
    payer's points, the chips, the rulings that bore on it. Same answer as `jantaku hand
    score --json`."""
    flags = {s: getattr(body, s) for s in SITUATIONS if getattr(body, s)}
    options = body.options.model_dump(exclude_none=True) if body.options else None
    return score(body.hand, win=body.win, tsumo=body.tsumo, seat_wind=body.seat_wind,
                 round_wind=body.round_wind, dora=body.dora, ura=body.ura,
                 ruleset=body.ruleset, mixed_deck=body.mixed_deck, options=options,
                 backs=tuple(body.backs) if body.backs is not None else None,
                 calls=[(c.kind, c.tiles) for c in body.calls], **flags)
