"""The demo over a real pseudo-terminal (`jantaku sim serve` in a child process): the same
seed gives the same decks and builds as in-process, on either firmware runtime."""
import json
import subprocess

import pytest

from tests.conftest import ROOT, tool

pytestmark = pytest.mark.e2e


def demo(*args):
    r = subprocess.run([tool("jantaku"), "demo", "--json", "--ruleset", "riichi", "--mixed-deck",
                        "--hands", "2", "--seed", "42"] + list(args),
                       capture_output=True, text=True, timeout=300, cwd=str(ROOT))
    assert r.returncode == 0, r.stderr + r.stdout
    return json.loads(r.stdout)


def essence(out):
    return (out["decks"], [(b["deck"], b["per_track"], b["backs"]) for b in out["builds"]])


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_pty_transport_reproduces_the_inprocess_session(runtime, hil_port):
    if hil_port:
        pytest.skip("the demo drives the simulated table only")
    ref = demo()
    out = demo("--transport", "pty", "--firmware-runtime", runtime)
    assert out["firmware"]["implementation"] == runtime
    assert essence(out) == essence(ref)
    assert out["faults"] == []


def test_players_on_the_buttons_over_the_pty_get_the_same_session(hil_port):
    if hil_port:
        pytest.skip("the demo drives the simulated table only")
    ref = demo()
    out = demo("--transport", "pty", "--via", "buttons")
    assert essence(out) == essence(ref) and out["faults"] == []
    assert [(h["by"], h["dice"]) for h in out["hands"]] == [("button", h["dice"]) for h in ref["hands"]]
