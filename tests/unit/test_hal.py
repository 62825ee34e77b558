from firmware import hal


def test_signal_table_matches_the_contract():
    names = hal.signal_names(4)
    assert len(names) == 22 + 16  # 3 of them the safety chain's
    assert hal.signal("entry3") == (hal.IN, hal.PULL_UP, False)
    assert hal.signal("guard_curtain") == (hal.IN, hal.PULL_DOWN, False)
    assert hal.signal("lid")[1] == hal.PULL_DOWN
    assert hal.signal("mixer_empty") == (hal.IN, None, False)
    assert hal.signal("lift_current") == (hal.ADC, None, True)
    assert hal.signal("gate12")[0] == hal.OUT
    assert hal.signal("nonsense") is None and hal.signal("gatex") is None
    optional = sorted(n for n in names if hal.signal(n)[2])
    assert optional == sorted(["mixer_dir", "door_open", "lid", "start_button", "dice_button", "status_light",
                               "lift_current", "i2c_sda", "i2c_scl",
                               "interlock", "power_feedback", "watchdog"])
    # the safety chain's: on the chip's own pins (an interrupt, a toggle from the loop)
    assert all(hal.chip_only(n) for n in hal.SAFETY_SIGNALS)
    assert hal.signal("interlock") == (hal.IN, hal.PULL_DOWN, True)


def test_track_signals_and_duty():
    assert hal.track_signals(2) == ["gate1", "entry1", "stacker1", "pusher1", "gate2", "entry2", "stacker2", "pusher2"]
    assert hal.duty_u16(0) == 0 and hal.duty_u16(1.0) == 65535 and hal.duty_u16(0.5) == 32768
    assert hal.duty_u16(2) == 65535 and hal.duty_u16(-1) == 0
