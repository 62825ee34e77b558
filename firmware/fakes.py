# Test doubles for the firmware's hardware: a clock you move by hand, pins,
# PWM, ADC, an I2C bus with a TCA9548A mux and TCS34725 sensors, a port, and
# FakeHal (the binding interface of firmware/hal.py over them).  Used by the
# unit tests, the MicroPython scripts (tests/mpy) and for trying a board
# profile without hardware.  Nothing here allocates after construction in the
# paths the firmware's per-tile code uses (pin value/irq, I2C reads, port
# write), so the heap_lock test can run through them.
from firmware import hal as _hal
from firmware.compat import TICKS_MASK


class FakeClock:
    def __init__(self, start_us=0):
        self.us = start_us

    def ticks_us(self):
        return self.us & TICKS_MASK

    def ticks_ms(self):
        return (self.us // 1000) & TICKS_MASK

    def advance(self, ms):
        self.us += ms * 1000

    def advance_us(self, us):
        self.us += us


class FakePin:
    """A machine.Pin stand-in.  Outputs: value(v) records; inputs: set(level)
    changes the level and calls the IRQ handler as hardware would."""

    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, name="", level=0):
        self.name = name
        self.level = level
        self.handler = None
        self.trigger = 0
        self.writes = 0
        self.edges = 0

    def value(self, v=None):
        if v is None:
            return self.level
        self.level = 1 if v else 0
        self.writes += 1
        return None

    def irq(self, handler=None, trigger=12, hard=False):
        self.handler = handler
        self.trigger = trigger
        self.hard = hard
        return self

    def set(self, level):
        """Drive an input (the outside world)."""
        level = 1 if level else 0
        if level == self.level:
            return
        self.level = level
        h = self.handler
        if h is None:
            return
        if level and (self.trigger & 8):
            self.edges += 1
            h(self)
        elif not level and (self.trigger & 4):
            self.edges += 1
            h(self)


class FakePWM:
    def __init__(self, name=""):
        self.name = name
        self.duty = 0
        self.f = 0
        self.writes = 0

    def duty_u16(self, v=None):
        if v is None:
            return self.duty
        self.duty = v
        self.writes += 1
        return None

    def freq(self, f=None):
        if f is None:
            return self.f
        self.f = f
        return None


class FakeADC:
    def __init__(self, value=0):
        self.v = value

    def read_u16(self):
        return self.v


class FakeI2C:
    """One bus: a TCA9548A at mux_addr and a TCS34725 at sensor_addr behind each
    channel.  readings[ch] = [clear, red, green, blue] is what channel ch's
    sensor reads now; absent[ch] = True makes it not answer (OSError)."""

    def __init__(self, channels=4, *, mux_addr=0x70, sensor_addr=0x29):
        self.mux_addr = mux_addr
        self.sensor_addr = sensor_addr
        self.ctrl = 0
        self.readings = []
        self.absent = []
        self.regs = []
        for _ in range(channels):
            self.readings.append([0, 0, 0, 0])
            self.absent.append(False)
            self.regs.append(bytearray(32))
        self.reads = 0
        self.writes = 0
        self.mux_writes = 0
        self.ads = {}  # ADS1115s on the main bus: addr -> conversion value (u16, as read_u16)

    def _sensor(self):
        c = self.ctrl
        ch = 0
        while c and not (c & 1):
            c >>= 1
            ch += 1
        if not self.ctrl or ch >= len(self.readings) or self.absent[ch]:
            raise OSError(19)
        return ch

    def writeto(self, addr, buf):
        if addr != self.mux_addr:
            raise OSError(19)
        self.ctrl = buf[0]
        self.mux_writes += 1
        return 1

    def writeto_mem(self, addr, reg, buf):
        if addr in self.ads:
            return
        if addr != self.sensor_addr:
            raise OSError(19)
        ch = self._sensor()
        self.regs[ch][reg & 0x1F] = buf[0]
        self.writes += 1

    def readfrom_mem_into(self, addr, reg, buf):
        if addr in self.ads:
            v = self.ads[addr] >> 1
            buf[0] = (v >> 8) & 0xFF
            buf[1] = v & 0xFF
            return
        if addr != self.sensor_addr:
            raise OSError(19)
        ch = self._sensor()
        rd = self.readings[ch]
        i = 0
        for v in rd:
            buf[i] = v & 0xFF
            buf[i + 1] = (v >> 8) & 0xFF
            i += 2
        self.reads += 1

    def set_colour(self, ch, r, g, b, clear=1000):
        """Channel ch sees normalised r, g, b (0..1) at a clear count."""
        rd = self.readings[ch]
        rd[0] = clear
        rd[1] = int(clear * r)
        rd[2] = int(clear * g)
        rd[3] = int(clear * b)


