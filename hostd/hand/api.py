"""``POST /hand/check``: the hand analyser on the daemon's API (hostd.web.api includes this
router). Not a motor command: no token needed; the API's Host and Origin checks apply.

Body (strict: a wrong type is 422, an unknown field too)::

    {"hand": "2p3p4p4p4p4p4p4p4p4p", "mixed_deck": true, "completable": true, "backs": null}

Answer: the analysis (hostd.hand.analysis.analyse), as ``jantaku hand check --json``
prints it. A hand that cannot be read is 400 ``bad_request`` with the message.
"""
from __future__ import annotations

from typing import Annotated, Optional

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from hostd.hand.analysis import analyse

PATH = "/hand/check"
ACCEPTED = ('{"hand": "<closed tiles in mpsz, e.g. 123m456p789s11122z>", "mixed_deck": '
            'true|false (default false), "completable": true|false (default false), '
            '"backs": [N, M] tiles from each set, or null (needs mixed_deck)}')

router = APIRouter(tags=["hands"])


class HandCheckRequest(BaseModel):
    """A hand to analyse."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"hand": "2p3p4p4p4p4p4p4p4p4p", "mixed_deck": True,
                      "completable": True}]})

    hand: str = Field(min_length=1, max_length=200,
                      description="closed tiles in mpsz (docs/HANDS.md), at most 14")
    mixed_deck: bool = Field(False, description="two sets mixed: up to 8 copies of a face")
    completable: bool = Field(False, description="tenpai only if some wait can still exist")
    backs: Optional[list[Annotated[int, Field(ge=0, le=14)]]] = Field(
        None, min_length=2, max_length=2,
        description="how many of the hand's tiles come from each set (Mixed Deck only)")


class MixedDeckYaku(BaseModel):
    name: str
    han: Optional[int] = None
    yakuman: Optional[bool] = None


class Reading(BaseModel):
    form: str = Field(description="sets, seven pairs or thirteen orphans")
    blocks: list[str]


class HandCheckResult(BaseModel):
    """The analysis of one hand (docs/HANDS.md)."""

    tiles: list[str]
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


@router.post(PATH, response_model=HandCheckResult, response_model_exclude_none=True,
             responses={400: {"description": "the hand cannot be read"},
                        422: {"description": "invalid body"}})
async def check_hand(body: HandCheckRequest):
    """Analyse a closed hand: decompositions, waits and their types, (completable)
    tenpai, Mixed Deck yaku. Same answer as `jantaku hand check --json`."""
    return analyse(body.hand, mixed_deck=body.mixed_deck, completable=body.completable,
                   backs=tuple(body.backs) if body.backs is not None else None)
