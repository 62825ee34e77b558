"""`jantaku demo`: a whole session against the simulated table, as one JSON object.

The real host stack runs (link client, table client, session, journal) against the
simulated table: in-process in virtual time (default), or over a real pseudo-terminal to
`jantaku sim serve`.  The simulated players end a hand only after the inside build is
done, so hand N+1's hand over comes once the walls for it are ready.
"""
import asyncio
import json
import os
import shutil
import tempfile
import time

from hostd.rules.dice import Dice
from hostd.errors import NotReady
from hostd.core.journal import Journal
from hostd.table.link import LinkClient
from hostd.rules.rulesets import get_ruleset, tiles_for_set
from hostd.core.session import Session, check_sets
from hostd.table.client import TableClient, TableFault
from hostd.table.sim import board_profile, control_press, spawn_sim_serve, stop_sim_process
from hostd.table.transport import InProcessTransport, SerialTransport

PTY_SPEED = 50.0  # how much faster than the wall the pseudo-terminal demo's table runs


def sim_sets(profile, colours=None):
    """Two sets of the ruleset's tiles: with `colours` (two names of the board profile's
    colour classes, the same name twice for identical backs) each set has that back; else
    set 1 has colour class 1's back, set 2 class 2's."""
    faces = tiles_for_set(profile)
    if colours is None:
        return [list(faces), list(faces)]
    return [{"faces": list(faces), "back": c} for c in colours]


KEEP_SIM_BUILDS = 4


def make_inprocess_table(args, profile, colours):
    from hw_sim import inprocess

    board = board_profile(args.table_stacks or (29 if profile.stacks_per_wall > 18 else None),
                          getattr(args, "board", None))
    # the simulator's per-build offer logs (for the bench's efficiency figures) are not
    # reported here: keep the last few only, so a long session's memory stays flat
    kw = dict(seed=args.seed, faults=tuple(args.fault), mixed_deck=args.mixed_deck,
              keep_builds=KEEP_SIM_BUILDS)
    sets = sim_sets(profile, colours)
    if args.firmware_runtime == "micropython":
        from hw_sim.stdio_client import MicroPythonTable

        return MicroPythonTable(board, sets, **kw)
    return inprocess.InProcessTable(board, sets, **kw)


async def hand_over_like_players(session, table, attempts=3):
    """Players press start; if the guard stops the lift (a hand in the way), they step
    back and press start again — the motion resumes only then (the session's stop and
    recovery, as the daemon runs them)."""
    try:
        return await session.hand_over()
    except TableFault as e:
        stop = e
    for attempt in range(attempts):
        session.on_stopped("hand_over", stop)
        if stop.kind != "guard" or attempt == attempts - 1:
            raise stop
        for _ in range(100000):  # until the curtain and lid are safe again
            if table.guard["curtain"] and table.guard["lid"]:
                break
            await asyncio.sleep(0.001)
        try:
            await session.recover()
            return session.hands[-1]
        except TableFault as e:
            stop = e
    raise stop


def demo_sets(args, board):
    """The demo's two sets from `--colours`: colour classes of the board profile (default
    its first two; one class: identical backs)."""
    own = list(board["colours"][:2]) * (2 if len(board["colours"]) < 2 else 1)
    return check_sets(getattr(args, "colours", None) or own[:2], board["colours"])


