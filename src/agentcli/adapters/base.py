"""The adapter seam: every protocol mode builds requests and decodes replies the same way."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from agentcli.llm.types import ChatRequest, Completion, Message, ToolCall

if TYPE_CHECKING:
    from agentcli.tools.core.registry import ToolRegistry


@dataclass(frozen=True)
class ModelTurn:
    """A decoded model reply: text (a thought or the answer) and the tool calls it asks for."""

    content: str
    tool_calls: tuple[ToolCall, ...] = ()


class Adapter(Protocol):
    """One protocol mode (native, react, json). Decoding raises FormatError with a hint for the model."""

    name: str

    def build_request(self, system_prompt: str, messages: Sequence[Message], tools: ToolRegistry) -> ChatRequest:
        """The request for the next step: the system prompt first, then the Conversation, unchanged in order."""
        ...

    def decode(self, completion: Completion) -> ModelTurn:
        """Turn a completion into a ModelTurn, or raise FormatError."""
        ...

    def system_prompt(self, base: str, tools: ToolRegistry) -> str:
        """The exact system prompt text this mode sends (what `agent tools list --mode M --json` shows)."""
        ...
