"""The tools agentcli ships: `read_file`, `list_files`, `search_text` (sandboxed to the workspace), `calculator`.

Their descriptions and schemas come from BUILTIN_SCHEMAS, generated from the functions' own Pydantic models
and pinned by a test that regenerates them; each function (and Pydantic) is loaded on its first call. So
listing the tools, or sending their schemas, costs no import of Pydantic.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agentcli.tools.builtin_schemas import BUILTIN_SCHEMAS
from agentcli.tools.registry import Tool, ToolRegistry
from agentcli.tools.workspace import Workspace


def builtin_functions(workspace: Workspace) -> dict[str, Callable[..., object]]:
    """The built-in tools as typed functions, by name (this imports them, and Pydantic)."""
    from agentcli.tools.calculator import calculator
    from agentcli.tools.list_files import make_list_files
    from agentcli.tools.read_file import make_read_file
    from agentcli.tools.search_text import make_search_text

    return {
        "read_file": make_read_file(workspace),
        "list_files": make_list_files(workspace),
        "search_text": make_search_text(workspace),
        "calculator": calculator,
    }


def builtin_tools(workspace: str | Path = ".") -> ToolRegistry:
    """A fresh registry of the built-in tools, the file tools rooted at `workspace`."""
    root = Workspace(workspace)
    loaded: dict[str, Callable[..., object]] = {}

    def loader(name: str) -> Callable[[], Callable[..., object]]:
        def load() -> Callable[..., object]:
            if not loaded:
                loaded.update(builtin_functions(root))
            return loaded[name]

        return load

    return ToolRegistry(
        Tool(name, spec["description"], loader(name), spec["parameters"]) for name, spec in BUILTIN_SCHEMAS.items()
    )
