"""hostd.bringup.calibrate: references, radii and the separation figure from readings (pure math);
the passes on a table are tests/unit/test_bringup.py's."""
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


@pytest.mark.parametrize("sets,mixed,first,words", [
    (["pink"], False, None, "two back colour names"),
    (["pink", "pink"], False, None, "identical-backs"),
    (["pink", "unknown"], False, None, "not 'unknown'"),
    (["pink", "yellow"], True, None, "first"),
    (["pink", "yellow"], True, "blue", "one of pink, yellow"),
    (["pink", "averyveryverylongname"], False, None, "up to 13 letters"),
])
def test_bad_requests_say_what_is_accepted(sets, mixed, first, words):
    with pytest.raises(BadRequest, match=words):
        cal.check_request(sets, mixed, first)
