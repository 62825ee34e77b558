"""hw_sim.gpiozero_pins: gpiozero's MockFactory pins driven by the simulator, under the
firmware's gpiozero binding (a full build)."""
import json

import pytest

pytest.importorskip("gpiozero")
from gpiozero import Button, DigitalOutputDevice, PWMOutputDevice  # noqa: E402
from gpiozero.pins.mock import MockFactory  # noqa: E402

from firmware import profile as fp  # noqa: E402
from hw_sim.driver import Driver  # noqa: E402
from hw_sim.gpiozero_pins import attach, detach, gpiozero_factory  # noqa: E402
from hw_sim.inprocess import InProcessTable  # noqa: E402
from hw_sim.table import Table  # noqa: E402
from sim_helpers import ROOT, SET  # noqa: E402

PI_PINS = {
    "i2c_sda": 2, "i2c_scl": 3, "mixer_pwm": 4, "mixer_dir": None, "mixer_empty": 5,
    "lift_pwm": 6, "lift_dir": 7, "lift_top": 8, "lift_bottom": 9, "lift_current": None,
    "door_pwm": 10, "door_dir": 11, "door_closed": 12, "door_open": 13, "guard_curtain": 14, "lid": 15,
    "start_button": 16, "dice_button": 17, "status_light": 18,
    "gate1": 19, "entry1": 20, "stacker1": 21, "pusher1": 22,
    "gate2": 23, "entry2": 24, "stacker2": 25, "pusher2": 26,
}


def pi_profile():
    """A two-track Raspberry Pi map (a Pi has 28 GPIOs; the lift current comes from an
    ADS1115 on the I2C bus)."""
    p = json.loads((ROOT / "firmware" / "boards" / "reference-18.json").read_text())
    p.update({"id": "pi-sim-2", "tracks": 2, "pins": dict(PI_PINS),
              "current_adc": {"kind": "ads1115", "addr": 72, "channel": 0}})
    p["thresholds"]["lift_stall_current_u16"] = 41920  # 5.24 A on the ADS1115
    p.pop("safety", None)
    return fp.load(p)


def test_pins_follow_the_table():
    prof = pi_profile()
    tab = Table(prof, [SET[:68], SET[:68]], seed=1)
    f = MockFactory()
    pins = attach(f, tab)
    assert set(pins) == {n for n, v in PI_PINS.items() if v is not None and not n.startswith("i2c")}
    bottom = Button(9, pull_up=True, pin_factory=f)
    assert bottom.is_pressed  # pressed at rest although pulled up
    top = Button(8, pull_up=True, pin_factory=f)
    assert not top.is_pressed
    pressed = []
    top.when_pressed = lambda: pressed.append(tab.clock.now_us())
    gate = DigitalOutputDevice(19, pin_factory=f)
    gate.on()
    assert tab.tracks[0].gate_open
    lift = PWMOutputDevice(6, frequency=20000, pin_factory=f)
    ldir = DigitalOutputDevice(7, pin_factory=f)
    ldir.on()
    lift.value = 1.0
    assert tab.lines["lift_pwm"].level == 65535
    tab.advance_to(5_000_000)
    assert pressed == [3_980_000] and not bottom.is_pressed
    lift.value = 0.5
    assert tab.lines["lift_pwm"].level == 32768
    detach(pins)
    assert tab.lines["lift_top"].listener is None


def test_full_build_on_the_gpiozero_binding():
    t = InProcessTable(pi_profile(), [SET[:68], SET[:68]], seed=2, firmware_factory=gpiozero_factory())
    d = Driver(t)
    assert d.connect()[3] == "pi-sim-2"
    done = d.build(1, [34, 34], 17, [1, 2], 1)
    assert done is not None and list(done[1]) == [0, 34, 0, 0, 34, 0]
    r = t.report()
    assert r["builds"][0]["efficiency"] > 0.98 and r["wiring"] == []
    assert d.lift()
    assert len(t.table.top_tiles()) == 136
    assert d.faults() == []
    # the guard stops the lift through gpiozero's callbacks too
    t.table.panel.break_guard(t.now_us() + 1_000_000, 100)
    d.command("lift")
    d.run_for(2000)
    s = t.report()["safety"]
    assert s and s[-1]["motor"] == "lift" and s[-1]["latency_ms"] is not None and s[-1]["latency_ms"] <= 10
    assert [f[0] for f in d.faults()] == ["guard"]


def test_inverted_pins_on_the_gpiozero_binding():
    """Normally-closed lift switches, an active-high beam, an inverted gate driver and an
    inverted lift PWM, on gpiozero: the build and the lift stroke as on the standard
    wiring, with the wires the other way round."""
    prof = pi_profile()
    raw = dict(prof, pins=dict(prof["pins"]), pin_options=None)
    for name in ("lift_top", "lift_bottom", "entry2"):
        raw["pins"][name] = {"pin": raw["pins"][name], "invert": True, "pull": "up"}
    for name in ("gate1", "lift_pwm"):
        raw["pins"][name] = {"pin": raw["pins"][name], "invert": True}
    prof = fp.load(raw)
    t = InProcessTable(prof, [SET[:68], SET[:68]], seed=2, firmware_factory=gpiozero_factory())
    d = Driver(t)
    d.connect()
    f = t.fw.sim_factory
    assert f.pin(9).state == 1 and f.pin(8).state == 0  # the wires: bottom NC open at rest, top closed
    assert f.pin(19).state == 1  # gate 1 closed: its inverted driver's enable is high
    done = d.build(1, [34, 34], 17, [1, 2], 1)
    assert done is not None and list(done[1]) == [0, 34, 0, 0, 34, 0]
    assert d.lift() and len(t.table.top_tiles()) == 136
    assert t.report()["wiring"] == [] and d.faults() == []


def test_slow_signals_on_an_expander_on_the_gpiozero_binding():
    """A Pi's profile that moves the door's switches, the stackers, the buttons and the
    status light to an MCP23017 on its I2C bus (the same driver as a Pico's,
    firmware/drivers/expander.py): a build, the door's stroke and both buttons through
    the expander's polls, as on the chip's own pins; no wiring complaint."""
    from protocol import messages as m

    prof = pi_profile()
    raw = dict(prof, pins=dict(prof["pins"]), pin_options=None,
               expanders=[{"kind": "mcp23017", "addr": 32}])
    moved = {"stacker1": 0, "stacker2": 1, "status_light": 2, "door_closed": 8, "door_open": 9,
             "start_button": 10, "dice_button": 11}
    for name, pin in moved.items():
        raw["pins"][name] = {"expander": 0, "pin": pin}
    prof = fp.load(raw)
    t = InProcessTable(prof, [SET[:68], SET[:68]], seed=2, firmware_factory=gpiozero_factory())
    d = Driver(t)
    assert d.connect()[3] == "pi-sim-2"
    assert not set(moved) & set(t.fw.sim_pins)  # none of them is a GPIO any more
    done = d.build(1, [34, 34], 17, [1, 2], 1)
    assert done is not None and list(done[1]) == [0, 34, 0, 0, 34, 0]
    assert d.door(True) and d.door(False)
    n = d.seen("button")
    t.press("start")
    assert d.wait_event("button", 2000, since=n) == [m.BUTTON_START]
    t.press("dice")
    assert d.wait_event("button", 2000, since=n + 1) == [m.BUTTON_DICE]
    x = t.fw.hal.expanders[0].get_status()
    assert x["errors"] == 0 and x["polls"] > 100
    assert t.report()["wiring"] == [] and d.faults() == []
