# The four-port machine at the pin level (docs/SIMULATOR.md §9): disc, sides (feed,
# counting sensor, colour sensor and its INT, cam with home switch), four lifts, the
# centre panel and the dice.  table.py composes it for a profile whose family is
# "fourport"; the tiles, the mixing, the builds, the people and the faults are the
# table's, as for the reference family.
