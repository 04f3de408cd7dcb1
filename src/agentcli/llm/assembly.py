"""Streamed tool-call pieces put back together, the way the `openai` SDK's own accumulator does.

`openai.lib.streaming._deltas.accumulate_delta` merges the pieces of a call by their `index` and concatenates
every string field, so a name split across deltas (`"calcu"` + `"lator"`) becomes the whole name. Where the SDK
has no answer, this module decides:

- a piece without `index` (some servers omit it; the SDK raises) continues the latest call, unless it opens a
  new one: there is no call yet, it carries an id other than the latest call's, or it carries a name while the
  latest call's arguments have already begun (a name comes first, so that is the next call);
- the id is kept from its first piece: servers that repeat the id on every delta are common, and concatenating
  it as the SDK does would turn `call_1` into `call_1call_1`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentcli.llm.sanitize import clean_text
from agentcli.llm.types import ToolCall


@dataclass
class _Partial:
    id: str = ""
    name: list[str] = field(default_factory=list)
    arguments: list[str] = field(default_factory=list)


class ToolCallAssembler:
    """Feed it every `delta.tool_calls` entry of a stream; `calls()` gives the finished calls in order."""

    def __init__(self) -> None:
        self._calls: dict[int, _Partial] = {}
        self._latest: int | None = None

    def add(self, piece: Any) -> int:
        """Merge one tool-call delta (an SDK object); return how many characters of name and arguments it added."""
        function = getattr(piece, "function", None)
        name = _text(getattr(function, "name", None))
        arguments = _text(getattr(function, "arguments", None))
        call_id = _text(getattr(piece, "id", None))
        index = getattr(piece, "index", None)
        if not isinstance(index, int) or isinstance(index, bool):
            index = self._index_without_one(call_id, name)
        partial = self._calls.setdefault(index, _Partial())
        self._latest = index
        partial.id = partial.id or call_id
        if name:
            partial.name.append(name)
        if arguments:
            partial.arguments.append(arguments)
        return len(name) + len(arguments)

    def _index_without_one(self, call_id: str, name: str) -> int:
        latest = self._calls.get(self._latest) if self._latest is not None else None
        if latest is None:
            return 0
        new_id = bool(call_id) and bool(latest.id) and call_id != latest.id
        if new_id or (name and latest.arguments):
            return max(self._calls) + 1
        assert self._latest is not None
        return self._latest

    def calls(self) -> tuple[ToolCall, ...]:
        return tuple(
            ToolCall(
                clean_text(partial.id) or f"call_{index}",
                clean_text("".join(partial.name)),
                clean_text("".join(partial.arguments)),
            )
            for index, partial in sorted(self._calls.items())
        )


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