async def run_demo(args):
    profile = get_ruleset(args.ruleset)
    colours = demo_sets(args, board_profile(board=getattr(args, "board", None)))
    wall0 = time.monotonic()
    sim_proc = None
    table_sim = None
    # what the demo makes for itself (journal, the pty table's state file) lives in a
    # temporary folder removed at the end; --db keeps the journal where asked
    tmp = tempfile.mkdtemp(prefix="jantaku-demo-")
    state_path = os.path.join(tmp, "table-state.json")
    try:
        if args.transport == "inprocess":
            table_sim = make_inprocess_table(args, profile, colours)
            transport = InProcessTransport(table_sim)
            args.press = table_sim.press
        else:
            sim_proc, port = spawn_sim_serve(
                profile.name, speed=PTY_SPEED, seed=args.seed, mixed_deck=args.mixed_deck,
                faults=args.fault, table_stacks=args.table_stacks,
                firmware_runtime=args.firmware_runtime, state_path=state_path, colours=colours,
                board=getattr(args, "board", None))
            transport = SerialTransport(port, time_scale=PTY_SPEED)
            args.press = control_press(port)
        db = getattr(args, "db", None) or os.path.join(tmp, "journal.sqlite")
        return await _run_demo(args, profile, colours, wall0, transport, table_sim,
                               sim_proc, db, state_path)
    finally:
        if sim_proc is not None:
            stop_sim_process(sim_proc)
        shutil.rmtree(tmp, ignore_errors=True)


def _guard_stop_ms_max(state_path):
    """The simulated table's worst guard-to-stop latency, from `sim serve --state`."""
    try:
        with open(state_path) as f:
            st = json.load(f)
    except (OSError, ValueError):
        return None
    lat = [s.get("latency_ms") for s in st.get("safety") or () if isinstance(s, dict)]
    lat = [x for x in lat if x is not None]
    return max(lat) if lat else None


async def _run_demo(args, profile, colours, wall0, transport, table_sim, sim_proc, db,
                    state_path):
    journal = Journal(db)
    out = {"ruleset": profile.name, "mixed_deck": bool(args.mixed_deck), "seed": args.seed,
           "sets": list(colours), "via": getattr(args, "via", "api"), "decks": {},
           "builds": [], "hands": [], "faults": [],
           "safety": {"guard_stop_ms_max": None}, "firmware": None,
           "sim_seconds": 0.0, "wall_seconds": 0.0}
    ok = False
    try:
        play = _play_via_buttons if out["via"] == "buttons" else _play_via_api
        summ, errors, link, t0, ok = await play(args, profile, colours, transport, journal,
                                                 table_sim)
        about = link.about or {}
        out["firmware"] = {"implementation": about.get("implementation"),
                           "version": about.get("version"),
                           "board": (link.identity or {}).get("board")}
        out["builds"], out["hands"] = summ["builds"], summ["hands"]
        out["games"] = [{"game": g["game"], "decks": g["decks"], "walls": _walls(summ, g["game"]),
                         "splits": g.get("splits") or [],
                         "hands": [h for h in summ["hands"] if h["game"] == g["game"]]}
                        for g in summ["games"]]
        # the decks as they are now: the last game's current split (after a table restart's
        # re-split, the new one), as the journal's session summary says
        last = out["games"][-1]
        out["decks"] = last["splits"][-1]["decks"] if last["splits"] else last["decks"]
        out["faults"] = summ["faults"] + errors
        out["sim_seconds"] = round(link.seconds_since(t0), 3)
    finally:
        if table_sim is not None:
            rep = table_sim.report(full=False)
            out["safety"]["guard_stop_ms_max"] = rep.get("max_safety_latency_ms")
            if hasattr(table_sim, "close"):
                table_sim.close()
        if sim_proc is not None:
            stop_sim_process(sim_proc)  # it writes its state file a last time as it ends
            out["safety"]["guard_stop_ms_max"] = _guard_stop_ms_max(state_path)
        journal.close()
    out["wall_seconds"] = round(time.monotonic() - wall0, 3)
    return out, ok


def _end(journal, session, ok, errors):
    """The demo's session ends in its journal (kept with --db): ended, or failed."""
    if session is not None and session.id is not None:
        journal.end_session(session.id, "ended" if ok else "failed",
                            reason="the demo's hands were played" if ok else
                            (errors[-1]["message"] if errors else "a fault stopped the demo"))


