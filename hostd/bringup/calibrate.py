"""`jantaku calibrate`: colour calibration for a club's own two sets (docs/FIRMWARE.md
§3.2).

A calibration pass is a build of one deck's walls (the ruleset's): the mixer offers, every
track takes its wall and the firmware reports each tile's raw clear, r, g, b (TILE events); the walls are then
handed back the way a hand over does it (see `run_calibration`).  From each track's
readings come each colour's reference (the mean normalised r, g, b) and the track's
classification radius.  The separation figure, per track, is the distance between the
two references over the sum of their spreads (a spread: the farthest reading from its
reference); below MIN_SEPARATION the two backs cannot be told apart reliably and nothing
is written: identical-backs mode is the way for such sets.

The math (`derive`, `split_two`) is pure and tested on its own; `run_calibration` drives
the table through the table client's verbs.
"""
import math

from hostd.errors import BadRequest

MIN_SEPARATION = 2.0  # reference distance / (spread a + spread b), on every track
MIN_READINGS = 4  # per colour per track
RADIUS_SPREADS = 2.5  # the radius covers the farthest reading this many times over...
MIN_RADIUS = 0.03  # ...and at least this much (sensor noise the pass may not have shown)
RADIUS_HALF = 0.49  # ...and stays under half the distance between the references


def normalise(c, r, g, b):
    s = r + g + b
    if s <= 0:
        return None
    return (r / s, g / s, b / s)


def dist(a, b):
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))


def mean(points):
    n = len(points)
    return tuple(sum(p[i] for p in points) / n for i in range(3))


def spread(points, ref):
    return max(dist(p, ref) for p in points) if points else 0.0


def split_two(points, first_index=0):
    """Two clusters of normalised readings (2-means, seeded by the two readings farthest
    apart).  Returns a label (0 or 1) per point; the point at first_index is labelled 0."""
    if len(points) < 2:
        return [0] * len(points)
    a = points[first_index]
    b = max(points, key=lambda p: dist(p, a))
    a = max(points, key=lambda p: dist(p, b))
    labels = [0] * len(points)
    for _ in range(50):
        new = [0 if dist(p, a) <= dist(p, b) else 1 for p in points]
        ca = [p for p, lab in zip(points, new) if lab == 0]
        cb = [p for p, lab in zip(points, new) if lab == 1]
        if not ca or not cb:
            break
        a2, b2 = mean(ca), mean(cb)
        if new == labels and a2 == a and b2 == b:
            break
        labels, a, b = new, a2, b2
    if labels[first_index] != 0:
        labels = [1 - lab for lab in labels]
    return labels


def derive(per_track, names, min_clear=0):
    """per_track: [ {name: [(c, r, g, b), ...]} ] one dict per track.  Returns the report:
    {"ok", "tracks": [{"track", "refs", "spread", "readings", "distance", "separation",
    "max_distance"}], "refs" (table-wide), "max_distance" (table-wide), "refused"}."""
    out = {"ok": True, "names": list(names), "tracks": [], "refused": None,
           "min_separation": MIN_SEPARATION}
    problems = []
    for k, by in enumerate(per_track):
        t = {"track": k + 1, "refs": {}, "spread": {}, "readings": {}}
        pts = {}
        for n in names:
            p = [normalise(*x) for x in by.get(n, []) if x[0] >= min_clear]
            p = [q for q in p if q is not None]
            pts[n] = p
            t["readings"][n] = len(p)
            if len(p) < MIN_READINGS:
                problems.append("track %d read %d tile(s) of %s (at least %d needed)"
                                % (k + 1, len(p), n, MIN_READINGS))
                continue
            ref = mean(p)
            t["refs"][n] = [round(v, 4) for v in ref]
            t["spread"][n] = round(spread(p, ref), 4)
        if len(t["refs"]) == len(names):
            a, b = names
            d = dist(t["refs"][a], t["refs"][b])
            s = t["spread"][a] + t["spread"][b]
            sep = d / s if s > 0 else float("inf")
            smax = max(t["spread"][a], t["spread"][b])
            r = min(RADIUS_HALF * d, max(RADIUS_SPREADS * smax, MIN_RADIUS))
            t["distance"] = round(d, 4)
            t["separation"] = round(sep, 2) if sep != float("inf") else None
            t["max_distance"] = round(r, 4)
            if sep < MIN_SEPARATION or r < 1.1 * smax:
                problems.append("track %d: %s and %s are %.3f apart against a spread of %.3f "
                                "(separation %.2f, at least %.1f needed)"
                                % (k + 1, a, b, d, s, sep, MIN_SEPARATION))
        out["tracks"].append(t)
    if problems:
        out["ok"] = False
        out["refused"] = ("the two backs cannot be told apart reliably: %s. Nothing was written. "
                          "Sets whose backs look alike play in identical-backs mode "
                          "(`--colours %s,%s`: the table counts tiles, not colours)"
                          % ("; ".join(problems), names[0], names[0]))
        return out
    refs = {}
    for n in names:
        refs[n] = [round(v, 4) for v in mean([t["refs"][n] for t in out["tracks"]])]
    d = dist(refs[names[0]], refs[names[1]])
    md = min(t["max_distance"] for t in out["tracks"])
    md = min(md, RADIUS_HALF * d)
    out["refs"] = refs
    out["max_distance"] = round(md - 0.00005, 4)
    for t in out["tracks"]:
        t["max_distance"] = round(t["max_distance"] - 0.00005, 4)
    return out


