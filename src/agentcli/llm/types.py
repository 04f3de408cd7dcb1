"""Provider-neutral types that cross the line between adapters and the LLM client."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

Message = dict[str, Any]
"""One OpenAI-shaped chat message (`role`, `content`, optional `tool_calls` / `tool_call_id`)."""

ChatRequest = dict[str, Any]
"""Keyword arguments of one chat completion (messages, tools, stop, response_format...), without `model`."""


@dataclass(frozen=True)
class ToolCall:
    """One call the model asked for; `arguments` is the raw JSON text, possibly broken."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Usage:
    """Token counts of one or more completions."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cached_tokens + other.cached_tokens,
        )

    def to_dict(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached_tokens": self.cached_tokens,
        }


@dataclass(frozen=True)
class Completion:
    """What one chat completion returned, whether it was streamed or not."""

    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None


@dataclass(frozen=True)
class TextDelta:
    """A piece of assistant text as it streams in."""

    text: str


class ChatClient(Protocol):
    """The one seam between the engine and a model endpoint."""

    def stream(self, request: ChatRequest) -> Iterator[TextDelta | Completion]:
        """Yield text deltas as they arrive, then exactly one Completion."""
        ...

    def complete(self, request: ChatRequest) -> Completion:
        """One non-streamed completion (used by the judge)."""
        ...
