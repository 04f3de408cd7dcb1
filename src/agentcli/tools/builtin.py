"""The tools agentcli ships, each declared once, in BUILTINS: where its function is, and what calling it does.

A built-in is written the way a user writes a tool: a typed function whose docstring and signature say what the
model is told (the context by a `ToolContext` parameter). What the model is told of them is also kept in
BUILTIN_SCHEMAS, generated from those functions (tests/tools/test_builtin.py regenerates it and fails when it
differs), so that listing the tools or sending their schemas imports neither their modules nor Pydantic: each
function is imported on its first call.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentcli.config import Settings
from agentcli.tools.builtin_schemas import BUILTIN_SCHEMAS
from agentcli.tools.core.context import ToolContext
from agentcli.tools.core.decorator import declare
from agentcli.tools.core.registry import ToolRegistry
from agentcli.tools.core.tool import Tool

BUILTIN_SOURCE = "built-in"


@dataclass(frozen=True)
class Builtin:
    """One built-in: the module of its function (named as the tool), and what `@tool(...)` would say of it."""

    module: str
    requires_approval: bool = False
    """It changes the user's files (a command may change anything it can write), so it asks first; `declare`
    draws the rest: not read-only, and the same call may be made again."""
    preview: str = ""
    """The function of `module` that shows what a call would do, for the approval prompt."""
    preview_checks: bool = False
    """Its preview makes the tool's checks: a call it refuses is refused before anyone is asked (ToolSpec)."""


BUILTINS = {
    "read_file": Builtin("agentcli.tools.files.read_file"),
    "list_files": Builtin("agentcli.tools.files.list_files"),
    "search_text": Builtin("agentcli.tools.files.search_text"),
    "edit_file": Builtin(
        "agentcli.tools.files.edit_file", requires_approval=True, preview="preview_edit", preview_checks=True
    ),
    "write_file": Builtin(
        "agentcli.tools.files.write_file", requires_approval=True, preview="preview_write", preview_checks=True
    ),
    "run_command": Builtin("agentcli.tools.commands.tool", requires_approval=True, preview="preview_command"),
    "calculator": Builtin("agentcli.tools.calculator.tool"),
    "update_plan": Builtin("agentcli.tools.plan.tool"),
}


def _imported(module: str, name: str) -> Callable[..., Any]:
    function: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return function


def _later(module: str, name: str) -> Callable[..., str]:
    """The function `name` of `module`, its module imported when it is first called."""

    def call(*args: Any, **kwargs: Any) -> str:
        return str(_imported(module, name)(*args, **kwargs))

    return call


def builtin_functions() -> list[Callable[..., object]]:
    """The built-in tools as the typed functions they are (this imports them, and Pydantic)."""
    return [_imported(builtin.module, name) for name, builtin in BUILTINS.items()]


def builtin_list() -> list[Tool]:
    """The built-in tools, each saying it is built in; each function is loaded on its first call."""
    return [_tool(name, builtin) for name, builtin in BUILTINS.items()]


def _tool(name: str, builtin: Builtin) -> Tool:
    told = BUILTIN_SCHEMAS[name]
    preview = _later(builtin.module, builtin.preview) if builtin.preview else None
    spec = declare(requires_approval=builtin.requires_approval, preview=preview, preview_checks=builtin.preview_checks)
    load = functools.partial(_imported, builtin.module, name)
    return Tool(name, told["description"], load, told["parameters"], spec, BUILTIN_SOURCE)


def builtin_tools(workspace: str | Path = ".", *, settings: Settings | None = None) -> ToolRegistry:
    """A fresh registry of the built-in tools, the file tools rooted at `workspace` (or at `settings.workspace`)."""
    settings = settings or Settings(workspace=Path(workspace))
    return ToolRegistry(builtin_list(), context=ToolContext.from_settings(settings))
