# CPython only
#
# gpiozero's own MockFactory pins wired to the simulated table, so the
# firmware's gpiozero binding (firmware/bindings/gpiozero_hal.py) runs
# unchanged on simulated hardware (docs/SIMULATOR.md "Bindings").
#
#   factory = MockFactory()
#   attach(factory, table)          # before the binding creates its devices
#   hal = GpiozeroHal(factory, profile, i2c=table.bus)
#
# For each pin of the profile, attach() creates the factory's pin with a
# subclass of gpiozero's MockPWMPin (the class MockFactory needs for PWM
# devices; attach() makes it the factory's default pin class too):
#   inputs  the table drives them (MockPin.drive_high / drive_low) at the
#           virtual instant the level changes, so gpiozero calls the device's
#           when_activated / when_deactivated synchronously; the level a pull
#           resistor would give is overridden by the table's (a pressed limit
#           switch reads 0 even though it is pulled up)
#   outputs what the binding writes (pin.state, 0/1 or a PWM fraction) reaches
#           the table as a level or a duty_u16
# A Raspberry Pi has no ADC and its I2C is not a gpiozero device: pass
# table.bus as the binding's i2c (the lift current then comes from the
# ADS1115 model on that bus, profile "current_adc"; the signals on an MCP23017,
# from the expander's model there).
from gpiozero.pins.mock import MockPWMPin

from hw_sim.lines import IN, OUT, PWM

EXPANDER_PINS = 0x100  # an expander's pin in a validated profile (firmware/hal.py)


class SimInputPin(MockPWMPin):
    """An input whose level is the table's (the opposite where the profile inverts it)."""

    sim_line = None
    sim_inv = 0

    def _set_pull(self, value):
        MockPWMPin._set_pull(self, value)
        self._sim_apply()

    def _set_function(self, value):
        MockPWMPin._set_function(self, value)
        if value == "input":
            self._sim_apply()

    def _sim_apply(self):
        ln = self.sim_line
        if ln is None or self._function != "input":
            return
        if ln.level ^ self.sim_inv:
            self.drive_high()
        else:
            self.drive_low()

    def sim_edge(self, level):
        if self._function != "input":
            return
        if level ^ self.sim_inv:
            self.drive_high()
        else:
            self.drive_low()


class SimOutputPin(MockPWMPin):
    """A digital output whose writes reach the table (a PWM fraction written
    to it counts as on from 0.5)."""

    sim_line = None
    sim_inv = 0

    def _change_state(self, value):
        changed = MockPWMPin._change_state(self, value)
        ln = self.sim_line
        if ln is not None and self._function == "output":
            ln.drive((1 if value >= 0.5 else 0) ^ self.sim_inv)
        return changed


class SimPWMPin(MockPWMPin):
    """A PWM output: the state (0..1) reaches the table as duty_u16."""

    sim_line = None
    sim_inv = 0

    def _change_state(self, value):
        changed = MockPWMPin._change_state(self, value)
        ln = self.sim_line
        if ln is not None and self._function == "output":
            v = int(float(value) * 65535 + 0.5)
            v = v if v < 65535 else 65535
            ln.drive(65535 - v if self.sim_inv else v)
        return changed


def attach(factory, table):
    """Create every profile pin in `factory` (a fresh or reset MockFactory)
    and wire it to `table`.  Returns {signal name: pin}."""
    factory.reset()
    # gpiozero refuses a PWM device on a pin of a non-PWM class: every pin here
    # is a MockPWMPin, so the factory's default class must be one too
    factory.pin_class = MockPWMPin
    pins = {}
    for num, name in sorted(table.pin_names.items()):
        ln = table.lines.get(name)
        if ln is None or num >= EXPANDER_PINS:
            continue  # i2c_sda / i2c_scl, an expander's pin: the bus is table.bus
        if ln.kind == IN:
            p = factory.pin(num, pin_class=SimInputPin)
            p.sim_line = ln
            p._sim_apply()
            ln.listener = p
        elif ln.kind == OUT:
            p = factory.pin(num, pin_class=SimOutputPin)
            p.sim_line = ln
        elif ln.kind == PWM:
            p = factory.pin(num, pin_class=SimPWMPin)
            p.sim_line = ln
        else:
            continue  # an ADC pin: a Pi has none
        p.sim_inv = table.wire_invert(name)
        if ln.kind == IN:
            p._sim_apply()
        pins[name] = p
    return pins


def detach(pins):
    """Unwire the pins (a controller reset): the table no longer drives them."""
    for name in pins:
        p = pins[name]
        ln = p.sim_line
        if ln is not None and ln.listener is p:
            ln.listener = None
        p.sim_line = None


def gpiozero_factory(factory_cls=None):
    """A firmware_factory for InProcessTable that runs the firmware on its
    gpiozero binding over a MockFactory wired to the table (the `machine`
    stand-in it is given is ignored)."""
    from gpiozero.pins.mock import MockFactory

    def make(profile, machine, *, clock, link_clock, port, boot_nonce, wdt=None):
        from firmware.app import Firmware
        from firmware.bindings.gpiozero_hal import GpiozeroHal

        table = machine.table
        f = (factory_cls or MockFactory)()
        pins = attach(f, table)
        hal = GpiozeroHal(f, profile, i2c=table.bus)
        fw = Firmware(profile, hal, clock=clock, link_clock=link_clock, port=port, boot_nonce=boot_nonce, wdt=wdt)
        fw.sim_pins = pins
        fw.sim_factory = f
        fw.sim_detach = lambda: detach(pins)
        return fw

    return make
