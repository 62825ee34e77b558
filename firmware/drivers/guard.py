# The guard: light curtain over the lift openings and the lid switch
# (docs/ARCHITECTURE.md §4: pull-down inputs, 1 = safe, so a cut wire is unsafe).
#
# Its IRQ handler (both edges) stops every motor in `stops` at once, inside the
# interrupt, when either input reads unsafe: lift and door motors off within the
# IRQ latency, whatever the controller is doing.  It allocates nothing: it loops
# over a list built once and calls halt() on each (halt() only writes pins and
# sets flags), then raises `wake` (a sched.Wake, optional).  The controller turns
# a trip during a motion into fault GUARD.
class Guard:
    def __init__(self, hal, stops, *, wake=None):
        self._wake = wake
        self._curtain = hal.input("guard_curtain")
        self._lid = hal.input("lid")
        self._stops = list(stops)
        self.trips = 0        # unsafe edges seen
        self.tripped = False  # set by the IRQ, cleared by the controller (ack())
        self.changed = False  # any edge (safe or not), cleared by the controller
        self._handler = self._irq
        both = self._curtain.IRQ_FALLING | self._curtain.IRQ_RISING
        self._curtain.irq(self._handler, both)
        if self._lid is not None:
            self._lid.irq(self._handler, both)

    def add_stop(self, s):
        """One more thing the IRQ halts (the wiring survey's pin pulse): once, from task
        context, before it is started."""
        self._stops.append(s)

    def safe(self):
        if self._curtain.value() != 1:
            return False
        if self._lid is not None and self._lid.value() != 1:
            return False
        return True

    def _irq(self, pin):
        self.changed = True
        if not self.safe():
            for s in self._stops:
                s.halt()
            if not self.tripped:
                self.trips += 1
            self.tripped = True
        w = self._wake
        if w is not None:
            w.up = True

    def check(self):
        """Task-context backstop (a missed edge): same as the IRQ."""
        if not self.safe():
            self._irq(None)
        return self.tripped

    def ack(self):
        self.tripped = False
        self.changed = False

    def get_status(self):
        return {
            "safe": self.safe(),
            "curtain": self._curtain.value() == 1,
            "lid": None if self._lid is None else self._lid.value() == 1,
            "trips": self.trips,
        }
