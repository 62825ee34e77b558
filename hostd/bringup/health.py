"""Table health over time, from the journal (`jantaku health`, GET /table/health).

What the journal holds (events journalled while a session is open): `build_health` after
every build (per track: tiles, unknown backs, each colour's mean normalised reading: the
table client's TableClient.build_health), `lift_stroke` after every hand over (up and
down stroke in table seconds), `table_fault` (jams with their track).  From them, per
track: the misread rate, jams, and how far each colour's mean reading has moved from its
reference, as a fraction of the track's classification radius ("margin used"): a sensor
getting dirty moves its readings long before one falls outside the radius, so the trend
says when it will misread.  And the lift's stroke time against its first hand overs.
"""
import math

RECENT = 5  # builds: "recently"
MARGIN_FLAG = 0.5  # a colour's mean reading half-way to the edge of its radius
HORIZON_BUILDS = 20  # flag a track whose trend reaches the radius within this many builds
LIFT_SLOWER = 1.25  # a lift stroke this many times its first ones
LIFT_NEAR_STALL = 0.8  # a stroke's peak current at this share of the stall threshold


def _dist(a, b):
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))


def _slope(ys):
    n = len(ys)
    if n < 3:
        return 0.0
    mx = (n - 1) / 2.0
    my = sum(ys) / n
    den = sum((i - mx) ** 2 for i in range(n))
    return sum((i - mx) * (y - my) for i, y in enumerate(ys)) / den if den else 0.0


def _refs(profile, k, colours):
    """(references by colour, radius) of track k (0-based) in the board profile, or None."""
    if profile is None:
        return None
    cal = profile["calibration"]
    per = cal.get("tracks")
    if per:
        e = per[k]
        refs, radius = e["refs"], e["max_distance"]
    else:
        refs, radius = cal["refs"], cal["max_distance"]
    if not all(c in refs for c in colours):
        return None
    return refs, radius


def table_health(journal, profile=None, *, last=50):
    """The health report from the journal's last ``last`` builds and hand overs: each
    track's misreads, jams and colour drift, the lift's stroke and current, the flags."""
    evs = journal.events(kinds=["build_health", "lift_stroke", "table_fault"])
    builds = [e for e in evs if e["kind"] == "build_health"][-last:]
    strokes = [e["data"] for e in evs if e["kind"] == "lift_stroke"][-last:]
    since = builds[0]["id"] if builds else 0
    faults = [e["data"] for e in evs if e["kind"] == "table_fault" and e["id"] >= since]
    ntracks = max((len(b["data"]["tracks"]) for b in builds), default=0)
    jams = [sum(1 for f in faults if f.get("kind") == "jam" and f.get("track") == k + 1)
            for k in range(ntracks)]
    tracks = [_track(k, builds, jams, profile) for k in range(ntracks)]
    flags = ["track %d: %s" % (t["track"], f) for t in tracks for f in t["flags"]]
    lift = _lift(strokes, profile, flags)
    return {"builds": len(builds), "tracks": tracks, "lift": lift, "flags": flags,
            "ok": not flags,
            "reference": "board profile %s" % profile["id"] if profile else "first builds"}


def _track(k, builds, jams, profile):
    """Track k's (0-based) figures over the builds and its flags; ``jams``: each track's."""
    rows = [b["data"]["tracks"][k] for b in builds if k < len(b["data"]["tracks"])]
    tiles = sum(r["tiles"] for r in rows)
    unknown = sum(r["unknown"] for r in rows)
    rt = sum(r["tiles"] for r in rows[-RECENT:])
    ru = sum(r["unknown"] for r in rows[-RECENT:])
    drift = _drift(rows, _refs_of(profile, k, rows), profile)
    t = {"track": k + 1, "builds": len(rows), "tiles": tiles, "unknown": unknown,
         "misread_rate": round(unknown / tiles, 4) if tiles else 0.0,
         "recent_misread_rate": round(ru / rt, 4) if rt else 0.0,
         "jams": jams[k], "drift": drift, "flags": []}
    if ru:
        t["flags"].append("misreads: %d of the last %d backs read unknown: clean the colour "
                          "sensor, then `jantaku calibrate`" % (ru, rt))
    t["flags"] += [_drift_flag(c, d) for c, d in drift.items() if _drifting(d)]
    others = jams[:k] + jams[k + 1:]
    if jams[k] >= 2 and jams[k] > 2 * (sum(others) / len(others) if others else 0):
        t["flags"].append("jams: %d in the last %d builds, more than the other tracks: a "
                          "worn stacker or a rough mouth" % (jams[k], len(rows)))
    return t


