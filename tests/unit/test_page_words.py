"""The page's words (hostd/web/page/words.js), run by Node: the Japanese table has every word
of the English one, and the daemon's own sentences (what to do next, faults, refusals),
gathered from real runs of the daemon (daemon_sentences.py) and from its tables of
fault texts and asks, all translate: a new English sentence without its Japanese fails
here, naming it."""
import json
import shutil
import subprocess

import pytest

from tests.conftest import ROOT

NODE = shutil.which("node") or shutil.which("nodejs")
pytestmark = pytest.mark.skipif(NODE is None, reason="needs Node.js to run the page's "
                                "words.js (Debian package `nodejs`; .ci/run installs it)")

RUN = r"""
const vm = require("vm"), fs = require("fs");
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const ctx = { window: { localStorage: { getItem: () => input.lang } },
              navigator: { language: "en-GB" } };
vm.createContext(ctx);
vm.runInContext(fs.readFileSync(input.file, "utf8"), ctx);
const w = ctx.window, EN = w.JANTAKU_WORDS_EN, JA = w.JANTAKU_WORDS_JA;
function holes(en, ja, path, out) {  // keys of `en` that `ja` lacks or gives another shape
  Object.keys(en).forEach((k) => {
    const p = path + k;
    if (!(k in ja) && k !== "say") out.push(p + " (missing)");
    else if (en[k] && typeof en[k] === "object") {
      if (!ja[k] || typeof ja[k] !== "object") out.push(p + " (not a table)");
      else holes(en[k], ja[k], p + ".", out);
    } else if (typeof en[k] !== typeof ja[k] && k !== "say") out.push(p + " (" + typeof ja[k] + ")");
  });
  return out;
}
const said = input.sentences.map((s) => [s, JA.say(s), EN.say(s)]);
process.stdout.write(JSON.stringify({
  holes: holes(EN, JA, "", []), said: said, missed: Array.from(JA.say.missed),
  chosen: w.JANTAKU_WORDS.lang,
}));
"""


def words(sentences=(), lang="ja"):
    r = subprocess.run([NODE, "-e", RUN], input=json.dumps({
        "file": str(ROOT / "hostd" / "web" / "page" / "words.js"), "sentences": list(sentences),
        "lang": lang}), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_the_japanese_table_has_every_english_word():
    out = words()
    assert out["holes"] == []
    assert out["chosen"] == "ja"
    assert words(lang="en")["chosen"] == "en"


def daemon_tables():
    """Every ask and fault text the daemon has, filled in as the daemon fills them."""
    from hostd.core.session import ASK
    from hostd.table.client import FAULT_TEXT

    texts = [t.format(deck="B", track=3) for t in ASK.values()]
    texts += [t.format(track=2, detail=0) for t in FAULT_TEXT.values()]
    return texts


def pairing_refusals():
    """What a browser is told when its pairing code is refused (hostd/web/pairing.py)."""
    from hostd.errors import JantakuError
    from hostd.web.pairing import CODE_TTL_S, MAX_TRIES_ALL, Pairing

    now = [0.0]
    p, out = Pairing(clock=lambda: now[0]), set()
    p.new_code()
    for n in range(2 * MAX_TRIES_ALL):  # one browser too many times, then the network
        try:
            p.exchange("ZZZZ-0000", client="10.0.0.%d" % (n // 6))
        except JantakuError as e:
            out.add(str(e))
    now[0] += CODE_TTL_S + 61
    try:
        p.exchange("ZZZZ-0000", client="10.0.1.1")
    except JantakuError as e:
        out.add(str(e))
    assert len(out) == 4, out  # not right, too old, this browser, the network
    return sorted(out)


def test_every_daemon_sentence_has_its_japanese(tmp_path):
    from daemon_sentences import gather

    sentences = gather(tmp_path) + daemon_tables() + pairing_refusals()
    assert len(sentences) > 80  # the runs met the states they are meant to
    out = words(sentences)
    assert out["missed"] == [], "no Japanese for these parts of the daemon's sentences " \
        "(add a phrase to hostd/web/page/words.js):\n" + "\n".join(out["missed"])
    for english, japanese, same in out["said"]:
        assert same == english  # English is the daemon's own words
        assert japanese != english
        # what stays in Latin letters: commands in backticks, names (rulesets, colours)
        bare = " ".join(japanese.split("`")[0::2])
        words_left = [w for w in bare.replace("(", " ").replace(")", " ").split()
                      if w.isascii() and w.isalpha() and len(w) > 3
                      and w not in ("riichi", "blue", "green", "pink", "reference")]
        assert words_left == [], (english, japanese)


def test_a_sentence_no_phrase_knows_stays_english_and_is_noted():
    out = words(["deck A: counted 3 of 136: a dragon ate it"])
    assert out["said"][0][1] == "デッキA:136枚中3枚:a dragon ate it"
    assert out["missed"] == ["a dragon ate it"]


@pytest.mark.parametrize("english,japanese", [
    ("aborted by request (confirmed when the table came back)", "操作で中止(卓が戻ったときに確認)"),
    ("aborted by request (deck A: counted 49 of 136: track 2 is jammed)",
     "操作で中止(デッキA:136枚中49枚:トラック2が詰まっています)"),
    ("hand 3: the guard was broken: motion stopped",
     "第3局:安全装置(ライトカーテンかふた)が遮られました:動きを止めました"),
    ("dice 3+4 = 7: across breaks, 7 stacks from the right end of their wall; dead wall 14 tiles",
     "サイコロ 3+4 = 7:対面の山を右端から7幢目で割ります。王牌 14枚"),
    ("push every tile on the table top into the centre (the centre is open for 10 s; "
     "`jantaku continue` closes it sooner)",
     "卓上の牌をすべて中央に落としてください(中央は10秒間開いています。「続行」で早く閉じます)"),
])
def test_sentences_read_as_japanese(english, japanese):
    assert words([english])["said"][0][1] == japanese
