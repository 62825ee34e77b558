from firmware.drivers.limit import LimitSwitch
from firmware.fakes import FakePin


def test_pressed_is_low_and_irq_on_press():
    pin = FakePin(level=1)
    hits = []
    sw = LimitSwitch(pin, lambda: hits.append(1))
    assert pin.trigger == FakePin.IRQ_FALLING
    assert not sw.pressed()
    pin.set(0)
    assert sw.pressed() and hits == [1] and sw.presses == 1
    pin.set(1)
    assert hits == [1]


def test_without_callback_no_irq_and_active_high():
    pin = FakePin(level=0)
    sw = LimitSwitch(pin)
    assert pin.handler is None and sw.pressed()
    pin2 = FakePin(level=0)
    hits = []
    sw2 = LimitSwitch(pin2, lambda: hits.append(1), active_low=False)
    assert pin2.trigger == FakePin.IRQ_RISING and not sw2.pressed()
    pin2.set(1)
    assert hits == [1]
