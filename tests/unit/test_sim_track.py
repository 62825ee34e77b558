"""hw_sim.reference.track: gate, entry beam, ramp, stacker, pusher and the TCS34725 model."""
from hw_sim.lines import NEVER
from sim_helpers import bare_table

NOB = {"bounce": 0.0}


class Edges:
    def __init__(self, tab, name):
        self.tab = tab
        self.got = []
        tab.lines[name].listener = self

    def sim_edge(self, level):
        self.got.append((self.tab.clock.now_us(), level))


def at(tab, us):
    tab.advance_to(us)


def test_gate_closes_gate_close_ms_after_release():
    tab = bare_table(sim=NOB)
    tr = tab.tracks[0]
    tab.lines["gate1"].drive(1)
    assert tr.offer_status() == 0
    at(tab, 100_000)
    tab.lines["gate1"].drive(0)
    at(tab, 114_000)
    assert tr.offer_status() == 0  # the spring needs 15 ms
    at(tab, 115_000)
    assert tr.offer_status() == 1


def test_one_falling_edge_per_tile_about_30ms():
    tab = bare_table(sim=NOB)
    e = Edges(tab, "entry2")
    tr = tab.tracks[1]
    tab.lines["gate2"].drive(1)
    tab.build = None
    tr.enter(5, 0)
    at(tab, 100_000)
    assert len(e.got) == 2
    (t0, l0), (t1, l1) = e.got
    assert (l0, l1) == (0, 1) and 26_000 <= t1 - t0 <= 34_000


def test_bounces_stay_within_a_millisecond():
    tab = bare_table(sim={"bounce": 1.0})
    e = Edges(tab, "entry1")
    tab.tracks[0].enter(3, 0)
    at(tab, 100_000)
    levels = [lv for _, lv in e.got]
    assert levels == [0, 1, 0, 1, 0, 1]
    assert e.got[2][0] - e.got[0][0] <= 1000
    assert e.got[5][0] - e.got[3][0] <= 1000


def test_stacker_and_pusher_strokes():
    tab = bare_table(sim=NOB)
    tr = tab.tracks[0]
    tr.enter(10, 0)
    tr.enter(11, 40_000)
    at(tab, 100_000)
    assert tr.ramp_n == 2
    st = tab.lines["stacker1"]
    st.drive(1)
    at(tab, 150_000)
    st.drive(0)  # released after 50 ms: aborted
    assert tr.aborted == 1 and tr.stack == []
    st.drive(1)
    at(tab, 270_000)
    assert tr.stack == [10]  # the stroke completes at 120 ms even if held longer
    st.drive(0)
    st.drive(1)
    at(tab, 400_000)
    st.drive(0)
    assert tr.stack == [10, 11] and tr.ramp_n == 0
    pu = tab.lines["pusher1"]
    pu.drive(1)
    at(tab, 560_000)
    pu.drive(0)
    assert tr.wall == [[10, 11]] and tr.stack == []
    st.drive(1)
    at(tab, 700_000)
    st.drive(0)
    assert tr.empty_strokes == 1


def test_full_ramp_blocks_the_mouth():
    tab = bare_table(sim={"bounce": 0.0, "ramp_tiles": 2})
    tr = tab.tracks[0]
    tab.lines["gate1"].drive(1)
    tr.enter(1, 0)
    at(tab, 300_000)
    tr.enter(2, 300_000)
    at(tab, 600_000)
    assert tr.offer_status() == 2


def read_sensor(tab, track):
    bus = tab.bus
    bus.writeto(0x70, bytes([1 << (track - 1)]))
    buf = bytearray(8)
    bus.readfrom_mem_into(0x29, 0xB4, buf)
    c = buf[0] | buf[1] << 8
    r = buf[2] | buf[3] << 8
    g = buf[4] | buf[5] << 8
    b = buf[6] | buf[7] << 8
    return c, r, g, b


def power(tab, track):
    tab.bus.writeto(0x70, bytes([1 << (track - 1)]))
    tab.bus.writeto_mem(0x29, 0x81, bytes([0xFF]))
    tab.bus.writeto_mem(0x29, 0x80, bytes([0x03]))


def norm(reading):
    c, r, g, b = reading
    s = r + g + b
    return (r / s, g / s, b / s)


def dist(a, b):
    return sum((x - y) ** 2 for x, y in zip(a, b)) ** 0.5


def test_colour_sensor_reads_the_back_under_it():
    tab = bare_table(sim=NOB)
    refs = tab.profile["calibration"]["refs"]
    tr = tab.tracks[2]
    blue = tab.set_ids[0][0]
    green = tab.set_ids[1][0]
    assert read_sensor(tab, 3) == (0, 0, 0, 0)  # not powered: no data
    power(tab, 3)
    amb = read_sensor(tab, 3)
    assert amb[0] < tab.profile["calibration"]["min_clear"]
    tr.enter(blue, 0)
    at(tab, 4_000)
    assert read_sensor(tab, 3)[0] < 200  # not under the sensor before ~5 ms
    at(tab, 8_000)
    rd = read_sensor(tab, 3)
    assert rd[0] >= 200 and dist(norm(rd), refs["blue"]) < 0.05
    at(tab, 400_000)
    tab.lines["stacker3"].drive(1)
    at(tab, 520_000)
    tab.lines["stacker3"].drive(0)
    assert read_sensor(tab, 3)[0] < 200  # stacked: ambient again
    tr.enter(green, 600_000)
    at(tab, 610_000)
    assert dist(norm(read_sensor(tab, 3)), refs["green"]) < 0.05


