"""hw_sim.guard: curtain, lid, buttons and light; safety latencies are recorded."""
from hw_sim.table import Table
from sim_helpers import SET, bare_table, profile


class Stopper:
    """A controller stand-in whose guard handler stops the lift after `delay_us`."""

    def __init__(self, tab):
        self.tab = tab
        self.edges = []
        tab.lines["guard_curtain"].listener = self

    def sim_edge(self, level):
        self.edges.append((self.tab.clock.now_us(), level))
        if level == 0:
            self.tab.lines["lift_pwm"].drive(0)


def test_break_and_restore_with_latency_record():
    tab = bare_table()
    s = Stopper(tab)
    tab.lines["lift_dir"].drive(1)
    tab.lines["lift_pwm"].drive(65535)
    tab.panel.break_guard(1_000_000, 200)
    tab.advance_to(2_000_000)
    assert s.edges == [(1_000_000, 0), (1_200_000, 1)]
    rep = tab.safety_report()
    assert len(rep) == 1 and rep[0]["motor"] == "lift" and rep[0]["latency_ms"] == 0.0
    assert rep[0]["moving"] and 990 < rep[0]["position_ms"] < 1010
    assert tab.panel.breaks == 1


def test_late_stop_is_measured_and_unstopped_is_none():
    tab = bare_table()
    tab.lines["lift_dir"].drive(1)
    tab.lines["lift_pwm"].drive(65535)
    tab.lines["door_dir"].drive(1)
    tab.lines["door_pwm"].drive(65535)
    tab.panel.break_guard(100_000, 50, "lid")
    tab.advance_to(107_500)
    tab.lines["lift_pwm"].drive(0)
    tab.advance_to(300_000)
    rep = {r["motor"]: r for r in tab.safety_report()}
    assert rep["lift"]["latency_ms"] == 7.5 and rep["lift"]["input"] == "lid"
    # nobody stopped the door: the safety relay did, its release time after the break
    assert rep["door"]["latency_ms"] == tab.profile["safety"]["relay_ms"]
    # a table built without the relays (a profile without pins.interlock: the simulator's
    # allowance): the door nobody stopped runs on, unstopped
    p = profile()
    p["pins"]["interlock"] = None
    p["pin_options"].pop("interlock")
    tab = Table(p, [SET, SET], seed=1, sim={"watchdog_jumper": True})
    tab.lines["door_dir"].drive(1)
    tab.lines["door_pwm"].drive(65535)
    tab.panel.break_guard(100_000, 50, "lid")
    tab.advance_to(300_000)
    assert [r["latency_ms"] for r in tab.safety_report()] == [None]


def test_motor_started_while_unsafe_is_a_violation():
    tab = bare_table()
    tab.panel.break_guard(0, 1000)
    tab.advance_to(10)
    tab.lines["lift_dir"].drive(1)
    tab.lines["lift_pwm"].drive(65535)
    assert tab.report()["guard_violations"][0]["motor"] == "lift"


def test_buttons_and_light():
    tab = bare_table()
    tab.panel.press("start", 500, 100)
    tab.panel.press("dice", 600, 10)
    tab.advance_to(550)
    assert tab.lines["start_button"].level == 0
    tab.advance_to(700_000)
    assert tab.lines["start_button"].level == 1 and tab.lines["dice_button"].level == 1
    tab.lines["status_light"].drive(1)
    assert tab.panel.get_status()["light"] == 1


def test_scheduled_says_whether_a_change_is_due_by_then():
    tab = bare_table()
    p = tab.panel
    p.break_guard(1_000_000, 200)
    assert p.scheduled(p.curtain, 1, 1_200_000) and not p.scheduled(p.curtain, 1, 1_199_999)
    assert p.scheduled(p.curtain, 0, 1_000_000) and not p.scheduled(p.lid, 0, 2_000_000)
