# A motor's output lines as its profile drives it (docs/FIRMWARE.md §11), turned into the
# (duty, direction) the motion models take: an H-bridge (`<m>_pwm`, `<m>_dir`), one on/off
# output (`<m>_on`: full duty one way) or a reversing relay pair (`<m>_fwd`, `<m>_rev`:
# both on is a short across the supply, reported as a wiring fault, and nothing turns).
from hw_sim.lines import OUT, PWM

FULL = 65535


class MotorLines:
    def __init__(self, table, name, drive, target, pwm_what, dir_what):
        self.table = table
        self.name = name
        self.drive = drive
        self.target = target
        self.pwm_what = pwm_what
        self.dir_what = dir_what
        self.shorts = 0
        if drive == "hbridge":
            self.a = table.add_line(name + "_pwm", PWM, 0, self, 0)
            self.b = table.add_line(name + "_dir", OUT, 0, self, 1)
        elif drive == "relays":
            self.a = table.add_line(name + "_fwd", OUT, 0, self, 0)
            self.b = table.add_line(name + "_rev", OUT, 0, self, 1)
        else:
            self.a = table.add_line(name + "_on", OUT, 0, self, 0)
            self.b = None

    def on_output(self, what, v):
        t = self.target
        if self.drive == "hbridge":
            t.on_output(self.pwm_what if what == 0 else self.dir_what, v)
        elif self.drive == "relays":
            f = self.a.level
            r = self.b.level
            if f and r:
                self.shorts += 1
                self.table.complain("%s_fwd and %s_rev both on: a short across the supply" % (self.name, self.name))
                t.on_output(self.pwm_what, 0)
                return
            if f or r:
                t.on_output(self.pwm_what, 0)
                t.on_output(self.dir_what, 1 if f else 0)
                t.on_output(self.pwm_what, FULL)
            else:
                t.on_output(self.pwm_what, 0)
        else:
            t.on_output(self.dir_what, 1)
            t.on_output(self.pwm_what, FULL if v else 0)

    def level(self):
        """Driven: 1 while the motor is powered."""
        if self.drive == "onoff":
            return self.a.level
        if self.drive == "relays":
            return 1 if (self.a.level or self.b.level) else 0
        return 1 if self.a.level else 0
