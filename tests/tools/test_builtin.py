"""The built-in tools: what the model is told, pinned from their functions; what calling each does; the functions
loaded on first call (what listing them imports is measured by bench/bench_startup.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from agentcli.tools import builtin_schemas
from agentcli.tools.builtin import builtin_functions, builtin_list, builtin_tools
from agentcli.tools.core.registry import ToolRegistry
from agentcli.tools.core.tool import Tool
from tests.support.agents import BUILTIN_NAMES
from tests.support.calls import bound

SCHEMAS_FILE = Path(builtin_schemas.__file__)


def render_schemas_module(registry: ToolRegistry) -> str:
    """The text of builtin_schemas.py for these tools: a JSON document in a raw string."""
    specs = {tool.name: {"description": tool.description, "parameters": tool.parameters} for tool in registry}
    text = json.dumps(specs, indent=2, ensure_ascii=False)
    assert '"""' not in text and not text.endswith("\\")
    return (
        '"""The built-in tools\' descriptions and parameter schemas, generated from their functions.\n\n'
        "Do not edit: tests/tools/test_builtin.py regenerates this file from them and fails when it differs\n"
        "(`UPDATE_SNAPSHOTS=1 python -m pytest tests/tools/test_builtin.py` rewrites it). A constant, so that\n"
        'listing the tools or sending their schemas imports no Pydantic.\n"""\n\n'
        "# ruff: noqa: E501  (generated: descriptions stay on one line, as the model reads them)\n\n"
        "from __future__ import annotations\n\n"
        "import json\n"
        "from typing import Any\n\n"
        f'BUILTIN_SCHEMAS: dict[str, dict[str, Any]] = json.loads(\n    r"""\n{text}\n"""\n)\n'
    )


def test_the_pinned_schemas_are_what_the_functions_generate() -> None:
    expected = render_schemas_module(ToolRegistry(builtin_functions()))
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        SCHEMAS_FILE.write_text(expected, encoding="utf-8")
    assert SCHEMAS_FILE.read_text(encoding="utf-8") == expected, "regenerate: see builtin_schemas.py's docstring"


def test_the_lazy_built_ins_say_what_the_functions_say() -> None:
    for lazy, func in zip(builtin_list(), builtin_functions(), strict=True):
        made = Tool.from_function(func, source="built-in")
        assert (lazy.name, lazy.description, lazy.parameters) == (made.name, made.description, made.parameters)
        assert lazy.func is func and lazy.context_params == made.context_params and lazy.source == "built-in"


def test_the_built_ins_that_change_files_ask_first_and_show_what_they_would_do(tmp_path: Path) -> None:
    changing = {"edit_file", "write_file", "run_command"}
    for tool in builtin_list():
        spec = tool.spec
        assert spec.requires_approval is (tool.name in changing), tool.name
        assert spec.read_only is (tool.name not in changing), tool.name  # --read-only and planning runs keep it
        assert spec.idempotent is (tool.name not in changing), tool.name  # the repeat guard answers a repeat
        assert (spec.preview is not None) is (tool.name in changing), tool.name
        assert spec.preview_checks is (tool.name in {"edit_file", "write_file"}), tool.name  # refused unasked
    (tmp_path / "a.txt").write_text("one\n")
    tools = builtin_tools(tmp_path)
    tools.call("read_file", {"path": "a.txt"})
    diff = tools.preview(bound(tools, "edit_file", {"path": "a.txt", "old_text": "one", "new_text": "two"}))
    assert isinstance(diff, str) and "-one" in diff and "+two" in diff
    assert (tmp_path / "a.txt").read_text() == "one\n"


def test_the_registry_sends_the_pinned_schemas_and_runs_the_real_functions(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("6\n7\n")
    tools = builtin_tools(tmp_path)
    assert [tool.name for tool in tools] == [
        *BUILTIN_NAMES,
    ]
    assert tools.call("list_files", {}).content == "notes.txt"
    assert tools.call("search_text", {"pattern": "7"}).content == "notes.txt:2: 7"
    assert tools.call("read_file", {"path": "notes.txt"}).content.endswith("2\t7")
    assert tools.call("calculator", {"expr": "6*7"}).content == "42"
    limit = tools.call("list_files", {"limit": 0})
    assert limit.is_error and "'limit'" in limit.content and "limit (integer, default 200, 1..1000)" in limit.content
