# The electrical signals between the simulated table and a controller.
#
# One Line per named signal of docs/ARCHITECTURE.md §4.  Inputs (to the
# controller) are set by the physics with set(); a listener (a machine.Pin
# stand-in or a gpiozero mock pin adapter) is told synchronously, at the
# virtual instant the level changes, through listener.sim_edge(level).
# Outputs (from the controller) are driven with drive(); the owning mechanism
# is told through sink.on_output(what, value).  Neither path allocates.
NEVER = 1 << 60  # "no event" (a small int on 64-bit MicroPython)

IN = 0
OUT = 1
PWM = 2
ADC = 3
I2C = 4

KIND_NAMES = ("in", "out", "pwm", "adc", "i2c")


class Epoch:
    """A counter every input change bumps (the runner skips stepping a
    controller when nothing it can see changed)."""

    def __init__(self):
        self.n = 0


class EventMark:
    """Set whenever a mechanism's next_us changes, so Table can keep the
    earliest event cached between changes instead of looking at every mechanism
    on each call; when it is set, the earliest is min(Table.times), one call in
    C.  Mechanisms (EventSource) share the table's mark and its list of event
    times (Table calls attach_events on each) and write both when they move
    their next event:

        self.next_us = n
        self._times[self._slot] = n
        self._mark.dirty = True

    Alone (a unit test) they write to throwaway ones."""

    def __init__(self):
        self.dirty = True


UNUSED_MARK = EventMark()
UNUSED_TIMES = [NEVER]


class EventSource:
    """A mechanism with a next event (next_us) among the table's: Table gives it the
    shared mark, the list of event times and its slot in that list (attach_events);
    alone (a unit test) it writes to the throwaway ones."""
    _mark = UNUSED_MARK
    _times = UNUSED_TIMES
    _slot = 0

    def attach_events(self, mark, times, slot):
        self._mark = mark
        self._times = times
        self._slot = slot


class Line:
    def __init__(self, name, kind, level=0, sink=None, what=0, epoch=None):
        self.name = name
        self.epoch = epoch
        self.kind = kind
        self.level = level
        self.sink = sink
        self.what = what
        self.listener = None
        self.changes = 0

    def set(self, level):
        """Physics side: an input changes level (listeners are told at once)."""
        if level == self.level:
            return
        self.level = level
        self.changes += 1
        ep = self.epoch
        if ep is not None:
            ep.n += 1
        lis = self.listener
        if lis is not None:
            lis.sim_edge(level)

    def drive(self, value):
        """Controller side: an output (0/1) or PWM duty (0..65535) is written."""
        if value == self.level:
            return
        self.level = value
        self.changes += 1
        s = self.sink
        if s is not None:
            s.on_output(self.what, value)
