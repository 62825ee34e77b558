"""`jantaku calibrate`: colour calibration for a club's own two sets (docs/FIRMWARE.md
§3.2).  It reads first and names after.

A calibration pass is a build of one deck's walls (the ruleset's) from whatever the mixer
holds: every track takes its wall and the firmware reports each tile's raw clear, r, g, b
(TILE events).  The readings of every pass together are split into two classes (2-means:
class 1 is the class of the first tile read).  When the first pass holds both classes
well apart, both sets were in the mixer and one pass is enough; else one set was, and a
hand over lets people push the other set (on the table top) in for a second pass.  The
walls are then handed back as a hand over does it (see `read_sets`): the sets end where
they were.

The two classes are shown (tiles, the mean colour, a swatch) and named after: read one
set at a time, class 1 is the set that was in the mixer, which the request names first
(checked against an earlier calibration of the same names, when there is one); read
mixed, people say which is which (POST /name-sets, `jantaku name-sets`).  The reading is
kept: a wrong answer is named again without reading again, and the last calibration's
names can be swapped from the club's profile alone (`swap_names`).

From each track's readings come each colour's reference (the mean normalised r, g, b)
and the track's classification radius.  The separation figure, per track, is the
distance between the two references over the sum of their spreads (a spread: the
farthest reading from its reference); below MIN_SEPARATION the two backs cannot be told
apart reliably and nothing is written: identical-backs mode is the way for such sets.

The math (`derive`, `split_two`, `classify`) is pure and tested on its own; `read_sets`
drives the table through the table client's verbs.
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


def derive(per_track, names, min_clear=0, sets=None):
    """per_track: [ {name: [(c, r, g, b), ...]} ] one dict per track.  Returns the report:
    {"ok", "tracks": [{"track", "refs", "spread", "readings", "distance", "separation",
    "max_distance"}], "refs" (table-wide), "max_distance" (table-wide), "refused"}.
    `sets`: the sets' names, for the refusal's words (default `names`)."""
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
                          % ("; ".join(problems), (sets or names)[0], (sets or names)[0]))
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


def check_request(sets):
    """The two sets' names, checked (BadRequest saying what is accepted)."""
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
    return [a, b]


# -- the reading: two classes, named after ------------------------------------------------------
CLASSES = ("class 1", "class 2")
ONE_AT_A_TIME = "one set at a time"
MIXED = "mixed"


def swatch(ref):
    """A display colour for a normalised reading: its chromaticity at full brightness
    ("#rrggbb"; the sensor's view of the back, not a colour-managed one)."""
    top = max(ref) or 1.0
    return "#" + "".join("%02x" % int(round(255 * min(1.0, v / top))) for v in ref)


def classify(readings, ntracks, min_clear=0):
    """The readings of every pass ((track, build, clear, r, g, b) each) in two classes,
    pooled over the tracks: [{1: [(c, r, g, b), ...], 2: [...]}] per track; class 1 is
    the class of the first tile read.  A reading without a tile (under min_clear) is in
    neither."""
    pts, where = [], []
    for x in readings:
        if 1 <= x[0] <= ntracks and x[2] >= min_clear:
            p = normalise(*x[2:])
            if p is not None:
                pts.append(p)
                where.append(x)
    per = [{1: [], 2: []} for _ in range(ntracks)]
    for x, lab in zip(where, split_two(pts, 0)):
        per[x[0] - 1][lab + 1].append(tuple(x[2:]))
    return per


def named(per_track, names):
    """The per-track classes under these names: class 1 is names[0]."""
    return [{names[0]: t[1], names[1]: t[2]} for t in per_track]


class Reading:
    """What a calibration read (kept by the daemon): each track's readings in two classes,
    how (one pass of both sets mixed, or one set at a time), the sets given, and the names
    once people gave them (class 1's first)."""

    def __init__(self, *, board, sets, mode, per_track, tiles_per_track, min_clear):
        self.board = board
        self.sets = list(sets)
        self.mode = mode
        self.per_track = per_track
        self.tiles_per_track = tiles_per_track
        self.min_clear = min_clear
        self.named = None

    def classes(self):
        """The two classes as people see them: tiles (in all, per track), the mean
        normalised colour and a swatch, and the name once given."""
        out = []
        for c in (1, 2):
            pts = [q for t in self.per_track for q in (normalise(*x) for x in t[c]) if q]
            ref = mean(pts) if pts else (0.0, 0.0, 0.0)
            out.append({"class": c, "tiles": len(pts), "per_track": [len(t[c]) for t in self.per_track],
                        "mean": [round(v, 3) for v in ref], "swatch": swatch(ref),
                        "name": self.named[c - 1] if self.named else None})
        return out

    def derive(self, names=None):
        """The references and radii under `names` (class 1's first), or under the
        classes' own names: derive's report, with the reading's classes."""
        rep = derive(named(self.per_track, names or CLASSES), names or CLASSES,
                     min_clear=self.min_clear, sets=self.sets)
        rep.update(mode=self.mode, tiles_per_track=self.tiles_per_track, sets=list(self.sets),
                   classes=self.classes(), named=bool(names))
        return rep