def _error_record(e, session):
    """An error that ended the demo, unless the session's faults already say it."""
    last = session.faults[-1] if session.faults else None
    if last is None or last["recovered"] or (last["message"] != str(e)
                                             and last["kind"] != getattr(e, "kind", None)):
        return [{"kind": getattr(e, "kind", None) or getattr(e, "code", type(e).__name__),
                 "track": getattr(e, "track", None), "build": len(session.builds) or None,
                 "recovered": False, "message": str(e)}]
    return []


async def _play_via_api(args, profile, colours, transport, journal, table_sim):
    """The session driven as the API drives it: hand over, then the throw."""
    table = None
    client = LinkClient(transport, on_event=lambda i, v: table.on_event(i, v),
                        on_change=lambda w, d: table.link_changed(w, d))
    table = TableClient(client, colours=colours)
    pump = asyncio.create_task(client.run())
    errors, ok = [], False
    try:
        await client.wait_connected(timeout=30)
        t0 = client.mark()
        session = Session(table=table, journal=journal, profile=profile,
                          mixed_deck=args.mixed_deck, sets=colours, dice=Dice(args.seed))
        try:
            await session.start()
            on_hand = getattr(args, "on_hand", None)  # a soak's probe
            for game in range(getattr(args, "games", 1) or 1):
                if game:  # everything back into the mixer, split afresh (Mixed Deck)
                    await session.new_game()
                for _ in range(args.hands):
                    await hand_over_like_players(session, table)
                    session.throw_dice(by="api")  # once the walls are up: the hand's throw
                    if on_hand is not None:
                        on_hand(session.hand)
            ok = True
        except Exception as e:  # reported in the JSON, exit status non-zero
            errors = _error_record(e, session)
        _end(journal, session, ok, errors)
        return session.summary(), errors, client, t0, ok
    finally:
        client.stop()
        pump.cancel()
        await asyncio.gather(pump, return_exceptions=True)


async def _play_via_buttons(args, profile, colours, transport, journal, table_sim):
    """Players at the table: the real daemon, and every hand over and throw a press of
    the simulated table's start and dice buttons (a stopped lift: start again once the
    guard is clear, as players do)."""
    from hostd.core.daemon import Daemon

    press = args.press
    d = Daemon(transport=transport, journal=journal, colours=colours, seed=args.seed,
               resume=False)
    await d.start()
    errors, ok, s = [], False, None
    await d.link.wait_connected(timeout=30)
    t0 = d.link.mark()
    try:
        virtual = getattr(transport, "virtual", False)

        def lift_stopped():  # pressing start again repeats the lift
            return d.state.name == "stopped" and "hand_over" in d.can()

        async def until(pred, what, seconds=600.0):
            mark = d.table.mark()
            while not pred():
                if d.state.name == "stopped" and not lift_stopped():
                    raise NotReady(d.next_step()["text"], code=d.state["kind"])
                if d.table.seconds_since(mark) > seconds:
                    raise NotReady("no %s within %g table seconds: %s"
                                   % (what, seconds, d.next_step()["text"]), code="timeout")
                await asyncio.sleep(0 if virtual else 0.02)

        def idle():
            return not d.busy()

        # the sets are where the demo's table has them: no collect before the first build
        d.known = {"mixed_deck": args.mixed_deck, "sets": list(colours),
                   "where": {"A": "mixer", "B": "mixer" if args.mixed_deck else "top"}}
        await d.start_session(profile.name, args.mixed_deck, args.seed, colours=colours)
        s = d.session
        await until(idle, "deck A")
        for game in range(getattr(args, "games", 1) or 1):
            if game:
                await d.new_game()
                await until(idle, "new split")
            for _ in range(args.hands):
                n = s.hand + 1
                press("start")
                while s.hand < n:  # a guard stop: press start again once it is clear
                    await until(lambda: s.hand >= n or (lift_stopped() and idle()
                                                        and d.table.guard["curtain"]
                                                        and d.table.guard["lid"]), "hand over")
                    if s.hand < n:
                        press("start")
                press("dice")
                await until(lambda: s.throw is not None, "throw")
                await until(idle, "next walls")
        ok = True
    except Exception as e:  # reported in the JSON, exit status non-zero
        errors = _error_record(e, s) if s is not None else [
            {"kind": getattr(e, "code", type(e).__name__), "track": None, "build": None,
             "recovered": False, "message": str(e)}]
    summ = s.summary() if s is not None else {"builds": [], "hands": [], "faults": [],
                                              "games": [{"game": 1, "decks": {}}]}
    _end(journal, s, ok, errors)
    link = d.link
    await d.close()
    return summ, errors, link, t0, ok


