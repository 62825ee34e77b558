# The guard (light curtain over the lift openings, lid switch), the buttons and
# the status light (docs/SIMULATOR.md "Guard, buttons, light").
#
# guard_curtain and lid read 1 when safe (pull-down: a cut wire reads unsafe);
# start_button and dice_button read 0 while pressed.  Tests, faults and
# scripts schedule level changes; each one happens at its virtual instant and
# the controller's IRQ handler is called right then.
from hw_sim.lines import NEVER, IN, OUT, EventSource

BUTTONS = ("start", "dice")
PRESS_MS = 150  # a person's press: well past the firmware's 30 ms debounce


class Panel(EventSource):

    def __init__(self, table):
        self.table = table
        self.clock = table.clock
        self.curtain = table.add_line("guard_curtain", IN, 1)
        self.lid = table.add_line("lid", IN, 1)
        self.start = table.add_line("start_button", IN, 1)
        self.dice = table.add_line("dice_button", IN, 1)
        self.light = table.add_line("status_light", OUT, 0, self, 0)
        self._ev = []  # [time, line, level], kept sorted by time
        self.next_us = NEVER
        self.breaks = 0
        self.presses = 0
        self.light_changes = 0

    def schedule(self, at_us, line, level):
        ev = self._ev
        i = len(ev)
        while i > 0 and ev[i - 1][0] > at_us:
            i -= 1
        ev.insert(i, [at_us, line, level])
        self.next_us = ev[0][0]
        self._times[self._slot] = self.next_us
        self._mark.dirty = True

    def scheduled(self, line, level, by_us):
        """A change of `line` to `level` is scheduled at or before by_us."""
        for e in self._ev:
            if e[1] is line and e[2] == level and e[0] <= by_us:
                return True
        return False

    def break_guard(self, at_us, ms, which="curtain"):
        """The curtain (or lid) reads unsafe from at_us for ms milliseconds."""
        line = self.lid if which == "lid" else self.curtain
        self.schedule(at_us, line, 0)
        self.schedule(at_us + int(ms * 1000), line, 1)

    def press(self, name, at_us, ms=100):
        """A person presses `name` ("start" or "dice") at at_us for ms milliseconds."""
        if name == "dice" or name == "dice_button":
            line = self.dice
        elif name == "start" or name == "start_button":
            line = self.start
        else:
            raise ValueError("no button %r; accepted: %s" % (name, ", ".join(BUTTONS)))
        self.presses += 1
        self.schedule(at_us, line, 0)
        self.schedule(at_us + int(ms * 1000), line, 1)

    def fire(self, now):
        ev = self._ev
        while ev and ev[0][0] <= now:
            e = ev.pop(0)
            line = e[1]
            level = e[2]
            if (line is self.curtain or line is self.lid) and level == 0 and line.level == 1:
                self.breaks += 1
                self.table.on_guard_break(line.name, now)
            if (line is self.curtain or line is self.lid) and level == 1 and line.level == 0:
                line.set(1)
                self.table.power.inputs_changed(now)  # the chain closes again
                self.table.on_guard_restore(line.name, now)
                continue
            line.set(level)
            if line is self.curtain or line is self.lid:
                self.table.power.inputs_changed(now)  # the chain opens: the relays drop
        self.next_us = ev[0][0] if ev else NEVER
        self._times[self._slot] = self.next_us
        self._mark.dirty = True

    def safe(self):
        return self.curtain.level == 1 and self.lid.level == 1

    def on_output(self, what, v):
        self.light_changes += 1

    def get_status(self):
        return {
            "curtain": self.curtain.level,
            "lid": self.lid.level,
            "start_button": self.start.level,
            "dice_button": self.dice.level,
            "light": self.light.level,
            "light_changes": self.light_changes,
            "presses": self.presses,
            "breaks": self.breaks,
        }
