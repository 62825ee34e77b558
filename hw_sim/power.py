# The motors' and solenoids' supply (docs/SIMULATOR.md "Power", docs/SAFETY.md): ONE
# model every reader asks, whatever cuts it: the 24 V supply itself (fault
# supply-off), the safety chain's relays and the watchdog's hold.
#
#   24 V --+-- K1 --+-- drive rail: mixer, solenoids (a four-port table's disc and feed
#          |        |   motors)
#          |        +-- K2 -- motion rail: lift, door (where fingers go at the table top)
#
#   K1's coil: the emergency stop (released) -- the lid (closed) -- the watchdog's
#              retriggerable hold (an edge of the controller's `watchdog` output within
#              safety.watchdog_hold_ms)
#   K2's coil: K1's chain -- the light curtain (clear)
#
# Each relay's contacts follow its coil after safety.relay_ms (both ways).  The
# controller reads the chain's end before the curtain (`interlock`: 1 = the emergency
# stop released and the lid closed) and K2's feedback contact (`power_feedback`: 1 =
# the motion rail is live).  No software is in the path: a controller whose guard
# handler does nothing still loses the lift's supply when the curtain breaks.
#
# A profile without `interlock` is a table built without the relays (the simulator's
# allowance, said at start): the rails are the 24 V alone.  Without `watchdog`, no hold
# module is fitted: K1 does not wait for one.
#
# Readers: `drive` and `motion` (bools, kept current), live(rail); on every change the
# table's mechanisms re-evaluate what they drive (Table.power_changed), and so does
# every listener a mechanism family adds (add_listener).
from hw_sim.lines import NEVER, IN, OUT, EventSource

DRIVE = "drive"
MOTION = "motion"
RAILS = (DRIVE, MOTION)


class Power(EventSource):
    kind = "power"

    def __init__(self, table, profile, panel, jumper=False):
        self.table = table
        self.clock = table.clock
        sf = profile.get("safety") or {}
        pins = profile["pins"]
        self.relays = pins.get("interlock") is not None
        self.wd_fitted = pins.get("watchdog") is not None and not jumper
        self.hold_us = sf.get("watchdog_hold_ms", 300) * 1000
        self.relay_us = sf.get("relay_ms", 20) * 1000
        self.panel = panel
        self.v24 = True
        self.estop = False  # the emergency stop button pressed
        self.interlock = table.add_line("interlock", IN, 1)
        self.feedback = table.add_line("power_feedback", IN, 0)
        self.watchdog = table.add_line("watchdog", OUT, 0, self, 0)
        self.wd_until = -1  # the hold's end (us); -1: never triggered
        self.wd_edges = 0
        # coil and contact states; a contact changes at its *_at (NEVER: settled)
        self.k1_coil = False
        self.k2_coil = False
        self.k1 = not self.relays
        self.k2 = not self.relays
        self.k1_at = NEVER
        self.k2_at = NEVER
        self.drive = self.v24 and self.k1
        self.motion = self.drive and self.k2
        self.next_us = NEVER
        self.listeners = []
        self.drops = []  # [us, rail, cause] each time a rail went dead
        self.welded = False  # fault: K2's contacts stay closed (for a test of the feedback)
        self._coils(self.clock.us)
        # powered up before the run began: the contacts are where the coils hold them
        self.k1 = self.k1_coil or not self.relays
        self.k2 = self.k2_coil or not self.relays
        self.k1_at = self.k2_at = NEVER
        self.drive = self.v24 and self.k1
        self.motion = self.drive and self.k2
        self.feedback.set(1 if self.motion and self.relays else 0)
        self._schedule()

    def add_listener(self, fn):
        """fn(now) is called after every change of a rail (a family's motors)."""
        self.listeners.append(fn)

    def live(self, rail):
        return self.motion if rail == MOTION else self.drive

    # -- what changes the coils --------------------------------------------------
    def set_v24(self, on, now=None):
        self.v24 = bool(on)
        self._coils(self.clock.us if now is None else now)

    def press_estop(self, pressed=True):
        self.estop = bool(pressed)
        self._coils(self.clock.us)

    def inputs_changed(self, now):
        """The curtain or the lid changed (the panel calls this at their instant)."""
        self._coils(now)

    def on_output(self, what, v):
        # an edge of the watchdog output retriggers the hold (a charge pump: both edges)
        now = self.clock.us
        self.wd_edges += 1
        was = self.wd_alive(now)
        self.wd_until = now + self.hold_us
        if not was:
            self._coils(now)
        else:
            self._schedule()

    def wd_alive(self, now):
        return (not self.wd_fitted) or now < self.wd_until

    def _coils(self, now):
        p = self.panel
        chain = (not self.estop) and p.lid.level == 1
        self.interlock.set(1 if chain else 0)
        if self.relays:
            c1 = self.v24 and chain and self.wd_alive(now)
            c2 = c1 and p.curtain.level == 1
            if c1 != self.k1_coil:
                self.k1_coil = c1
                self.k1_at = now + self.relay_us if c1 != self.k1 else NEVER
            if c2 != self.k2_coil:
                self.k2_coil = c2
                self.k2_at = now + self.relay_us if (c2 != self.k2 and not self.welded) else NEVER
        self._rails(now, "coil")

    def fire(self, now):
        if self.k1_at <= now:
            self.k1_at = NEVER
            self.k1 = self.k1_coil
        if self.k2_at <= now:
            self.k2_at = NEVER
            self.k2 = self.k2_coil
        if self.wd_fitted and self.wd_until >= 0 and now >= self.wd_until and self.k1_coil:
            self._coils(now)  # the hold ran out: K1's coil lets go
            return
        self._rails(now, "relay")

    def _cause(self, now):
        if not self.v24:
            return "supply"
        if self.estop:
            return "estop"
        if self.panel.lid.level != 1:
            return "lid"
        if self.wd_fitted and not self.wd_alive(now):
            return "watchdog"
        if self.panel.curtain.level != 1:
            return "curtain"
        return "relay"

    def _rails(self, now, why):
        drive = self.v24 and self.k1
        motion = drive and self.k2
        # K2's feedback contact (without relays: the motion rail's voltage, if wired)
        self.feedback.set(1 if ((self.k1 and self.k2) if self.relays else motion) else 0)
        changed = drive != self.drive or motion != self.motion
        if drive != self.drive and not drive:
            self.drops.append([now, DRIVE, self._cause(now)])
        if motion != self.motion and not motion:
            self.drops.append([now, MOTION, self._cause(now)])
        self.drive = drive
        self.motion = motion
        self._schedule()
        if changed:
            self.table.power_changed(now)
            for fn in self.listeners:
                fn(now)

    def _schedule(self):
        n = self.k1_at if self.k1_at < self.k2_at else self.k2_at
        if self.wd_fitted and self.k1_coil and self.wd_until >= 0 and self.wd_until < n:
            n = self.wd_until
        self.next_us = n
        self._times[self._slot] = n
        self._mark.dirty = True

    def get_status(self):
        return {
            "v24": self.v24,
            "relays": self.relays,
            "estop": self.estop,
            "chain": self.interlock.level == 1,
            "drive": self.drive,
            "motion": self.motion,
            "watchdog": None if not self.wd_fitted else self.wd_alive(self.clock.us),
            "drops": [{"at_s": d[0] / 1e6, "rail": d[1], "cause": d[2]} for d in self.drops],
        }
