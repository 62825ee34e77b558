# The in-process runner (docs/ARCHITECTURE.md §6): the simulated table, a
# VirtualClock, the wire, the `machine` stand-in and the firmware in one
# process, in virtual time.  Runs on CPython and MicroPython.
#
#   t = InProcessTable(profile, sets, seed=1, faults=("jam:track=2",))
#   t.write(frame_bytes)            # host -> firmware
#   data = t.run(200)               # advance virtual time event by event until
#                                   # the firmware has written something or 200
#                                   # virtual ms passed; returns what it wrote
#   t.now_ms(); t.report()
#
# Each iteration: the firmware steps (reads its port, runs due timers, sends);
# then virtual time jumps to the earlier of the firmware's next_due_us() and
# the physics' next event, where the physics fires (IRQ handlers run then).
# A `reset` fault (or machine.reset(), or an unfed watchdog) re-creates the
# firmware with a new boot nonce while the physics continues.
from hw_sim import rng as _rng
from hw_sim.clock import VirtualClock, TICKS_MASK as _TICKS_MASK, _HALF
from hw_sim.guard import PRESS_MS
from hw_sim.lines import NEVER
from hw_sim.machine import Machine, PWRON_RESET, HARD_RESET, WDT_RESET
from hw_sim.table import Table
from hw_sim.wire import Wire

# Iterations at one virtual instant before the runner calls it a busy loop.
SPIN_LIMIT = 100000


def load_profile(profile, table_stacks=None):
    """A validated profile dict from a dict, a board id or a path (through
    firmware.profile when it is there), with max_stacks set to table_stacks."""
    try:
        from firmware import profile as _fp
    except ImportError:
        _fp = None
    if _fp is not None:
        p = _fp.load(profile)
    elif isinstance(profile, dict):
        p = profile
    else:
        import json

        path = profile
        if "/" not in path and not path.endswith(".json"):
            path = "firmware/boards/" + path + ".json"
        with open(path) as f:
            p = json.load(f)
    if table_stacks:
        p = dict(p)
        p["max_stacks"] = table_stacks
    return p


def firmware_factory(profile, machine, *, clock, link_clock, port, boot_nonce, wdt=None):
    """The product: firmware.app.Firmware on firmware.bindings.machine_hal.  A firmware
    that cannot start (the profile as given refused, a pin its binding refuses) is what
    a board's main.py runs then: firmware/bootfail.BootFailed, its line on the port."""
    from firmware.app import Firmware
    from firmware.bindings.machine_hal import MachineHal

    try:
        return Firmware(profile, MachineHal(machine, profile), clock=clock, link_clock=link_clock,
                        port=port, boot_nonce=boot_nonce, wdt=wdt)
    except Exception as e:
        from firmware.bootfail import BootFailed

        return BootFailed(e, port, clock)


