"""The adapter seam: every protocol mode builds requests and decodes replies the same way."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from agentcli.llm.types import ChatRequest, Completion, Message, ToolCall

if TYPE_CHECKING:
    from agentcli.tools.core.registry import ToolRegistry


@dataclass(frozen=True)
class View:
    """What a request sends of the session's log after the system prompt: messages, and the log id of each.

    The engine builds it (today every message of the runs not taken back); adapters only read it.
    """

    messages: Sequence[Message]
    ids: Sequence[int]

    @classmethod
    def of(cls, messages: Sequence[Message]) -> View:
        """A view of exactly `messages`, ids counted from 0 (for building a request by hand)."""
        return cls(messages, range(len(messages)))


@dataclass(frozen=True)
class ModelTurn:
    """A decoded model reply: text (a thought or the answer) and the tool calls it asks for."""

    content: str
    tool_calls: tuple[ToolCall, ...] = ()


class Adapter(Protocol):
    """One protocol mode (native, react, json). Decoding raises FormatError with a hint for the model."""

    name: str

    def build_request(self, system_prompt: str, view: View, tools: ToolRegistry) -> ChatRequest:
        """The request for the next step: the system prompt first, then the view of the log, in order."""
        ...

    def decode(self, completion: Completion, calls_so_far: int = 0) -> ModelTurn:
        """Turn a completion into a ModelTurn, or raise FormatError. `calls_so_far` (the tool calls the log
        holds) numbers the ids a text protocol gives the calls it decodes."""
        ...

    def system_prompt(self, base: str, tools: ToolRegistry) -> str:
        """The exact system prompt text this mode sends (what `agent tools list --mode M --json` shows)."""
        ...
