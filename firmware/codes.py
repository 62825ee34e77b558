# The code tables the firmware uses, taken from protocol.messages (the one
# table both sides import) under the names the mechanisms use.
from protocol import messages as _m

FAULT_NONE = _m.F_NONE
FAULT_JAM = _m.F_JAM
FAULT_SHORT = _m.F_SHORT
FAULT_SURPLUS = _m.F_SURPLUS
FAULT_OVERFILL = _m.F_OVERFILL
FAULT_MISREAD = _m.F_MISREAD
FAULT_LIFT_STALL = _m.F_LIFT_STALL
FAULT_LIMIT = _m.F_LIMIT
FAULT_GUARD = _m.F_GUARD
FAULT_DOOR = _m.F_DOOR
FAULT_BUILD_TIMEOUT = _m.F_BUILD_TIMEOUT
FAULT_LINK_LOST = _m.F_LINK_LOST
FAULT_RESET = _m.F_RESET
FAULT_SENSOR = _m.F_SENSOR
FAULT_COLOUR = _m.F_COLOUR
FAULT_INTERNAL = _m.F_INTERNAL
FAULT_COUNT = _m.F_COUNT
FAULTS = _m.FAULTS

BOOT = _m.S_BOOT
IDLE = _m.S_IDLE
MIXING = _m.S_MIXING
BUILDING = _m.S_BUILDING
PAUSED = _m.S_PAUSED
BUILT = _m.S_BUILT
LIFTING = _m.S_LIFTING
FAULT = _m.S_FAULT
TESTING = _m.S_TESTING
STATES = _m.STATES

# What the walls inside are, beside the state (the state says what the table does; a
# fault or a self-test does not forget a build it stopped): none (or raised), a build
# under way (running, paused, or stopped by a fault), or a complete build.
WALLS_NONE = 0
WALLS_BUILDING = 1
WALLS_BUILT = 2