def _walls(summ, game):
    """Each deck's walls (backs per track) as the game's first good build of it counted."""
    out = {}
    for b in summ["builds"]:
        if b.get("game") == game and b["ok"] and b["deck"] not in out:
            out[b["deck"]] = b.get("walls")
    return out


def text_report(out):
    """The demo's result for a person: each game's decks (each split, when a restart made
    the table split them again) and the hands played on them."""
    lines = ["%s%s, seed %s: %d builds, %d hands, %.1f s simulated in %.2f s" % (
        out["ruleset"], " + Mixed Deck" if out["mixed_deck"] else "", out["seed"],
        len(out["builds"]), len(out["hands"]), out["sim_seconds"], out["wall_seconds"])]
    fw = out.get("firmware") or {}
    lines.append("firmware on %s %s, board %s" % (fw.get("implementation"), fw.get("version"),
                                                  fw.get("board")))
    games = out.get("games") or [{"game": 1, "decks": out["decks"]}]
    lines += _deck_lines(games, alike=len(set(out.get("sets") or ())) == 1)
    lines += _build_lines(out["builds"])
    lines += _hand_lines(out["hands"], games)
    for f in out["faults"]:
        lines.append("fault %s%s: %s%s" % (f["kind"], " track %s" % f["track"] if f.get("track") else "",
                                         f["message"], " (recovered)" if f.get("recovered") else ""))
    return "\n".join(lines) + "\n"


def _deck_lines(games, *, alike):
    lines = []
    for g in games:
        splits = g.get("splits") or [{"split": 1, "decks": g["decks"]}]
        for sp in splits:
            head = "game %d: " % g["game"] if len(games) > 1 else ""
            if len(splits) > 1:
                head += "split %d (hands %s): " % (sp["split"], ", ".join(
                    str(h) for h in sp.get("hands") or ()) or "none")
            for name, d in sorted(sp["decks"].items()):
                lines.append("%sdeck %s: %d tiles, %s%s" % (head, name, d["tiles"], ", ".join(
                    "%s %d" % kv for kv in sorted(d["backs"].items())),
                    " (backs alike: colours not checked)" if alike else ""))
    return lines


def _build_lines(builds):
    lines = []
    for i, b in enumerate(builds, 1):
        secs = "%.1f s" % b["sim_seconds"] if b["sim_seconds"] is not None else "stopped"
        lines.append("build %d (deck %s): %s tiles per track, %s%s" % (
            i, b["deck"], "/".join(map(str, b["per_track"])), secs,
            "" if b["ok"] else "  NOT OK"))
    return lines


def _hand_lines(hands, games):
    """Each hand numbered within its game (a game's first hand is 1)."""
    firsts = {g["game"]: min((h["hand"] for h in g.get("hands") or ()), default=1) for g in games}
    lines = []
    for h in hands:
        lines.append("hand %d%s on deck %s%s: dice %s, breaker %s, turnaround %.2f s" % (
            h["hand"] - firsts.get(h["game"], 1) + 1,
            " of game %d" % h["game"] if len(games) > 1 else "", h["deck"],
            " (split %d)" % h["split"] if h.get("split", 1) > 1 else "",
            "+".join(map(str, h["dice"])) or "none", h["breaker"] or "none",
            h["turnaround_sim_seconds"]))
    return lines
