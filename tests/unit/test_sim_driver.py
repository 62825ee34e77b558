"""hw_sim.driver: the minimal protocol host the simulator's tests and benches use."""
import pytest

from hw_sim.driver import Driver
from hw_sim.inprocess import InProcessTable
from protocol import messages as m
from sim_helpers import SET


def test_connect_command_events():
    t = InProcessTable("reference-18", [SET, SET], seed=1)
    d = Driver(t)
    ident = d.connect()
    assert ident[6] == 4 and d.link.connected
    code, field = d.command("configure_build", 1, [44] * 4, 22, [1, 2], 1)
    assert (code, field) == (m.E_UNSUPPORTED, 2)  # 22 stacks on an 18-stack table
    code, field = d.command("configure_build", 1, [34] * 4, 17, [1, 2], 1)
    assert code == 0
    assert d.seen("result") >= 2 and d.last["result"][1] == m.CONFIGURE_BUILD
    d.run_for(1000)
    assert d.faults() == []
    with pytest.raises(RuntimeError):
        Driver(InProcessTable("reference-18", [SET, SET], seed=1)).send("build", 1)  # no session yet


def test_nonces_are_deterministic():
    a = Driver(InProcessTable("reference-18", [SET, SET], seed=1), nonce_seed=7)
    b = Driver(InProcessTable("reference-18", [SET, SET], seed=1), nonce_seed=7)
    assert a.connect()[5] == b.connect()[5]
