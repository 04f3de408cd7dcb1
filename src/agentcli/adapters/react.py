"""React mode: tools and the Thought / Action / Action Input / Observation / Final Answer protocol as text.

The request has no `tools`; `stop` ends the reply before a made-up Observation. The Conversation is folded
into plain text turns (see folding.py); the reply is decoded by react_parser.py.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agentcli.adapters.base import Adapter, ModelTurn
from agentcli.adapters.folding import WrittenCall, fold_messages
from agentcli.adapters.prompts import REACT_PROTOCOL, TOOLS_HEADER
from agentcli.adapters.react_parser import parse_react
from agentcli.llm.types import ChatRequest, Completion, Message
from agentcli.tools.registry import Tool, ToolRegistry
from agentcli.tools.schema import parameter_facts

STOP_SEQUENCES = ("\nObservation:", "\nObservation：", "\n**Observation", "\nobservation:")
"""Where the server ends a react reply (at most 4: the API's limit); the parser cuts the same lines."""


class ReactAdapter:
    """The text protocol for endpoints without `tools`; one Action per reply, ids `react_1`, `react_2`, ..."""

    name = "react"

    def __init__(self, tools: ToolRegistry) -> None:
        self.tools = tools
        self.fallback: Adapter | None = None
        self._calls = 0

    def system_prompt(self, base: str, tools: ToolRegistry) -> str:
        if not len(tools):
            return base  # nothing to call: any plain reply is the answer
        return f"{base}\n\n{TOOLS_HEADER}\n{tool_list(tools)}\n\n{REACT_PROTOCOL}"

    def build_request(self, system_prompt: str, messages: Sequence[Message], tools: ToolRegistry) -> ChatRequest:
        folded = fold_messages(messages, write_react_calls)
        return {"messages": [{"role": "system", "content": system_prompt}, *folded], "stop": list(STOP_SEQUENCES)}

    def decode(self, completion: Completion) -> ModelTurn:
        if completion.tool_calls:  # a server that parsed a call itself: take it as it is
            return ModelTurn(completion.content, completion.tool_calls)
        turn = parse_react(completion.content, f"react_{self._calls + 1}", self.tools)
        self._calls += len(turn.tool_calls)
        return turn


def write_react_calls(thought: str, calls: Sequence[WrittenCall]) -> str:
    """An assistant turn with tool calls, as react text (several calls: one Action block each)."""
    lines = [f"Thought: {thought.strip()}"] if thought.strip() else []
    lines += [f"Action: {name}\nAction Input: {arguments.strip() or '{}'}" for name, arguments in calls]
    return "\n".join(lines)


def tool_list(tools: ToolRegistry) -> str:
    """One line per tool: name, description, and a compact summary of each parameter."""
    return "\n".join(_tool_line(tool) for tool in tools)


def _tool_line(tool: Tool) -> str:
    schema = tool.parameters
    required = set(schema.get("required", []))
    params = {name: _param_summary(prop, name in required) for name, prop in schema.get("properties", {}).items()}
    description = tool.description.strip()
    if description and description[-1] not in ".!?。":
        description += "."
    head = f"- {tool.name}: {description}".rstrip()
    return f"{head} Parameters: {json.dumps(params, ensure_ascii=False)}"


def _param_summary(prop: dict[str, Any], required: bool) -> str:
    summary = parameter_facts(prop, required)
    description = str(prop.get("description", "")).strip()
    return f"{summary}; {description}" if description else summary
