"""hostd.bringup.calibrate: references, radii and the separation figure from readings, the
two classes read first and named after (pure math); the passes on a table are
tests/unit/test_bringup.py's."""
import copy
import random

import pytest

from firmware import profile as fp
from hostd.bringup import calibrate as cal
from hostd.errors import BadRequest

PINK = (0.45, 0.25, 0.30)
YELLOW = (0.40, 0.42, 0.18)


def readings(rgb, n, noise, rnd, clear=900):
    out = []
    for _ in range(n):
        v = [max(0.0, x + rnd.uniform(-noise, noise)) for x in rgb]
        out.append((clear, int(v[0] * 1000), int(v[1] * 1000), int(v[2] * 1000)))
    return out


def tracks(a, b, noise, bias=0.0, n=30, seed=1, names=("pink", "yellow")):
    rnd = random.Random(seed)
    out = []
    for k in range(4):
        off = (bias * (k - 1.5), -bias * (k - 1.5), 0.0)
        ra = tuple(x + o for x, o in zip(a, off))
        rb = tuple(x + o for x, o in zip(b, off))
        out.append({names[0]: readings(ra, n, noise, rnd), names[1]: readings(rb, n, noise, rnd)})
    return out


def test_two_distinct_sets_give_per_track_references_and_radii_that_the_firmware_accepts():
    rep = cal.derive(tracks(PINK, YELLOW, 0.01, bias=0.01), ["pink", "yellow"])
    assert rep["ok"] and rep["refused"] is None
    for t in rep["tracks"]:
        d = cal.dist(t["refs"]["pink"], t["refs"]["yellow"])
        assert t["distance"] == pytest.approx(d, abs=1e-3)
        assert t["separation"] >= cal.MIN_SEPARATION
        # the radius covers every reading and never reaches half-way to the other colour
        assert max(t["spread"].values()) < t["max_distance"] < d / 2
    # each track's own references: the per-track bias shows
    assert rep["tracks"][0]["refs"]["pink"][0] < rep["tracks"][3]["refs"]["pink"][0] - 0.02
    p = fp.load(None)
    raw = copy.deepcopy(p)
    cal.apply_to_profile(raw, rep)
    v = fp.validate(raw)
    assert v["colours"] == ["pink", "yellow"] and len(v["calibration"]["tracks"]) == 4


def test_sets_too_close_are_refused_with_the_separation_figure():
    salmon = (0.44, 0.27, 0.29)
    rep = cal.derive(tracks(PINK, salmon, 0.015, names=("pink", "salmon")), ["pink", "salmon"])
    assert not rep["ok"]
    assert all(t["separation"] < cal.MIN_SEPARATION for t in rep["tracks"])
    assert "separation" in rep["refused"] and "identical-backs" in rep["refused"]
    assert "track 1" in rep["refused"] and "refs" not in rep  # nothing to write


def test_too_few_readings_of_a_colour_are_refused():
    t = tracks(PINK, YELLOW, 0.01)
    t[2]["yellow"] = t[2]["yellow"][:2]
    rep = cal.derive(t, ["pink", "yellow"])
    assert not rep["ok"] and "track 3 read 2 tile(s) of yellow" in rep["refused"]


def test_readings_without_a_tile_are_left_out():
    t = tracks(PINK, YELLOW, 0.01)
    t[0]["pink"] += [(20, 5, 5, 5)] * 10  # ambient: under min_clear
    rep = cal.derive(t, ["pink", "yellow"], min_clear=200)
    assert rep["ok"] and rep["tracks"][0]["readings"]["pink"] == 30


def test_two_clusters_are_named_by_the_first_reading():
    rnd = random.Random(4)
    pts = [cal.normalise(*r) for r in readings(YELLOW, 20, 0.01, rnd) + readings(PINK, 20, 0.01, rnd)]
    rnd.shuffle(pts)
    first = pts[0]
    labels = cal.split_two(pts, 0)
    assert labels[0] == 0 and len(set(labels)) == 2
    near_first = PINK if cal.dist(first, PINK) < cal.dist(first, YELLOW) else YELLOW
    for p, lab in zip(pts, labels):
        assert (lab == 0) == (cal.dist(p, near_first) < 0.1)


@pytest.mark.parametrize("sets,words", [
    (["pink"], "two back colour names"),
    (["pink", "pink"], "identical-backs"),
    (["pink", "unknown"], "not 'unknown'"),
    (["pink", "averyveryverylongname"], "up to 13 letters"),
])
def test_bad_requests_say_what_is_accepted(sets, words):
    with pytest.raises(BadRequest, match=words):
        cal.check_request(sets)


