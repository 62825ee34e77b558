"""hostd.boards.hardware: the definitions of the boards people buy, and a profile's pins
checked against them, every problem at once, through `jantaku flash --dry-run` as a
person would meet them."""
import copy
import json
import pathlib
import subprocess
import sys

import pytest

from firmware import hal
from firmware import profile as fprofile
from hostd.boards import boardfile
from hostd.boards import hardware as hw

ROOT = pathlib.Path(__file__).resolve().parents[2]
BOARDS = sorted(p.stem for p in (ROOT / "firmware" / "boards").glob("*.json"))


@pytest.fixture
def reference():
    return copy.deepcopy(fprofile.load("reference-18"))


def keys(rep):
    return [p.key for p in rep.problems]


# ------------------------------------------------------------------- the definitions
@pytest.mark.parametrize("hw_id", hw.ids())
def test_definition_is_consistent(hw_id):
    d = hw.load(hw_id)
    assert d["id"] == hw_id and d["name"] and d["chip"] and d["sources"] and d["flashing"]
    assert d["runtime"] in ("micropython", "cpython")
    assert (d["runtime"] == "micropython") == bool(d["machine"])  # flash compares them
    pins = {int(n) for n in d["pins"]}
    assert not pins & {int(n) for n in d["reserved"]}  # a reserved GPIO is not offered
    assert {int(n) for n in d["caution"]} <= pins  # a caution is about a GPIO offered
    for n, caps in d["pins"].items():
        assert set(caps) <= {"pwm", "adc", "i2c", "uart"}, (n, caps)
        for what in ("i2c", "uart"):
            if what in caps:
                bus, role = caps[what].split()
                assert int(bus) in (0, 1) and role in ("sda", "scl", "tx", "rx"), caps


def test_the_boards_people_buy():
    """The Pico and Pico 2 offer GP0-22 and GP26-28 (GP23-25, GP29 are the board's); the
    RP2350B board all 48, its ADC on GPIO40-47 and PWM slices 8-11 on GPIO32-47; a Pi's
    ID EEPROM pins are a caution, its PWM is gpiozero's software PWM."""
    want = set(range(23)) | {26, 27, 28}
    for hw_id in ("rpi-pico", "rpi-pico2"):
        d = hw.load(hw_id)
        assert {int(n) for n in d["pins"]} == want
        assert set(d["reserved"]) == {"23", "24", "25", "29"}
        assert [n for n, c in d["pins"].items() if "adc" in c] == ["26", "27", "28"]
        assert d["pins"]["16"]["pwm"] == "0A" and d["pins"]["15"]["pwm"] == "7B"
        assert d["pins"]["4"] == {"pwm": "2A", "i2c": "0 sda", "uart": "1 tx"}
    xl = hw.load("solderparty-rp2350-stamp-xl")
    assert len(xl["pins"]) == 48 and xl["chip"] == "RP2350B"
    assert [int(n) for n, c in xl["pins"].items() if "adc" in c] == list(range(40, 48))
    assert xl["pins"]["32"]["pwm"] == "8A" and xl["pins"]["47"]["pwm"] == "11B"
    assert xl["pins"]["40"]["pwm"] == "8A"  # slices 8-11 twice over GPIO32-47
    pi = hw.load("raspberry-pi-header")
    assert set(pi["caution"]) == {"0", "1"} and {c["pwm"] for c in pi["pins"].values()} == {"soft"}
    assert pi["pins"]["2"]["i2c"] == "1 sda" and not any("adc" in c for c in pi["pins"].values())


def test_for_machine_names_the_board_micropython_reports():
    assert hw.for_machine("Raspberry Pi Pico W with RP2040")["id"] == "rpi-pico"
    assert hw.for_machine("Raspberry Pi Pico2 with RP2350")["id"] == "rpi-pico2"
    assert hw.for_machine("Solder Party RP2350 Stamp XL with RP2350")["id"] == "solderparty-rp2350-stamp-xl"
    assert hw.for_machine("ESP32 module with ESP32") is None


def test_unknown_hardware_names_the_known():
    with pytest.raises(hw.ConfigError, match="unknown hardware 'pico3'; known: raspberry-pi-header, rpi-pico"):
        hw.load("pico3")


# ------------------------------------------------------------------- the profiles
@pytest.mark.parametrize("board", BOARDS)
def test_every_profile_names_hardware_it_fits(board):
    prof = fprofile.load(board)
    rep = hw.check(prof)
    assert prof["hardware"] in hw.ids()
    assert rep.ok, [str(p) for p in rep.problems]


def test_a_profile_without_hardware_is_warned_not_refused(reference):
    reference["hardware"] = None
    rep = hw.check(reference)
    assert rep.ok and len(rep.warnings) == 1 and rep.warnings[0].key == "hardware"
    assert "not checked" in str(rep.warnings[0])


