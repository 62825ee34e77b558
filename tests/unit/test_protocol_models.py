"""protocol.models: one pydantic model per message, matching the one table field for
field (names, order, wire types, ranges), and round-tripping what the Link delivers."""
import annotated_types as at
import pydantic
import pytest

from protocol import codec as c
from protocol import messages as m
from protocol import models as M
from protocol_samples import all_samples, out_of_range

SAMPLES = all_samples()


def camel(name):
    return "".join(p.capitalize() for p in name.split("_"))


def meta(fi, kind, attr):
    for x in fi.metadata:
        if isinstance(x, kind):
            return getattr(x, attr)
    return None


def test_one_model_per_message_and_no_other():
    assert set(M.MODELS) == {e[0] for e in m.MESSAGES}
    for e in m.MESSAGES:
        cls = M.MODELS[e[0]]
        assert cls.__name__ == camel(e[1])
        assert (cls.MSGID, cls.NAME, cls.KIND) == (e[0], e[1], e[2])
        assert M.model_for(e[1]) is cls and M.model_for(e[0]) is cls
        assert cls.__doc__ and cls.__doc__.strip()


@pytest.mark.parametrize("entry", m.MESSAGES, ids=lambda e: e[1])
def test_model_fields_match_the_table(entry):
    cls = M.MODELS[entry[0]]
    fields = cls.model_fields
    assert list(fields) == [f[0] for f in entry[3]]
    for f in entry[3]:
        name, t, lo, hi, nmin, nmax = f
        fi = fields[name]
        extra = fi.json_schema_extra
        assert extra["wire"] == m.TYPE_NAMES[t], name
        assert fi.description, name
        if t <= m.I32:
            assert (meta(fi, at.Ge, "ge"), meta(fi, at.Le, "le")) == (lo, hi), name
        elif t == m.STR:
            assert (extra["bytes_min"], extra["bytes_max"]) == (nmin, nmax), name
        else:
            assert (meta(fi, at.MinLen, "min_length"), meta(fi, at.MaxLen, "max_length")) == (nmin, nmax)
            assert (extra["item_ge"], extra["item_le"]) == (lo, hi), name


@pytest.mark.parametrize(
    "entry,values", [pytest.param(e, v, id="%s-%d" % (e[1], i)) for i, (e, v) in enumerate(SAMPLES)]
)
def test_models_round_trip_link_values(entry, values):
    msg = M.parse(entry[0], values)
    assert msg.values() == values
    assert msg.frame(9) == c.encode_frame(9, entry[0], values)
    assert M.MODELS[entry[0]].model_validate_json(msg.model_dump_json()) == msg


def test_models_refuse_what_the_table_refuses():
    checked = 0
    for e in m.MESSAGES:
        cls = M.MODELS[e[0]]
        for i in range(len(e[3])):
            vals = out_of_range(e, i)
            if vals is None:
                continue
            with pytest.raises(pydantic.ValidationError):
                cls.from_values(vals)
            checked += 1
    assert checked > 40
    with pytest.raises(pydantic.ValidationError):  # item range inside an array
        M.ConfigureBuild(build_id=1, tiles=[65], stacks=17, colours=[1], empty_mixer=1)
    with pytest.raises(pydantic.ValidationError):  # 17 bytes of UTF-8 in a 16-byte field
        M.Identity(version=1, minor=0, firmware="é" * 9, board="b", boot_nonce=1, host_nonce=1, tracks=4, max_stacks=18, colours=2)
    with pytest.raises(pydantic.ValidationError):
        M.Tile(build_id=1, track=1, index=1, colour=1, clear=0, red=0, green=0, blue=0, extra=1)
    with pytest.raises(ValueError):
        M.Door.from_values((1, 2))


def test_models_are_usable_for_the_api():
    for cls in M.MODELS.values():
        schema = cls.model_json_schema()
        assert schema["title"] == cls.__name__
    cb = M.ConfigureBuild(build_id=3, tiles=[34, 34, 34, 34], stacks=17, colours=[1, 2], empty_mixer=0)
    assert cb.values() == (3, (34, 34, 34, 34), 17, (1, 2), 0)
