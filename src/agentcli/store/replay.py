"""Saved events back into Event objects, so `sessions show` can hand them to the same renderers."""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any

from agentcli import events
from agentcli.events import Event
from agentcli.llm.types import Usage


@cache
def _classes() -> dict[str, type[Event]]:
    found: dict[str, type[Event]] = {}
    pending: list[type[Event]] = [events.Event]
    while pending:
        for cls in pending.pop().__subclasses__():
            found.setdefault(cls.type, cls)
            pending.append(cls)
    return found


def decode(data: dict[str, Any]) -> Event | None:
    """The event `data` was made from, or None for a type this version does not know (or damaged data)."""
    cls = _classes().get(str(data.get("type")))
    if cls is None:
        return None
    values: dict[str, Any] = {}
    for item in dataclasses.fields(cls):
        if item.name not in data:
            continue
        value = data[item.name]
        if item.type in ("Usage", Usage) and isinstance(value, dict):
            value = Usage(
                **{key: int(value.get(key, 0)) for key in ("prompt_tokens", "completion_tokens", "cached_tokens")}
            )
        values[item.name] = value
    try:
        return cls(**values)
    except TypeError:  # a field this version requires is missing
        return None
