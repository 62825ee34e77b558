# Runs under the MicroPython unix port (see tests/unit/test_micropython.py).
import sys

from firmware import compat


def check(name, cond):
    if not cond:
        print("FAIL", name)
        sys.exit(1)
    print("OK", name)


check("runtime is micropython", compat.MICROPYTHON)
a = compat.ticks_ms()
b = compat.ticks_add(a, 1000)
check("ticks_diff of ticks_add", compat.ticks_diff(b, a) == 1000)
wrap = compat.ticks_add(compat.TICKS_MASK, 5)
check("ticks wrap", compat.ticks_diff(wrap, compat.TICKS_MASK) == 5)
name, ver = compat.implementation()
check("implementation name", name == "micropython" and ver.count(".") == 2)
