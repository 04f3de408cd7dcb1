"""The Conversation: OpenAI-shaped messages, append-only, with the pairing rule checked before every request."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from agentcli.errors import InvariantError
from agentcli.llm.types import Message, ToolCall


class Conversation:
    """The messages of a session, without the system prompt (it is prepended per request, never stored)."""

    def __init__(self, messages: Iterable[Message] = ()) -> None:
        self._messages: list[Message] = [dict(message) for message in messages]

    @property
    def messages(self) -> Sequence[Message]:
        return self._messages

    def __len__(self) -> int:
        return len(self._messages)

    def add_user(self, content: str) -> None:
        self._messages.append({"role": "user", "content": content})

    def add_assistant(self, content: str, tool_calls: Sequence[ToolCall] = ()) -> None:
        message: Message = {"role": "assistant", "content": content}
        if tool_calls:
            message["content"] = content or None
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in tool_calls
            ]
        self._messages.append(message)

    def add_tool_result(self, call_id: str, content: str) -> None:
        self._messages.append({"role": "tool", "tool_call_id": call_id, "content": content})

    def answered(self) -> set[str]:
        """The ids of the tool calls that already have a result (a resumed run does not run them again)."""
        return {str(message.get("tool_call_id")) for message in self._messages if message["role"] == "tool"}

    def call_ids(self) -> set[str]:
        """Every tool-call id asked for so far."""
        return {call["id"] for message in self._messages for call in message.get("tool_calls") or ()}

    def rollback(self, length: int) -> None:
        """Drop what an interrupted turn added: the only way anything leaves the Conversation."""
        del self._messages[length:]

    def check_pairing(self) -> None:
        """Every assistant tool call is answered by exactly one tool message, in order, before anything else."""
        waiting: list[str] = []
        for position, message in enumerate(self._messages):
            role = message["role"]
            if role == "tool":
                if not waiting or message.get("tool_call_id") != waiting[0]:
                    expected = waiting[0] if waiting else "no tool result"
                    raise InvariantError(
                        f"message {position}: tool result for {message.get('tool_call_id')!r}, expected {expected}"
                    )
                waiting.pop(0)
                continue
            if waiting:
                raise InvariantError(f"message {position}: tool calls {waiting} were never answered")
            if role == "assistant":
                waiting = [call["id"] for call in message.get("tool_calls") or ()]
        if waiting:
            raise InvariantError(f"tool calls {waiting} are not answered yet")
