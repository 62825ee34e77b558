from firmware import codes
from firmware.compat import ticks_diff
from firmware.drivers.colour import Classifier, ColourBus
from firmware.fakes import FakeClock, FakeHal
from firmware.profile import load
from firmware.sched import Scheduler
from firmware.reference.track import Track


class Ctl:
    def __init__(self):
        self.tiles = []
        self.full = []
        self.faults = []

    def on_tile(self, track, index, cls):
        self.tiles.append((track, index, cls))

    def on_wall_done(self, track):
        self.full.append(track)

    def on_track_fault(self, code, track):
        self.faults.append((code, track))


class T:
    def __init__(self, num=2, **over):
        self.p = load(None)
        for k, v in over.items():
            sec, key = k.split("__")
            self.p[sec][key] = v
        self.clock = FakeClock(5000000)
        self.hal = FakeHal(self.p)
        self.sched = Scheduler(self.clock)
        self.ctl = Ctl()
        i2c = self.hal.i2c()
        self.bus = ColourBus(i2c, mux_addr=0x70, sensor_addr=0x29, channels=4, integration_ms=2)
        self.bus.init()
        refs = [self.p["calibration"]["refs"][c] for c in self.p["colours"]]
        self.refs = refs
        self.cl = Classifier(refs, max_distance=0.12, min_clear=200)
        self.tr = Track(num, self.p, self.hal, self.sched, self.clock, self.ctl, colour_bus=self.bus, classifier=self.cl)
        self.n = str(num)
        self.entry = self.hal.pins["entry" + self.n]
        self.gate = self.hal.pins["gate" + self.n]
        self.stacker = self.hal.pins["stacker" + self.n]
        self.pusher = self.hal.pins["pusher" + self.n]

    def step(self):
        self.tr.service()
        self.sched.run()
        self.tr.service()

    def run(self, ms):
        end = self.clock.us + ms * 1000
        while self.clock.us < end:
            self.step()
            nd = self.sched.next_due_us()
            t = end
            if nd is not None:
                d = max(0, ticks_diff(nd, self.clock.ticks_us()))
                t = min(end, self.clock.us + d)
            self.clock.us = max(t, self.clock.us)
            if t == end:
                self.step()
                break

    def see(self, colour):
        i2c = self.hal.i2c()
        ch = int(self.n) - 1
        if colour == 0:
            i2c.set_colour(ch, 0.33, 0.34, 0.33, clear=1000)
        else:
            r = self.refs[colour - 1]
            i2c.set_colour(ch, r[0], r[1], r[2])

    def tile(self, colour=1, beam=30, gap=250):
        self.see(colour)
        self.entry.set(0)
        self.run(beam)
        self.entry.set(1)
        self.run(gap - beam)


def test_counts_reads_colour_and_reports_each_tile():
    t = T()
    t.tr.arm(4)
    assert t.gate.level == 1
    t.tile(1)
    t.tile(2)
    t.tile(0)
    assert t.ctl.tiles == [(2, 1, 1), (2, 2, 2), (2, 3, 0)]
    assert t.tr.colour_counts == [1, 1, 1]
    assert t.tr.count == 3 and t.gate.level == 1


def test_gate_closes_inside_the_irq_on_the_target_count():
    t = T()
    t.tr.arm(2)
    t.tile()
    t.entry.set(0)  # second tile: the IRQ alone must close the gate
    assert t.gate.level == 0 and not t.tr.gate.is_open
    t.entry.set(1)
    t.run(1000)
    assert t.ctl.full == [2] and t.tr.wall_done
    st = t.tr.get_status()
    assert st["stacked"] == 2 and st["pushed"] == 1


def test_overfill_is_a_fault_and_still_reported():
    t = T()
    t.tr.arm(1)
    t.tile()
    t.tile()  # gate-slow: one more got in
    assert t.ctl.faults == [(codes.FAULT_OVERFILL, 2)]
    assert t.ctl.tiles[-1] == (2, 2, 1)
    assert t.tr.over and t.ctl.full == []


