"""The tools agentcli ships: `read_file`, `list_files`, `search_text`, `edit_file`, `write_file` (sandboxed to the
workspace), `run_command` (in the kernel sandbox), `calculator`, `update_plan`.

They are written the way a user writes a tool: a typed function, `@tool` when it needs more than its signature
says, and a `ToolContext` parameter when it needs the workspace. Their descriptions and schemas are also kept
in BUILTIN_SCHEMAS, generated from those functions and pinned by a test that regenerates them; each function
(its module, and Pydantic) is imported on its first call. So listing the tools, or sending their schemas,
imports no Pydantic.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from pathlib import Path

from agentcli.config import Settings
from agentcli.tools.builtin_schemas import BUILTIN_SCHEMAS
from agentcli.tools.core.context import ToolContext
from agentcli.tools.core.registry import Tool, ToolRegistry

BUILTIN_SOURCE = "built-in"
MODULES = {
    "read_file": "agentcli.tools.files.read_file",
    "list_files": "agentcli.tools.files.list_files",
    "search_text": "agentcli.tools.files.search_text",
    "edit_file": "agentcli.tools.files.edit_file",
    "write_file": "agentcli.tools.files.write_file",
    "run_command": "agentcli.tools.commands.tool",
    "calculator": "agentcli.tools.calculator.tool",
    "update_plan": "agentcli.tools.plan.tool",
}
"""Where each built-in lives: the function of that name in that module."""

CHANGES_FILES = frozenset({"edit_file", "write_file", "run_command"})
"""The built-ins that change the user's files (a command may change anything it can write): they ask for approval
and may be repeated (their @tool says so too, and a test checks the two agree; the pinned schemas hold only what
the model is sent)."""


def _load(name: str) -> Callable[..., object]:
    function: Callable[..., object] = getattr(importlib.import_module(MODULES[name]), name)
    return function


def builtin_functions() -> list[Callable[..., object]]:
    """The built-in tools as the typed functions they are (this imports them, and Pydantic)."""
    return [_load(name) for name in MODULES]


def builtin_list() -> list[Tool]:
    """The built-in tools, each saying it is built in; each function is loaded on its first call."""
    return [
        Tool(
            name,
            spec["description"],
            functools.partial(_load, name),
            spec["parameters"],
            requires_approval=name in CHANGES_FILES,
            idempotent=name not in CHANGES_FILES,
            source=BUILTIN_SOURCE,
        )
        for name, spec in BUILTIN_SCHEMAS.items()
    ]


def builtin_tools(workspace: str | Path = ".", *, settings: Settings | None = None) -> ToolRegistry:
    """A fresh registry of the built-in tools, the file tools rooted at `workspace` (or at `settings.workspace`)."""
    settings = settings or Settings(workspace=Path(workspace))
    return ToolRegistry(builtin_list(), context=ToolContext.from_settings(settings))
