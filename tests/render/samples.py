"""One instance of every event class in agentcli.events, with chosen text in every string field."""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any

from agentcli import events
from agentcli.events import Event
from agentcli.llm.types import Usage


def event_classes() -> list[type[Event]]:
    """Every concrete event class the engine can emit, by name."""
    found: list[type[Event]] = []
    pending = list(Event.__subclasses__())
    while pending:
        cls = pending.pop()
        if cls.__module__ == events.__name__:  # not a test's own subclass
            found.append(cls)
        pending.extend(cls.__subclasses__())
    return sorted(found, key=lambda cls: cls.__name__)


def _value(hint: Any, text: str) -> Any:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        hint = next(arg for arg in typing.get_args(hint) if arg is not type(None))
    samples: dict[Any, Any] = {
        str: text,
        int: 2,
        float: 0.5,
        bool: True,
        Usage: Usage(3, 2, 1),
        list[str]: [text, text],
        list[dict[str, str]]: [{"id": "c1", "name": text, "arguments": text, "step": text, "status": "in_progress"}],
    }
    if hint not in samples:
        raise AssertionError(f"teach tests/render/samples.py a value of {hint!r}")
    return samples[hint]


def sample(cls: type[Event], text: str = "sample text", **overrides: Any) -> Event:
    """An instance with every field set (defaults too), so whatever a renderer could show is there."""
    hints = typing.get_type_hints(cls)
    values = {f.name: _value(hints[f.name], text) for f in dataclasses.fields(cls)}
    return cls(**(values | overrides))
