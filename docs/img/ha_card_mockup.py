"""A MOCK-UP of a Home Assistant entities card for one table (docs/FLEET.md "Home
Assistant"): not Home Assistant's rendering.  The rows are real: the table's discovery
configs (hostd/fleet/ha.py), each value template rendered with Jinja2 as Home Assistant renders
it, on the status a real daemon (the in-process simulated table) gave after its first
hand; only the drawing is ours.  Draws ha-card-mockup.png next to this file with Debian's
chromium (headless), from a page made in a temporary folder.

    .venv/bin/python docs/img/ha_card_mockup.py
"""
import asyncio
import html
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))


async def a_status(tmp):
    """compact_status of a real daemon after its first hand and throw."""
    from hostd import logging as jlog
    from hostd.core.daemon import Daemon
    from hostd.table.sim import board_profile
    from hostd.cli.demo import sim_sets
    from hostd.core.journal import Journal
    from hostd.fleet.mqtt import compact_status
    from hostd.rules.rulesets import get_ruleset
    from hostd.table.transport import InProcessTransport
    from hw_sim.inprocess import InProcessTable

    jlog.configure("error")
    colours = ("blue", "green")
    sim = InProcessTable(board_profile(), sim_sets(get_ruleset("riichi"), colours), seed=7,
                         keep_builds=4)
    journal = Journal(os.path.join(tmp, "j.sqlite"))
    d = Daemon(transport=InProcessTransport(sim), journal=journal, seed=7, colours=colours,
               resume=False)
    await d.start()
    await d.link.wait_connected(timeout=30)
    await d.start_session("riichi", False, 7, colours=colours)
    while d._busy():
        await asyncio.sleep(0)
    await d.hand_over()
    while d._busy():
        await asyncio.sleep(0)
    await d.throw_dice(by="api")
    st = dict(compact_status(d.status()), id="t1", events_dropped=0)
    await d.close()
    journal.close()
    return st


def main():
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    from hostd.fleet import ha

    with tempfile.TemporaryDirectory(prefix="jantaku-ha-mockup-") as tmp:
        st = asyncio.run(a_status(tmp))
    env = ImmutableSandboxedEnvironment()
    payload = json.dumps(st)
    rows = []
    for _, c in ha.configs("t1", commands=True, sw_version="0.1.0"):
        if "value_template" in c:
            v = env.from_string(c["value_template"]).render(value=payload,
                                                            value_json=json.loads(payload))
            if c.get("device_class") == "connectivity":
                v = "Connected" if v == "ON" else "Disconnected"
            v = "Unknown" if v == "None" else v
            unit = c.get("unit_of_measurement")
            rows.append((c["name"], v + (" " + unit if unit and v != "Unknown" else "")))
        elif c.get("state_topic", "").endswith("/availability"):
            rows.append((c["name"], "Connected"))
        elif "command_topic" in c:
            rows.append((c["name"], "PRESS"))
    trs = "\n".join(
        '<tr><td class="n">%s</td><td class="v%s">%s</td></tr>' % (
            html.escape(n), " b" if v == "PRESS" else "", html.escape(v)) for n, v in rows)
    page = """<!doctype html><meta charset="utf-8"><title>MOCK-UP</title>
<style>
body{margin:0;padding:24px;background:#fafafa;font:14px/1.4 Roboto,"DejaVu Sans",sans-serif;
color:#212121;width:460px}
.label{background:#ffe082;border:2px dashed #c62828;color:#b71c1c;font-weight:bold;
padding:8px 12px;margin-bottom:14px;font-size:12px}
.card{background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.2);padding:16px}
h1{font-size:22px;font-weight:400;margin:0 0 12px}
table{width:100%%;border-collapse:collapse}
td{padding:9px 0;vertical-align:top}
td.n{color:#212121;width:38%%}
td.v{color:#424242;text-align:right}
td.b{color:#03a9f4;font-weight:500;letter-spacing:.05em}
</style>
<div class="label">MOCK-UP &mdash; not a Home Assistant screenshot. Drawn by
docs/img/ha_card_mockup.py: the rows are table t1's real discovery configs, their
templates rendered with Jinja2 on a real daemon's status after its first hand.</div>
<div class="card"><h1>Table t1</h1><table>
%s
</table></div>
""" % trs
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("ha_card_mockup: chromium is not installed (Debian package `chromium`): "
              "nothing drawn")
        return 1
    png = os.path.join(HERE, "ha-card-mockup.png")
    with tempfile.TemporaryDirectory(prefix="jantaku-chromium-") as tmp:
        out_html = os.path.join(tmp, "card.html")
        with open(out_html, "w") as f:
            f.write(page)
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", "--user-data-dir=" + os.path.join(tmp, "profile"),
                        "--window-size=508,%d" % (300 + 44 * len(rows)),
                        "--screenshot=" + png, "file://" + out_html],
                       check=True, capture_output=True, timeout=120)
    print("wrote", png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
