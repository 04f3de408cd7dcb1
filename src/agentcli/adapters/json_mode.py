"""Json mode: `response_format={"type": "json_object"}`; the model replies `{"thought", "action", "params"}`
or `{"final_answer"}`. The adapter is the shared TextAdapter (text_protocol.py); the parser is json_parser.py."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agentcli.adapters.folding import WrittenCall
from agentcli.adapters.json_parser import parse_json_reply
from agentcli.adapters.prompts import JSON_NO_TOOLS, JSON_PROTOCOL
from agentcli.adapters.text_protocol import TextProtocol
from agentcli.model_json import UnreadableJson, decode_whole_json


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
        return decode_whole_json(arguments)
    except UnreadableJson:
        return arguments  # broken arguments are shown as the model sent them


JSON = TextProtocol(
    name="json",
    parse=parse_json_reply,
    write_calls=write_json_calls,
    instructions=JSON_PROTOCOL,
    without_tools=JSON_NO_TOOLS,
    request_extras={"response_format": {"type": "json_object"}},
)
