"""A tool: what the model is told of it (name, description, parameters), what calling it does (its ToolSpec),
and its function, loaded when first needed.

Pydantic is imported only when a tool's model is first needed (a call, or a schema not known in advance): a
built-in comes with its schema, so listing the tools or sending their schemas never pays for it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from agentcli.text import CHARS_PER_TOKEN, json_text
from agentcli.tools.core.decorator import ToolDefinitionError, ToolSpec, check_name, declare, mark_of

if TYPE_CHECKING:
    from pydantic import BaseModel


@dataclass(frozen=True)
class Tool:
    """A typed function the model may call; its docstring's first paragraph is the description.

    `load` returns the function. A built-in's is loaded (its module, and Pydantic, imported) on its first call,
    the JSON Schema of its parameters given in advance as `schema`; `from_function` builds everything at once.
    """

    name: str
    description: str
    load: Callable[[], Callable[..., object]]
    schema: dict[str, Any] | None = None
    spec: ToolSpec = field(default_factory=declare)
    """What calling it does: approval, read-only, idempotent, the approval prompt's preview."""
    source: str = ""
    """Where the tool came from, as `agent tools list` shows it: built-in, a file path, plugin NAME, mcp NAME."""
    validator: Callable[[dict[str, Any]], str | None] | None = None
    """For a tool whose parameters are only a JSON Schema (an MCP server's): what is wrong with the arguments,
    or None; they are then passed as they are, as keyword arguments. Without it, `args_model` validates."""

    @classmethod
    def from_function(cls, func: Callable[..., object], name: str | None = None, *, source: str = "") -> Tool:
        """The tool of a function, `@agentcli.tool` or plain; raises ToolDefinitionError naming what is wrong."""
        mark = mark_of(func)
        tool_name = check_name(name or (mark.name if mark else None) or func.__name__)
        if inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func):
            raise ToolDefinitionError(f"tool {tool_name!r}: async functions are not supported; write a plain def")
        from agentcli.tools.core.schema import check_schema_size, description_of

        spec = mark.spec if mark else declare()
        tool = cls(tool_name, description_of(func), lambda: func, None, spec, source)
        _ = tool.args_model, tool.context_params  # a signature that cannot become a schema fails now
        check_schema_size(tool_name, tool.openai_schema())
        return tool

    @cached_property
    def func(self) -> Callable[..., object]:
        return self.load()

    @cached_property
    def args_model(self) -> type[BaseModel]:
        """The Pydantic model of the model's arguments: it validates every call."""
        from agentcli.tools.core.schema import arguments_model

        return arguments_model(self.func, self.name)

    @cached_property
    def context_params(self) -> tuple[str, ...]:
        """Parameters filled with the registry's ToolContext, not by the model."""
        from agentcli.tools.core.schema import context_parameters

        return context_parameters(self.func, self.name)

    @cached_property
    def parameters(self) -> dict[str, Any]:
        if self.schema is not None:
            return self.schema
        from agentcli.tools.core.schema import parameters_schema

        return parameters_schema(self.args_model)

    def openai_schema(self) -> dict[str, Any]:
        """The entry of the `tools` array of a Chat Completions request."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    def schema_tokens(self) -> int:
        """The tokens its entry of the `tools` array costs every request, estimated as the context budget does."""
        return round(len(json_text(self.openai_schema())) / CHARS_PER_TOKEN)
