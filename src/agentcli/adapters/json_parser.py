"""Parse a json-mode reply: text -> ModelTurn, or FormatError whose hint shows the exact format.

The reply should be one object, `{"thought", "action", "params"}` or `{"final_answer"}`. A fenced or
prose-wrapped object is still found: each `{` is tried with a JSON decoder until one yields an object with
protocol keys. Text after a line that starts with `Observation:` is never read (the model wrote it, no tool
did). A non-empty `action` wins over a `final_answer` in the same object, as in react: the model has not seen
the tool's result yet; an empty `action`, or "FINISH", "none"... (not a tool's name), is no action. `params`
missing is {}; a string is bound like a bare react Action Input.

Two other common shapes are read too (the prompt still teaches only the one above):
`{"action": "Final Answer", "action_input": "4"}` is the final answer "4", and `{"name": ..., "arguments": ...}`
(Hermes / OpenAI style, arguments an object or a JSON string; Llama 3 says `parameters`) is a tool call.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, NoReturn

from agentcli import model_json
from agentcli.adapters import text_protocol as shared
from agentcli.adapters.base import ModelTurn
from agentcli.adapters.prompts import JSON_FORMAT_REMINDER
from agentcli.errors import FormatError
from agentcli.llm.types import ToolCall
from agentcli.text import quote

if TYPE_CHECKING:
    from agentcli.tools.core.registry import ToolRegistry

_ACTION_KEYS = ("action", "tool")
_PARAMS_KEYS = ("params", "parameters", "arguments", "action_input")
_ANSWER_KEYS = ("final_answer", "answer")


def parse_json_reply(text: str, call_id: str, tools: ToolRegistry | None = None) -> ModelTurn:
    """Decode one json-mode reply; `call_id` names its tool call; `tools` only binds a string `params`."""
    found = find_object(shared.cut_observation(text.replace("\r\n", "\n").replace("\r", "\n"))[0])
    if found is None:
        _fail(f"Your reply holds no JSON object: {quote(text.strip())}.")
    thought, action = _text_field(found, ("thought",)), _text_field(found, _action_keys(found))
    params = _field(found, _PARAMS_KEYS)
    name = shared.clean_tool_name(action)
    if name and not shared.is_no_action(name, tools):
        return ModelTurn(thought.strip(), (ToolCall(call_id, name, _arguments(params, name, tools)),))
    answer = _field(found, _ANSWER_KEYS)
    if answer is None and name and isinstance(params, str | int | float):  # {"action": "Final Answer", ...}
        answer = params
    if answer is None:
        _fail('Your JSON object has neither a tool "action" nor a "final_answer".')
    answer = (answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)).strip()
    if not answer:
        _fail('Your "final_answer" is empty.')
    return ModelTurn(answer)


def find_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in the text with protocol keys, else the first object, else None."""
    try:
        return model_json.find_object(text, _is_protocol)
    except model_json.NumberTooLong as exc:
        _fail(f"Your JSON object {exc}; send such a number as a string.")


def _is_protocol(found: dict[str, Any]) -> bool:
    return any(key in found for key in (*_ACTION_KEYS, *_ANSWER_KEYS)) or _action_keys(found) == ("name",)


def _action_keys(found: dict[str, Any]) -> tuple[str, ...]:
    """Where the tool's name is: `action` or `tool`, else `name` beside `arguments` (Hermes / OpenAI) or
    `parameters` (Llama 3); a `name` alone is just data."""
    if "name" in found and not any(key in found for key in _ACTION_KEYS) and {"arguments", "parameters"} & found.keys():
        return ("name",)
    return _ACTION_KEYS


def _field(found: dict[str, Any], keys: tuple[str, ...]) -> Any:
    """The value of the first of `keys` the object has (even null), else None."""
    return next((found[key] for key in keys if key in found), None)


def _text_field(found: dict[str, Any], keys: tuple[str, ...]) -> str:
    value = _field(found, keys)
    if value is not None and not isinstance(value, str):
        key = next(key for key in keys if key in found)
        _fail(f"Your JSON object is not valid ('{key}' must be a string, not {type(value).__name__}).")
    return value or ""


def _arguments(params: Any, name: str, tools: ToolRegistry | None) -> str:
    if params is None:
        return "{}"
    if isinstance(params, str) and params.strip().startswith("{"):
        try:
            params = model_json.decode_whole_json(params)  # an object sent as a JSON string
        except model_json.NumberTooLong as exc:
            _fail(f'Your "params" {exc}; send such a number as a string.')
        except model_json.UnreadableJson:
            _fail(f'Your "params" is not a valid JSON object: {quote(params)}.')
    if isinstance(params, dict):
        return json.dumps(params, ensure_ascii=False)
    if not isinstance(params, str):
        _fail(f'Your "params" must be a JSON object, not {type(params).__name__}.')
    value = params.strip()
    arguments = shared.bare_arguments(tools, name, value)
    if arguments is None:
        _fail(f'Your "params" {quote(value)} is not a JSON object.{shared.parameters_hint(tools, name)}')
    return arguments


def _fail(problem: str) -> NoReturn:
    raise FormatError(problem, hint=f"{problem} {JSON_FORMAT_REMINDER}")
