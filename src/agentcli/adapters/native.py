"""Native mode: OpenAI `tools` in the request, `tool_calls` in the reply."""

from __future__ import annotations

from agentcli.adapters.base import ModelTurn, View
from agentcli.llm.types import ChatRequest, Completion
from agentcli.tools.core.registry import ToolRegistry


class NativeAdapter:
    """The Conversation is sent as it is; every tool call in the reply is kept."""

    name = "native"

    def system_prompt(self, base: str, tools: ToolRegistry) -> str:
        return base

    def build_request(self, system_prompt: str, view: View, tools: ToolRegistry) -> ChatRequest:
        request: ChatRequest = {"messages": [{"role": "system", "content": system_prompt}, *view.messages]}
        if len(tools):
            request["tools"] = tools.openai_tools()
            request["tool_choice"] = "auto"
        return request

    def decode(self, completion: Completion, calls_so_far: int = 0) -> ModelTurn:
        return ModelTurn(completion.content, completion.tool_calls)