def test_stacking_waits_for_the_beam_to_clear():
    t = T()
    t.tr.arm(4)
    t.see(1)
    t.entry.set(0)
    t.run(100)  # colour read at 8 ms, beam still dark
    assert t.ctl.tiles == [(2, 1, 1)]
    assert t.stacker.level == 0 and t.tr.stacker.stacked == 0
    t.entry.set(1)
    t.step()
    assert t.stacker.level == 1


def test_jam_backs_off_and_recovers():
    t = T()
    t.tr.arm(4)
    t.see(1)
    t.entry.set(0)
    t.run(401)  # blocked > jam (400 ms)
    assert t.tr.jammed and t.gate.level == 0 and t.pusher.level == 1
    assert t.tr.jam_backoffs == 1
    t.run(300)
    t.entry.set(1)  # the back-off cleared it
    t.run(500)
    assert not t.tr.jammed and t.gate.level == 1
    assert t.ctl.faults == [] and t.tr.jams == 1
    assert t.tr.stacker.stacked == 1


def test_jam_that_never_clears_faults_after_retries():
    t = T()
    t.tr.arm(4)
    t.entry.set(0)
    t.run(5000)
    assert t.ctl.faults == [(codes.FAULT_JAM, 2)]
    assert t.tr.stacker.backoffs == 2  # jam_retries
    assert t.gate.level == 0


def test_disarm_keeps_counts_and_reset_forgets():
    t = T()
    t.tr.arm(4)
    t.tile()
    t.tr.disarm()
    assert t.gate.level == 0 and t.tr.count == 1
    t.tr.arm(4)
    assert t.gate.level == 1
    t.tr.reset()
    assert t.tr.count == 0 and t.tr.colour_counts == [0, 0, 0] and t.gate.level == 0


def test_tile_with_no_target_is_overfill():
    t = T()
    t.tile()
    assert t.ctl.faults == [(codes.FAULT_OVERFILL, 2)]


def test_missing_sensor_reads_unknown():
    t = T()
    t.hal.i2c().absent[1] = True
    t.tr.arm(2)
    t.tile(1)
    assert t.ctl.tiles == [(2, 1, 0)]
    assert t.bus.errors >= 1


def test_odd_target_pushes_the_last_tile():
    t = T()
    t.tr.arm(3)
    for _ in range(3):
        t.tile()
    t.run(1000)
    assert t.tr.wall_done and t.tr.stacker.pushed == 2


def test_jam_rhythm_backoff_then_settle_then_next():
    t = T()
    t.tr.arm(4)
    t.entry.set(0)
    t.run(405)
    assert t.tr.stacker.backoffs == 0 and t.pusher.level == 1  # first back-off stroke
    t.run(300)
    assert t.tr.stacker.backoffs == 1 and t.pusher.level == 0  # stroke done: settling
    t.run(50)
    assert t.pusher.level == 1  # still dark after the settle: second back-off
    t.run(360)
    assert t.ctl.faults == [(codes.FAULT_JAM, 2)]  # after jam_retries back-offs


def test_beam_clearing_reopens_the_gate_once_clear_for_the_debounce():
    t = T()
    t.tr.arm(4)
    t.entry.set(0)
    t.run(410)
    assert t.gate.level == 0 and t.tr.jammed
    t.run(100)
    t.entry.set(1)  # freed mid-stroke
    t.tr.service()
    # not at once: a tile waiting at the mouth would drop in within the entry sensor's
    # debounce and be taken for a bounce (held-out sweep: jam:build=3,track=1,after=130,
    # count=1 with reset:build=2,during=door,at=299, seed 152: a tile in uncounted)
    assert t.gate.level == 0 and t.tr.jammed
    t.run(t.p["timings_ms"]["debounce"])
    assert t.gate.level == 1 and not t.tr.jammed


def test_a_tile_right_after_a_jam_clears_is_counted():
    t = T()
    t.tr.arm(4)
    t.entry.set(0)
    t.run(410)
    t.run(100)
    t.entry.set(1)  # freed
    t.tr.service()
    t.run(1)
    assert t.gate.level == 0  # nothing can enter before the beam was clear long enough
    t.run(t.p["timings_ms"]["debounce"])
    assert t.gate.level == 1
    t.tile()  # the tile that was waiting at the mouth drops in at once
    assert t.tr.count == 2 and t.tr.photo.rejected == 0


