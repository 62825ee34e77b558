# The protocol endpoint: a protocol.link.Link in the device role over the port
# (docs/ARCHITECTURE.md §5, §6; protocol/SPEC.md).
#
# Commands from the host become controller actions (each answered by a RESULT
# the Link sends from the (code, field) the handler returns); the controller's
# events become event messages.  Every event kind has its own preallocated
# values list, refilled and handed to Link.send(), which copies it into a
# frame: sending a TILE event allocates nothing.
#
# The port: any(), readinto(buf) -> n or None, write(buf) (docs/ARCHITECTURE.md §6).
from firmware.compat import implementation, ticks_add, ticks_diff
from protocol import messages as _m
from protocol import link as _link

FIRMWARE_VERSION = "0.1.0"
FIRMWARE_NAME = "jantaku " + FIRMWARE_VERSION  # IDENTITY.firmware (<= 16 bytes)

_RX = 32  # bytes taken from the port per read (more are taken in further reads)


class Endpoint:
    def __init__(self, ctl, port, link_clock, profile, *, boot_nonce=None, link=None):
        self.ctl = ctl
        self._port = port
        self._link_clock = link_clock
        # the link's next deadline (link clock ms), valid while link_known: the
        # link's timers change only in feed(), send() and poll(), all called from
        # here, so poll() is skipped until then (it would find nothing to do)
        self._link_due = 0
        self.link_known = False
        self._rx = bytearray(_RX)
        mv = memoryview(self._rx)
        self._rxv = [mv[0:n] for n in range(_RX + 1)]
        self.exit_requested = False
        # a REPL to give the port back to (SPEC §9): only the board's main loop
        # (firmware/main.py) has one; elsewhere (a Pi, the simulator) EXIT_REPL is
        # refused with E_UNSUPPORTED and the table keeps running
        self.repl = False
        self.tx_bytes = 0
        self.tx_short = 0  # writes the port took only in part
        self.rx_bytes = 0
        self.commands = 0
        # values lists, one per event kind (refilled, never reallocated)
        self._v_tile = [0] * 8
        self._v_full = [0] * 3
        self._v_done = [0, None, 0]
        self._v_state = [0, 0]
        self._v_lift = [0]
        self._v_stroke = [0, 0, 0]
        self._v_door = [0]
        self._v_guard = [0, 0]
        self._v_gstop = [0, 0, 0, 0, 0]
        self._v_safety = [0, 0, 0]
        self._v_fault = [0, 0, 0]
        self._v_test = [0, 0, 0, 0]
        self._v_button = [0]
        self._v_log = [0, ""]
        self._v_status = [0, 0, 0, 0, 0, None, None]
        self._write_cb = self._write
        self._message_cb = self._on_message
        self._link_cb = self._on_link
        if link is None:
            t = profile["timings_ms"]
            o = profile["timeouts_ms"]
            impl, ver = implementation()
            identity = {
                "firmware": FIRMWARE_NAME,
                "board": profile["id"],
                "tracks": profile["tracks"],
                "max_stacks": profile["max_stacks"],
                "colours": len(profile["colours"]),
                # ABOUT, seq 1 of the handshake: the runtime and the colour names
                "implementation": impl[:12],
                "version": ver[:12],
                "colour_names": ",".join(profile["colours"]),
            }
            link = _link.Link(link_clock, self._write_cb, self._message_cb, role="device",
                              on_link=self._link_cb, heartbeat_ms=t["heartbeat"], silence_ms=o["link"],
                              boot_nonce=boot_nonce, identity=identity)
        self.link = link
        self.boot_nonce = link.boot_nonce
        # command dispatch: msgid -> handler(values) -> (code, field)
        self._handlers = {
            _m.STATUS: self._h_status,
            _m.CONFIGURE_BUILD: self._h_configure,
            _m.MIX: self._h_mix,
            _m.BUILD: self._h_build,
            _m.LIFT: self._h_lift,
            _m.DOOR: self._h_door,
            _m.STOP: self._h_stop,
            _m.ABORT: self._h_abort,
            _m.CLEAR_FAULT: self._h_clear,
            _m.SELF_TEST: self._h_test,
            _m.CALIBRATE: self._h_calibrate,
            _m.EXIT_REPL: self._h_exit,
            _m.LIGHT: self._h_light,
            _m.SET_CALIBRATION: self._h_set_cal,
            _m.SET_COLOUR_NAMES: self._h_names,
            _m.PIN_PULSE: self._h_pin_pulse,
            _m.PIN_READ: self._h_pin_read,
        }
        ctl.events = self
        link.table_state = ctl.state

    # ---------------------------------------------------------------- port I/O
    def _write(self, buf, n):
        # buf is the link's cached view of exactly the n frame bytes; the port
        # copies them (into its FIFO, or onto the wire) before returning
        w = self._port.write(buf)
        if w is not None and w < n:
            self.tx_short += 1  # the rest is lost; the link retransmits
        self.tx_bytes += n

    def rx_pending(self):
        return bool(self._port.any())

    def poll_port(self):
        """Feed everything the port has to the link (commands run from here)."""
        port = self._port
        rounds = 0
        while rounds < 32 and port.any():
            n = port.readinto(self._rx)
            if not n:
                break
            self.rx_bytes += n
            self.link_known = False
            self.link.feed(self._rxv[n])
            rounds += 1

    def poll_link(self):
        """Run the link's timers (retransmits, heartbeats, silence) when due."""
        if self.link_known and ticks_diff(self._link_due, self._link_clock.ticks_ms()) > 0:
            return
        link = self.link
        d = link.next_due_ms()
        if d == 0:
            # (a feed or a send since the last look makes nothing due at once: it
            # only moves deadlines, so poll() runs when one is reached)
            link.poll()
            d = link.next_due_ms()
        # (if poll() sent, its send marked the deadline unknown: known again here)
        self._link_due = ticks_add(self._link_clock.ticks_ms(), d)
        self.link_known = True

    # On the mechanics' own clock (a board, the in-process simulator) the link's
    # deadline is a scheduler timer instead: the task loop then looks at the link
    # only when it changed (arm_link, after a feed or a send) or when its timer
    # fires, not on every step.
    def use_timer(self, sched):
        """Drive the link from a timer of sched (whose clock is the link's)."""
        self._link_timer = sched.timer(self._link_timer_due)
        self.link_known = False
        self.arm_link()

    def _link_timer_due(self):
        self.link.poll()
        self.link_known = False  # (poll may have sent) arm_link() looks again

    def arm_link(self):
        """(Timer mode) start the link's timer for its next deadline.  Call it
        when link_known is down: the link changed since the timer was started
        (Firmware.step() looks at the flag first, on every step)."""
        link = self.link
        d = link.next_due_ms()
        if d == 0:
            link.poll()  # (as in poll_link: only a deadline reached is due)
            d = link.next_due_ms()
        self.link_known = True
        due = ticks_add(self._link_clock.ticks_ms(), d)
        t = self._link_timer
        if t.active and due == self._link_due:
            return  # the same deadline (e.g. a frame that moved no timer): set already
        self._link_due = due
        t.start(d)

    # ---------------------------------------------------------------- link callbacks
    def _on_link(self, ev):
        if ev == _link.LOST:
            self.ctl.on_link_lost()
        elif ev == _link.UP or ev == _link.NEW:
            self.ctl.on_link_up(ev == _link.NEW)

    def _on_message(self, msgid, values):
        self.commands += 1
        h = self._handlers.get(msgid)
        if h is None:
            return _m.E_UNKNOWN_MSG, _m.NO_FIELD
        try:
            return h(values)
        except Exception as e:  # a firmware bug: everything stops, the host is told
            self.ctl.internal_fault(msgid, e)
            return _m.E_INTERNAL, _m.NO_FIELD

    # ---------------------------------------------------------------- commands
    def _h_status(self, values):
        self.send_status()
        return _m.OK, _m.NO_FIELD

    def send_status(self):
        c = self.ctl
        v = self._v_status
        v[0] = c.state
        v[1] = c.fault
        v[2] = c.cfg_id
        v[3] = 1 if c.paused else 0
        d = self.link.dropped
        v[4] = d if d < 0xFFFF else 0xFFFF
        v[5] = c.targets()
        v[6] = c.counts_view()
        self.link_known = False
        return self.link.send(_m.STATUS_REPLY, v)

    def _h_configure(self, v):
        return self.ctl.cmd_configure(v[0], v[1], v[2], v[3], v[4])

    def _h_mix(self, v):
        return self.ctl.cmd_mix(v[0])

    def _h_build(self, v):
        return self.ctl.cmd_build(v[0])

    def _h_lift(self, v):
        return self.ctl.cmd_lift()

    def _h_door(self, v):
        return self.ctl.cmd_door(v[0])

    def _h_stop(self, v):
        return self.ctl.cmd_stop()

    def _h_abort(self, v):
        return self.ctl.cmd_abort()

    def _h_clear(self, v):
        return self.ctl.cmd_clear_fault(v[0])

    def _h_test(self, v):
        return self.ctl.cmd_self_test(v[0], v[1])

    def _h_calibrate(self, v):
        return self.ctl.cmd_calibrate(v[0], v[1])

    def _h_light(self, v):
        return self.ctl.cmd_light(v[0])

    def _h_set_cal(self, v):
        return self.ctl.cmd_set_calibration(v[0], v[1], v[2], None)

    def _h_names(self, v):
        r = self.ctl.cmd_set_calibration(None, None, None, v[0])
        if r[0] == _m.OK:
            self.link.set_colour_names(v[0])  # ABOUT from the next handshake on
        return r

    def _h_pin_pulse(self, v):
        return self.ctl.cmd_pin_pulse(v[0], v[1], v[2])

    def _h_pin_read(self, v):
        code, field, levels = self.ctl.cmd_pin_read(v[0])
        if code == _m.OK:
            # the reply, queued before the RESULT (SPEC §9), as a self-test's reading
            self._send(_m.PIN_LEVELS, [len(v[0]), levels])
        return code, field

    def _h_exit(self, v):
        if not self.repl:
            return _m.E_UNSUPPORTED, _m.NO_FIELD
        # every motor off, then the board's main loop returns to the REPL
        self.ctl.shutdown()
        self.exit_requested = True
        return _m.OK, _m.NO_FIELD

    # ---------------------------------------------------------------- events (controller sink)
    def _send(self, msgid, values):
        # Before the first session (since boot) nobody listens: nothing to count as
        # dropped.  In a session a full window is counted (the host resyncs with STATUS).
        if self.link.session:
            self.link_known = False
            self.link.send(msgid, values)

    def on_state(self, state, prev):
        self.link.table_state = state
        v = self._v_state
        v[0] = state
        v[1] = prev
        self._send(_m.STATE, v)

    def on_tile(self, build_id, track, index, colour, c, r, g, b):
        v = self._v_tile
        v[0] = build_id
        v[1] = track
        v[2] = index if index < 255 else 255
        v[3] = colour
        v[4] = c
        v[5] = r
        v[6] = g
        v[7] = b
        self._send(_m.TILE, v)

    def on_track_full(self, build_id, track, count):
        v = self._v_full
        v[0] = build_id
        v[1] = track
        v[2] = count if count < 255 else 255
        self._send(_m.TRACK_FULL, v)

    def on_build_done(self, build_id, counts, mixer_empty):
        v = self._v_done
        v[0] = build_id
        v[1] = counts
        v[2] = mixer_empty
        self._send(_m.BUILD_DONE, v)

    def on_lift_done(self, position):
        self._v_lift[0] = position
        self._send(_m.LIFT_DONE, self._v_lift)

    def on_lift_stroke(self, position, ms, peak_current):
        v = self._v_stroke
        v[0] = position
        v[1] = ms
        v[2] = peak_current
        self._send(_m.LIFT_STROKE, v)

    def on_guard_stop(self, motor, inp, at_ms, off_us, cut_us):
        v = self._v_gstop
        v[0] = motor
        v[1] = inp
        v[2] = at_ms
        v[3] = off_us
        v[4] = cut_us
        self._send(_m.GUARD_STOP, v)

    def on_safety(self, chain, power, relay_stuck):
        v = self._v_safety
        v[0] = chain
        v[1] = power
        v[2] = relay_stuck
        self._send(_m.SAFETY, v)

    def on_door_state(self, state):
        self._v_door[0] = state
        self._send(_m.DOOR_STATE, self._v_door)

    def on_guard(self, curtain, lid):
        v = self._v_guard
        v[0] = curtain
        v[1] = lid
        self._send(_m.GUARD, v)

    def on_fault(self, code, track, detail):
        v = self._v_fault
        v[0] = code
        v[1] = track
        v[2] = detail
        self._send(_m.FAULT, v)

    def on_self_test(self, kind, index, result, value):
        v = self._v_test
        v[0] = kind
        v[1] = index
        v[2] = result
        v[3] = value & 0xFFFFFFFF
        self._send(_m.SELF_TEST_RESULT, v)

    def on_button(self, button):
        self._v_button[0] = button
        self._send(_m.BUTTON, self._v_button)

    def on_log(self, level, text):
        v = self._v_log
        while len(text.encode()) > 54:
            text = text[:-1]
        v[0] = level
        v[1] = text
        self._send(_m.LOG, v)

    def get_status(self):
        d = self.link.stats()
        d["tx_bytes"] = self.tx_bytes
        d["rx_bytes"] = self.rx_bytes
        d["tx_short"] = self.tx_short
        d["commands"] = self.commands
        d["boot_nonce"] = self.boot_nonce
        return d