def _refs_of(profile, k, rows):
    return _refs(profile, k, sorted({c for r in rows for c in r["means"]}))


def _drift(rows, ref, profile):
    """Each colour's mean reading against its reference (or the first build's): the share
    of the radius it uses, its trend per build and when it reaches the edge."""
    drift = {}
    for c in sorted({c for r in rows for c in r["means"]}):
        series = [r["means"][c] for r in rows if c in r["means"]]
        if not series:
            continue
        if ref is not None:
            base, radius = ref[0][c], ref[1]
        else:  # no reference for these colours: against the first builds read here
            base, radius = series[0], (profile or {}).get("calibration", {}).get(
                "max_distance", 0.12)
        used = [_dist(s, base) / radius for s in series]
        slope = _slope(used)
        d = {"margin_used": round(used[-1], 3), "trend_per_build": round(slope, 4),
             "builds": len(series), "against": "reference" if ref is not None else "first build"}
        if slope > 0 and used[-1] < 1.0:
            d["builds_to_misread"] = int((1.0 - used[-1]) / slope)
        drift[c] = d
    return drift


def _drifting(d):
    soon = d.get("builds_to_misread")
    return d["margin_used"] >= MARGIN_FLAG or (soon is not None and soon <= HORIZON_BUILDS
                                               and d["builds"] >= RECENT)


def _drift_flag(c, d):
    soon = d.get("builds_to_misread")
    return ("drift: %s reads %.0f%% of the way to the edge of its radius%s: clean the colour "
            "sensor (and `jantaku calibrate`) before it misreads"
            % (c, 100 * d["margin_used"], ", misreading in about %d builds" % soon
               if soon is not None else ""))


def _lift(strokes, profile, flags):
    """The lift's stroke time and its peak current against its first hand overs; what
    flags them is added to ``flags``."""
    lift = {"hand_overs": len(strokes)}
    ups = [s["up_s"] for s in strokes if s.get("up_s")]
    if ups:
        base = sorted(ups[:RECENT])[len(ups[:RECENT]) // 2]
        lift.update(first_up_s=base, latest_up_s=ups[-1], trend_s_per_hand=round(_slope(ups), 4))
        if len(ups) > RECENT and ups[-1] > LIFT_SLOWER * base:
            flags.append("lift: its stroke takes %.2f s, %.0f%% more than at first (%.2f s): a "
                         "worn motor or a dragging lift" % (ups[-1], 100 * (ups[-1] / base - 1),
                                                            base))
    peaks = [s["peak_current_up"] for s in strokes if s.get("peak_current_up")]
    if peaks:  # the upward stroke carries the walls: its peak current (LIFT_STROKE)
        lift.update(first_peak_current=sorted(peaks[:RECENT])[len(peaks[:RECENT]) // 2],
                    latest_peak_current=peaks[-1],
                    trend_current_per_hand=round(_slope(peaks), 2))
        stall = ((profile or {}).get("thresholds") or {}).get("lift_stall_current_u16")
        if stall:
            lift["stall_current"] = stall
            if peaks[-1] >= LIFT_NEAR_STALL * stall:
                flags.append("lift: its stroke drew %d, %.0f%% of the stall threshold (%d): it "
                             "drags; look for something rubbing before it stalls"
                             % (peaks[-1], 100.0 * peaks[-1] / stall, stall))
    return lift