def separated(per_track, min_clear=0):
    """Both classes on every track, well apart (derive's own test): both sets were read."""
    return derive(named(per_track, CLASSES), CLASSES, min_clear=min_clear)["ok"]


def check_names(reading, profile, names):
    """Naming by the request's order (class 1 is names[0], the set in the mixer), checked
    against an earlier calibration of the same two names: None when it agrees (or there is
    none), else what disagrees, in words."""
    refs = (profile.get("calibration") or {}).get("refs") or {}
    if not all(n in refs for n in names):
        return None
    c1, c2 = (c["mean"] for c in reading.classes())
    same = dist(c1, refs[names[0]]) + dist(c2, refs[names[1]])
    other = dist(c1, refs[names[1]]) + dist(c2, refs[names[0]])
    if other < same:
        return ("class 1 (read first, from the mixer) reads like the last calibration's %s, not "
                "%s: say which is which" % (names[1], names[0]))
    return None


def swap_names(raw):
    """The club's profile (raw dict) with its two colours' references exchanged: each name
    takes the other's references, table-wide and per track.  ValueError unless it has two
    calibrated colours."""
    names = raw.get("colours") or []
    cal = raw.get("calibration") or {}
    refs = cal.get("refs") or {}
    if len(names) != 2 or not all(n in refs for n in names):
        raise ValueError("the board profile has no two calibrated colours to swap (colours %s)"
                         % ", ".join(names))
    a, b = names
    refs[a], refs[b] = refs[b], refs[a]
    for t in cal.get("tracks") or ():
        if a in t["refs"] and b in t["refs"]:
            t["refs"][a], t["refs"][b] = t["refs"][b], t["refs"][a]
    return names


async def _pass(table, stacks, build_id):
    """One calibration build: a deck's walls (`stacks` per wall on every track) from what
    the mixer holds, as a session builds them; returns the TILE readings."""
    ident = table.identity or {}
    n = ident.get("tracks") or 4
    readings = []
    table.readings = readings
    try:
        await table.build(build_id, [2 * stacks] * n, stacks=stacks, expect_empty=False)
    finally:
        table.readings = None
    return readings, n


async def _hand_back(table, people, *, swap):
    """The pass's walls out of the way, with people: swap (one set at a time) a hand over
    (the walls up, the centre open) while people push the other set, on the table top,
    in; else (both sets mixed) the walls up, then the centre opened while people push
    them back in."""
    if swap:
        await table.raise_walls(open_door=True)
        await people("other_set")
        await table.settle()
    else:
        await table.raise_walls(open_door=False)
        await table.settle()
        await table.open_door()
        await people("walls")
        await table.close_door()


async def read_sets(table, *, sets, board, stacks, people, min_clear=0, build_id=65010):
    """Read both sets on every track (nothing sent or written here: see
    hostd/core/bench.py).  `people(push)`: the centre is open while people push in
    `push` (other_set or walls), until they are done.

    Pass 1 reads a deck's walls from the mixer.  Both classes in it, well apart: both sets
    were mixed in the mixer; the walls go back into the centre (mode mixed).  Else one set
    was: a hand over raises its walls while people push the other set, on the table top,
    into the centre; pass 2 reads it; a second hand over raises those walls while people
    push the first set's back in: the sets end where they were (mode one set at a time).
    Every pass builds a whole deck (`stacks` two-high stacks per wall, the ruleset's)."""
    first, n = await _pass(table, stacks, build_id)
    per = classify(first, n, min_clear)
    mode = MIXED
    if separated(per, min_clear):
        await _hand_back(table, people, swap=False)
    else:
        mode = ONE_AT_A_TIME
        await _hand_back(table, people, swap=True)
        second, _ = await _pass(table, stacks, build_id + 1)
        await _hand_back(table, people, swap=True)
        per = classify(first + second, n, min_clear)
    return Reading(board=board, sets=sets, mode=mode, per_track=per,
                   tiles_per_track=2 * stacks, min_clear=min_clear)
