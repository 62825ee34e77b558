# The dice motor: it spins while driven (the players' show; the throw is the host's).
from hw_sim.lines import EventSource, NEVER
from hw_sim.fourport.motor import MotorLines


class Dice(EventSource):
    def __init__(self, table, drive):
        self.table = table
        self.lines = MotorLines(table, "dice", drive, self, 0, 1)
        self.spins = 0
        self.on = False
        self.next_us = NEVER

    def on_output(self, what, v):
        if what != 0:
            return
        on = bool(v) and self.table.supply
        if on and not self.on:
            self.spins += 1
        self.on = on

    def get_status(self):
        return {"spinning": self.on, "spins": self.spins}
