# CPython only
"""The lift's stall threshold (`thresholds.lift_stall_current_u16`, ADC counts) in amperes:
the formula from a sense resistor and amplifier, the reference table's sensor on a Pico's
ADC and through an ADS1115, and a Hall sensor; the numbers of docs/FIRMWARE.md §3 are
computed here (firmware/profile_doc.py writes them), never typed."""

PICO_ADC = (3.3, 65535)     # RP2040/RP2350: 12 bits scaled to read_u16 0..65535 over ADC_VREF
ADS1115_ADC = (4.096, 65536)  # drivers.colour.Ads1115: +-4.096 V range, read_u16 = raw << 1
SHUNT_OHM = 0.010
GAIN = 50                   # TI INA180A2
ACS712_V_PER_A = 0.185      # Allegro ACS712ELCTR-05B at Vcc = 5 V: 2.5 V at 0 A
DIVIDER = 2 / 3             # 10 kOhm over 20 kOhm


def counts_for(amps, adc=PICO_ADC, v_per_a=SHUNT_OHM * GAIN, zero_v=0.0, divider=1.0):
    """What read_u16() gives for a current through a sensor of v_per_a volts per ampere
    (zero_v at 0 A) seen through a divider by an ADC (full-scale volts, counts)."""
    return int((zero_v + amps * v_per_a) * divider / adc[0] * adc[1] + 0.5)


def amps_for(counts, adc=PICO_ADC, v_per_a=SHUNT_OHM * GAIN):
    return counts * adc[0] / (adc[1] * v_per_a)


def lift_current_text(thr):
    """docs/FIRMWARE.md §3's paragraph on the threshold thr in amperes."""
    vpa = SHUNT_OHM * GAIN
    per_a = PICO_ADC[1] * vpa / PICO_ADC[0]
    amps = amps_for(thr)
    stall4 = (2.5 + 4 * ACS712_V_PER_A) * DIVIDER
    return "\n".join([
        "**The lift's current in amperes.** `thresholds.lift_stall_current_u16` is compared with the",
        "current sense's `read_u16()`: counts 0..65535 over the ADC's input range, not amperes. On a",
        "Pico (RP2040/RP2350, `pins.lift_current`) the 12-bit result is scaled to 0..%d over" % PICO_ADC[1],
        "0..%.1f V (its ADC_VREF is the 3.3 V rail); through an ADS1115 (`current_adc`) it is the" % PICO_ADC[0],
        "15-bit result doubled, %d counts per %.3f V. For a sense resistor R and an amplifier of" % (
            ADS1115_ADC[1], ADS1115_ADC[0]),
        "gain G:",
        "",
        "```",
        "counts = I x R x G x full_counts / V_full        I = counts x V_full / (full_counts x R x G)",
        "```",
        "",
        "The reference table's sensor: a %g mOhm, 1 W resistor in the lift driver's ground return" % (SHUNT_OHM * 1000),
        "and a TI INA180A2 current-sense amplifier (gain %d V/V, supplied from 3.3 V, so its output" % GAIN,
        "never exceeds the ADC pin's 3.3 V): %g V per ampere whichever way the motor turns. On a Pico" % vpa,
        "that is %g x %d x %d / %.1f = %.1f counts per ampere, so the reference threshold" % (
            SHUNT_OHM, GAIN, PICO_ADC[1], PICO_ADC[0], per_a),
        "%d is %d / %.1f = **%.2f A**." % (thr, thr, per_a, amps),
        "Through an ADS1115 the same sensor gives %g x %d / %.3f = %.1f counts per ampere, so" % (
            vpa, ADS1115_ADC[1], ADS1115_ADC[0], ADS1115_ADC[1] * vpa / ADS1115_ADC[0]),
        "the same %.2f A reads %d x %.1f / %.1f = %d there: a profile moved to `current_adc` needs" % (
            amps, thr, ADS1115_ADC[1] * vpa / ADS1115_ADC[0], per_a, counts_for(amps, ADS1115_ADC)),
        "its threshold recomputed. The profile check does that arithmetic: it computes the counts of",
        "`thresholds.lift_stall_a` through `thresholds.lift_sense_v_per_a` on the profile's ADC and",
        "refuses a threshold more than 1 % off, naming the right one (`pi-reference`, on an ADS1115,",
        "has %d; the Pico's %d there would be %.2f A)." % (
            counts_for(5.24, ADS1115_ADC), thr, thr * ADS1115_ADC[0] / (ADS1115_ADC[1] * vpa)),
        "",
        "A Hall sensor instead, an ACS712-05B (%d mV/A around Vcc/2 with Vcc = 5 V), reads 2.5 V at" % (
            ACS712_V_PER_A * 1000),
        "0 A and passes the Pico pin's 3.3 V at (3.3 - 2.5) / %g = %.2f A: put a divider (10 kOhm over" % (
            ACS712_V_PER_A, (3.3 - 2.5) / ACS712_V_PER_A),
        "20 kOhm, x 2/3) before the ADC pin. Then counts = (2.5 + %g x I) x 2/3 x %d / 3.3: 0 A" % (
            ACS712_V_PER_A, PICO_ADC[1]),
        "reads %d and a 4 A stall (2.5 + %.2f) x 2/3 = %.2f V = %d counts." % (
            counts_for(0, zero_v=2.5, divider=DIVIDER), 4 * ACS712_V_PER_A, stall4,
            counts_for(4, v_per_a=ACS712_V_PER_A, zero_v=2.5, divider=DIVIDER)),
        "",
        "Each lift stroke reports its peak current in counts (LIFT_STROKE, §3.4: in `jantaku",
        "selftest` and every hand over's `lift_stroke` event), and `jantaku health` flags a stroke",
        "whose peak reaches 80 % of the threshold: set it above the running peak and below what the",
        "motor draws stalled.",
        "",
    ])
