"""The text protocols (react, json): one adapter parameterised by a TextProtocol, and what both parsers share.

An endpoint without `tools` gets the tools as a list in the system prompt and the Conversation folded into
plain text turns (folding.py); the protocol's parser decodes the reply into the same ModelTurn as native mode.
A protocol differs only in its parser, how a tool call is written back, its prompt words and its request extras.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from agentcli.adapters.base import ModelTurn, View
from agentcli.adapters.folding import CallWriter, fold_messages
from agentcli.adapters.prompts import TOOLS_HEADER
from agentcli.llm.types import ChatRequest, Completion
from agentcli.tools.core.describe import describe_parameters, parameter_facts
from agentcli.tools.core.registry import ToolRegistry
from agentcli.tools.core.tool import Tool

Parser = Callable[[str, str, ToolRegistry | None], ModelTurn]
"""(reply text, call id, tools) -> ModelTurn, or FormatError with a hint for the model."""


@dataclass(frozen=True)
class TextProtocol:
    """What sets one text protocol apart from the others."""

    name: str
    parse: Parser
    write_calls: CallWriter
    instructions: str
    """The prompt's words after the tool list."""
    without_tools: str
    """The prompt's words when there is no tool; "" sends the base prompt alone."""
    request_extras: Mapping[str, Any]
    """Keys the request carries besides `messages` (react: `stop`; json: `response_format`)."""


class TextAdapter:
    """A text protocol for endpoints without `tools`; one call per reply, ids `<name>_1`, `<name>_2`, ..."""

    def __init__(self, protocol: TextProtocol, tools: ToolRegistry) -> None:
        self.protocol = protocol
        self.name = protocol.name
        self.tools = tools

    def system_prompt(self, base: str, tools: ToolRegistry) -> str:
        if not len(tools):
            return f"{base}\n\n{self.protocol.without_tools}" if self.protocol.without_tools else base
        return f"{base}\n\n{TOOLS_HEADER}\n{tool_list(tools)}\n\n{self.protocol.instructions}"

    def build_request(self, system_prompt: str, view: View, tools: ToolRegistry) -> ChatRequest:
        folded = fold_messages(view.messages, self.protocol.write_calls)
        extras = copy.deepcopy(dict(self.protocol.request_extras))  # a request never shares a list with the next
        return {"messages": [{"role": "system", "content": system_prompt}, *folded], **extras}

    def decode(self, completion: Completion, calls_so_far: int = 0) -> ModelTurn:
        if completion.tool_calls:  # a server that parsed a call itself: take it as it is
            return ModelTurn(completion.content, completion.tool_calls)
        return self.protocol.parse(completion.content, f"{self.name}_{calls_so_far + 1}", self.tools)


def tool_list(tools: ToolRegistry) -> str:
    """One line per tool: name, description, and a compact summary of each parameter."""
    return "\n".join(_tool_line(tool) for tool in tools)


def _tool_line(tool: Tool) -> str:
    schema = tool.parameters
    required = set(schema.get("required", []))
    defs = schema.get("$defs", {})
    params = {name: _param_summary(prop, name in required, defs) for name, prop in schema.get("properties", {}).items()}
    description = tool.description.strip()
    if description and description[-1] not in ".!?。":
        description += "."
    head = f"- {tool.name}: {description}".rstrip()
    return f"{head} Parameters: {json.dumps(params, ensure_ascii=False)}"


def _param_summary(prop: dict[str, Any], required: bool, defs: dict[str, Any]) -> str:
    summary = parameter_facts(prop, required, defs)
    description = str(prop.get("description", "")).strip()
    return f"{summary}; {description}" if description else summary


# What both parsers share --------------------------------------------------------------------------

NO_ACTION_NAMES = frozenset({"none", "null", "n/a", "nothing", "finish", "final", "final_answer", "answer", "done"})
"""Names a model gives as its action when it means no tool (`Action: None` before a Final Answer)."""

_NAME_JUNK = " \t*`'\"“”‘’<>[]"


def label_regex(keys: str) -> re.Pattern[str]:
    """A protocol label at the start of a line, as models write it (`Action:`, `**Action:**`, `> Action：`)."""
    return re.compile(
        rf"^[ \t>#*_`-]*(?P<key>{keys})[ \t*_`]*[:：][*_`]*[ \t]*",
        re.IGNORECASE | re.MULTILINE,
    )


_OBSERVATION = label_regex("observation")


def cut_observation(text: str) -> tuple[str, bool]:
    """The text before the first line that starts with an `Observation:` label, and whether one was cut.

    The model wrote that line, no tool did: nothing after it is trusted.
    """
    match = _OBSERVATION.search(text)
    return (text, False) if match is None else (text[: match.start()], True)


def clean_tool_name(raw: str) -> str:
    """The tool name without markdown, quotes, a call's parentheses or trailing words."""
    name = raw.strip().strip(_NAME_JUNK)
    name = re.split(r"[\s(]", name, maxsplit=1)[0]
    return name.strip(_NAME_JUNK + ".,;:")


def is_no_action(name: str, tools: ToolRegistry | None) -> bool:
    """Whether a cleaned tool name is a word for "no tool" (`Action: None`), not a tool of the registry."""
    return name.lower() in NO_ACTION_NAMES and (tools is None or name not in tools)


def bare_arguments(tools: ToolRegistry | None, name: str, value: str) -> str | None:
    """The JSON arguments a bare (non-object) string stands for, or None if it stands for none.

    For a tool the registry does not know, the string itself: the registry then reports the unknown tool.
    Otherwise the value of the tool's only string parameter: the one required parameter or, when none is
    required, the one parameter there is. An empty value fits a tool without required parameters.
    """
    if tools is None:
        return None
    tool = tools.get(name)
    if tool is None:
        return json.dumps(value, ensure_ascii=False)
    schema = tool.parameters
    required: list[str] = list(schema.get("required", []))
    if not value:
        return None if required else "{}"
    candidates = required or list(schema.get("properties", {}))
    if len(candidates) == 1 and schema.get("properties", {}).get(candidates[0], {}).get("type") == "string":
        return json.dumps({candidates[0]: value}, ensure_ascii=False)
    return None


def parameters_hint(tools: ToolRegistry | None, name: str) -> str:
    """' Parameters of NAME: ...' for a known tool, to close a format error with what is valid."""
    tool = tools.get(name) if tools is not None else None
    return f" Parameters of {name}: {describe_parameters(tool.parameters)}." if tool else ""
