from firmware.fakes import FakeHal
from firmware.reference.mixer import Mixer
from firmware.profile import load


def test_mixer_runs_forward_and_reads_empty():
    p = load(None)
    hal = FakeHal(p)
    m = Mixer(p, hal)
    assert hal.level("mixer_pwm") == 0
    m.start()
    assert hal.pins["mixer_pwm"].duty == 52428 and hal.pins["mixer_dir"].level == 1 and m.running
    assert not m.empty()
    hal.pins["mixer_empty"].set(1)
    assert m.empty()
    m.halt()
    assert hal.level("mixer_pwm") == 0
    assert m.get_status() == {"running": False, "empty": True, "starts": 1}


def test_mixer_without_direction_pin():
    p = load("pi-reference")
    hal = FakeHal(p)
    m = Mixer(p, hal)
    m.start()
    assert m.running
