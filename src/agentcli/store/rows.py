"""Rows read back from `sessions.db`, checked: a file edited by hand, or damaged, gives None, never an
exception from deep inside the reader. The store reports what it skipped."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from agentcli.llm.types import Message

T = TypeVar("T")

ROLES = frozenset({"system", "user", "assistant", "tool"})
SUMMARY_TYPES = (str, str, str, str, str, str, str, int, str, str, int, int, int, int)
"""The Python type of each column of SUMMARY_COLUMNS but the last (streaming is stored as an integer)."""


def summary(row: tuple[Any, ...], build: Callable[[tuple[Any, ...]], T]) -> T | None:
    """`build(row)` when every column holds its type (no bool or NULL posing as an integer); the last column,
    the base URL, is text or NULL (unknown)."""
    if len(row) != len(SUMMARY_TYPES) + 1:
        return None
    if not all(type(value) is kind for value, kind in zip(row, SUMMARY_TYPES, strict=False)):
        return None
    if row[-1] is not None and type(row[-1]) is not str:
        return None
    return build(row)


def record(row: tuple[Any, ...], build: Callable[..., T]) -> T | None:
    """A file record: (id, call_id, path, digest, before, after, made_dirs), the contents bytes or NULL, the
    directories a JSON array of paths."""
    if len(row) != 7 or type(row[0]) is not int or not all(isinstance(value, str) for value in row[1:4]):
        return None
    if not all(value is None or isinstance(value, bytes) for value in row[4:6]):
        return None
    made = _json(row[6])
    if not isinstance(made, list) or not all(isinstance(path, str) for path in made):
        return None
    return build(*row[:6], tuple(made))


def message(body: object) -> Message | None:
    """A message: a JSON object with a known `role`, text or null content, and well-formed tool calls."""
    data = _json(body)
    if not isinstance(data, dict) or data.get("role") not in ROLES:
        return None
    if not isinstance(data.get("content", ""), str | None):
        return None
    calls = data.get("tool_calls", [])
    if not isinstance(calls, list) or not all(_tool_call(call) for call in calls):
        return None
    if data["role"] == "tool" and not isinstance(data.get("tool_call_id"), str):
        return None
    return data


def events(body: object) -> list[dict[str, Any]] | None:
    """A batch of events: a JSON array of objects, each with a string `type`."""
    data = _json(body)
    if not isinstance(data, list) or not all(
        isinstance(item, dict) and isinstance(item.get("type"), str) for item in data
    ):
        return None
    return data


def _tool_call(call: object) -> bool:
    if not isinstance(call, dict) or not isinstance(call.get("id"), str):
        return False
    function = call.get("function")
    return (
        isinstance(function, dict)
        and isinstance(function.get("name"), str)
        and isinstance(function.get("arguments"), str)
    )


def _json(body: object) -> object:
    if not isinstance(body, str | bytes):
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None