def test_reference_on_a_pico_lists_every_pin_it_cannot_have(reference):
    rep = hw.check(reference, hardware="rpi-pico")
    got = {p.key: p for p in rep.problems}
    assert set(got) == {"pins.lift_current", "pins.door_pwm", "pins.door_dir", "pins.door_closed",
                        "pins.start_button", "pins.dice_button", "pins.status_light", "pins.i2c_sda",
                        "pins.i2c_scl", "pins.entry2", "pins.interlock", "pins.power_feedback",
                        "pins.watchdog"}
    assert "GPIO 40 does not exist" in str(got["pins.lift_current"])
    assert "accepted: a GPIO of 0-22, 26-28" in str(got["pins.lift_current"])
    assert "GPIO 25 is not free: Pico: the LED" in str(got["pins.door_closed"])


def test_each_kind_of_problem_is_named_with_its_key(reference):
    p = reference
    p["pins"]["door_pwm"] = 16  # PWM 0A, as mixer_pwm on GPIO 0
    p["pins"]["lift_current"] = 12  # no ADC there
    p["pins"]["i2c_sda"], p["pins"]["i2c_scl"] = 34, 35  # bus 1's pins, i2c.bus is 0
    rep = hw.check(p)
    assert sorted(keys(rep)) == ["pins.door_pwm", "pins.i2c_scl", "pins.i2c_sda", "pins.lift_current"]
    msg = {x.key: str(x) for x in rep.problems}
    assert "PWM channel 0A, as GPIO 0 (pins.mixer_pwm)" in msg["pins.door_pwm"]
    assert "GPIO 12 has no ADC" in msg["pins.lift_current"] and "40-47" in msg["pins.lift_current"]
    assert "not SDA of I2C bus 0 (i2c.bus), it is SDA of bus 1" in msg["pins.i2c_sda"]
    assert "SDA of bus 0: 0, 4, 8" in msg["pins.i2c_sda"]


def test_pi_and_microcontroller_ports_are_told_apart(reference):
    pi = fprofile.load("pi-reference")
    rep = hw.check(pi, hardware="rpi-pico2")
    assert "port.kind" in keys(rep)
    reference["hardware"] = "raspberry-pi-header"
    reference["pins"]["lift_current"] = 8
    rep = hw.check(reference)
    assert "port.kind" in keys(rep) and "pins.lift_current" in keys(rep)  # and a Pi has no ADC
    assert "null here (no ADC on this hardware: use current_adc" in str(
        [x for x in rep.problems if x.key == "pins.lift_current"][0])


def test_uart_port_pins_belong_to_its_uart(reference):
    reference["pins"]["mixer_dir"] = None
    reference["port"] = {"kind": "uart", "id": 1, "baud": 115200, "tx": 36, "rx": 45}
    rep = hw.check(reference)
    assert keys(rep) == ["port.rx"], [str(x) for x in rep.problems]
    assert "GPIO 45 is not RX of UART 1 (port.id)" in str(rep.problems[0])
    assert "RX of UART 1: 5, 9, 21, 25, 37, 41" in str(rep.problems[0])


def test_the_daemons_board_file_refuses_a_profile_that_does_not_fit(tmp_path, monkeypatch):
    raw = json.loads((ROOT / "firmware" / "boards" / "reference-18.json").read_text())
    raw["hardware"] = "rpi-pico2"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "jantaku" / "boards").mkdir(parents=True)
    (tmp_path / "jantaku" / "boards" / "reference-18.json").write_text(json.dumps(raw))
    with pytest.raises(hw.HardwareError) as e:
        boardfile.load("reference-18")
    assert "does not fit its hardware (13 problems)" in str(e.value)  # 3 of the safety chain's
    assert "pins.i2c_scl (GPIO 33) on Raspberry Pi Pico 2 / Pico 2 W" in str(e.value)


# ------------------------------------------------------------------- as a person meets it
def _flash_dry_run(path):
    return subprocess.run([sys.executable, "-m", "hostd.cli.main", "flash", "--dry-run", "--board", str(path)],
                          capture_output=True, text=True, timeout=120, cwd=str(ROOT))


def _club(tmp_path, hardware, **pins):
    raw = json.loads((ROOT / "firmware" / "boards" / "reference-18.json").read_text())
    raw["id"] = "club-" + hardware[:15]
    raw["hardware"] = hardware
    raw["pins"].update(pins)
    p = tmp_path / (raw["id"] + ".json")
    p.write_text(json.dumps(raw))
    return p


