# The firmware and the simulator in one MicroPython process (the unix port, bounded
# heap), driven through the wire by hw_sim.driver: a Mixed Deck split (two builds) and
# the rotation that follows, then a normal-rotation build.  Run by
# tests/unit/test_sim_micropython.py (which also runs this very script under CPython and
# compares the DIGEST lines: same seed, same tiles per track on both runtimes).
# Prints OK <name> per check; exits 1 on a failure.
import gc
import sys

# MicroPython: a collection every 32 KiB allocated keeps the live objects packed (as in
# sim_heap_lock.py: with modules compiled from source into this heap, its layout alone
# decided whether a compile or a list found room in one piece)
if hasattr(gc, "threshold"):
    gc.threshold(32768)

from hw_sim.driver import Driver
from hw_sim.inprocess import InProcessTable
from hw_sim.tiles import standard_set


def check(name, cond):
    if not cond:
        print("FAIL", name)
        sys.exit(1)
    print("OK", name)


def digest(tab):
    out = []
    for b in tab.builds:
        h = 0
        for k in range(4):
            for tile in b.tiles[k]:
                h = (h * 31 + tile * 7 + k) & 0xFFFFFFFF
        out.append("%d:%d:%d" % (b.n, h, b.last_mech_us - b.start_us))
    return " ".join(out)


S = standard_set()
BOARD = sys.argv[1] if len(sys.argv) > 1 else "reference-18"  # (fourport-24v: issue 47)
t = InProcessTable(BOARD, [S, S], seed=11, mixed_deck=True, wire_size=1024)
d = Driver(t, keep_events=False)
ident = d.connect()
check("handshake", ident[3] == BOARD)
a = d.build(1, [34, 34, 34, 34], 17, [1, 2], 0)
check("split build A", a is not None)
check("hand over", d.hand_over())
b = d.build(2, [34, 34, 34, 34], 17, [1, 2], 1)
check("split build B", b is not None)
check("mixer empty after B", b[2] == 1 and t.table.mixer.count() == 0)
# every tile sensed: the firmware's colour counts equal the simulator's backs
tab = t.table
ok = True
for bd, br in ((a, tab.builds[0]), (b, tab.builds[1])):
    for k in range(4):
        blue = 0
        green = 0
        for tile in br.tiles[k]:
            if tab.tiles.backs[tile] == 1:
                blue += 1
            else:
                green += 1
        if bd[1][k * 3] != 0 or bd[1][k * 3 + 1] != blue or bd[1][k * 3 + 2] != green:
            ok = False
check("colour counts match the backs", ok)
check("split composition", sum(bd for bd in a[1]) + sum(bd for bd in b[1]) == 272)
check("hand over 2", d.hand_over())
c = d.build(3, [34, 34, 34, 34], 17, [1, 2], 1)
check("rotation build 3", c is not None)


def colour_total(done, cls):
    n = 0
    for k in range(4):
        n += done[1][k * 3 + cls]
    return n


# deck A came back down through the door: its colour composition is reproduced exactly
check("deck A's composition reproduced", colour_total(c, 1) == colour_total(a, 1) and colour_total(c, 2) == colour_total(a, 2))
for br in tab.builds:
    real = br.last_mech_us - br.start_us
    bound = tab.bound_us(br)
    check("build %d within 2%% of its bound" % br.n, bound is not None and real * 98 <= bound * 100)
check("no missed tiles", sum(len(tab.missed(br)) for br in tab.builds) == 0)
check("no wiring complaints", tab.wiring == [])
print("DIGEST", digest(tab), t.boot_nonce)