def test_a_bounce_as_the_jam_clears_waits_for_the_last_rise():
    t = T()
    t.tr.arm(4)
    t.entry.set(0)
    t.run(510)
    t.entry.set(1)
    t.tr.service()
    t.run(1)
    t.entry.set(0)  # a bounce
    t.tr.service()
    t.entry.set(1)
    t.tr.service()
    deb = t.p["timings_ms"]["debounce"]
    t.run(deb - 1)
    assert t.gate.level == 0
    t.run(1)
    assert t.gate.level == 1 and not t.tr.jammed


# -- a track's state and timing, exactly (bench/mutation.py's survivors) ---------------------
FRESH = {"track": 2, "target": 0, "count": 0, "handled": 0, "colours": [0, 0, 0],
         "gate_open": False, "armed": False, "jammed": False, "jams": 0, "overfill": False,
         "wall_done": False, "stacked": 0, "pushed": 0, "rejected_edges": 0}


def test_a_fresh_track_reports_nothing_done_and_a_reset_forgets_everything():
    t = T()
    assert t.tr.get_status() == FRESH and t.tr.idle() and t.tr.jam_backoffs == 0
    t.tr.arm(1)
    t.tile()
    t.tile()  # overfill
    t.entry.set(0)
    t.run(401)  # and a jam
    assert t.tr.get_status()["overfill"] and t.tr.jammed and t.tr.jam_backoffs == 1
    t.entry.set(1)
    t.run(1000)
    t.tr.reset()
    assert t.tr.get_status() == dict(FRESH, rejected_edges=t.tr.photo.rejected)
    assert t.tr.jam_backoffs == 0 and t.tr.idle()
    # and the next wall is built from scratch: 3 tiles, numbered from 1, the odd one pushed
    faults = list(t.ctl.faults)
    t.ctl.tiles = []
    t.tr.arm(3)
    for colour in (1, 1, 2):
        t.tile(colour)
    t.run(1000)
    assert t.ctl.tiles == [(2, 1, 1), (2, 2, 1), (2, 3, 2)]
    st = t.tr.get_status()
    assert (st["wall_done"], st["stacked"], st["pushed"], st["colours"]) == (True, 3, 2, [0, 2, 1])
    assert t.ctl.full == [2] and t.ctl.faults == faults  # no new fault


def test_a_wall_of_one_tile_is_done_and_reported_once_even_when_armed_again():
    t = T()
    t.tr.arm(1)
    assert not t.tr.get_status()["wall_done"] and t.tr.short()
    t.tile()
    t.run(1000)
    assert t.ctl.full == [2] and not t.tr.short() and t.tr.get_status()["armed"]
    t.tr.arm(1)  # a resume with the wall already there
    t.run(100)
    assert t.ctl.full == [2] and t.gate.level == 0
    t.tr.disarm()
    assert t.tr.get_status()["armed"] is False


def test_arming_opens_the_gate_only_below_the_target_and_flags_only_beyond_it():
    t = T()
    t.tr.arm(0)  # no wall on this track: done at once, gate shut
    assert t.tr.get_status()["wall_done"] is True and t.gate.level == 0
    t = T()
    t.tr.arm(2)
    t.tile()
    t.tr.arm(1)  # the count is the target: shut, not overfull
    st = t.tr.get_status()
    assert t.gate.level == 0 and st["overfill"] is False and st["wall_done"] is False
    t.tr.arm(2)
    assert t.gate.level == 1
    t.tr.arm(0)  # fewer than counted: overfull
    assert t.tr.get_status()["overfill"] is True and t.gate.level == 0
    t = T()
    t.tr.arm(4)
    t.entry.set(0)
    t.run(401)
    t.tr.arm(4)  # armed again while jammed: the gate stays shut
    assert t.tr.jammed and t.gate.level == 0


def test_the_colour_is_read_colour_delay_after_the_edge_and_the_jam_found_jam_after_it():
    t = T()
    t.tr.arm(4)
    t.see(1)
    t.entry.set(0)
    t.run(7)
    assert t.ctl.tiles == []
    t.run(1)  # 8 ms to the microsecond
    assert t.ctl.tiles == [(2, 1, 1)]
    t.run(391)
    assert not t.tr.jammed
    t.run(1)  # 400 ms to the microsecond
    assert t.tr.jammed and t.tr.get_status()["jams"] == 1