def test_flash_dry_run_refuses_every_problem_in_one_report(tmp_path):
    """On a Pico: a pin the board lacks, reserved pins, two PWM signals on one slice
    channel, I2C pins of the wrong bus: one report, each problem with its key; nothing is
    compiled or staged."""
    p = _club(tmp_path, "rpi-pico", mixer_dir=None, door_open=None, lid=None, start_button=None,
              dice_button=None, status_light=None, lift_current=None, entry4=8, door_pwm=16,
              guard_curtain=28, i2c_sda=26, i2c_scl=27, interlock=None, power_feedback=None, watchdog=None)
    r = _flash_dry_run(p)
    assert r.returncode != 0, r.stdout
    err = r.stderr
    # 6 of the pins, 3 of the safety chain's left out (a board never runs without it)
    assert "does not fit its hardware (9 problems)" in err, err
    assert "pins.watchdog on Raspberry Pi Pico / Pico W: null or missing: a real board" in err, err
    pico = "on Raspberry Pi Pico / Pico W: "
    for want in ("pins.entry2 (GPIO 34) " + pico + "GPIO 34 does not exist; accepted: a GPIO of 0-22, 26-28",
                 "pins.door_dir (GPIO 24) " + pico + "GPIO 24 is not free: Pico: VBUS sense",
                 "pins.door_closed (GPIO 25) " + pico + "GPIO 25 is not free",
                 "pins.door_pwm (GPIO 16) " + pico + "GPIO 16 is PWM channel 0A, as GPIO 0 (pins.mixer_pwm)",
                 "pins.i2c_sda (GPIO 26) " + pico + "GPIO 26 is not SDA of I2C bus 0 (i2c.bus), it is SDA of bus 1; "
                 "accepted: SDA of bus 0: 0, 4, 8, 12, 16, 20",
                 "pins.i2c_scl (GPIO 27) " + pico + "GPIO 27 is not SCL of I2C bus 0"):
        assert want in err, err
    assert "nothing was copied" in err and "files," not in r.stdout


def test_flash_dry_run_refuses_an_adc_signal_on_a_digital_pin(tmp_path):
    r = _flash_dry_run(_club(tmp_path, "solderparty-rp2350-stamp-xl", lift_current=38))
    assert r.returncode != 0
    assert ("pins.lift_current (GPIO 38) on Solder Party RP2350 Stamp XL: GPIO 38 has no ADC; "
            "accepted: an ADC pin: 40-47") in r.stderr, r.stderr


def test_flash_dry_run_stages_a_profile_that_fits(tmp_path):
    r = _flash_dry_run(_club(tmp_path, "solderparty-rp2350-stamp-xl"))
    assert r.returncode == 0, r.stderr
    assert "firmware/boards/club-solderparty-rp2.json" in r.stdout and "nothing copied (dry run)" in r.stdout


def test_flash_refuses_a_raspberry_pi_profile():
    r = _flash_dry_run("pi-reference")
    assert r.returncode != 0
    assert "runs the controller under CPython" in r.stderr and "nothing to flash" in r.stderr
    assert "rpi-pico, rpi-pico2, solderparty-rp2350-stamp-xl" in r.stderr


def test_signals_needing_a_capability_are_the_hal_kinds():
    """The checker's needs follow firmware/hal.py's kinds (a new PWM or ADC signal is checked)."""
    for name in hal.signal_names(4):
        kind = hal.signal(name)[0]
        need = hw._needs(name)
        assert (need == "pwm") == (kind == hal.PWM) and (need == "adc") == (kind == hal.ADC)
        assert isinstance(need, tuple) == (kind == hal.I2C)


@pytest.mark.parametrize("board", ["pico-18", "pico2-18", "reference-18"])
def test_the_shipped_microcontroller_profiles_flash(board):
    """Each validates, fits its hardware and is staged by `jantaku flash --dry-run`."""
    r = _flash_dry_run(board)
    assert r.returncode == 0, r.stderr
    assert "firmware/boards/%s.json" % board in r.stdout and "nothing copied (dry run)" in r.stdout
    assert "warning" not in r.stdout + r.stderr


def test_a_raspberry_pis_slow_signals_may_go_on_an_expander():
    """The Pi's binding drives MCP23017s as a Pico's does (docs/FIRMWARE.md §3.3): a Pi
    profile with its door switch and buttons on one fits the Pi's header."""
    raw = json.loads((ROOT / "firmware" / "boards" / "pi-reference.json").read_text())
    raw["expanders"] = [{"kind": "mcp23017", "addr": 32}]
    raw["pins"].update(door_closed={"expander": 0, "pin": 8, "pull": "up"},
                       start_button={"expander": 0, "pin": 9, "pull": "up"})
    rep = hw.check(fprofile.load(raw))
    assert rep.ok, [str(p) for p in rep.problems]
