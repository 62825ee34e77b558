"""hw_sim.tiles: tiles as individuals (face + back colour)."""
import pytest

from hw_sim.tiles import Tiles, standard_set


def test_standard_set():
    s = standard_set()
    assert len(s) == 136
    assert s.count("5m") == 4 and s.count("7z") == 4
    assert len(set(s)) == 34


def test_registry():
    t = Tiles(["blue", "green"])
    a = t.add_set(["1m", "2m"], 1)
    b = t.add_set(["1m", "2m"], 2)
    assert a == [0, 1] and b == [2, 3] and len(t) == 4
    assert t.face(2) == "1m" and t.back(2) == 2 and t.colour(2) == "green"
    assert t.describe([1, 3]) == [["2m", "blue"], ["2m", "green"]]


def test_bad_tiles():
    t = Tiles(["blue"])
    with pytest.raises(ValueError):
        t.add("", 1)
    with pytest.raises(ValueError):
        t.add("1m", 2)
