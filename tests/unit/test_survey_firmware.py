"""The wiring survey's firmware commands (firmware/survey.py: PIN_PULSE, PIN_READ): one
output the profile claims on for a bounded moment by its pin number, with a second held
as its direction, every other output off; inputs read by number; refused where a motion
could surprise anyone."""
from firmware import codes
from firmware.fakes import Rig
from protocol import messages as m

OK = (m.OK, m.NO_FIELD)


def pin_of(rig, name):
    return rig.profile["pins"][name]


def test_a_pulse_drives_the_pin_for_its_time_with_its_hold_then_both_off():
    r = Rig()
    lift, dirn = pin_of(r, "lift_pwm"), pin_of(r, "lift_dir")
    assert r.ctl.cmd_pin_pulse(lift, 300, dirn) == OK
    assert r.ctl.state == codes.TESTING
    assert r.hal.level("lift_pwm") == 1 and r.hal.level("lift_dir") == 1
    # nothing else moves meanwhile, and no other motion is taken
    assert r.ctl.cmd_mix(100) == (m.E_NOT_ALLOWED, m.NO_FIELD)
    outputs = [n for n in r.hal.pins if n not in ("lift_pwm", "lift_dir")
               and r.hal.pins[n] is not None and hasattr(r.hal.pins[n], "duty_u16")
               or n.startswith(("gate", "stacker", "pusher")) or n.endswith("_dir")]
    assert len(outputs) > 12
    assert [n for n in outputs if n not in ("lift_pwm", "lift_dir") and r.hal.level(n)] == []
    r.run(250)
    assert r.hal.level("lift_pwm") == 1
    r.run(100)
    assert r.hal.level("lift_pwm") == 0 and r.hal.level("lift_dir") == 0
    assert r.ctl.state == codes.IDLE
    # a plain output alone
    assert r.ctl.cmd_pin_pulse(pin_of(r, "gate3"), 50, m.PIN_NONE) == OK
    assert r.hal.level("gate3") == 1
    r.run(60)
    assert r.hal.level("gate3") == 0 and r.ctl.state == codes.IDLE


def test_stop_abort_and_the_guard_end_a_pulse_at_once():
    r = Rig()
    door = pin_of(r, "door_pwm")
    for end in ("stop", "abort"):
        assert r.ctl.cmd_pin_pulse(door, 2000, pin_of(r, "door_dir")) == OK
        assert r.hal.level("door_pwm") == 1
        assert (r.ctl.cmd_stop() if end == "stop" else r.ctl.cmd_abort()) == OK
        assert r.hal.level("door_pwm") == 0 and r.hal.level("door_dir") == 0, end
        assert r.ctl.state == codes.IDLE
    assert r.ctl.cmd_pin_pulse(pin_of(r, "mixer_pwm"), 2000, m.PIN_NONE) == OK
    r.run(10)
    r.pin("guard_curtain").set(0)  # a hand in the light curtain: the IRQ halts the pin
    assert r.hal.level("mixer_pwm") == 0
    r.run(2100)
    assert r.hal.level("mixer_pwm") == 0 and r.ctl.state == codes.IDLE


def test_refusals_name_the_field():
    r = Rig()
    gate = pin_of(r, "gate1")
    entry = pin_of(r, "entry1")
    # a number the profile names as no output (an input), or no signal at all
    assert r.ctl.cmd_pin_pulse(entry, 100, m.PIN_NONE) == (m.E_UNSUPPORTED, 0)
    assert r.ctl.cmd_pin_pulse(250, 100, m.PIN_NONE) == (m.E_UNSUPPORTED, 0)
    # the hold: a plain output other than the pulsed one (a PWM one is refused)
    assert r.ctl.cmd_pin_pulse(gate, 100, gate) == (m.E_RANGE, 2)
    assert r.ctl.cmd_pin_pulse(gate, 100, pin_of(r, "lift_pwm")) == (m.E_UNSUPPORTED, 2)
    # the guard open: nothing moves
    r.pin("guard_curtain").set(0)
    r.run(5)
    assert r.ctl.cmd_pin_pulse(gate, 100, m.PIN_NONE) == (m.E_FAILED, m.NO_FIELD)
    assert r.hal.level("gate1") == 0
    r.pin("guard_curtain").set(1)
    r.run(5)
    # a fault with nothing built (a draft's map: a beam read on a pressed switch) takes it
    r.ctl._fault(codes.FAULT_JAM, 1, 0)
    assert r.ctl.state == codes.FAULT
    assert r.ctl.cmd_pin_pulse(gate, 20, m.PIN_NONE) == OK
    r.run(30)
    assert r.ctl.state == codes.FAULT and r.hal.level("gate1") == 0
    r.pin("entry1").set(1)
    r.ctl.cmd_clear_fault(0)
    assert r.ctl.state == codes.IDLE
    # not in bring-up: a build configured, or walls inside, or a pulse under way
    assert r.ctl.cmd_pin_pulse(gate, 100, m.PIN_NONE) == OK
    assert r.ctl.cmd_pin_pulse(gate, 100, m.PIN_NONE) == (m.E_NOT_ALLOWED, m.NO_FIELD)
    r.run(150)
    assert r.ctl.cmd_configure(1, [4] * r.ctl.ntracks, 2, [], 0) == OK
    assert r.ctl.cmd_pin_pulse(gate, 100, m.PIN_NONE) == (m.E_NOT_ALLOWED, m.NO_FIELD)
    assert r.hal.level("gate1") == 0


def test_read_gives_each_inputs_level_by_number():
    r = Rig()
    names = ["lift_top", "lift_bottom", "entry2", "guard_curtain"]
    pins = [pin_of(r, n) for n in names]
    code, field, levels = r.ctl.cmd_pin_read(pins)
    assert (code, field) == OK
    want = sum(1 << i for i, n in enumerate(names) if r.pin(n).value())
    assert levels == want
    r.pin("entry2").set(1 - r.pin("entry2").value())
    assert r.ctl.cmd_pin_read(pins)[2] == want ^ 4
    # an output's number is no input
    assert r.ctl.cmd_pin_read([pin_of(r, "gate1")])[:2] == (m.E_UNSUPPORTED, 0)
