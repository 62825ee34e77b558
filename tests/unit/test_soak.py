"""A short soak (bench/soak.py runs 1,000 hands): one Mixed Deck session with a random
recoverable fault on about every other build — it completes, every hand is journalled
once, every guard break and reset is journalled and recovered."""
import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load_soak():
    spec = importlib.util.spec_from_file_location("soak", ROOT / "bench" / "soak.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


import pytest


@pytest.mark.parametrize("board", [None, "fourport-24v"], ids=["reference", "fourport"])
def test_short_soak_with_random_faults(tmp_path, board):
    soak = load_soak()
    db = str(tmp_path / "journal.sqlite")
    specs, out, ok, wall, rss, _ = soak.run(24, 5, 2, db, board=board)
    problems, fired, nfaults = soak.check(specs, out, ok, db)
    assert problems == []
    injected = {s.split(":")[0] for s in specs}
    assert {"guard", "reset"} & injected  # the plan really injects what is checked
    assert len(out["hands"]) == 24
    assert nfaults == fired.get("guard", 0) + fired.get("reset", 0)