class FakePort:
    """A protocol port: the host puts bytes with feed(), takes what the
    firmware wrote with take().  write() copies into a preallocated ring."""

    def __init__(self, size=2048):
        self._in = bytearray(size)
        self._in_r = 0
        self._in_n = 0
        self._out = bytearray(size)
        self._out_n = 0
        self.overflow = 0

    # host side
    def feed(self, data):
        size = len(self._in)
        for b in data:
            if self._in_n >= size:
                self.overflow += 1
                continue
            self._in[(self._in_r + self._in_n) % size] = b
            self._in_n += 1

    def take(self):
        out = bytes(self._out[0:self._out_n])
        self._out_n = 0
        return out

    # device side
    def any(self):
        return self._in_n

    def readinto(self, buf):
        n = 0
        size = len(self._in)
        lim = len(buf)
        while n < lim and self._in_n:
            buf[n] = self._in[self._in_r]
            self._in_r = (self._in_r + 1) % size
            self._in_n -= 1
            n += 1
        return n if n else None

    def write(self, buf):
        out = self._out
        k = self._out_n
        n = len(buf)
        i = 0
        while i < n and k < len(out):
            out[k] = buf[i]
            k += 1
            i += 1
        self.overflow += n - i
        self._out_n = k
        return n


# Resting levels of the inputs of a table at rest: beams clear, lift at the
# bottom, door closed, guard safe, buttons released, mixer holding tiles.
_REST = {
    "mixer_empty": 0,
    "lift_top": 1,
    "lift_bottom": 0,
    "door_closed": 0,
    "door_open": 1,
    "guard_curtain": 1,
    "lid": 1,
    "start_button": 1,
    "dice_button": 1,
}


def _rest_fourport(name):
    """A four-port input's level at rest: lifts down, cams home, the centre closed."""
    if name.endswith("_bottom") or name.startswith("home") or name == "centre_closed" or name == "disc_empty":
        return 0
    return 1


class FakeHal:
    """The binding interface (firmware/hal.py) over fakes, from a validated
    profile.  pins[name] is the fake behind each signal (None when null)."""

    def __init__(self, profile, *, i2c=True):
        self.profile = profile
        self.pins = {}
        p = profile["pins"]
        self._i2c = None
        if i2c and p["i2c_sda"] is not None:
            i = profile["i2c"]
            self._i2c = FakeI2C(profile["tracks"], mux_addr=i["mux_addr"], sensor_addr=i["sensor_addr"])
        for name in _hal.profile_signals(profile):
            kind = _hal.signal(name)[0]
            if p[name] is None and not (name == "lift_current" and profile.get("current_adc")):
                self.pins[name] = None
            elif kind == _hal.OUT:
                self.pins[name] = FakePin(name, 0)
            elif kind == _hal.PWM:
                self.pins[name] = FakePWM(name)
            elif kind == _hal.IN:
                self.pins[name] = FakePin(name, _REST.get(name, _rest_fourport(name)))
            elif kind == _hal.ADC:
                self.pins[name] = FakeADC(1000)
            else:
                self.pins[name] = None
        self.created = []

    def _get(self, name):
        self.created.append(name)
        return self.pins[name]

    def output(self, name):
        return self._get(name)

    def pwm(self, name):
        return self._get(name)

    def input(self, name):
        return self._get(name)

    def adc(self, name):
        return self._get(name)

    def i2c(self):
        return self._i2c

    def all_off(self):
        for name in self.pins:
            obj = self.pins[name]
            if isinstance(obj, FakePWM):
                obj.duty_u16(0)
            elif obj is not None and _hal.signal(name)[0] == _hal.OUT:
                obj.value(0)

    def level(self, name):
        """An output's level (PWM: 1 when the duty is not 0)."""
        obj = self.pins[name]
        if isinstance(obj, FakePWM):
            return 1 if obj.duty else 0
        return obj.level


