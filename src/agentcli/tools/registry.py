"""The tool registry: schemas for the model, and `call(name, raw_args)` that never raises."""

from __future__ import annotations

import contextlib
import inspect
import json
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from pydantic import BaseModel, ValidationError

from agentcli.text import QUOTE_LIMIT, quote
from agentcli.tools.context import ToolContext
from agentcli.tools.decorator import ToolDefinitionError, ToolSpec, spec_of
from agentcli.tools.schema import (
    arguments_model,
    context_parameters,
    describe_parameters,
    description_of,
    parameters_schema,
)

RAW_QUOTE_LIMIT = QUOTE_LIMIT
"""How much of a broken argument string an error message quotes back to the model."""

RESULT_LIMIT = 100_000
"""Characters of one result the model gets: it is re-sent on every later step, so a runaway tool costs twice."""


@dataclass(frozen=True)
class ToolResult:
    """What a tool call produced: the text the model reads, whether it failed, and how long it took."""

    content: str
    is_error: bool = False
    elapsed_ms: float = 0.0


@dataclass(frozen=True)
class Tool:
    """A typed function the model may call; its docstring's first paragraph is the description."""

    name: str
    description: str
    func: Callable[..., object]
    args_model: type[BaseModel]
    context_params: tuple[str, ...] = ()
    """Parameters filled with the registry's ToolContext, not by the model."""
    requires_approval: bool = False
    idempotent: bool = True
    source: str = ""
    """Where the tool came from, as `agent tools list` shows it: built-in, a file path, plugin NAME."""

    @classmethod
    def from_function(cls, func: Callable[..., object], name: str | None = None, *, source: str = "") -> Tool:
        """The tool of a function, `@agentcli.tool` or plain; raises ToolDefinitionError naming what is wrong."""
        spec = spec_of(func) or ToolSpec()
        tool_name = name or spec.name or func.__name__
        if inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func):
            raise ToolDefinitionError(f"tool {tool_name!r}: async functions are not supported; write a plain def")
        return cls(
            tool_name,
            description_of(func),
            func,
            arguments_model(func, tool_name),
            context_parameters(func, tool_name),
            spec.requires_approval,
            spec.idempotent,
            source,
        )

    @cached_property
    def parameters(self) -> dict[str, Any]:
        return parameters_schema(self.args_model)

    def openai_schema(self) -> dict[str, Any]:
        """The entry of the `tools` array of a Chat Completions request."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


def _quote(raw: str) -> str:
    return quote(raw, RAW_QUOTE_LIMIT)


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


class ToolRegistry:
    """An ordered set of tools by name, and the ToolContext its tools get when they ask for one."""

    def __init__(
        self, tools: Iterable[Tool | Callable[..., object]] = (), *, context: ToolContext | None = None
    ) -> None:
        self.context = context
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool | Callable[..., object]) -> Tool:
        made = tool if isinstance(tool, Tool) else Tool.from_function(tool)
        if made.name in self._tools:
            raise ValueError(f"a tool named {made.name!r} is already registered")
        self._tools[made.name] = made
        return made

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def get(self, name: str) -> Tool | None:
        """The tool of that name, or None."""
        return self._tools.get(name)

    def openai_tools(self) -> list[dict[str, Any]]:
        """The exact `tools` array sent in native mode."""
        return [tool.openai_schema() for tool in self]

    def signature(self, name: str, raw_args: str | dict[str, Any] | None) -> str:
        """A canonical form of a call: two calls with the same signature do the same thing."""
        tool = self._tools.get(name)
        args = _parse_arguments(raw_args)
        if tool is None or isinstance(args, str):
            return f"{name} {raw_args if isinstance(raw_args, str) else args}".strip()
        # Validated and with defaults filled in, so {"path": "a"} and {"path": "a", "offset": 0} match.
        with contextlib.suppress(ValidationError):
            args = tool.args_model.model_validate(args).model_dump(mode="json")
        return f"{name} {json.dumps(args, sort_keys=True, ensure_ascii=False)}"

    def call(self, name: str, raw_args: str | dict[str, Any] | None) -> ToolResult:
        """Run a tool by name with the model's raw arguments. Every failure becomes an error result."""
        started = time.perf_counter()
        content, is_error = self._call(name, raw_args)
        if len(content) > RESULT_LIMIT:
            content = (
                f"{content[:RESULT_LIMIT]}\n[truncated: the result has {len(content):,} characters; "
                "ask for less at a time]"
            )
        return ToolResult(content, is_error, (time.perf_counter() - started) * 1000)

    def _call(self, name: str, raw_args: str | dict[str, Any] | None) -> tuple[str, bool]:
        tool = self._tools.get(name)
        if tool is None:
            available = ", ".join(self._tools) or "none"
            return f"Unknown tool {_quote(name)}. Available tools: {available}.", True
        valid = f"Valid parameters of {name}: {describe_parameters(tool.parameters)}."
        args = _parse_arguments(raw_args)
        if isinstance(args, str):
            return f"{args} {valid}", True
        try:
            parsed = tool.args_model.model_validate(args)
        except ValidationError as exc:
            return f"Invalid arguments for {name}: {_validation_problems(exc)}. {valid}", True
        kwargs = {key: getattr(parsed, key) for key in type(parsed).model_fields}
        if tool.context_params:
            if self.context is None:
                return f"{name} needs a workspace, and its registry was made without a ToolContext.", True
            kwargs.update(dict.fromkeys(tool.context_params, self.context))
        try:
            return _as_text(tool.func(**kwargs)), False
        except (Exception, SystemExit) as exc:  # a tool's failure is an observation for the model, never a crash
            return f"{type(exc).__name__}: {exc}", True


def _parse_arguments(raw_args: str | dict[str, Any] | None) -> dict[str, Any] | str:
    """The arguments as a dict, or the message that says why they are not one."""
    if raw_args is None:
        return {}
    if isinstance(raw_args, dict):
        return raw_args
    if not raw_args.strip():
        return {}  # several servers send "" for a call without arguments
    try:
        value = json.loads(raw_args)
    except (json.JSONDecodeError, RecursionError) as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
        return f"Arguments are not valid JSON ({reason}); received {_quote(raw_args)}. Send one JSON object."
    if not isinstance(value, dict):
        return f"Arguments must be a JSON object, not {type(value).__name__}; received {_quote(raw_args)}."
    return value


def _as_text(value: object) -> str:
    """A result as the model reads it: text as is, a Pydantic model or JSON-able data as JSON, the rest str()."""
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    try:
        return json.dumps(value, ensure_ascii=False, default=_model_data)
    except (TypeError, ValueError, RecursionError):
        return str(value)


def _model_data(value: object) -> object:
    """Pydantic models inside a dict or list are JSON too; anything else makes the whole result str()."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    raise TypeError(f"{type(value).__name__} is not JSON")
