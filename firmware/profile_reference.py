# CPython only
"""What each board-profile key means and in what unit: the host's half of the profile
reference (docs/FIRMWARE.md §3).  The ranges and defaults are the schema's
(firmware/profile_check.py, staged to boards, so it carries no prose); this module is
never staged.  firmware/profile_doc.py joins the two into the documents' table.

KEYS: "section.key" -> (unit, meaning).  A per-track pin is "pins.gate<n>"; a colour's
reference "calibration.refs.<colour>"."""

TIME = "ms"
ADDR = "7-bit I2C address"

KEYS = {
    "id": ("text", "the board's id: names its profile file (`firmware/boards/<id>.json` on the "
                   "board and on the host) and is sent in IDENTITY"),
    "description": ("text", "free text"),
    "hardware": ("text", "the board the pins are on, an id of §3.5 (a definition of the host's): "
                         "the host checks every pin against it, never the board; null: not "
                         "checked, and the host warns"),
    "tracks": ("count", "tracks (walls) of the table; the per-track pins `gate<n>` ... `pusher<n>` "
                        "are required for n = 1..tracks"),
    "max_stacks": ("count", "most stacks per wall; CONFIGURE_BUILD beyond it is refused "
                            "(`E_UNSUPPORTED`, field `stacks`) before anything moves"),
    "colours": ("names", "the sets' back colours in class order: class 1, 2 ...; class 0 is "
                         "*unknown* (not a name); at most 28 bytes joined by commas"),
    "pins.<signal>.pin": ("GPIO number", "a pin given as an object (§3.6): its number; with "
                                         "`expander`, the expander's pin (GPA0..7 = 0..7, "
                                         "GPB0..7 = 8..15)"),
    "pins.<signal>.expander": ("index", "the pin is on `expanders[index]` (slow signals only: "
                                        "solenoids, directions, the door's switches, buttons, "
                                        "the light, the mixer's empty sensor; §3.7)"),
    "pins.<signal>.invert": ("true/false", "the wire carries the opposite of the signal: a "
                                           "normally-closed switch, an active-high beam, an "
                                           "inverted driver (§3.6)"),
    "pins.<signal>.pull": ("text", "an input's pull: up, down or null (the circuit has its own "
                                   "resistor); outputs have none (§3.6)"),
    "pin_options": ("object", "the pins given as objects, `{signal: {\"invert\", \"pull\"}}`, as "
                              "validation returns them apart (accepted back, so a validated profile "
                              "validates again)"),
    "i2c.bus": ("bus number", "the I2C controller the colour sensors (and `current_adc`) are on"),
    "i2c.freq": ("Hz", "I2C clock (400000: fast mode, what a TCS34725 and a TCA9548A take)"),
    "i2c.mux_addr": (ADDR, "the TCA9548A multiplexer (channel n-1 for track n)"),
    "i2c.sensor_addr": (ADDR, "each track's TCS34725 colour sensor behind it (0x29)"),
    "pwm_freq": ("Hz", "PWM frequency of the motor drivers"),
    "duty.mixer": ("fraction", "PWM duty of the turntable motor while it runs (1 = full)"),
    "duty.lift": ("fraction", "PWM duty of the lift motor while it moves"),
    "duty.door": ("fraction", "PWM duty of the centre door's motor while it moves"),
    "timings_ms.debounce": (TIME, "an entry beam's edges closer than this count once"),
    "timings_ms.colour_delay": (TIME, "from a tile's entry edge to its colour read"),
    "timings_ms.gate_close": (TIME, "a gate's solenoid released until the mouth is closed"),
    "timings_ms.stacker": (TIME, "the stacker's pulse, per tile"),
    "timings_ms.pusher": (TIME, "the pusher's pulse, per stack"),
    "timings_ms.lift_stroke": (TIME, "the lift's nominal stroke, one way (`jantaku selftest "
                                     "--write-timings` measures it)"),
    "timings_ms.door_move": (TIME, "the door's nominal travel (measured like the lift's); without "
                                   "`pins.door_open` the door counts as open after it"),
    "timings_ms.heartbeat": (TIME, "the table sends a heartbeat after this long without a frame "
                                   "(protocol/SPEC.md §8)"),
    "timings_ms.poll": (TIME, "how often a moving lift or door is watched (current sense, a "
                              "missed end-switch edge)"),
    "timings_ms.mix": (TIME, "how long MIX with duration 0 turns the mixer"),
    "timeouts_ms.jam": (TIME, "an entry beam blocked this long is a jam (the gate closes, the "
                              "track backs off)"),
    "timeouts_ms.jam_backoff": (TIME, "one back-off of a jammed track (at least a pusher stroke)"),
    "timeouts_ms.jam_retries": ("count", "back-offs before a jam stops the build (fault JAM)"),
    "timeouts_ms.mixer_empty": (TIME, "the mixer empty this long with a track short: fault SHORT; "
                                      "not empty this long after a build meant to empty it: "
                                      "SURPLUS"),
    "timeouts_ms.lift": (TIME, "a lift stroke that has not reached its end switch in this "
                               "stops (fault LIMIT)"),
    "timeouts_ms.limit_release": (TIME, "an end switch must release within this once the motor "
                                        "leaves it (else LIMIT)"),
    "timeouts_ms.door": (TIME, "a door move that has not reached its end switch in this stops "
                               "(fault DOOR)"),
    "timeouts_ms.link": (TIME, "silence after which the link counts as lost (the build pauses; "
                               "protocol/SPEC.md §8)"),
    "timeouts_ms.build": (TIME, "a whole build longer than this is a fault (BUILD_TIMEOUT)"),
    "timeouts_ms.stall_current": (TIME, "the lift current above `thresholds.lift_stall_current_u16` "
                                        "this long is a stall (LIFT_STALL)"),
    "thresholds.lift_stall_current_u16": (
        "ADC counts (u16)", "the lift's current sense above it is a stall; counts of "
        "`read_u16()`, 0..65535 over the ADC's range (amperes: below this table)"),
    "thresholds.lift_stall_a": ("A", "the lift's stall current the threshold stands for: the "
                                     "threshold must be its counts on the profile's ADC within "
                                     "1 % (the profile check computes them)"),
    "thresholds.lift_sense_v_per_a": ("V/A", "the lift's current sense: volts per ampere at the "
                                             "ADC (the reference's 10 mOhm shunt and INA180A2, "
                                             "x 50: 0.5)"),
    "calibration.integration_ms": (TIME, "the TCS34725's integration time, in its steps of 2.4 ms"),
    "calibration.max_distance": (
        "chromaticity distance", "classification radius: the Euclidean distance from a "
        "reading's normalised r, g, b to a reference beyond which it is *unknown*"),
    "calibration.min_clear": ("TCS34725 counts", "a reading whose clear channel is below it is "
                                                 "no tile: *unknown*"),
    "calibration.refs.<colour>": ("fractions", "[r, g, b] of each colour's back, normalised (r + g + b "
                                               "= 1 within 0.1), one per name of `colours`"),
    "calibration.tracks[].refs.<colour>": ("fractions", "one track's own [r, g, b] of each colour"),
    "calibration.tracks[].max_distance": ("chromaticity distance", "one track's own radius"),
    "calibration.tracks": ("list", "one `{\"refs\", \"max_distance\"}` per track, as `jantaku "
                                   "calibrate` writes them; null: every track uses `refs` and "
                                   "`max_distance`"),
    "port.kind": ("text", "usb: USB CDC stdio (the REPL port); uart: a UART of the board; "
                          "serial: a serial device under CPython (a Pi)"),
    "port.id": ("UART number", "the board's UART (kind uart)"),
    "port.baud": ("bit/s", "the line's rate (kinds uart, serial); 1200 is refused: some boards "
                           "reboot into their bootloader"),
    "port.tx": ("GPIO number", "the UART's TX pin (kind uart); not a pin of `pins`"),
    "port.rx": ("GPIO number", "the UART's RX pin (kind uart); not a pin of `pins`"),
    "port.path": ("path", "the serial device, e.g. `/dev/ttyGS0` (kind serial)"),
    "watchdog_ms": (TIME, "`machine.WDT` timeout on boards; 0: none (the RP2040's maximum is 8388)"),
    "expanders": ("list", "I2C GPIO expanders on the main bus (the colour sensors' one) for slow "
                          "signals, indexed from 0 by `pins.<signal>.expander` (§3.7); null: none"),
    "expanders[].kind": ("text", "the expander chip"),
    "expanders[].addr": (ADDR, "the MCP23017's address (0x20..0x27 by its A0..A2 pins)"),
    "track_sides": ("list", "where each track's wall comes up, track 1 first, seen from the "
                            "table's front (the side with its buttons; the page takes the game's "
                            "first thrower to sit there) counter-clockwise: the page marks the "
                            "tracks on its drawing of the table; null: track 1 at the front, 2 on "
                            "its right, 3 at the back, 4 on its left (up to 4 tracks)"),
    "safety.watchdog_toggle_ms": (TIME, "the firmware toggles `pins.watchdog` this often, from "
                                        "its main loop"),
    "safety.watchdog_hold_ms": (TIME, "the retriggerable relay (or charge pump) holds the motors' "
                                      "supply this long after the last edge (the part's figure; "
                                      "more than two toggles)"),
    "safety.relay_ms": (TIME, "the safety relays' release time (datasheet): chain open to "
                              "contacts open"),
    "safety.lift_coast_ms": (TIME, "the lift runs on this long once its power goes (measured: "
                                   "`jantaku selftest --device guard_stop`)"),
    "safety.door_coast_ms": (TIME, "the door runs on this long once its power goes"),
    "safety.lift_travel_mm": ("mm", "the lift's stroke (the overrun in mm is its share of it)"),
    "safety.door_travel_mm": ("mm", "the door's travel"),
    "safety.stop_limit_ms": (TIME, "guard_stop passes only if the lift is still within this of "
                                   "the break"),
    "safety.overrun_limit_mm": ("mm", "guard_stop passes only if the lift ran on less than this "
                                      "after the break"),
    "power.supply_v": ("V", "the motors' and solenoids' supply (12 or 24 V DC)"),
    "power.mains": ("0 or 1", "1: the supply is a mains unit inside the table: its protective "
                                  "earth and a 30 mA RCD at the inlet apply (`jantaku wiring "
                                  "--power`)"),
    "power.mixer_a": ("A", "the turntable motor's running current"),
    "power.lift_a": ("A", "the lift motor's running current (its stall current is "
                          "`thresholds.lift_stall_a`)"),
    "power.door_a": ("A", "the centre door motor's running current"),
    "power.solenoid_a": ("A", "one solenoid coil's pull-in current (gates, stackers, pushers)"),
    "power.disc_a": ("A", "a four-port table's disc motor's running current"),
    "power.feed_a": ("A", "a four-port table's feed motor's running current (each side's)"),
    "power.stacker_a": ("A", "a four-port table's stacker cam motor's running current (each side's)"),
    "power.centre_a": ("A", "a four-port table's centre panel lift motor's running current"),
    "power.dice_a": ("A", "a four-port table's dice motor's running current"),
    "current_adc": ("object", "the lift current from an I2C ADC on the main bus instead of "
                              "`pins.lift_current` (boards without an ADC pin); null: none"),
    "current_adc.kind": ("text", "the ADC: ads1115"),
    "current_adc.addr": (ADDR, "the ADS1115 (0x48..0x4B by its ADDR pin)"),
    "current_adc.channel": ("count", "the ADS1115 input (AIN0..AIN3, single-ended)"),
    "family": ("text", "the table's mechanism family (§11): reference (this project's table: "
                       "turntable, gates, solenoid stackers, one lift, a door) or fourport (the "
                       "four-port machines people own: a disc, per side a feed, a counting sensor, a "
                       "cam stacker and a lift; a centre panel lift, a dice motor); the pins' names "
                       "follow it, and a profile that mixes the two is refused"),
    "motors": ("object", "fourport: how each kind of motor is driven and supplied; every side's "
                         "feed, stacker and lift alike"),
    "motors.<motor>.drive": ("text", "hbridge: PWM + direction (`<m>_pwm`, `<m>_dir`), DC only; "
                                     "onoff: one relay, SSR or MOSFET (`<m>_on`), one way, stopped "
                                     "by its switch; relays: a reversing pair (`<m>_fwd`, `<m>_rev`, "
                                     "never both on, a dead time between)"),
    "motors.<motor>.supply": ("text", "dc (12/24 V) or ac (mains, capacitor-run: never on a PWM "
                                      "output)"),
    "strokes_per_stack": ("count", "fourport: cam strokes (home to home) per stack; the last of "
                                   "them pushes the stack into the wall"),
}

