from firmware import codes
from protocol import messages as m


def test_codes_are_the_protocol_tables():
    assert codes.FAULT_JAM == m.F_JAM and codes.FAULT_GUARD == m.F_GUARD
    assert codes.BUILDING == m.S_BUILDING and codes.STATES is m.STATES and codes.FAULTS is m.FAULTS
    for name in ("JAM", "SHORT", "SURPLUS", "OVERFILL", "MISREAD", "LIFT_STALL", "LIMIT", "GUARD", "DOOR",
                 "BUILD_TIMEOUT", "LINK_LOST", "RESET", "SENSOR", "COLOUR", "INTERNAL"):
        assert getattr(codes, "FAULT_" + name) == getattr(m, "F_" + name)

