"""Parse a json-mode reply: text -> ModelTurn, or FormatError whose hint shows the exact format.

The reply should be one object, `{"thought", "action", "params"}` or `{"final_answer"}`. A fenced or
prose-wrapped object is still found: each `{` is tried with a JSON decoder until one yields an object with
an `action` or `final_answer`. Text after a line that starts with `Observation:` is never read (the model
wrote it, no tool did). A non-empty `action` wins over a `final_answer` in the same object, as in react:
the model has not seen the tool's result yet; an empty `action`, or "FINISH", "none"... (not a tool's
name), is no action. `params` missing is {}; a string is bound like a bare react Action Input.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, NoReturn

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError

from agentcli.adapters.base import ModelTurn
from agentcli.adapters.prompts import JSON_FORMAT_REMINDER
from agentcli.adapters.react_parser import (
    bare_arguments,
    clean_tool_name,
    cut_observation,
    is_no_action,
    parameters_hint,
    quote,
)
from agentcli.errors import FormatError
from agentcli.llm.types import ToolCall

if TYPE_CHECKING:
    from agentcli.tools.registry import ToolRegistry

MAX_CANDIDATES = 100
"""How many `{` positions are tried before a reply is declared to hold no object (bounds the work)."""

_KEYS = frozenset({"action", "tool", "final_answer", "answer"})
_DECODER = json.JSONDecoder(strict=False)


class JsonReply(BaseModel):
    """The object of a json-mode reply; a few common synonyms of the keys are accepted."""

    model_config = ConfigDict(extra="ignore")

    thought: str | None = None
    action: str | None = Field(None, validation_alias=AliasChoices("action", "tool"))
    params: Any = Field(None, validation_alias=AliasChoices("params", "parameters", "arguments", "action_input"))
    final_answer: Any = Field(None, validation_alias=AliasChoices("final_answer", "answer"))


def parse_json_reply(text: str, call_id: str, tools: ToolRegistry | None = None) -> ModelTurn:
    """Decode one json-mode reply; `call_id` names its tool call; `tools` only binds a string `params`."""
    found = find_object(cut_observation(text.replace("\r\n", "\n").replace("\r", "\n"))[0])
    if found is None:
        _fail(f"Your reply holds no JSON object: {quote(text.strip())}.")
    try:
        reply = JsonReply.model_validate(found)
    except ValidationError as exc:
        problems = "; ".join(f"'{'.'.join(map(str, e['loc']))}': {e['msg']}" for e in exc.errors())
        _fail(f"Your JSON object is not valid ({problems}).")
    name = clean_tool_name(reply.action or "")
    if name and not is_no_action(name, tools):
        call = ToolCall(call_id, name, _arguments(reply.params, name, tools))
        return ModelTurn((reply.thought or "").strip(), (call,))
    if reply.final_answer is None:
        _fail('Your JSON object has neither a tool "action" nor a "final_answer".')
    answer = reply.final_answer
    answer = (answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)).strip()
    if not answer:
        _fail('Your "final_answer" is empty.')
    return ModelTurn(answer)


def find_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in the text with a protocol key, else the first object, else None."""
    first: dict[str, Any] | None = None
    start = text.find("{")
    for _ in range(MAX_CANDIDATES):
        if start < 0:
            break
        try:
            value, end = _DECODER.raw_decode(text, start)
        except (json.JSONDecodeError, RecursionError):
            start = text.find("{", start + 1)
            continue
        if _KEYS.intersection(value):
            return dict(value)
        first = first if first is not None else dict(value)
        start = text.find("{", end)
    return first


def _arguments(params: Any, name: str, tools: ToolRegistry | None) -> str:
    if params is None:
        return "{}"
    if isinstance(params, str) and params.strip().startswith("{"):
        try:
            params = json.loads(params)  # an object sent as a JSON string
        except (json.JSONDecodeError, RecursionError):
            _fail(f'Your "params" is not a valid JSON object: {quote(params)}.')
    if isinstance(params, dict):
        return json.dumps(params, ensure_ascii=False)
    if not isinstance(params, str):
        _fail(f'Your "params" must be a JSON object, not {type(params).__name__}.')
    value = params.strip()
    arguments = bare_arguments(tools, name, value)
    if arguments is None:
        _fail(f'Your "params" {quote(value)} is not a JSON object.{parameters_hint(tools, name)}')
    return arguments


def _fail(problem: str) -> NoReturn:
    raise FormatError(problem, hint=f"{problem} {JSON_FORMAT_REMINDER}")