def test_misread_falls_between_classes():
    tab = bare_table(sim=NOB)
    cal = tab.profile["calibration"]
    power(tab, 1)
    tr = tab.tracks[0]
    tr.enter(tab.set_ids[0][0], 0)
    tr.sensor_misread = True
    at(tab, 8_000)
    n = norm(read_sensor(tab, 1))
    assert min(dist(n, cal["refs"][c]) for c in cal["refs"]) > cal["max_distance"]


def test_jam_holds_the_beam_until_backoffs():
    tab = bare_table(faults=("jam:track=1,after=0,count=2",), sim=NOB)
    e = Edges(tab, "entry1")
    tab.lines["gate1"].drive(1)
    tab.lines["mixer_dir"].drive(1)
    tab.lines["mixer_pwm"].drive(52428)
    tr = tab.tracks[0]
    tab.advance_to(3_000_000)
    assert tr.jammed and tab.lines["entry1"].level == 0
    assert e.got[0][1] == 0 and len(e.got) == 1
    assert tr.offer_status() == 2  # a jammed mouth takes nothing
    pu = tab.lines["pusher1"]
    for i in range(2):
        pu.drive(1)
        tab.advance_to(tab.clock.now_us() + 160_000)
        pu.drive(0)
    assert not tr.jammed and tab.lines["entry1"].level == 1
    assert tr.ramp_n == 1 and tr.wall == []  # a back-off pushes no stack


def test_walls_taken_and_returned():
    tab = bare_table(sim=NOB)
    tr = tab.tracks[0]
    tr.wall = [[1, 2], [3, 4]]
    tr.stack = [5]
    w = tr.take_wall()
    assert w == [[1, 2], [3, 4], [5]] and not tr.has_tiles()
    tr.put_wall(w)
    assert tr.wall_tiles() == [1, 2, 3, 4, 5]
    assert sorted(tr.clear()) == [1, 2, 3, 4, 5]
    assert tr.next_us == NEVER


# -- sets of any back colour, per-track sensor variation (issue 22) ----------------------------
PINK = [0.45, 0.25, 0.30]
YELLOW = [0.40, 0.42, 0.18]
SETS = [["pink", PINK], ["yellow", YELLOW]]


def _mean_reading(tab, track, tile, n=20, t0=0):
    tr = tab.tracks[track - 1]
    tr.enter(tile, t0)
    at(tab, t0 + 8_000)
    rs = [norm(read_sensor(tab, track)) for _ in range(n)]
    return tuple(sum(x[i] for x in rs) / n for i in range(3))


def test_set_colours_are_what_the_sensor_sees_whatever_the_profile_says():
    tab = bare_table(sim=dict(NOB, set_colours=SETS))
    assert tab.tiles.colours == ["pink", "yellow"]
    power(tab, 1)
    pink = tab.set_ids[0][0]
    assert tab.tiles.colour(pink) == "pink"
    assert dist(_mean_reading(tab, 1, pink), PINK) < 0.01
    assert dist(_mean_reading(tab, 1, pink), tab.profile["calibration"]["refs"]["blue"]) > 0.2


def test_each_track_reads_a_little_differently_and_the_same_with_the_same_seed():
    def means(seed):
        tab = bare_table(seed=seed, sim=dict(NOB, set_colours=SETS, sensor_bias_pm=25))
        out = []
        for k in (1, 2, 3, 4):
            power(tab, k)
            out.append(_mean_reading(tab, k, tab.set_ids[0][k]))
        return out

    a = means(5)
    assert a == means(5)  # from the seed
    assert a != means(6)
    assert max(dist(x, y) for x in a for y in a) > 0.01  # tracks differ...
    assert all(dist(x, PINK) < 0.06 for x in a)  # ...within the bias


def test_a_sensor_drifts_with_its_reads():
    tab = bare_table(seed=2, sim=dict(NOB, set_colours=SETS, sensor_drift_pm=40))
    power(tab, 1)
    tile = tab.set_ids[0][0]
    early = _mean_reading(tab, 1, tile)
    sensor = tab.tracks[0].sensor
    sensor.reads += 5000  # as after 5000 tiles
    late = _mean_reading(tab, 1, tile)
    assert dist(early, late) > 0.05


def test_bad_set_colours_are_refused_naming_what_is_accepted():
    import pytest

    for bad, words in (([["pink", PINK]], "two sets"), ([["pink", PINK], ["pink", YELLOW]], "two different"),
                       ([["pink", [0.9, 0.9, 0.9]], ["yellow", YELLOW]], r"r\+g\+b = 2.700"),
                       ([["unknown", PINK], ["yellow", YELLOW]], "not 'unknown'")):
        with pytest.raises(ValueError, match=words):
            bare_table(sim=dict(NOB, set_colours=bad))


def test_a_dead_gate_never_opens():
    tab = bare_table(faults=("dead-gate:track=2",), sim=NOB)
    tab.lines["gate2"].drive(1)
    tab.lines["gate1"].drive(1)
    at(tab, 1_000)
    assert tab.tracks[1].offer_status() == 1 and tab.tracks[0].offer_status() == 0
