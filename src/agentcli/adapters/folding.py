"""Fold the Conversation into plain user/assistant text turns, as the text protocols (react, json) send it.

Folding is a pure function of the messages, message by message, so the request for step k+1 starts with the
exact messages of step k: an assistant message with tool calls becomes one assistant text turn, a run of
consecutive tool results becomes one user turn of `Observation: ...` blocks, every other message is kept.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from agentcli.llm.types import Message

WrittenCall = tuple[str, str]
"""One tool call as folding sees it: (name, arguments JSON text, possibly broken)."""

CallWriter = Callable[[str, Sequence[WrittenCall]], str]
"""Writes an assistant turn's thought and its tool calls as the text the model would have produced."""

OBSERVATION = "Observation: "


def fold_messages(messages: Sequence[Message], write_calls: CallWriter) -> list[Message]:
    """The Conversation as plain text turns, tool calls written by `write_calls`."""
    folded: list[Message] = []
    observations: list[str] = []
    for message in messages:
        if message.get("role") == "tool":
            observations.append(OBSERVATION + _text(message.get("content")))
            continue
        if observations:
            folded.append({"role": "user", "content": "\n\n".join(observations)})
            observations = []
        folded.append(_fold_one(message, write_calls))
    if observations:
        folded.append({"role": "user", "content": "\n\n".join(observations)})
    return folded


def _fold_one(message: Message, write_calls: CallWriter) -> Message:
    if message.get("role") != "assistant" or "tool_calls" not in message:
        return dict(message)
    calls = [_call(raw) for raw in message.get("tool_calls") or ()]
    content = _text(message.get("content"))
    if not calls:  # an empty tool_calls list: a plain assistant turn, sent without the key
        return {"role": "assistant", "content": content}
    return {"role": "assistant", "content": write_calls(content, calls)}


def _call(raw: Any) -> WrittenCall:
    function = raw.get("function", {}) if isinstance(raw, dict) else {}
    return str(function.get("name", "")), _text(function.get("arguments"))


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
