"""The wiring survey through the CLI (issue 47 point 4): `jantaku survey` against `jantaku
sim serve --shuffle-wiring` (a table wired another way than its profile says) over a real
pseudo-terminal, a simulated person answering its questions: pressing the switch it names
when it watches (`jantaku sim hold`), saying what moved after each pulse (`jantaku sim
look`).  It finds the true map and writes it into the club's profile; the scripted form
(--answers) with a wrong answer is refused and writes nothing.  As docs/RETROFIT.md has
it: the inputs first; found elsewhere than the draft said, they are written and flashed
before the outputs move (`--only outputs`)."""
import json
import subprocess

import pytest

from firmware import profile as fprofile
from hostd.bringup import survey as S
from hw_sim.rewire import shuffled
from tests.e2e.conftest import ROOT, start_daemon, start_sim, tool

pytestmark = pytest.mark.e2e

SPEED = 5  # (the person's hold starts 0.5 s of the wall after they press Enter)


@pytest.fixture
def rig(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    procs = []

    def start(board, seed):
        sim, port = start_sim(tmp_path, "--ruleset", "riichi", "--board", board,
                              "--shuffle-wiring", str(seed), "--link", str(tmp_path / "jt"),
                              speed=SPEED)
        procs.append(sim)
        d = start_daemon(tmp_path, port)
        procs.append(d.proc)
        d.wait(lambda s: s["table"]["connected"], what="the table to connect")

        def flash():
            """The profile the survey wrote installed: the (simulated) board restarts with
            it, on the same port; the daemon connects again."""
            procs.remove(sim_now[0])
            sim_now[0].kill()
            d.wait(lambda s: not s["table"]["connected"], what="the table to go")
            sim_now[0], _ = start_sim(tmp_path, "--ruleset", "riichi", "--board", board,
                                      "--shuffle-wiring", str(seed), "--link",
                                      str(tmp_path / "jt"), speed=SPEED, name="sim2")
            procs.append(sim_now[0])
            d.wait(lambda s: s["table"]["connected"], timeout=60, what="the table again")

        sim_now = [sim]
        d.flash = flash
        return d, port

    yield start
    for p in reversed(procs):
        p.kill()


def person(d, port, board, args=(), say=None):
    """Run `jantaku survey` and answer it as a person at the simulated table; returns
    (exit code, stdout, stderr)."""
    cat = S.catalogue(fprofile.load(board))
    by_words = {S.spoken(s): s for s, _, _ in cat["inputs"]}

    def sim(*a):
        return subprocess.run([tool("jantaku"), "sim"] + list(a) + ["--link", port],
                              capture_output=True, text=True, timeout=30).stdout.strip()

    p = subprocess.Popen([tool("jantaku"), "survey", "--api", d.url, "--watch-s", "20"] + list(args),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, cwd=str(ROOT))
    err, line, last = [], "", ""
    try:
        while True:
            ch = p.stderr.read(1)
            if not ch:
                break
            line += ch
            if ch == "\n":
                err.append(line)
                last, line = line, ""
                if "(watching" in last:  # the scripted form watches at once: press now
                    name = last.split("] ", 1)[1].split(":", 1)[0]
                    sim("hold", by_words[name], "--after-ms", "2500", "--ms", "2500")
            elif line == "> ":
                err.append(line)
                line = ""
                if "Enter to start watching" in last:
                    name = last.split("] ", 1)[1].split(":", 1)[0]
                    sim("hold", by_words[name], "--after-ms", "2500", "--ms", "2500")
                    answer = ""
                else:
                    seen = sim("look")
                    answer = say(last, seen) if say else (seen.splitlines()[0] if seen else "nothing")
                p.stdin.write(answer + "\n")
                p.stdin.flush()
        out = p.stdout.read()
        p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    return p.returncode, out, "".join(err)


def test_the_survey_finds_a_shuffled_tables_map_and_writes_it(rig, tmp_path):
    d, port = rig("pico-18", 11)
    # the inputs first, the motors' supply off: not where the draft said, so they are
    # written and flashed before anything moves
    rc, out, err = person(d, port, "pico-18", ["--json"])
    assert rc == 0, err[-3000:]
    rep = json.loads(out)
    assert "--only outputs" in rep["next"] and "next: " in err
    d.flash()
    rc, out, err = person(d, port, "pico-18", ["--json", "--only", "outputs"])
    assert rc == 0, err[-3000:]
    rep = json.loads(out)
    truth = fprofile.validate(shuffled(json.loads((ROOT / "firmware" / "boards" / "pico-18.json")
                                                  .read_text()), 11))
    written = fprofile.validate(json.loads(
        (tmp_path / "cfg" / "jantaku" / "boards" / "pico-18.json").read_text()))
    assert written["pins"] == truth["pins"]
    assert rep["profile"]["backup"] and "flash" in rep["profile"]["note"] and "next" not in rep
    for name in ("lift_dir", "door_dir", "lift_top", "door_open", "door_closed"):
        inv = lambda p: bool(((p.get("pin_options") or {}).get(name) or {}).get("invert"))
        assert inv(written) == inv(truth), name
    assert "survey" in d.status()["can"]


def test_the_scripted_survey_refuses_an_output_that_moved_nothing_and_writes_nothing(rig, tmp_path):
    d, port = rig("reference-18", 4)
    draft = fprofile.load("reference-18")
    chans = S.channels(draft)
    answers = {"outputs": {str(c["pins"][0]): ["nothing"] * len(S.pulses(c)) for c in chans},
               "skip": []}
    (tmp_path / "answers.json").write_text(json.dumps(answers))
    rc, out, err = person(d, port, "reference-18", ["--answers", str(tmp_path / "answers.json"),
                                                    "--only", "outputs"])
    assert rc == 1
    assert "moved nothing" in err and "nothing written" in err
    assert not (tmp_path / "cfg" / "jantaku" / "boards" / "reference-18.json").exists()
