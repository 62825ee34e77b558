# The whole controller composed from a board profile and a binding
# (docs/ARCHITECTURE.md §8).  The same class runs on a board (main.py), on a
# Raspberry Pi (pi_main.py) and inside the simulator (hw_sim), in real or
# virtual time: it never sleeps and never reads a clock of its own.
from firmware import profile as _profile
from firmware.compat import const
from firmware.sched import Scheduler
from firmware.controller import Controller
from firmware.endpoint import Endpoint, FIRMWARE_VERSION  # noqa: F401


# steps counts on past 2**30 (12.4 days of a 1 ms loop) by wrapping: a 32-bit board's
# small ints stop there, and a long integer would allocate at every step from then on
_STEP_MASK = const(0x3FFFFFFF)


class Firmware:
    def __init__(self, profile, hal, *, clock, link_clock, port, boot_nonce=None, wdt=None):
        prof = _profile.load(profile)  # validated once, here (a validated dict passes as is)
        self.profile = prof
        self.hal = hal
        self.clock = clock
        self.link_clock = link_clock
        self._wdt = wdt
        # boot: every output exists and is off before any mechanism is built
        all_off = getattr(hal, "all_off", None)
        if all_off is not None:
            all_off()
        self.sched = Scheduler(clock)
        self.ctl = Controller(prof, hal, self.sched, clock)
        start = getattr(hal, "start", None)  # a binding's own timers (expanders' polls)
        if start is not None:
            start(self.sched)
        self.endpoint = Endpoint(self.ctl, port, link_clock, prof, boot_nonce=boot_nonce)
        self.link = self.endpoint.link
        self._port = port
        self._wake = self.sched.wake  # raised by IRQs and commands: controller work
        self.boot_nonce = self.endpoint.boot_nonce
        # one clock for both: the link's deadline is one of the scheduler's timers
        self._same_clock = link_clock is clock
        if self._same_clock:
            self.endpoint.use_timer(self.sched)
        self.steps = 0
        self.ctl.boot()
        if wdt is not None:
            wdt.feed()

    @property
    def state(self):
        return self.ctl.state

    @property
    def exit_requested(self):
        return self.endpoint.exit_requested

    def step(self):
        """Read the port, finish IRQ follow-ups, run due timers, run the link.
        Never blocks."""
        self.steps = (self.steps + 1) & _STEP_MASK
        ep = self.endpoint
        ctl = self.ctl
        wake = self._wake
        if self._port.any():
            ep.poll_port()
        if wake.up:
            ctl.service()
        self.sched.run()
        if wake.up:
            ctl.service()
        if self._same_clock:
            if not ep.link_known:
                ep.arm_link()  # the link's timer fired in sched.run(), or a frame changed it
        else:
            ep.poll_link()
        if self._wdt is not None:
            self._wdt.feed()

    def next_due_us(self):
        """ticks_us (mechanics clock, wrapping: compare with compat.ticks_diff) of
        the next thing step() must do; now if something is pending already; None
        if nothing is scheduled.  Link timers are included when the link runs on
        the same clock (a board, in-process: the link's timer is the scheduler's);
        otherwise the runner polls the link by wall time."""
        if self._wake.up or self._port.any():  # ctl.pending() or endpoint.rx_pending()
            return self.clock.ticks_us()
        return self.sched.next_due_us()

    def get_status(self):
        return {
            "state": self.ctl.get_status()["state"],
            "controller": self.ctl.get_status(),
            "link": self.endpoint.get_status(),
            "timers_active": self.sched.active_count(),
            "steps": self.steps,
            "boot_nonce": self.boot_nonce,
        }

    def shutdown(self):
        """Every motor and solenoid off (also what boot does first)."""
        self.ctl.shutdown()

    def internal_fault(self, exc):
        """The board loop caught an exception from step(): stop and report it."""
        self.ctl.shutdown()
        self.ctl.internal_fault(0, exc)
