"""hostd/core/codes.py: what happens next, as a code, from the one state."""
from hostd.core.codes import Context, next_step
from hostd.core.state import State


def test_an_open_centre_outranks_the_throw():
    """While the centre is open for the played tiles (building, stage push), what to do
    now is the push, even before the hand's dice were thrown; the dice come after."""
    ctx = Context()
    pushing = State("building", {"hand": 2, "game": 1, "thrown": False, "deck": "B", "top": "A",
                                 "stage": "push", "until": 1795790000.0})
    n = next_step(pushing, ctx)
    assert n["code"] == "push_rest" and n["action"] == "continue" and n["params"]["deck"] == "B"
    after = State("building", {"hand": 2, "game": 1, "thrown": False, "deck": "B", "top": "A"})
    assert next_step(after, ctx)["code"] == "press_dice"
