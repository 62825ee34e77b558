# A small scripted controller that drives the simulated table through the
# `machine` stand-in, without the firmware or the protocol.  It is what the
# simulator's own tests and the physics-only bench use to exercise the
# mechanics; it has the runner interface of firmware.app.Firmware (step,
# next_due_us, get_status, shutdown) and is commanded by method calls:
#
#   c.build(stacks)      open every gate, run the mixer, count, stack, push,
#                        close each gate at its count, stop when all are done
#   c.raise_walls()      lift up to the top switch, then back to the bottom
#   c.hand_over()        door open + lift up together; door closes, lift returns
#
# It is deliberately simple (a reference for timing, not the product).
NEVER = 1 << 60


class ScriptedController:
    def __init__(self, profile, machine, clock, *, duty=52428, debounce_ms=3, colour_delay_ms=8):
        self.profile = profile
        self.m = machine
        self.clock = clock
        P = machine.Pin
        pins = profile["pins"]
        t = profile["timings_ms"]
        self.stacker_ms = t["stacker"]
        self.pusher_ms = t["pusher"]
        self.deb_us = debounce_ms * 1000
        self.colour_delay_us = colour_delay_ms * 1000
        self.duty = duty
        self.n = profile["tracks"]
        self.gates = []
        self.stackers = []
        self.pushers = []
        self.entries = []
        self._handlers = []
        for k in range(self.n):
            s = str(k + 1)
            self.gates.append(P(pins["gate" + s], P.OUT, value=0))
            self.stackers.append(P(pins["stacker" + s], P.OUT, value=0))
            self.pushers.append(P(pins["pusher" + s], P.OUT, value=0))
            e = P(pins["entry" + s], P.IN, P.PULL_UP)
            self.entries.append(e)
            h = self._entry_handler(k)
            self._handlers.append(h)
            e.irq(h, P.IRQ_FALLING | P.IRQ_RISING)
        self.mixer_pwm = machine.PWM(P(pins["mixer_pwm"], P.OUT), freq=20000, duty_u16=0)
        self.mixer_dir = P(pins["mixer_dir"], P.OUT, value=1)
        self.mixer_empty = P(pins["mixer_empty"], P.IN)
        self.lift_pwm = machine.PWM(P(pins["lift_pwm"], P.OUT), freq=20000, duty_u16=0)
        self.lift_dir = P(pins["lift_dir"], P.OUT, value=0)
        self.lift_top = P(pins["lift_top"], P.IN, P.PULL_UP)
        self.lift_bottom = P(pins["lift_bottom"], P.IN, P.PULL_UP)
        self.door_pwm = machine.PWM(P(pins["door_pwm"], P.OUT), freq=20000, duty_u16=0)
        self.door_dir = P(pins["door_dir"], P.OUT, value=0)
        self.door_closed = P(pins["door_closed"], P.IN, P.PULL_UP)
        self.door_open = P(pins["door_open"], P.IN, P.PULL_UP)
        opts = profile.get("pin_options") or {}

        def pull(name):  # the profile's own (an external resistor: none), else a pull-down
            o = opts.get(name)
            return P.PULL_DOWN if o is None or o.get("pull", "down") == "down" else None

        self.curtain = P(pins["guard_curtain"], P.IN, pull("guard_curtain"))
        self.lid = P(pins["lid"], P.IN, pull("lid"))
        self._guard_h = self._guard
        self.curtain.irq(self._guard_h, P.IRQ_FALLING)
        self.lid.irq(self._guard_h, P.IRQ_FALLING)
        self._top_h = self._at_top
        self._bottom_h = self._at_bottom
        self._open_h = self._door_at_open
        self._closed_h = self._door_at_closed
        self.lift_top.irq(self._top_h, P.IRQ_FALLING)
        self.lift_bottom.irq(self._bottom_h, P.IRQ_FALLING)
        self.door_open.irq(self._open_h, P.IRQ_FALLING)
        self.door_closed.irq(self._closed_h, P.IRQ_FALLING)
        self.i2c = machine.I2C(0)
        i2c = profile["i2c"]
        self.mux = i2c["mux_addr"]
        self.addr = i2c["sensor_addr"]
        self._sel = [bytearray((1 << k,)) for k in range(self.n)]
        self._buf = bytearray(8)
        one = bytearray(1)
        for k in range(self.n):
            self.i2c.writeto(self.mux, self._sel[k])
            one[0] = 0xFF
            self.i2c.writeto_mem(self.addr, 0x81, one)
            one[0] = 0x03
            self.i2c.writeto_mem(self.addr, 0x80, one)
        cal = profile["calibration"]
        self.refs = [cal["refs"][c] for c in profile["colours"]]
        self.max_d2 = cal["max_distance"] ** 2
        self.min_clear = cal["min_clear"]
        # state
        self.target = 0
        self.count = [0] * self.n
        self.pending = [0] * self.n
        self.stacked = [0] * self.n
        self.busy = [False] * self.n  # stacker or pusher running
        self.last_edge = [-NEVER] * self.n
        self.last_rise = [-NEVER] * self.n
        self.colours = []
        for _ in range(self.n):
            self.colours.append([])
        self.building = False
        self.build_done_us = -1
        self.builds_done = 0
        self.lift_phase = None  # "up", "down", None
        self.lift_done = 0
        self.door_phase = None
        self.halted = False
        self._timers = []  # [due_us, fn, arg]
        self.events = []
        # the safety chain's watchdog (hw_sim/power.py): toggled as the firmware's loop
        # does, so the relays hold the motors' supply
        self.watchdog = None
        if pins.get("watchdog") is not None:
            self.watchdog = P(pins["watchdog"], P.OUT, value=0)
            self._wd_us = profile["safety"]["watchdog_toggle_ms"] * 1000
            self._wd_h = self._toggle
            self._toggle(None)

    def _toggle(self, arg):
        self.watchdog.value(1 - self.watchdog.value())
        self._after(self._wd_us, self._wd_h)

    # -- runner interface ------------------------------------------------------
    def step(self):
        now = self.clock.now_us()
        tm = self._timers
        while tm and tm[0][0] <= now:
            e = tm.pop(0)
            e[1](e[2])

    def next_due_us(self):
        if not self._timers:
            return None
        return self.clock.ticks_of(self._timers[0][0])

    def get_status(self):
        return {"count": list(self.count), "stacked": list(self.stacked), "building": self.building,
                "lift": self.lift_phase, "door": self.door_phase, "halted": self.halted}

    def shutdown(self):
        self.mixer_pwm.duty_u16(0)
        self.lift_pwm.duty_u16(0)
        self.door_pwm.duty_u16(0)
        for g in self.gates:
            g.value(0)

    def _after(self, us, fn, arg=None):
        due = self.clock.now_us() + us
        tm = self._timers
        i = len(tm)
        while i > 0 and tm[i - 1][0] > due:
            i -= 1
        tm.insert(i, [due, fn, arg])

    # -- build -----------------------------------------------------------------
    def build(self, stacks):
        self.target = 2 * stacks
        for k in range(self.n):
            self.count[k] = 0
            self.pending[k] = 0
            self.stacked[k] = 0
            self.colours[k] = []
            self.gates[k].value(1)
        self.building = True
        self.build_done_us = -1
        self.mixer_dir.value(1)
        self.mixer_pwm.duty_u16(self.duty)

    def _entry_handler(self, k):
        def h(pin):
            now = self.clock.now_us()
            if pin.value():
                self.last_rise[k] = now
                return
            if now - self.last_rise[k] < self.deb_us or now - self.last_edge[k] < self.deb_us:
                return
            self.last_edge[k] = now
            if not self.building:
                return
            self.count[k] += 1
            if self.count[k] >= self.target:
                self.gates[k].value(0)
            self.pending[k] += 1
            self._after(self.colour_delay_us, self._read_colour, k)
        return h

    def _read_colour(self, k):
        self.i2c.writeto(self.mux, self._sel[k])
        self.i2c.readfrom_mem_into(self.addr, 0xB4, self._buf)
        b = self._buf
        c = b[0] | (b[1] << 8)
        r = b[2] | (b[3] << 8)
        g = b[4] | (b[5] << 8)
        bl = b[6] | (b[7] << 8)
        s = r + g + bl
        cls = 0
        if c >= self.min_clear and s > 0:
            best = self.max_d2
            for i in range(len(self.refs)):
                ref = self.refs[i]
                d2 = (r / s - ref[0]) ** 2 + (g / s - ref[1]) ** 2 + (bl / s - ref[2]) ** 2
                if d2 <= best:
                    best = d2
                    cls = i + 1
        self.colours[k].append(cls)
        if not self.busy[k]:
            self._next_stack(k)

    def _next_stack(self, k):
        if self.pending[k] == 0:
            self.busy[k] = False
            self._check_done()
            return
        self.busy[k] = True
        self.stackers[k].value(1)
        self._after(self.stacker_ms * 1000, self._stacked, k)

    def _stacked(self, k):
        self.stackers[k].value(0)
        self.pending[k] -= 1
        self.stacked[k] += 1
        if self.stacked[k] % 2 == 0:
            self.pushers[k].value(1)
            self._after(self.pusher_ms * 1000, self._pushed, k)
        else:
            self._next_stack(k)

    def _pushed(self, k):
        self.pushers[k].value(0)
        self._next_stack(k)

    def _check_done(self):
        if not self.building:
            return
        for k in range(self.n):
            if self.stacked[k] < self.target or self.busy[k]:
                return
        self.building = False
        self.mixer_pwm.duty_u16(0)
        self.build_done_us = self.clock.now_us()
        self.builds_done += 1
        self.events.append(("build_done", self.build_done_us))

    # -- lift and door ---------------------------------------------------------
    def raise_walls(self):
        if self.halted:
            return
        self.lift_phase = "up"
        self.lift_dir.value(1)
        self.lift_pwm.duty_u16(65535)

    def hand_over(self):
        if self.halted:
            return
        self.door_phase = "opening"
        self.door_dir.value(1)
        self.door_pwm.duty_u16(45875)
        self.raise_walls()

    def _at_top(self, pin):
        if self.lift_phase == "up":
            self.lift_pwm.duty_u16(0)
            self.lift_phase = "top"
            self._after(200000, self._lower)

    def _lower(self, arg):
        if self.halted:
            return
        self.lift_phase = "down"
        self.lift_dir.value(0)
        self.lift_pwm.duty_u16(65535)

    def _at_bottom(self, pin):
        if self.lift_phase == "down":
            self.lift_pwm.duty_u16(0)
            self.lift_phase = None
            self.lift_done += 1
            self.events.append(("lift_done", self.clock.now_us()))

    def _door_at_open(self, pin):
        if self.door_phase == "opening":
            self.door_pwm.duty_u16(0)
            self.door_phase = "open"
            self._after(1500000, self._close_door)

    def _close_door(self, arg):
        if self.halted:
            return
        self.door_phase = "closing"
        self.door_dir.value(0)
        self.door_pwm.duty_u16(45875)

    def _door_at_closed(self, pin):
        if self.door_phase == "closing":
            self.door_pwm.duty_u16(0)
            self.door_phase = None

    def _guard(self, pin):
        self.lift_pwm.duty_u16(0)
        self.door_pwm.duty_u16(0)
        self.halted = True
