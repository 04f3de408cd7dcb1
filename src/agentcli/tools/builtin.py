"""The tools agentcli ships: `read_file` (sandboxed to the workspace) and `calculator`."""

from __future__ import annotations

from pathlib import Path

from agentcli.tools.calculator import calculator
from agentcli.tools.read_file import make_read_file
from agentcli.tools.registry import ToolRegistry
from agentcli.tools.workspace import Workspace


def builtin_tools(workspace: str | Path = ".") -> ToolRegistry:
    """A fresh registry of the built-in tools, the file tools rooted at `workspace`."""
    return ToolRegistry([make_read_file(Workspace(workspace)), calculator])