def test_every_colour_is_read_at_its_own_tiles_time():
    """The sensor shows a tile's colour only from 5 ms after its edge: each read comes a
    colour delay (8 ms) after its own tile's edge, the ring's slots in turn."""
    t = T()
    t.tr.arm(12)
    want = []
    for k in range(10):
        colour = 1 + k % 2
        t.see(0)
        t.entry.set(0)
        t.run(5)
        t.see(colour)
        t.run(25)
        t.entry.set(1)
        t.run(220)
        want.append((2, k + 1, colour))
    assert t.ctl.tiles == want


def test_two_tiles_in_one_colour_delay_are_each_read_in_time_and_both_stacked():
    """A tile close behind another (its edge 5 ms later, the beam dark throughout): each
    read after its own edge, both stacked once the beam clears."""
    t = T()
    t.tr.arm(2)
    t.see(1)
    t.entry.set(0)
    t.run(1)
    t.entry.set(1)
    t.run(4)
    t.entry.set(0)  # the second tile's edge, 5 ms after the first's
    t.run(5)
    t.see(2)  # read 1 came at 8 ms; read 2 comes at 13
    t.run(7)
    assert t.ctl.tiles == [(2, 1, 1), (2, 2, 2)] and t.tr.stacker.stacked == 0
    t.entry.set(1)
    t.run(1000)
    st = t.tr.get_status()
    assert (st["stacked"], st["colours"], st["wall_done"]) == (2, [0, 1, 1], True)


def test_tiles_counted_while_the_task_was_held_are_all_read_in_order_at_once():
    """Nine edges with no task step between them (the task loop held up): the ring keeps
    eight edge times, so the oldest is read at once, then each in turn."""
    t = T()
    t.tr.arm(12)
    t.see(1)
    for k in range(9):  # the IRQ only
        t.entry.set(0)
        t.clock.us += 4000
        t.entry.set(1)
        t.clock.us += 4000 if k < 8 else 1000  # (the last edge 5 ms ago)
    assert t.tr.count == 9 and t.ctl.tiles == []
    t.step()
    assert t.ctl.tiles[:1] == [(2, 1, 1)]  # now, not a colour delay later
    t.run(1000)
    assert [i for _, i, _ in t.ctl.tiles] == list(range(1, 10))


def test_a_bounce_after_the_tile_left_re_arms_its_jam_check_at_the_same_deadline():
    """A tile's beam clears (its jam check parked), then darkens again with an edge the
    debounce rejects: the check runs at the tile's own deadline (edge + 400 ms)."""
    for dark_at, jam_at in ((100, 400), (399, 400)):
        t = T()
        t.tr.arm(4)
        t.entry.set(0)
        t.run(dark_at - 1)
        t.entry.set(1)
        t.run(1)
        t.entry.set(0)  # 1 ms after the rise: a bounce, not a tile
        t.tr.service()
        assert t.tr.count == 1 and t.tr.photo.rejected == 1
        t.run(jam_at - dark_at - 1)
        assert not t.tr.jammed, dark_at
        t.run(1)
        assert t.tr.jammed and t.tr.jams == 1, dark_at
    t = T()  # dark again exactly at the deadline: checked at once
    t.tr.arm(4)
    t.entry.set(0)
    t.run(398)
    t.entry.set(1)
    t.run(2)
    t.entry.set(0)
    t.tr.service()
    t.sched.run()
    assert t.tr.jammed


def test_two_jams_are_two_and_a_jam_beyond_its_retries_stays_jammed():
    t = T()
    t.tr.arm(4)
    for _ in range(2):
        t.entry.set(0)
        t.run(401)
        t.run(300)
        t.entry.set(1)
        t.run(500)
        assert not t.tr.jammed
    assert t.tr.jams == 2
    t.entry.set(0)
    t.run(5000)
    assert t.ctl.faults == [(codes.FAULT_JAM, 2)] and t.tr.get_status()["jammed"] is True