def pass_readings(colours, n_per_track, rnd, noise=0.01, tracks=4, first=None):
    """A pass's TILE readings (track, build, clear, r, g, b), the colours dealt at random
    (`first`: the colour of the first tile read)."""
    out = []
    for k in range(1, tracks + 1):
        for c in (colours * n_per_track)[:n_per_track]:
            out.append((k, 1) + readings(c, 1, noise, rnd)[0])
    rnd.shuffle(out)
    if first is not None:
        i = next(i for i, x in enumerate(out) if cal.dist(cal.normalise(*x[2:]), first) < 0.1)
        out.insert(0, out.pop(i))
    return out


def test_two_classes_read_first_class_1_the_first_tile_read():
    rnd = random.Random(7)
    for first in (PINK, YELLOW):
        per = cal.classify(pass_readings([PINK, YELLOW], 34, rnd, first=first), 4, min_clear=200)
        assert all(len(t[1]) + len(t[2]) == 34 for t in per)
        c1 = cal.mean([cal.normalise(*x) for t in per for x in t[1]])
        assert cal.dist(c1, first) < 0.02  # class 1: the colour of the first tile read
        assert cal.separated(per, 200)  # both sets were in the pass: one is enough


def test_one_set_alone_is_not_two_classes():
    per = cal.classify(pass_readings([PINK], 34, random.Random(3)), 4, min_clear=200)
    assert not cal.separated(per, 200)


def test_a_reading_shows_its_classes_and_is_named_after():
    rnd = random.Random(5)
    per = cal.classify(pass_readings([PINK], 34, rnd) + pass_readings([YELLOW], 34, rnd), 4)
    r = cal.Reading(board="reference-18", sets=["pink", "yellow"], mode=cal.ONE_AT_A_TIME,
                    per_track=per, tiles_per_track=34, min_clear=0)
    c1, c2 = r.classes()
    assert (c1["class"], c1["tiles"], c1["per_track"], c1["name"]) == (1, 136, [34] * 4, None)
    assert cal.dist(c1["mean"], PINK) < 0.01 and cal.dist(c2["mean"], YELLOW) < 0.01
    assert c1["swatch"] == cal.swatch(c1["mean"]) and c1["swatch"].startswith("#ff")
    unnamed = r.derive()
    assert unnamed["ok"] and not unnamed["named"] and list(unnamed["tracks"][0]["refs"]) == [
        "class 1", "class 2"]
    # named the wrong way round, then put right from the same reading: the references follow
    wrong, right = r.derive(["yellow", "pink"]), r.derive(["pink", "yellow"])
    assert wrong["refs"]["yellow"] == right["refs"]["pink"]
    assert cal.dist(right["refs"]["pink"], PINK) < 0.01


def test_naming_by_the_loading_is_checked_against_an_earlier_calibration():
    rnd = random.Random(6)
    per = cal.classify(pass_readings([YELLOW], 34, rnd) + pass_readings([PINK], 34, rnd), 4)
    r = cal.Reading(board="b", sets=["pink", "yellow"], mode=cal.ONE_AT_A_TIME, per_track=per,
                    tiles_per_track=34, min_clear=0)
    earlier = {"calibration": {"refs": {"pink": PINK, "yellow": YELLOW}}}
    # yellow was in the mixer, though the request said pink: said, not named silently
    assert "reads like the last calibration's yellow" in cal.check_names(r, earlier, ["pink", "yellow"])
    assert cal.check_names(r, earlier, ["yellow", "pink"]) is None
    assert cal.check_names(r, {"calibration": {"refs": {"blue": PINK}}}, ["pink", "yellow"]) is None


def test_swapping_the_names_exchanges_the_references_table_wide_and_per_track():
    raw = {"colours": ["pink", "yellow"], "calibration": {
        "refs": {"pink": PINK, "yellow": YELLOW},
        "tracks": [{"refs": {"pink": PINK, "yellow": YELLOW}, "max_distance": 0.05}]}}
    assert cal.swap_names(raw) == ["pink", "yellow"]
    assert raw["calibration"]["refs"] == {"pink": YELLOW, "yellow": PINK}
    assert raw["calibration"]["tracks"][0]["refs"] == {"pink": YELLOW, "yellow": PINK}
    with pytest.raises(ValueError, match="no two calibrated colours"):
        cal.swap_names({"colours": ["blue"], "calibration": {"refs": {"blue": PINK}}})
