"""The commands' request models (pydantic), one per command of the list
(hostd/core/commands.py): strict, an unknown field refused, each field described for
the OpenAPI document."""
from typing import Annotated, ClassVar, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


MAX_SEED = 2 ** 53 - 1  # the largest integer every JSON client reads exactly
COLOUR_PATTERN = r"^[A-Za-z][A-Za-z0-9-]{0,15}$"


def _ruleset_names():
    from hostd.rules.rulesets import list_rulesets

    return [p.name for p in list_rulesets()]


def _selftest_devices():
    from hostd.bringup.selftest import ORDER

    return ORDER


def _per_track_devices():
    from hostd.bringup.selftest import DEVICES, ORDER

    return [d for d in ORDER if d in DEVICES and DEVICES[d][1]]


# -- request models ------------------------------------------------------------------------

class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class StartRequest(_Strict):
    """Start a session."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"ruleset": "riichi", "mixed_deck": True, "seed": 42}]})

    ruleset: str = Field(min_length=1, max_length=64,
                         description="a ruleset name from GET /rulesets (Ùzje's options may "
                                     "come in any order; an unknown name is 400)",
                         json_schema_extra={"enum": _ruleset_names()})
    mixed_deck: bool = Field(False, description="mix both tile sets and split them into two decks")
    seed: Optional[int] = Field(None, ge=0, le=MAX_SEED,
                                description="seed for dice (and the simulator); omit for "
                                            "cryptographic dice in real play")
    replace: bool = Field(False, description="end the open session (motions stopped) and "
                                             "start this one; without it a second start is 409")
    loaded: bool = Field(False, description="normal rotation: the sets are loaded as "
                                            "documented, whatever the last session did")
    colours: Optional[list[Annotated[str, Field(pattern=COLOUR_PATTERN)]]] = Field(
        None, description="the two sets' back colours, each a colour class the table knows "
                          "(`GET /status`: table.identity.colours); the same name twice for "
                          "sets whose backs look alike; default: the daemon's (`run "
                          "--colours`, or the sets last calibrated, else the table's first two "
                          "colour classes)",
        json_schema_extra={"minItems": 2, "maxItems": 2})


class DiceRequest(_Strict):
    """The hand's throw: the faces of physical dice, or none (the table throws)."""

    # the ruleset's dice (their number and sides) are checked by the daemon, which says
    # what the ruleset throws; the schema gives the bounds of every ruleset's
    dice: Optional[list[int]] = Field(
        None, description="the faces people threw (e.g. [3, 4]; checked against the ruleset's "
                          "dice: their number and sides); omit for a throw from the daemon's "
                          "random source",
        json_schema_extra={"minItems": 1, "maxItems": 3,
                           "items": {"type": "integer", "minimum": 1, "maximum": 20}})


class EmptyRequest(_Strict):
    """No body, or {}."""


class EndRequest(_Strict):
    """End the session."""

    empty: bool = Field(False, description="also bring every tile up to the table top (the "
                                           "walls inside, then the mixer's a round at a time)")


class SelfTestRequest(_Strict):
    """Test the table's devices (all, or one)."""

    # a track goes with a per-track device (the daemon says so with a 400): the schema
    # says it too, so a client (or schemathesis) knows such a request is not valid
    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "if": {"required": ["track"], "properties": {"track": {"type": "integer"}}},
        "then": {"required": ["device"],
                 "properties": {"device": {"enum": _per_track_devices()}}}})

    device: Optional[str] = Field(None, description="one device, or all (null)",
                                  json_schema_extra={"enum": list(_selftest_devices()) + [None]})
    track: Optional[int] = Field(None, ge=1, le=8,
                                 description="with a per-track device (gate, entry, colour, "
                                             "stacker, pusher): that track only")
    write_timings: bool = Field(False, description="write the measured strokes into the profile")