def test_a_jam_cleared_reopens_the_gate_only_when_armed_and_short():
    t = T()
    t.tr.arm(1)  # its only tile jams
    t.entry.set(0)
    t.run(410)
    t.entry.set(1)
    t.run(600)
    assert not t.tr.jammed and t.gate.level == 0
    t = T()
    t.tr.arm(4)
    t.entry.set(0)
    t.run(410)
    t.tr.disarm()  # paused during the jam
    t.entry.set(1)
    t.run(600)
    assert not t.tr.jammed and t.gate.level == 0


def test_idle_only_with_every_tile_read_stacked_and_the_stacker_still():
    t = T()
    t.tr.arm(4)
    t.entry.set(0)
    t.tr.service()
    assert not t.tr.idle()  # counted, not read
    t.run(10)
    assert t.ctl.tiles and not t.tr.idle()  # read, waiting for the beam to clear
    t.entry.set(1)
    t.step()
    assert not t.tr.idle()  # stacking
    t.run(1000)
    assert t.tr.idle()


def test_a_track_without_a_sensor_or_classifier_reads_unknown_and_set_classifier_takes_over():
    class Always2:
        def classify(self, c, r, g, b):
            return 2

    t = T()
    t.tr._colour_bus = None  # (built without a colour bus)
    t.tr.arm(4)
    t.tile(1)
    t2 = T()
    t2.tr.set_classifier(None)
    t2.tr.arm(4)
    t2.tile(1)
    t2.tr.set_classifier(Always2())
    t2.tile(1)
    assert t.ctl.tiles == [(2, 1, 0)] and t2.ctl.tiles == [(2, 1, 0), (2, 2, 2)]


def test_service_lowers_the_edge_flag_and_an_edge_wakes_the_task():
    t = T()
    t.tr.arm(4)
    t.sched.wake.up = False
    t.entry.set(0)
    assert t.tr.photo.changed and t.sched.wake.up
    t.tr.service()
    assert t.tr.photo.changed is False


def test_a_track_serviced_with_no_tile_reads_nothing_even_after_a_reset_mid_tile():
    t = T()
    t.tr.arm(4)
    t.run(100)  # the task loop looks with no edge yet
    assert t.ctl.tiles == [] and t.tr.idle()
    t.entry.set(0)
    t.run(5)
    t.tr.reset()  # the wall lifted away with a tile in the beam
    t.ctl.tiles = []
    t.entry.set(1)  # it leaves: a rising edge, no tile
    t.run(500)
    assert t.ctl.tiles == [] and t.tr.count == 0 and t.tr.idle()


def test_a_cleared_jam_and_a_stop_say_so_in_the_status():
    t = T()
    t.tr.arm(4)
    t.entry.set(0)
    t.run(410)
    t.run(300)
    t.entry.set(1)
    t.run(500)
    assert t.tr.get_status()["jammed"] is False and t.tr.get_status()["armed"] is True
    t.tr.stop()
    st = t.tr.get_status()
    assert st["armed"] is False and st["gate_open"] is False


def test_an_overfill_after_a_reset_is_reported_again():
    t = T()
    t.tr.arm(1)
    t.tile()
    t.tile()
    t.run(500)
    t.tr.reset()
    t.tr.arm(1)
    t.tile()
    t.tile()
    t.run(500)
    assert t.ctl.faults == [(codes.FAULT_OVERFILL, 2)] * 2


def test_after_a_stop_or_reset_a_bounce_starts_no_jam_back_off():
    """A tile left the beam (its jam check parked), then the track is stopped (or reset):
    a bounce that darkens the beam afterwards moves nothing, however long it stays dark."""
    for how in ("stop", "reset"):
        t = T()
        t.tr.arm(4)
        t.entry.set(0)
        t.run(100)
        t.entry.set(1)  # the tile left: its check parked until edge + 400 ms
        t.run(1)
        getattr(t.tr, how)()
        t.entry.set(0)  # 1 ms after the rise: a bounce
        t.tr.service()
        assert t.tr.photo.rejected == 1
        t.run(1000)
        assert (t.tr.jams, t.tr.jammed, t.pusher.level, t.tr.stacker.backoffs) == (0, False, 0, 0), how
