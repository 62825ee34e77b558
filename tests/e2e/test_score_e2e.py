"""The game's ledger through the real daemon and the CLI (`jantaku score`): results entered
one at a time, the daemon killed with SIGKILL between entries, and nothing lost."""
import json
import signal

from tests.e2e.conftest import start_daemon, start_sim

ENTRIES = [
    ["seats", "names.west=Mika", "names.east=Aki"],
    ["riichi", "player=south"],
    ["ron", "winner=west", "from=south", "han=3", "fu=30"],
    ["draw", "tenpai=north,east"],
    ["tsumo", "winner=north", "han=2", "fu=30"],
]


def test_a_sigkill_between_entries_loses_none(tmp_path, hil_port):
    if hil_port:
        import pytest

        pytest.skip("kills the daemon beside the simulated table only")
    sim, port = start_sim(tmp_path, "--ruleset", "riichi", "--seed", "11")
    db = str(tmp_path / "journal.sqlite")
    try:
        d = start_daemon(tmp_path, port, db=db, name="daemon0")
        d.wait(lambda s: s["table"]["connected"], what="the table to connect")
        d.cli("session", "start", "--ruleset", "riichi")
        answered = None
        for i, entry in enumerate(ENTRIES):
            answered = json.loads(d.cli("score", "add", *entry, "--json").stdout)
            d.proc.kill(signal.SIGKILL)  # at once after the answer: it must be on the disk
            d = start_daemon(tmp_path, port, db=db, name="daemon%d" % (i + 1))
            d.wait(lambda s: s["session"] is not None, what="the session resumed")
            now = json.loads(d.cli("score", "--json").stdout)
            assert now == answered, (entry, now, answered)
        assert answered["entries"] == 4  # (the seats are not a result)
        assert answered["players"]["west"]["name"] == "Mika"
        assert {k: p["points"] for k, p in answered["players"].items()} == {
            # south's riichi stick and 3,900 go to west; at the draw each noten player
            # (south, west) pays 1,500 to each tenpai one; south dealt and was noten, so
            # west deals with 1 honba: north's 2 han 30 fu tsumo is 1,000 from the dealer
            # and 500 from the others, 100 more each for the honba
            "east": 25000 + 1500 - 600, "south": 20100 - 1500 - 600,
            "west": 29900 - 1500 - 1100, "north": 25000 + 1500 + 2300}
        text = d.cli("score").stdout
        assert "West (Mika)" in text and "4 entries" in text
        csv_text = d.cli("score", "export", "--format", "csv").stdout
        assert csv_text.splitlines()[0].startswith("n,kind,entry") and len(csv_text.splitlines()) == 5
    finally:
        d.proc.kill()
        sim.kill()