def apply_to_profile(raw, report):
    """The board profile (raw dict) with the report's colours and calibration."""
    names = report["names"]
    raw["colours"] = list(names)
    cal = raw.setdefault("calibration", {})
    cal["refs"] = {n: list(report["refs"][n]) for n in names}
    cal["max_distance"] = report["max_distance"]
    cal["tracks"] = [{"refs": {n: list(t["refs"][n]) for n in names},
                      "max_distance": t["max_distance"]} for t in report["tracks"]]


def check_request(sets, mixed, first):
    if not isinstance(sets, (list, tuple)) or len(sets) != 2 or not all(
            isinstance(s, str) and s.strip() for s in sets):
        got = ",".join(str(s) for s in sets) if isinstance(sets, (list, tuple)) else str(sets)
        raise BadRequest("sets: two back colour names, e.g. pink,yellow; got '%s'" % got[:80])
    a, b = (s.strip() for s in sets)
    for s in (a, b):
        if s == "unknown" or "," in s or len(s) > 13:
            raise BadRequest("set name %r: a short name (up to 13 letters), not 'unknown'" % s)
    if a == b:
        raise BadRequest("sets: two different names (both sets are %s); sets with the same back "
                         "need no calibration: identical-backs mode (`--colours %s,%s`)" % (a, a, a))
    if first is not None and first not in (a, b):
        raise BadRequest("first: the colour of the first tile read, one of %s, %s; got %r"
                         % (a, b, first))
    if mixed and first is None:
        raise BadRequest("with both sets mixed, say which colour the first tile read has "
                         "(first: %s or %s)" % (a, b))
    return [a, b]


async def _pass(table, stacks, build_id, *, whole_set):
    """One calibration build: a deck's walls (`stacks` per wall on every track), as a
    session builds them; returns the TILE readings.  whole_set: the mixer must be empty at
    the end (a SURPLUS fault says more than one set was in it)."""
    ident = table.identity or {}
    n = ident.get("tracks") or 4
    readings = []
    table.readings = readings
    try:
        await table.build(build_id, [2 * stacks] * n, stacks=stacks, expect_empty=whole_set)
    finally:
        table.readings = None
    return readings, n


async def _hand_back(table, push_s, *, swap):
    """The pass's walls out of the way.  swap (one set at a time): a hand over, the walls
    up and the table top's tiles (the other set) pushed into the centre; else (both sets
    mixed) the walls up, then pushed back into the centre."""
    if swap:
        await table.raise_walls(open_door=True)
        await table.pause(push_s)
        await table.settle()
    else:
        await table.raise_walls(open_door=False)
        await table.settle()
        await table.open_door()
        await table.pause(push_s)
        await table.close_door()


async def run_calibration(table, sets, *, stacks, mixed=False, first=None, min_clear=0,
                          push_s=10.0, build_id=65010):
    """Read both sets on every track and derive the calibration (nothing sent or written
    here: see Daemon.calibrate).

    One set at a time (mixed False): sets[0] is in the mixer and sets[1] on the table top,
    as the table leaves them.  Pass 1 reads sets[0]; a hand over raises its walls and
    people push sets[1] into the centre; pass 2 reads sets[1]; a second hand over raises
    those walls and people push sets[0] back in: the sets end where they were.
    Both mixed (mixed True): one pass, two clusters (the first tile read has colour
    `first`); the walls are raised and pushed back into the centre.
    Every pass builds a whole deck (`stacks` two-high stacks per wall, the ruleset's)."""
    names = list(sets)
    tiles = 2 * stacks
    if mixed:
        readings, n = await _pass(table, stacks, build_id, whole_set=False)
        await _hand_back(table, push_s, swap=False)
        pts = [normalise(*x[2:]) or (0.0, 0.0, 0.0) for x in readings]
        labels = split_two(pts, 0)
        name = [first, names[1] if first == names[0] else names[0]]
        per = [{names[0]: [], names[1]: []} for _ in range(n)]
        for x, lab in zip(readings, labels):
            if 1 <= x[0] <= n:
                per[x[0] - 1][name[lab]].append(tuple(x[2:]))
    else:
        per = None
        for i, set_name in enumerate(names):
            readings, n = await _pass(table, stacks, build_id + i, whole_set=True)
            await _hand_back(table, push_s, swap=True)
            if per is None:
                per = [{names[0]: [], names[1]: []} for _ in range(n)]
            for x in readings:
                if 1 <= x[0] <= n:
                    per[x[0] - 1][set_name].append(tuple(x[2:]))
    report = derive(per, names, min_clear=min_clear)
    report["mode"] = "mixed" if mixed else "one set at a time"
    report["tiles_per_track"] = tiles
    return report
