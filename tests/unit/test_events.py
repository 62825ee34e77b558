"""hostd/core/events.py: every event the daemon publishes is declared, the docs' table is
made from the declarations, and the page reads only declared events."""
import pathlib
import re

import pytest

from hostd.core import events

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_api_md_lists_every_event_as_its_model_declares_it():
    assert events.event_rows() in (ROOT / "docs" / "API.md").read_text()


def test_an_event_that_does_not_fit_its_model_is_caught(monkeypatch):
    ok = {"type": "guard", "curtain": True, "lid": False}
    assert events.check(ok) is None
    for bad, words in (({"type": "guard", "curtain": True}, "lid"),
                       ({"type": "guard", "curtain": True, "lid": True, "door": 1}, "door"),
                       ({"type": "guard", "curtain": "yes", "lid": True}, "curtain"),
                       ({"type": "teleport"}, "no model for event type 'teleport'")):
        with pytest.raises(events.EventDrift, match=words):
            events.check(bad)
    monkeypatch.setattr(events, "STRICT", False)  # the daemon: logged, still sent
    assert "lid" in events.check({"type": "guard", "curtain": True})


def test_the_page_handles_only_declared_events():
    app = (ROOT / "hostd" / "web" / "page" / "app.js").read_text()
    handled = set(re.findall(r'case "([a-z_]+)":', app))
    assert handled and handled <= set(events.MODELS), handled - set(events.MODELS)
    typed = set(re.findall(r'(?<!typeof )\be\.type === "([a-z_]+)"', app))
    assert typed <= set(events.MODELS), typed - set(events.MODELS)


def test_the_health_reader_takes_the_build_health_models_fields():
    from hostd.bringup import health

    src = pathlib.Path(health.__file__).read_text()
    fields = set(events.TrackHealth.model_fields) | set(events.BuildHealth.model_fields)
    read = set(re.findall(r'\[\s*"(tracks|track|tiles|unknown|means|build)"\s*\]', src))
    assert read and read <= fields, read - fields


def test_every_event_the_code_sends_by_name_has_a_model():
    """A type sent by its literal (`emit("build_resumed", ...)`, `publish({"type": ...})`)
    with no model would be refused under STRICT and logged as drift in the daemon: a build
    carried on after a restart (`build_resumed`) was sent so, undeclared."""
    sent = set()
    pattern = re.compile(r'\b(?:emit|_emit|publish|_on)\(\s*'
                         r'(?:"([a-z_]+)"|\{\s*"type":\s*"([a-z_]+)")')
    for path in (ROOT / "hostd").rglob("*.py"):
        for a, b in pattern.findall(path.read_text()):
            sent.add(a or b)
    assert len(sent) > 20 and "build_resumed" in sent, sorted(sent)
    assert sent <= set(events.MODELS), sorted(sent - set(events.MODELS))