class InProcessTable:
    def __init__(self, profile, sets, *, seed=0, faults=(), firmware_factory=None, mixed_deck=False,
                 sim=None, table_stacks=None, keep_builds=None, lock_irq=False, watchdog=False,
                 start_us=0, link_clock=None, wire_size=4096, boot_nonces="seed", players="auto",
                 firmware_profile=None):
        """firmware_profile: what the firmware boots with, as given (valid or not: a
        board's firmware refuses a bad one itself); default the table's profile."""
        self.profile = load_profile(profile, table_stacks)
        self._fw_profile = firmware_profile
        self.seed = seed
        self.clock = VirtualClock(start_us)
        self.link_clock = link_clock if link_clock is not None else self.clock
        # a link on a clock of its own (the wall, under `sim serve`) has deadlines
        # the firmware's next_due_us() cannot name on the virtual clock: the
        # firmware steps at the start of every run() so its link timers run on
        # their clock whatever the host sends (heartbeats, silence, backoff)
        self._own_link_clock = self.link_clock is not self.clock
        self.wire = Wire(seed=seed, size=wire_size)
        self.table = Table(self.profile, sets, seed=seed, faults=faults, mixed_deck=mixed_deck,
                           clock=self.clock, sim=sim, keep_builds=keep_builds, wire=self.wire,
                           players=players)
        self._factory = firmware_factory if firmware_factory is not None else globals()["firmware_factory"]
        # boot nonces: "seed" (from the seed's own stream: tests, benches) or
        # "random" (`sim serve`: a host must tell a restarted table from the one it
        # knew); nothing else draws on either, so the builds are the same
        if boot_nonces != "seed" and boot_nonces != "random":
            raise ValueError("boot_nonces must be 'seed' or 'random', got %r" % (boot_nonces,))
        self._boot_rng = _rng.Rng(seed, _rng.BOOT) if boot_nonces == "seed" else None
        self.lock_irq = lock_irq
        self.watchdog = watchdog
        self.boots = 0
        self.resets = []  # (virtual us, cause)
        self.machine = None
        self.fw = None
        self.steps = 0
        self.iterations = 0
        self._t_fw = 0  # the firmware's next deadline (unwrapped us) at its last step
        self._stepped = None  # the firmware object that last stepped
        self._seen_down = -1
        self._seen_epoch = -1
        self._boot(PWRON_RESET)

    # -- firmware lifecycle ----------------------------------------------------
    def _boot(self, cause):
        self.machine = Machine(self.table, lock_irq=self.lock_irq, reset_cause=cause)
        self.boots += 1
        if self._boot_rng is not None:
            nonce = self._boot_rng.next_u32()
        else:
            from protocol.link import random_nonce

            nonce = random_nonce()
        wdt = None
        if self.watchdog:
            wdt = self.machine.WDT(timeout=self.profile.get("watchdog_ms", 4000) or 4000)
        kw = {"clock": self.clock, "link_clock": self.link_clock, "port": self.wire.device, "boot_nonce": nonce}
        if wdt is not None:
            kw["wdt"] = wdt
        self.fw = self._factory(self.profile if self._fw_profile is None else self._fw_profile,
                                self.machine, **kw)
        self.boot_nonce = nonce

    def reset(self, cause=HARD_RESET):
        """The controller loses its state and boots again; the physics goes on.
        Its outputs fall to 0 (motors off, gates close) and bytes in its receive
        buffer are lost."""
        self.resets.append((self.clock.now_us(), cause))
        self.machine.detach()
        det = getattr(self.fw, "sim_detach", None)
        if det is not None:
            det()
        self.table.reset_outputs()
        self.fw = None
        self.wire.down.clear()
        self._boot(cause)

    def _actions(self):
        acts = self.table.take_actions()
        if acts:
            for a in acts:
                if a == "reset":
                    self.reset(HARD_RESET)
        m = self.machine
        if m.wdt is not None and m.wdt.expired(self.clock.now_us()):
            self.reset(WDT_RESET)

    def push(self, keep=0):
        """People push the table top into the centre (hw_sim.table.Table.push)."""
        return self.table.push(keep)

    def free_jam(self, track):
        """A person takes the stuck tile out of track `track` (1..) and lets it drop into
        place: the beam is clear (hw_sim.reference.track.Track.free_jam); False if not jammed."""
        return self.table.tracks[track - 1].free_jam()

    def hand(self, op, **kw):
        """A person's hands on the table (hw_sim.table.Table.hand: clear-jam, put-tile,
        take-tile, clear-guard, clear-lift, fix-switch, plug): a dict saying what was
        done; ValueError saying why there was nothing to do."""
        return self.table.hand(op, **kw)

    def press(self, button, ms=PRESS_MS):
        """A person presses "start" or "dice" now, for ms milliseconds of table time
        (ValueError naming the buttons for another name)."""
        self.table.panel.press(button, self.clock.now_us(), ms)

    # -- host side -------------------------------------------------------------
    def write(self, data):
        self.wire.host_write(data)

    def read(self):
        return self.wire.host_read()

    def now_ms(self):
        return self.clock.now_us() / 1000

    def now_us(self):
        return self.clock.now_us()

    def run(self, max_ms):
        """Advance virtual time until the firmware has written something or
        max_ms virtual milliseconds passed; returns the bytes written (b"" if
        none).

        The firmware steps at every instant where it is due, an input it can
        see changed (its IRQ handlers ran), host bytes arrived or an action
        happened; a physics event nothing of which reaches its pins (a tile
        riding on past a closed mouth, a stroke completing) does not step it:
        that step would do nothing."""
        return self._run(max_ms, None, None)

    def run_feeding(self, max_ms, feed, stop=None):
        """Like run(), but what the firmware writes goes to feed(data) at the
        instant it is written, and the run goes on (the firmware steps again at
        once if feed wrote to it, as after a run() the host's answer would make
        it), until stop() is true after a feed or max_ms virtual milliseconds
        passed.  The same steps at the same instants as run() in a loop, without
        leaving the runner for every frame (a host link's own deadlines must not
        come before max_ms: feeding it moves none earlier)."""
        self._run(max_ms, feed, stop)

    def _run(self, max_ms, feed, stop):
        clock = self.clock
        table = self.table
        wire = self.wire
        epoch = table.inputs
        deadline = clock.now_us() + int(max_ms * 1000 + 0.5)
        spin = 0
        last = -1
        # step first unless nothing happened since the last step (the host wrote
        # nothing, no input changed, the firmware is not due)
        t_fw = self._t_fw
        step = (self._seen_down != wire.down.total or self._seen_epoch != epoch.n or table.actions
                or t_fw <= clock.us or self.fw is not self._stepped or self._own_link_clock)
        mark = table.evmark
        down = wire.down
        up = wire.up
        fw = self.fw
        steps = 0
        iterations = 0
        try:
            while True:
                if step:
                    fw.step()
                    steps += 1
                    if table.actions or self.machine.wdt is not None:
                        self._actions()
                        fw = self.fw
                    # the firmware's next deadline, unwrapped from its ticks near now
                    d = fw.next_due_us()
                    if d is None:
                        t_fw = NEVER
                    else:
                        now = clock.us
                        t_fw = now + (((d - (now & _TICKS_MASK) + _HALF) & _TICKS_MASK) - _HALF)
                    if up.n:
                        data = wire.host_read()
                        if feed is None:
                            return data
                        d0 = down.total
                        feed(data)
                        if stop is not None and stop():
                            return b""
                        if down.total != d0:
                            continue  # the host answered: the firmware steps at once
                now = clock.us
                if now >= deadline:
                    return b""
                t = t_fw
                ne = table.next_event_us() if mark.dirty else table.next_ev
                if ne < t:
                    t = ne
                wdt = self.machine.wdt
                if wdt is not None:
                    n = wdt.last_feed_us + wdt.timeout_us + 1  # when an unfed watchdog bites
                    if n < t:
                        t = t_fw = n
                if t > deadline:
                    t = deadline
                if t <= now:
                    t = now
                    if now == last:
                        spin += 1
                        if spin > SPIN_LIMIT:
                            raise RuntimeError("the firmware spins at virtual %d us (a timer due that never runs?)" % now)
                    else:
                        spin = 0
                        last = now
                iterations += 1
                if t < ne:
                    # no physics event up to t (ne is still the earliest: nothing
                    # ran since it was read): only the clock moves
                    if t > now:
                        clock.advance_to(t)
                    step = t >= t_fw or table.actions or up.n
                    continue
                e0 = epoch.n
                d0 = down.total
                table.advance_to(t)
                step = t >= t_fw or epoch.n != e0 or down.total != d0 or table.actions or up.n
        finally:
            # kept for the next call's "step first?" (nothing the firmware can see
            # changed after its last step in this call, or it would have stepped)
            self._t_fw = t_fw
            self.steps += steps
            self.iterations += iterations
            if steps:
                self._stepped = fw
                self._seen_down = down.total
                self._seen_epoch = epoch.n

    def run_until(self, t_us, on_output=None):
        """Advance to virtual time t_us, calling on_output(data) for whatever
        the firmware writes on the way (the paced server uses this)."""
        while self.clock.now_us() < t_us:
            data = self.run((t_us - self.clock.now_us()) / 1000)
            if data and on_output is not None:
                on_output(data)
        # anything written at the very end
        data = self.wire.host_read()
        if data and on_output is not None:
            on_output(data)

    # -- reports ---------------------------------------------------------------
    def report(self, full=True):
        r = self.table.report(full)
        r["boots"] = self.boots
        r["resets"] = [{"at_s": t / 1e6, "cause": c} for (t, c) in self.resets]
        r["wire"] = self.wire.get_status()
        r["irq_alloc_errors"] = self.machine.irq_alloc_errors
        return r

    def get_status(self):
        s = self.table.get_status()
        try:
            s["firmware"] = self.fw.get_status()
        except Exception as e:  # a status the firmware cannot give is itself news
            s["firmware"] = {"error": repr(e)}
        return s


def scripted_factory(profile, machine, *, clock, link_clock, port, boot_nonce, wdt=None):
    """A firmware_factory for the sim-only ScriptedController (tests, benches)."""
    from hw_sim.scripted import ScriptedController

    return ScriptedController(profile, machine, clock)
