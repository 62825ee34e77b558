# The centre disc: its motor turns the mixed tiles under the magnetic ring that lifts them
# into the sides' feed slots; disc_empty reads 1 when no tile is left (disc and ring).
# The reference mixer with the disc's own motor drive and sensor: the same interface
# (start, stop, halt, running, empty, changed, get_status) and the same IRQ.
from firmware.drivers.motor import make_motor
from firmware.reference.mixer import Mixer


class Disc(Mixer):
    def __init__(self, profile, hal, sched, *, wake=None):
        Mixer.__init__(self, profile, hal, wake=wake, empty="disc_empty",
                       motor=make_motor(hal, "disc", profile["motors"]["disc"]["drive"], sched,
                                        duty=profile["duty"]["mixer"]))
