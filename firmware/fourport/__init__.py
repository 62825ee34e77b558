# The four-port machine's mechanisms (docs/FIRMWARE.md §11): the mechanism family of the
# tables people own.  table.py composes them from a board profile whose family is
# "fourport"; each mechanism offers the controller the interface of its reference-family
# counterpart (disc ~ mixer, side ~ track, lifts ~ lift, centre ~ door), so the state
# machine, the protocol and everything above are the same for both families.
