"""hw_sim.scripted: the pin-level scripted controller the simulator tests itself with."""
from sim_helpers import scripted, scripted_build, scripted_hand_over, scripted_lift


def test_build_lift_and_hand_over():
    t = scripted(seed=9)
    c = t.fw
    b = scripted_build(t)
    assert c.count == [34] * 4 and c.stacked == [34] * 4
    assert [len(x) for x in c.colours] == [34] * 4 and set(c.colours[0]) == {1}
    assert c.events[0][0] == "build_done" and b["efficiency"] > 0.98
    scripted_lift(t)
    assert t.table.lift.raises == 1 and len(t.table.top_tiles()) == 272
    assert t.report()["wiring"] == []
    st = c.get_status()
    assert st["building"] is False and st["lift"] is None


def test_guard_halts():
    t = scripted(seed=9)
    scripted_build(t)
    t.table.panel.break_guard(t.now_us() + 1_000_000, 100)
    t.fw.hand_over()
    t.run(3000)
    assert t.fw.halted and not t.table.lift.motor_on and not t.table.door.motor_on
    c = t.fw
    c.shutdown()
    assert t.fw.next_due_us() is None or isinstance(t.fw.next_due_us(), int)


def test_hand_over_alone():
    t = scripted(seed=9)
    scripted_build(t)
    scripted_hand_over(t)
    assert t.table.door.opens == 1 and t.table.hand_overs == 1
