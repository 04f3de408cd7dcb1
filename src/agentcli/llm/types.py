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
    """Token counts of one or more completions, and how many of them reported none.

    Some servers (llama-cpp-python streaming) send no usage at all; counting those replies as zero tokens would
    be a lie, so they are counted in `unreported` instead and the sums stay sums of what was reported.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    unreported: int = 0
    """Completions whose usage the server did not report: their tokens are missing from the counts."""

    @classmethod
    def not_reported(cls) -> Usage:
        """The usage of one completion that came without any."""
        return cls(unreported=1)

    @property
    def reported(self) -> bool:
        """True when every completion counted here reported its usage."""
        return self.unreported == 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cached_tokens + other.cached_tokens,
            self.unreported + other.unreported,
        )

    def to_dict(self) -> dict[str, int]:
        """The counts, as in the events' JSON; `unreported` only when some reply came without usage."""
        counts = {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached_tokens": self.cached_tokens,
        }
        return {**counts, "unreported": self.unreported} if self.unreported else counts


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


@dataclass(frozen=True)
class Waiting:
    """The client is about to wait before asking again (a 429's Retry-After, a 5xx's backoff)."""

    reason: str
    seconds: float


@dataclass(frozen=True)
class StreamingOff:
    """The server cannot stream this request; the client asks without streaming from now on."""

    reason: str


StreamItem = TextDelta | Waiting | StreamingOff | Completion
"""What `ChatClient.stream` yields: news for the user while it works, then exactly one Completion."""


class ChatClient(Protocol):
    """The one seam between the engine and a model endpoint."""

    def stream(self, request: ChatRequest) -> Iterator[StreamItem]:
        """Yield text deltas as they arrive (and Waiting / StreamingOff news), then exactly one Completion."""
        ...

    def complete(self, request: ChatRequest, *, timeout: float | None = None) -> Completion:
        """One non-streamed completion (used by the judge); `timeout` bounds it all, retries included."""
        ...