# pins: what each signal drives or reads (docs/ARCHITECTURE.md §4 has the levels)
PINS = {
    "mixer_pwm": "turntable motor's PWM",
    "mixer_dir": "turntable motor's direction (1 = forward); null: one way",
    "mixer_empty": "mixer-empty sensor (1 = no tile left)",
    "lift_pwm": "lift motor's PWM",
    "lift_dir": "lift motor's direction (1 = up)",
    "lift_top": "lift's top limit switch (0 when pressed)",
    "lift_bottom": "lift's bottom limit switch (0 when pressed)",
    "lift_current": "lift motor's current sense; null: none, or `current_adc`",
    "door_pwm": "centre door motor's PWM",
    "door_dir": "centre door motor's direction (1 = open)",
    "door_closed": "door's closed switch (0 when reached)",
    "door_open": "door's open switch (0 when reached); null: opens for `door_move`",
    "guard_curtain": "light curtain over the lift openings (1 = clear)",
    "lid": "lid switch (1 = closed); null: the curtain alone",
    "interlock": ("the safety chain's end before the curtain (1 = the emergency stop released and "
                  "the lid closed; docs/SAFETY.md); null: the simulator only, a real board refuses"),
    "power_feedback": ("the motion relay's feedback contact (1 = the lift's and door's supply on); "
                       "null: the simulator only, a real board refuses"),
    "watchdog": ("the watchdog output the firmware's loop toggles every "
                 "`safety.watchdog_toggle_ms` (its edges hold the relays); null: the simulator "
                 "only, a real board refuses"),
    "start_button": "start button (0 while pressed); null: none",
    "dice_button": "dice button (0 while pressed); null: none",
    "status_light": "status light (1 = on); null: none",
    "i2c_sda": "the colour sensors' I2C data; null (with `i2c_scl`): no colour sensing",
    "i2c_scl": "the colour sensors' I2C clock; null (with `i2c_sda`): no colour sensing",
    "gate": "track n's entry gate solenoid (1 = open)",
    "entry": "track n's entry photo-interrupter (0 while a tile is in the beam)",
    "stacker": "track n's stacker solenoid",
    "pusher": "track n's pusher solenoid",
    # the four-port family (§11)
    "disc_empty": "disc-empty sensor (1 = no tile left on the disc or the ring)",
    "centre_closed": "centre panel's down (closed) switch (0 when reached)",
    "centre_open": "centre panel's up (open) switch (0 when reached); null: opens for `door_move`",
    "count<n>": "side n's counting photo sensor (0 while a tile passes: one pulse per tile)",
    "colour<n>_int": "side n's colour sensor's INT (0 while a tile is under it): the count's "
                     "cross-check",
    "home<n>": "side n's cam home switch (0 at home: a stroke is home to home)",
    "lift<n>_top": "side n's lift top switch (0 when pressed)",
    "lift<n>_bottom": "side n's lift bottom switch (0 when pressed)",
    "lift<n>_current": "side n's lift motor current sense; null: none",
    "<motor>_pwm": "the motor's H-bridge PWM (drive hbridge)",
    "<motor>_dir": "the motor's H-bridge direction (1 = forward, up, open)",
    "<motor>_on": "the motor's relay, SSR or MOSFET (drive onoff, 1 = on)",
    "<motor>_fwd": "the reversing pair's forward relay (up, open)",
    "<motor>_rev": "the reversing pair's reverse relay (down, closed)",
}
