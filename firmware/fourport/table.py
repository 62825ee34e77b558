# The four-port machine composed from its profile (docs/FIRMWARE.md §11), as gpiozero
# composes a robot from motors: a disc, N sides (feed, counting and colour sensing, cam),
# the lifts, the centre panel and the dice.  Returns the mechanisms under the names the
# controller drives every family by.
from firmware.fourport.disc import Disc
from firmware.fourport.side import Side
from firmware.fourport.lifts import Lifts
from firmware.fourport.centre import Centre
from firmware.fourport.dice import Dice


def build(ctl, profile, hal, sched, clock, classifier_for):
    """(mixer, tracks, lift, door, dice, stops, services): stops are what the guard's IRQ
    halts besides the lifts and the centre (every other motor), services the mechanisms
    with task-context work of their own ((pending, service) pairs)."""
    disc = Disc(profile, hal, sched, wake=sched.wake)
    sides = []
    for n in range(1, profile["tracks"] + 1):
        sides.append(Side(n, profile, hal, sched, clock, ctl, colour_bus=ctl.colour_bus,
                          classifier=classifier_for(n)))
    lifts = Lifts(profile, hal, sched, clock, ctl)
    centre = Centre(profile, hal, sched, clock, ctl)
    dice = Dice(profile, hal, sched)
    stops = [disc, dice]
    for s in sides:
        stops.append(s.feed)
        stops.append(s.cam)
    services = [(s.pending, s.extra_service) for s in sides]
    return disc, sides, lifts, centre, dice, stops, services
