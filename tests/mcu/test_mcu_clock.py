"""The emulated board's wall clock (tests/mcu/board/mcu_board.CounterClock): ticks from
the MPS2's free-running 25 MHz FPGA counter, which follows the host's time where the
port's own ticks (counted timer interrupts) fall behind when QEMU is starved.  It must
keep the wall's time, extend the counter across its wrap, and allocate nothing."""
import time


def test_mcu_counter_clock_keeps_the_walls_time(board):
    board.soft_reset()
    board.exec("import mcu_board\nc = mcu_board.CounterClock()\nc.ticks_ms()\n")
    t0 = time.monotonic()
    a = int(board.exec("print(c.ticks_ms())"))
    time.sleep(0.5)
    b = int(board.exec("print(c.ticks_ms())"))
    host = (time.monotonic() - t0) * 1000
    # the host's span holds the board's (give or take the REPL's round trips)
    assert 480 <= b - a <= host + 5, (a, b, host)


def test_mcu_counter_clock_extends_the_counter_without_allocating(board):
    """A stand-in register stepped through its 22-bit wrap, big steps and small: the
    clock's ticks are the exact count (1024/25 us a step) modulo 2**30, and reading them
    under micropython.heap_lock() allocates nothing."""
    board.soft_reset()
    out = board.exec('''
import micropython, mcu_board

class Reg:
    c = 0

def run():
    r = Reg()
    r.c = 0x3FFF00
    clk = mcu_board.CounterClock(r)
    total = 0
    bad = 0
    big = 0x3FFFFF  # a whole wrap of the register, less one step (171.8 s)
    for step in (1, 25, 4096, big, 12345, 0x200000, 7, big, big, big, 999, big, big, big, big, 3):
        r.c = (r.c + step) & 0x3FFFFF
        total += step
        micropython.heap_lock()
        try:
            us = clk.ticks_us()
            ms = clk.ticks_ms()
        finally:
            micropython.heap_unlock()
        want_us = total * 1024 // 25
        if us != want_us & 0x3FFFFFFF or ms != (want_us // 1000) & 0x3FFFFFFF:
            bad += 1
    return total, bad

print("CLOCK", *run())
''')
    words = out.split()
    assert words[0] == "CLOCK" and int(words[2]) == 0, out
    assert int(words[1]) * 1024 // 25 > 1 << 30  # the ticks wrapped too
