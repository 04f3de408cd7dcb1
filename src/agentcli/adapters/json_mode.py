"""Json mode: `response_format={"type": "json_object"}`; the model replies `{"thought", "action", "params"}`
or `{"final_answer"}`. It shares react's tool list and folding; its parser is json_parser.py."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agentcli.adapters.base import Adapter, ModelTurn
from agentcli.adapters.folding import WrittenCall, fold_messages
from agentcli.adapters.json_parser import parse_json_reply
from agentcli.adapters.prompts import JSON_NO_TOOLS, JSON_PROTOCOL, TOOLS_HEADER
from agentcli.adapters.react import tool_list
from agentcli.llm.types import ChatRequest, Completion, Message
from agentcli.tools.registry import ToolRegistry


class JsonAdapter:
    """The JSON-object protocol for endpoints without `tools`; ids `json_1`, `json_2`, ..."""

    name = "json"

    def __init__(self, tools: ToolRegistry) -> None:
        self.tools = tools
        self.fallback: Adapter | None = None
        self._calls = 0

    def system_prompt(self, base: str, tools: ToolRegistry) -> str:
        if not len(tools):
            return f"{base}\n\n{JSON_NO_TOOLS}"
        return f"{base}\n\n{TOOLS_HEADER}\n{tool_list(tools)}\n\n{JSON_PROTOCOL}"

    def build_request(self, system_prompt: str, messages: Sequence[Message], tools: ToolRegistry) -> ChatRequest:
        folded = fold_messages(messages, write_json_calls)
        return {
            "messages": [{"role": "system", "content": system_prompt}, *folded],
            "response_format": {"type": "json_object"},
        }

    def decode(self, completion: Completion) -> ModelTurn:
        if completion.tool_calls:  # a server that parsed a call itself: take it as it is
            return ModelTurn(completion.content, completion.tool_calls)
        turn = parse_json_reply(completion.content, f"json_{self._calls + 1}", self.tools)
        self._calls += len(turn.tool_calls)
        return turn


def write_json_calls(thought: str, calls: Sequence[WrittenCall]) -> str:
    """An assistant turn with tool calls, as the JSON object(s) the model would have sent, one per line."""
    objects: list[dict[str, Any]] = []
    for name, arguments in calls:
        head = {"thought": thought.strip()} if not objects else {}
        objects.append({**head, "action": name, "params": _params(arguments)})
    return "\n".join(json.dumps(obj, ensure_ascii=False) for obj in objects)


def _params(arguments: str) -> Any:
    if not arguments.strip():
        return {}
    try:
        return json.loads(arguments)
    except (json.JSONDecodeError, RecursionError):
        return arguments  # broken arguments are shown as the model sent them
