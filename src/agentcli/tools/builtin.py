"""The tools agentcli ships: `read_file` (sandboxed to the workspace) and `calculator`.

They are written the way a user writes a tool: a typed function, `@tool` when it needs more than its signature
says, and a `ToolContext` parameter when it needs the workspace.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agentcli.config import Settings
from agentcli.tools.calculator import calculator
from agentcli.tools.context import ToolContext
from agentcli.tools.read_file import read_file
from agentcli.tools.registry import Tool, ToolRegistry

BUILTINS: tuple[Callable[..., object], ...] = (read_file, calculator)
BUILTIN_SOURCE = "built-in"


def builtin_list() -> list[Tool]:
    """The built-in tools, each saying it is built in."""
    return [Tool.from_function(func, source=BUILTIN_SOURCE) for func in BUILTINS]


def builtin_tools(workspace: str | Path = ".", *, settings: Settings | None = None) -> ToolRegistry:
    """A fresh registry of the built-in tools, the file tools rooted at `workspace` (or at `settings.workspace`)."""
    settings = settings or Settings(workspace=Path(workspace))
    return ToolRegistry(builtin_list(), context=ToolContext.from_settings(settings))
