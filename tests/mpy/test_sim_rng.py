# Runs under the MicroPython unix port (tests/unit/test_micropython.py): the simulator's
# PRNG gives exactly the sequences CPython gives (tests/unit/test_rng.py has the same
# golden numbers), so a seed means the same table on both runtimes.
import sys

from hw_sim import rng
from hw_sim.rng import Rng


def check(name, cond):
    if not cond:
        print("FAIL", name)
        sys.exit(1)
    print("OK", name)


r = Rng(12345, 1)
check("golden next_u32", [r.next_u32() for _ in range(6)] == [3363559355, 233826298, 1315500002, 4013905459, 2084346255, 898005217])
r = Rng(2**40 + 7, 64)
check("golden below", [r.below(1000) for _ in range(8)] == [304, 755, 708, 55, 737, 847, 398, 255])
a = list(range(20))
Rng(9, 1).shuffle(a)
check("golden shuffle", a == [7, 5, 16, 8, 12, 2, 4, 14, 19, 13, 1, 11, 15, 0, 17, 18, 10, 3, 9, 6])
r = Rng(3, rng.MIX)
ok = True
for _ in range(1000):
    v = r.next_u32()
    if v < 0 or v > 0xFFFFFFFF:
        ok = False
check("32-bit values", ok)
check("prob_u32", rng.prob_u32(0.5) == 2147483648)