class Recorder:
    """An events sink (controller.NullEvents's methods) that keeps every event
    as (name, args...) in .events."""

    def __init__(self):
        self.events = []

    def on_state(self, state, prev):
        self.events.append(("state", state, prev))

    def on_tile(self, build_id, track, index, colour, c, r, g, b):
        self.events.append(("tile", build_id, track, index, colour))

    def on_track_full(self, build_id, track, count):
        self.events.append(("track_full", build_id, track, count))

    def on_build_done(self, build_id, counts, mixer_empty):
        self.events.append(("build_done", build_id, list(counts), mixer_empty))

    def on_lift_done(self, position):
        self.events.append(("lift_done", position))

    def on_door_state(self, state):
        self.events.append(("door_state", state))

    def on_guard(self, curtain, lid):
        self.events.append(("guard", curtain, lid))

    def on_safety(self, chain, power, relay_stuck):
        self.events.append(("safety", chain, power, relay_stuck))

    def on_guard_stop(self, motor, inp, at_ms, off_us, cut_us):
        self.events.append(("guard_stop", motor, inp, at_ms, off_us, cut_us))

    def on_fault(self, code, track, detail):
        self.events.append(("fault", code, track, detail))

    def on_self_test(self, kind, index, result, value):
        self.events.append(("self_test", kind, index, result, value))

    def on_button(self, button):
        self.events.append(("button", button))

    def on_lift_stroke(self, position, ms, peak_current):
        self.events.append(("lift_stroke", position, ms, peak_current))

    def on_log(self, level, text):
        self.events.append(("log", level, text))

    def named(self, name):
        return [e for e in self.events if e[0] == name]

    def clear(self):
        self.events = []


class Rig:
    """A controller on fakes, stepped like a runner: run(ms) advances the fake
    clock from deadline to deadline, stepping at each.  tile(track, colour)
    passes one tile through a track's entry beam and colour sensor."""

    def __init__(self, profile=None, *, colours=None):
        from firmware import profile as _profile
        from firmware.sched import Scheduler
        from firmware.controller import Controller

        self.profile = _profile.load(profile)
        self.clock = FakeClock(1000000)
        self.hal = FakeHal(self.profile)
        self.hal.all_off()
        self.sched = Scheduler(self.clock)
        self.rec = Recorder()
        self.ctl = Controller(self.profile, self.hal, self.sched, self.clock, events=self.rec)
        self.ctl.boot()
        cal = self.profile["calibration"]["refs"]
        self.refs = [cal[c] for c in self.profile["colours"]]

    def pin(self, name):
        return self.hal.pins[name]

    def step(self):
        self.ctl.service()
        self.sched.run()
        self.ctl.service()

    def run(self, ms):
        from firmware.compat import ticks_diff

        end = self.clock.us + int(ms * 1000)
        spins = 0
        while True:
            self.step()
            if self.ctl.pending():
                spins += 1
                if spins > 1000:
                    raise RuntimeError("controller stays pending")
                continue
            spins = 0
            if self.clock.us >= end:
                return
            nd = self.sched.next_due_us()
            t = end
            if nd is not None:
                d = ticks_diff(nd, self.clock.ticks_us())
                if d < 0:
                    d = 0
                if self.clock.us + d < end:
                    t = self.clock.us + d
            self.clock.us = t

    def see(self, track, colour):
        """Track `track`'s sensor sees colour class `colour` (0 = ambient)."""
        bus = self.hal.i2c()
        if colour <= 0:
            bus.set_colour(track - 1, 0.33, 0.34, 0.33, clear=30)
        else:
            r = self.refs[colour - 1]
            bus.set_colour(track - 1, r[0], r[1], r[2], clear=1000)

    def tile(self, track, colour=1, beam_ms=30):
        """One tile enters track `track`: beam dark for beam_ms, its back seen."""
        self.see(track, colour)
        e = self.pin("entry" + str(track))
        e.set(0)
        self.run(beam_ms)
        e.set(1)
        self.step()

    def feed(self, track, n, colour=1, gap_ms=250):
        for _ in range(n):
            self.tile(track, colour)
            self.run(gap_ms - 30)
