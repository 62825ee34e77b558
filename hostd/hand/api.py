"""``POST /hand/check``: the hand analyser on the daemon's API (hostd.web.api includes this
router). Not a motor command: no token needed; the API's Host and Origin checks apply.

Body (strict: a wrong type is 422, an unknown field too)::

    {"hand": "23455p66s", "mixed_deck": true, "completable": true, "backs": null,
     "calls": [{"kind": "pon", "tiles": "555p"}, {"kind": "chi", "tiles": "123m"}]}

Answer: the analysis (hostd.hand.analysis.analyse), as ``jantaku hand check --json``
prints it. A hand that cannot be read (an empty one too, or a call that is not one) is
400 ``bad_request`` with the analyser's message.
"""
from __future__ import annotations

from typing import Annotated, Optional

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from hostd.hand.analysis import analyse

PATH = "/hand/check"
ACCEPTED = ('{"hand": "<closed tiles in mpsz, e.g. 123m456p789s11122z>", "mixed_deck": '
            'true|false (default false), "completable": true|false (default false), '
            '"backs": [N, M] tiles from each set, or null (needs mixed_deck), "calls": '
            '[{"kind": "chi"|"pon"|"kan"|"ankan", "tiles": "<mpsz, e.g. 555p>"}, ...] '
            '(default none)}')

router = APIRouter(tags=["hands"])


class CallBody(BaseModel):
    """One called meld or kan."""

    model_config = ConfigDict(extra="forbid", strict=True)

    kind: str = Field(description="chi, pon, kan (an open kan) or ankan (a closed kan)")
    tiles: str = Field(description="its tiles in mpsz: 123m, 555p, 5555p, 1111z")


class HandCheckRequest(BaseModel):
    """A hand to analyse."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"hand": "2p3p4p4p4p4p4p4p4p4p", "mixed_deck": True,
                      "completable": True},
                     {"hand": "23455p66s", "mixed_deck": True,
                      "calls": [{"kind": "pon", "tiles": "555p"}]}]})

    hand: str = Field(description="closed tiles in mpsz (docs/HANDS.md), at most 14 with "
                                  "3 for each call; calls may be written in it too")
    mixed_deck: bool = Field(False, description="two sets mixed: up to 8 copies of a face")
    completable: bool = Field(False, description="tenpai only if some wait can still exist")
    backs: Optional[list[Annotated[int, Field(ge=0, le=18)]]] = Field(
        None, min_length=2, max_length=2,
        description="how many of the hand's tiles (called ones too) come from each set "
                    "(Mixed Deck only)")
    calls: list[CallBody] = Field(default_factory=list,
                                  description="called melds and kans, at most 4")


class MixedDeckYaku(BaseModel):
    name: str
    han: Optional[int] = None
    yakuman: Optional[bool] = None


class Reading(BaseModel):
    form: str = Field(description="sets, seven pairs or thirteen orphans")
    blocks: list[str]


class CallResult(BaseModel):
    kind: str
    tiles: list[str]


class Ruling(BaseModel):
    id: str
    ruling: str


class HandCheckResult(BaseModel):
    """The analysis of one hand (docs/HANDS.md)."""

    tiles: list[str]
    calls: list[CallResult]
    tile_count: int
    mixed_deck: bool
    completable: bool
    copy_limit: int
    complete: bool
    decompositions: list[Reading]
    tenpai: bool
    waits: list[str]
    wait_types: dict[str, list[str]]
    copies_left: dict[str, int]
    shape_waits: list[str]
    mixed_deck_yaku: list[MixedDeckYaku]
    wait_yaku: dict[str, list[MixedDeckYaku]]
    rulings: list[Ruling]


@router.post(PATH, response_model=HandCheckResult, response_model_exclude_none=True,
             responses={400: {"description": "the hand cannot be read"},
                        422: {"description": "invalid body"}})
async def check_hand(body: HandCheckRequest):
    """Analyse a hand and its calls: decompositions, waits and their types, (completable)
    tenpai, Mixed Deck yaku, the rulings that bear. Same answer as `jantaku hand check
    --json`."""
    calls = [(c.kind, c.tiles) for c in body.calls]
    return analyse(body.hand, mixed_deck=body.mixed_deck, completable=body.completable,
                   backs=tuple(body.backs) if body.backs is not None else None, calls=calls)
