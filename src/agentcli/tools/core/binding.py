"""A call bound to its tool: the model's arguments parsed and validated once, into the one object that the
repeat guard (its signature), the before_call policy, the approval prompt's preview and the run all share.

A call that cannot run as sent (an unknown tool, arguments that are not a JSON object or not valid) becomes an
InvalidCall instead, whose `problem` tells the model what is wrong and what is valid (invariant 2).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentcli.text import QUOTE_LIMIT, quote
from agentcli.tools.core.describe import describe_parameters
from agentcli.tools.core.tool import Tool

if TYPE_CHECKING:
    from pydantic import ValidationError

Arguments = str | dict[str, Any] | None
"""The arguments of a call as they come: the model's JSON text, a dict (from Python), or nothing."""

RAW_QUOTE_LIMIT = QUOTE_LIMIT
"""How much of a broken argument string an error message quotes back to the model."""


@dataclass(frozen=True)
class BoundCall:
    """A call of `tool` whose arguments are valid."""

    tool: Tool
    arguments: dict[str, Any]
    """The model's arguments, validated, defaults filled in, as the function takes them (the context left out)."""
    id: str
    signature: str
    """A canonical form of the call: two calls with the same signature do the same thing."""
    sent: str
    """The arguments as the model sent them: what the approval prompt shows, as the TOOL panel does."""

    @property
    def name(self) -> str:
        return self.tool.name


@dataclass(frozen=True)
class InvalidCall:
    """A call that cannot run as sent; `problem` is the result the model gets instead."""

    name: str
    tool: Tool | None
    """The tool it names; None when there is no such tool."""
    id: str
    signature: str
    problem: str


def bind(tool: Tool, raw: Arguments, call_id: str = "") -> BoundCall | InvalidCall:
    """The call of `tool` with `raw`, validated (a built-in's function, and Pydantic, are loaded here)."""
    args = parse_arguments(raw)
    valid = f"Valid parameters of {tool.name}: {describe_parameters(tool.parameters)}."
    if isinstance(args, str):
        return InvalidCall(tool.name, tool, call_id, _raw_signature(tool.name, raw), f"{args} {valid}")
    sent = raw if isinstance(raw, str) else _canonical(args)
    if tool.validator is not None:
        problem = tool.validator(args)
        if problem:
            return _invalid(tool, args, call_id, f"Invalid arguments for {tool.name}: {problem}. {valid}")
        return BoundCall(tool, dict(args), call_id, f"{tool.name} {_canonical(args)}", sent)
    try:
        model = tool.args_model
        _ = tool.context_params
    except Exception as exc:
        return _invalid(tool, args, call_id, f"The tool {tool.name} could not be loaded: {type(exc).__name__}: {exc}")
    from pydantic import ValidationError

    try:
        parsed = model.model_validate(args)
        # Validated and with defaults filled in, so {"path": "a"} and {"path": "a", "offset": 0} are one signature.
        signature = f"{tool.name} {_canonical(parsed.model_dump(mode='json'))}"
    except ValidationError as exc:
        return _invalid(tool, args, call_id, f"Invalid arguments for {tool.name}: {_validation_problems(exc)}. {valid}")
    except Exception as exc:  # a validator of the tool's own types that raised something else
        return _invalid(tool, args, call_id, f"Invalid arguments for {tool.name}: {type(exc).__name__}: {exc}. {valid}")
    return BoundCall(tool, {key: getattr(parsed, key) for key in type(parsed).model_fields}, call_id, signature, sent)


def unknown_tool(name: str, raw: Arguments, call_id: str, available: list[str]) -> InvalidCall:
    listed = ", ".join(available) or "none"
    problem = f"Unknown tool {quote(name, RAW_QUOTE_LIMIT)}. Available tools: {listed}."
    return InvalidCall(name, None, call_id, _raw_signature(name, raw), problem)


def _raw_signature(name: str, raw: Arguments) -> str:
    """The signature of a call that cannot be validated: its name and its arguments as they came."""
    args = raw if isinstance(raw, str) else parse_arguments(raw)
    return f"{name} {args}".strip()


def _invalid(tool: Tool, args: dict[str, Any], call_id: str, problem: str) -> InvalidCall:
    return InvalidCall(tool.name, tool, call_id, f"{tool.name} {_canonical(args)}", problem)


def _canonical(args: dict[str, Any]) -> str:
    return json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)


def _validation_problems(error: ValidationError) -> str:
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        if item["type"] == "missing":
            problems.append(f"missing required parameter '{where}'")
        elif item["type"] == "extra_forbidden":
            problems.append(f"unknown parameter '{where}'")
        else:
            problems.append(f"'{where}': {item['msg']}")
    return "; ".join(problems)


def parse_arguments(raw: Arguments) -> dict[str, Any] | str:
    """The arguments as a dict, or the message that says why they are not one."""
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return raw
    if not raw.strip():
        return {}  # several servers send "" for a call without arguments
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        # Besides JSONDecodeError, json.loads raises a bare ValueError for an integer of more than 4,300 digits.
        if isinstance(exc, json.JSONDecodeError):
            reason = exc.msg
        elif isinstance(exc, RecursionError):
            reason = "nested too deeply"
        else:
            reason = "a number has too many digits"
        shown = quote(raw, RAW_QUOTE_LIMIT)
        return f"Arguments are not valid JSON ({reason}); received {shown}. Send one JSON object."
    if not isinstance(value, dict):
        return f"Arguments must be a JSON object, not {type(value).__name__}; received {quote(raw, RAW_QUOTE_LIMIT)}."
    return value
