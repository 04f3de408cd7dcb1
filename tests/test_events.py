"""The event codec: what `to_dict()` writes (the JSON lines, the saved session) `Event.from_dict()` reads back as
the same event; data it cannot read back is None, never an exception."""

from __future__ import annotations

import json

import pytest

from agentcli.events import Event, RunFinished, UsageReported
from agentcli.llm.types import Usage
from tests.render.samples import event_classes, sample


@pytest.mark.parametrize("cls", event_classes(), ids=lambda cls: cls.__name__)
def test_every_event_comes_back_from_its_json(cls: type[Event]) -> None:
    event = sample(cls)
    assert Event.from_dict(json.loads(json.dumps(event.to_dict()))) == event


def test_usage_keeps_its_unreported_replies() -> None:
    event = UsageReported(step=3, call=Usage(5, 6, 7, unreported=2), total=Usage(10, 12, 14, unreported=1))
    assert event.to_dict()["call"] == {"prompt_tokens": 5, "completion_tokens": 6, "cached_tokens": 7, "unreported": 2}
    assert Event.from_dict(event.to_dict()) == event


@pytest.mark.parametrize(
    "data",
    [
        {"type": "no_such_event"},
        {"steps": 1},
        {"type": "final", "answer": "a"},  # required fields missing
        {"type": "usage", "step": 1, "call": {"prompt_tokens": "many"}, "total": {}},
    ],
)
def test_data_that_is_no_event_is_none(data: dict[str, object]) -> None:
    assert Event.from_dict(data) is None


def test_an_older_event_without_a_later_field_takes_its_default() -> None:
    old = {"type": "final", "answer": "42", "status": "finished", "usage": {}, "steps": 1, "elapsed_s": 0.5}
    assert Event.from_dict(old) == RunFinished(answer="42", status="finished", usage=Usage(), steps=1, elapsed_s=0.5)
