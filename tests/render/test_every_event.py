"""Every event class is handled by every renderer: adding one to events.py without teaching the
renderers fails here, unless it is put on a renderer's list of deliberately silent events."""

from __future__ import annotations

import io
import json

import pytest

from agentcli import events
from agentcli.events import Event, RunFinished, StepStarted
from agentcli.llm.types import Usage
from agentcli.render import make_renderer
from tests.render.samples import event_classes, sample

SILENT: dict[str, set[type[Event]]] = {
    "plain": {
        events.UsageReported,  # the totals reach the closing line through RunFinished
    },
    "rich": {
        events.UsageReported,  # as for plain
        events.ToolCalled,  # shown inside the TOOL panel when its result arrives (same call id)
        events.ToolProgress,  # a live panel on a terminal only (tests/tools/commands); the result says the rest
        events.StepStarted,  # a step shows what it said; one that said nothing (a failure, a mode switch) nothing
    },
    "json": set(),  # every event is a line
}


def rendered(kind: str, sequence: list[Event]) -> str:
    out, err = io.StringIO(), io.StringIO()
    renderer = make_renderer(kind, out, err)
    for event in sequence:
        renderer.handle(event)
    renderer.close()
    return out.getvalue() + "\x00" + err.getvalue()


EVENT_CLASSES = event_classes()


def test_the_events_module_is_walked_whole() -> None:
    declared = {obj for obj in vars(events).values() if isinstance(obj, type) and issubclass(obj, Event)}
    assert set(EVENT_CLASSES) == declared - {Event}
    assert len(EVENT_CLASSES) >= 14


@pytest.mark.parametrize("kind", sorted(SILENT))
@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=lambda cls: cls.__name__)
def test_each_renderer_shows_each_event_or_says_why_not(kind: str, cls: type[Event]) -> None:
    # Inside a step and before the closing line, where every event can occur: what the renderer holds
    # back (an answer kept for the end, text for a panel) still changes the output.
    before: list[Event] = [StepStarted(step=1, max_steps=15)]
    after: list[Event] = [RunFinished(answer=None, status="finished", usage=Usage(), steps=1, elapsed_s=0.1)]
    shown = rendered(kind, [*before, sample(cls), *after]) != rendered(kind, [*before, *after])
    if cls in SILENT[kind]:
        assert not shown, f"{cls.__name__} is on the {kind} silent list but shows: take it off"
    else:
        assert shown, f"the {kind} renderer ignores {cls.__name__}: render it, or list it in SILENT with a reason"


@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=lambda cls: cls.__name__)
def test_every_json_line_says_the_version_of_its_shape(cls: type[Event]) -> None:
    out, err = rendered("json", [sample(cls)]).split("\x00")
    line = json.loads(out)
    assert line["v"] == 1 and line["type"] == cls.type and not err