class SurveyRequest(_Strict):
    """One move of the wiring survey (hostd/bringup/survey.py): a body is needed."""

    BODY_REQUIRED: ClassVar[bool] = True
    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={"oneOf": [
        {"properties": {"action": {"const": "plan"}, "pin": {"type": "null"},
                        "hold": {"type": "null"}, "ms": {"type": "null"},
                        "pins": {"type": "null"}}},
        {"required": ["pin"],
         "properties": {"action": {"const": "pulse"}, "pin": {"type": "integer"},
                        "ms": {"anyOf": [{"type": "null"}, {"type": "integer", "maximum": 2000}]},
                        "pins": {"type": "null"}}},
        {"properties": {"action": {"const": "watch"}, "pin": {"type": "null"},
                        "hold": {"type": "null"},
                        "ms": {"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 100}]},
                        "pins": {"type": "null"}}},
        {"required": ["pins"],
         "properties": {"action": {"const": "write"}, "pin": {"type": "null"},
                        "hold": {"type": "null"}, "ms": {"type": "null"},
                        "pins": {"type": "object", "minProperties": 1}}}]})

    action: Literal["plan", "pulse", "watch", "write"] = Field(
        description="plan: the profile's channels and inputs, the answers' words (nothing "
                    "moves); pulse: one output on for a moment; watch: every input read until "
                    "one changes and comes back; write: the pins found into the profile")
    pin: Optional[int] = Field(None, ge=0, le=0x17F, description="pulse: the output's pin "
                               "number, as the profile numbers it (an expander's 256 + 16 x "
                               "expander + pin)")
    hold: Optional[int] = Field(None, ge=0, le=0x17F, description="pulse: a driver's DIR pin "
                                "held on meanwhile")
    ms: Optional[int] = Field(None, ge=10, le=60000, description="pulse: how long (10..2000, "
                              "default 400); watch: how long to wait (100..60000, default 15000)")
    pins: Optional[dict[str, Union[int, dict, None]]] = Field(
        None, description="write: the profile's new pins section (signal: pin number, "
                          "{\"pin\": n, \"invert\": true}, {\"expander\": e, \"pin\": p} or null)")

    @model_validator(mode="after")
    def _what_it_needs(self):
        takes = {"plan": (), "pulse": ("pin", "hold", "ms"), "watch": ("ms",),
                 "write": ("pins",)}[self.action]
        extra = [k for k in ("pin", "hold", "ms", "pins") if getattr(self, k) is not None
                 and k not in takes]
        if extra:
            raise ValueError("%s takes %s, not %s" % (self.action, ", ".join(takes) or "nothing",
                                                      ", ".join(extra)))
        if self.action == "pulse" and self.pin is None:
            raise ValueError("pulse needs pin")
        if self.action == "pulse" and self.ms is not None and self.ms > 2000:
            raise ValueError("a pulse lasts 10..2000 ms")
        if self.action == "watch" and self.ms is not None and self.ms < 100:
            raise ValueError("a watch lasts 100..60000 ms")
        if self.action == "write" and not self.pins:
            raise ValueError("write needs pins")
        return self


SetName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]{0,12}$",
                               json_schema_extra={"not": {"const": "unknown"}})]


class CalibrateRequest(_Strict):
    """Calibrate the colour sensors for the two sets: read first, name after."""

    sets: list[SetName] = Field(min_length=2, max_length=2,
                                description="the two sets' back colours (lower-case names); "
                                            "read one at a time, the first is the set in the "
                                            "mixer (class 1) and the second on the table top; "
                                            "both in the mixer, the calibration reads them in "
                                            "one pass and asks which is which",
                                json_schema_extra={"uniqueItems": True})
    ruleset: str = Field("riichi", description="the sets' ruleset: a pass builds one deck's walls",
                         json_schema_extra={"enum": _ruleset_names()})
    ask: bool = Field(False, description="never name the two classes by themselves: the "
                                         "reading is kept and `next` asks which is which "
                                         "(POST /name-sets); false: one set at a time names "
                                         "class 1 after the first of `sets`")

    @field_validator("sets")
    @classmethod
    def _two_names(cls, v):
        if "unknown" in v:
            raise ValueError("'unknown' is the name of no colour (the class of an unread back)")
        if len(set(v)) != len(v):
            raise ValueError("two different names (sets with the same back need no calibration: "
                             "identical-backs mode)")
        return v


class NameSetsRequest(_Strict):
    """Name the two back colours a calibration read, or swap the names it gave: one of the
    two, so a body is needed (an empty one is 422, as the schema says)."""

    BODY_REQUIRED: ClassVar[bool] = True
    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "oneOf": [{"required": ["names"], "properties": {"names": {"type": "array"},
                                                         "swap": {"const": False}}},
                  {"required": ["swap"], "properties": {"swap": {"const": True},
                                                        "names": {"type": "null"}}}]})

    names: Optional[list[SetName]] = Field(
        None, min_length=2, max_length=2,
        description="class 1's colour first, then class 2's: the calibration's two sets in the "
                    "order its reading found them (class 1: the set read first)",
        json_schema_extra={"uniqueItems": True})
    swap: bool = Field(False, description="the last calibration's two colours named the other "
                                          "way round (from the club's profile: no reading "
                                          "needed)")

    @field_validator("names")
    @classmethod
    def _two_names(cls, v):
        if v is not None and len(set(v)) != len(v):
            raise ValueError("two different names, class 1's first")
        return v

    @model_validator(mode="after")
    def _names_or_swap(self):
        if (self.names is None) == (not self.swap):
            raise ValueError("give the names of class 1 and class 2 (names), or swap: true")
        return self
