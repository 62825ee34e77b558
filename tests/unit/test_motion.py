from firmware import codes
from firmware.compat import ticks_diff
from firmware.drivers.motor import DCMotor
from firmware.fakes import FakeADC, FakeClock, FakePin, FakePWM
from firmware.drivers.motion import AT_FAR, AT_NEAR, BETWEEN, FAR, NEAR, EndMotion
from firmware.sched import Scheduler


class M:
    def __init__(self, far=True, adc=True, travel_ms=1000):
        self.clock = FakeClock(1000)
        self.sched = Scheduler(self.clock)
        self.pwm, self.dir = FakePWM(), FakePin()
        self.far = FakePin(level=1) if far else None
        self.near = FakePin(level=0)
        self.adc = FakeADC(1000) if adc else None
        self.arrived = []
        self.faults = []
        self.ax = EndMotion(DCMotor(self.pwm, self.dir), self.far, self.near, self.sched, self.clock,
                            timeout_ms=1500, release_ms=300, poll_ms=10, travel_ms=travel_ms, adc=self.adc,
                            stall_threshold=50000, stall_ms=150, stall_code=codes.FAULT_LIFT_STALL,
                            on_arrive=self.arrived.append, on_fault=self.faults.append)

    def run(self, ms, at=None):
        end = self.clock.us + ms * 1000
        while True:
            self.ax.service()
            self.sched.run()
            if at:
                for t, fn in list(at):
                    if self.clock.us >= t:
                        fn()
                        at.remove((t, fn))
            if self.clock.us >= end:
                return
            self.clock.us += 1000


def test_position_from_switches():
    m = M()
    assert m.ax.position == AT_NEAR
    m.near.set(1)
    assert m.ax.read_position() == BETWEEN


def test_move_far_stops_in_the_irq_at_the_switch():
    m = M()
    assert m.ax.move(FAR) == 0
    assert m.pwm.duty == 65535 and m.dir.level == 1
    m.run(50)
    m.near.set(1)  # released
    m.run(500)
    m.far.set(0)  # reached: motor off at once, in the IRQ
    assert m.pwm.duty == 0
    assert m.ax.pending()
    m.ax.service()
    assert m.arrived == [FAR] and m.ax.position == AT_FAR and m.ax.moving == 0
    assert m.ax.strokes == 1 and 550000 <= m.ax.last_stroke_us <= 552000


def test_already_there_arrives_without_moving():
    m = M()
    assert m.ax.move(NEAR) == 0
    assert m.pwm.duty == 0
    m.ax.service()
    assert m.arrived == [NEAR]


def test_switch_that_does_not_release_is_limit():
    m = M()
    m.ax.move(FAR)
    m.run(400)
    assert m.faults == [codes.FAULT_LIMIT] and m.pwm.duty == 0


def test_stroke_timeout_is_limit():
    m = M()
    m.ax.move(FAR)
    m.run(10)
    m.near.set(1)
    m.run(2000)
    assert m.faults == [codes.FAULT_LIMIT] and m.pwm.duty == 0 and m.ax.moving == 0


def test_high_current_for_stall_ms_is_stall():
    m = M()
    m.ax.move(FAR)
    m.run(10)
    m.near.set(1)
    m.adc.v = 60000
    m.run(100)
    assert m.faults == []
    m.adc.v = 1000  # a spike shorter than stall_ms
    m.run(20)
    m.adc.v = 60000
    m.run(200)
    assert m.faults == [codes.FAULT_LIFT_STALL] and m.pwm.duty == 0


def test_both_pressed_refuses():
    m = M()
    m.far.set(0)
    assert m.ax.move(FAR) == codes.FAULT_LIMIT
    assert m.pwm.duty == 0


def test_far_switch_closing_before_the_near_one_released_is_limit_not_an_arrival():
    # a top switch that sticks pressed as the stroke starts (held-out sweep:
    # limit-stuck:build=2,switch=top,state=pressed): the lift never left the bottom,
    # so the walls are not up; the motion must fail, not arrive
    m = M()
    assert m.ax.move(FAR) == 0
    m.run(5)
    m.far.set(0)  # "reached" with the near switch still pressed
    m.run(5)
    assert m.arrived == [] and m.faults == [codes.FAULT_LIMIT]
    assert m.pwm.duty == 0 and m.ax.moving == 0 and m.ax.strokes == 0


def test_halt_marks_motion_halted():
    m = M()
    m.ax.move(FAR)
    m.ax.halt()
    assert m.pwm.duty == 0 and m.ax.halted and m.ax.pending()
    assert m.ax.service()
    assert m.ax.moving == 0
    m.ax.halt()  # not moving: nothing to mark
    m.ax.halted = False
    m.ax.halt()
    assert not m.ax.halted


def test_timed_move_without_far_switch():
    m = M(far=False, travel_ms=600)
    m.ax.move(FAR)
    m.run(10)
    m.near.set(1)
    m.run(700)
    assert m.arrived == [FAR] and m.pwm.duty == 0 and m.faults == []


def test_missed_edge_is_caught_by_the_poll():
    m = M()
    m.ax.move(FAR)
    m.run(10)
    m.near.set(1)
    m.far.level = 0  # pressed without an IRQ
    m.run(30)
    assert m.arrived == [FAR] and m.pwm.duty == 0


def test_stop_is_not_a_fault():
    m = M()
    m.ax.move(FAR)
    m.ax.stop()
    m.run(2000)
    assert m.faults == [] and m.pwm.duty == 0
    st = m.ax.get_status()
    assert st["moving"] == 0 and "current_u16" in st
